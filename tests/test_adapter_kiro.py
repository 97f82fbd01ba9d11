"""The kiro adapter passes the conformance kit on its golden fixtures."""

from __future__ import annotations

from pathlib import Path

from agent_control_plane_core import Verdict, adapter_for, assert_conforms
from agent_control_plane_core.policy import load_policy_judge

from conftest import FIXTURES_DIR


def test_kiro_adapter_conforms_to_its_fixtures() -> None:
    report = assert_conforms(adapter_for("kiro"), FIXTURES_DIR / "kiro.json")
    assert report.scenarios > 0


def test_one_mcp_rule_matches_kiro_and_cursor_mcp_names(tmp_path: Path) -> None:
    # KR-3, CUR-4: @server/tool and MCP:server:tool become mcp__server__tool, native names kept.
    policy = tmp_path / "policy.toml"
    policy.write_text(
        '[[rules]]\ntools = ["mcp__github__create_*"]\ndecision = "deny"\nreason = "no"\n',
        encoding="utf-8",
    )
    judge = load_policy_judge(str(policy))
    kiro = adapter_for("kiro").parse(
        {"hook_event_name": "PreToolUse", "tool_name": "@github/create_issue", "tool_input": {}}
    )
    cursor = adapter_for("cursor").parse(
        {"hook_event_name": "preToolUse", "tool_name": "MCP:github:create_issue", "tool_input": {}}
    )
    for event in (kiro, cursor):
        assert event.tool == "mcp__github__create_issue" and event.this_call_vetoable
        assert judge(event).decision == "deny"
    assert (kiro.meta.native_tool, cursor.meta.native_tool) == (
        "@github/create_issue",
        "MCP:github:create_issue",
    )


def test_a_v2_prompt_cannot_be_blocked_but_a_v3_prompt_can() -> None:
    kiro = adapter_for("kiro")
    v2 = kiro.parse({"hook_event_name": "userPromptSubmit", "prompt": "p"})
    v3 = kiro.parse({"hook_event_name": "UserPromptSubmit", "prompt": "p"})
    assert (v2.event, v3.event) == ("prompt_submit", "prompt_submit")
    deny = Verdict(decision="deny", reason="no")
    assert (kiro.render(deny, v2).exit_code, kiro.render(deny, v2).enforced) == (1, False)
    assert (kiro.render(deny, v3).exit_code, kiro.render(deny, v3).enforced) == (2, True)
