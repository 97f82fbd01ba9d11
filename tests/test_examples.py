"""The README's main job, `make demo`, runs and agrees with the library on every host."""

from __future__ import annotations

import subprocess
import sys

from agent_control_plane_core import AGENT_IDS, adapter_for

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
    calls = len(AGENT_IDS) * 4
    assert f"{calls} calls through the real hook entries; 0 disagreed" in result.stdout
    deny_rows = [line for line in result.stdout.splitlines() if line.split()[1:2] == ["deny"]]
    # The deny blocks on every host, marked as a block: exit 2, or the deny body at exit 0 on a
    # host that blocks on it (copilot without a version: exit 2 denies only from 1.0.70).
    assert sorted(line.split()[0] for line in deny_rows) == sorted(AGENT_IDS)
    for line in deny_rows:
        code = 0 if adapter_for(line.split()[0]).EXIT_ZERO_BLOCK else 2  # type: ignore[attr-defined]
        assert f"rm -rf /        {code} yes" in line, line


def test_readme_usage_snippet_blocks_rm_rf_as_claude_code_expects() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    snippet = readme.split("```python\n", 1)[1].split("```", 1)[0]
    payload = (
        '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}'
    )
    result = subprocess.run(
        [sys.executable, "-c", snippet], input=payload, capture_output=True, text=True, check=False
    )
    assert result.returncode == 2
    assert result.stderr == "destructive command blocked"
    assert '"permissionDecision":"deny"' in result.stdout
