"""Run every benchmark and write the numbers, targets and verdicts (bench/latest.md, untracked)."""

from __future__ import annotations

import argparse
import compileall
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import bridge
import hook_latency
import resident
import throughput
from _common import BIN, HOOK_PAYLOADS, ROOT, hook_env

import agent_control_plane_core

# Untracked by default so a run never dirties the tree; `make bench BENCH_WRITE=1` (or
# --output docs/performance.md) updates the published page.
OUTPUT = ROOT / "bench" / "latest.md"
PACKAGE_DIR = Path(agent_control_plane_core.__file__).resolve().parent
FORBIDDEN = ("jsonschema", "referencing", "jinja2", "datamodel_code_generator", "pydantic")


def machine() -> dict[str, str]:
    """What the numbers depend on: CPUs, CPU model, Python, load."""
    model = "unknown"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        nproc = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    except OSError:
        nproc = str(os.cpu_count())
    venv = Path(sys.prefix)
    return {
        "nproc": nproc,
        "cpu": model,
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "executable": str(venv.relative_to(ROOT)) if venv.is_relative_to(ROOT) else str(venv),
        "os": f"{platform.system()} {platform.release()}",
    }


def load() -> str:
    """The 1, 5 and 15 minute load averages, or '?' where the platform has none."""
    try:
        return ", ".join(f"{value:.2f}" for value in os.getloadavg())
    except OSError:
        return "?"


def import_profile(runs: int = 5) -> dict[str, Any]:
    """Self time of each module the Claude hook process imports (median of runs, -X importtime)."""
    payload = json.dumps(HOOK_PAYLOADS["claude"])
    times: dict[str, list[int]] = {}
    for _ in range(runs):
        done = subprocess.run(
            [str(BIN / "python"), "-X", "importtime", str(BIN / "acp-claude-hook")],
            input=payload,
            capture_output=True,
            text=True,
            env=hook_env(),
        )
        for line in done.stderr.splitlines():
            if not line.startswith("import time:") or "self [us]" in line:
                continue
            self_us, _cumulative, name = line.removeprefix("import time:").split("|")
            times.setdefault(name.strip(), []).append(int(self_us))
    median = {name: statistics.median(values) for name, values in times.items()}
    ours = sum(v for name, v in median.items() if name.startswith("agent_control_plane_core"))
    return {
        "modules": len(median),
        "total_us": sum(median.values()),
        "ours_us": ours,
        "top": sorted(median.items(), key=lambda item: -item[1])[:15],
        "forbidden": sorted(name for name in median if name.split(".")[0] in FORBIDDEN),
    }


def verdict(ok: bool) -> str:
    """PASS or MISS."""
    return "PASS" if ok else "**MISS**"


def _goal(row: dict[str, Any], latency: dict[str, Any]) -> float | None:
    """The ratio a row must stay under, or None for a floor, reference or peer."""
    if row.get("goal"):
        return float(row["goal"])  # issue 30: each policy size has its own target
    return {"target": latency["target_ratio"], "option": latency["option_ratio"]}.get(row["role"])


def latency_table(latency: dict[str, Any]) -> list[str]:
    """The hook latency rows as a Markdown table: wall and CPU time, each as a ratio too."""
    lines = [
        "| command | role | wall median ms (IQR) | wall ratio | CPU median ms | CPU ratio"
        " | target | wall | CPU |",
        "|---|---|---:|---:|---:|---:|---|---|---|",
    ]
    for row in latency["rows"]:
        goal = _goal(row, latency)
        wall = verdict(row["wall_ratio"] <= goal) if goal else ""
        cpu = verdict(row["cpu_ratio"] <= goal) if goal else ""
        lines.append(
            f"| `{row['name']}` | {row['role']} | {row['wall_ms']:.1f} ({row['wall_q1']:.1f}-"
            f"{row['wall_q3']:.1f}) | {row['wall_ratio']:.2f}x | {row['cpu_ms']:.1f} |"
            f" {row['cpu_ratio']:.2f}x | {f'≤ {goal}x' if goal else ''} | {wall} | {cpu} |"
        )
    return lines


def _targeted(events: dict[str, Any]) -> list[dict[str, Any]]:
    """The parse+render rows the target applies to: every adapter, not the reference rows."""
    return [row for row in events["rows"] if "json_ratio" in row and not row.get("reference")]


def _worst(latency: dict[str, Any], role: str, key: str) -> dict[str, Any]:
    return max((row for row in latency["rows"] if row["role"] == role), key=lambda r: r[key])


def _fastest_peer(latency: dict[str, Any], key: str) -> dict[str, Any]:
    return min((row for row in latency["rows"] if row["role"] == "peer"), key=lambda r: r[key])


def rules_rows(latency: dict[str, Any]) -> list[str]:
    """Issue 30's summary lines: the hook with a generated policy of each size that has a target."""
    out = []
    for row in latency["rows"]:
        if row["role"] != "rules" or not row.get("goal"):
            continue
        for key, label in (("cpu_ratio", "CPU"), ("wall_ratio", "wall")):
            out.append(
                f"| `{row['name']}` ({label} time) | {row[key]:.2f}x the floor |"
                f" ≤ {row['goal']}x | {verdict(row[key] <= row['goal'])} |"
            )
    return out


def resident_rows(resident: dict[str, Any]) -> list[str]:
    """Issue 30's summary lines for `acp serve`: median alone, p99 under concurrent callers."""
    alone, together = resident["rows"]
    return [
        f"| `acp serve` (resident HTTP), {alone['name']}: median | {alone['median_ms']:.2f} ms |"
        f" ≤ {resident['median_target']} ms | {verdict(alone['median_ms'] <= resident['median_target'])} |",
        f"| `acp serve` (resident HTTP), {together['name']}: p99 | {together['p99_ms']:.2f} ms |"
        f" ≤ {resident['p99_target']} ms | {verdict(together['p99_ms'] <= resident['p99_target'])} |",
    ]


def resident_table(resident: dict[str, Any], latency: dict[str, Any]) -> list[str]:
    """The resident transport's latency beside the command hook and the floor (ms)."""
    by_name = {row["name"]: row for row in latency["rows"]}
    lines = [
        "| transport | callers | requests | median ms | p99 ms |",
        "|---|---|---:|---:|---:|",
    ]
    for row in resident["rows"]:
        lines.append(
            f"| `acp serve --policy examples/policy.toml`, HTTP/1.1 keep-alive | {row['name']} |"
            f" {row['requests']:,} | {row['median_ms']:.2f} | {row['p99_ms']:.2f} |"
        )
    for name in ("acp-claude-hook, ACP_POLICY=examples/policy.toml", "floor (bench/floor.py)"):
        row = by_name.get(name)
        if row is not None:
            lines.append(
                f"| `{name}` (one process per call, wall) | 1 caller | | {row['wall_ms']:.1f} | |"
            )
    return lines


def summary_rows(
    latency: dict[str, Any],
    events: dict[str, Any],
    lines: dict[str, Any],
    resident: dict[str, Any] | None = None,
) -> list[str]:
    """The Summary table: every target of issue 13 (and issue 16's policy line) as a ratio."""
    out = rules_rows(latency) + ([] if resident is None else resident_rows(resident))
    for key, label in (("cpu_ratio", "CPU"), ("wall_ratio", "wall")):
        host = _worst(latency, "target", key)
        out.append(
            f"| hook end-to-end, worst host ({label} time): `{host['name']}` | {host[key]:.2f}x the"
            f" floor | ≤ {latency['target_ratio']}x | {verdict(host[key] <= latency['target_ratio'])} |"
        )
        peer = _fastest_peer(latency, key)
        out.append(
            f"| worst host against the fastest peer ({label} time): `{peer['name']}` |"
            f" {host[key]:.2f}x vs {peer[key]:.2f}x | faster | {verdict(host[key] < peer[key])} |"
        )
        option = _worst(latency, "option", key)
        out.append(
            f"| options, worst ({label} time): `{option['name']}` | {option[key]:.2f}x the floor |"
            f" ≤ {latency['option_ratio']}x | {verdict(option[key] <= latency['option_ratio'])} |"
        )
    adapters = _targeted(events)
    slowest = min(adapters, key=lambda row: row["json_ratio"])
    out.append(
        f"| in-process parse+render against json.loads+json.dumps, worst adapter:"
        f" {slowest['name']} | {slowest['json_ratio']:.2f}x | ≥ {events['json_target']}x |"
        f" {verdict(slowest['json_ratio'] >= events['json_target'])} |"
    )
    out.append(
        f"| `acp bridge` against the decode+encode loop, {lines['lines']:,} lines |"
        f" {lines['loop_ratio']:.2f}x | ≥ {lines['loop_target']}x |"
        f" {verdict(lines['loop_ratio'] >= lines['loop_target'])} |"
    )
    return out


def render(
    facts: dict[str, str],
    loads: tuple[str, str],
    latency: dict[str, Any],
    profile: dict[str, Any],
    events: dict[str, Any],
    lines: dict[str, Any],
    command: str,
    resident: dict[str, Any] | None = None,
) -> str:
    """The whole docs/performance.md text."""
    today = datetime.date.today().isoformat()
    out = [
        "# Performance",
        "",
        f"Written by {command} on {today}. Every number below comes from that one",
        "run; ratios are measured side by side in the same run, so they travel between machines",
        "better than the milliseconds do. Re-run `make bench` to refresh this page.",
        "",
        "## Machine",
        "",
        f"- CPUs (`nproc`): {facts['nproc']} — {facts['cpu']}",
        f"- {facts['python']} ({facts['executable']}), {facts['os']}",
        f"- load average (1, 5, 15 min) before: {loads[0]}; after: {loads[1]}. Other processes",
        "  sharing the CPUs widen the spread and lower the throughputs; the ratios hold up best,",
        "  and CPU-time ratios better than wall-time ones (a process waiting for a CPU is not",
        "  charged for the wait).",
        "- Before timing, bench/run.py byte-compiles the package and the demo judge",
        "  (`compileall`), as `pip install` does for an installed judge package: under",
        "  `PYTHONDONTWRITEBYTECODE=1` an editable install would otherwise recompile every module",
        "  of the hook on every call (about 20 ms here), and the judge's module its own (about 2 ms).",
        "",
        "## Summary",
        "",
        "| benchmark | measured | target | result |",
        "|---|---:|---|---|",
        *summary_rows(latency, events, lines, resident),
        "",
        "## 1. Hook end-to-end latency",
        "",
        "One hook process per sample, reading a realistic allowed shell call on stdin:",
        "`acp-<host>-hook` (the venv's console script, by absolute path) with the demo judge; the",
        "Claude hook with each option; the two commands `acp install claude` writes with options",
        "(`--judge` with `--fail-closed`, and `--policy`); and the peers, each in its own venv",
        "under `.bench-peers/` (untracked) with a minimal deny-rm-rf hook written the way its",
        "README shows (bench/peers/). The floor is `bench/floor.py` run by the same venv's",
        "Python: read the payload, `json.load` it, write a JSON body. Each ratio is a median over",
        "the floor's median, wall time and CPU time (user + system of the process) apart.",
        "",
        f"Timer: {latency['timer']}.",
        "",
        *latency_table(latency),
        "",
        "### What the hook process imports",
        "",
        f"`python -X importtime acp-claude-hook` (median of 5): {profile['modules']} modules,"
        f" {profile['total_us'] / 1000:.1f} ms of import self time (inflated by the",
        f"instrumentation), of which this package's own modules: {profile['ours_us'] / 1000:.1f} ms.",
        f"Forbidden modules loaded: {', '.join(profile['forbidden']) or 'none'}"
        f" (checked: {', '.join(FORBIDDEN)}).",
        "",
        "| module | self µs |",
        "|---|---:|",
        *[f"| `{name}` | {us:,.0f} |" for name, us in profile["top"]],
        "",
        CUTS,
        "",
        *(
            []
            if resident is None
            else [
                "### The resident transport (issue 30)",
                "",
                "`acp serve` loads the policy once and answers Claude Code's HTTP hook requests on",
                "127.0.0.1 (bench/resident.py): a single-threaded selectors loop over HTTP/1.1",
                "keep-alive connections, each caller a closed loop (send the payload, wait for the",
                f"answer, send again), one caller alone and then {resident['rows'][1]['name']},",
                "each in its own process on the same two CPUs as the server. The rows with",
                "`ACP_POLICY=N generated rules` above are the command hook against the policy's size",
                "(bench/hook_latency.py rule_file: one deny rule per program, every 100th on git,",
                "so the call's git rules grow with the file).",
                "",
                *resident_table(resident, latency),
                "",
            ]
        ),
        "## 2. In-process parse+render throughput",
        "",
        '`adapter.render(Verdict(decision="allow"), adapter.parse(payload))` in a loop, for',
        "every adapter: the four hosts on the payloads above (Amp in its envelope form), the others",
        "on their golden shell call (the one the demos send, running the same command), against",
        "`json.dumps(json.loads(text))` of the same payload in interleaved repeats of about half a",
        "second. Copilot is measured on the payload its pinned lab version (1.0.102) sent, toolArgs",
        "an object (docs/findings.md CP-13); its golden call, toolArgs as a JSON string as older docs",
        "show, is a reference row. The last row is what a hook does after reading stdin:",
        "`render_hook_response` (json.loads, parse, demo judge, sanitize, escalate).",
        "",
        "| adapter | median events/s | best | worst | json round trips/s | ratio | target | result |",
        "|---|---:|---:|---:|---:|---:|---|---|",
    ]
    for row in events["rows"]:
        if row.get("reference"):
            extra = f"{row['json_median']:,.0f} | {row['json_ratio']:.2f}x | reference | "
        elif "json_ratio" in row:
            goal = f"≥ {events['json_target']}x"
            extra = f"{row['json_median']:,.0f} | {row['json_ratio']:.2f}x | {goal} |"
            extra += f" {verdict(row['json_ratio'] >= events['json_target'])}"
        else:
            extra = " |  |  | "
        out.append(
            f"| {row['name']} | {row['median']:,.0f} | {row['best']:,.0f} | {row['worst']:,.0f}"
            f" | {extra} |"
        )
    out += [
        "",
        "## 3. `acp bridge` throughput",
        "",
        f"`acp bridge` as one process over {lines['lines']:,} JSON Lines (the four hosts in turn;",
        "allow, deny and ask verdicts and some lines without one), answers written to a file,",
        "against a Python process that only `json.loads` and `json.dumps` each line; wall time of",
        f"the whole process, median of {lines['repeats']} runs each.",
        "",
        "| lines | median wall s | lines/s | best lines/s | loop lines/s | ratio | target | result |",
        "|---:|---:|---:|---:|---:|---:|---|---|",
        f"| {lines['lines']:,} | {lines['median_s']:.2f} | {lines['lines_per_s']:,.0f} |"
        f" {lines['best_lines_per_s']:,.0f} | {lines['loop_lines_per_s']:,.0f} |"
        f" {lines['loop_ratio']:.2f}x | ≥ {lines['loop_target']}x |"
        f" {verdict(lines['loop_ratio'] >= lines['loop_target'])} |",
        "",
        "The same lines in one process (best of interleaved rounds), to show where a line's time",
        "goes: the loop; the decode of each line and the encode of the answer the bridge gives",
        "for it, computed beforehand (what any implementation of this answer shape pays before",
        "doing any work); the same for an answer without the echoed event; the contract's work",
        "alone (parse, and render the line's verdict), on the lines decoded beforehand; and the",
        "bridge's own answer function.",
        "",
        "| in one process | lines/s | against the loop |",
        "|---|---:|---:|",
        *[
            f"| {label} | {inner[key]:,.0f} | {inner[key] / inner['loop']:.2f}x |"
            for inner in (lines["in_process"],)
            for key, label in (
                ("loop", "decode+encode loop"),
                ("answer_json", "decode the line, encode its answer, nothing between"),
                ("answer_json_no_event", "the same, for an answer without the echoed event"),
                ("work", "parse and render alone, on the lines decoded beforehand"),
                ("bridge", "`acp bridge`'s answer to the line"),
            )
        ],
        "",
        "## Targets not met, and why",
        "",
    ]
    misses = []
    if any(
        row["cpu_ratio"] > latency["target_ratio"] or row["wall_ratio"] > latency["target_ratio"]
        for row in latency["rows"]
        if row["role"] == "target"
    ):
        misses.append(WHY_HOOK)
    if any(
        row["cpu_ratio"] > latency["option_ratio"] or row["wall_ratio"] > latency["option_ratio"]
        for row in latency["rows"]
        if row["role"] == "option"
    ):
        misses.append(WHY_OPTIONS)
    if any(row["json_ratio"] < events["json_target"] for row in _targeted(events)):
        misses.append(WHY_EVENTS)
    if lines["loop_ratio"] < lines["loop_target"]:
        misses.append(WHY_BRIDGE)
    out += [*(misses or ["None in this run."]), ""]
    return "\n".join(out)


WHY_HOOK = """- **Hook latency.** A hook process loads, beyond the floor, about 20 of this package's
  modules for one host (the generated constants, declarations and models, the adapter, the
  runtime): bytecode to unmarshal and run, since no module it loads is heavy any more (see What
  was cut). The work of the call itself is under a millisecond. On a loaded machine the spread
  of every row is wider than the gap to the target."""

WHY_OPTIONS = """- **Options.** `ACP_POLICY` adds the policy module and the shell splitter (about 120 KB of
  bytecode) and its regular expressions; reading the compiled cache and its checksum
  (`binascii`) costs about a millisecond. `ACP_AUDIT_LOG` adds `threading` (the write has a
  bound of its own) and the audit module. `ACP_FAIL_CLOSED=1` runs the judge in a forked child
  (so a judge killed by a signal still blocks: `_supervise`), about 2 ms of copy-on-write
  faults, the child's exit and its answer sent back over a pipe; the installed `--judge
  --fail-closed` line pays that and the judge module's own import (the demo judge compiles two
  regular expressions)."""

WHY_EVENTS = """- **Parse+render throughput.** An event is two frozen objects with seventeen
  fields, and a response is a third: three objects made and freed, and a handful of Python
  calls, per event. Filled from per-adapter plans, they cost about what `json.loads` and
  `json.dumps` in C cost on a payload of some 200 bytes, so a host whose call is smaller sits at
  the loop's rate, and other processes sharing the two CPUs move either loop by more than the
  gap. Copilot's golden call (the reference row) also decodes its JSON-string arguments a
  second time."""

WHY_BRIDGE = """- **`acp bridge` throughput.** An answer holds the normalized event, the render, the
  escalated render and the unrendered fields: about twice the bytes of the line it answers.
  Decoding the line and encoding that answer, with no work between, already runs at the rate
  in the in-process table's second row. Without the echoed event it would be the third row; the
  contract's work alone (parse and render, fourth row) costs about as much as the loop itself.
  Each line pays both, so even an answer without the event, with no other cost, would run at
  1 / (1 / third + 1 / fourth) of the loop: below the target. Meeting it needs work per line
  far below one JSON round trip, which the parse+render target above already sets as the bar."""


CUTS = """What was cut from the hook path (issue 13). Before and after, measured once when the cuts
were made, not by this run (2026-12-01, this machine under a load average of about 7, 30
interleaved rounds, CPU-time medians; the package of main before the cuts, eebc374, and after
them, each put first on `PYTHONPATH` and run as `python -c` the way the console script does):
Claude hook 1.92x -> 1.35x the floor; `ACP_POLICY` 2.02x -> 1.48x; `ACP_AUDIT_LOG` 1.86x ->
1.41x; `acp hook claude --judge ... --fail-closed` 2.43x -> 1.46x; `acp hook claude --policy ...`
2.75x -> 1.53x; cchooks in the same rounds 1.35x.

- `dataclasses` (which imports `inspect`, `ast`, `dis` and `tokenize`) is no longer imported by a
  hook process. The generated classes carry their own `__init__`, `__repr__`, `__eq__` and
  `__hash__` (`templates/python/datamodel/dataclass.jinja2`); at run time their `@dataclass` is
  `_model_base.deferred_dataclass` (codegen/driver.py swaps the import; type checkers still read
  the standard decorator), which applies `dataclasses.dataclass` with the same arguments to the
  same class the first time anything reads its dataclass metadata: `dataclasses.fields`,
  `replace`, `asdict`, `is_dataclass`, `from_dict`, an assignment (`FrozenInstanceError`) or a
  subclass. The reference row `floor + import dataclasses` shows what that import costs alone.
- `acp hook` (what `acp install` writes when a judge, policy, fail-closed or version is given)
  reads its options by hand: argparse, pathlib and every subcommand's parser load only for other
  commands, or for a hook line argparse would refuse (which then gets argparse's message).
- The policy judge reads the compiled JSON cache beside the rule file (checked by modification
  time, size and checksum) instead of importing tomllib on each call; its rule records are
  slotted classes, not NamedTuples (a NamedTuple class compiles each string annotation).
- The private copies of the host's pipes come from `os.dup` (non-inheritable) instead of
  `fcntl`, a shared library loaded for one call.
- Earlier: no regular expression compiled at import; `to_dict` reads `__dict__`.
- `typing` (with `contextlib` and `warnings`, which it imports; `floor + import typing`
  measured 1.13x and 1.23x the floor's CPU time): the generated modules declare their `Literal`
  aliases and typing names for type checkers only (`TYPE_CHECKING = False`, which mypy reads as
  true); at run time `_lazy_typing` builds them on first use, through a module `__getattr__`
  (`from ...verdict_schema import Decision` works) and before `typing.get_type_hints`,
  `inspect` or `dataclasses` read a generated class's annotations. The `Adapter` protocol lives
  in `adapters/_protocol.py`, loaded when something reads it; the policy's `Explanation` is a
  slotted class; the runtime and judge loader use `__import__` (the `importlib` package loads
  `warnings`) and try/except instead of `contextlib.suppress`. The demo judge
  (examples/demo_judge.py) imports typing the same way, since a judge loads in every call.
  Measured with this change, on a load average of about 7 (20 interleaved rounds, CPU time):
  the four hook entries 1.07x-1.17x the floor (before: 1.33x-1.39x), cchooks 1.38x.
- The Claude entry recognises a Cursor or Droid payload (docs/findings.md XH-1) from the
  `sender_markers` of their declarations, generated into `_generated/hosts/__init__.py`,
  instead of importing both adapters on every Claude Code call.
- Tests: tests/test_hook_path_imports.py runs the whole hook process on each option path and
  asserts that none of these modules is loaded."""


# Issue 29: the hook with `acp audit export` following its log costs what it costs without.
EXPORTER_RATIO = 1.10
EXPORTER_NAMES = (
    "acp-claude-hook, ACP_AUDIT_LOG, no exporter",
    "acp-claude-hook, ACP_AUDIT_LOG, `acp audit export` following the log",
)


def exporter_cost(runs: int) -> dict[str, Any] | None:
    """The audit-log hook with and without an exporter tailing its log, in the same rounds."""
    import tempfile
    import threading
    import time
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from _common import summary, write_payloads

    try:
        import agent_control_plane_core.export._otel  # noqa: F401 (the [otel] extra)
    except ImportError:
        return None

    class Sink(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Sink)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        payload = write_payloads(folder)["claude"]
        logs = (folder / "plain.jsonl", folder / "followed.jsonl")
        claude = str(BIN / "acp-claude-hook")
        rows = [
            {"name": name, "argv": [claude], "stdin": payload, "env": {"ACP_AUDIT_LOG": str(log)}}
            for name, log in zip(EXPORTER_NAMES, logs, strict=True)
        ]
        endpoint = f"http://127.0.0.1:{server.server_address[1]}"
        follower = subprocess.Popen(
            [str(BIN / "acp"), "audit", "export", str(logs[1]), "--poll", "0.05"],
            env={**os.environ, "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint},
            stderr=subprocess.DEVNULL,
        )
        try:
            walls, cpus = hook_latency.time_interleaved(rows, runs, warmup=3)
            written = len(logs[1].read_bytes().splitlines())
            offsets = Path(f"{logs[1]}.otel-offset")
            for _ in range(200):  # the follower kept up: everything written was exported
                if offsets.exists() and json.loads(offsets.read_text())["line"] == written:
                    break
                time.sleep(0.05)
            exported = json.loads(offsets.read_text())["line"] if offsets.exists() else 0
        finally:
            follower.terminate()
            follower.wait()
            server.shutdown()
    out = [
        {"name": name, "wall": summary(wall)["median"] * 1000, "cpu": summary(cpu)["median"] * 1000}
        for name, wall, cpu in zip(EXPORTER_NAMES, walls, cpus, strict=True)
    ]
    return {
        "rows": out,
        "runs": runs,
        "written": written,
        "exported": exported,
        "cpu_ratio": out[1]["cpu"] / out[0]["cpu"],
        "wall_ratio": out[1]["wall"] / out[0]["wall"],
    }


def exporter_section(text: str, cost: dict[str, Any] | None) -> str:
    """The page with the exporter's Summary row and its section 4 added."""
    if cost is None:
        return (
            text
            + "\n## 4. The hook with `acp audit export` following its log\n\nNot measured: the [otel] extra is not installed.\n"
        )
    ok = max(cost["cpu_ratio"], cost["wall_ratio"]) <= EXPORTER_RATIO
    row = (
        f"| hook with `acp audit export` following its log, against without (CPU, wall) |"
        f" {cost['cpu_ratio']:.2f}x, {cost['wall_ratio']:.2f}x | ≤ {EXPORTER_RATIO}x |"
        f" {verdict(ok)} |"
    )
    at = text.index("\n\n## 1.")
    text = text[:at] + "\n" + row + text[at:]
    lines = [
        "",
        "## 4. The hook with `acp audit export` following its log",
        "",
        "The exporter is a process of its own (issue 29); the hook path imports none of it",
        "(tests/test_audit_export.py checks every module a hook process loads). Two rows of the",
        f"same interleaved rounds ({cost['runs']} runs each after 3 warm-up rounds): the Claude",
        "hook appending to an audit log nobody reads, and to one an `acp audit export` process",
        "follows (polling every 0.05 s, sending to a local OTLP/HTTP sink).",
        f"The follower exported {cost['exported']} of the {cost['written']} lines written.",
        "",
        "| command | wall median ms | CPU median ms |",
        "|---|---:|---:|",
        *[f"| {r['name']} | {r['wall']:.1f} | {r['cpu']:.1f} |" for r in cost["rows"]],
        "",
    ]
    # Before "Targets not met", which closes the page.
    at = text.find("\n## Targets not met")
    at = len(text) if at < 0 else at
    return text[:at] + "\n".join(lines) + text[at:]


def main() -> None:
    """Compile the package, run the benchmarks and write the results page."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer runs, for a smoke test")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args()
    compileall.compile_dir(PACKAGE_DIR, quiet=1)
    compileall.compile_file(ROOT / "examples" / "demo_judge.py", quiet=1)
    facts, before = machine(), load()
    runs = 10 if args.quick else 40
    print(f"hook latency ({runs} interleaved rounds, peers included)...", flush=True)
    latency = hook_latency.measure(runs=runs, warmup=3)
    print("resident transport (acp serve)...", flush=True)
    payload = json.dumps(HOOK_PAYLOADS["claude"]).encode()
    served = resident.measure(
        payload, sequential=500 if args.quick else 3000, each=100 if args.quick else 500
    )
    print("import profile...", flush=True)
    profile = import_profile()
    print("in-process throughput...", flush=True)
    events = throughput.measure(seconds=0.2 if args.quick else 0.5, repeats=3 if args.quick else 7)
    print("acp bridge...", flush=True)
    lines = bridge.measure(lines=10_000 if args.quick else 100_000, repeats=1 if args.quick else 3)
    command = (
        "`bench/run.py --quick`"
        if args.quick
        else "`make bench` (which runs `.venv/bin/python bench/run.py`)"
    )
    text = render(facts, (before, load()), latency, profile, events, lines, command, served)
    print("the hook with acp audit export following its log...", flush=True)
    text = exporter_section(text, exporter_cost(runs=10 if args.quick else 20))
    args.output.write_text(text, encoding="utf-8")
    print(text[text.index("## Summary") : text.index("## 1.")])
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
