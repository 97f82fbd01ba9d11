"""Prove the sandbox before any destructive line: harmless probes that must all come out right.

python -m lab.shell.probe   (also the first thing tests/test_shell_lab.py does)
"""

from __future__ import annotations

import sys
from typing import Any

from .sandbox import run_batch

# Each probe is harmless anywhere; inside the sandbox each must show the stated outcome.
PROBES = [
    # The repository and the real home are not there: the test builtin finds nothing.
    "test -e /work/rt3 && echo REPO-VISIBLE >&2; test -e /root/.cache && echo HOME-VISIBLE >&2; :",
    # The program directories are read-only: a redirection cannot replace a stub.
    ": > /usr/bin/acp-probe || echo READONLY >&2",
    # A stub logs its argv and runs nothing.
    "ls /work /nonexistent-probe",
    # /work is writable and empty at every line.
    ": > /work/probe-file && test -e /work/probe-file && echo WRITABLE >&2",
    "test -e /work/probe-file && echo LEFTOVER >&2; :",
]


def prove() -> dict[str, Any]:
    """Run the probes under bash; raise AssertionError naming the first that came out wrong."""
    answers, probe = run_batch(PROBES, ("bash",), seconds=5.0, probe=True)
    assert probe is not None and probe["old_root_gone"], probe
    visible, readonly, stub, writable, leftover = answers
    assert "VISIBLE" not in visible["stderr"], visible
    assert "READONLY" in readonly["stderr"], readonly
    assert stub["exec"] == [["/usr/local/bin/ls", "/work", "/nonexistent-probe"]], stub
    assert "WRITABLE" in writable["stderr"], writable
    assert "LEFTOVER" not in leftover["stderr"], leftover
    return {"root": probe["listing"], "stub": stub["exec"]}


if __name__ == "__main__":
    print(prove())
    sys.exit(0)
