"""Amp: file tools and subagent calls reach canonical rules; an ask is escalated, never left to exit 1."""

from __future__ import annotations

from agent_control_plane_core import Verdict, adapter_for, assert_conforms
from agent_control_plane_core.runtime import render_escalated

from conftest import FIXTURES_DIR

AMP = adapter_for("amp")


def test_amp_adapter_conforms_to_its_fixtures() -> None:
    report = assert_conforms(AMP, FIXTURES_DIR / "amp.json")
    assert report.scenarios > 0


def test_a_subagent_bash_call_is_judged_on_command() -> None:
    # AMP-1: renames were skipped for non-builtin calls, so this reached a rule on command empty.
    event = AMP.parse({"tool": "Bash", "input": {"cmd": "rm -rf /"}, "agent_type": "x"})
    assert (event.tool, event.input, event.this_call_vetoable) == (
        "Bash",
        {"command": "rm -rf /"},
        True,
    )
    blocked = render_escalated(AMP, Verdict(decision="deny", reason="rm"), event)
    assert (blocked.exit_code, blocked.enforced, blocked.stderr) == (2, True, "rm")


def test_amp_file_tools_are_edit_and_write_with_file_path() -> None:
    edit = AMP.parse({"tool": "edit_file", "input": {"path": "/a", "old_str": "x", "new_str": "y"}})
    write = AMP.parse(
        {"tool": "create_file", "input": {"path": "/b", "content": "z"}, "agent_type": "o"}
    )
    assert (edit.tool, edit.input["file_path"], edit.meta.native_tool) == (
        "Edit",
        "/a",
        "edit_file",
    )
    assert (write.tool, write.input["file_path"]) == ("Write", "/b")


def test_an_mcp_tool_is_never_renamed_or_aliased() -> None:
    event = AMP.parse({"tool": "mcp__fs__edit_file", "input": {"path": "/a"}})
    assert (event.tool, event.input) == ("mcp__fs__edit_file", {"path": "/a"})


def test_an_ask_is_not_left_to_exit_1_which_may_run_unattended() -> None:
    # AMP-3 (unconfirmed): exit 1 asks only where someone can answer, so the hook entry blocks.
    event = AMP.parse({"tool": "Bash", "input": {"cmd": "git push"}})
    plain = AMP.render(Verdict(decision="ask", reason="confirm"), event)
    assert (plain.exit_code, plain.enforced) == (1, False)
    asked = render_escalated(AMP, Verdict(decision="ask", reason="confirm"), event)
    assert (asked.exit_code, asked.enforced, asked.stderr) == (2, True, "confirm")
