"""render_escalated, the hook response pipeline, judges and emit, in process."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any, cast

import pytest

from agent_control_plane_core import AGENT_IDS, Adapter, Verdict, adapter_for
from agent_control_plane_core.runtime import (
    JudgeLoadError,
    demo_judge,
    emit,
    entry_adapter,
    failure_response,
    judge_from_env,
    load_judge,
    render_escalated,
    render_hook_response,
)
from agent_control_plane_core.schemas import validator_for

from hook_runner import CODEX_VERSION, FAILURE_EXIT, PRE_TOOL

SHIPPED_EXIT_2 = (
    "amp",
    "claude",
    "codex",
    "cursor",
    "factory",
    "gemini",
    "kiro",
    "qwen",
)

# A call each host delivers but cannot veto (amp vetoes every delegate call, so it has none).
NOT_VETOABLE: dict[str, dict[str, Any]] = {
    "claude": {"hook_event_name": "SessionStart", "session_id": "s"},
    "codex": {"hook_event_name": "Stop", "session_id": "c"},
    "gemini": {"hook_event_name": "Notification", "session_id": "g"},
    "cursor": {"hook_event_name": "postToolUse", "tool_name": "Shell", "tool_input": {}},
    "copilot": {"timestamp": 1, "toolName": "bash", "toolArgs": "{}", "toolResult": {}},
    "factory": {"hook_event_name": "SessionStart", "session_id": "f"},
    "qwen": {"hook_event_name": "SessionStart", "session_id": "q"},
    "kiro": {"hook_event_name": "postToolUse", "tool_name": "execute_bash", "tool_input": {}},
    "opencode": {"event": "tool.execute.after", "tool": "bash", "args": {}, "output": ""},
}

# (agent, decision, vetoable) -> (exit code, enforced) of render_escalated (contract.md §4, §6).
ESCALATED = {
    ("claude", "allow", True): (0, False),
    ("claude", "deny", True): (2, True),
    ("claude", "ask", True): (0, False),  # claude asks natively
    ("codex", "allow", True): (0, False),
    ("codex", "deny", True): (2, True),
    ("codex", "ask", True): (2, True),  # no ask tier: the ask becomes a block
    ("gemini", "allow", True): (0, False),
    ("gemini", "deny", True): (2, True),
    ("gemini", "ask", True): (2, True),
    ("amp", "allow", True): (0, False),
    ("amp", "deny", True): (2, True),
    ("amp", "ask", True): (2, True),  # no ask tier declared (AMP-3): the ask becomes a block
    ("claude", "allow", False): (0, False),
    ("claude", "deny", False): (0, False),
    ("claude", "ask", False): (0, False),
    ("codex", "allow", False): (0, False),
    ("codex", "deny", False): (0, False),
    ("codex", "ask", False): (0, False),
    ("gemini", "allow", False): (0, False),
    ("gemini", "deny", False): (0, False),
    ("gemini", "ask", False): (0, False),
    ("cursor", "allow", True): (0, False),
    ("cursor", "deny", True): (2, True),
    ("cursor", "ask", True): (2, True),  # no ask tier: the ask becomes a block
    ("cursor", "allow", False): (0, False),
    ("cursor", "deny", False): (0, False),
    ("cursor", "ask", False): (0, False),
    ("copilot", "allow", True): (0, False),
    ("copilot", "deny", True): (0, True),  # the deny body blocks at exit 0 (exit_zero_block)
    ("copilot", "ask", True): (0, True),  # no trusted ask tier (CP-15): escalated to the deny
    ("copilot", "allow", False): (0, False),
    ("copilot", "deny", False): (0, False),
    ("copilot", "ask", False): (0, False),
    ("factory", "allow", True): (0, False),
    ("factory", "deny", True): (2, True),
    ("factory", "ask", True): (2, True),  # no ask tier under droid exec (FD-1)
    ("factory", "allow", False): (0, False),
    ("factory", "deny", False): (0, False),
    ("factory", "ask", False): (0, False),
    ("qwen", "allow", True): (0, False),
    ("qwen", "deny", True): (2, True),
    ("qwen", "ask", True): (0, False),
    ("qwen", "allow", False): (0, False),
    ("qwen", "deny", False): (0, False),
    ("qwen", "ask", False): (0, False),
    ("kiro", "allow", True): (0, False),
    ("kiro", "deny", True): (2, True),
    ("kiro", "ask", True): (2, True),  # no ask tier: the ask becomes a block
    ("kiro", "allow", False): (0, False),
    ("kiro", "deny", False): (1, False),  # a failed hook's warning: the call still runs
    ("kiro", "ask", False): (1, False),
    ("opencode", "allow", True): (0, False),
    ("opencode", "deny", True): (2, True),
    ("opencode", "ask", True): (2, True),  # no ask tier: the ask becomes a block the plugin throws
    ("opencode", "allow", False): (0, False),
    ("opencode", "deny", False): (0, False),  # a warning the plugin adds to the tool output
    ("opencode", "ask", False): (0, False),
}


def _adapter(agent: str) -> Any:
    return (
        adapter_for(agent, codex_version=CODEX_VERSION) if agent == "codex" else adapter_for(agent)
    )


@pytest.mark.parametrize(("agent", "decision", "vetoable"), sorted(ESCALATED))
def test_render_escalated_table(agent: str, decision: str, vetoable: bool) -> None:
    adapter = _adapter(agent)
    event = adapter.parse(PRE_TOOL[agent] if vetoable else NOT_VETOABLE[agent])
    assert event.this_call_vetoable is vetoable
    verdict = Verdict(decision=decision, reason="because")
    response = render_escalated(adapter, verdict, event)
    assert (response.exit_code, response.enforced) == ESCALATED[agent, decision, vetoable]
    assert validator_for("native-response").is_valid(response.to_dict())
    plain = adapter.render(verdict, event)
    if not (vetoable and decision != "allow" and not plain.enforced):
        assert response == plain  # escalation changes only an unenforced non-allow on a veto
    if response.enforced:
        assert response.stderr == "because"


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini", "factory", "qwen", "kiro"])
@pytest.mark.parametrize("decision", ["deny", "ask"])
def test_event_naming_nothing_blocks_by_exit_2_with_the_reason_or_default(
    agent: str, decision: str
) -> None:
    adapter = _adapter(agent)
    payload = {k: v for k, v in PRE_TOOL[agent].items() if k != "hook_event_name"}
    event = adapter.parse(payload)
    assert event.meta.native_event == ""
    response = render_escalated(adapter, Verdict(decision=decision, reason="r"), event)
    assert (response.exit_code, response.enforced, response.stderr) == (2, True, "r")
    assert response.to_dict().get("stdout") is None
    blank = render_escalated(adapter, Verdict(decision=decision, reason="  "), event)
    assert blank.stderr == adapter.DEFAULT_BLOCK_REASON


def test_observe_only_event_naming_nothing_is_never_escalated() -> None:
    adapter = adapter_for("codex", codex_version="0.100.0")  # below the supported range
    event = adapter.parse({"tool_name": "Bash", "tool_input": {"command": "x"}})
    response = render_escalated(adapter, Verdict(decision="deny", reason="r"), event)
    assert response == adapter.render(Verdict(decision="deny", reason="r"), event)
    assert not response.enforced


@pytest.mark.parametrize("agent", AGENT_IDS)
def test_allow_is_never_escalated_even_with_no_event_name(agent: str) -> None:
    adapter = _adapter(agent)
    event = adapter.parse({})
    response = render_escalated(adapter, Verdict(decision="allow"), event)
    assert response == adapter.render(Verdict(decision="allow"), event)
    assert response.exit_code == 0


@pytest.mark.parametrize("agent", AGENT_IDS)
@pytest.mark.parametrize("fail_closed", [False, True])
def test_failure_response_is_the_posture_and_a_valid_native_response(
    agent: str, fail_closed: bool
) -> None:
    response = failure_response(_adapter(agent), "what\nwent wrong", fail_closed=fail_closed)
    assert validator_for("native-response").is_valid(response.to_dict())
    block = _adapter(agent).BLOCK_EXIT_CODE
    assert response.exit_code == (block if fail_closed else FAILURE_EXIT[agent])
    assert response.enforced is fail_closed
    assert response.stderr is not None and "what went wrong" in response.stderr


def test_fail_closed_sends_the_declared_block_response_not_exit_2() -> None:
    # N4: a host whose block is exit 3 with a body gets exactly that under ACP_FAIL_CLOSED=1.
    claude = adapter_for("claude")
    host = SimpleNamespace(
        AGENT="myhost",
        INTEGRATION_MODE=claude.INTEGRATION_MODE,
        FAILURE_EXIT_CODE=0,
        FAILURE_STDOUT=None,
        BLOCK_EXIT_CODE=3,
        BLOCK_STDOUT={"block": True},
    )
    closed = failure_response(cast(Adapter, host), "boom", fail_closed=True)
    assert (closed.exit_code, closed.stdout, closed.enforced) == (3, {"block": True}, True)
    assert closed.stderr == "acp-myhost-hook: boom; blocked because ACP_FAIL_CLOSED=1"
    open_ = failure_response(cast(Adapter, host), "boom", fail_closed=False)
    assert (open_.exit_code, open_.enforced) == (0, False)
    # Every shipped declaration without block_response keeps exit 2.
    assert {adapter_for(agent).BLOCK_EXIT_CODE for agent in SHIPPED_EXIT_2} == {2}


def test_fail_closed_on_observe_only_codex_promises_no_block() -> None:
    below_range = adapter_for("codex", codex_version="0.100.0")
    response = failure_response(below_range, "x", fail_closed=True)
    assert (response.exit_code, response.enforced) == (2, False)


@pytest.mark.parametrize("fail_closed", [False, True])
def test_failure_response_carries_the_declared_body_only_where_the_host_reads_one(
    fail_closed: bool,
) -> None:
    # Copilot's preToolUse fails closed: its failed hook answers with a deny body.
    copilot = failure_response(adapter_for("copilot"), "x", fail_closed=fail_closed)
    assert copilot.exit_code == 0  # CP-3: the body denies at exit 0 on every version
    assert isinstance(copilot.stdout, dict)
    assert copilot.stdout["permissionDecision"] == "deny"
    assert copilot.stdout["permissionDecisionReason"]
    # Cursor: no body, so the host's own failClosed setting decides (hosts/cursor.json).
    cursor = failure_response(adapter_for("cursor"), "x", fail_closed=fail_closed)
    assert "stdout" not in cursor.to_dict()


def test_render_hook_response_runs_parse_judge_sanitize_escalate() -> None:
    adapter = adapter_for("gemini")
    raw = json.dumps(PRE_TOOL["gemini"])
    response = render_hook_response(adapter, raw, lambda event: {"decision": "ask"})
    assert (response.exit_code, response.enforced) == (2, True)
    clamped = render_hook_response(adapter, raw, lambda event: {"decision": "nope"})
    assert clamped.stderr is not None and "clamped" in clamped.stderr


def test_render_hook_response_applies_the_amp_delegate_form_only_with_an_environment() -> None:
    adapter = adapter_for("amp")
    raw = json.dumps({"cmd": "rm -rf /"})
    delegate = render_hook_response(adapter, raw, demo_judge, environ={"AGENT_TOOL_NAME": "Bash"})
    assert delegate.exit_code == 2
    plain = render_hook_response(adapter, raw, demo_judge)
    # An envelope without a tool cannot be read as any call: the failure answer (L12), never 0.
    assert plain.exit_code == adapter.FAILURE_EXIT_CODE != 0
    assert plain.stderr is not None and "names no tool" in plain.stderr


def test_an_adapter_that_raises_still_gets_the_posture() -> None:
    class Broken:
        AGENT = "claude"
        INTEGRATION_MODE = "external_hook"
        FAILURE_EXIT_CODE = 0

        def parse(self, native: object) -> Any:
            raise KeyError("bug")

    response = render_hook_response(Broken(), "{}", demo_judge)  # type: ignore[arg-type]
    assert response.exit_code == 0
    assert response.stderr is not None and "parse failed" in response.stderr


def test_demo_judge_denies_rm_rf_on_shell_calls_only() -> None:
    claude = adapter_for("claude")
    deny = demo_judge(claude.parse(PRE_TOOL["claude"]))
    assert (deny.decision, deny.reason) == ("deny", "demo policy: rm -rf blocked")
    amp = adapter_for("amp").parse(PRE_TOOL["amp"])  # cmd renamed to the canonical key
    assert demo_judge(amp).decision == "deny"
    write = claude.parse(
        {
            "hook_event_name": "PreToolUse",
            "tool_name": "Write",
            "tool_input": {"content": "rm -rf /"},
        }
    )
    assert demo_judge(write).decision == "allow"
    assert demo_judge(claude.parse({"hook_event_name": "SessionStart"})).decision == "allow"


def test_load_judge_imports_a_dotted_attribute() -> None:
    judge = load_judge("agent_control_plane_core.runtime:demo_judge")
    assert judge is demo_judge
    assert load_judge("json:JSONDecoder.decode") is json.JSONDecoder.decode


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nocolon", "is not module:callable"),
        ("mod:", "is not module:callable"),
        ("no_such_module_xyz:f", "cannot import"),
        ("json:nothing_here", "has no attribute"),
        ("json:__doc__", "not a callable"),
    ],
)
def test_load_judge_errors_name_the_spec_and_the_fix(spec: str, message: str) -> None:
    with pytest.raises(JudgeLoadError, match=message) as caught:
        load_judge(spec)
    assert repr(spec) in str(caught.value)


def test_judge_from_env_prefers_acp_judge_over_the_demo() -> None:
    assert judge_from_env({}) is demo_judge
    assert judge_from_env({"ACP_JUDGE": "json:loads"}) is json.loads


def test_entry_adapter_reads_env_and_an_explicit_option_wins() -> None:
    env = {"ACP_CODEX_VERSION": "0.150.0"}
    assert entry_adapter("codex", env).INTEGRATION_MODE == "external_hook"
    # CX-9: without a version the adapter renders what blocks on every supported version.
    assert entry_adapter("codex", {}).INTEGRATION_MODE == "external_hook"
    explicit = entry_adapter("codex", env, codex_version="0.100.0")
    assert explicit.INTEGRATION_MODE == "observe_only"
    assert entry_adapter("claude", env) is adapter_for("claude")


def test_emit_writes_body_then_stderr_and_exits_with_the_code(
    capfd: pytest.CaptureFixture[str],
) -> None:
    adapter = adapter_for("claude")
    event = adapter.parse(PRE_TOOL["claude"])
    response = adapter.render(Verdict(decision="deny", reason="nope"), event)
    with pytest.raises(SystemExit) as caught:
        emit(response)
    assert caught.value.code == 2
    out, err = capfd.readouterr()
    assert json.loads(out) == response.stdout
    assert err == "nope"
