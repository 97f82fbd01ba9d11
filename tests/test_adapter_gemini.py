"""Gemini CLI: what its hook runner decides from our renders, and every real payload it sent."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_control_plane_core import Verdict, adapter_for, assert_conforms
from agent_control_plane_core.schemas import validator_for

from conftest import FIXTURES_DIR, real_payloads

GEMINI = adapter_for("gemini")
SHELL = {
    "hook_event_name": "BeforeTool",
    "tool_name": "run_shell_command",
    "tool_input": {"command": "rm -rf /w/victim"},
}
# Reasons a judge may well write that are JSON text themselves (docs/findings.md GM-1).
JSON_LOOKING = [
    "403",
    "null",
    "true",
    "false",
    '["x"]',
    '{"code": 7}',
    '{"decision": "allow"}',
    '"{\\"decision\\": \\"allow\\"}"',
    '"text"',
    " 0 ",
    "[]",
    "{}",
    "-1.5e3",
]


def _js_json(text: str) -> tuple[bool, Any]:
    """JSON.parse as JavaScript does it: (ok, value); no NaN or Infinity."""
    try:
        return True, json.loads(text, parse_constant=_refuse)
    except ValueError:
        return False, None


def _refuse(name: str) -> Any:
    raise ValueError(name)


def _js_truthy(value: Any) -> bool:
    return value not in (None, False, 0, "") or isinstance(value, (dict, list))


def _plain(text: str, exit_code: int) -> dict[str, Any]:
    # convertPlainTextToHookOutput: 0 and 1 allow, any other code denies with the text.
    return {"decision": "allow"} if exit_code in (0, 1) else {"decision": "deny", "reason": text}


def runner_decision(stdout: str, stderr: str, exit_code: int, *, since_0_30: bool) -> str | None:
    """The decision Gemini CLI's hookRunner + aggregator reach from one hook's output.

    Since 0.30.0 (884acda2, hookRunner.ts @ 5411f113): JSON.parse(stdout.trim() || stderr.trim()),
    a JSON string parsed once more, an object kept and anything else no output; text that is not
    JSON goes by the exit code. Before: JSON only from stdout at exit 0, stderr's text otherwise.
    """
    output: Any = None
    if since_0_30:
        text = stdout.strip() or stderr.strip()
        if text:
            ok, parsed = _js_json(text)
            if ok and isinstance(parsed, str):
                ok, parsed = _js_json(parsed)
            if not ok:
                output = _plain(text, exit_code)
            elif isinstance(parsed, (dict, list)):
                output = parsed  # typeof "object" and truthy: null, numbers and booleans are not
    elif exit_code == 0 and stdout.strip():
        ok, parsed = _js_json(stdout.strip())
        output = (parsed if _js_truthy(parsed) else None) if ok else _plain(stdout.strip(), 0)
    elif exit_code != 0 and stderr.strip():
        output = _plain(stderr.strip(), exit_code)
    if output is None:
        return None
    decision = output.get("decision") if isinstance(output, dict) else None
    # hookAggregator.mergeWithOrDecision: block/deny blocks, ask asks, anything else allows.
    if decision in ("block", "deny"):
        return "deny"
    return "ask" if decision == "ask" else "allow"


def _decide(verdict: Verdict, native: dict[str, Any], *, since_0_30: bool) -> str | None:
    response = GEMINI.render(verdict, GEMINI.parse(native))
    stdout = "" if response.to_dict().get("stdout") is None else json.dumps(response.stdout)
    stderr = response.stderr if isinstance(response.stderr, str) else ""
    return runner_decision(stdout, stderr, response.exit_code, since_0_30=since_0_30)


def test_gemini_adapter_conforms_to_its_fixtures() -> None:
    report = assert_conforms(GEMINI, FIXTURES_DIR / "gemini.json")
    assert report.scenarios > 0


def test_the_runner_model_reproduces_the_gm1_failure_of_a_reason_alone_on_stderr() -> None:
    # The old render (exit 2, reason on stderr only): 403 and null decide nothing, ["x"] allows.
    assert runner_decision("", "403", 2, since_0_30=True) is None
    assert runner_decision("", "null", 2, since_0_30=True) is None
    assert runner_decision("", '["x"]', 2, since_0_30=True) == "allow"
    assert runner_decision("", '{"code": 7}', 2, since_0_30=True) == "allow"
    assert runner_decision("", "rm is blocked", 2, since_0_30=True) == "deny"


@pytest.mark.parametrize("since_0_30", [True, False])
@pytest.mark.parametrize("reason", JSON_LOOKING)
def test_an_enforced_deny_denies_whatever_its_reason(reason: str, since_0_30: bool) -> None:
    verdict = Verdict(decision="deny", reason=reason)
    assert _decide(verdict, SHELL, since_0_30=since_0_30) == "deny"


@given(st.text(max_size=40))
def test_an_enforced_deny_denies_for_any_reason_text(reason: str) -> None:
    for since_0_30 in (True, False):
        assert (
            _decide(Verdict(decision="deny", reason=reason), SHELL, since_0_30=since_0_30) == "deny"
        )


def test_an_allow_and_a_rewrite_are_not_read_as_a_deny() -> None:
    assert _decide(Verdict(decision="allow"), SHELL, since_0_30=True) in (None, "allow")
    rewrite = Verdict(decision="allow", mutated_input={"command": "ls"})
    assert _decide(rewrite, SHELL, since_0_30=True) == "allow"


def test_an_after_tool_redaction_is_the_deny_that_replaces_the_result() -> None:
    native = {
        "hook_event_name": "AfterTool",
        "tool_name": "run_shell_command",
        "tool_input": {"command": "cat .env"},
        "tool_response": {"llmContent": "TOKEN=abc"},
    }
    verdict = Verdict(decision="allow", mutated_output={"llmContent": "TOKEN=[REDACTED]"})
    response = GEMINI.render(verdict, GEMINI.parse(native))
    assert not response.enforced and response.exit_code == 0
    assert _decide(verdict, native, since_0_30=True) == "deny"
    # The model reads "Tool result blocked: <reason>": the redacted output, never the secret.
    assert "TOKEN=[REDACTED]" in response.to_dict()["stdout"]["reason"]
    assert "abc" not in json.dumps(response.to_dict())


def test_context_goes_where_the_model_reads_it_and_nowhere_on_before_tool() -> None:
    after = dict(SHELL, hook_event_name="AfterTool")
    body = GEMINI.render(Verdict(decision="allow", additional_context="c1"), GEMINI.parse(after))
    assert body.stdout == {
        "hookSpecificOutput": {"hookEventName": "AfterTool", "additionalContext": "c1"}
    }
    before = GEMINI.render(Verdict(decision="allow", additional_context="c1"), GEMINI.parse(SHELL))
    assert "c1" not in json.dumps(before.to_dict())
    assert "additional_context" in GEMINI.UNRENDERED_FIELDS["pre_tool"]


_KINDS = {"BeforeTool": "pre_tool", "AfterTool": "post_tool", "BeforeAgent": "prompt_submit"}


def test_every_real_gemini_payload_parses_to_its_kind_and_tool_with_nothing_lost() -> None:
    validator = validator_for("tool-call-event")
    recorded = real_payloads("gemini")
    assert len(recorded) >= 20
    for found in recorded:
        native, name, path = found.payload, found.native_event, found.path
        event = GEMINI.parse(native)
        assert native["hook_event_name"] == name, path.name
        assert event.event == _KINDS[name], path.name
        assert [e.message for e in validator.iter_errors(event.to_dict())] == [], path.name
        meta = event.to_dict()["meta"]
        kept = meta["passthrough"]
        consumed = {"hook_event_name": meta["native_event"]}
        if event.event == "prompt_submit":
            consumed["prompt"] = event.input["prompt"]
        else:
            # run_shell_command is the only tool these runs called: canonical Bash.
            assert (native["tool_name"], event.tool) == ("run_shell_command", "Bash"), path.name
            consumed["tool_name"] = meta["native_tool"]
            consumed["tool_input"] = event.input
            if event.event == "post_tool":
                consumed["tool_response"] = event.response
        for key, value in native.items():
            got = kept[key] if key in kept else consumed.get(key, meta.get(key))
            assert got == value, f"{path.name}: {key} lost or changed"
