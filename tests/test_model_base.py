"""Generated dataclasses: frozen, keyword-only, JSON round trip with absent kept apart from null."""

from __future__ import annotations

import dataclasses

import pytest

from agent_control_plane_core import ABSENT, EventMeta, NativeResponse, ToolCallEvent, Verdict

EVENT_JSON = {
    "schema_version": 1,
    "event": "post_tool",
    "tool": "Bash",
    "input": {"command": "ls"},
    "this_call_vetoable": True,
    "meta": {
        "agent": "claude",
        "native_event": "PostToolUse",
        "integration_mode": "external_hook",
        "primary_gate_present": True,
        "passthrough": {"x": None},
        "session_id": "s",
        "native_tool": "Bash",
    },
    "response": None,
}


def test_event_round_trips_with_key_order_and_null_response() -> None:
    event = ToolCallEvent.from_dict(EVENT_JSON)
    assert isinstance(event.meta, EventMeta)
    assert event.response is None
    assert event.to_dict() == EVENT_JSON
    assert list(event.to_dict()) == list(EVENT_JSON)
    assert list(event.to_dict()["meta"]) == list(EVENT_JSON["meta"])  # type: ignore[call-overload]


def test_absent_optionals_are_omitted_and_falsy() -> None:
    verdict = Verdict(decision="allow")
    assert verdict.reason is ABSENT
    assert not ABSENT
    assert repr(ABSENT) == "ABSENT"
    assert verdict.to_dict() == {"decision": "allow"}
    assert Verdict(decision="allow", mutated_output=None).to_dict() == {
        "decision": "allow",
        "mutated_output": None,
    }


def test_dataclasses_are_frozen_and_keyword_only() -> None:
    verdict = Verdict(decision="deny")
    with pytest.raises(dataclasses.FrozenInstanceError):
        verdict.decision = "allow"  # type: ignore[misc]
    with pytest.raises(TypeError):
        Verdict("deny")  # type: ignore[misc]


def test_from_dict_names_a_missing_and_an_unknown_key() -> None:
    with pytest.raises(ValueError, match=r"missing required key\(s\) \['exit_code', 'enforced'\]"):
        NativeResponse.from_dict({"transport": "external_hook"})
    with pytest.raises(ValueError, match=r"unknown key\(s\) \['why'\]"):
        Verdict.from_dict({"decision": "deny", "why": "x"})
    with pytest.raises(TypeError, match="expects a JSON object"):
        Verdict.from_dict([])  # type: ignore[arg-type]


def test_equality_is_by_value() -> None:
    assert ToolCallEvent.from_dict(EVENT_JSON) == ToolCallEvent.from_dict(
        dict(reversed(EVENT_JSON.items()))
    )
