"""Held attack docs/findings.md HELD-DRIFT (parse drift): the realistic payload
of every host, drifted (unknown, renamed and retyped keys, unknown tool-input keys, non-objects,
invalid UTF-8), parses into a schema-valid event that loses no key."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest
from test_properties import same, unreflected_keys

from agent_control_plane_core.schemas import validator_for

from hook_runner import BIN, PRE_TOOL, hook_env
from strategies import ADAPTER_CONFIGS, configured

CONFIGS = sorted(ADAPTER_CONFIGS)
# One value of every JSON type, for unknown fields and for retyped keys.
JSON_TYPES: dict[str, Any] = {
    "string": "drift",
    "empty string": "",
    "integer": 7,
    "float": 1.5,
    "true": True,
    "false": False,
    "null": None,
    "array": [1, "a", None],
    "object": {"k": "v"},
}
NON_OBJECTS: dict[str, Any] = {"array": [], "string": "PreToolUse", "number": 1, "null": None}


def nested(depth: int) -> dict[str, Any]:
    """An object depth levels deep."""
    value: dict[str, Any] = {}
    for _ in range(depth):
        value = {"a": value}
    return value


def drifted(native: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """(name, payload) for every drift of one realistic payload."""
    yield "realistic", native
    for kind, value in JSON_TYPES.items():
        yield f"unknown {kind} field", {**native, "zz_unknown": value}
    yield "__proto__ field", {**native, "__proto__": {"polluted": True}}
    yield "constructor field", {**native, "constructor": {"prototype": {"x": 1}}}
    for key, original in native.items():
        renamed = {k: v for k, v in native.items() if k != key}
        yield f"{key} renamed", {**renamed, f"{key}_renamed": original}
        for kind, value in JSON_TYPES.items():
            yield f"{key} as {kind}", {**native, key: value}
        yield f"{key} as a JSON string", {**native, key: json.dumps(original)}
        yield f"{key} 300 deep", {**native, key: nested(300)}
        if isinstance(original, dict):
            inner = {**original, "zz_extra": 1, "__proto__": {"p": 1}}
            yield f"unknown key inside {key}", {**native, key: inner}
        elif isinstance(original, str) and original.startswith("{"):
            # A tool input sent as a JSON string (copilot toolArgs).
            inner = {**json.loads(original), "zz_extra": 1}
            yield f"unknown key inside {key}", {**native, key: json.dumps(inner)}
    for kind, value in NON_OBJECTS.items():
        yield f"non-object payload: {kind}", value


CASES = [
    (config, name, payload)
    for config in CONFIGS
    for name, payload in drifted(PRE_TOOL[ADAPTER_CONFIGS[config][0]])
]


def test_the_drift_family_is_the_size_the_findings_ran() -> None:
    # HELD-DRIFT ran 253 cases over the 9 hosts of then; every host and configuration gets them now.
    per_host = {config: sum(1 for c, _, _ in CASES if c == config) for config in CONFIGS}
    assert min(per_host.values()) >= 253 // 9


@pytest.mark.parametrize("config", CONFIGS)
def test_held_parse_drift_gives_a_valid_event_that_loses_no_key(config: str) -> None:
    adapter = configured(config)
    validator = validator_for("tool-call-event")
    failures = []
    for case, name, native in CASES:
        if case != config:
            continue
        event = adapter.parse(native)  # never raises
        errors = [error.message for error in validator.iter_errors(event.to_dict())]
        payload = native if isinstance(native, dict) else {}
        passthrough = event.meta.passthrough
        lost = [key for key in passthrough if key not in payload]
        lost += [key for key, value in passthrough.items() if not same(value, payload.get(key))]
        consumed = [key for key in payload if key not in passthrough]
        lost += unreflected_keys(payload, consumed, event)
        if errors or lost:
            failures.append((name, errors, lost))
    assert failures == []


@pytest.mark.parametrize("agent", sorted({agent for agent, _ in ADAPTER_CONFIGS.values()}))
@pytest.mark.parametrize(
    "stdin",
    [b'{"hook_event_name": "\xff\xfe", "tool_name": "Bash\xc3"}', b'{"__proto__": {"x": 1}}'],
    ids=["invalid UTF-8", "__proto__"],
)
def test_held_acp_parse_answers_drift_with_a_valid_event(agent: str, stdin: bytes) -> None:
    result = subprocess.run(
        [str(BIN / "acp"), "parse", "--agent", agent],
        input=stdin,
        capture_output=True,
        env=hook_env(agent),
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    event = json.loads(result.stdout)
    assert validator_for("tool-call-event").is_valid(event)
    if b"__proto__" in stdin:
        assert event["meta"]["passthrough"]["__proto__"] == {"x": 1}
