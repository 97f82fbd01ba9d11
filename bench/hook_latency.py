"""Wall and CPU time of one hook process per host, its options and its peers, against the floor."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import peers
from _common import BIN, FLOOR, ROOT, hook_env, summary, write_payloads

# Issue 13: every acp-<host>-hook, and (issue 16) every option path, against the floor.
TARGET_RATIO = 1.25
OPTION_RATIO = 1.35
DATACLASSES_ROW = "floor + import dataclasses"
POLICY = ROOT / "examples" / "policy.toml"
EXAMPLES = ROOT / "examples"
INSTALL_JUDGE = "demo_judge:judge"
AGENTS = ("claude", "codex", "amp", "gemini")
# Issue 30: the policy's cost against its size, each with its own target (10 rules: none).
RULE_COUNTS = {10: None, 1_000: 1.3, 10_000: 1.6}
_IMPORT_DATACLASSES = (
    "import dataclasses, json, sys; json.load(sys.stdin); sys.stdout.write(json.dumps({}))"
)


def installed_command(folder: Path, **options: Any) -> list[str]:
    """The pre-tool command `acp install claude --project` writes with these options."""
    sys.path.insert(0, str(EXAMPLES))  # plan_install checks nothing, but keep the judge importable
    from agent_control_plane_core.install import plan_install

    root = folder / f"project-{len(list(folder.glob('project-*')))}"
    root.mkdir()
    plan_install("claude", root=root, **options).apply()
    settings = json.loads((root / ".claude" / "settings.json").read_text(encoding="utf-8"))
    (command,) = {h["command"] for e in settings["hooks"]["PreToolUse"] for h in e["hooks"]}
    return shlex.split(command)


def rule_file(folder: Path, count: int) -> Path:
    """A generated allowlist-style policy: one deny rule per program, every 100th one on git.

    The git rules (with a subcommand each) are candidates for the bench's `git status` call, so
    a larger file also means more rules evaluated; the others are filed under other programs.
    """
    rules = []
    for i in range(count):
        program, extra = (
            ("git", f'subcommand = ["sub{i}"]')
            if i % 100 == 50
            else (f"tool{i}", 'any_flags = ["-f"]')
        )
        rules.append(
            f'[[rules]]\nname = "r{i}"\ntools = ["Bash"]\ndecision = "deny"\nreason = "no {i}"\n'
            f'[rules.command]\nprogram = ["{program}"]\n{extra}\n'
        )
    path = folder / f"rules-{count}.toml"
    path.write_text("\n".join(rules), encoding="utf-8")
    return path


def commands(payloads: dict[str, Path], folder: Path) -> list[dict[str, Any]]:
    """Every timed command: references, the hook entries, the option paths, then the peers."""
    python = str(BIN / "python")
    claude = str(BIN / "acp-claude-hook")
    rows: list[dict[str, Any]] = [
        {"name": "floor (bench/floor.py)", "argv": [python, str(FLOOR)], "role": "floor"},
        {"name": "python -c pass", "argv": [python, "-c", "pass"], "role": "reference"},
        {"name": DATACLASSES_ROW, "argv": [python, "-c", _IMPORT_DATACLASSES], "role": "reference"},
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
    options = [
        ("acp-claude-hook, ACP_POLICY=examples/policy.toml", [claude], {"ACP_POLICY": str(POLICY)}),
        ("acp-claude-hook, ACP_AUDIT_LOG", [claude], {"ACP_AUDIT_LOG": str(folder / "a.jsonl")}),
        ("acp-claude-hook, ACP_FAIL_CLOSED=1", [claude], {"ACP_FAIL_CLOSED": "1"}),
        (
            f"installed: --judge {INSTALL_JUDGE} --fail-closed",
            installed_command(folder, judge=INSTALL_JUDGE, fail_closed=True),
            {"PYTHONPATH": str(EXAMPLES)},
        ),
        (
            "installed: --policy examples/policy.toml",
            installed_command(folder, policy=str(POLICY)),
            {},
        ),
    ]
    for name, argv, env in options:
        rows.append({"name": name, "argv": argv, "env": env, "role": "option"})
    for count, goal in RULE_COUNTS.items():
        rows.append(
            {
                "name": f"acp-claude-hook, ACP_POLICY={count:,} generated rules",
                "argv": [claude],
                "env": {"ACP_POLICY": str(rule_file(folder, count))},
                "role": "rules",
                "goal": goal,
            }
        )
    rows += peers.ensure()
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


def time_interleaved(
    rows: list[dict[str, Any]], runs: int, warmup: int
) -> tuple[list[list[float]], list[list[float]]]:
    """Wall and CPU seconds (user + system, from wait4) of every command, in interleaved rounds."""
    env = hook_env()
    walls: list[list[float]] = [[] for _ in rows]
    cpus: list[list[float]] = [[] for _ in rows]
    for round_no in range(warmup + runs):
        # Each round starts at another row, so no command always follows the same one.
        start_at = round_no % len(rows)
        for index in [*range(start_at, len(rows)), *range(start_at)]:
            row = rows[index]
            with open(row["stdin"], "rb") as stdin:
                start = time.perf_counter()
                child = subprocess.Popen(
                    row["argv"],
                    stdin=stdin,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    env={**env, **row["env"]} if "env" in row else env,
                )
                _, _, usage = os.wait4(child.pid, 0)
                elapsed = time.perf_counter() - start
            child.returncode = 0  # reaped by wait4 above
            if round_no >= warmup:
                walls[index].append(elapsed)
                cpus[index].append(usage.ru_utime + usage.ru_stime)
    return walls, cpus


def measure(runs: int = 40, warmup: int = 3) -> dict[str, Any]:
    """Time every row; each ratio is a median over the floor's median (wall and CPU apart)."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        rows = commands(write_payloads(folder), folder)
        check_answers(rows)
        walls, cpus = time_interleaved(rows, runs, warmup)
    floor = next(i for i, row in enumerate(rows) if row["role"] == "floor")
    floor_wall, floor_cpu = summary(walls[floor])["median"], summary(cpus[floor])["median"]
    out = []
    for row, wall, cpu in zip(rows, walls, cpus, strict=True):
        w, c = summary(wall), summary(cpu)
        out.append(
            {
                "name": row["name"],
                "role": row["role"],
                "wall_ms": w["median"] * 1000,
                "wall_q1": w["q1"] * 1000,
                "wall_q3": w["q3"] * 1000,
                "cpu_ms": c["median"] * 1000,
                "wall_ratio": w["median"] / floor_wall,
                "cpu_ratio": c["median"] / floor_cpu,
                "goal": row.get("goal"),
            }
        )
    return {
        "timer": f"interleaved rounds of subprocess runs (wall: perf_counter; CPU: wait4 user+system),"
        f" {runs} runs per command after {warmup} warm-up rounds",
        "target_ratio": TARGET_RATIO,
        "option_ratio": OPTION_RATIO,
        "rows": out,
    }


def main() -> None:
    """Print the hook latency table as JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=3)
    args = parser.parse_args()
    json.dump(measure(args.runs, args.warmup), sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
