"""acp parse/render refuse an option the chosen host does not take in one line (LIB-1)."""

from __future__ import annotations

import subprocess

import pytest

from hook_runner import BIN


@pytest.mark.parametrize("command", ["parse", "render"])
@pytest.mark.parametrize("agent", ["gemini", "claude", "kiro"])
def test_a_codex_option_on_another_host_is_one_line_naming_both(command: str, agent: str) -> None:
    argv = [str(BIN / "acp"), command, "--agent", agent, "--codex-version", "0.150.0"]
    if command == "render":
        argv += ["--verdict", '{"decision": "allow"}']
    result = subprocess.run(argv, input="{}", capture_output=True, text=True, check=False)
    assert result.returncode == 2 and result.stdout == ""
    assert (
        result.stderr == f"acp {command}: --codex-version is a Codex option; {agent} takes none\n"
    )


def test_codex_still_takes_its_version() -> None:
    argv = [str(BIN / "acp"), "parse", "--agent", "codex", "--codex-version", "0.150.0"]
    payload = '{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {}}'
    result = subprocess.run(argv, input=payload, capture_output=True, text=True, check=False)
    assert result.returncode == 0 and '"external_hook"' in result.stdout
