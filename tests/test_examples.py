"""The README's main job, `make demo`, runs and agrees with the library on every host."""

from __future__ import annotations

import subprocess
import sys

from conftest import REPO


def test_demo_runs_every_host_through_the_real_hook_entries() -> None:
    result = subprocess.run(
        [sys.executable, str(REPO / "examples" / "demo.py")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "16 calls through the real hook entries; 0 disagreed" in result.stdout
    rows = [line.split() for line in result.stdout.splitlines()[1:17]]
    # The deny blocks on every host: exit 2, marked as a block.
    assert {(row[0], row[3], row[4]) for row in rows if row[1] == "deny"} == {
        (agent, "2", "yes") for agent in ("amp", "claude", "codex", "gemini")
    }
