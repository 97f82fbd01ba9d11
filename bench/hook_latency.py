"""Wall time of one hook process per host against the floor, measured side by side in one run."""

from __future__ import annotations

import argparse
import json
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import BIN, FLOOR, ROOT, hook_env, summary, write_payloads

TARGET_RATIO = 1.8
DATACLASSES_ROW = "floor + import dataclasses"
POLICY = ROOT / "examples" / "policy.toml"
AGENTS = ("claude", "codex", "amp", "gemini")
_IMPORT_DATACLASSES = (
    "import dataclasses, json, sys; json.load(sys.stdin); sys.stdout.write(json.dumps({}))"
)


def commands(payloads: dict[str, Path]) -> list[dict[str, Any]]:
    """Every timed command: references first, then one hook entry per host (the targets)."""
    python = str(BIN / "python")
    rows: list[dict[str, Any]] = [
        {"name": "python -c pass", "argv": [python, "-c", "pass"], "role": "reference"},
        {"name": "floor (bench/floor.py)", "argv": [python, str(FLOOR)], "role": "floor"},
        {
            "name": DATACLASSES_ROW,
            "argv": [python, "-c", _IMPORT_DATACLASSES],
            "role": "reference",
        },
    ]
    for agent in AGENTS:
        rows.append(
            {
                "name": f"acp-{agent}-hook",
                "argv": [str(BIN / f"acp-{agent}-hook")],
                "stdin": payloads[agent],
                "role": "target",
            }
        )
    # Issue 16: the built-in policy judge with the shipped rule set (its compiled cache warm).
    rows.append(
        {
            "name": "acp-claude-hook + ACP_POLICY=examples/policy.toml",
            "argv": [str(BIN / "acp-claude-hook")],
            "env": {"ACP_POLICY": str(POLICY)},
            "role": "target",
        }
    )
    rows.append(
        {
            "name": "acp hook claude",
            "argv": [str(BIN / "acp"), "hook", "claude"],
            "role": "reference",
        }
    )
    for row in rows:
        row.setdefault("stdin", payloads["claude"])
    return rows


def check_answers(rows: list[dict[str, Any]]) -> None:
    """Run every command once and fail loudly unless it exits 0 with a JSON body or none."""
    for row in rows:
        env = {**hook_env(), **row.get("env", {})}
        with open(row["stdin"], "rb") as stdin:
            done = subprocess.run(row["argv"], stdin=stdin, capture_output=True, env=env)
        if done.returncode != 0:
            raise SystemExit(f"{row['name']} exited {done.returncode}: {done.stderr.decode()!r}")
        if done.stdout.strip():
            json.loads(done.stdout)


def hyperfine_version() -> str | None:
    """The installed hyperfine's version, or None when it is not on PATH."""
    exe = shutil.which("hyperfine")
    if exe is None:
        return None
    out = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout
    found = re.search(r"\d+\.\d+(\.\d+)?", out)
    return found.group(0) if found else "unknown"


def time_hyperfine(rows: list[dict[str, Any]], runs: int, warmup: int) -> list[list[float]]:
    """Time every command with hyperfine (through sh, whose start-up it subtracts)."""
    # hyperfine times one command's runs back to back; several short passes spread a burst of
    # load from other processes over every row instead of one.
    passes = max(1, min(10, runs // 4))
    samples: list[list[float]] = [[] for _ in rows]
    with tempfile.TemporaryDirectory() as tmp:
        export = Path(tmp) / "times.json"
        for number in range(passes):
            count = runs // passes + (1 if number < runs % passes else 0)
            argv = ["hyperfine", "--style", "none", "--runs", str(count)]
            argv += ["--warmup", str(warmup if number == 0 else 1), "--export-json", str(export)]
            # hyperfine before 1.16 has no --input: a redirect through the shell feeds stdin.
            argv += [
                "".join(f"{k}={shlex.quote(v)} " for k, v in r.get("env", {}).items())
                + f"{shlex.join(r['argv'])} < {shlex.quote(str(r['stdin']))}"
                for r in rows
            ]
            done = subprocess.run(argv, env=hook_env(), capture_output=True, text=True)
            if done.returncode != 0:
                raise SystemExit(f"hyperfine failed: {done.stderr}")
            results = json.loads(export.read_text(encoding="utf-8"))["results"]
            for index, result in enumerate(results):
                samples[index].extend(result["times"])
    return samples


def time_subprocess(rows: list[dict[str, Any]], runs: int, warmup: int) -> list[list[float]]:
    """Time every command by spawning it repeatedly, interleaved so load hits all rows alike."""
    env = hook_env()
    samples: list[list[float]] = [[] for _ in rows]
    for round_no in range(warmup + runs):
        for index, row in enumerate(rows):
            with open(row["stdin"], "rb") as stdin:
                start = time.perf_counter()
                subprocess.run(
                    row["argv"],
                    stdin=stdin,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    env={**env, **row["env"]} if "env" in row else env,
                )
                elapsed = time.perf_counter() - start
            if round_no >= warmup:
                samples[index].append(elapsed)
    return samples


def measure(runs: int = 40, warmup: int = 5, timer: str = "auto") -> dict[str, Any]:
    """Time the floor, the references and every hook entry; ratios are against the floor's median."""
    with tempfile.TemporaryDirectory() as tmp:
        rows = commands(write_payloads(Path(tmp)))
        check_answers(rows)
        version = hyperfine_version() if timer in ("auto", "hyperfine") else None
        if timer == "hyperfine" and version is None:
            raise SystemExit("hyperfine is not installed (apt-get install hyperfine)")
        if version is not None:
            samples = time_hyperfine(rows, runs, warmup)
            used = f"hyperfine {version} (through sh, start-up subtracted), {runs} runs in passes"
        else:
            samples = time_subprocess(rows, runs, warmup)
            used = f"repeated subprocess.run, interleaved rounds, {runs} runs"
    floor = next(summary(s) for s, row in zip(samples, rows, strict=True) if row["role"] == "floor")
    out = []
    for row, times in zip(rows, samples, strict=True):
        stats = {key: value * 1000 for key, value in summary(times).items()}
        ratio = stats["median"] / (floor["median"] * 1000)
        out.append({"name": row["name"], "role": row["role"], "ratio": ratio, **stats})
    name = "hyperfine" if version is not None else "interleaved subprocess timer"
    return {"timer": used, "timer_name": name, "target_ratio": TARGET_RATIO, "rows": out}


def main() -> None:
    """Print the hook latency table as JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--timer", choices=("auto", "hyperfine", "subprocess"), default="auto")
    args = parser.parse_args()
    json.dump(measure(args.runs, args.warmup, args.timer), sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
