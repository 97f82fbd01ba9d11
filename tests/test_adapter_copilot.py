"""The copilot adapter passes the conformance kit on its golden fixtures."""

from __future__ import annotations

from agent_control_plane_core import adapter_for, assert_conforms
from agent_control_plane_core.runtime import failure_response

from conftest import FIXTURES_DIR


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
