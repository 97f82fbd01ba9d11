"""Another host running Claude Code's hooks: acp install warns, the hook answers as that host (XH-1)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_control_plane_core import ToolCallEvent, adapter_for
from agent_control_plane_core.adapters._foreign import foreign_host
from agent_control_plane_core.adapters.claude import ClaudeAdapter
from agent_control_plane_core.install import plan_install
from agent_control_plane_core.runtime import render_hook_response

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


def _claude_entry(payload: dict[str, Any], decision: str) -> tuple[Any, ToolCallEvent | None]:
    """What the Claude hook entry answers a payload with, and the event its judge got."""
    return _entry("claude", payload, decision)


def _entry(agent: str, payload: dict[str, Any], decision: str) -> tuple[Any, ToolCallEvent | None]:
    """What an agent's hook entry answers a payload with, the judge recording the event it got."""
    seen: list[ToolCallEvent] = []

    def judge(event: ToolCallEvent) -> dict[str, str]:
        seen.append(event)
        return {"decision": decision, "reason": "needs a person"}

    response = render_hook_response(adapter_for(agent), json.dumps(payload), judge, environ={})
    return response, seen[0] if seen else None


def test_the_claude_entry_answers_a_droid_payload_with_the_droid_adapter() -> None:
    # An ask is a no-op under droid exec (FD-1), so Droid's adapter escalates it to the exit-2
    # deny, where the Claude adapter's native ask would let the imported hook's call run.
    response, event = _claude_entry(PRE_TOOL["factory"], "ask")
    assert event is not None and event.meta.agent == "factory" and event.tool == "Bash"
    assert response.exit_code == 2 and response.enforced
    assert "needs a person" in str(response.stderr)
    claude_only, _ = _claude_entry(PRE_TOOL["claude"], "ask")
    assert claude_only.exit_code == 0 and not claude_only.enforced  # Claude's own ask tier


def test_the_claude_entry_answers_a_cursor_native_payload_with_the_cursor_adapter() -> None:
    response, event = _claude_entry(PRE_TOOL["cursor"], "deny")
    assert event is not None and event.meta.agent == "cursor" and event.tool == "Bash"
    assert event.this_call_vetoable and response.exit_code == 2 and response.enforced
    # The Claude adapter reads preToolUse as an unmodelled event, which never blocks.
    assert not adapter_for("claude").parse(PRE_TOOL["cursor"]).this_call_vetoable


def test_a_claude_shaped_payload_from_cursor_stays_with_the_claude_adapter() -> None:
    # Cursor's adapter cannot model PreToolUse; Cursor reads a Claude answer from a .claude hook.
    payload = {**PRE_TOOL["claude"], "cursor_version": "3.21.16"}
    response, event = _claude_entry(payload, "deny")
    assert event is not None and event.meta.agent == "claude"
    assert response.exit_code == 2 and response.enforced


def test_entries_built_on_the_claude_adapter_never_hand_off() -> None:
    droid_like = {**PRE_TOOL["qwen"], "permission_mode": "auto-high"}
    assert foreign_host(droid_like) == "factory"
    for agent in ("factory", "qwen", "auggie"):
        adapter = adapter_for(agent)
        assert isinstance(adapter, ClaudeAdapter) and not adapter.runs_for_other_hosts()
        _, event = _entry(agent, droid_like, "deny")
        assert event is not None and event.meta.agent == agent
