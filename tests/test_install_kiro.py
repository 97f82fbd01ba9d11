"""`acp install kiro`: a V3 hook file in seconds, never cached, merged with the user's hooks."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from agent_control_plane_core.install import InstallError, plan_install

from hook_runner import BIN, PRE_TOOL, hook_env

FILE = ".kiro/hooks/agent-control-plane.json"


def test_kiro_writes_a_v3_hook_file_with_the_timeout_in_seconds(tmp_path: Path) -> None:
    plan = plan_install("kiro", root=tmp_path, bin_dir=BIN, timeout_s=7)
    plan.apply()
    assert plan.path == tmp_path / FILE
    settings = json.loads(plan.path.read_text())
    command = str(BIN / "acp-kiro-hook")
    assert settings == {
        "version": "v1",
        "hooks": [
            {
                "name": "agent-control-plane-PreToolUse",
                "trigger": "PreToolUse",
                "matcher": ".*",
                "action": {"type": "command", "command": command},
                "timeout": 7,
                "enabled": True,
            },
            {
                "name": "agent-control-plane-UserPromptSubmit",
                "trigger": "UserPromptSubmit",
                "action": {"type": "command", "command": command},
                "timeout": 7,
                "enabled": True,
            },
        ],
    }
    assert "cache_ttl_seconds" not in plan.after
    assert any("cache_ttl_seconds" in note for note in plan.notes)
    user = plan_install("kiro", scope="user", home=tmp_path / "home", bin_dir=BIN)
    assert user.path == tmp_path / "home" / FILE


def test_reinstall_replaces_ours_drops_a_cache_ttl_and_keeps_theirs(tmp_path: Path) -> None:
    path = tmp_path / FILE
    path.parent.mkdir(parents=True)
    theirs = {
        "name": "lint",
        "trigger": "PostFileSave",
        "action": {"type": "command", "command": "make lint"},
    }
    stale = {
        "name": "old",
        "trigger": "PreToolUse",
        "action": {"type": "command", "command": str(BIN / "acp-kiro-hook")},
        "cache_ttl_seconds": 300,  # replays one allow for every later call (KR-2)
    }
    path.write_text(json.dumps({"version": "v1", "hooks": [theirs, stale]}))
    plan_install("kiro", root=tmp_path, bin_dir=BIN, fail_closed=True).apply()
    hooks = json.loads(path.read_text())["hooks"]
    assert hooks[0] == theirs and len(hooks) == 3
    assert "cache_ttl_seconds" not in json.dumps(hooks)
    assert hooks[1]["action"]["command"].endswith("ACP_FAIL_CLOSED=1 " + str(BIN / "acp-kiro-hook"))
    # Exit 2 blocks a prompt as well as a tool call, so a failed prompt hook is not closed.
    assert hooks[2]["action"]["command"] == str(BIN / "acp-kiro-hook")


def test_a_file_in_another_format_is_refused(tmp_path: Path) -> None:
    path = tmp_path / FILE
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"version": "v2", "hooks": []}))
    with pytest.raises(InstallError, match="not the V3 hook format"):
        plan_install("kiro", root=tmp_path, bin_dir=BIN)


def test_the_installed_kiro_command_blocks_rm_rf_when_the_host_runs_it(tmp_path: Path) -> None:
    plan_install("kiro", root=tmp_path, bin_dir=BIN, judge="hook_judges:denies").apply()
    hooks = json.loads((tmp_path / FILE).read_text())["hooks"]
    native = dict(PRE_TOOL["kiro"], hook_event_name="PreToolUse")
    result = subprocess.run(
        hooks[0]["action"]["command"],
        shell=True,
        input=json.dumps(native),
        capture_output=True,
        text=True,
        env=hook_env("kiro"),
        check=False,
    )
    assert (result.returncode, result.stderr) == (2, "denied by test")
