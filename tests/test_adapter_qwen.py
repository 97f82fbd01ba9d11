"""The qwen adapter passes the conformance kit on its golden fixtures."""

from __future__ import annotations

import json

import pytest

from agent_control_plane_core import Verdict, adapter_for, assert_conforms
from agent_control_plane_core.runtime import render_escalated

from conftest import FIXTURES_DIR


def test_qwen_adapter_conforms_to_its_fixtures() -> None:
    report = assert_conforms(adapter_for("qwen"), FIXTURES_DIR / "qwen.json")
    assert report.scenarios > 0


PRE = {
    "hook_event_name": "PreToolUse",
    "tool_name": "run_shell_command",
    "tool_input": {"command": "git push --force"},
}
PROBE = "QWENPROBE"


@pytest.mark.parametrize("decision", ["allow", "deny", "ask"])
@pytest.mark.parametrize("sole_gate", [False, True])
def test_no_pre_tool_render_carries_a_rewrite_or_context(decision: str, sole_gate: bool) -> None:
    adapter = adapter_for("qwen")
    event = adapter.parse(PRE)
    verdict = Verdict(decision=decision, mutated_input={"command": PROBE}, additional_context=PROBE)
    response = render_escalated(adapter, verdict, event, sole_gate=sole_gate)
    # Qwen Code never applies updatedInput (QW-2) and drops PreToolUse context (QW-5).
    assert PROBE not in json.dumps(response.to_dict())
    # A rewrite it cannot apply is refused, never run as the original.
    assert response.stdout["hookSpecificOutput"]["permissionDecision"] in ("deny", "ask")


@pytest.mark.parametrize("decision", ["deny", "ask"])
def test_post_tool_feedback_is_additional_context_without_a_decision(decision: str) -> None:
    adapter = adapter_for("qwen")
    event = adapter.parse({**PRE, "hook_event_name": "PostToolUse", "tool_response": "out"})
    response = render_escalated(
        adapter, Verdict(decision=decision, reason="leak", additional_context="ctx"), event
    )
    # decision block is ignored after the tool (QW-4).
    assert not event.this_call_vetoable
    assert (response.exit_code, response.enforced) == (0, False)
    assert response.stdout == {
        "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "leak\n\nctx"}
    }


def test_agent_id_marks_a_subagent_call_that_stays_vetoable() -> None:
    adapter = adapter_for("qwen")
    event = adapter.parse({**PRE, "agent_id": "a1"})
    assert event.this_call_vetoable
    assert event.meta.passthrough["agent_id"] == "a1"
    assert adapter.render(Verdict(decision="deny", reason="no"), event).enforced


def test_an_empty_prompt_is_never_blocked() -> None:
    adapter = adapter_for("qwen")
    empty = adapter.parse({"hook_event_name": "UserPromptSubmit", "prompt": ""})
    typed = adapter.parse({"hook_event_name": "UserPromptSubmit", "prompt": "deploy"})
    deny = Verdict(decision="deny", reason="no")
    # Qwen fires UserPromptSubmit for tool-result continuations with an empty prompt (QW-9).
    assert not empty.this_call_vetoable and typed.this_call_vetoable
    response = render_escalated(adapter, deny, empty)
    assert (response.exit_code, response.enforced) == (0, False)
    assert "decision" not in response.stdout
    assert render_escalated(adapter, deny, typed).enforced


def test_permission_request_answers_only_through_hook_specific_output_decision() -> None:
    adapter = adapter_for("qwen")
    event = adapter.parse({**PRE, "hook_event_name": "PermissionRequest"})
    # An exit-2 answer carries no hookSpecificOutput.decision there (QW-7): never vetoable.
    assert (event.event, event.this_call_vetoable) == ("pre_tool", False)
    response = render_escalated(adapter, Verdict(decision="deny", reason="no"), event)
    assert response.exit_code == 0
    assert response.stdout["hookSpecificOutput"]["decision"] == {
        "behavior": "deny",
        "message": "no",
    }
