"""Property-based invariants of every adapter, the runtime and the bridge, plus their regressions."""

from __future__ import annotations

import collections
import io
import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_control_plane_core import (
    AGENT_IDS,
    Decisions,
    EventKinds,
    IntegrationModes,
    ToolCallEvent,
    adapter_for,
    sanitize_verdict,
)
from agent_control_plane_core._generated.constants import StandardMetaFields
from agent_control_plane_core.adapters.claude import ClaudeAdapter
from agent_control_plane_core.cli import bridge_line, run_bridge
from agent_control_plane_core.contract import present
from agent_control_plane_core.runtime import demo_judge, render_escalated, render_hook_response
from agent_control_plane_core.schemas import validator_for

from strategies import (
    ADAPTER_CONFIGS,
    bridge_lines,
    configured,
    json_values,
    payloads,
    verdicts,
)

CONFIGS = sorted(ADAPTER_CONFIGS)
# Hosts that trim stderr and run the tool when nothing is left after an exit 2
# (divergence registry: enforced-deny-stderr, gemini-default-reason).
TRIMMING_HOSTS = frozenset({"codex", "gemini"})
# Hosts whose enforced stderr never parses as JSON: the Claude family, whose adapters render
# through adapters/claude.py stated_reason (derived, so a host built on it is never missed).
JSON_GUARDED_HOSTS = frozenset(
    agent for agent in AGENT_IDS if isinstance(adapter_for(agent), ClaudeAdapter)
)


def strict_json(value: Any) -> str:
    """A canonical text of a JSON value in which true, 1 and 1.0 differ."""
    return json.dumps(value, sort_keys=True, ensure_ascii=True)


def same(left: Any, right: Any) -> bool:
    """Equality of JSON values that tells true from 1 and 1 from 1.0."""
    return strict_json(left) == strict_json(right)


def reflected_in(value: Any, slot: str, content: Any) -> bool:
    """Whether a consumed native value shows up, with its type, in one event slot."""
    if slot == "input":
        if isinstance(value, str):
            # Hosts that send the tool input as a JSON string (copilot toolArgs, cursor MCP).
            try:
                value = json.loads(value)
            except ValueError:
                return False
        # A declared key rename keeps every value, and a key an adapter derives (Droid's
        # ApplyPatch file_path from the patch headers) only adds one: every native value is kept.
        if not isinstance(value, dict):
            return False
        kept = collections.Counter(map(strict_json, content.values()))
        return not collections.Counter(map(strict_json, value.values())) - kept
    if slot.startswith("input."):
        # A flat native field that is one value of the tool input (cursor's shell command).
        return isinstance(value, str) and same(value, content)
    if slot == "response":
        return same(value, content)
    return isinstance(value, str) and value == content


def event_slots(event: ToolCallEvent) -> list[tuple[str, Any]]:
    """Every place of an event a native top-level value can be copied to."""
    meta = event.meta
    slots: list[tuple[str, Any]] = []
    for name in ("native_event", "native_tool", *StandardMetaFields.ALL):
        value = getattr(meta, name)
        if isinstance(value, str):
            slots.append((f"meta.{name}", value))
    if event.tool is not None:
        slots.append(("tool", event.tool))
    slots.append(("input", event.input))
    slots.extend((f"input.{key}", value) for key, value in event.input.items())
    prompt = event.input.get("prompt")
    if event.event == EventKinds.PROMPT_SUBMIT and isinstance(prompt, str):
        slots.append(("prompt", prompt))
    if present(event.response):
        slots.append(("response", event.response))
    return slots


def unreflected_keys(
    payload: dict[str, Any], consumed: list[str], event: ToolCallEvent
) -> list[str]:
    """Consumed keys that cannot each be given a distinct event slot holding their value."""
    slots = event_slots(event)
    owner: dict[int, str] = {}

    def assign(key: str, seen: set[int]) -> bool:
        for index, (slot, content) in enumerate(slots):
            if index in seen or not reflected_in(payload[key], slot, content):
                continue
            seen.add(index)
            if index not in owner or assign(owner[index], seen):
                owner[index] = key
                return True
        return False

    return [key for key in consumed if not assign(key, set())]


@pytest.mark.parametrize("config", CONFIGS)
@given(data=st.data())
def test_parse_never_raises_validates_and_round_trips(config: str, data: st.DataObject) -> None:
    """Any payload parses into a schema-valid event that survives to_dict/from_dict unchanged."""
    adapter = configured(config)
    native = data.draw(payloads(adapter.AGENT), label="native")
    event = adapter.parse(native)
    document = event.to_dict()
    errors = [error.message for error in validator_for("tool-call-event").iter_errors(document)]
    assert errors == []
    assert ToolCallEvent.from_dict(document) == event
    assert event.meta.agent == adapter.AGENT
    assert event.meta.integration_mode == adapter.INTEGRATION_MODE
    if event.event == EventKinds.UNKNOWN or config == "codex-observe":
        assert not event.this_call_vetoable


@pytest.mark.parametrize("config", CONFIGS)
@given(data=st.data())
def test_parse_loses_no_native_top_level_field(config: str, data: st.DataObject) -> None:
    """Each native key is in passthrough verbatim or its value, well typed, is in the event."""
    adapter = configured(config)
    native = data.draw(payloads(adapter.AGENT), label="native")
    event = adapter.parse(native)
    passthrough = event.meta.passthrough
    payload = native if isinstance(native, dict) else {}
    assert set(passthrough) <= set(payload), "passthrough invents keys"
    for key, value in passthrough.items():
        assert same(value, payload[key]), key
    consumed = [key for key in payload if key not in passthrough]
    assert unreflected_keys(payload, consumed, event) == []
    for name in StandardMetaFields.ALL:
        sent = payload.get(name)
        if isinstance(sent, str):
            assert getattr(event.meta, name) == sent
        else:
            meta_value = getattr(event.meta, name)
            if present(meta_value):
                # A host spelling the field its own way (copilot sessionId): a consumed key held
                # it, or it is an item of a list the host sent, kept in passthrough as sent
                # (Auggie's workspace_roots, whose first root is the cwd).
                assert any(same(payload[key], meta_value) for key in consumed) or any(
                    isinstance(value, list) and any(same(item, meta_value) for item in value)
                    for value in passthrough.values()
                ), name
            assert name not in payload or same(passthrough[name], sent)


def test_nothing_lost_check_flags_a_dropped_or_mistyped_key() -> None:
    """The nothing-lost check is not a tautology: a key neither kept nor reflected is reported."""
    payload = {"hook_event_name": "PreToolUse", "session_id": 7, "tool_input": "ls", "x": 1}
    event = adapter_for("claude").parse(payload)
    dropped = replace(event, meta=replace(event.meta, passthrough={}))
    assert unreflected_keys(payload, ["session_id", "tool_input", "x"], dropped) == [
        "session_id",
        "tool_input",
        "x",
    ]
    assert unreflected_keys(payload, ["hook_event_name"], dropped) == []
    # An input may gain a derived key but never lose a native value.
    native = {"hook_event_name": "PreToolUse", "tool_input": {"command": "ls", "timeout": 5}}
    parsed = adapter_for("claude").parse(native)
    assert unreflected_keys(native, ["tool_input"], replace(parsed, input={"command": "ls"})) == [
        "tool_input"
    ]
    grown = replace(parsed, input={**parsed.input, "file_path": "/x"})
    assert unreflected_keys(native, ["tool_input"], grown) == []


@pytest.mark.parametrize("config", CONFIGS)
@given(data=st.data())
def test_render_of_every_valid_verdict_keeps_the_block_promises(
    config: str, data: st.DataObject
) -> None:
    """Render and render_escalated never raise, validate, and never lie about a block."""
    adapter = configured(config)
    event = adapter.parse(data.draw(payloads(adapter.AGENT), label="native"))
    verdict = data.draw(verdicts(), label="verdict")
    sole_gate = data.draw(st.booleans(), label="sole_gate")
    rendered = adapter.render(verdict, event, sole_gate=sole_gate)
    escalated = render_escalated(adapter, verdict, event, sole_gate=sole_gate)
    validator = validator_for("native-response")
    for response in (rendered, escalated):
        assert [e.message for e in validator.iter_errors(response.to_dict())] == []
        assert response.transport == event.meta.integration_mode
        if response.enforced:
            # A host that blocks on the deny body at exit 0 (exit_zero_block) carries it there.
            if response.exit_code == 0:
                assert adapter.EXIT_ZERO_BLOCK  # type: ignore[attr-defined]
                assert isinstance(response.stdout, dict) and response.stdout
            reason = verdict.reason
            if isinstance(reason, str) and reason.strip():
                # The model is told why it was blocked; the Claude family guards a reason that
                # would parse as JSON, which Qwen's runner would read as its answer (QW-1).
                stderr = response.stderr
                if stderr not in (reason, f"blocked: {reason}"):
                    # After the tool, a redaction's replacement follows the reason: on Codex that
                    # stderr is what the model reads in place of the output.
                    assert event.event == EventKinds.POST_TOOL and present(verdict.mutated_output)
                    assert isinstance(stderr, str) and stderr.startswith(f"{reason}\n\n")
                elif stderr != reason:
                    assert adapter.AGENT in JSON_GUARDED_HOSTS
                    json.loads(reason)
            if adapter.AGENT in TRIMMING_HOSTS:
                assert isinstance(response.stderr, str) and response.stderr.strip()
    vetoable = event.this_call_vetoable
    decision = verdict.decision
    if not vetoable:
        assert not rendered.enforced
    if rendered.enforced:
        assert decision == Decisions.DENY  # ask never claims a block on its own
    if event.meta.integration_mode == IntegrationModes.OBSERVE_ONLY:
        assert not rendered.enforced and not escalated.enforced
    if decision == Decisions.ALLOW:
        assert escalated == rendered
        assert not rendered.enforced and rendered.exit_code == 0
    if vetoable and decision == Decisions.DENY:
        assert rendered.enforced and escalated.enforced
    if vetoable and decision == Decisions.ASK and not adapter.NATIVE_ASK_TIER:
        assert escalated.enforced
    if escalated.enforced and not vetoable:
        # contract.md §6: a payload naming no event has only the exit code left to block with.
        assert event.meta.native_event == "" and decision != Decisions.ALLOW


@given(untrusted=json_values())
def test_sanitize_turns_any_judge_output_into_a_valid_verdict(untrusted: Any) -> None:
    """Whatever a judge returns, the sanitized verdict validates and keeps a valid decision."""
    verdict = sanitize_verdict(untrusted)
    assert validator_for("verdict").is_valid(verdict.to_dict())
    decision = untrusted.get("decision") if isinstance(untrusted, dict) else None
    if decision in Decisions.ALL:
        assert verdict.decision == decision
    else:
        assert verdict.decision == Decisions.ASK


@given(line=bridge_lines())
def test_bridge_answers_every_line_with_exactly_one_valid_line(line: str) -> None:
    """Any input line gets one UTF-8 JSON answer whose event and renders validate."""
    out = io.StringIO()
    assert run_bridge([line], out) == 1
    text = out.getvalue()
    assert text.endswith("\n") and text.count("\n") == 1
    text.encode("utf-8")
    answer = json.loads(text)
    assert set(answer) == {"event", "render", "escalated", "unrendered"}
    if "error" in answer["event"]:
        return
    assert validator_for("tool-call-event").is_valid(answer["event"])
    for key in ("render", "escalated"):
        if answer[key] is not None and "error" not in answer[key]:
            assert validator_for("native-response").is_valid(answer[key])


# Regressions: each failure the properties or the soak found, with its minimal payload.


def test_bridge_answers_a_codex_version_on_another_host_with_an_error_line() -> None:
    """codex_version on a claude line used to raise TypeError and end the bridge."""
    answer = bridge_line('{"agent":"claude","native":{},"options":{"codex_version":"0.150.0"}}')
    assert "codex_version" in answer["event"]["error"]
    assert answer["render"] is None and answer["escalated"] is None


def test_bridge_answers_nesting_deeper_than_the_parser_with_an_error_line() -> None:
    """A line nested past the recursion limit used to raise RecursionError and end the bridge."""
    answer = bridge_line("[" * 100_000)
    assert "not JSON" in answer["event"]["error"]


def test_bridge_escapes_a_lone_surrogate_instead_of_crashing() -> None:
    """A JSON "\\ud800" escape used to make the answer line unencodable as UTF-8."""
    out = io.StringIO()
    run_bridge(['{"agent":"claude","native":{"a":"\\ud800"}}'], out)
    out.getvalue().encode("utf-8")
    assert json.loads(out.getvalue())["event"]["meta"]["passthrough"] == {"a": "\ud800"}


def _acp() -> Path:
    return Path(sys.executable).parent / "acp"


def test_bridge_process_answers_bad_bytes_in_any_locale() -> None:
    """Undecodable bytes and a non-UTF-8 locale used to crash `acp bridge` mid-stream."""
    lines = [
        b'{"agent":"claude","native":{"a":"\xff"}}',
        b'{"agent":"gemini","native":{"a":"\xe2\x9c\x93"}}',
        b"\xff\xfe",
        b'{"agent":"amp","native":{"tool":"Bash","input":{"cmd":"ls"}}}',
    ]
    env = {**os.environ, "PYTHONIOENCODING": "latin-1"}
    done = subprocess.run(
        [_acp(), "bridge"], input=b"\n".join(lines) + b"\n", capture_output=True, env=env
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    answers = [json.loads(raw.decode("utf-8")) for raw in done.stdout.splitlines()]
    assert len(answers) == len(lines)
    assert answers[0]["event"]["meta"]["passthrough"] == {"a": "\ufffd"}
    assert answers[1]["event"]["meta"]["passthrough"] == {"a": "\u2713"}
    assert "error" in answers[2]["event"]
    assert answers[3]["event"]["input"] == {"command": "ls"}


def test_render_hook_response_gives_the_posture_for_nesting_deeper_than_the_parser() -> None:
    """A payload nested past the recursion limit used to raise out of render_hook_response."""
    for agent in AGENT_IDS:
        adapter = adapter_for(agent)
        response = render_hook_response(adapter, "[" * 100_000, demo_judge)
        assert response.exit_code == adapter.FAILURE_EXIT_CODE and not response.enforced
        closed = render_hook_response(adapter, "[" * 100_000, demo_judge, fail_closed=True)
        assert closed.exit_code == adapter.BLOCK_EXIT_CODE
        assert closed.enforced is (adapter.INTEGRATION_MODE != IntegrationModes.OBSERVE_ONLY)


def _hook_process(judge: str, payload: str, **env: str) -> subprocess.CompletedProcess[bytes]:
    code = (
        "from agent_control_plane_core import adapter_for\n"
        "from agent_control_plane_core.runtime import run_hook_entry\n"
        f"run_hook_entry(adapter_for('claude'), {judge})\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code],
        input=payload.encode(),
        capture_output=True,
        env={**os.environ, **env},
    )


def test_hook_blocks_a_deny_whose_body_holds_a_lone_surrogate() -> None:
    """A deny echoing a "\\ud800" input used to crash the body write: exit 1, and Claude ran the tool."""
    payload = (
        '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"\\ud800"}}'
    )
    judge = "lambda e: {'decision': 'deny', 'reason': e.input['command']}"
    done = _hook_process(judge, payload)
    assert done.returncode == 2, done.stderr.decode(errors="replace")
    body = json.loads(done.stdout.decode("utf-8"))
    assert body["hookSpecificOutput"]["permissionDecisionReason"] == "\ud800"


def test_hook_fails_closed_when_the_judge_puts_a_non_json_value_in_the_body() -> None:
    """A judge's set in mutated_output used to crash the body write: exit 1 under ACP_FAIL_CLOSED=1."""
    payload = (
        '{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{},"tool_response":"x"}'
    )
    judge = "lambda e: {'decision': 'allow', 'mutated_output': {1, 2}}"
    closed = _hook_process(judge, payload, ACP_FAIL_CLOSED="1")
    assert closed.returncode == 2 and b"render failed" in closed.stderr
    assert closed.stdout == b""
    default = _hook_process(judge, payload)
    assert default.returncode == 0 and default.stdout == b""
