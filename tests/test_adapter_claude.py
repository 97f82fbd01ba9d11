"""Claude Code adapter: the render corrections of docs/findings.md CC-1 to CC-10 hold for every verdict."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_control_plane_core import Verdict, adapter_for, assert_conforms
from agent_control_plane_core.runtime import render_escalated

from conftest import FIXTURES_DIR

CLAUDE_FAMILY = ("claude", "factory", "qwen")
PRE = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls -la"}}
POST = {**PRE, "hook_event_name": "PostToolUse", "tool_response": {"stdout": "k=SECRET"}}
REWRITE = Verdict(decision="allow", mutated_input={"command": "ls"})
JSON_REASONS = ("403", "null", "true", '["x"]', '{"decision": "allow"}', ' "quoted" ', "1e3")


def hook_specific(response: Any) -> dict[str, Any]:
    """The hookSpecificOutput of a rendered body ({} when absent)."""
    body = response.stdout if isinstance(response.stdout, dict) else {}
    found = body.get("hookSpecificOutput", {})
    assert isinstance(found, dict)
    return found


def test_claude_adapter_conforms_to_its_fixtures() -> None:
    report = assert_conforms(adapter_for("claude"), FIXTURES_DIR / "claude.json")
    assert report.scenarios > 0


@pytest.mark.parametrize("sole_gate", [False, True])
def test_a_rewrite_never_asks_and_goes_alone_unless_sole_gate(sole_gate: bool) -> None:
    adapter = adapter_for("claude")
    event = adapter.parse(PRE)
    out = hook_specific(render_escalated(adapter, REWRITE, event, sole_gate=sole_gate))
    # ask + updatedInput holds the call headless (CC-2): a rewrite runs where the host applies it.
    assert out["updatedInput"] == {"command": "ls"}
    assert out.get("permissionDecision") == ("allow" if sole_gate else None)


@pytest.mark.parametrize("decision", ["allow", "deny", "ask"])
@pytest.mark.parametrize("name", ["Stop", "SubagentStop", "Notification"])
def test_unmodelled_events_get_an_abstaining_body(name: str, decision: str) -> None:
    adapter = adapter_for("claude")
    event = adapter.parse({"hook_event_name": name, "stop_hook_active": False})
    verdict = Verdict(decision=decision, reason="tests fail", additional_context="c")
    response = render_escalated(adapter, verdict, event)
    # decision block on Stop/SubagentStop means "keep working" (CC-5).
    assert response.stdout == {} and response.exit_code == 0 and not response.enforced


def test_no_event_name_means_no_hook_specific_output() -> None:
    adapter = adapter_for("claude")
    event = adapter.parse({"tool_name": "Bash", "tool_input": {"command": "ls"}})
    plain = adapter.render(Verdict(decision="deny", reason="r"), event)
    escalated = render_escalated(adapter, Verdict(decision="deny", reason="r"), event)
    # An empty hookEventName is no valid value (CC-6); the escalated exit code carries the block.
    assert "hookSpecificOutput" not in json.dumps(plain.to_dict())
    assert (escalated.exit_code, escalated.enforced, escalated.stderr) == (2, True, "r")


@pytest.mark.parametrize(
    "verdict", [Verdict(decision="deny", reason="leak"), Verdict(decision="ask")]
)
def test_a_post_tool_objection_is_feedback_not_a_claimed_block(verdict: Verdict) -> None:
    adapter = adapter_for("claude")
    event = adapter.parse(POST)
    response = render_escalated(adapter, verdict, event)
    # The tool already ran (CC-1): feedback at exit 0, never enforced.
    assert not event.this_call_vetoable
    assert (response.exit_code, response.enforced) == (0, False)
    assert response.stdout["decision"] == "block"


def test_a_redacting_post_tool_deny_replaces_the_output_at_exit_0() -> None:
    adapter = adapter_for("claude")
    event = adapter.parse(POST)
    verdict = Verdict(decision="deny", reason="secret", mutated_output={"stdout": "k=[X]"})
    response = render_escalated(adapter, verdict, event)
    # CC-9: the redaction does not depend on the host reading stdout at exit 2.
    assert response.exit_code == 0
    assert response.stdout["reason"] == "secret"
    assert hook_specific(response)["updatedToolOutput"] == {"stdout": "k=[X]"}


def test_permission_request_is_pre_tool_with_a_decision_object() -> None:
    adapter = adapter_for("claude")
    event = adapter.parse({**PRE, "hook_event_name": "PermissionRequest"})
    assert (event.event, event.this_call_vetoable) == ("pre_tool", True)
    deny = adapter.render(Verdict(decision="deny", reason="no"), event)
    assert (deny.exit_code, deny.stderr) == (2, "no")
    assert hook_specific(deny)["decision"] == {"behavior": "deny", "message": "no"}
    for verdict, sole_gate in [
        (Verdict(decision="allow"), False),
        (Verdict(decision="allow"), True),
        (REWRITE, False),
        (REWRITE, True),
        (Verdict(decision="ask"), False),
    ]:
        out = hook_specific(adapter.render(verdict, event, sole_gate=sole_gate))
        # decision is required on this event (2.1.332 schema; CC-4): never a bare hookEventName.
        assert out == {} or set(out) == {"hookEventName", "decision"}
        if out:
            assert out["decision"]["behavior"] in ("allow", "deny")
            if out["decision"]["behavior"] == "allow":
                assert sole_gate


@pytest.mark.parametrize("agent", CLAUDE_FAMILY)
@pytest.mark.parametrize("reason", [*JSON_REASONS, None, "", "   "])
def test_an_enforced_stderr_is_never_empty_and_never_parses_as_json(
    agent: str, reason: str | None
) -> None:
    adapter = adapter_for(agent)
    tool = {"claude": "Bash", "factory": "Execute", "qwen": "run_shell_command"}[agent]
    event = adapter.parse({**PRE, "tool_name": tool})
    verdict = (
        Verdict(decision="deny") if reason is None else Verdict(decision="deny", reason=reason)
    )
    response = adapter.render(verdict, event)
    assert response.enforced and response.exit_code == 2
    assert isinstance(response.stderr, str) and response.stderr.strip()
    with pytest.raises(ValueError):
        json.loads(response.stderr)
    # The body says the same as stderr (CC-8).
    assert hook_specific(response)["permissionDecisionReason"] == response.stderr
