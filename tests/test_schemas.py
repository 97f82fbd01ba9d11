"""Schema documents: valid 2020-12, refusing the hand-made invalid instances, usable from any language."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from agent_control_plane_core import AGENT_IDS, schemas
from agent_control_plane_core._generated.constants import CONTROL_PLANE_SCHEMA, EventKinds

from conftest import SCHEMA_DIR, load_json

GOOD_EVENT: dict[str, Any] = {
    "schema_version": 1,
    "event": "pre_tool",
    "tool": "Bash",
    "input": {"command": "ls"},
    "this_call_vetoable": True,
    "meta": {
        "agent": "claude",
        "native_event": "PreToolUse",
        "integration_mode": "external_hook",
        "primary_gate_present": True,
        "passthrough": {},
        "native_tool": "Bash",
    },
}


def _event(**changes: Any) -> dict[str, Any]:
    event = copy.deepcopy(GOOD_EVENT)
    for dotted, value in changes.items():
        target = event
        *path, last = dotted.split("__")
        for key in path:
            target = target[key]
        if value is _DROP:
            del target[last]
        else:
            target[last] = value
    return event


_DROP = object()

# Hand-made instances the contract must refuse; each names what is wrong.
INVALID_EVENTS: dict[str, Any] = {
    "not an object": [],
    "a string": "pre_tool",
    "null": None,
    "schema_version 2": _event(schema_version=2),
    "schema_version string": _event(schema_version="1"),
    "missing schema_version": _event(schema_version=_DROP),
    "unmodelled kind": _event(event="stop"),
    "kind in caps": _event(event="PRE_TOOL"),
    "missing event": _event(event=_DROP),
    "tool is a number": _event(tool=3),
    "tool is a list": _event(tool=["Bash"]),
    "missing tool": _event(tool=_DROP),
    "input is a list": _event(input=[]),
    "input is null": _event(input=None),
    "input is a string": _event(input="ls"),
    "missing input": _event(input=_DROP),
    "vetoable is a string": _event(this_call_vetoable="true"),
    "vetoable is 1": _event(this_call_vetoable=1),
    "missing vetoable": _event(this_call_vetoable=_DROP),
    "vetoable unknown event": _event(event="unknown"),
    "vetoable observe_only event": _event(meta__integration_mode="observe_only"),
    "extra top-level field": _event(extra=1),
    "meta missing": _event(meta=_DROP),
    "meta is a list": _event(meta=[]),
    "meta agent missing": _event(meta__agent=_DROP),
    "meta agent number": _event(meta__agent=7),
    "meta native_event missing": _event(meta__native_event=_DROP),
    "meta native_event null": _event(meta__native_event=None),
    "meta integration_mode bogus": _event(meta__integration_mode="plugin"),
    "meta integration_mode missing": _event(meta__integration_mode=_DROP),
    "meta primary_gate_present string": _event(meta__primary_gate_present="yes"),
    "meta primary_gate_present missing": _event(meta__primary_gate_present=_DROP),
    "meta passthrough list": _event(meta__passthrough=[]),
    "meta passthrough missing": _event(meta__passthrough=_DROP),
    "meta session_id number": _event(meta__session_id=1),
    "meta cwd null": _event(meta__cwd=None),
    "meta permission_mode object": _event(meta__permission_mode={}),
    "meta transcript_path list": _event(meta__transcript_path=["x"]),
    "meta native_tool null": _event(meta__native_tool=None),
    "meta extra field": _event(meta__version="1.0"),
}

INVALID_VERDICTS: dict[str, Any] = {
    "not an object": [],
    "a bare decision string": "deny",
    "null": None,
    "empty object": {},
    "decision block": {"decision": "block"},
    "decision capitalised": {"decision": "Deny"},
    "decision null": {"decision": None},
    "decision number": {"decision": 1},
    "mutated_input list": {"decision": "allow", "mutated_input": ["ls"]},
    "mutated_input string": {"decision": "allow", "mutated_input": "ls"},
    "mutated_input null": {"decision": "allow", "mutated_input": None},
    "additional_context number": {"decision": "allow", "additional_context": 1},
    "additional_context null": {"decision": "allow", "additional_context": None},
    "reason object": {"decision": "deny", "reason": {"text": "x"}},
    "reason null": {"decision": "deny", "reason": None},
    "extra field": {"decision": "allow", "confidence": 0.9},
    "camelCase field": {"decision": "allow", "mutatedInput": {}},
}

VALID_VERDICTS: list[Any] = [
    {"decision": "allow"},
    {"decision": "deny", "reason": ""},
    {"decision": "ask", "mutated_output": None},
    {"decision": "allow", "mutated_output": [1, {"a": None}], "mutated_input": {}},
    {"decision": "allow", "additional_context": "ctx", "reason": "r"},
]


@pytest.mark.parametrize("path", sorted(SCHEMA_DIR.rglob("*.schema.json")), ids=lambda p: p.name)
def test_every_schema_document_is_valid_against_the_2020_12_metaschema(path: Path) -> None:
    document = load_json(path)
    assert document["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(document)


def test_at_least_forty_hand_made_invalid_instances() -> None:
    assert len(INVALID_EVENTS) + len(INVALID_VERDICTS) >= 40


@pytest.mark.parametrize("name", sorted(INVALID_EVENTS))
def test_hand_made_invalid_event_is_refused(name: str) -> None:
    assert not schemas.validator_for("tool-call-event").is_valid(INVALID_EVENTS[name])


@pytest.mark.parametrize("name", sorted(INVALID_VERDICTS))
def test_hand_made_invalid_verdict_is_refused(name: str) -> None:
    assert not schemas.validator_for("verdict").is_valid(INVALID_VERDICTS[name])


def test_every_enumeration_is_defined_once_across_the_documents() -> None:
    seen: dict[tuple[str, ...], str] = {}
    for path in sorted(SCHEMA_DIR.glob("*.schema.json")):
        for name, body in load_json(path).get("$defs", {}).items():
            if "enum" in body:
                values = tuple(body["enum"])
                assert values not in seen, f"{name} in {path.name} repeats {seen.get(values)}"
                seen[values] = f"{path.name}#{name}"
    assert tuple(EventKinds.ALL) in seen


def test_every_property_and_definition_has_a_description() -> None:
    for path in sorted(SCHEMA_DIR.rglob("*.schema.json")):
        document = load_json(path)
        shapes = {"(root)": document, **document.get("$defs", {})}
        for shape_name, shape in shapes.items():
            assert "description" in shape, f"{path.name}: {shape_name}"
            for key, prop in shape.get("properties", {}).items():
                assert "description" in prop, f"{path.name}: {shape_name}.{key}"


def test_host_declarations_validate_against_the_host_schema() -> None:
    validator = schemas.validator_for("host")
    hosts = sorted((SCHEMA_DIR / "hosts").glob("*.json"))
    assert tuple(p.stem for p in hosts) == AGENT_IDS
    for path in hosts:
        document = load_json(path)
        assert list(validator.iter_errors(document)) == [], path.name
        assert document["agent"] == path.stem


def test_host_schema_refuses_a_declaration_missing_a_kind_row() -> None:
    document = load_json(SCHEMA_DIR / "hosts" / "claude.json")
    del document["unrendered_fields"]["unknown"]
    assert not schemas.validator_for("host").is_valid(document)
    document = load_json(SCHEMA_DIR / "hosts" / "claude.json")
    document["coverage"]["remote"] = "covered"
    assert not schemas.validator_for("host").is_valid(document)


def test_schema_path_names_the_known_schemas_on_a_bad_name() -> None:
    with pytest.raises(ValueError, match="tool-call-event"):
        schemas.schema_path("tool-call-events")


def test_installed_documents_are_reachable_with_importlib_resources() -> None:
    path = schemas.schema_path("tool-call-event")
    assert CONTROL_PLANE_SCHEMA == "control-plane/v1"
    assert path.read_bytes() == (SCHEMA_DIR / "tool-call-event.schema.json").read_bytes()
    assert set(schemas.SCHEMA_NAMES) >= {"tool-call-event", "verdict", "native-response", "host"}


def test_check_jsonschema_validates_events_against_the_installed_schema(tmp_path: Path) -> None:
    exe = shutil.which("check-jsonschema", path=str(Path(sys.executable).parent))
    assert exe is not None, "check-jsonschema is a pinned dev dependency"
    schema_file = str(schemas.schema_path("tool-call-event"))
    good = tmp_path / "good-event.json"
    bad = tmp_path / "bad-event.json"
    good.write_text(json.dumps(GOOD_EVENT))
    bad.write_text(json.dumps(_event(event="unknown")))
    ok = subprocess.run(
        [exe, "--schemafile", schema_file, str(good)], capture_output=True, text=True
    )
    assert ok.returncode == 0, ok.stdout + ok.stderr
    refused = subprocess.run(
        [exe, "--schemafile", schema_file, str(bad)], capture_output=True, text=True
    )
    assert refused.returncode == 1
    assert "bad-event.json" in refused.stdout + refused.stderr


def test_schema_path_knows_the_data_documents_too() -> None:
    for name in ("tool-input-keys", "tool-aliases"):
        path = schemas.schema_path(name)
        assert isinstance(json.loads(path.read_text(encoding="utf-8")), dict)
    with pytest.raises(ValueError, match="tool-input-keys"):
        schemas.schema_path("nope")


def test_every_schema_has_an_id_naming_its_own_file() -> None:
    for name in schemas.SCHEMA_NAMES:
        assert schemas.load_schema(name)["$id"].endswith(f"/{name}.schema.json")
