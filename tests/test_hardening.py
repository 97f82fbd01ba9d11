"""Regression tests for the hook-entry findings of docs/findings.md (H, M, L and R): one named test
per finding, and the attacks that held (HELD-*), each asserting the safe outcome rather than a particular exit code."""

from __future__ import annotations

import fcntl
import json
import os
import resource
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest

from agent_control_plane_core import AGENT_IDS, adapter_for
from agent_control_plane_core.audit import summarize
from agent_control_plane_core.install import InstallError, plan_install
from agent_control_plane_core.runtime import entry_adapter, failure_response

from hook_judges import HUGE_REASON
from hook_runner import BIN, NO_COVERAGE, PRE_TOOL, TESTS_DIR, HookRun, hook_env, run_hook

ROOT = TESTS_DIR.parent
EXAMPLE = ROOT / "examples" / "policy.toml"
LS = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}}
RM = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "rm -rf /"}}
# Bounds that only separate a hang from an answer (the judges below sleep 30 s).
HANG = 15


def blocked(agent: str, run: HookRun) -> bool:
    """Whether the host does not run the call: the entry's own fail-closed answer, or a deny."""
    closed = failure_response(entry_adapter(agent, hook_env(agent)), "x", fail_closed=True)
    return run.code == closed.exit_code


def blocks(agent: str, code: int) -> bool:
    """Whether an exit code is the host's block (the entry's own fail-closed answer)."""
    return (
        code
        == failure_response(entry_adapter(agent, hook_env(agent)), "x", fail_closed=True).exit_code
    )


def ls_for(agent: str) -> Any:
    return json.loads(json.dumps(PRE_TOOL[agent]).replace("rm -rf /", "ls"))


def run_raw(
    argv: list[str], stdin: bytes, env: dict[str, str], **kwargs: Any
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(argv, input=stdin, env=env, timeout=HANG, check=False, **kwargs)


CLAUDE_HOOK = [str(BIN / "acp-claude-hook")]


def claude_env(judge: str | None = None, **extra: str) -> dict[str, str]:
    return hook_env("claude", judge, **extra)


# ---- H4: a blocking audit write never holds the answer --------------------------------------


@pytest.mark.parametrize("deadline", ["3000", None])
def test_h4_audit_log_fifo_without_reader_does_not_hold_the_answer(
    tmp_path: Path, deadline: str | None
) -> None:
    fifo = tmp_path / "a.fifo"
    os.mkfifo(fifo)
    extra = {"ACP_AUDIT_LOG": str(fifo)}
    if deadline:
        extra["ACP_HOOK_TIMEOUT_MS"] = deadline
    result = run_raw(CLAUDE_HOOK, json.dumps(RM).encode(), claude_env(**extra), capture_output=True)
    assert result.returncode == 2
    assert json.loads(result.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert b"not written" in result.stderr


@pytest.mark.parametrize("deadline", ["3000", None])
def test_h4_audit_log_locked_by_another_process_does_not_hold_the_answer(
    tmp_path: Path, deadline: str | None
) -> None:
    log = tmp_path / "a.jsonl"
    fd = os.open(log, os.O_WRONLY | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)  # a stuck hook holding the lock
    try:
        extra = {"ACP_AUDIT_LOG": str(log)}
        if deadline:
            extra["ACP_HOOK_TIMEOUT_MS"] = deadline
        run = subprocess.run(
            CLAUDE_HOOK,
            input=json.dumps(RM).encode(),
            env=claude_env(**extra),
            capture_output=True,
            timeout=HANG,
            check=False,
        )
    finally:
        os.close(fd)
    assert run.returncode == 2
    assert json.loads(run.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert b"not written" in run.stderr


# ---- M1 / M4: the judge never writes into the body, nor holds the host's pipes ---------------


@pytest.mark.parametrize(
    ("judge", "chatter", "answer"),
    [
        ("sys_echo_ask", "hi", "permissionDecision"),
        ("fd1_ask", "debug", "permissionDecision"),
        # A rewrite travels as a lone updatedInput on Claude Code (CC-2).
        ("child_rewrite", "child", "updatedInput"),
    ],
)
def test_m1_output_below_sys_stdout_never_reaches_the_body(
    judge: str, chatter: str, answer: str
) -> None:
    run = run_hook("claude", LS, judge=judge)
    body = run.body()  # the whole of stdout is the JSON body
    assert answer in body["hookSpecificOutput"]
    assert chatter in run.stderr


@pytest.mark.parametrize("judge", ["child_sleep", "bg_child_deny"])
def test_m4_a_child_the_judge_leaves_running_does_not_hold_the_host_pipes(judge: str) -> None:
    # capture_output reads both pipes to EOF, as Node's `close` event does; the child sleeps 30 s,
    # past the HANG bound, so a held pipe raises TimeoutExpired.
    env = claude_env(judge, ACP_FAIL_CLOSED="1", ACP_HOOK_TIMEOUT_MS="500")
    result = run_raw(CLAUDE_HOOK, json.dumps(LS).encode(), env, capture_output=True)
    assert result.returncode == 2


# ---- M3: a failed write still ends in the intended exit code ---------------------------------


@pytest.mark.parametrize(
    ("judge", "stdout", "stderr"),
    [
        ("denies", "pipe", "full"),
        ("denies", "pipe", "closed"),
        ("denies", "closed", "pipe"),
        ("denies", "full", "pipe"),
        ("raises", "pipe", "full"),
        ("close_fd1", "pipe", "pipe"),
        ("stderr_none", "pipe", "pipe"),
    ],
)
def test_m3_failed_writes_still_end_in_the_block(judge: str, stdout: str, stderr: str) -> None:
    def stream(kind: str) -> Any:
        return {"pipe": subprocess.PIPE, "full": open("/dev/full", "wb")}.get(kind)

    out, err = stream(stdout), stream(stderr)
    closing = [fd for fd, kind in ((1, stdout), (2, stderr)) if kind == "closed"]

    def close_fds() -> None:
        for fd in closing:
            os.close(fd)

    result = subprocess.run(
        CLAUDE_HOOK,
        input=json.dumps(LS).encode(),
        env=claude_env(judge, ACP_FAIL_CLOSED="1"),
        stdout=out,
        stderr=err,
        preexec_fn=close_fds,
        timeout=HANG,
        check=False,
    )
    assert result.returncode == 2
    if result.stderr:
        assert b"Traceback" not in result.stderr


def test_m3_a_reader_that_went_away_still_gets_the_block() -> None:
    shell = f"{CLAUDE_HOOK[0]} < /dev/stdin | true; echo ${{PIPESTATUS[0]}}"
    result = subprocess.run(
        ["bash", "-c", shell],
        input=json.dumps(LS).encode(),
        env=claude_env("denies", ACP_FAIL_CLOSED="1"),
        capture_output=True,
        timeout=HANG,
        check=False,
    )
    assert result.stdout.strip() == b"2"


# ---- M5 / L6 / L8: configuration values --------------------------------------------------


@pytest.mark.parametrize("value", ["true", "yes", "on", "TRUE", " 1", "1 ", "On"])
def test_m5_fail_closed_accepts_the_usual_spellings_of_true(value: str) -> None:
    run = run_hook("claude", LS, ACP_JUDGE="nope:x", ACP_FAIL_CLOSED=value)
    assert blocked("claude", run)
    assert "not understood" not in run.stderr


@pytest.mark.parametrize("value", ["01", "maybe", "enabled"])
def test_m5_a_fail_closed_value_not_understood_blocks_and_says_so(value: str) -> None:
    run = run_hook("claude", LS, ACP_JUDGE="nope:x", ACP_FAIL_CLOSED=value)
    assert blocked("claude", run)
    assert repr(value) in run.stderr and "not understood" in run.stderr


@pytest.mark.parametrize("name", ["ACP_POLICY", "ACP_JUDGE"])
def test_l6_a_set_but_empty_policy_or_judge_is_an_error_not_the_demo_judge(name: str) -> None:
    push = {**LS, "tool_input": {"command": "git push"}}
    env = {**claude_env(ACP_FAIL_CLOSED="1"), name: ""}
    result = run_raw(CLAUDE_HOOK, json.dumps(push).encode(), env, capture_output=True)
    assert result.returncode == 2
    assert f"{name} is set but empty".encode() in result.stderr


def test_l8_an_absurd_deadline_is_clamped_and_the_watchdog_does_not_die() -> None:
    run = run_hook(
        "claude",
        LS,
        judge="denies",
        ACP_HOOK_TIMEOUT_MS="99999999999999999999",
        ACP_FAIL_CLOSED="1",
    )
    assert blocked("claude", run)
    assert "Traceback" not in run.stderr and "OverflowError" not in run.stderr
    assert "more than a day" in run.stderr


# ---- M7 / M8 / M9 / L13: the audit log ---------------------------------------------------


def test_m7_a_symlinked_audit_log_is_refused_and_its_target_untouched(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep\n")
    link = tmp_path / "a.jsonl"
    link.symlink_to(victim)
    run = run_hook("claude", RM, ACP_AUDIT_LOG=str(link))
    assert blocked("claude", run)
    assert victim.read_text() == "keep\n"
    assert "not written" in run.stderr


def test_m7_a_dangling_audit_link_does_not_create_its_target(tmp_path: Path) -> None:
    link = tmp_path / "dangling.jsonl"
    link.symlink_to(tmp_path / "made.txt")
    run_hook("claude", RM, ACP_AUDIT_LOG=str(link))
    assert not (tmp_path / "made.txt").exists()


def test_m7_an_audit_log_others_can_read_or_another_user_owns_is_refused(tmp_path: Path) -> None:
    shared = tmp_path / "shared.jsonl"
    shared.write_text("")
    shared.chmod(0o666)
    run = run_hook("claude", RM, ACP_AUDIT_LOG=str(shared))
    assert shared.read_text() == "" and "chmod 600" in run.stderr
    if os.geteuid() == 0:
        foreign = tmp_path / "foreign.jsonl"
        foreign.write_text("")
        foreign.chmod(0o600)
        os.chown(foreign, 65534, 65534)
        run = run_hook("claude", RM, ACP_AUDIT_LOG=str(foreign))
        assert foreign.read_text() == "" and "another user" in run.stderr


def test_m8_a_torn_last_line_is_not_glued_to_the_next_record(tmp_path: Path) -> None:
    log = tmp_path / "a.jsonl"
    run_hook("claude", RM, ACP_AUDIT_LOG=str(log))
    with log.open("a") as handle:
        handle.write('{"time": "torn')  # a record cut short by a full disk
    run_hook("claude", RM, ACP_AUDIT_LOG=str(log))
    summary = summarize(log.read_text().splitlines())
    assert summary.startswith("2 call(s), 1 line(s) not audit records")


def test_m8_a_failed_append_leaves_no_torn_record(tmp_path: Path) -> None:
    log = tmp_path / "a.jsonl"

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))

    env = claude_env(ACP_AUDIT_LOG=str(log))
    for _ in range(3):
        run_raw(CLAUDE_HOOK, json.dumps(RM).encode(), env, preexec_fn=small_files)
    run_raw(CLAUDE_HOOK, json.dumps(RM).encode(), env)
    lines = log.read_text().splitlines()
    assert lines and all(json.loads(line) for line in lines)
    assert "not audit records" not in summarize(lines)


@pytest.mark.parametrize("agent", ["gemini", "codex"])
def test_m9_a_redaction_the_host_cannot_carry_is_still_what_the_log_stores(
    tmp_path: Path, agent: str
) -> None:
    key = "AKIAABCDEFGHIJKLMNOP"
    log = tmp_path / "s.jsonl"
    payload: dict[str, Any] = {
        "gemini": {
            "hook_event_name": "AfterTool",
            "tool_name": "run_shell_command",
            "tool_input": {"command": "env"},
            "tool_response": {"llmContent": key},
        },
        "codex": {
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "env"},
            "tool_response": key,
        },
    }[agent]
    run_hook(agent, payload, ACP_POLICY=str(EXAMPLE), ACP_AUDIT_LOG=str(log))
    text = log.read_text()
    assert text and key not in text


def test_l13_relative_audit_log_and_policy_never_resolve_in_the_project(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "policy.toml").write_text("rules = []\n")  # written by the agent
    env = claude_env(ACP_AUDIT_LOG="audit.jsonl", ACP_POLICY="policy.toml", ACP_FAIL_CLOSED="1")
    result = run_raw(CLAUDE_HOOK, json.dumps(RM).encode(), env, cwd=project, capture_output=True)
    assert not (project / "audit.jsonl").exists()
    assert result.returncode == 2 and b"is relative" in result.stderr


# ---- L1 / L2: JSON the host can parse ------------------------------------------------------


def test_l1_a_verdict_holding_nan_never_produces_an_invalid_body() -> None:
    run = run_hook("claude", LS, judge="nan_rewrite", ACP_FAIL_CLOSED="1")
    assert b"NaN" not in run.stdout
    assert blocked("claude", run) and "render failed" in run.stderr


def test_l1_the_bridge_answers_a_non_finite_number_with_an_error_line() -> None:
    result = subprocess.run(
        [str(BIN / "acp"), "bridge"],
        input=b'{"agent":"claude","native":{"x":1e400}}\n{"agent":"claude","native":{}}\n',
        capture_output=True,
        timeout=HANG,
        check=True,
    )
    first, second = (json.loads(line) for line in result.stdout.splitlines())
    assert b"Infinity" not in result.stdout
    assert "error" in first["event"] and "error" not in second["event"]


def test_l1_the_installer_refuses_a_number_it_cannot_write_back(tmp_path: Path) -> None:
    path = tmp_path / ".gemini/settings.json"
    path.parent.mkdir()
    path.write_text('{"ui":{"scale":1e400}}')
    with pytest.raises(InstallError, match="1e400"):
        plan_install("gemini", root=tmp_path, bin_dir=BIN)
    assert path.read_text() == '{"ui":{"scale":1e400}}'


def test_l2_a_json_reason_on_stderr_is_never_readable_as_the_decision() -> None:
    payload = {
        "hook_event_name": "BeforeTool",
        "tool_name": "run_shell_command",
        "tool_input": {"command": "ls"},
    }
    run = run_hook("gemini", payload, judge="json_reason")
    assert blocked("gemini", run)
    channel = run.stdout.decode().strip() or run.stderr.strip()
    try:
        parsed = json.loads(channel)
    except ValueError:
        parsed = None
    assert not (isinstance(parsed, dict) and parsed.get("decision") == "allow")


# ---- H2 / H3 / M10 / L3 / L4 / L5 / N2: the installer ---------------------------------------


def test_h2_amp_delegate_never_overrides_the_users_ask_rules(tmp_path: Path) -> None:
    path = tmp_path / ".amp/settings.json"
    path.parent.mkdir()
    ask = {"tool": "Bash", "action": "ask"}
    path.write_text(json.dumps({"amp.permissions": [ask, {"tool": "Read", "action": "allow"}]}))
    plan = plan_install("amp", root=tmp_path, bin_dir=BIN)
    plan.apply()
    rules = json.loads(path.read_text())["amp.permissions"]
    assert rules[0] == ask and rules[1]["action"] == "delegate"  # the user's ask still wins
    assert any("order" in note for note in plan.notes)


def test_h2_amp_refuses_a_delegate_that_a_catch_all_reject_would_hide(tmp_path: Path) -> None:
    path = tmp_path / ".amp/settings.json"
    path.parent.mkdir()
    text = json.dumps(
        {"amp.permissions": [{"tool": "Bash", "action": "ask"}, {"tool": "*", "action": "reject"}]}
    )
    path.write_text(text)
    with pytest.raises(InstallError, match="matches every tool"):
        plan_install("amp", root=tmp_path, bin_dir=BIN)
    assert path.read_text() == text


@pytest.mark.parametrize(
    "config",
    [
        "[hooks]\nPreToolUse = []\n",
        "hooks = { }\n",
        "hooks.PreToolUse = []\nmodel = 'x'\n",
        '[hooks]\nPreToolUse = [{ hooks = [{ type = "command", command = "theirs" }] }]\n',
        '[hooks]\nPreToolUse = [{ matcher = "Bash", hooks = [{ type = "command", command = "t" }] }]'
        '\n[[hooks.PostToolUse]]\n[[hooks.PostToolUse.hooks]]\ntype = "command"\ncommand = "u"\n',
    ],
)
def test_h3_codex_toml_hooks_in_any_form_merge_into_valid_toml_or_are_refused(
    tmp_path: Path, config: str
) -> None:
    path = tmp_path / ".codex/config.toml"
    path.parent.mkdir()
    path.write_text(config)
    before = tomllib.loads(config)
    try:
        plan_install("codex", scope="user", home=tmp_path, bin_dir=BIN).apply()
    except InstallError:
        assert path.read_text() == config  # refused untouched
        return
    after = tomllib.loads(path.read_text())
    commands = [h["command"] for g in after["hooks"]["PreToolUse"] for h in g["hooks"]]
    assert any("acp-codex-hook" in c for c in commands)
    for event, groups in before.get("hooks", {}).items():
        for group in groups:
            assert group in after["hooks"][event]  # nothing of the user's lost
    assert {k: v for k, v in after.items() if k != "hooks"} == {
        k: v for k, v in before.items() if k != "hooks"
    }


def test_m10_a_symlinked_config_is_written_through_the_link(tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    (dotfiles / "claude.json").write_text("{}")
    (tmp_path / ".claude").mkdir()
    link = tmp_path / ".claude/settings.json"
    link.symlink_to("../dotfiles/claude.json")
    plan_install("claude", scope="user", home=tmp_path, bin_dir=BIN).apply()
    assert link.is_symlink()
    assert "hooks" in json.loads((dotfiles / "claude.json").read_text())


def test_m10_a_read_only_config_is_refused(tmp_path: Path) -> None:
    path = tmp_path / ".claude/settings.json"
    path.parent.mkdir()
    path.write_text("{}")
    path.chmod(0o444)
    with pytest.raises(InstallError, match="read-only"):
        plan_install("claude", root=tmp_path, bin_dir=BIN)
    assert path.read_text() == "{}"


def test_l3_amp_reinstall_from_a_path_with_a_space_is_idempotent(tmp_path: Path) -> None:
    folder = tmp_path / "my venv's bin"
    folder.mkdir()
    (folder / "acp-amp-hook").write_text("")
    for _ in range(2):
        plan_install("amp", root=tmp_path, bin_dir=folder).apply()
    rules = json.loads((tmp_path / ".amp/settings.json").read_text())["amp.permissions"]
    assert [r["to"] for r in rules] == [str(folder / "acp-amp-hook")]


def test_l4_reinstall_keeps_keys_and_values_the_user_set_on_our_handler(tmp_path: Path) -> None:
    plan_install("claude", root=tmp_path, bin_dir=BIN).apply()
    path = tmp_path / ".claude/settings.json"
    settings = json.loads(path.read_text())
    for groups in settings["hooks"].values():
        groups[0]["hooks"][0].update(timeout=5, statusMessage="checking")
    path.write_text(json.dumps(settings))
    plan_install("claude", root=tmp_path, bin_dir=BIN, fail_closed=True).apply()
    handlers = [g[0]["hooks"][0] for g in json.loads(path.read_text())["hooks"].values()]
    assert all(h["statusMessage"] == "checking" and h["timeout"] == 5 for h in handlers)
    assert all("ACP_FAIL_CLOSED=1 " in h["command"] for h in handlers if "onFailure" in h)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"permissions":{"allow":["Bash(ls)"]},"permissions":{"deny":["x"]}}', "appears twice"),
        ('{"env":{"X":"\\ud800"}}', "surrogate"),
    ],
)
def test_l5_unusual_json_is_refused_in_one_line_never_half_kept(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / ".claude/settings.json"
    path.parent.mkdir()
    path.write_text(content)
    result = subprocess.run(
        [str(BIN / "acp"), "install", "claude", "--project", "--root", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=HANG,
        check=False,
    )
    assert result.returncode != 0 and message in result.stderr
    assert "Traceback" not in result.stderr and path.read_text() == content


def test_l5_a_new_config_gets_the_umask_mode(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        plan_install("claude", root=tmp_path, bin_dir=BIN).apply()
    finally:
        os.umask(old)
    assert (tmp_path / ".claude/settings.json").stat().st_mode & 0o777 == 0o644


def test_n2_install_checks_the_judge_and_policy_and_says_what_runs(tmp_path: Path) -> None:
    with pytest.raises(InstallError, match="cannot import"):
        plan_install("claude", root=tmp_path, bin_dir=BIN, judge="no_such_module_q:judge")
    missing = tmp_path / "missing.toml"
    with pytest.raises(InstallError, match="cannot read"):
        plan_install("claude", root=tmp_path, bin_dir=BIN, policy=str(missing))
    plan = plan_install("claude", root=tmp_path, bin_dir=BIN)
    assert any("demo judge" in note for note in plan.notes)
    assert not (tmp_path / ".claude").exists()


# ---- issue 17 "nothing dropped silently", GM-3, the Codex version note -----------------------


@pytest.mark.parametrize(
    "agent",
    # As the hook entry sees each host (run_hook configures the Codex version).
    [
        a
        for a in AGENT_IDS
        if "mutated_input" in entry_adapter(a, hook_env(a)).UNRENDERED_FIELDS["pre_tool"]
    ],
)
def test_a_rewrite_the_host_cannot_carry_denies_the_call_and_says_so(
    tmp_path: Path, agent: str
) -> None:
    log = tmp_path / "a.jsonl"
    extra = {"AGENT_TOOL_NAME": "Bash"} if agent == "amp" else {}
    run = run_hook(agent, ls_for(agent), judge="rewrites", ACP_AUDIT_LOG=str(log), **extra)
    event_vetoable = adapter_for(agent).parse(ls_for(agent)).this_call_vetoable
    if event_vetoable or agent == "amp":
        assert blocked(agent, run)
    assert "no channel for mutated_input" in run.stderr
    record = json.loads(log.read_text().splitlines()[-1])
    assert record["unrendered"] == ["mutated_input"]


def test_on_unrendered_note_lets_the_call_run_and_allow_is_silent() -> None:
    env = {"AGENT_TOOL_NAME": "Bash"}
    noted = run_hook("amp", ls_for("amp"), judge="rewrites", ACP_ON_UNRENDERED="note", **env)
    assert noted.code == 0 and "no channel for mutated_input" in noted.stderr
    quiet = run_hook("amp", ls_for("amp"), judge="rewrites", ACP_ON_UNRENDERED="allow", **env)
    assert quiet.code == 0 and "no channel" not in quiet.stderr


def test_a_misspelt_verdict_field_is_refused_by_name() -> None:
    run = run_hook("claude", LS, judge="typo_redact", ACP_FAIL_CLOSED="1")
    assert blocked("claude", run) and "'mutated_ouput'" in run.stderr


def test_install_on_unrendered_is_passed_to_the_hook(tmp_path: Path) -> None:
    plan_install("claude", root=tmp_path, bin_dir=BIN, on_unrendered="note").apply()
    text = (tmp_path / ".claude/settings.json").read_text()
    assert "ACP_ON_UNRENDERED=note " in text


def test_the_bridge_names_the_fields_the_host_cannot_carry() -> None:
    from agent_control_plane_core.cli import bridge_line

    line = {
        "agent": "kiro",
        "native": PRE_TOOL["kiro"],
        "verdict": {"decision": "allow", "mutated_input": {"command": "ls"}},
    }
    assert bridge_line(json.dumps(line))["unrendered"] == ["mutated_input"]


def test_codex_without_a_version_says_what_that_means_once() -> None:
    env = {k: v for k, v in hook_env("codex").items() if k != "ACP_CODEX_VERSION"}
    result = run_raw(
        [str(BIN / "acp-codex-hook")],
        json.dumps(PRE_TOOL["codex"]).encode(),
        env,
        capture_output=True,
    )
    assert result.stderr.count(b"no Codex version configured (ACP_CODEX_VERSION)") == 1


def test_gm3_the_demo_judge_under_github_sha_is_announced() -> None:
    run = run_hook("gemini", GITHUB_SHA="abc123")
    assert "demo judge" in run.stderr and "GITHUB_SHA" in run.stderr
    assert "demo judge" not in run_hook("gemini").stderr


def test_stdin_that_is_not_utf8_is_the_entrys_failure_not_an_event() -> None:
    raw = b'{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls \xff"}}'
    run = run_hook("claude", raw=raw, judge="asks", ACP_FAIL_CLOSED="1")
    assert blocked("claude", run) and "not UTF-8" in run.stderr


# ---- HELD-*: attacks that held, the safe outcome stays ----------------------------------------

HELD_INPUTS = {
    "bad JSON": b"{not json",
    "empty stdin": b"",
    "whitespace only": b"  \n\t ",
    "a JSON array": b"[1, 2]",
    "null": b"null",
    "nesting 100,000 deep": b"[" * 100_000,
    "tool_input nested 5,000 deep": (
        b'{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":'
        + b'{"a":' * 5000
        + b"1"
        + b"}" * 5000
        + b"}"
    ),
    "a 5,000-digit integer": b"1" * 5000,
    "a UTF-8 BOM": b"\xef\xbb\xbf" + json.dumps(LS).encode(),
    "UTF-16": json.dumps(LS).encode("utf-16"),
}


@pytest.mark.parametrize("raw", HELD_INPUTS.values(), ids=list(HELD_INPUTS))
def test_held_bad_input_under_fail_closed_does_not_run_the_call(raw: bytes) -> None:
    run = run_hook("claude", raw=raw, judge="raises", ACP_FAIL_CLOSED="1")
    assert blocked("claude", run)


def test_held_closed_stdin_under_fail_closed_does_not_run_the_call() -> None:
    result = subprocess.run(
        CLAUDE_HOOK,
        stdin=subprocess.DEVNULL,
        env=claude_env(ACP_FAIL_CLOSED="1"),
        capture_output=True,
        timeout=HANG,
        check=False,
        preexec_fn=lambda: os.close(0),
    )
    assert result.returncode == 2


def test_held_an_open_silent_stdin_is_answered_at_the_deadline() -> None:
    reader, writer = os.pipe()
    try:
        result = subprocess.run(
            CLAUDE_HOOK,
            stdin=reader,
            env=claude_env(ACP_FAIL_CLOSED="1", ACP_HOOK_TIMEOUT_MS="800"),
            capture_output=True,
            timeout=HANG,
            check=False,
        )
    finally:
        os.close(reader)
        os.close(writer)
    assert result.returncode == 2


HELD_JUDGES = [
    "exits",
    "exits_via_base_exception",
    "keyboard_interrupt",
    "generator_exit",
    "recurses",
    "unserialisable_deny",
    "unserialisable_allow",
    "thread_then_deny",
    "devnull_fd1_deny",
    "raising_mapping",
    "prints_5mb_then_denies",
    "sly_decision",
    "returns_list",
    "returns_nameless",
]


@pytest.mark.parametrize("judge", HELD_JUDGES)
def test_held_hostile_judges_under_fail_closed_do_not_run_the_call(judge: str) -> None:
    run = run_hook("claude", LS, judge=judge, ACP_FAIL_CLOSED="1")
    assert blocked("claude", run)


@pytest.mark.parametrize(
    "spec",
    [
        "judge_exits_at_import:judge",
        "judge_interrupts_at_import:judge",
        "no_such_module_z:judge",
        "hook_judges",
    ],
)
def test_held_judges_that_fail_to_load_do_not_run_the_call(spec: str) -> None:
    run = run_hook("claude", LS, ACP_JUDGE=spec, ACP_FAIL_CLOSED="1")
    assert blocked("claude", run)


def test_held_stdout_on_dev_full_with_a_raising_judge_still_blocks() -> None:
    with open("/dev/full", "wb") as full:
        result = subprocess.run(
            CLAUDE_HOOK,
            input=json.dumps(LS).encode(),
            env=claude_env("raises", ACP_FAIL_CLOSED="1"),
            stdout=full,
            stderr=subprocess.PIPE,
            timeout=HANG,
            check=False,
        )
    assert result.returncode == 2


@pytest.mark.parametrize("kind", ["missing", "directory", "invalid UTF-8", "empty", "fifo"])
def test_held_a_bad_policy_file_does_not_run_the_call(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "p.toml"
    if kind == "directory":
        path.mkdir()
    elif kind == "invalid UTF-8":
        path.write_bytes(b'x = "\xff"\n')
    elif kind == "empty":
        path.write_text("")
    elif kind == "fifo":
        os.mkfifo(path)
    run = run_hook(
        "claude", RM, ACP_POLICY=str(path), ACP_FAIL_CLOSED="1", ACP_HOOK_TIMEOUT_MS="800"
    )
    assert blocked("claude", run)


def test_held_an_empty_rule_list_is_a_real_allow(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text("rules = []\n")
    run = run_hook("claude", LS, ACP_POLICY=str(path), ACP_FAIL_CLOSED="1")
    assert run.code == 0 and not blocked("claude", run)


@pytest.mark.parametrize(
    "env", [{"PYTHONWARNINGS": "error"}, {"PYTHONIOENCODING": "ascii"}], ids=["warnings", "ascii"]
)
def test_held_interpreter_settings_keep_the_deny(env: dict[str, str]) -> None:
    run = run_hook("claude", LS, judge="non_ascii_output_deny", **env)
    assert blocked("claude", run)
    assert run.body()["hookSpecificOutput"]["permissionDecision"] == "deny"


@pytest.mark.parametrize("where", ["directory", "missing directory", "/dev/full"])
def test_held_audit_faults_that_fail_fast_never_change_the_answer(
    tmp_path: Path, where: str
) -> None:
    path = {
        "directory": str(tmp_path),
        "missing directory": str(tmp_path / "no" / "a.jsonl"),
        "/dev/full": "/dev/full",
    }[where]
    run = run_hook("claude", RM, ACP_AUDIT_LOG=path)
    assert blocked("claude", run) and "not written" in run.stderr


def test_held_audit_under_a_zero_file_size_limit_never_changes_the_answer(tmp_path: Path) -> None:
    log = tmp_path / "a.jsonl"
    result = run_raw(
        CLAUDE_HOOK,
        json.dumps(RM).encode(),
        claude_env(ACP_AUDIT_LOG=str(log)),
        capture_output=True,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0)),
    )
    assert result.returncode == 2 and b"not written" in result.stderr


@pytest.mark.parametrize("umask", [0o022, 0o000])
def test_held_a_new_audit_log_is_owner_only(tmp_path: Path, umask: int) -> None:
    log = tmp_path / "a.jsonl"
    run_raw(
        CLAUDE_HOOK,
        json.dumps(RM).encode(),
        claude_env(ACP_AUDIT_LOG=str(log)),
        preexec_fn=lambda: os.umask(umask),
    )
    assert log.stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("judge", ["sleeps", "spins"])
def test_held_deadline_answers_a_slow_judge(judge: str) -> None:
    run = run_hook("claude", LS, judge=judge, ACP_FAIL_CLOSED="1", ACP_HOOK_TIMEOUT_MS="500")
    assert blocked("claude", run)


def test_held_a_one_millisecond_deadline_still_answers() -> None:
    run = run_hook("claude", LS, judge="sleeps", ACP_FAIL_CLOSED="1", ACP_HOOK_TIMEOUT_MS="1")
    assert blocked("claude", run)


# Policy matching with examples/policy.toml on every host's native shell payload (HELD-POLICY).
HELD_BLOCKED = [
    "rm -rf /",
    "rm -fr /",
    "rm -Rf /",
    "rm -rfv /",
    "/bin/rm -rf /",
    "\\rm -rf /",
    "command rm -rf /",
    "sudo rm -rf /",
    "rm\t-rf /",
    "echo ok\nrm -rf /",
    "echo / | xargs rm -rf",
]


def _policy_verdict(agent: str, command: str) -> tuple[Any, Any]:
    from agent_control_plane_core.policy import load_policy_judge
    from agent_control_plane_core.runtime import render_escalated

    environ = {"ACP_CODEX_VERSION": "0.150.0", "AGENT_TOOL_NAME": "Bash"}
    adapter = entry_adapter(agent, environ)
    payload = json.loads(json.dumps(PRE_TOOL[agent]).replace('"rm -rf /"', json.dumps(command)))
    if agent == "copilot":  # toolArgs is a JSON string: the replace above cannot reach into it
        payload["toolArgs"] = json.dumps({"command": command})
    if agent == "amp":
        payload = adapter.hook_payload(payload["input"], environ)
    event = adapter.parse(payload)
    verdict = load_policy_judge(str(EXAMPLE))(event)
    return verdict, render_escalated(adapter, verdict, event)


@pytest.mark.parametrize("agent", AGENT_IDS)
@pytest.mark.parametrize("command", HELD_BLOCKED)
def test_held_example_policy_blocks_the_rm_forms_on_every_host(agent: str, command: str) -> None:
    verdict, response = _policy_verdict(agent, command)
    assert verdict.decision == "deny" and response.enforced


@pytest.mark.parametrize("agent", AGENT_IDS)
@pytest.mark.parametrize("command", ["git push origin main", "git\tpush"])
def test_held_example_policy_asks_before_git_push_on_every_host(agent: str, command: str) -> None:
    verdict, response = _policy_verdict(agent, command)
    assert verdict.decision == "ask"
    # Where the host has no ask tier, the ask is a block: the push never runs unconfirmed.
    assert adapter_for(agent).NATIVE_ASK_TIER or response.enforced


@pytest.mark.parametrize("command", ["rm -r ./build", "grep -rf patterns.txt . ; rm x"])
def test_held_hardened_regex_keeps_allowing_the_safe_commands(tmp_path: Path, command: str) -> None:
    path = tmp_path / "hardened.toml"
    path.write_text(
        'rules = [{ name = "rm-hardened", tools = ["Bash"], match = '
        "'(?is)\\brm\\b(?=.*\\s(?:-\\w*r|--recursive))(?=.*\\s(?:-\\w*f|--force))', "
        'decision = "deny" }]\n'
    )
    payload = {**LS, "tool_input": {"command": command}}
    run = run_hook("claude", payload, ACP_POLICY=str(path))
    assert run.code == 0 and not blocked("claude", run)


@pytest.mark.parametrize(
    "command",
    [
        "rm -r -f /",
        "rm --recursive --force /",
        "rm / -rf",
        "RM -rf /",
        '"rm" -rf /',
        "$(echo rm) -rf /",
        "rm -rf \\\n/",
    ],
)
def test_held_hardened_regex_blocks_the_forms_it_covers(tmp_path: Path, command: str) -> None:
    path = tmp_path / "hardened.toml"
    path.write_text(
        'rules = [{ name = "rm-hardened", tools = ["Bash"], match = '
        "'(?is)\\brm\\b(?=.*\\s(?:-\\w*r|--recursive))(?=.*\\s(?:-\\w*f|--force))', "
        'decision = "deny" }]\n'
    )
    run = run_hook("claude", {**LS, "tool_input": {"command": command}}, ACP_POLICY=str(path))
    assert blocked("claude", run)


def test_held_claude_post_tool_redaction_keeps_the_key_out_of_the_log(tmp_path: Path) -> None:
    key = "AKIAABCDEFGHIJKLMNOP"
    log = tmp_path / "a.jsonl"
    payload = {
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "env"},
        "tool_response": {"stdout": key, "stderr": "", "interrupted": False, "isImage": False},
    }
    run_hook("claude", payload, ACP_POLICY=str(EXAMPLE), ACP_AUDIT_LOG=str(log))
    assert log.read_text() and key not in log.read_text()


def test_held_the_hook_command_runs_from_a_bin_dir_with_shell_characters(tmp_path: Path) -> None:
    folder = tmp_path / 'b $HOME `x` "q" ;'
    folder.mkdir()
    for name in ("acp-claude-hook", "acp"):
        (folder / name).symlink_to(BIN / name)
    plan_install("claude", root=tmp_path, bin_dir=folder, fail_closed=True).apply()
    settings = json.loads((tmp_path / ".claude/settings.json").read_text())
    command = settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    result = subprocess.run(
        ["sh", "-c", command],
        input=json.dumps(RM).encode(),
        env=claude_env(),
        capture_output=True,
        timeout=HANG,
        check=False,
    )
    assert result.returncode == 2
    again = plan_install("claude", root=tmp_path, bin_dir=folder, fail_closed=True)
    assert not again.changed


def test_held_refused_configs_stay_untouched(tmp_path: Path) -> None:
    path = tmp_path / ".claude/settings.json"
    path.parent.mkdir()
    for content in ("{broken", '{"a": 1,}', "[1]", '{"hooks": []}', "\ufeff{}"):
        path.write_text(content)
        with pytest.raises(InstallError):
            plan_install("claude", root=tmp_path, bin_dir=BIN)
        assert path.read_text() == content


def test_held_gemini_settings_numbers_are_preserved(tmp_path: Path) -> None:
    path = tmp_path / ".gemini/settings.json"
    path.parent.mkdir()
    path.write_text('{"a": 12345678901234567890123, "b": 0.30000000000000004, "c": -0.0}')
    plan_install("gemini", root=tmp_path, bin_dir=BIN).apply()
    text = path.read_text()
    assert "12345678901234567890123" in text and "0.30000000000000004" in text and "-0.0" in text


def test_held_the_bridge_answers_hostile_lines_in_order() -> None:
    lines = [
        b"[" * 100_000,
        b"\xff\xfe",
        b"\x00",
        b"[1]",
        b"",
        b'{"agent":"claude","native":{}}\r',
        b'{"agent":"claude","native":{"a":"\\ud800"}}',
    ]
    result = subprocess.run(
        [str(BIN / "acp"), "bridge"],
        input=b"\n".join(lines),  # the last line has no newline
        capture_output=True,
        timeout=HANG,
        check=True,
    )
    assert len(result.stdout.splitlines()) == len(lines)
    for answer in result.stdout.splitlines():
        assert set(json.loads(answer)) == {"event", "render", "escalated", "unrendered"}


@pytest.mark.parametrize("kind", ["invalid UTF-8", "fifo"])
def test_l10_policy_check_reports_a_bad_file_in_one_line_and_never_hangs(
    tmp_path: Path, kind: str
) -> None:
    path = tmp_path / "p.toml"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.write_bytes(b'x = "\xff"\n')
    result = subprocess.run(
        [str(BIN / "acp"), "policy", "check", str(path)],
        capture_output=True,
        text=True,
        timeout=HANG,
        check=False,
    )
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_r6_a_policy_fifo_is_refused_even_without_a_deadline(tmp_path: Path) -> None:
    path = tmp_path / "f.toml"
    os.mkfifo(path)
    env = claude_env(ACP_POLICY=str(path), ACP_FAIL_CLOSED="1")
    result = run_raw(CLAUDE_HOOK, json.dumps(LS).encode(), env, capture_output=True)
    assert result.returncode == 2 and b"not a regular file" in result.stderr


# ---- H1 / M6 / M2 / L7 / L9 / L11 / L12: policy matching ------------------------------------


def _policy_file(tmp_path: Path, rule: str) -> str:
    path = tmp_path / "p.toml"
    path.write_text(f"rules = [{rule}]\n")
    return str(path)


HARDENED_RULE = (
    '{ name = "rm-hardened", tools = ["Bash"], match = '
    "'(?is)\\brm\\b(?=.*\\s(?:-\\w*r|--recursive))(?=.*\\s(?:-\\w*f|--force))', "
    'decision = "deny" }'
)
PUSH_ANY_RULE = '{ name = "push-any", match = \'\\bgit\\s+push\\b\', decision = "ask" }'
PAD = "#" + "A" * 70_000 + "\n"  # a padding comment line past the 64 KiB scan limit


@pytest.mark.parametrize(
    ("rule", "command", "decision"),
    [(HARDENED_RULE, "rm -rf /", "deny"), (PUSH_ANY_RULE, "git push", "ask")],
    ids=["deny", "ask"],
)
def test_h1_a_regex_rule_never_lets_the_tail_past_the_scan_limit_through(
    tmp_path: Path, rule: str, command: str, decision: str
) -> None:
    payload = {**LS, "tool_input": {"command": PAD + command}}
    run = run_hook("claude", payload, ACP_POLICY=_policy_file(tmp_path, rule))
    answer = run.body()["hookSpecificOutput"]
    assert answer["permissionDecision"] == decision
    # The diagnostic names the rule and the length of the text it could not search whole.
    size = len((PAD + command).encode())
    assert "rules[0]" in answer["permissionDecisionReason"]
    assert f"{size}-byte" in answer["permissionDecisionReason"]


@pytest.mark.parametrize("agent", AGENT_IDS)
@pytest.mark.parametrize(
    ("command", "decision"),
    [
        (PAD + "rm -rf /", "deny"),  # PF-16
        (": " + "é" * 33_000 + "; rm -rf /", "deny"),  # form 17
        ("true '" + "A" * 70_000 + "' && rm -rf /", "deny"),  # form 18
        (PAD + "git push", "ask"),  # form 28
    ],
    ids=["form16", "form17", "form18", "form28"],
)
def test_h1_example_policy_decides_past_64_kib_on_every_host(
    agent: str, command: str, decision: str
) -> None:
    verdict, _response = _policy_verdict(agent, command)
    assert verdict.decision == decision


# PF-n forms the naive example rules let through (PF-19 is Codex's argv; PF-16 to PF-18, PF-28: H1).
M6_FORMS = {
    "rm -r -f /": "deny",
    "rm -f -r /": "deny",
    "rm --recursive --force /": "deny",
    "rm -r --force /": "deny",
    "rm -v -rf /": "deny",
    "rm / -rf": "deny",
    "r''m -rf /": "deny",
    '"rm" -rf /': "deny",
    "'rm' -rf /": "deny",
    "$(echo rm) -rf /": "deny",
    "`echo rm` -rf /": "deny",
    "x=rm; $x -rf /": "deny",
    "rm${IFS}-rf /": "deny",
    "rm \\\n-rf /": "deny",
    "RM -rf /": "deny",
    "rm -r''f /": "deny",
    "r\\m -rf /": "deny",
    "rm -R -f /": "deny",
    "nice rm -r -f /": "deny",
    "sh -c 'rm -r -f /'": "deny",
    "git -C /repo push": "ask",
    "git --no-pager push": "ask",
    "git -c push.default=current push": "ask",
    "git pu''sh": "ask",
    'git "push"': "ask",
}


@pytest.mark.parametrize("agent", AGENT_IDS)
@pytest.mark.parametrize(("command", "decision"), M6_FORMS.items(), ids=list(M6_FORMS))
def test_m6_example_policy_catches_every_section_2_2_form_on_every_host(
    agent: str, command: str, decision: str
) -> None:
    verdict, response = _policy_verdict(agent, command)
    assert verdict.decision == decision
    # Where the host has no ask tier the ask is a block; a deny is a block everywhere.
    assert response.enforced or (decision == "ask" and adapter_for(agent).NATIVE_ASK_TIER)


def test_m6_codex_argv_form_is_split_like_the_string() -> None:
    from agent_control_plane_core.policy import load_policy_judge

    adapter = entry_adapter("codex", {"ACP_CODEX_VERSION": "0.150.0"})
    payload = {**PRE_TOOL["codex"], "tool_input": {"command": ["rm", "-r", "-f", "/"]}}
    assert load_policy_judge(str(EXAMPLE))(adapter.parse(payload)).decision == "deny"


@pytest.mark.parametrize(("command", "answer"), [("rm -r -f /", "deny"), ("git -C /r push", "ask")])
def test_m6_the_hook_entry_with_the_example_policy_blocks_or_asks(
    command: str, answer: str
) -> None:
    run = run_hook("claude", {**LS, "tool_input": {"command": command}}, ACP_POLICY=str(EXAMPLE))
    assert run.body()["hookSpecificOutput"]["permissionDecision"] == answer


FILES_RULE = (
    '{ name = "protect-env", tools = ["Write", "Edit", "Read"], match = '
    "'\\.env\\b', decision = \"deny\" }"
)


def test_m2_a_qwen_subagent_file_call_meets_the_canonical_tools_rule(tmp_path: Path) -> None:
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": "read_file",
        "tool_input": {"file_path": ".env"},
        "agent_type": "Explorer",
    }
    run = run_hook("qwen", payload, ACP_POLICY=_policy_file(tmp_path, FILES_RULE))
    assert blocked("qwen", run)


@pytest.mark.parametrize(
    ("agent", "payload"),
    [
        (
            "factory",
            {
                "hook_event_name": "PreToolUse",
                "tool_name": "Execute",
                "tool_input": {"command": "rm -rf /"},
                "agent_type": "worker",
                "agent_id": "a1",
            },
        ),
        (
            "kiro",
            {
                "hook_event_name": "preToolUse",
                "cwd": "/w",
                "tool_name": "execute_bash",
                "tool_input": {"command": "rm -rf /"},
                "agent_type": "worker",
                "agent_id": "a1",
            },
        ),
    ],
)
def test_m2_subagent_shell_calls_get_the_rules_decision(agent: str, payload: Any) -> None:
    from agent_control_plane_core.policy import load_policy_judge

    event = adapter_for(agent).parse(payload)
    assert event.tool == "Bash"  # the alias applies on every call class
    assert load_policy_judge(str(EXAMPLE))(event).decision == "deny"


def test_l7_a_catastrophic_policy_regex_is_answered_at_the_deadline(tmp_path: Path) -> None:
    rule = '{ name = "redos", tools = ["Bash"], match = \'^(a+)+$\', decision = "deny" }'
    payload = {**LS, "tool_input": {"command": "a" * 35 + "b"}}
    # A deadline well past the policy's load, so the regex is running when it passes; without
    # an answer the regex runs for hours and the HANG bound raises TimeoutExpired.
    env = claude_env(
        ACP_POLICY=_policy_file(tmp_path, rule), ACP_FAIL_CLOSED="1", ACP_HOOK_TIMEOUT_MS="3000"
    )
    result = run_raw(CLAUDE_HOOK, json.dumps(payload).encode(), env, capture_output=True)
    assert blocks("claude", result.returncode) and b"no answer within" in result.stderr


def test_l7_policy_check_refuses_a_regex_with_nested_unbounded_repeats(tmp_path: Path) -> None:
    rule = '{ name = "redos", tools = ["Bash"], match = \'^(a+)+$\', decision = "deny" }'
    result = subprocess.run(
        [str(BIN / "acp"), "policy", "check", _policy_file(tmp_path, rule)],
        capture_output=True,
        text=True,
        timeout=HANG,
        check=False,
    )
    assert result.returncode == 1
    assert "rules[0] ('redos'), field match" in result.stderr and "exponential" in result.stderr


@pytest.mark.parametrize(
    ("pattern", "runaway"),
    [
        (r"^(a+)+$", True),
        (r"(\w*\s?)*", True),
        (r"(?:x+){1,50}", True),
        (r"(a++)+", False),  # possessive: nothing backtracks into it
        (r"(?>a+)+", False),  # atomic group
        (r"\bgit\s+push\b", False),
        (r"(?:x+){1,3}", False),
    ],
)
def test_l7_the_nested_repeat_check(pattern: str, runaway: bool) -> None:
    from agent_control_plane_core.policy import _nests_repeats

    assert _nests_repeats(pattern) is runaway


def test_r4_a_judge_stuck_in_a_catastrophic_regex_is_answered_at_the_deadline() -> None:
    env = claude_env("redos_then_allow", ACP_FAIL_CLOSED="1", ACP_HOOK_TIMEOUT_MS="3000")
    result = run_raw(CLAUDE_HOOK, json.dumps(LS).encode(), env, capture_output=True)
    assert blocks("claude", result.returncode)


@pytest.mark.parametrize(("command", "answer"), [("git push", "ask"), ("rm -rf /", "deny")])
def test_l9_claude_powershell_meets_the_bash_rules(command: str, answer: str) -> None:
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": "PowerShell",
        "tool_input": {"command": command},
    }
    run = run_hook("claude", payload, ACP_POLICY=str(EXAMPLE))
    assert run.body()["hookSpecificOutput"]["permissionDecision"] == answer


def test_l9_policy_check_flags_a_tools_glob_that_selects_only_a_native_alias(
    tmp_path: Path,
) -> None:
    rule = '{ name = "lower", tools = ["bash"], match = \'rm -rf\', decision = "deny" }'
    result = subprocess.run(
        [str(BIN / "acp"), "policy", "check", _policy_file(tmp_path, rule)],
        capture_output=True,
        text=True,
        timeout=HANG,
        check=False,
    )
    assert result.returncode == 1 and "write 'Bash'" in result.stderr


# L9: the hosts' own write, edit and read tools, each with a .env path.
L9_FILE_CALLS = {
    "gemini replace": (
        "gemini",
        {
            "hook_event_name": "BeforeTool",
            "tool_name": "replace",
            "tool_input": {"file_path": ".env", "old_string": "a", "new_string": "b"},
        },
    ),
    "amp create_file": ("amp", {"tool": "create_file", "input": {"path": ".env", "content": "x"}}),
    "amp edit_file": ("amp", {"tool": "edit_file", "input": {"path": ".env", "old_str": "a"}}),
    "kiro fs_write": (
        "kiro",
        {
            "hook_event_name": "preToolUse",
            "cwd": "/w",
            "tool_name": "fs_write",
            "tool_input": {"command": "create", "path": "/w/.env", "file_text": "x"},
        },
    ),
    "kiro fs_read": (
        "kiro",
        {
            "hook_event_name": "preToolUse",
            "cwd": "/w",
            "tool_name": "fs_read",
            "tool_input": {"operations": [{"mode": "Line", "path": "/w/.env"}]},
        },
    ),
    "codex apply_patch": (
        "codex",
        {
            "hook_event_name": "PreToolUse",
            "tool_name": "apply_patch",
            "tool_input": {"command": "*** Begin Patch\n*** Update File: .env\n@@\n-a\n+b\n"},
        },
    ),
}


@pytest.mark.parametrize(("agent", "payload"), L9_FILE_CALLS.values(), ids=list(L9_FILE_CALLS))
def test_l9_file_rules_cover_each_hosts_own_file_tools(
    tmp_path: Path, agent: str, payload: Any
) -> None:
    from agent_control_plane_core.policy import load_policy_judge

    event = entry_adapter(agent, {"ACP_CODEX_VERSION": "0.150.0"}).parse(payload)
    judge = load_policy_judge(_policy_file(tmp_path, FILES_RULE))
    assert judge(event).decision == "deny"


@pytest.mark.parametrize("line", ["rm\t-rf /", "x\nrm -rf /"], ids=["tab", "second line"])
def test_l11_an_object_field_is_matched_in_its_decoded_strings(tmp_path: Path, line: str) -> None:
    rule = (
        '{ name = "nested", tools = ["mcp__shell__*"], field = "args", '
        "match = '\\brm\\s+-rf', decision = \"deny\" }"
    )
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": "mcp__shell__exec",
        "tool_input": {"args": {"line": line}},
    }
    run = run_hook("claude", payload, ACP_POLICY=_policy_file(tmp_path, rule))
    assert blocked("claude", run)


@pytest.mark.parametrize(
    "tool_args",
    ['{"command": "rm -rf /"', json.dumps(json.dumps({"command": "rm -rf /"}))],
    ids=["invalid", "double-encoded"],
)
def test_l12_copilot_tool_args_that_do_not_decode_are_a_failure_not_an_empty_call(
    tool_args: str,
) -> None:
    payload = {"toolName": "bash", "toolArgs": tool_args}
    for closed in ("", "1"):
        # Copilot's own failure answer is its deny body, so the call is blocked either way.
        run = run_hook("copilot", payload, ACP_POLICY=str(EXAMPLE), ACP_FAIL_CLOSED=closed)
        assert run.body()["permissionDecision"] == "deny"
        assert "toolArgs is not a JSON object" in run.stderr


def test_l12_cursor_tool_input_that_does_not_decode_is_a_failure() -> None:
    payload = {"hook_event_name": "preToolUse", "tool_name": "Shell", "tool_input": '{"command"'}
    run = run_hook("cursor", payload, ACP_POLICY=str(EXAMPLE), ACP_FAIL_CLOSED="1")
    assert blocked("cursor", run) and "tool_input is not a JSON object" in run.stderr


def test_l12_amp_delegate_without_a_tool_name_is_a_failure_not_an_allow() -> None:
    amp = adapter_for("amp")
    # Never Amp's allow (0): its failure answer (the operator is asked), or its block.
    for closed in ("", "1"):
        env = {**hook_env("amp", ACP_POLICY=str(EXAMPLE)), "AGENT_TOOL_NAME": ""}
        if closed:
            env["ACP_FAIL_CLOSED"] = closed
        result = run_raw(
            [str(BIN / "acp-amp-hook")], b'{"cmd": "rm -rf /"}', env, capture_output=True
        )
        if closed:
            assert blocks("amp", result.returncode)
        else:
            assert result.returncode == amp.FAILURE_EXIT_CODE != 0
        assert b"names no tool" in result.stderr


def test_l12_amp_envelope_subagent_call_is_renamed_and_decided() -> None:
    payload = {"tool": "Bash", "input": {"cmd": "rm -rf /"}, "agent_type": "oracle"}
    run = run_hook("amp", payload, ACP_POLICY=str(EXAMPLE))
    assert blocked("amp", run)


# ---- HELD-POLICY: payload shapes, MCP and file rules ------------------------------------------


def _decide(agent: str, payload: Any, policy: str, environ: dict[str, str] | None = None) -> Any:
    """The policy's verdict on a native payload, and the host's escalated answer to it."""
    from agent_control_plane_core.policy import load_policy_judge
    from agent_control_plane_core.runtime import render_escalated

    env = {"ACP_CODEX_VERSION": "0.150.0", **(environ or {})}
    adapter = entry_adapter(agent, env)
    event = adapter.parse(adapter.hook_payload(payload, env))
    verdict = load_policy_judge(policy)(event)
    return event, verdict, render_escalated(adapter, verdict, event)


RM_INPUT = {"command": "rm -rf /"}
HELD_SHAPES = {
    "qwen subagent run_shell_command": (
        "qwen",
        {
            "hook_event_name": "PreToolUse",
            "tool_name": "run_shell_command",
            "tool_input": RM_INPUT,
            "agent_type": "Explorer",
        },
        {},
    ),
    "amp delegate cmd": ("amp", {"cmd": "rm -rf /"}, {"AGENT_TOOL_NAME": "Bash"}),
    "cursor preToolUse tool_input as a JSON string": (
        "cursor",
        {"hook_event_name": "preToolUse", "tool_name": "Shell", "tool_input": json.dumps(RM_INPUT)},
        {},
    ),
    "cursor beforeShellExecution flat command": (
        "cursor",
        {"hook_event_name": "beforeShellExecution", "command": "rm -rf /", "cwd": "/w"},
        {},
    ),
    "copilot PascalCase tool_input as a JSON string": (
        "copilot",
        {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": json.dumps(RM_INPUT)},
        {},
    ),
    "copilot toolArgs as an object": ("copilot", {"toolName": "bash", "toolArgs": RM_INPUT}, {}),
    "codex argv": (
        "codex",
        {
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": ["bash", "-lc", "rm -rf /"]},
        },
        {},
    ),
    "codex PermissionRequest": (
        "codex",
        {"hook_event_name": "PermissionRequest", "tool_name": "Bash", "tool_input": RM_INPUT},
        {},
    ),
}


@pytest.mark.parametrize(
    ("agent", "payload", "environ"), HELD_SHAPES.values(), ids=list(HELD_SHAPES)
)
def test_held_payload_shapes_still_decide(agent: str, payload: Any, environ: Any) -> None:
    event, verdict, response = _decide(agent, payload, str(EXAMPLE), environ)
    assert verdict.decision == "deny" and event.this_call_vetoable and response.enforced


def test_held_claude_powershell_with_a_field_rule_and_no_tools_asks(tmp_path: Path) -> None:
    rule = (
        '{ name = "push-cmd", field = "command", match = \'\\bgit\\s+push\\b\', decision = "ask" }'
    )
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": "PowerShell",
        "tool_input": {"command": "git push"},
    }
    _event, verdict, _response = _decide("claude", payload, _policy_file(tmp_path, rule))
    assert verdict.decision == "ask"


HELD_MCP = {
    "claude": {
        "hook_event_name": "PreToolUse",
        "tool_name": "mcp__github__create_issue",
        "tool_input": {"title": "x"},
    },
    "gemini": {
        "hook_event_name": "BeforeTool",
        "tool_name": "mcp_github_create_issue",
        "tool_input": {"title": "x"},
    },
    "codex": {
        "hook_event_name": "PreToolUse",
        "tool_name": "mcp__github__create_issue",
        "tool_input": {"title": "x"},
    },
    "kiro": {
        "hook_event_name": "preToolUse",
        "cwd": "/w",
        "tool_name": "@github/create_issue",
        "tool_input": {"title": "x"},
    },
}


@pytest.mark.parametrize(("agent", "payload"), HELD_MCP.items(), ids=list(HELD_MCP))
def test_held_an_mcp_server_rule_denies_that_servers_calls(
    tmp_path: Path, agent: str, payload: Any
) -> None:
    rule = '{ name = "no-github-mcp", tools = ["mcp__github__*"], decision = "deny" }'
    event, verdict, response = _decide(agent, payload, _policy_file(tmp_path, rule))
    assert verdict.decision == "deny"
    # Blocked wherever the host's declaration makes the call vetoable (advisory elsewhere).
    assert response.enforced == event.this_call_vetoable


def test_held_a_lowercase_bash_rule_matches_copilots_native_bash(tmp_path: Path) -> None:
    rule = '{ name = "lower", tools = ["bash"], match = \'rm -rf\', decision = "deny" }'
    _event, verdict, response = _decide(
        "copilot", PRE_TOOL["copilot"], _policy_file(tmp_path, rule)
    )
    assert verdict.decision == "deny" and response.enforced


ENV_FILE = {"file_path": ".env"}
HELD_FILES = {
    "claude Write": (
        "claude",
        {"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_input": ENV_FILE},
        {},
    ),
    "claude subagent Read": (
        "claude",
        {
            "hook_event_name": "PreToolUse",
            "tool_name": "Read",
            "tool_input": ENV_FILE,
            "agent_type": "Explore",
            "agent_id": "a1",
        },
        {},
    ),
    "qwen read_file": (
        "qwen",
        {"hook_event_name": "PreToolUse", "tool_name": "read_file", "tool_input": ENV_FILE},
        {},
    ),
    "gemini write_file": (
        "gemini",
        {"hook_event_name": "BeforeTool", "tool_name": "write_file", "tool_input": ENV_FILE},
        {},
    ),
    "amp delegate Read": ("amp", {"path": ".env"}, {"AGENT_TOOL_NAME": "Read"}),
    "cursor beforeReadFile": (
        "cursor",
        {"hook_event_name": "beforeReadFile", "file_path": ".env", "content": "K=v"},
        {},
    ),
    "cursor preToolUse Write": (
        "cursor",
        {"hook_event_name": "preToolUse", "tool_name": "Write", "tool_input": ENV_FILE},
        {},
    ),
}


@pytest.mark.parametrize(("agent", "payload", "environ"), HELD_FILES.values(), ids=list(HELD_FILES))
def test_held_a_file_rule_blocks_each_hosts_file_call(
    tmp_path: Path, agent: str, payload: Any, environ: Any
) -> None:
    event, verdict, response = _decide(agent, payload, _policy_file(tmp_path, FILES_RULE), environ)
    assert verdict.decision == "deny" and event.this_call_vetoable and response.enforced


@pytest.mark.parametrize(
    "command",
    ["rm \u2212rf /", "\uff52\uff4d -rf /", "r\u200bm -rf /"],
    ids=["minus sign", "fullwidth rm", "zero-width space"],
)
def test_r11_unicode_lookalikes_are_not_read_as_rm(command: str) -> None:
    # None of these runs rm with -rf (bash sees another word or a file name): they stay allowed,
    # so a tokenizer change that starts folding them would show up here.
    verdict, _response = _policy_verdict("claude", command)
    assert verdict.decision == "allow"


# ---- HELD-DEADLINE, HELD-INPUT, HELD-POLICYFILE, HELD-INSTALL ----------------------------------


@pytest.mark.parametrize("judge", ["devnull_child_sleep", "sqlite_spins"])
def test_held_deadline_answers_a_judge_waiting_outside_python(judge: str) -> None:
    # capture_output reads both pipes to EOF: a held pipe would raise TimeoutExpired.
    # Uninstrumented: coverage's exit-time save goes through SQLite too and would wait for the
    # judge's query, which no real hook process does.
    env = claude_env(judge, ACP_FAIL_CLOSED="1", ACP_HOOK_TIMEOUT_MS="500", **NO_COVERAGE)
    result = run_raw(CLAUDE_HOOK, json.dumps(LS).encode(), env, capture_output=True)
    assert blocks("claude", result.returncode)


def test_held_endless_stdin_is_answered_at_the_deadline() -> None:
    endless = subprocess.Popen(["yes"], stdout=subprocess.PIPE)
    try:
        result = subprocess.run(
            CLAUDE_HOOK,
            stdin=endless.stdout,
            env=claude_env(ACP_FAIL_CLOSED="1", ACP_HOOK_TIMEOUT_MS="1000"),
            capture_output=True,
            timeout=HANG,
            check=False,
        )
    finally:
        endless.kill()
        endless.wait()
    assert blocks("claude", result.returncode)


def test_held_a_device_as_the_policy_file_does_not_run_the_call() -> None:
    run = run_hook(
        "claude", RM, ACP_POLICY="/dev/zero", ACP_FAIL_CLOSED="1", ACP_HOOK_TIMEOUT_MS="1500"
    )
    assert blocked("claude", run)


def test_held_a_claude_directory_that_is_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / ".claude").write_text("not a directory")
    with pytest.raises(InstallError):
        plan_install("claude", root=tmp_path, bin_dir=BIN).apply()
    assert (tmp_path / ".claude").read_text() == "not a directory"


def test_held_invalid_codex_toml_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / ".codex/config.toml"
    path.parent.mkdir()
    path.write_text("[hooks\nbroken = \n")
    with pytest.raises(InstallError):
        plan_install("codex", scope="user", home=tmp_path, bin_dir=BIN)
    assert path.read_text() == "[hooks\nbroken = \n"


def test_held_an_existing_config_mode_is_kept(tmp_path: Path) -> None:
    path = tmp_path / ".claude/settings.json"
    path.parent.mkdir()
    path.write_text("{}")
    path.chmod(0o640)
    plan_install("claude", root=tmp_path, bin_dir=BIN).apply()
    assert path.stat().st_mode & 0o777 == 0o640 and "hooks" in json.loads(path.read_text())


def test_held_concurrent_installs_leave_one_valid_file(tmp_path: Path) -> None:
    path = tmp_path / ".claude/settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"permissions": {"allow": ["Bash(ls)"]}}))
    (tmp_path / "judges").mkdir()
    for n in range(6):
        (tmp_path / "judges" / f"mod{n}.py").write_text("def judge(event):\n    return None\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "judges")}
    argv = [str(BIN / "acp"), "install", "claude", "--project", "--root", str(tmp_path)]
    installs = [
        subprocess.Popen([*argv, "--judge", f"mod{n}:judge"], env=env, stderr=subprocess.DEVNULL)
        for n in range(6)
    ]
    for install in installs:
        install.wait(timeout=60)
    settings = json.loads(path.read_text())  # valid JSON
    assert settings["permissions"] == {"allow": ["Bash(ls)"]}  # the user's keys kept
    for groups in settings["hooks"].values():
        # With --judge the registered command is `/usr/bin/env ... ACP_JUDGE=modN:judge .../acp-claude-hook`.
        ours = [h for g in groups for h in g["hooks"] if "ACP_JUDGE=mod" in h["command"]]
        assert len(ours) == 1  # exactly one entry per event
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.json"]  # no temp files


# ---- HELD-INPUT, HELD-JUDGE, HELD-AUDIT: huge input, memory limits, recursion, permissions ----

# The size of the HELD-INPUT oversized inputs (200 MB).
BIG_INPUT = 200 * 1024 * 1024
GIB = 1024**3


def _address_space_limit() -> None:
    """In the hook child: `ulimit -v 1 GiB` (HELD-INPUT)."""
    resource.setrlimit(resource.RLIMIT_AS, (GIB, GIB))


def test_held_200_mb_of_non_json_under_fail_closed_does_not_run_the_call() -> None:
    result = run_raw(
        CLAUDE_HOOK, b"x" * BIG_INPUT, claude_env(ACP_FAIL_CLOSED="1"), capture_output=True
    )
    assert blocks("claude", result.returncode) and b"not JSON" in result.stderr


def test_held_a_200_mb_valid_payload_still_gets_the_deny() -> None:
    payload = {**RM, "tool_input": {"command": "rm -rf /", "description": "x" * BIG_INPUT}}
    # No ACP_JUDGE: the demo judge, which denies the rm -rf.
    env = claude_env(ACP_FAIL_CLOSED="1")
    result = run_raw(CLAUDE_HOOK, json.dumps(payload).encode(), env, capture_output=True)
    assert blocks("claude", result.returncode)
    assert json.loads(result.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_held_endless_stdin_under_a_memory_limit_ends_in_the_block() -> None:
    endless = subprocess.Popen(["yes"], stdout=subprocess.PIPE)
    try:
        result = subprocess.run(
            CLAUDE_HOOK,
            stdin=endless.stdout,
            env=claude_env(ACP_FAIL_CLOSED="1"),  # no deadline: only the MemoryError ends the read
            capture_output=True,
            timeout=HANG,
            check=False,
            preexec_fn=_address_space_limit,
        )
    finally:
        endless.kill()
        endless.wait()
    assert blocks("claude", result.returncode) and b"MemoryError" in result.stderr


def test_held_a_judge_out_of_memory_under_a_limit_does_not_run_the_call() -> None:
    # Without the limit the judge allows (it never allocates unbounded): the limit is what is tested.
    env = claude_env("exhausts_memory", ACP_FAIL_CLOSED="1")
    result = run_raw(
        CLAUDE_HOOK,
        json.dumps(LS).encode(),
        env,
        capture_output=True,
        preexec_fn=_address_space_limit,
    )
    assert blocks("claude", result.returncode) and b"MemoryError" in result.stderr


def test_held_a_judge_recursing_past_a_lifted_limit_does_not_run_the_call() -> None:
    # The deadline or the judge's RecursionError answers, whichever comes first: both block.
    env = claude_env("deep_recursion", ACP_FAIL_CLOSED="1", ACP_HOOK_TIMEOUT_MS="3000")
    result = run_raw(CLAUDE_HOOK, json.dumps(LS).encode(), env, capture_output=True)
    assert blocks("claude", result.returncode) and b"blocked because" in result.stderr


def test_held_a_50_mb_deny_reason_is_carried_in_a_body_that_parses() -> None:
    run = run_hook("claude", LS, judge="huge_reason_deny", ACP_FAIL_CLOSED="1")
    assert blocked("claude", run)
    output = run.body()["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    assert output["permissionDecisionReason"] == "r" * HUGE_REASON  # carried whole, not cut


# linux/prctl.h PR_CAPBSET_DROP; linux/capability.h CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH.
_PR_CAPBSET_DROP = 24
_FILE_ACCESS_CAPS = (1, 2)


def _like_another_user() -> Any:
    """A preexec_fn under which the hook obeys file modes as another user would; None if not root."""
    # Root reads and writes through any mode. The venv's interpreter lives under /root (0700), so
    # a child switched to uid 65534 cannot even start; dropping the two capabilities that bypass
    # modes from the bounding set leaves the exec'd hook with root's uid but none of them.
    if os.geteuid() != 0:
        return None
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)

    def drop() -> None:
        for cap in _FILE_ACCESS_CAPS:
            if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
                raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) failed")

    return drop


def test_held_a_policy_file_the_hook_cannot_read_does_not_run_the_call(tmp_path: Path) -> None:
    policy = tmp_path / "p.toml"
    policy.write_text("rules = []\n")  # read, this is a real allow (exit 0)
    policy.chmod(0)
    env = claude_env(ACP_POLICY=str(policy), ACP_FAIL_CLOSED="1")
    result = run_raw(
        CLAUDE_HOOK,
        json.dumps(LS).encode(),
        env,
        capture_output=True,
        preexec_fn=_like_another_user(),
    )
    assert result.returncode == 2 and b"cannot read the rule file" in result.stderr


def test_held_an_audit_dir_the_hook_cannot_write_never_changes_the_answer(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    logs.chmod(0o500)
    log = logs / "a.jsonl"
    result = run_raw(
        CLAUDE_HOOK,
        json.dumps(RM).encode(),
        claude_env(ACP_AUDIT_LOG=str(log)),
        capture_output=True,
        preexec_fn=_like_another_user(),
    )
    assert result.returncode == 2
    assert json.loads(result.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert b"not written" in result.stderr and not log.exists()


# ---- Issue 15 follow-up: a judge whose process dies (a signal, os._exit) under fail-closed ------


@pytest.mark.parametrize(
    ("judge", "death"),
    [
        # setrecursionlimit(10**7), then recursion through C code: SIGSEGV, which Claude, Codex
        # and Gemini read as a non-blocking error, so the call ran even under ACP_FAIL_CLOSED=1.
        ("overflows_c_stack", "SIGSEGV"),
        ("dumps_too_deep", "SIGSEGV"),
        # R2 and R1: recorded as inherent to in-process judges.
        ("kills_itself", "SIGKILL"),
        ("exits_at_once", "exited with code 0"),
    ],
)
def test_a_judge_whose_process_dies_under_fail_closed_does_not_run_the_call(
    judge: str, death: str
) -> None:
    run = run_hook("claude", LS, judge=judge, ACP_FAIL_CLOSED="1")
    assert blocked("claude", run)
    assert "the judge's process" in run.stderr and death in run.stderr
    assert "blocked because ACP_FAIL_CLOSED=1" in run.stderr


@pytest.mark.parametrize("agent", AGENT_IDS)
def test_a_judge_killed_by_sigsegv_under_fail_closed_blocks_on_every_host(agent: str) -> None:
    run = run_hook(agent, ls_for(agent), judge="overflows_c_stack", ACP_FAIL_CLOSED="1")
    assert blocked(agent, run), run
    assert "SIGSEGV" in run.stderr


def test_a_judge_killed_by_a_signal_keeps_the_default_posture_without_fail_closed() -> None:
    # Supervision is the fail-closed path only: the default posture never pays for the fork.
    run = run_hook("claude", LS, judge="kills_itself")
    assert run.code == -9


def test_a_supervised_judge_still_answers_prints_relays_and_audits(tmp_path: Path) -> None:
    log = tmp_path / "a.jsonl"
    run = run_hook("claude", LS, judge="sys_echo_ask", ACP_FAIL_CLOSED="1", ACP_AUDIT_LOG=str(log))
    # The ask the child decided reaches the host; what the judge printed goes to stderr.
    assert run.code == 0
    assert run.body()["hookSpecificOutput"]["permissionDecision"] == "ask"
    assert "hi" in run.stderr
    (record,) = (json.loads(line) for line in log.read_text(encoding="utf-8").splitlines())
    assert record["verdict"]["decision"] == "ask"
    assert record["event"]["input"] == {"command": "ls"}


def test_held_c_stack_recursion_after_a_10m_limit_is_answered_at_the_deadline() -> None:
    # HELD-JUDGE: exit 2, but after 58 s (the unwinding never checks for signals); in the supervised
    # child the parent answers at ACP_HOOK_TIMEOUT_MS, and both host pipes reach EOF then.
    env = claude_env("deep_recursion_10m", ACP_FAIL_CLOSED="1", ACP_HOOK_TIMEOUT_MS="1000")
    result = run_raw(CLAUDE_HOOK, json.dumps(LS).encode(), env, capture_output=True)
    assert blocks("claude", result.returncode)
    assert b"no answer within ACP_HOOK_TIMEOUT_MS=1000" in result.stderr


def test_r4_a_judge_in_one_c_call_holding_the_interpreter_lock_is_answered_under_fail_closed() -> (
    None
):
    # R4: neither the watchdog thread nor the SIGALRM handler runs inside such a call, so the
    # in-process hook answered only when the host's timeout ran the call. The supervising parent
    # is another process: its deadline answers, and the child ends by SIGALRM a second later.
    env = claude_env("sums_in_c", ACP_FAIL_CLOSED="1", ACP_HOOK_TIMEOUT_MS="500")
    result = run_raw(CLAUDE_HOOK, json.dumps(LS).encode(), env, capture_output=True)
    assert blocks("claude", result.returncode)
    assert b"no answer within ACP_HOOK_TIMEOUT_MS=500" in result.stderr
