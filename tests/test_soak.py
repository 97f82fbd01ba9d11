"""A small soak of `acp bridge` through tools/soak.py, and proof that the soak notices faults."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys

from conftest import REPO

SOAK = REPO / "tools" / "soak.py"
KINDS = (
    "bad-bytes",
    "bad-options",
    "bad-verdict",
    "deep-nesting",
    "lone-surrogate",
    "no-native",
    "non-object",
    "non-object-native",
    "not-json",
    "unknown-agent",
    "unknown-field",
    "valid",
)


def soak(*args: str) -> subprocess.CompletedProcess[str]:
    """Run tools/soak.py with this interpreter."""
    return subprocess.run(
        [sys.executable, str(SOAK), *args], capture_output=True, text=True, timeout=300
    )


def test_bridge_answers_every_generated_line_once_and_in_order() -> None:
    """3,000 mixed lines, valid and invalid, get 3,000 answers matching their expected shapes."""
    done = soak("3000", "--seed", "11")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "soak: 3000 lines, 3000 answers, 0 mismatches" in done.stdout
    counts = dict(re.findall(r"([a-z-]+)=(\d+)", done.stdout.split("kinds", 1)[1].splitlines()[0]))
    assert set(counts) == set(KINDS), "every kind of line is exercised"
    assert re.search(r"bridge max RSS \d+\.\d MB", done.stdout)


def python_bridge(body: str) -> str:
    """A --bridge command: a Python loop over stdin lines that answers with bridge_line."""
    code = (
        "import json, sys\n"
        "from agent_control_plane_core.cli import bridge_line\n"
        "for i, line in enumerate(sys.stdin):\n"
        f"    {body}\n"
        "    print(json.dumps(bridge_line(line)), flush=True)\n"
    )
    return f"{sys.executable} -c {shlex.quote(code)}"


def test_soak_accepts_a_faithful_bridge_loop() -> None:
    """The control for the fault tests below: the same loop without a fault passes."""
    done = soak("200", "--bridge", python_bridge("pass"))
    assert done.returncode == 0, done.stderr


def test_soak_fails_when_the_bridge_drops_an_answer() -> None:
    """A bridge that skips one line's answer shifts every later answer: the soak exits 1."""
    done = soak("200", "--bridge", python_bridge("if i == 5: continue"))
    assert done.returncode == 1
    assert "MISMATCH" in done.stderr


def test_soak_fails_when_the_bridge_dies_mid_stream() -> None:
    """A bridge that stops after ten lines is reported with the count of missing answers."""
    done = soak("200", "--bridge", python_bridge("if i == 10: break"))
    assert done.returncode == 1
    assert "MISMATCH 10 answers for 200 lines" in done.stderr
