"""Regression tests of the third red team's findings (docs/findings.md, section RT3).

Every test name carries its finding id (rt3_h1 is RT3-H1). The shell forms are data
(lab/shell/forms.py); here they only go through the policy judge, never through a shell.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from agent_control_plane_core import AGENT_IDS, adapter_for
from agent_control_plane_core._shell import parse_script
from agent_control_plane_core._supervise import _receive
from agent_control_plane_core.policy import load_policy_judge
from lab.shell.forms import HELD_FORMS, SHELL_FORMS

from conftest import REPO
from hook_runner import BIN, BLOCK_EXIT, hook_env, shell_call

EXAMPLE = REPO / "examples" / "policy.toml"
_JUDGE = load_policy_judge(str(EXAMPLE))


def _decision(agent: str, command: str) -> str:
    adapter = (
        adapter_for(agent, codex_version="0.150.0") if agent == "codex" else adapter_for(agent)
    )
    return str(_JUDGE(adapter.parse(shell_call(agent, command))).decision)


def _forms(finding: str) -> list[Any]:
    return [
        pytest.param(command, want, id=f"{finding}:{command[:40]!r}")
        for command, want in SHELL_FORMS[finding]
    ]


def _on_every_host(finding: str) -> None:
    wrong = [
        (agent, command, got)
        for command, want in SHELL_FORMS[finding]
        for agent in AGENT_IDS
        if (got := _decision(agent, command)) != want
    ]
    assert wrong == []


@pytest.mark.parametrize(("command", "want"), _forms("RT3-H1"))
def test_rt3_h1_brace_and_extglob_program_names_are_decided(command: str, want: str) -> None:
    assert _decision("claude", command) == want


@pytest.mark.parametrize(("command", "want"), _forms("RT3-H2"))
def test_rt3_h2_a_script_fed_to_a_shell_or_source_is_read(command: str, want: str) -> None:
    assert _decision("claude", command) == want


@pytest.mark.parametrize(("command", "want"), _forms("RT3-H3"))
def test_rt3_h3_substitutions_in_heredocs_and_case_are_commands(command: str, want: str) -> None:
    assert _decision("claude", command) == want


@pytest.mark.parametrize(("command", "want"), _forms("RT3-H4"))
def test_rt3_h4_coproc_function_and_named_descriptors(command: str, want: str) -> None:
    assert _decision("claude", command) == want


@pytest.mark.parametrize(("command", "want"), _forms("RT3-H5"))
def test_rt3_h5_text_bash_runs_later_is_read_or_unreadable(command: str, want: str) -> None:
    assert _decision("claude", command) == want


@pytest.mark.parametrize(("command", "want"), _forms("RT3-H6"))
def test_rt3_h6_zsh_forms_are_read(command: str, want: str) -> None:
    assert _decision("claude", command) == want


@pytest.mark.parametrize("finding", ["RT3-H1", "RT3-H2", "RT3-H3", "RT3-H4", "RT3-H5", "RT3-H6"])
def test_rt3_every_high_form_is_denied_on_every_host(finding: str) -> None:
    _on_every_host(finding)


@pytest.mark.parametrize("command", HELD_FORMS)
def test_rt3_forms_that_held_stay_denied(command: str) -> None:
    assert _decision("claude", command) == "deny"


@pytest.mark.parametrize(("command", "want"), _forms("RT3-M5"))
def test_rt3_m5_wrappers_are_followed(command: str, want: str) -> None:
    assert _decision("claude", command) == want


@pytest.mark.parametrize(("command", "want"), _forms("RT3-M6"))
def test_rt3_m6_rebinding_a_name_is_unreadable(command: str, want: str) -> None:
    assert _decision("claude", command) == want


@pytest.mark.parametrize(("command", "want"), _forms("RT3-M7"))
def test_rt3_m7_git_aliases_exec_path_and_autocorrect(command: str, want: str) -> None:
    assert _decision("claude", command) == want


@pytest.mark.parametrize(("command", "want"), _forms("RT3-M8"))
def test_rt3_m8_secret_reads_through_redirections(command: str, want: str) -> None:
    assert _decision("claude", command) == want


def test_rt3_m8_search_tools_and_links_to_secrets_ask(tmp_path: Path) -> None:
    grep = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Grep",
        "tool_input": {"pattern": ".", "path": "/home/dev/app/.env", "output_mode": "content"},
    }
    assert _JUDGE(adapter_for("claude").parse(grep)).decision == "ask"
    (tmp_path / ".env").write_text("SECRET=1\n", encoding="utf-8")
    (tmp_path / "notes.txt").symlink_to(".env")
    read = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Read",
        "tool_input": {"file_path": str(tmp_path / "notes.txt")},
    }
    assert _JUDGE(adapter_for("claude").parse(read)).decision == "ask"


def _hook(
    payload: Any, *, ignore_sigchld: bool = False, **env: str
) -> subprocess.CompletedProcess[bytes]:
    def child() -> None:
        if ignore_sigchld:
            signal.signal(signal.SIGCHLD, signal.SIG_IGN)

    return subprocess.run(
        [str(BIN / "acp-claude-hook")],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=hook_env("claude", **env),
        timeout=60,
        preexec_fn=child,
    )


def test_rt3_m1_fail_closed_blocks_when_sigchld_is_inherited_as_ignored() -> None:
    result = _hook(
        shell_call("claude", "rm -rf /"),
        ignore_sigchld=True,
        ACP_FAIL_CLOSED="1",
        ACP_POLICY=str(EXAMPLE),
    )
    assert result.returncode == BLOCK_EXIT["claude"], result.stderr
    assert b"deny" in result.stdout


def test_rt3_m2_m3_m4_nothing_beside_the_rule_file_is_opened(tmp_path: Path) -> None:
    # A FIFO and a forged allow-all cache where the cache used to be, and a link where its
    # temporary file used to be: none is opened, the TOML decides, the victim is untouched.
    policy = tmp_path / "policy.toml"
    policy.write_bytes(EXAMPLE.read_bytes())
    os.mkfifo(tmp_path / ".policy.toml.acp-cache.json")
    victim = tmp_path / "victim.txt"
    victim.write_text("precious", encoding="utf-8")
    for pid in range(2, 40000, 997):
        (tmp_path / f".policy.toml.acp-cache.json.{pid}.tmp").symlink_to(victim)
    env = {"ACP_POLICY": str(policy), "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    result = _hook(shell_call("claude", "rm -rf /"), ACP_FAIL_CLOSED="1", **env)
    assert result.returncode == BLOCK_EXIT["claude"]
    assert victim.read_text(encoding="utf-8") == "precious"
    forged = tmp_path / "f"
    forged.mkdir()
    (forged / "policy.toml").write_bytes(EXAMPLE.read_bytes())
    rules = {"rules": [{"name": "allow-all", "decision": "allow"}]}
    digest = hashlib.sha256(EXAMPLE.read_bytes()).hexdigest()
    (forged / ".policy.toml.acp-cache.json").write_text(
        json.dumps({"key": [1, digest], "policy": rules}), encoding="utf-8"
    )
    env["ACP_POLICY"] = str(forged / "policy.toml")
    assert _hook(shell_call("claude", "rm -rf /"), **env).returncode == BLOCK_EXIT["claude"]


def test_rt3_m9_a_forked_judge_child_does_not_hold_the_host_pipes() -> None:
    started = time.monotonic()
    process = subprocess.Popen(
        [str(BIN / "acp-claude-hook")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=hook_env("claude", judge="forks_and_sleeps_then_denies"),
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(json.dumps(shell_call("claude", "ls")).encode())
    process.stdin.close()
    out = process.stdout.read()  # EOF: every holder of the pipe has closed it
    elapsed = time.monotonic() - started
    process.wait(timeout=30)
    assert b"deny" in out
    assert elapsed < 4.0, f"EOF only after {elapsed:.1f} s: a forked child held the pipe"


def test_rt3_l1_a_frame_head_of_thousands_of_digits_is_no_answer() -> None:
    read_fd, write_fd = os.pipe()
    os.write(write_fd, b"9" * 5000 + b"\n{}")
    os.close(write_fd)
    try:
        assert _receive(read_fd) is None
    finally:
        os.close(read_fd)


def test_rt3_l2_a_long_ansi_c_escape_run_is_decoded_whole_and_the_rest_still_read() -> None:
    # The decoder no longer slices the rest of the text at each escape (quadratic before). How
    # long it takes is a benchmark's question; a test asserts what it reads.
    count = 240_000
    parsed = parse_script("echo $'" + "\\101" * count + "'; rm -rf /")
    assert parsed.commands[0].argv == ("echo", "A" * count)
    assert any(command.argv == ("rm", "-rf", "/") for command in parsed.commands)


def test_rt3_l14_dd_onto_any_device_path_is_denied() -> None:
    for target in ("/dev/sda", "/dev/disk/by-id/nvme-x", "/dev/mapper/root"):
        assert _decision("claude", f"dd if=/dev/zero of={target} bs=1M") == "deny"


@pytest.mark.parametrize(
    ("line", "program"),
    [
        # RT3-H1: a group holding quotes, escapes and nested parentheses is read to its end.
        ("echo x@('a)' \\) (b)) ; rm -rf /", "rm"),
        # RT3-H3: an unquoted here-document body: escapes, backticks and ${...} in it.
        ("cat <<EOF\n\\$(not) `rm -rf /` ${x:-y}\nEOF", "rm"),
        ("cat <<EOF\n\\`x` $(rm -rf /)\nEOF", "rm"),
        # RT3-H3: $(( with quotes and escapes inside, closing as arithmetic or as $( (...) ).
        ("echo $(( 'a)' ))", None),
        ('echo $(( "\\)" + 1 ))', None),
        ("echo $((echo 'x)' ) | rm -rf /)", "rm"),
        ("echo $(( '", None),
    ],
)
def test_rt3_h1_h3_nested_forms_are_read_to_their_end(line: str, program: str | None) -> None:
    parsed = parse_script(line)
    names = [command.argv[0] for command in parsed.commands]
    if program is not None:
        assert program in names, (names, parsed.problems)


def test_rt3_the_splitter_reports_what_it_cannot_model() -> None:
    # Conservative by construction: each construct is a problem, so on_unparsed decides.
    for line in ("echo x(e:'true':)", "alias x=rm", "hash -p /bin/rm ls", 'echo "${x@P}"'):
        assert not parse_script(line).readable, line
    # and the reading stays exact where it models the shell.
    assert parse_script("cp a{,.bak}").readable
    assert parse_script("VERSION=$(git describe) && echo ok").readable
    assert parse_script("[ -d build ] && echo yes").readable
