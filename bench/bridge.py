"""Throughput of `acp bridge` as a process: 100,000 JSON Lines in, one answer line out each."""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import BIN, CODEX_VERSION, hook_env, library_payload

TARGET_LINES_PER_S = 30_000
# Issue 13: acp bridge against a process that only decodes and encodes each line.
TARGET_LOOP_RATIO = 0.6
LOOP = (
    "import json, sys\n"
    "write = sys.stdout.buffer.write\n"
    "for line in sys.stdin.buffer:\n"
    "    write(json.dumps(json.loads(line)).encode() + b'\\n')\n"
)
AGENTS = ("claude", "codex", "amp", "gemini")
# A mix a recorder replays: every host, allows, denies and asks, some lines without a verdict.
VERDICTS: tuple[dict[str, Any] | None, ...] = (
    {"decision": "allow"},
    {"decision": "deny", "reason": "blocked by policy"},
    {"decision": "allow"},
    {"decision": "ask", "reason": "needs a person"},
    None,
)


def input_lines(count: int) -> list[str]:
    """count bridge request lines cycling through hosts and verdicts."""
    lines = []
    for index in range(count):
        agent = AGENTS[index % len(AGENTS)]
        request: dict[str, Any] = {"agent": agent, "native": library_payload(agent)}
        verdict = VERDICTS[index % len(VERDICTS)]
        if verdict is not None:
            request["verdict"] = verdict
        if agent == "codex":
            request["options"] = {"codex_version": CODEX_VERSION}
        lines.append(json.dumps(request) + "\n")
    return lines


def in_process(count: int = 4_000, rounds: int = 15) -> dict[str, float]:
    """Lines/s in one process, best of interleaved rounds: the loop, the answer's JSON alone, ours.

    answer_json decodes each line and encodes the answer the bridge gives for it, computed
    beforehand: what any implementation of this answer shape pays before doing any work;
    answer_json_no_event the same for an answer without the echoed event; work is parse and
    render alone, on the lines decoded beforehand.
    """
    from agent_control_plane_core import Verdict, adapter_for
    from agent_control_plane_core.cli._bridge import _bridge_bytes, bridge_line
    from agent_control_plane_core.contract import json_bytes

    sample = input_lines(count)
    answers = [bridge_line(line) for line in sample]
    # The same answers without the echoed event (the client sent the payload it came from).
    lean = [{k: v for k, v in answer.items() if k != "event"} for answer in answers]
    # The contract's work alone, on lines decoded beforehand: parse, and render the verdict.
    requests = [json.loads(line) for line in sample]
    work_items = [
        (
            adapter_for(r["agent"], **r.get("options", {})),
            r["native"],
            Verdict(**r["verdict"]) if "verdict" in r else None,
        )
        for r in requests
    ]

    def loop() -> None:
        for line in sample:
            json.dumps(json.loads(line)).encode()

    def answer_json() -> None:
        for line, answer in zip(sample, answers, strict=True):
            json.loads(line)
            json_bytes(answer)

    def answer_json_no_event() -> None:
        for line, answer in zip(sample, lean, strict=True):
            json.loads(line)
            json_bytes(answer)

    def work() -> None:
        for adapter, native, verdict in work_items:
            event = adapter.parse(native)
            if verdict is not None:
                adapter.render(verdict, event)

    def bridge() -> None:
        for line in sample:
            _bridge_bytes(line)

    runs = {
        "loop": loop,
        "answer_json": answer_json,
        "answer_json_no_event": answer_json_no_event,
        "work": work,
        "bridge": bridge,
    }
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(rounds):
        for name, run in runs.items():
            start = time.perf_counter()
            run()
            best[name] = min(best[name], time.perf_counter() - start)
    return {name: count / seconds for name, seconds in best.items()}


def measure(lines: int = 100_000, repeats: int = 3) -> dict[str, Any]:
    """Run `acp bridge` over the lines repeats times; lines/s counts the whole process."""
    walls = []
    loop_walls = []
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "in.jsonl"
        answers = Path(tmp) / "out.jsonl"
        source.write_text("".join(input_lines(lines)), encoding="utf-8")
        for _ in range(repeats):
            with source.open("rb") as stdin, answers.open("wb") as stdout:
                start = time.perf_counter()
                subprocess.run(
                    [str(BIN / "acp"), "bridge"],
                    stdin=stdin,
                    stdout=stdout,
                    check=True,
                    env=hook_env(),
                )
                walls.append(time.perf_counter() - start)
            with answers.open(encoding="utf-8") as out:
                got = [json.loads(line) for line in out]
            if len(got) != lines or any("error" in answer["event"] for answer in got):
                raise SystemExit("acp bridge did not answer every line with an event")
            with source.open("rb") as stdin, answers.open("wb") as stdout:
                start = time.perf_counter()
                subprocess.run(
                    [str(BIN / "python"), "-c", LOOP], stdin=stdin, stdout=stdout, check=True
                )
                loop_walls.append(time.perf_counter() - start)
    wall = statistics.median(walls)
    return {
        "lines": lines,
        "median_s": wall,
        "best_s": min(walls),
        "lines_per_s": lines / wall,
        "best_lines_per_s": lines / min(walls),
        "target": TARGET_LINES_PER_S,
        "loop_lines_per_s": lines / statistics.median(loop_walls),
        "loop_ratio": statistics.median(loop_walls) / wall,
        "loop_target": TARGET_LOOP_RATIO,
        "repeats": repeats,
        "in_process": in_process(),
    }


def main() -> None:
    """Print the bridge throughput as JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    json.dump(measure(args.lines, args.repeats), sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
