"""Generated dataclasses: frozen, keyword-only, JSON round trip with absent kept apart from null."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys

import pytest

from agent_control_plane_core import ABSENT, EventMeta, NativeResponse, ToolCallEvent, Verdict

from hook_runner import NO_COVERAGE

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


# Issue 13: @dataclass is applied when something first reads the dataclass metadata, so each
# first use below runs in a fresh interpreter where nothing has completed the classes yet.
FIRST_USES = {
    "is_dataclass": "assert dataclasses.is_dataclass(Verdict) and dataclasses.is_dataclass(v)",
    "fields of an instance": "assert [f.name for f in dataclasses.fields(v)][:1] == ['decision']",
    "replace": "assert dataclasses.replace(v, decision='allow').decision == 'allow'",
    "asdict": "assert dataclasses.asdict(v)['reason'] == 'r'",
    "assignment": (
        "try:\n    v.decision = 'allow'\nexcept dataclasses.FrozenInstanceError:\n    pass\n"
        "else:\n    raise AssertionError('assigned')"
    ),
    "deletion": (
        "try:\n    del v.reason\nexcept dataclasses.FrozenInstanceError:\n    pass\n"
        "else:\n    raise AssertionError('deleted')"
    ),
    "subclass": (
        "@dataclasses.dataclass(frozen=True, kw_only=True)\n"
        "class Mine(Verdict):\n    extra: int = 0\n"
        "assert [f.name for f in dataclasses.fields(Mine)][-2:] == ['reason', 'extra']"
    ),
    "from_dict": "assert Verdict.from_dict({'decision': 'ask'}).decision == 'ask'",
}


@pytest.mark.parametrize("use", sorted(FIRST_USES))
def test_the_deferred_dataclass_is_complete_at_its_first_use(use: str) -> None:
    code = (
        "import sys\n"
        "from agent_control_plane_core import Verdict\n"
        "v = Verdict(decision='deny', reason='r')\n"
        # Not yet a dataclass (under make test's coverage run the module itself may be loaded).
        "assert '__dataclass_fields__' not in vars(Verdict)\n"
        "import dataclasses\n"
        f"{FIRST_USES[use]}\n"
        "assert dataclasses.is_dataclass(Verdict)\n"
        "assert Verdict.__dataclass_params__.frozen\n"
        "print('ok')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout == "ok\n", result.stderr


def test_an_unknown_attribute_is_still_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'mutated_ouput'"):
        Verdict(decision="allow").mutated_ouput  # type: ignore[attr-defined]  # noqa: B018
    with pytest.raises(AttributeError):
        Verdict.no_such_thing  # type: ignore[attr-defined]  # noqa: B018


# Issue 13: the generated modules declare their Literal aliases for type checkers and build them
# on first use, so importing the public types loads no typing; every introspection still works.
LAZY_TYPING_SCRIPT = """
import sys
from agent_control_plane_core import EventMeta, NativeResponse, ToolCallEvent, Verdict
from agent_control_plane_core._generated.models import verdict_schema
assert "typing" not in sys.modules, "importing the public types loaded typing"
import dataclasses, inspect, typing
from agent_control_plane_core._generated.constants import CallClass, Decision
assert Decision == typing.Literal["allow", "deny", "ask"], Decision
assert verdict_schema.Decision is Decision or verdict_schema.Decision == Decision
assert typing.get_args(CallClass) == ("builtin", "mcp", "subagent", "resumed")
for cls in (EventMeta, NativeResponse, ToolCallEvent, Verdict):
    hints = typing.get_type_hints(cls)
    assert set(hints) == {f.name for f in dataclasses.fields(cls)}, cls
    assert inspect.get_annotations(cls, eval_str=True) == hints, cls
assert typing.get_type_hints(Verdict)["decision"] == Decision
assert typing.get_type_hints(ToolCallEvent)["meta"] is EventMeta
print("ok")
"""


def test_public_types_load_no_typing_and_still_give_their_type_hints() -> None:
    result = subprocess.run(
        [sys.executable, "-c", LAZY_TYPING_SCRIPT],
        capture_output=True,
        text=True,
        env={**os.environ, **NO_COVERAGE},  # coverage's own start-up loads typing
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_an_unknown_module_attribute_is_still_an_attribute_error() -> None:
    from agent_control_plane_core._generated.models import verdict_schema

    with pytest.raises(AttributeError, match="no attribute 'Decisoin'"):
        verdict_schema.Decisoin  # noqa: B018


def test_parsed_events_and_renders_hold_the_fields_their_constructors_would() -> None:
    # build_event and HostAdapter.response fill __dict__ from copied plans, not through the
    # constructors: every field present, in schema order, equal to the constructed value.
    import json

    from agent_control_plane_core import AGENT_IDS, adapter_for, normalize_verdict
    from agent_control_plane_core._generated.constants import (
        EventMetaFields,
        NativeResponseFields,
        ToolCallEventFields,
    )

    from conftest import FIXTURES_DIR

    checked = 0
    for agent in AGENT_IDS:
        adapter = adapter_for(agent)
        for case in json.loads((FIXTURES_DIR / f"{agent}.json").read_text(encoding="utf-8"))[
            "cases"
        ]:
            event = adapter.parse(case["native"])
            assert tuple(vars(event)) == ToolCallEventFields.ALL
            assert tuple(vars(event.meta)) == EventMetaFields.ALL
            assert event == ToolCallEvent(**{**vars(event), "meta": EventMeta(**vars(event.meta))})
            for answer in case.get("render", {}).values():
                response = adapter.render(normalize_verdict(answer["verdict"]), event)
                assert tuple(vars(response)) == NativeResponseFields.ALL
                assert response == NativeResponse(**vars(response))
                checked += 1
    assert checked > 100


def test_to_dict_converts_a_model_where_the_annotation_admits_one_and_omits_absent_fields() -> None:
    # to_dict reads each class's annotations once: which fields may be ABSENT and which may
    # hold a model (Any, a model class, a name it does not know), including a user's subclass.
    from typing import Any

    @dataclasses.dataclass(frozen=True, kw_only=True)
    class Tagged(Verdict):
        origin: Any = None
        note: str | None = None

    meta = EventMeta(
        agent="claude",
        native_event="PreToolUse",
        integration_mode="external_hook",
        primary_gate_present=True,
        passthrough={},
    )
    tagged = Tagged(decision="deny", mutated_output=meta, origin=Verdict(decision="allow"))
    assert tagged.to_dict() == {
        "decision": "deny",
        "mutated_output": meta.to_dict(),
        "origin": {"decision": "allow"},
        "note": None,
    }
    assert list(tagged.to_dict()) == ["decision", "mutated_output", "origin", "note"]
    assert meta.to_dict() == {
        "agent": "claude",
        "native_event": "PreToolUse",
        "integration_mode": "external_hook",
        "primary_gate_present": True,
        "passthrough": {},
    }
