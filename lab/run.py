"""The real-host lab: every scenario on every pinned host, offline, judged by the host's declaration."""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lab import scenarios as sc

REPO = Path(__file__).resolve().parent.parent
PROFILES = REPO / "lab" / "profiles"
MATRIX = REPO / "docs" / "hosts.md"
JUDGE_SPEC = "lab.judge:judge"
API_KEY = "lab-" + "k3y" * 8  # long and odd: Copilot masks the key's value wherever it appears
_print_lock = threading.Lock()


def say(text: str) -> None:
    """One progress line on stderr."""
    with _print_lock:
        print(f"lab: {text}", file=sys.stderr, flush=True)


def load_profile(host: str) -> dict[str, Any]:
    """The host's lab profile: how to point it at the model server and drive it headless."""
    profile: dict[str, Any] = json.loads((PROFILES / f"{host}.json").read_text(encoding="utf-8"))
    return profile


def profiled_hosts() -> list[str]:
    """Every host with a lab profile, in name order."""
    return sorted(path.stem for path in PROFILES.glob("*.json"))


@dataclass
class Outcome:
    """What one scenario showed on one host, against what the declaration says it must show."""

    host: str
    version: str
    scenario: sc.Scenario
    expected: dict[str, bool]
    observed: dict[str, bool]
    run_dir: Path
    seconds: float
    problem: str | None = None
    answers: str = ""
    nonce: str = ""

    @property
    def stalled(self) -> bool:
        """Whether the host ran into the lab's time limit (or the driver died) rather than answering."""
        return self.problem is not None and (
            "timed out: True" in self.problem or "no result" in self.problem
        )

    @property
    def passed(self) -> bool:
        return self.problem is None and all(
            self.observed.get(key) == value for key, value in self.expected.items()
        )

    def words(self, values: dict[str, bool]) -> str:
        """The observations as the matrix shows them."""
        return "; ".join(sc.WORDS[key][0 if values[key] else 1] for key in values)

    def failure(self) -> str:
        """A failure message naming host, version, scenario and evidence."""
        seen = {key: self.observed.get(key) for key in self.expected}
        why = self.problem or f"expected {self.words(self.expected)}, observed {_words(seen)}"
        return f"{self.host} {self.version} {self.scenario.name}: {why} (evidence: {self.run_dir})"


def _words(values: dict[str, bool | None]) -> str:
    return "; ".join(
        "unknown " + key if value is None else sc.WORDS[key][0 if value else 1]
        for key, value in values.items()
    )


def _fill(value: Any, names: dict[str, str]) -> Any:
    """Replace {placeholders} in every string of a JSON value; {port} is left for the driver."""
    if isinstance(value, str):
        for key, text in names.items():
            value = value.replace("{" + key + "}", text)
        return value
    if isinstance(value, list):
        return [_fill(item, names) for item in value]
    if isinstance(value, dict):
        return {_fill(k, names): _fill(v, names) for k, v in value.items()}
    return value


def _merge(into: dict[str, Any], extra: dict[str, Any]) -> None:
    """Deep-merge a profile's settings into the file the installer wrote; lists are extended."""
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        elif isinstance(value, list) and isinstance(into.get(key), list):
            into[key].extend(item for item in value if item not in into[key])
        else:
            into[key] = value


def _venv_bin() -> Path:
    return Path(sys.executable).parent


def _tap(run_dir: Path, host: str) -> Path:
    """Programs that stand where the installed `acp` and `acp-HOST-hook` were, recording each call."""
    folder = run_dir / "bin"
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("acp", f"acp-{host}-hook"):
        tap, real = folder / name, _venv_bin() / name
        tap.write_text(
            f'#!/bin/sh\nexec {sys.executable} -m lab.tap {run_dir / "hooks"} {real} "$@"\n',
            encoding="utf-8",
        )
        tap.chmod(0o755)
    return folder


def _install_hook(
    host: str, scenario: sc.Scenario, home: Path, project: Path, run_dir: Path
) -> str:
    """Install our hook the way a user does (`acp install HOST --project`), then tap it."""
    argv = [str(_venv_bin() / "acp"), "install", host, "--project", "--judge", JUDGE_SPEC]
    if scenario.fail_closed:
        argv.append("--fail-closed")
    env = {**os.environ, "HOME": str(home), "PYTHONPATH": str(REPO)}
    done = subprocess.run(argv, cwd=project, env=env, capture_output=True, text=True, check=False)
    (run_dir / "install.out").write_text(done.stdout + done.stderr, encoding="utf-8")
    if done.returncode != 0:
        raise RuntimeError(f"acp install {host} --project failed: {done.stderr.strip()}")
    # The installed command names <venv>/bin/acp or <venv>/bin/acp-HOST-hook (behind env(1)
    # when options are set): either way the same name in the tap folder records the call.
    real, tap = str(_venv_bin() / "acp"), str(_tap(run_dir, host) / "acp")
    patched = 0
    for path in [*project.rglob("*"), *home.rglob("*")]:
        if path.is_file() and path.stat().st_size < 1_000_000:
            text = path.read_text(encoding="utf-8", errors="replace")
            if real in text:
                path.write_text(text.replace(real, tap), encoding="utf-8")
                patched += 1
    if not patched:
        raise RuntimeError(f"acp install {host} wrote no config naming {real}")
    return done.stdout


def _reshape(form: dict[str, Any], project: Path) -> None:
    """Turn the installed config into another form the host reads: rename its event keys."""
    renames: dict[str, str] = form["event_renames"]
    changed = 0
    for path in project.rglob("*.json"):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            continue
        hooks = data.get("hooks") if isinstance(data, dict) else None
        if not isinstance(hooks, dict) or not set(renames) & set(hooks):
            continue
        for old, new in renames.items():
            if old in hooks:
                hooks[new] = hooks.pop(old)
        path.write_text(json.dumps(data, indent=2), encoding="utf-8")
        changed += 1
    if not changed:
        raise RuntimeError(f"no installed config has the events {sorted(renames)} to rename")


def run_one(
    host: str, version: str, binary: Path, node_bin: Path, scenario: sc.Scenario, root: Path
) -> Outcome:
    """Prepare a fresh HOME and project, install the hook, drive the host offline, observe."""
    from agent_control_plane_core.runtime import entry_adapter

    profile = load_profile(host)
    env_version = f"ACP_{host.upper()}_VERSION"
    adapter = entry_adapter(host, {env_version: version})
    expected = sc.expected(adapter, scenario)
    run_dir = root / f"{host}@{version}" / scenario.name
    shutil.rmtree(run_dir, ignore_errors=True)
    home, project = run_dir / "home", run_dir / "project"
    for folder in (
        home,
        project,
        run_dir / "model",
        run_dir / "hooks",
        run_dir / "judge",
        run_dir / "tmp",
    ):
        folder.mkdir(parents=True)
    markers = sc.Markers(secrets.token_hex(4))
    names = {
        "home": str(home),
        "project": str(project),
        "bin": str(binary),
        "node_bin": str(node_bin),
        "prompt": markers.prompt,
        "model": profile.get("model", "lab-model"),
        "api_key": API_KEY,
        "command": markers.command(str(project)),
        "rewrite_command": markers.rewrite_command(str(project)),
        "context": markers.context,
        "reason": markers.reason,
        "replacement": markers.replacement,
    }
    started = time.monotonic()
    if profile.get("git_init"):
        subprocess.run(["git", "init", "-q", str(project)], check=True)
    try:
        _install_hook(host, scenario, home, project, run_dir)
        if scenario.form is not None:
            _reshape(profile["forms"][scenario.form], project)
        for path, extra in _fill(profile.get("merge_json", {}), names).items():
            target = Path(path)
            current = json.loads(target.read_text(encoding="utf-8")) if target.exists() else {}
            _merge(current, extra)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(current, indent=2), encoding="utf-8")
    except RuntimeError as exc:
        return Outcome(host, version, scenario, expected, {}, run_dir, 0.0, problem=str(exc))
    judge_file = {
        "verdicts": scenario.verdicts(markers, str(project)),
        "record": str(run_dir / "judge"),
        "crash": scenario.crash,
        "kill": scenario.kill,
        "sleep_s": scenario.sleep_s,
        "on_kind": sc.PRE,
    }
    scenario_path = home / ".acp-lab" / "scenario.json"
    scenario_path.parent.mkdir(parents=True)
    scenario_path.write_text(json.dumps(judge_file), encoding="utf-8")
    if scenario.control is not None:
        control = _fill(profile.get("controls", {}).get(scenario.control), names)
        if control is None:
            return Outcome(
                host,
                version,
                scenario,
                expected,
                {},
                run_dir,
                0.0,
                problem=f"profile has no native control answer for {scenario.control}",
            )
        stdout = control.get("stdout", "")
        control["stdout"] = stdout if isinstance(stdout, str) else json.dumps(stdout)
        (run_dir / "control.json").write_text(json.dumps(control), encoding="utf-8")
    tool = _fill(profile["shell_tool"], names)
    env = {
        "PATH": f"{node_bin}:{_venv_bin()}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(home),
        "USER": "lab",
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "TMPDIR": str(run_dir / "tmp"),
        "PYTHONPATH": str(REPO),
        "ACP_LAB_SCENARIO": str(scenario_path),
        env_version: version,
        "NO_COLOR": "1",
        "CI": "1",
    }
    if scenario.timeout_ms is not None:
        env["ACP_HOOK_TIMEOUT_MS"] = str(scenario.timeout_ms)
    env.update(_fill(profile.get("env", {}), names))
    files = {
        path: body if isinstance(body, str) else json.dumps(body, indent=2)
        for path, body in _fill(profile.get("files", {}), names).items()
    }
    timeout_s = float(profile.get("timeout_s", 90))
    spec = {
        "run_dir": str(run_dir),
        "record_dir": str(run_dir / "model"),
        "lifetime_s": timeout_s + 30,
        "timeout_s": timeout_s,
        "script": {"tool_call": tool, "final_text": "lab: done", "model": names["model"]},
        "files": files,
        "env": env,
        "argv": _fill(profile["argv"], names),
        "cwd": str(project),
    }
    spec_path = run_dir / "drive.json"
    spec_path.write_text(json.dumps(spec, indent=1), encoding="utf-8")
    drive = [sys.executable, "-m", "lab.drive", str(spec_path)]
    # Each run gets its own network namespace (loopback only) and PID namespace: nothing can leave
    # the machine, and every process the host starts dies with the driver.
    from lab.install import ROOT_PREFIX, netns_prefix

    wrapped = [*(netns_prefix() or ROOT_PREFIX), "-p", "-f", "--mount-proc", *drive]
    subprocess.run(
        wrapped,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        cwd=REPO,
        timeout=timeout_s + 60,
        check=False,
        capture_output=True,
    )
    seconds = round(time.monotonic() - started, 1)
    result_file = run_dir / "result.json"
    if not result_file.exists():
        return Outcome(
            host,
            version,
            scenario,
            expected,
            {},
            run_dir,
            seconds,
            problem="the driver wrote no result (see drive.json, host.stderr)",
        )
    observed = observe(run_dir, project, markers)
    answers = _answers(adapter, run_dir / "hooks", scenario.kind)
    result = json.loads(result_file.read_text())
    problem = None
    if not observed[sc.HOOK_CALLED] and scenario.name != "prompt_block":
        problem = f"the host never called the hook (host exit {result['exit_code']}, timed out: {result['timed_out']})"
    return Outcome(
        host,
        version,
        scenario,
        expected,
        observed,
        run_dir,
        seconds,
        problem,
        answers,
        markers.nonce,
    )


def record_payloads(outcomes: list[Outcome], run_id: str, *, write: bool) -> list[str]:
    """Bring (or check) the corpus of real payloads in fixtures/real up to this run's."""
    from agent_control_plane_core.runtime import entry_adapter
    from lab import install, record

    seen: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
    for o in sorted(outcomes, key=lambda o: (o.host, o.version, o.scenario.name)):
        run = record.Run(o.host, o.version, o.scenario.name, o.run_dir, run_id, o.nonce)
        adapter = entry_adapter(o.host, {f"ACP_{o.host.upper()}_VERSION": o.version})
        pairs = record.replacements(run, api_key=API_KEY, cache=install.cache_dir())
        found = seen.setdefault((o.host, o.version), {})
        for name, item in record.payloads_of(run, adapter, pairs).items():
            found.setdefault(name, item)
    return record.sync(seen, write=write)


def _answers(adapter: Any, hooks: Path, kind: str) -> str:
    """How the hook answered the scenario's event kind: exit codes and body keys (shows version switches)."""
    seen = []
    for path in sorted(hooks.glob("hook-*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        try:
            event = adapter.parse(json.loads(record["stdin"]))
        except ValueError:
            continue
        if event.event != kind:
            continue
        try:
            body = json.loads(record["stdout"]) if record["stdout"].strip() else None
        except ValueError:
            body = "text"
        shape = (
            "no body"
            if body is None
            else ("body " + ",".join(sorted(body)) if isinstance(body, dict) else "text body")
        )
        answer = f"{kind} exit {record['exit_code']}, {shape}"
        if answer not in seen:
            seen.append(answer)
    return "; ".join(seen)


def _after_tool_text(model_dir: Path) -> tuple[str, str]:
    """(every request body, the bodies after the scripted tool call) as one searchable text each."""
    everything, after, issued = [], [], False
    for path in sorted(model_dir.glob("*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        text = json.dumps(record.get("body"), ensure_ascii=False)
        everything.append(text)
        if issued:
            after.append(text)
        if record.get("answered") == "tool_call":
            issued = True
    return "\n".join(everything), "\n".join(after)


def observe(run_dir: Path, project: Path, markers: sc.Markers) -> dict[str, bool]:
    """Read the run's evidence: marker files, the model's requests, the hook calls."""
    everything, after = _after_tool_text(run_dir / "model")
    return {
        sc.ORIGINAL_RAN: (project / "lab-original").exists(),
        sc.REWRITE_RAN: (project / "lab-rewritten").exists(),
        sc.REASON_SEEN: markers.reason in after,
        sc.CONTEXT_SEEN: markers.context in after,
        sc.SECRET_SEEN: markers.secret in after,
        sc.REPLACEMENT_SEEN: markers.replacement in after,
        sc.PROMPT_SEEN: markers.prompt.split()[0] in everything,
        sc.HOOK_CALLED: any((run_dir / "hooks").glob("hook-*.json")),
        sc.HOOK_IN_TIME: all(
            json.loads(p.read_text(encoding="utf-8"))["seconds"] < sc.HANG_SECONDS
            for p in (run_dir / "hooks").glob("hook-*.json")
        ),
    }


def plan(hosts: list[str], *, latest: bool, older: bool) -> list[tuple[str, str, Path, Path]]:
    """Install (or find cached) every host version the run needs: (host, version, bin, node bin)."""
    from lab import install

    wanted = []
    locked = install.lock()["hosts"]
    unknown = sorted(set(hosts) - set(locked))
    if unknown:
        raise SystemExit(
            f"lab: no lab profile for {', '.join(unknown)}; lab hosts: {', '.join(sorted(locked))}"
            " (a host without one is checked against its own source: docs/hosts.md)"
        )
    for host in hosts:
        versions: list[str | None] = [None]
        if older:
            versions += list(locked[host].get("older", []))
        for version in versions:
            got = install.ensure_host(host, version, latest=latest)
            wanted.append((host, got.version, got.bin, got.node_bin_dir))
    return wanted


def scenarios_for(host: str, version: str) -> list[sc.Scenario]:
    """Every scenario, plus a control for each channel the declaration calls unrendered."""
    from agent_control_plane_core.runtime import entry_adapter

    adapter = entry_adapter(host, {f"ACP_{host.upper()}_VERSION": version})
    forms = sorted(load_profile(host).get("forms", {}))
    return [*sc.SCENARIOS, *sc.form_variants(forms), *sc.controls_for(adapter)]


def matrix(outcomes: list[Outcome]) -> str:
    """docs/hosts.md: host and version x scenario -> observed outcome (no timings: byte-checked)."""
    lines = [
        "## Lab runs",
        "",
        "Every row ran the real host CLI offline, in a loopback-only network namespace, against the",
        "lab's scripted model server, with the hook installed by `acp install HOST --project`. The",
        "expected outcome is derived from the host's declaration, configured for that version.",
        "",
        "| host | version | scenario | observed | matches the declaration |",
        "|---|---|---|---|---|",
    ]
    for o in sorted(outcomes, key=lambda o: (o.host, o.version, o.scenario.name)):
        seen = {key: o.observed.get(key, False) for key in o.expected}
        text = o.problem or o.words(seen)
        if o.answers:
            text += f" ({o.answers})"
        lines.append(
            f"| {o.host} | {o.version} | {o.scenario.name} | {text} | {'yes' if o.passed else 'NO'} |"
        )
    return "\n".join([*_summary(outcomes), *lines]) + "\n"


def declaration(host: str) -> dict[str, Any]:
    """The host's published declaration, as the repository holds it."""
    path = REPO / "schema" / "control-plane" / "v1" / "hosts" / f"{host}.json"
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


def _summary(outcomes: list[Outcome]) -> list[str]:
    """One row per declared host: the versions it was checked at and what its facts rest on."""
    from agent_control_plane_core import AGENT_IDS
    from agent_control_plane_core._generated.constants import (
        BuiltFromFields,
        HostDeclarationFields,
    )
    from agent_control_plane_core.contract import version_key

    lines = [
        "# Host compatibility matrix",
        "",
        "Generated by `make lab` (python -m lab.run --write); `make lab-check` (part of `make test`)",
        "reruns the lab and byte-checks this file.",
        "",
        "The evidence level is the declaration's (host.schema.json evidence): lab-verified at the",
        "versions the rows below ran, source-read at a commit or package, host docs, or a",
        "third-party report; facts resting on a third-party report only take claims away.",
        "",
        "| host | version | evidence level | evidence |",
        "|---|---|---|---|",
    ]
    for agent in sorted(AGENT_IDS):
        runs = [o for o in outcomes if o.host == agent]
        facts = _third_party_facts(agent)
        if runs:
            # Lab versions are exact (the lock is validated), so each has a key.
            versions = ", ".join(
                sorted({o.version for o in runs}, key=lambda v: version_key(v) or ())
            )
            passed = sum(o.passed for o in runs)
            lines.append(
                f"| {agent} | {versions} | lab-verified at {versions} | {passed} of {len(runs)}"
                f" runs match the declaration (rows below){facts} |"
            )
            continue
        decl = declaration(agent)
        built = decl.get(HostDeclarationFields.BUILT_FROM)
        if built is None:
            lines.append(
                f"| {agent} | unknown | unknown | no lab rows in this run, and no built_from |"
            )
            continue
        evidence = decl.get("evidence") or {
            "level": "source_read",
            "at": built[BuiltFromFields.VERSION],
        }
        level = _LEVEL_WORDS.get(evidence["level"], evidence["level"])
        lines.append(
            f"| {agent} | {built[BuiltFromFields.VERSION]} | {level}: {evidence['at']} | not"
            f" lab-verified: rests on the sources its declaration cites{facts}."
            f" {built[BuiltFromFields.NOT_IN_LAB]} |"
        )
    from lab import install

    pinned = install.lock()["hosts"]
    lines += [
        f"| {host} | {pinned[host]['version']} | pinned in lab/hosts.lock.json; no adapter yet |"
        for host in sorted(set(pinned) - set(AGENT_IDS))
    ]
    return [*lines, ""]


# host.schema.json EvidenceLevel, as docs/hosts.md words it.
_LEVEL_WORDS = {
    "lab_verified": "lab-verified",
    "source_read": "source-read",
    "host_docs": "host docs",
    "third_party": "third-party report",
}


def _third_party_facts(agent: str) -> str:
    """How many of a declaration's facts rest on a third-party report only, as a clause."""
    decl = declaration(agent)
    entries = [*decl.get("notes", []), *decl.get("version_facts", [])]
    entries += list(decl.get("forms", {}).values())
    count = sum(
        1 for entry in entries if (entry.get("evidence") or {}).get("level") == "third_party"
    )
    if not count:
        return ""
    return f"; {count} fact{'s' if count > 1 else ''} from a third-party report, claiming no block"


def _rows(text: str) -> dict[tuple[str, str], tuple[str, str]]:
    """(host, scenario) -> (version, observed) for every table row of a matrix."""
    rows = {}
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0] not in ("host", "---"):
            rows[(cells[0], cells[2])] = (cells[1], cells[3])
    return rows


def _print_drift(pinned: str, latest: str) -> None:
    """Where the newest releases behave differently from the pinned matrix."""
    old, new = _rows(pinned), _rows(latest)
    changed = 0
    for key in sorted(new):
        if key in old and old[key][1] != new[key][1]:
            changed += 1
            print(
                f"DRIFT {key[0]} {key[1]}: {old[key][0]} {old[key][1]!r} -> {new[key][0]} {new[key][1]!r}"
            )
    print(f"{changed} row(s) differ from docs/hosts.md")


# Evidence of this many lab runs stays in the cache; older ones are removed when a run starts.
KEPT_RUNS = 3
# What a passing run no longer needs: the host's HOME and TMPDIR.
SCRATCH_DIRS = ("home", "tmp")


def prune_runs(runs: Path, *, keep: int) -> None:
    """Remove all but the newest `keep` run folders (their names sort by start time)."""
    if not runs.is_dir():
        return
    folders = sorted(path for path in runs.iterdir() if path.is_dir() and path.name[:1].isdigit())
    for path in folders[: len(folders) - keep] if keep < len(folders) else []:
        shutil.rmtree(path, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    """make lab / make test entry: run, report, and write or check docs/hosts.md."""
    parser = argparse.ArgumentParser(prog="python -m lab.run", description=__doc__)
    parser.add_argument("--host", action="append", help="only this host (repeatable)")
    parser.add_argument("--scenario", action="append", help="only this scenario (repeatable)")
    parser.add_argument("--latest", action="store_true", help="newest registry versions (drift)")
    parser.add_argument("--older", action="store_true", help="also the older pinned versions")
    parser.add_argument("--write", action="store_true", help="write docs/hosts.md")
    parser.add_argument("--check", action="store_true", help="fail when docs/hosts.md differs")
    parser.add_argument(
        "--diff", action="store_true", help="print rows that differ from docs/hosts.md"
    )
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    if (args.write or args.check) and (args.host or args.scenario or args.latest):
        parser.error(
            "--write and --check need the whole pinned lab: drop --host/--scenario/--latest"
        )
    from lab import install

    hosts = args.host or profiled_hosts()
    if not install.netns_available():
        # Never run a host with the machine's network: the lab's promise is that nothing leaves.
        print(f"lab: cannot run any host: {install.NETNS_FIX}", file=sys.stderr)
        return 2
    runs = install.cache_dir() / "runs"
    prune_runs(runs, keep=KEPT_RUNS - 1)
    root = runs / time.strftime("%Y%m%d-%H%M%S")
    say(f"offline: every host runs in a loopback-only network namespace; evidence in {root}")
    work = []
    for host, version, binary, node_bin in plan(hosts, latest=args.latest, older=args.older):
        for scenario in scenarios_for(host, version):
            if args.scenario and scenario.name not in args.scenario:
                continue
            work.append((host, version, binary, node_bin, scenario))
    say(f"{len(work)} runs on {len(hosts)} hosts, {args.jobs} at a time")
    outcomes: list[Outcome] = []

    def one(item: tuple[str, str, Path, Path, sc.Scenario]) -> Outcome:
        host, version, binary, node_bin, scenario = item
        outcome = run_one(host, version, binary, node_bin, scenario, root)
        if outcome.stalled:
            # A host that hit the lab's time limit says nothing about our hook: run it once more
            # (these machines are shared); a second stall is reported as it is.
            say(f"{host} {version} {scenario.name}: the host stalled; running it again")
            outcome = run_one(host, version, binary, node_bin, scenario, root)
        seen = {key: outcome.observed.get(key, False) for key in outcome.expected}
        verdict = "ok  " if outcome.passed else "FAIL"
        if outcome.passed:
            # A host's HOME holds what it unpacked (Copilot: about 235 MB a run); a passing run
            # keeps only its evidence: the model's records, the hook's answers, the driver's result.
            for scratch in SCRATCH_DIRS:
                shutil.rmtree(outcome.run_dir / scratch, ignore_errors=True)
        say(
            f"[{len(outcomes) + 1}/{len(work)}] {verdict} {host} {version} {scenario.name}:"
            f" {outcome.problem or outcome.words(seen)} ({outcome.seconds} s)"
        )
        outcomes.append(outcome)
        return outcome

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        list(pool.map(one, work))
    failed = [o for o in outcomes if not o.passed]
    for outcome in failed:
        print(f"FAIL {outcome.failure()}", file=sys.stderr)
    text = matrix(outcomes)
    status = 1 if failed else 0
    if args.write or args.check:
        problems = record_payloads(outcomes, root.name, write=args.write)
        for problem in problems:
            print(f"CORPUS {problem}", file=sys.stderr)
        if problems:
            print("fixtures/real is not current: run `make lab` and commit it", file=sys.stderr)
            status = 1
        elif args.write:
            say("fixtures/real holds every payload this run saw")
    if args.write:
        MATRIX.write_text(text, encoding="utf-8")
        say(f"wrote {MATRIX.relative_to(REPO)}")
    if args.diff:
        _print_drift(MATRIX.read_text(encoding="utf-8") if MATRIX.exists() else "", text)
    if args.check:
        current = MATRIX.read_text(encoding="utf-8") if MATRIX.exists() else ""
        if current != text:
            print("docs/hosts.md is not current: run `make lab` and commit it", file=sys.stderr)
            status = 1
    say(f"{len(outcomes) - len(failed)} of {len(outcomes)} runs match their declarations")
    return status


if __name__ == "__main__":
    sys.exit(main())
