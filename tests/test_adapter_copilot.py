"""The copilot adapter passes the conformance kit on its golden fixtures."""

from __future__ import annotations

import json

import pytest

from agent_control_plane_core import Verdict, adapter_for, assert_conforms
from agent_control_plane_core.runtime import failure_response, render_escalated
from agent_control_plane_core.schemas import validator_for

from conftest import FIXTURES_DIR, RealPayload, assert_nothing_lost, real_payloads


def test_copilot_adapter_conforms_to_its_fixtures() -> None:
    report = assert_conforms(adapter_for("copilot"), FIXTURES_DIR / "copilot.json")
    assert report.scenarios > 0


def test_camel_case_session_id_is_the_session_id_unless_one_is_sent() -> None:
    adapter = adapter_for("copilot")
    camel = adapter.parse({"sessionId": "a", "toolName": "bash", "toolArgs": "{}"})
    assert camel.meta.session_id == "a" and "sessionId" not in camel.meta.passthrough
    both = adapter.parse({"sessionId": "a", "session_id": 7, "toolName": "bash", "toolArgs": "{}"})
    # A non-string session_id stays in passthrough and the camelCase one is not moved onto it.
    assert both.meta.passthrough == {"sessionId": "a", "session_id": 7}


def test_a_camel_case_tool_payload_names_its_event_by_shape() -> None:
    adapter = adapter_for("copilot")
    pre = adapter.parse({"toolName": "bash", "toolArgs": '{"command": "ls"}'})
    post = adapter.parse({"toolName": "bash", "toolArgs": "{}", "toolResult": None})
    assert (pre.event, pre.this_call_vetoable) == ("pre_tool", True)
    assert (post.event, post.this_call_vetoable, post.response) == ("post_tool", False, None)


def test_a_failed_copilot_hook_answers_with_a_deny_not_a_run() -> None:
    adapter = adapter_for("copilot")
    response = failure_response(adapter, "judge raised", fail_closed=False)
    # CP-3: exit 2 is no deny before 1.0.70; the deny body at exit 0 is one on every version.
    assert response.exit_code == 0
    assert isinstance(response.stdout, dict)
    assert response.stdout["permissionDecision"] == "deny"


# Where a parsed event carries each camelCase field it reads; the rest stays in passthrough.
_CONSUMED = {
    "sessionId": "session_id",
    "cwd": "cwd",
    "toolName": "native_tool",
    "toolArgs": "input",
    "toolResult": "response",
}
_PASCAL_CONSUMED = {
    "hook_event_name": "native_event",
    "session_id": "session_id",
    "cwd": "cwd",
    "tool_name": "native_tool",
    "tool_input": "input",
    "tool_response": "response",
}


@pytest.mark.parametrize("found", real_payloads("copilot"), ids=lambda found: found.name)
def test_every_real_copilot_payload_parses_to_its_kind_and_tool_with_nothing_lost(
    found: RealPayload,
) -> None:
    payload = found.payload
    event = adapter_for("copilot", copilot_version=found.version).parse(payload).to_dict()
    assert validator_for("tool-call-event").is_valid(event)
    assert event["meta"]["native_event"] == found.native_event
    if "hook_event_name" in payload:
        # The PascalCase form (a hook under a PascalCase event key) is Claude-shaped.
        consumed = _PASCAL_CONSUMED
        kind = {"PreToolUse": "pre_tool", "PostToolUse": "post_tool"}[found.native_event]
    else:
        # The camelCase form names no event: a tool payload with a result is postToolUse.
        consumed = _CONSUMED
        kind = "post_tool" if "toolResult" in payload else "pre_tool"
        assert found.native_event == ("postToolUse" if kind == "post_tool" else "preToolUse")
    assert (event["event"], event["tool"]) == (kind, "Bash")
    assert event["this_call_vetoable"] is (kind == "pre_tool")
    if isinstance(payload.get("toolArgs"), str):
        # Older releases send the arguments as JSON text; the event holds them decoded.
        payload = {**payload, "toolArgs": json.loads(payload["toolArgs"])}
    assert_nothing_lost(payload, event, consumed)


def test_no_nameless_camel_case_payload_is_escalated_to_a_block_it_cannot_perform() -> None:
    adapter = adapter_for("copilot")
    deny = Verdict(decision="deny", reason="r")
    for payload in (
        {"timestamp": 1, "cwd": "/w", "prompt": "hi"},
        {"timestamp": 1, "cwd": "/w", "source": "new"},
        {"timestamp": 1, "cwd": "/w", "error": {"message": "boom"}},
        {"timestamp": 1, "cwd": "/w", "stopReason": "end_turn"},
        {"timestamp": 1, "cwd": "/w", "reason": "complete"},
        {"timestamp": 1, "toolName": "bash", "toolArgs": {}, "error": "exit 1"},
    ):
        event = adapter.parse(payload)
        assert event.meta.native_event  # named by its shape, so the runtime never escalates it
        response = render_escalated(adapter, deny, event)
        assert (response.exit_code, response.enforced) == (0, False), payload


def test_the_deny_exit_code_switches_at_1_0_70_and_the_body_denies_on_both_sides() -> None:
    payload = {"toolName": "bash", "toolArgs": {"command": "rm -rf x"}}
    deny = Verdict(decision="deny", reason="no")
    for version, code in (("1.0.65", 0), ("1.0.69", 0), ("1.0.70", 2), (None, 0)):
        adapter = adapter_for("copilot", copilot_version=version)
        response = adapter.render(deny, adapter.parse(dict(payload)))
        assert (response.exit_code, response.enforced) == (code, True), version
        assert response.stdout == {"permissionDecision": "deny", "permissionDecisionReason": "no"}


def test_a_hyphenated_tool_is_an_mcp_call_and_underscored_builtins_are_not() -> None:
    adapter = adapter_for("copilot")
    mcp = adapter.parse({"toolName": "workiq-create_entity", "toolArgs": {}})
    assert mcp.this_call_vetoable and mcp.tool == "workiq-create_entity"
    # Host aliases apply to builtin calls only: web_fetch being aliased shows it is not MCP.
    fetch = adapter.parse({"toolName": "web_fetch", "toolArgs": {"url": "https://e.x"}})
    assert fetch.tool == "WebFetch"
    asked = adapter.parse({"toolName": "ask_user", "toolArgs": {"question": "ok?"}})
    assert (asked.tool, asked.this_call_vetoable) == ("ask_user", True)
