"""`acp install` warns where another host runs Claude Code's hooks too (host-findings XH-1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_control_plane_core.adapters._foreign import foreign_host
from agent_control_plane_core.install import plan_install

from hook_runner import BIN, PRE_TOOL


def _shared(notes: tuple[str, ...]) -> list[str]:
    return [note for note in notes if "Claude adapter" in note]


def test_no_warning_when_only_one_host_is_configured(tmp_path: Path) -> None:
    assert _shared(plan_install("claude", root=tmp_path, bin_dir=BIN).notes) == []
    assert _shared(plan_install("cursor", root=tmp_path, bin_dir=BIN).notes) == []


@pytest.mark.parametrize(
    ("host", "name"), [("cursor", "Cursor"), ("copilot", "Copilot CLI"), ("factory", "Droid")]
)
def test_a_claude_entry_seen_by_another_host_is_named_both_ways(
    host: str, name: str, tmp_path: Path
) -> None:
    plan_install("claude", root=tmp_path, bin_dir=BIN).apply()
    other = plan_install(host, root=tmp_path, bin_dir=BIN)
    warned = _shared(other.notes)
    assert len(warned) == 1 and warned[0].startswith(f"{name} also runs the acp-claude-hook")
    assert str(tmp_path / ".claude/settings.json") in warned[0]
    other.apply()
    again = _shared(plan_install("claude", root=tmp_path, bin_dir=BIN).notes)
    assert len(again) == 1 and name in again[0]


def test_a_claude_settings_file_without_our_entry_is_not_a_double_guard(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude/settings.json").write_text('{"hooks": {"PreToolUse": []}}')
    assert _shared(plan_install("cursor", root=tmp_path, bin_dir=BIN).notes) == []


def test_foreign_payloads_are_recognised_and_claude_ones_are_not() -> None:
    assert foreign_host(PRE_TOOL["cursor"]) == "cursor"
    assert foreign_host({**PRE_TOOL["claude"], "cursor_version": "3.21.16"}) == "cursor"
    assert foreign_host({**PRE_TOOL["factory"], "permission_mode": "auto-high"}) == "factory"
    for mode in ("default", "plan", "acceptEdits", "bypassPermissions"):
        assert foreign_host({**PRE_TOOL["claude"], "permission_mode": mode}) is None
    assert foreign_host(PRE_TOOL["claude"]) is None
    assert foreign_host(["not", "a", "payload"]) is None
