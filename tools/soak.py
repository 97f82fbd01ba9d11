"""Soak `acp bridge`: stream N generated lines through it and check one answer per line, in order.

Usage: tools/soak.py [N] [--seed S] [--max-growth-mb M] [--bridge "CMD ..."]

Lines mix every shipped host, valid requests built from fixtures/*.json and invalid ones (bad JSON,
bad bytes, non-objects, unknown agents and options, bad verdicts, deep nesting, lone surrogates).
Every line's expected answer shape is known in advance; a valid request carries its sequence
number in an extra native field, which must come back in meta.passthrough. Prints lines/s and the
bridge's resident memory; exits 1 on any mismatch, an early end, or RSS growth above the bound.
"""

from __future__ import annotations

import argparse
import copy
import json
import queue
import random
import resource
import shlex
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agent_control_plane_core import AGENT_IDS, Decisions

REPO = Path(__file__).resolve().parent.parent
AGENTS = AGENT_IDS  # every shipped host, each with its golden fixtures
DECISIONS = Decisions.ALL
SEQ_KEY = "soak_seq"

# Expected answer shapes: an event, an event whose render is an error, or a line-level error.
EVENT, RENDER_ERROR, LINE_ERROR = "event", "render-error", "line-error"


def fixture_payloads() -> dict[str, list[dict[str, Any]]]:
    """The object payloads of each host's golden fixtures."""
    out = {}
    for agent in AGENTS:
        cases = json.loads((REPO / "fixtures" / f"{agent}.json").read_text(encoding="utf-8"))
        out[agent] = [c["native"] for c in cases["cases"] if isinstance(c["native"], dict)]
    return out


def _verdict(rng: random.Random) -> dict[str, Any]:
    verdict: dict[str, Any] = {"decision": rng.choice(DECISIONS)}
    if rng.random() < 0.5:
        verdict["reason"] = rng.choice(["", " ", "policy says no", "\u2713 nope", "x" * 2000])
    if rng.random() < 0.2:
        verdict["mutated_input"] = {"command": "echo safe"}
    if rng.random() < 0.2:
        verdict["mutated_output"] = rng.choice([None, "[redacted]", {"k": [1, 2]}])
    if rng.random() < 0.2:
        verdict["additional_context"] = "note"
    return verdict


def _request(agent: str, native: Any, rng: random.Random, with_verdict: bool) -> dict[str, Any]:
    request: dict[str, Any] = {"agent": agent, "native": native}
    if with_verdict:
        request["verdict"] = _verdict(rng)
    options: dict[str, Any] = {}
    if rng.random() < 0.3:
        options["sole_gate"] = rng.random() < 0.5
    if agent == "codex" and rng.random() < 0.7:
        options["codex_version"] = rng.choice(["0.150.0", "0.134.9", "v1.2", "garbage"])
    if options:
        request["options"] = options
    return request


def _dumps(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def generate(count: int, seed: int) -> Iterator[tuple[bytes, str, str, int | None]]:
    """Yield (line, kind, expected shape, sequence number carried or None) for count lines."""
    rng = random.Random(seed)
    fixtures = fixture_payloads()
    for seq in range(count):
        agent = rng.choice(AGENTS)
        roll = rng.random()
        if roll < 0.55:
            native = copy.deepcopy(rng.choice(fixtures[agent]))
            native[SEQ_KEY] = seq
            if rng.random() < 0.2:
                native[rng.choice(["__proto__", "constructor", "keys", "future"])] = {"a": [None]}
            request = _request(agent, native, rng, with_verdict=rng.random() < 0.8)
            yield _dumps(request), "valid", EVENT, seq
        elif roll < 0.60:
            # A lone surrogate arrives as a JSON escape and must come back escaped, not crash.
            line = _dumps({"agent": agent, "native": {SEQ_KEY: seq}})[:-2] + b',"s":"\\ud800"}}'
            yield line, "lone-surrogate", EVENT, seq
        elif roll < 0.65:
            native = rng.choice([None, 3, "PreToolUse", [{"hook_event_name": "PreToolUse"}]])
            yield _dumps(_request(agent, native, rng, True)), "non-object-native", EVENT, None
        elif roll < 0.70:
            request = _request(agent, {SEQ_KEY: seq}, rng, False)
            request["verdict"] = rng.choice(
                [{"decision": "block"}, [], {"decision": "deny", "reason": 7}]
            )
            yield _dumps(request), "bad-verdict", RENDER_ERROR, seq
        elif roll < 0.75:
            line = rng.choice([b"{", b"not json", b"", b"{'agent': 'claude'}", b"\x00"])
            yield line, "not-json", LINE_ERROR, None
        elif roll < 0.78:
            junk = bytes(rng.randrange(128, 256) for _ in range(8))
            if rng.random() < 0.5:
                yield junk, "bad-bytes", LINE_ERROR, None
            else:  # inside a string: decoded with replacement, so the request still parses
                line = _dumps({"agent": agent, "native": {SEQ_KEY: seq}})[:-2]
                yield line + b',"b":"' + junk + b'"}}', "bad-bytes", EVENT, seq
        elif roll < 0.82:
            yield (
                _dumps(rng.choice([[], 1, "x", None, [{"agent": "claude"}]])),
                "non-object",
                LINE_ERROR,
                None,
            )
        elif roll < 0.86:
            yield (
                _dumps(
                    {"agent": rng.choice(["no-such-host", "", None, "__proto__"]), "native": {}}
                ),
                "unknown-agent",
                LINE_ERROR,
                None,
            )
        elif roll < 0.90:
            yield _dumps({"agent": agent}), "no-native", LINE_ERROR, None
        elif roll < 0.94:
            bad = rng.choice([{"sole_gate": "yes"}, {"timeout": 1}, [], {"codex_version": 150}])
            if agent != "codex" and rng.random() < 0.5:
                bad = {"codex_version": "0.150.0"}
            yield (
                _dumps({"agent": agent, "native": {}, "options": bad}),
                "bad-options",
                LINE_ERROR,
                None,
            )
        elif roll < 0.97:
            yield (
                _dumps({"agent": agent, "native": {}, "extra": 1}),
                "unknown-field",
                LINE_ERROR,
                None,
            )
        else:
            depth = rng.choice([50, 500, 5000, 100_000])
            line = (
                b'{"agent":"' + agent.encode() + b'","native":' + b"[" * depth + b"]" * depth + b"}"
            )
            yield line, "deep-nesting", (EVENT if depth < 900 else LINE_ERROR), None


def check(answer: Any, shape: str, seq: int | None) -> str | None:
    """Why an answer does not match the expected shape, or None when it does."""
    if not isinstance(answer, dict) or set(answer) != {
        "event",
        "render",
        "escalated",
        "unrendered",
    }:
        return f"answer is not {{event, render, escalated}}: {str(answer)[:200]}"
    event = answer["event"]
    if shape == LINE_ERROR:
        return None if isinstance(event, dict) and set(event) == {"error"} else "expected an error"
    if not isinstance(event, dict) or "error" in event:
        return f"expected an event, got {str(event)[:200]}"
    if seq is not None and event.get("meta", {}).get("passthrough", {}).get(SEQ_KEY) != seq:
        return f"answer carries {SEQ_KEY} {event.get('meta', {}).get('passthrough', {}).get(SEQ_KEY)!r}, expected {seq}"
    if shape == RENDER_ERROR and not (
        isinstance(answer["render"], dict) and "error" in answer["render"]
    ):
        return "expected a verdict error in render"
    return None


def rss_kb(pid: int, field: str = "VmRSS") -> int | None:
    """A memory figure of a live process from /proc, in kB (None where unavailable)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def main(argv: list[str] | None = None) -> int:
    """Run the soak; return 0 when every line got its answer, in order, within the memory bound."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("count", nargs="?", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=6)
    parser.add_argument("--max-growth-mb", type=float, default=32.0)
    parser.add_argument("--bridge", help="command to soak instead of `acp bridge`")
    args = parser.parse_args(argv)
    command = (
        shlex.split(args.bridge)
        if args.bridge
        else [str(Path(sys.executable).parent / "acp"), "bridge"]
    )

    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None
    expected: queue.Queue[tuple[str, str, int | None]] = queue.Queue(maxsize=10_000)
    kinds: Counter[str] = Counter()

    def feed() -> None:
        assert child.stdin is not None
        try:
            for line, kind, shape, seq in generate(args.count, args.seed):
                kinds[kind] += 1
                expected.put((kind, shape, seq))
                child.stdin.write(line + b"\n")
            child.stdin.close()
        except (BrokenPipeError, OSError):
            pass  # the bridge died; the reader reports the missing answers

    started = time.monotonic()
    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    answered, mismatches, checkpoints = 0, [], {}
    step = max(1, args.count // 10)
    for raw in child.stdout:
        if not raw.endswith(b"\n"):
            mismatches.append(f"answer {answered} is not a whole line")
        try:
            kind, shape, seq = expected.get(timeout=60)
        except queue.Empty:
            mismatches.append(f"extra answer after {answered} lines: {raw[:200]!r}")
            break
        try:
            problem = check(json.loads(raw.decode("utf-8")), shape, seq)
        except ValueError as exc:
            problem = f"answer is not UTF-8 JSON ({exc})"
        if problem is not None:
            mismatches.append(f"line {answered} ({kind}): {problem}")
        answered += 1
        if answered % step == 0 or answered == args.count:
            checkpoints[answered] = (rss_kb(child.pid), rss_kb(child.pid, "VmHWM"))
    elapsed = time.monotonic() - started
    child.wait()
    writer.join(timeout=10)
    # Peak resident set: the kernel's high-water mark while it ran, and getrusage after the wait.
    peaks = [hwm for _, hwm in checkpoints.values() if hwm is not None]
    peak_kb = max([resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, *peaks])  # kB on Linux
    if answered != args.count:
        mismatches.append(
            f"{answered} answers for {args.count} lines (exit code {child.returncode})"
        )
    if child.returncode != 0:
        mismatches.append(f"the bridge exited {child.returncode}")

    rss = {n: kb for n, (kb, _) in checkpoints.items() if kb is not None}
    memory = []
    if rss:
        first, last = min(rss), max(rss)
        growth_mb = (rss[last] - rss[first]) / 1024
        memory.append(
            f"soak: bridge RSS {rss[first] / 1024:.1f} MB after {first} lines,"
            f" {rss[last] / 1024:.1f} MB after {last} lines (growth {growth_mb:+.1f} MB)"
        )
        if growth_mb > args.max_growth_mb:
            mismatches.append(
                f"RSS grew {growth_mb:.1f} MB, above --max-growth-mb {args.max_growth_mb}"
            )
    memory.append(f"soak: bridge max RSS {peak_kb / 1024:.1f} MB")

    print(
        f"soak: {args.count} lines, {answered} answers, {len(mismatches)} mismatches (seed {args.seed})"
    )
    print("soak: kinds " + ", ".join(f"{k}={v}" for k, v in sorted(kinds.items())))
    print(f"soak: {elapsed:.1f} s, {answered / elapsed if elapsed else 0:.0f} lines/s")
    print("\n".join(memory))
    for problem in mismatches[:10]:
        print(f"soak: MISMATCH {problem}", file=sys.stderr)
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
