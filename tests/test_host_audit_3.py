"""Host audit 3 (docs/findings.md HA3): each fail-open closed, checked on parse, render and policy."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_control_plane_core import Verdict, adapter_for
from agent_control_plane_core._host_shells import (
    WindowsQuotingError,
    cmd_line,
    detect_version,
    documents_dir,
    powershell_line,
    split_env,
)
from agent_control_plane_core.adapters._paths import derive_paths
from agent_control_plane_core.install import InstallError, plan_install
from agent_control_plane_core.policy import load_policy_judge
from agent_control_plane_core.runtime import render_escalated

from hook_runner import BIN

# A patch whose first file is inside the project and whose second is not.
PATCH = (
    "*** Begin Patch\n*** Update File: src/app.ts\n@@\n-a\n+b\n"
    "*** Add File: /etc/cron.d/evil\n+* * * * * root sh\n*** End Patch\n"
)
OUTSIDE = """
[[rules]]
name = "no-writes-outside"
tools = ["Edit", "Write"]
paths = ["/etc/**"]
decision = "deny"
reason = "a file outside the project"

[[rules]]
name = "allow-project-files"
tools = ["Edit", "Write"]
paths = ["/home/dev/project/**"]
decision = "allow"
"""


def _auggie(tool: str, tool_input: dict[str, Any]) -> Any:
    return adapter_for("auggie").parse(
        {
            "hook_event_name": "PreToolUse",
            "conversation_id": "c1",
            "workspace_roots": ["/home/dev/project"],
            "tool_name": tool,
            "tool_input": tool_input,
            "tool_error": None,
            "is_mcp_tool": False,
        }
    )


def test_auggie_ask_is_escalated_to_the_exit_2_block_because_auggie_ignores_ask() -> None:
    adapter = adapter_for("auggie")
    assert adapter.NATIVE_ASK_TIER is False
    event = _auggie("launch-process", {"command": "npm publish"})
    answer = render_escalated(adapter, Verdict(decision="ask", reason="confirm it"), event)
    assert (answer.exit_code, answer.enforced) == (2, True)
    assert answer.stdout["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_auggie_payload_fields_are_read_where_auggie_sends_them() -> None:
    adapter = adapter_for("auggie")
    post = adapter.parse(
        {
            "hook_event_name": "PostToolUse",
            "conversation_id": "c1",
            "workspace_roots": ["/home/dev/project", "/home/dev/other"],
            "tool_name": "launch-process",
            "tool_input": {"command": "ls"},
            "tool_output": "a\nb\n",
            "tool_error": None,
            "is_mcp_tool": True,
        }
    )
    assert (post.meta.session_id, post.meta.cwd, post.response) == (
        "c1",
        "/home/dev/project",
        "a\nb\n",
    )
    assert post.meta.passthrough["workspace_roots"] == ["/home/dev/project", "/home/dev/other"]
    assert post.meta.passthrough["is_mcp_tool"] is True  # read for the call class, kept as sent
    assert post.tool == "launch-process"  # an MCP server's tool keeps its own name
    body = adapter.render(Verdict(decision="deny", reason="bad output"), post).stdout
    assert body == {
        "hookSpecificOutput": {
            "hookEventName": "PostToolUse",
            "decision": "block",
            "reason": "bad output",
        }
    }


@pytest.mark.parametrize(
    ("tool", "tool_input", "canonical", "key", "value"),
    [
        ("apply_patch", {"input": PATCH}, "Edit", "file_paths", ["src/app.ts", "/etc/cron.d/evil"]),
        ("remove-files", {"file_paths": ["a", "b"]}, "Edit", "file_path", "a"),
        (
            "write-process",
            {"terminal_id": 1, "input_text": "rm -rf /"},
            "Bash",
            "command",
            "rm -rf /",
        ),
    ],
)
def test_auggie_file_and_process_tools_reach_canonical_rules(
    tool: str, tool_input: dict[str, Any], canonical: str, key: str, value: object
) -> None:
    event = _auggie(tool, tool_input)
    assert (event.tool, event.input[key]) == (canonical, value)


def test_derived_paths_keep_what_the_input_names_and_skip_what_names_no_file() -> None:
    given: dict[str, Any] = {"input": PATCH, "file_path": "x"}
    assert derive_paths(given, "input", "patch") is None
    assert given["file_path"] == "x"
    assert given["file_paths"] == ["src/app.ts", "/etc/cron.d/evil"]
    for key, form, empty in (
        ("input", "patch", {"input": "no headers"}),
        ("input", "patch", {"input": 3}),
        ("paths", "list", {"paths": []}),
        ("paths", "list", {"paths": [1, ""]}),
        ("*", "patch", {"a": 1, "b": "text"}),
    ):
        before = dict(empty)
        assert derive_paths(empty, key, form) is None
        assert empty == before
    moved: dict[str, Any] = {"p": "*** Update File: a\n*** Move to: b\n*** Update File: a\n"}
    derive_paths(moved, "p", "patch")
    assert moved["file_paths"] == ["a", "b"]
    added: dict[str, Any] = {"q": 1, "p": "*** Add File: a\n*** Add File: b\n"}
    assert derive_paths(added, "*", "patch") == "Write"
    assert added["file_paths"] == ["a", "b"]


_PATCH_CALLS = [
    (
        "codex",
        {
            "hook_event_name": "PreToolUse",
            "cwd": "/home/dev/project",
            "tool_name": "apply_patch",
            "tool_input": {"command": PATCH},
        },
    ),
    (
        "factory",
        {
            "hook_event_name": "PreToolUse",
            "cwd": "/home/dev/project",
            "tool_name": "ApplyPatch",
            "tool_input": {"input": PATCH},
        },
    ),
    (
        "auggie",
        {
            "hook_event_name": "PreToolUse",
            "workspace_roots": ["/home/dev/project"],
            "tool_name": "apply_patch",
            "tool_input": {"input": PATCH},
        },
    ),
    ("amp", {"tool": "apply_patch", "cwd": "/home/dev/project", "input": {"patch_text": PATCH}}),
    (
        "codex",
        {
            "hook_event_name": "PreToolUse",
            "cwd": "/home/dev/project",
            "tool_name": "Bash",
            "tool_input": {"command": f"apply_patch <<'EOF'\n{PATCH}EOF"},
        },
    ),
]


@pytest.mark.parametrize(
    ("agent", "payload"),
    _PATCH_CALLS,
    ids=[f"{a}-{p.get('tool_name', p.get('tool'))}" for a, p in _PATCH_CALLS],
)
def test_a_patch_with_one_file_outside_is_denied_by_a_path_rule(
    agent: str, payload: dict[str, Any], tmp_path: Path
) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text(OUTSIDE)
    judge = load_policy_judge(str(policy))
    event = adapter_for(agent).parse(payload)
    assert event.tool == "Edit"
    assert judge(event).decision == "deny"
    # The allow rule needs every file inside: a patch of project files alone is allowed by it.
    inside = json.loads(json.dumps(payload).replace("/etc/cron.d/evil", "src/new.ts"))
    assert judge(adapter_for(agent).parse(inside)).decision == "allow"


def test_crush_rewrite_that_is_no_object_is_refused_not_run_unchanged() -> None:
    adapter = adapter_for("crush")
    event = adapter.parse({"event": "PreToolUse", "tool_name": "bash", "tool_input": {"c": 1}})
    answer = adapter.render(Verdict(decision="allow", mutated_input="ls"), event)  # type: ignore[arg-type]
    assert (answer.exit_code, answer.enforced) == (0, False)
    assert answer.stdout["decision"] == "deny"
    assert "not a JSON object" in answer.stdout["reason"]


def _bin(tmp_path: Path, host: str, folder: str = "C:\\Users\\me\\proj\\.venv\\Scripts") -> Path:
    """A console-script folder holding acp-<host>-hook (the installer checks it exists)."""
    found = tmp_path / folder
    found.mkdir(parents=True, exist_ok=True)
    (found / f"acp-{host}-hook").write_text("")
    return found


def test_cursor_install_refuses_a_hooks_file_cursor_would_discard(tmp_path: Path) -> None:
    hooks = tmp_path / ".cursor" / "hooks.json"
    hooks.parent.mkdir()
    hooks.write_text('{"version": 1, "hooks": {"preToolUse": [], "beforeSubmitPromt": []}}')
    with pytest.raises(InstallError, match="beforeSubmitPromt is no Cursor hook event"):
        plan_install("cursor", root=tmp_path, bin_dir=BIN)
    hooks.write_text('{"version": 2, "hooks": {}}')
    with pytest.raises(InstallError, match="version 1"):
        plan_install("cursor", root=tmp_path, bin_dir=BIN)
    hooks.write_text('{"version": 1, "hooks": {"afterFileEdit": [{"command": "fmt"}]}}')
    plan = plan_install("cursor", root=tmp_path, bin_dir=BIN)
    assert set(json.loads(plan.after)["hooks"]) == {
        "afterFileEdit",
        "preToolUse",
        "beforeSubmitPrompt",
    }
    assert any("cursor-agent -p" in note for note in plan.notes)


def test_windsurf_install_says_devin_local_sessions_need_the_claude_entry(tmp_path: Path) -> None:
    notes = plan_install("windsurf", root=tmp_path, bin_dir=BIN).notes
    assert any(".devin/hooks.v1.json" in n and "acp install claude" in n for n in notes)


def test_kiro_install_embeds_the_guard_in_an_agent_for_the_2x_engine(tmp_path: Path) -> None:
    plan = plan_install("kiro", root=tmp_path, bin_dir=BIN, timeout_s=9)
    (agent,) = plan.also
    assert agent.path == tmp_path / ".kiro/agents/agent-control-plane.json"
    body = json.loads(agent.after)
    assert body["tools"] == ["*"]
    assert body["hooks"] == {
        "preToolUse": [{"command": str(BIN / "acp-kiro-hook"), "matcher": "*", "timeout_ms": 9000}]
    }
    plan.apply()
    again = plan_install("kiro", root=tmp_path, bin_dir=BIN, timeout_s=9)
    assert not again.changed  # reinstalling replaces our entry, never adds a second
    assert any("--agent agent-control-plane" in note for note in plan.notes)


def test_claude_dead_hook_blocks_only_from_2_1_295(tmp_path: Path) -> None:
    assert adapter_for("claude").DEAD_HOOK == "runs"  # unversioned: the whole range
    assert adapter_for("claude", claude_version="2.1.294").DEAD_HOOK == "runs"
    assert adapter_for("claude", claude_version="2.1.295").DEAD_HOOK == "blocks_fail_closed"
    notes = plan_install("claude", root=tmp_path, bin_dir=BIN, fail_closed=True).notes
    assert any("onFailure from 2.1.295" in note for note in notes)


def test_windows_lines_are_written_for_the_shell_each_host_runs(tmp_path: Path) -> None:
    folder = _bin(tmp_path, "windsurf")
    plan = plan_install("windsurf", root=tmp_path, bin_dir=folder, windows=True)
    script = str(folder / "acp-windsurf-hook")
    assert json.loads(plan.after)["hooks"]["pre_run_command"][0]["command"] == f"& '{script}'"
    judged = plan_install(
        "windsurf", root=tmp_path, bin_dir=folder, windows=True, judge="hook_judges:raises"
    )
    line = json.loads(judged.after)["hooks"]["pre_run_command"][0]["command"]
    assert line == (
        "Remove-Item -ErrorAction SilentlyContinue Env:ACP_POLICY; "
        f"$env:ACP_JUDGE = 'hook_judges:raises'; & '{script}'"
    )
    kiro = _bin(tmp_path, "kiro")
    plan = plan_install(
        "kiro", root=tmp_path, bin_dir=kiro, windows=True, judge="hook_judges:raises"
    )
    command = json.loads(plan.after)["hooks"][0]["action"]["command"]
    assert command == f"set ACP_POLICY=&&set ACP_JUDGE=hook_judges:raises&&{kiro / 'acp-kiro-hook'}"
    assert '"' not in command and "'" not in command
    spaced = _bin(tmp_path, "kiro", "C:\\Program Files\\acp\\Scripts")
    alone = plan_install("kiro", root=tmp_path, bin_dir=spaced, windows=True)
    assert json.loads(alone.after)["hooks"][0]["action"]["command"] == str(spaced / "acp-kiro-hook")
    with pytest.raises(InstallError, match="a path with a space"):
        plan_install(
            "kiro", root=tmp_path, bin_dir=spaced, windows=True, judge="hook_judges:raises"
        )
    with pytest.raises(InstallError, match="cannot pass through cmd /C"):
        plan_install("kiro", root=tmp_path, bin_dir=_bin(tmp_path, "kiro", "C:\\R&D"), windows=True)
    # A POSIX host keeps its shell-quoted line on Windows too.
    gemini = _bin(tmp_path, "gemini")
    posix = plan_install("gemini", root=tmp_path, bin_dir=gemini, windows=True)
    assert "'" in json.dumps(json.loads(posix.after))  # shlex-quoted: the path holds backslashes


def test_cline_user_hooks_go_to_the_xdg_documents_folder(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".config").mkdir(parents=True)
    plain = plan_install("cline", scope="user", home=home, bin_dir=BIN)
    assert plain.path == home / "Documents/Cline/Hooks/PreToolUse"
    (home / ".config/user-dirs.dirs").write_text('XDG_DOCUMENTS_DIR="$HOME/Dokumente"\n')
    plan = plan_install("cline", scope="user", home=home, bin_dir=BIN)
    assert plan.path == home / "Dokumente/Cline/Hooks/PreToolUse"
    assert plan.also[0].path.parent == plan.path.parent


def test_documents_dir_reads_xdg_user_dirs_like_xdg_user_dir(tmp_path: Path) -> None:
    config = tmp_path / "cfg"
    config.mkdir()
    env = {"XDG_CONFIG_HOME": str(config)}
    assert documents_dir(tmp_path, env) == tmp_path / "Documents"
    (config / "user-dirs.dirs").write_text("# no documents entry\n")
    assert documents_dir(tmp_path, env) == tmp_path / "Documents"
    for value, found in (
        ("/srv/docs", Path("/srv/docs")),
        ("$HOME/", tmp_path / "Documents"),
        ("Papers", tmp_path / "Papers"),
    ):
        (config / "user-dirs.dirs").write_text(f'XDG_DOCUMENTS_DIR="{value}"\n')
        assert documents_dir(tmp_path, env) == found


def test_split_env_reads_the_argv_install_writes() -> None:
    assert split_env(["/x/acp-kiro-hook"]) == ([], [], ["/x/acp-kiro-hook"])
    argv = ["/usr/bin/env", "-u", "P", "A=1", "B=x=y", "/x/hook", "arg"]
    assert split_env(argv) == (["P"], [("A", "1"), ("B", "x=y")], ["/x/hook", "arg"])
    assert split_env(["/usr/bin/env", "A=1"]) == ([], [("A", "1")], [])
    with pytest.raises(WindowsQuotingError, match="only alone"):
        cmd_line(["C:\\a b\\hook.exe", "arg"])
    assert powershell_line(["C:\\a b\\hook.exe", "it's"]) == "& 'C:\\a b\\hook.exe' 'it''s'"


def test_install_writes_the_host_version_so_copilot_redaction_is_rendered(tmp_path: Path) -> None:
    plan = plan_install("copilot", root=tmp_path, bin_dir=BIN, host_version="1.0.102")
    command = json.loads(plan.after)["hooks"]["preToolUse"][0]["bash"]
    assert "ACP_COPILOT_VERSION=1.0.102" in command
    assert any("copilot 1.0.102" in note for note in plan.notes)
    floor = adapter_for("copilot")
    pinned = adapter_for("copilot", copilot_version="1.0.102")
    assert "mutated_output" in floor.UNRENDERED_FIELDS["post_tool"]
    assert "mutated_output" not in pinned.UNRENDERED_FIELDS["post_tool"]
    old = plan_install("claude", root=tmp_path, bin_dir=BIN, host_version="2.1.100")
    assert any("observe only" in note for note in old.notes)
    new = plan_install("qwen", root=tmp_path, bin_dir=BIN, host_version="9.0.0")
    assert any("newer than" in note for note in new.notes)
    for bad, host, message in (
        ("two", "claude", "is not a version"),
        ("1.0.0", "gemini", "declares no versions"),
        ("detect", "claude", "gave no version"),
    ):
        with pytest.raises(InstallError, match=message):
            plan_install(host, root=tmp_path, bin_dir=BIN, host_version=bad)
    with pytest.raises(InstallError, match="give one"):
        plan_install(
            "codex", root=tmp_path, bin_dir=BIN, host_version="0.171.0", codex_version="0.171.0"
        )


def test_detect_version_reads_the_hosts_version_line() -> None:
    assert detect_version("claude", lambda argv: "2.1.332 (Claude Code)\n") == "2.1.332"
    assert detect_version("copilot", lambda argv: "GitHub Copilot CLI 1.0.102.\n") == "1.0.102"
    assert detect_version("codex", lambda argv: "codex-cli 0.172.0-alpha.1\n") == "0.172.0-alpha.1"
    assert detect_version("qwen", lambda argv: "") is None
    assert detect_version("gemini", lambda argv: "0.61.0") is None

    def missing(argv: object) -> str:
        raise FileNotFoundError(argv)

    assert detect_version("claude", missing) is None


def test_a_fact_resting_on_a_third_party_report_may_only_take_claims_away() -> None:
    from codegen.driver import _evidence_problems

    third = {"level": "third_party", "at": "a blog post"}
    host: dict[str, Any] = {
        "version_facts": [
            {"id": "adds", "evidence": third, "set": {"gated_kinds": ["pre_tool"]}},
            {"id": "removes", "evidence": third, "set": {"unrendered_fields": {"pre_tool": ["x"]}}},
            {"id": "sourced", "set": {"dead_hook": "blocks"}},
        ],
        "forms": {
            "plugin": {
                "evidence": third,
                "set": {
                    "native_ask_tier": True,
                    "rendered_fields": {"post_tool": ["mutated_output"]},
                    "exit_zero_block": True,
                    "dead_hook": "blocks",
                    "integration_mode": "external_hook",
                    "coverage": {"mcp": "covered", "subagent": "uncovered"},
                },
            }
        },
    }
    problems = _evidence_problems(host)
    assert len(problems) == 2
    assert problems[0].startswith("version_facts 'adds': rests on a third-party report only")
    for claim in (
        "native_ask_tier true",
        "rendered_fields",
        "exit_zero_block true",
        "dead_hook blocks",
        "integration_mode external_hook",
        "coverage.mcp covered",
    ):
        assert claim in problems[1]
    assert "subagent" not in problems[1]
