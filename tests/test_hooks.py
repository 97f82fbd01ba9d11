"""The acp-<agent>-hook console scripts, run as real processes the way each host runs them."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import threading
import time

import pytest

from agent_control_plane_core import AGENT_IDS, adapter_for

from hook_judges import HUGE
from hook_runner import (
    ASK_TIER,
    BIN,
    BLOCK_EXIT,
    FAILURE_DENIES,
    FAILURE_EXIT,
    NO_COVERAGE,
    PRE_TOOL,
    HookRun,
    hook_env,
    run_hook,
)

# Hosts that answer with Claude Code's hookSpecificOutput body (Claude Code hooks docs; hosts/auggie.json, factory.json, qwen.json).
CLAUDE_BODIES = ("auggie", "claude", "factory", "qwen")
# Faults where the hook cannot answer: (name, raw stdin or None for the rm -rf payload, judge).
FAULTS = [
    ("bad-json", b"{not json", None),
    ("non-object", b"[1, 2, 3]", None),
    ("empty-stdin", b"", None),
    ("judge-raises", None, "raises"),
    ("judge-exits", None, "exits"),
    ("judge-returns-none", None, "returns_none"),
    ("judge-returns-list", None, "returns_list"),
    ("judge-mapping-without-decision", None, "returns_nameless"),
]
# Configuration errors (issue 26): the judge does not load, so every vetoable call is blocked.
CONFIG_FAULTS = [
    ("judge-not-callable", "NOT_CALLABLE"),
    ("judge-missing-attribute", "no_such_judge"),
]


def _blocked(agent: str, run: HookRun) -> bool:
    """Whether the run is the host's block of the rm -rf call (copilot: the deny body at exit 0)."""
    if adapter_for(agent).EXIT_ZERO_BLOCK:  # type: ignore[attr-defined]
        return bool(run.code == 0 and run.body()["permissionDecision"] == "deny")
    return bool(run.code == BLOCK_EXIT[agent])


def test_claude_rm_rf_exits_2_with_reason_on_stderr_and_deny_body() -> None:
    run = run_hook("claude")
    assert run.code == 2
    assert run.stderr == "demo policy: rm -rf blocked"
    output = run.body()["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    assert output["permissionDecisionReason"] == "demo policy: rm -rf blocked"


@pytest.mark.parametrize("agent", AGENT_IDS)
def test_demo_judge_blocks_rm_rf_on_every_host(agent: str) -> None:
    run = run_hook(agent)
    if adapter_for(agent).EXIT_ZERO_BLOCK:  # type: ignore[attr-defined]
        # copilot: the deny body at exit 0 blocks on every version; exit 2 only from 1.0.70.
        assert (run.code, run.body()["permissionDecision"]) == (0, "deny")
        assert run_hook(agent, ACP_COPILOT_VERSION="1.0.102").code == 2
    else:
        assert run.code == BLOCK_EXIT[agent]
    assert run.stderr == "demo policy: rm -rf blocked"


@pytest.mark.parametrize("agent", AGENT_IDS)
def test_harmless_command_is_allowed_with_exit_0(agent: str) -> None:
    payload = json.loads(json.dumps(PRE_TOOL[agent]).replace("rm -rf /", "ls -la"))
    run = run_hook(agent, payload)
    assert run.code == 0
    assert run.stderr == ""


@pytest.mark.parametrize("agent", AGENT_IDS)
@pytest.mark.parametrize(("fault", "raw", "judge"), FAULTS, ids=[f[0] for f in FAULTS])
def test_fault_gives_the_host_default_posture(
    agent: str, fault: str, raw: bytes | None, judge: str | None
) -> None:
    run = run_hook(agent, raw=raw, judge=judge)
    assert run.code == FAILURE_EXIT[agent]
    if agent in FAILURE_DENIES:
        assert run.body()["permissionDecision"] == "deny"  # the host's own failure answer
    else:
        assert run.stdout == b""  # no body: a body could be read as a decision
    assert run.stderr.startswith(f"acp-{agent}-hook: ")
    assert "\n" not in run.stderr.strip()


@pytest.mark.parametrize("agent", AGENT_IDS)
@pytest.mark.parametrize(("fault", "raw", "judge"), FAULTS, ids=[f[0] for f in FAULTS])
def test_fail_closed_turns_every_fault_into_the_host_block_with_a_reason(
    agent: str, fault: str, raw: bytes | None, judge: str | None
) -> None:
    run = run_hook(agent, raw=raw, judge=judge, ACP_FAIL_CLOSED="1")
    # The host's declared block signal (block_response), exit 2 where none is declared.
    assert run.code == BLOCK_EXIT[agent]
    assert run.stderr.strip()
    assert "ACP_FAIL_CLOSED=1" in run.stderr


@pytest.mark.parametrize("value", ["0", "false", " No ", "off"])
def test_the_false_spellings_of_fail_closed_keep_the_default_posture(value: str) -> None:
    run = run_hook("claude", judge="raises", ACP_FAIL_CLOSED=value)
    assert run.code == 0
    assert "not understood" not in run.stderr


@pytest.mark.parametrize("agent", AGENT_IDS)
@pytest.mark.parametrize(("fault", "judge"), CONFIG_FAULTS, ids=[f[0] for f in CONFIG_FAULTS])
def test_a_configuration_error_blocks_naming_the_fix(agent: str, fault: str, judge: str) -> None:
    run = run_hook(agent, judge=judge)
    assert _blocked(agent, run), run
    assert f"acp-{agent}-hook blocks every call until its configuration is fixed" in run.stderr
    assert f"hook_judges:{judge}" in run.stderr and "ACP_ON_CONFIG_ERROR=host" in run.stderr
    # Overridden: the host's failure posture, as for a runtime fault.
    run = run_hook(agent, judge=judge, ACP_ON_CONFIG_ERROR="host")
    assert run.code == FAILURE_EXIT[agent]
    assert run.stderr.startswith(f"acp-{agent}-hook: ")
    if agent not in FAILURE_DENIES:
        assert run.stdout == b""


@pytest.mark.parametrize("spec", ["hook_judges", "hook_judges:", ":raises", "no_such_module:judge"])
def test_unusable_acp_judge_blocks_naming_the_spec(spec: str) -> None:
    run = run_hook("amp", ACP_JUDGE=spec)
    assert run.code == BLOCK_EXIT["amp"]
    assert repr(spec) in run.stderr
    run = run_hook("amp", ACP_JUDGE=spec, ACP_ON_CONFIG_ERROR=" What ")
    assert run.code == BLOCK_EXIT["amp"]
    assert "ACP_ON_CONFIG_ERROR=' What ' is not one of block, host; blocking" in run.stderr


@pytest.mark.parametrize("agent", AGENT_IDS)
def test_invalid_decision_is_clamped_to_ask_not_treated_as_failure(agent: str) -> None:
    for fail_closed in ("", "1"):  # not a failure, so fail-closed changes nothing
        run = run_hook(agent, judge="returns_bad_decision", ACP_FAIL_CLOSED=fail_closed)
        if ASK_TIER[agent]:
            # The host asks its operator: Claude-compatible hosts by body at exit 0, amp by exit 1.
            assert run.code == (1 if agent == "amp" else 0)
            if agent in CLAUDE_BODIES:
                assert run.body()["hookSpecificOutput"]["permissionDecision"] == "ask"
        else:
            # No ask tier: render_escalated makes the vetoable ask a block (contract.md §6).
            assert run.code == BLOCK_EXIT[agent]
            assert "clamped" in run.stderr


@pytest.mark.parametrize("agent", AGENT_IDS)
def test_ask_is_asked_where_the_host_can_ask_and_blocked_elsewhere(agent: str) -> None:
    run = run_hook(agent, judge="asks")
    if ASK_TIER[agent]:
        assert run.code in (0, 1)
    else:
        assert run.code == BLOCK_EXIT[agent]
        assert run.stderr == "confirm please"


@pytest.mark.parametrize("judge", ["spins", "sleeps"])
@pytest.mark.parametrize("agent", AGENT_IDS)
def test_deadline_answers_with_the_failure_posture_while_the_judge_is_busy(
    agent: str, judge: str
) -> None:
    started = time.monotonic()
    # Uninstrumented: coverage's os._exit patch would hold the exit until the judge returns,
    # which is coverage's timing, not the hook's.
    run = run_hook(agent, judge=judge, ACP_HOOK_TIMEOUT_MS="300", **NO_COVERAGE)
    elapsed = time.monotonic() - started
    assert run.code == FAILURE_EXIT[agent]
    assert "ACP_HOOK_TIMEOUT_MS=300" in run.stderr
    # The judge needs 5 s; answering before it could finish is the behaviour under test.
    assert elapsed < 4, f"answered after {elapsed:.2f}s"


def test_deadline_under_fail_closed_blocks() -> None:
    run = run_hook("gemini", judge="spins", ACP_HOOK_TIMEOUT_MS="300", ACP_FAIL_CLOSED="1")
    assert run.code == 2
    assert "ACP_FAIL_CLOSED=1" in run.stderr


def test_deadline_counts_from_process_start() -> None:
    code = (
        "import time; time.sleep(0.3);"
        "from agent_control_plane_core.runtime import _process_age; print(_process_age())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert 0.25 <= float(out.stdout) < 30


@pytest.mark.parametrize("value", ["abc", "0", "-5", "1.5", ""])
def test_bad_timeout_value_is_reported_and_ignored(value: str) -> None:
    run = run_hook("claude", ACP_HOOK_TIMEOUT_MS=value or " ")
    assert run.code == 2  # the normal answer: the demo judge's deny
    assert "ACP_HOOK_TIMEOUT_MS" in run.stderr
    assert "demo policy: rm -rf blocked" in run.stderr


# Qwen Code has no rewrite channel (QW-2): its answer refuses the call instead.
@pytest.mark.parametrize("agent", ["claude", "codex", "gemini", "factory"])
def test_ten_megabyte_rewrite_body_arrives_whole_through_a_non_blocking_pipe(agent: str) -> None:
    read_end, write_end = os.pipe()
    flags = fcntl.fcntl(write_end, fcntl.F_GETFL)
    fcntl.fcntl(write_end, fcntl.F_SETFL, flags | os.O_NONBLOCK)
    process = subprocess.Popen(
        [str(BIN / f"acp-{agent}-hook")],
        stdin=subprocess.PIPE,
        stdout=write_end,
        stderr=subprocess.PIPE,
        env=hook_env(agent, "rewrites_huge"),
    )
    os.close(write_end)
    chunks: list[bytes] = []

    def drain() -> None:
        time.sleep(0.5)  # a slow reader: the pipe fills and the child meets EAGAIN
        while chunk := os.read(read_end, 1 << 16):
            chunks.append(chunk)

    reader = threading.Thread(target=drain)
    reader.start()
    assert process.stdin is not None
    process.stdin.write(json.dumps(PRE_TOOL[agent]).encode())
    process.stdin.close()
    code = process.wait(timeout=60)
    reader.join(timeout=60)
    os.close(read_end)
    body = b"".join(chunks)
    assert code == 0
    assert len(body) > HUGE
    assert ("x" * HUGE) in json.loads(body).__repr__()


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini", "factory", "qwen", "kiro"])
def test_payload_naming_no_event_still_blocks_by_exit_code(agent: str) -> None:
    payload = {k: v for k, v in PRE_TOOL[agent].items() if k != "hook_event_name"}
    # A judge that denies by itself: gemini reads no tool on an unnamed event (contract.md §5).
    run = run_hook(agent, payload, judge="denies")
    assert run.code == 2
    assert run.stdout == b""
    assert run.stderr == "denied by test"
    old = run_hook(agent, payload, judge="denies", ACP_CODEX_VERSION="0.100.0")
    # A Codex below its supported range is observe only: it cannot veto anything, named or not.
    assert old.code == (0 if agent == "codex" else 2)


def test_codex_without_a_version_blocks() -> None:
    # CX-9: a reasoned deny blocks on every supported Codex, so no version still enforces.
    run = run_hook("codex", ACP_CODEX_VERSION="")
    assert run.code == 2
    assert run.stderr


def test_codex_version_env_below_the_range_observes_only() -> None:
    run = run_hook("codex", ACP_CODEX_VERSION="0.171.0")
    assert run.code == 2
    old = run_hook("codex", ACP_CODEX_VERSION="0.100.0")
    assert old.code == 0
    assert "permissionDecision" in old.stdout.decode()


def test_amp_delegate_form_takes_the_tool_name_and_thread_from_env() -> None:
    run = run_hook(
        "amp",
        {"cmd": "rm -rf /"},
        judge="echo_session",
        AGENT_TOOL_NAME="Bash",
        AMP_THREAD_ID="T-9",
    )
    assert run.code == 2
    assert run.stderr == "session=T-9"
    demo = run_hook("amp", {"cmd": "rm -rf /"}, AGENT_TOOL_NAME="Bash")
    assert (demo.code, demo.stderr) == (2, "demo policy: rm -rf blocked")


def test_amp_envelope_form_without_env() -> None:
    run = run_hook("amp", {"tool": "Bash", "input": {"cmd": "ls"}})
    assert run.code == 0


def test_judge_output_on_stdout_does_not_corrupt_the_body() -> None:
    run = run_hook("claude", judge="prints_then_allows")
    assert run.code == 0
    assert run.body() == {"hookSpecificOutput": {"hookEventName": "PreToolUse"}}
    assert "judge chatter" in run.stderr


def test_acp_hook_command_takes_the_judge_from_the_command_line() -> None:
    run = run_hook(
        "gemini", argv=[str(BIN / "acp"), "hook", "gemini", "--judge", "hook_judges:denies"]
    )
    assert (run.code, run.stderr) == (2, "denied by test")
    broken = run_hook("gemini", argv=[str(BIN / "acp"), "hook", "gemini", "--judge", "nope"])
    # A judge that does not load is a configuration error: blocked, naming it (issue 26).
    assert broken.code == BLOCK_EXIT["gemini"] and "'nope'" in broken.stderr


@pytest.mark.parametrize(
    ("value", "explicit", "noted"),
    [("1", True, False), ("on", True, False), ("0", False, False), ("maybe", False, True)],
)
def test_acp_sole_gate_makes_an_allow_explicit(value: str, explicit: bool, noted: bool) -> None:
    # N18: the environment form of --sole-gate; a value it cannot read abstains and says so.
    payload = {**PRE_TOOL["claude"], "tool_input": {"command": "ls"}}
    run = run_hook("claude", payload, ACP_SOLE_GATE=value)
    assert run.code == 0
    body = run.body()["hookSpecificOutput"]
    assert body.get("permissionDecision") == ("allow" if explicit else None)
    assert ("ACP_SOLE_GATE='maybe' is not understood" in run.stderr) is noted
