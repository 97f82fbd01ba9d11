"""`acp install`: host configurations written, merged, idempotent, with a dry run."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agent_control_plane_core.install import INSTALLABLE, InstallError, hook_command, plan_install

from hook_runner import BIN, PRE_TOOL, hook_env

# Every host acp install has an entry for (install._plan._HOSTS), so a new entry is tested too.
HOSTS = INSTALLABLE
# The plugin acp install copies for opencode, as the package ships it.
OPENCODE_PLUGIN = (
    Path(__file__).resolve().parent.parent
    / "python/agent_control_plane_core/_generated/plugins/opencode.js"
)


def install(host: str, tmp: Path, **options: Any) -> bool:
    """Plan and apply one install under tmp (project root and home both point there)."""
    return plan_install(host, root=tmp, home=tmp, bin_dir=BIN, **options).apply()


@pytest.mark.parametrize("scope", ["project", "user"])
@pytest.mark.parametrize("host", HOSTS)
def test_second_install_changes_nothing(host: str, scope: Any, tmp_path: Path) -> None:
    assert install(host, tmp_path, scope=scope) is True
    plan = plan_install(host, scope=scope, root=tmp_path, home=tmp_path, bin_dir=BIN)
    written = plan.path.read_bytes()
    assert plan.changed is False
    assert install(host, tmp_path, scope=scope) is False
    assert plan.path.read_bytes() == written


def test_dry_run_prints_the_config_and_writes_nothing(tmp_path: Path) -> None:
    result = subprocess.run(
        [str(BIN / "acp"), "install", "claude", "--root", str(tmp_path), "--dry-run"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0
    assert f"+++ {tmp_path / '.claude' / 'settings.json'}" in result.stdout
    assert f'"command": "{BIN / "acp-claude-hook"}"' in result.stdout
    assert not (tmp_path / ".claude").exists()


def test_claude_registers_every_gated_event_with_the_absolute_script(tmp_path: Path) -> None:
    install("claude", tmp_path)
    settings = json.loads((tmp_path / ".claude/settings.json").read_text())
    assert sorted(settings["hooks"]) == ["PostToolUse", "PreToolUse", "UserPromptSubmit"]
    handler = settings["hooks"]["PreToolUse"][0]["hooks"][0]
    assert handler == {"type": "command", "command": str(BIN / "acp-claude-hook"), "timeout": 30}
    assert Path(shlex.split(handler["command"])[0]).is_absolute()


def test_claude_keeps_existing_settings_and_other_hooks(tmp_path: Path) -> None:
    path = tmp_path / ".claude/settings.json"
    path.parent.mkdir()
    theirs = {"type": "command", "command": "my-linter", "timeout": 5}
    path.write_text(
        json.dumps(
            {
                "model": "opus",
                "permissions": {"allow": ["Bash(ls:*)"]},
                "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [theirs]}], "Stop": []},
            }
        )
    )
    install("claude", tmp_path, judge="hook_judges:denies")
    settings = json.loads(path.read_text())
    assert settings["model"] == "opus"
    assert settings["permissions"] == {"allow": ["Bash(ls:*)"]}
    assert settings["hooks"]["Stop"] == []
    pre = settings["hooks"]["PreToolUse"]
    assert pre[0] == {"matcher": "Bash", "hooks": [theirs]}
    assert pre[1]["hooks"][0]["command"] == (
        f"/usr/bin/env -u ACP_POLICY ACP_JUDGE=hook_judges:denies {BIN / 'acp-claude-hook'}"
    )


def test_reinstall_with_new_options_replaces_our_entry_without_duplicating(tmp_path: Path) -> None:
    install("claude", tmp_path)
    install("claude", tmp_path, fail_closed=True)
    settings = json.loads((tmp_path / ".claude/settings.json").read_text())
    pre = settings["hooks"]["PreToolUse"]
    assert len(pre) == 1 and len(pre[0]["hooks"]) == 1
    assert pre[0]["hooks"][0]["onFailure"] == "block"
    assert f"ACP_FAIL_CLOSED=1 {BIN / 'acp-claude-hook'}" in pre[0]["hooks"][0]["command"]
    # Fail closed only where exit 2 stops a tool call: the prompt hook stays as it was.
    prompt = settings["hooks"]["UserPromptSubmit"][0]["hooks"][0]
    assert "onFailure" not in prompt
    assert prompt["command"] == str(BIN / "acp-claude-hook")


def test_gemini_timeout_is_in_milliseconds(tmp_path: Path) -> None:
    install("gemini", tmp_path, timeout_s=5)
    settings = json.loads((tmp_path / ".gemini/settings.json").read_text())
    assert sorted(settings["hooks"]) == ["AfterTool", "BeforeAgent", "BeforeTool"]
    assert settings["hooks"]["BeforeTool"][0]["hooks"][0]["timeout"] == 5000


def test_factory_writes_hooks_json_in_seconds_without_on_failure(tmp_path: Path) -> None:
    plan = plan_install("factory", root=tmp_path, bin_dir=BIN, timeout_s=5, fail_closed=True)
    plan.apply()
    # FD-6: hooks.json is canonical; settings.json's hooks are read only while it is absent.
    assert plan.path == tmp_path / ".factory/hooks.json"
    assert not (tmp_path / ".factory/settings.json").exists()
    # Droid 0.225.2 loads hooks.json keyed by event name, without a "hooks" key (lab run).
    settings = {"hooks": json.loads(plan.path.read_text())}
    # post_tool and prompt_submit are not gated, but their feedback and context reach the model.
    assert sorted(settings["hooks"]) == ["PostToolUse", "PreToolUse", "UserPromptSubmit"]
    handler = settings["hooks"]["PreToolUse"][0]["hooks"][0]
    # Droid documents no onFailure; fail-closed rides on the command line only.
    assert handler["timeout"] == 5 and "onFailure" not in handler
    assert handler["command"].endswith(f"ACP_FAIL_CLOSED=1 {BIN / 'acp-factory-hook'}")
    assert settings["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"] == str(
        BIN / "acp-factory-hook"
    )
    assert any("droid exec never calls UserPromptSubmit" in note for note in plan.notes)
    assert any("/hooks" in note and "allowManagedHooksOnly" in note for note in plan.notes)


def test_factory_merges_into_an_existing_hooks_json(tmp_path: Path) -> None:
    hooks = tmp_path / ".factory/hooks.json"
    hooks.parent.mkdir()
    theirs = {"matcher": "Edit", "hooks": [{"type": "command", "command": "/usr/bin/fmt"}]}
    hooks.write_text(json.dumps({"PostToolUse": [theirs], "Stop": []}))
    install("factory", tmp_path)
    merged = json.loads(hooks.read_text())
    assert merged["Stop"] == []
    assert merged["PostToolUse"][0] == theirs
    assert merged["PostToolUse"][1]["hooks"][0]["command"] == str(BIN / "acp-factory-hook")
    assert merged["PreToolUse"][0]["hooks"][0]["command"] == str(BIN / "acp-factory-hook")


def test_qwen_timeout_is_in_milliseconds_and_names_the_trust_rule(tmp_path: Path) -> None:
    plan = plan_install("qwen", root=tmp_path, bin_dir=BIN, timeout_s=5)
    plan.apply()
    settings = json.loads((tmp_path / ".qwen/settings.json").read_text())
    assert sorted(settings["hooks"]) == ["PostToolUse", "PreToolUse", "UserPromptSubmit"]
    handler = settings["hooks"]["PreToolUse"][0]["hooks"][0]
    # QW-8: 5000 ms; 5 would mean 5 ms on releases that read only milliseconds.
    assert handler["timeout"] == 5000 and "failMode" not in handler
    assert any("trusted folder" in note for note in plan.notes)


def test_qwen_fail_closed_writes_fail_mode_on_tool_events_only(tmp_path: Path) -> None:
    plan = plan_install("qwen", root=tmp_path, bin_dir=BIN, fail_closed=True)
    plan.apply()
    hooks = json.loads((tmp_path / ".qwen/settings.json").read_text())["hooks"]
    pre = hooks["PreToolUse"][0]["hooks"][0]
    # QW-6: failMode closed turns a crash, a timeout or a bad exit into a deny.
    assert pre["failMode"] == "closed"
    assert pre["command"].endswith(f"ACP_FAIL_CLOSED=1 {BIN / 'acp-qwen-hook'}")
    assert "failMode" not in hooks["UserPromptSubmit"][0]["hooks"][0]
    assert any("failMode closed" in note for note in plan.notes)


def test_cursor_writes_flat_handlers_and_fail_closed_only_on_the_tool_event(
    tmp_path: Path,
) -> None:
    path = tmp_path / ".cursor/hooks.json"
    path.parent.mkdir()
    theirs = {"command": "./audit.sh"}
    path.write_text(json.dumps({"version": 1, "hooks": {"preToolUse": [theirs], "stop": []}}))
    install("cursor", tmp_path)
    install("cursor", tmp_path, fail_closed=True)
    settings = json.loads(path.read_text())
    assert settings["version"] == 1 and settings["hooks"]["stop"] == []
    assert sorted(settings["hooks"]) == ["beforeSubmitPrompt", "preToolUse", "stop"]
    pre = settings["hooks"]["preToolUse"]
    # Ours replaced in place on reinstall, theirs kept; failClosed only when asked for.
    assert pre[0] == theirs and len(pre) == 2
    assert pre[1]["failClosed"] is True
    assert pre[1]["command"].endswith(f"ACP_FAIL_CLOSED=1 {BIN / 'acp-cursor-hook'}")
    prompt = settings["hooks"]["beforeSubmitPrompt"]
    # The per-script timeout is in seconds (CUR-6).
    assert prompt == [{"command": str(BIN / "acp-cursor-hook"), "timeout": 30}]
    assert pre[1]["timeout"] == 30


def test_cursor_user_scope_is_the_home_hooks_file(tmp_path: Path) -> None:
    plan = plan_install("cursor", scope="user", home=tmp_path, bin_dir=BIN)
    assert plan.path == tmp_path / ".cursor/hooks.json"
    assert "failClosed" not in plan.after


def test_copilot_registers_pre_tool_use_in_a_github_hooks_file(tmp_path: Path) -> None:
    plan = plan_install("copilot", root=tmp_path, bin_dir=BIN, timeout_s=5)
    plan.apply()
    assert plan.path == tmp_path / ".github/hooks/agent-control-plane.json"
    settings = json.loads(plan.path.read_text())
    handler = {
        "type": "command",
        "bash": str(BIN / "acp-copilot-hook"),
        "timeoutSec": 5,
        # CP-1: Copilot's timeout fails open; the hook's own deadline comes first.
        "env": {"ACP_HOOK_TIMEOUT_MS": "3334"},
    }
    # postToolUse too: it carries context and a replaced result from 1.0.51 (CP-9).
    assert settings == {"version": 1, "hooks": {"preToolUse": [handler], "postToolUse": [handler]}}
    assert any("times out" in note and "ACP_HOOK_TIMEOUT_MS" in note for note in plan.notes)
    assert any("trusted folder" in note for note in plan.notes)  # CP-10
    user = plan_install("copilot", scope="user", home=tmp_path, bin_dir=BIN)
    assert user.path == tmp_path / ".copilot/hooks/agent-control-plane.json"
    default = json.loads(plan_install("copilot", root=tmp_path, bin_dir=BIN).after)
    assert default["hooks"]["preToolUse"][0]["env"] == {"ACP_HOOK_TIMEOUT_MS": "25000"}


def test_the_installed_cursor_command_blocks_rm_rf_when_the_host_runs_it(tmp_path: Path) -> None:
    install("cursor", tmp_path, judge="hook_judges:denies")
    settings = json.loads((tmp_path / ".cursor/hooks.json").read_text())
    command = settings["hooks"]["preToolUse"][0]["command"]
    result = subprocess.run(
        command,
        shell=True,
        input=json.dumps(PRE_TOOL["cursor"]),
        capture_output=True,
        text=True,
        env=hook_env("cursor"),
        check=False,
    )
    assert (result.returncode, result.stderr) == (2, "denied by test")
    assert json.loads(result.stdout)["permission"] == "deny"


def _plugin_config(path: Path) -> Any:
    (line,) = [line for line in path.read_text().splitlines() if line.startswith("const CONFIG = ")]
    return json.loads(line.removeprefix("const CONFIG = ").removesuffix(";"))


def test_opencode_copies_the_packaged_plugin_with_the_hook_command_on_its_config_line(
    tmp_path: Path,
) -> None:
    install("opencode", tmp_path, judge="hook_judges:denies", fail_closed=True, timeout_s=5)
    path = tmp_path / ".opencode/plugin/agent-control-plane.js"
    assert _plugin_config(path) == {
        "command": [
            "/usr/bin/env",
            "-u",
            "ACP_POLICY",
            "ACP_JUDGE=hook_judges:denies",
            "ACP_FAIL_CLOSED=1",
            str(BIN / "acp-opencode-hook"),
        ],
        "failClosed": True,
        "timeoutMs": 5000,
    }
    shipped = OPENCODE_PLUGIN.read_text().splitlines()
    written = path.read_text().splitlines()
    # Every other line is the generated plugin, byte for byte.
    assert len(shipped) == len(written)
    assert [a for a, b in zip(shipped, written, strict=True) if a != b] == [
        line for line in shipped if line.startswith("const CONFIG = ")
    ]
    # Only node built-ins: offline, opencode stalls installing a plugin folder's dependencies.
    imports = [line for line in written if line.startswith("import ")]
    assert imports and all('from "node:' in line for line in imports)


def test_opencode_plain_install_runs_the_console_script_and_fails_open(tmp_path: Path) -> None:
    plan = plan_install("opencode", scope="user", home=tmp_path, bin_dir=BIN)
    assert plan.path == tmp_path / ".config/opencode/plugin/agent-control-plane.js"
    assert any("@opencode-ai/plugin" in note for note in plan.notes)
    plan.apply()
    assert _plugin_config(plan.path) == {
        "command": [str(BIN / "acp-opencode-hook")],
        "failClosed": False,
        "timeoutMs": 30000,
    }


def test_opencode_reinstall_replaces_its_plugin_and_refuses_a_file_it_did_not_write(
    tmp_path: Path,
) -> None:
    install("opencode", tmp_path, fail_closed=True)
    assert install("opencode", tmp_path) is True
    path = tmp_path / ".opencode/plugin/agent-control-plane.js"
    assert _plugin_config(path)["failClosed"] is False
    path.write_text("export const Mine = async () => ({});\n")
    with pytest.raises(InstallError, match="was not written by acp install"):
        plan_install("opencode", root=tmp_path, bin_dir=BIN)
    assert path.read_text() == "export const Mine = async () => ({});\n"


def test_codex_user_config_toml_keeps_comments_and_tables(tmp_path: Path) -> None:
    path = tmp_path / ".codex/config.toml"
    path.parent.mkdir()
    path.write_text('# my settings\nmodel = "gpt-5"  # pinned\n\n[features]\nhooks = true\n')
    install("codex", tmp_path, scope="user", codex_version="0.150.0")
    text = path.read_text()
    assert text.startswith('# my settings\nmodel = "gpt-5"  # pinned\n')
    assert "[features]\nhooks = true\n" in text
    import tomllib

    config = tomllib.loads(text)
    handler = config["hooks"]["PreToolUse"][0]["hooks"][0]
    assert handler["command"].endswith(f"ACP_CODEX_VERSION=0.150.0 {BIN / 'acp-codex-hook'}")
    # CX-4: UserPromptSubmit can block, so it is registered beside the tool events.
    assert sorted(config["hooks"]) == ["PostToolUse", "PreToolUse", "UserPromptSubmit"]
    install("codex", tmp_path, scope="user", codex_version="0.151.0")
    again = tomllib.loads(path.read_text())
    assert len(again["hooks"]["PreToolUse"]) == 1
    assert again["hooks"]["PreToolUse"][0]["hooks"][0]["command"].startswith(
        "/usr/bin/env ACP_CODEX_VERSION=0.151.0 "
    )


def test_codex_without_a_version_says_what_it_still_blocks(tmp_path: Path) -> None:
    plan = plan_install("codex", root=tmp_path, bin_dir=BIN)
    assert any("No --codex-version" in n and "denies block" in n for n in plan.notes)
    assert any("--dangerously-bypass-hook-trust" in note for note in plan.notes)  # CX-8
    pinned = plan_install("codex", root=tmp_path, bin_dir=BIN, codex_version="0.150.0")
    assert not any("No --codex-version" in note for note in pinned.notes)


def test_amp_rule_goes_after_the_users_stricter_rules_and_keeps_the_others(
    tmp_path: Path,
) -> None:
    path = tmp_path / ".config/amp/settings.json"
    path.parent.mkdir(parents=True)
    mine = {"tool": "Bash", "action": "reject"}
    path.write_text(json.dumps({"amp.permissions": [mine], "amp.theme": "dark"}))
    install("amp", tmp_path, scope="user")
    install("amp", tmp_path, scope="user")
    settings = json.loads(path.read_text())
    assert settings["amp.theme"] == "dark"
    delegate = {"tool": "*", "action": "delegate", "to": str(BIN / "acp-amp-hook")}
    # H2: the user's reject stays ahead of the delegate, so it still wins.
    assert settings["amp.permissions"] == [mine, delegate]


def test_amp_refuses_options_it_cannot_pass(tmp_path: Path) -> None:
    with pytest.raises(InstallError, match="without arguments"):
        plan_install("amp", root=tmp_path, bin_dir=BIN, judge="a:b")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{broken", "is not valid JSON"),
        ("[1]", "not an object"),
        ('{"hooks": []}', "'hooks' is a list"),
        ('{"hooks": {"PreToolUse": {}}}', "'PreToolUse' is a dict"),
    ],
)
def test_a_config_that_cannot_be_merged_is_refused_by_name(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / ".claude/settings.json"
    path.parent.mkdir()
    path.write_text(content)
    with pytest.raises(InstallError, match=message) as caught:
        plan_install("claude", root=tmp_path, bin_dir=BIN)
    assert str(path) in str(caught.value)
    assert path.read_text() == content  # nothing lost


def test_bad_toml_and_bad_options_are_refused(tmp_path: Path) -> None:
    path = tmp_path / ".codex/config.toml"
    path.parent.mkdir()
    path.write_text("[[[")
    with pytest.raises(InstallError, match="not valid TOML"):
        plan_install("codex", scope="user", home=tmp_path, bin_dir=BIN)
    with pytest.raises(InstallError, match="known hosts"):
        plan_install("nobody", root=tmp_path, bin_dir=BIN)
    with pytest.raises(InstallError, match="Codex option"):
        plan_install("claude", root=tmp_path, bin_dir=BIN, codex_version="1.0.0")
    with pytest.raises(InstallError, match="positive"):
        plan_install("claude", root=tmp_path, bin_dir=BIN, timeout_s=0)
    with pytest.raises(InstallError, match="does not exist"):
        plan_install("claude", root=tmp_path, bin_dir=tmp_path)


def test_the_installed_command_blocks_rm_rf_when_the_host_runs_it(tmp_path: Path) -> None:
    install("claude", tmp_path, judge="hook_judges:denies")
    settings = json.loads((tmp_path / ".claude/settings.json").read_text())
    command = settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    # Claude Code runs the command through a shell with the payload on stdin.
    result = subprocess.run(
        command,
        shell=True,
        input=json.dumps(PRE_TOOL["claude"]),
        capture_output=True,
        text=True,
        env=hook_env("claude"),
        check=False,
    )
    assert (result.returncode, result.stderr) == (2, "denied by test")


def test_hook_command_quotes_paths_with_spaces(tmp_path: Path) -> None:
    folder = tmp_path / "my venv" / "bin"
    argv = hook_command("claude", policy="rules file.toml", bin_dir=folder)
    assert shlex.split(shlex.join(argv)) == argv
    assert argv[-1] == str(folder / "acp-claude-hook")
    assert argv[1] == f"ACP_POLICY={Path('rules file.toml').absolute()}"


def test_auggie_registers_pre_tool_use_in_augment_settings_in_milliseconds(tmp_path: Path) -> None:
    plan = plan_install("auggie", root=tmp_path, bin_dir=BIN, timeout_s=5)
    assert plan.path == tmp_path / ".augment/settings.json"
    hooks = json.loads(plan.after)["hooks"]
    # The installer registers the gated kinds, and hosts/auggie.json gates pre_tool only.
    assert sorted(hooks) == ["PreToolUse"]
    (handler,) = hooks["PreToolUse"][0]["hooks"]
    assert handler == {"type": "command", "command": str(BIN / "acp-auggie-hook"), "timeout": 5000}
    assert "onFailure" not in plan.after


def test_crush_writes_a_flat_pre_tool_use_handler_and_keeps_other_settings(
    tmp_path: Path,
) -> None:
    config = tmp_path / "crush.json"
    config.write_text(
        json.dumps(
            {"options": {"debug": True}, "hooks": {"PreToolUse": [{"command": "./mine.sh"}]}}
        )
    )
    plan = plan_install("crush", root=tmp_path, bin_dir=BIN, fail_closed=True, timeout_s=7)
    settings = json.loads(plan.after)
    assert settings["options"] == {"debug": True}
    mine, ours = settings["hooks"]["PreToolUse"]
    assert mine == {"command": "./mine.sh"}
    assert shlex.split(ours["command"])[-2:] == ["ACP_FAIL_CLOSED=1", str(BIN / "acp-crush-hook")]
    assert ours["timeout"] == 7 and "matcher" not in ours
    assert any("no fail-closed option" in note for note in plan.notes)
    plan.apply()
    again = plan_install("crush", root=tmp_path, bin_dir=BIN, timeout_s=7)
    assert len(json.loads(again.after)["hooks"]["PreToolUse"]) == 2
    user = plan_install("crush", scope="user", home=tmp_path, bin_dir=BIN)
    assert user.path == tmp_path / ".config/crush/crush.json"


def test_cline_writes_an_executable_program_per_tool_event(tmp_path: Path) -> None:
    assert install("cline", tmp_path)
    # PostToolUse context reaches the model; prompt programs run detached (hosts/cline.json).
    assert sorted(p.name for p in (tmp_path / ".clinerules/hooks").iterdir()) == [
        "PostToolUse",
        "PreToolUse",
    ]
    for name in ("PreToolUse", "PostToolUse"):
        program = tmp_path / ".clinerules/hooks" / name
        assert program.stat().st_mode & 0o777 == 0o755
        lines = program.read_text().splitlines()
        assert lines[0] == "#!/bin/sh"
        assert lines[-1] == f"exec {BIN / 'acp-cline-hook'}"
    user = plan_install("cline", scope="user", home=tmp_path, bin_dir=BIN)
    assert user.path == tmp_path / "Documents/Cline/Hooks/PreToolUse"
    assert [plan.path for plan in user.also] == [tmp_path / "Documents/Cline/Hooks/PostToolUse"]
    assert f"+++ {tmp_path / 'Documents/Cline/Hooks/PostToolUse'}" in user.diff()


def test_cline_fail_closed_registers_both_programs_closed(tmp_path: Path) -> None:
    install("cline", tmp_path, fail_closed=True)
    for name in ("PreToolUse", "PostToolUse"):
        text = (tmp_path / ".clinerules/hooks" / name).read_text()
        assert "ACP_FAIL_CLOSED=1 " in text.rstrip().splitlines()[-1], name


def test_cline_restores_the_executable_bit_and_refuses_a_foreign_program(tmp_path: Path) -> None:
    install("cline", tmp_path)
    program = tmp_path / ".clinerules/hooks/PreToolUse"
    program.chmod(0o644)
    assert install("cline", tmp_path)
    assert program.stat().st_mode & 0o777 == 0o755
    program.write_text("#!/bin/sh\n./my-own-check\n")
    with pytest.raises(InstallError, match="not ours"):
        plan_install("cline", root=tmp_path, bin_dir=BIN)
    # A foreign program in the second event's place is refused too, before anything is written.
    program.unlink()
    (tmp_path / ".clinerules/hooks/PostToolUse").write_text("#!/bin/sh\n./theirs\n")
    with pytest.raises(InstallError, match="PostToolUse already holds"):
        plan_install("cline", root=tmp_path, bin_dir=BIN)
    assert not program.exists()


def test_the_installed_cline_program_cancels_a_denied_call(tmp_path: Path) -> None:
    install("cline", tmp_path, judge="hook_judges:denies")
    payload = {
        "hookName": "tool_call",
        "taskId": "t1",
        "tool_call": {"id": "c1", "name": "run_commands", "input": {"commands": ["rm -rf /"]}},
    }
    result = subprocess.run(
        [str(tmp_path / ".clinerules/hooks/PreToolUse")],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=hook_env("cline"),
        check=False,
    )
    assert result.returncode == 2
    assert json.loads(result.stdout) == {"cancel": True, "errorMessage": "denied by test"}


def test_windsurf_registers_every_blocking_pre_hook_with_show_output(tmp_path: Path) -> None:
    plan = plan_install("windsurf", root=tmp_path, bin_dir=BIN)
    assert plan.path == tmp_path / ".windsurf/hooks.json"
    hooks = json.loads(plan.after)["hooks"]
    # Post-hooks cannot block, so only the pre-hooks are registered (hosts/windsurf.json).
    assert sorted(hooks) == [
        "pre_mcp_tool_use",
        "pre_read_code",
        "pre_run_command",
        "pre_user_prompt",
        "pre_write_code",
    ]
    for action in hooks:
        assert hooks[action] == [{"command": str(BIN / "acp-windsurf-hook"), "show_output": True}]
    user = plan_install("windsurf", scope="user", home=tmp_path, bin_dir=BIN)
    assert user.path == tmp_path / ".codeium/windsurf/hooks.json"


def test_a_four_space_settings_file_keeps_its_indentation(tmp_path: Path) -> None:
    # N36: a committed settings file gets a diff of the lines that change, not a re-indent.
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"model": "x", "permissions": {"allow": ["Read"]}}, indent=4))
    assert install("claude", tmp_path) is True
    text = settings.read_text()
    assert '\n    "model": "x",\n    "permissions": {\n        "allow": [' in text
    assert json.loads(text)["hooks"]["PreToolUse"]


def _run_installed(
    command: str, payload: dict[str, Any], **env: str
) -> subprocess.CompletedProcess[str]:
    """Run an installed command line the way the Claude family does: through sh -c."""
    return subprocess.run(
        ["sh", "-c", command],
        input=json.dumps(payload),
        env=hook_env("claude", **env),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_options_keep_the_fast_entry_and_still_reach_the_hook(tmp_path: Path) -> None:
    # N13: `acp hook` loads the argument parser on every call; options go in the environment.
    allow_all = tmp_path / "allow.toml"
    allow_all.write_text("rules = []\n", encoding="utf-8")
    install("claude", tmp_path, judge="hook_judges:denies", on_unrendered="note")
    settings = json.loads((tmp_path / ".claude/settings.json").read_text())
    command = settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    argv = shlex.split(command)
    assert argv[-1] == str(BIN / "acp-claude-hook") and "hook" not in argv
    ls = {**PRE_TOOL["claude"], "tool_input": {"command": "ls"}}
    # The registered judge wins over an ACP_POLICY inherited from the host's environment.
    denied = _run_installed(command, ls, ACP_POLICY=str(allow_all))
    assert (denied.returncode, denied.stderr) == (2, "denied by test")
    assert json.loads(denied.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_a_folder_env_would_misread_is_refused_when_options_are_set(tmp_path: Path) -> None:
    folder = tmp_path / "a=b" / "bin"
    assert hook_command("claude", bin_dir=folder) == [str(folder / "acp-claude-hook")]
    with pytest.raises(InstallError, match="'=' in its path"):
        hook_command("claude", judge="m:f", bin_dir=folder)


def test_reinstall_replaces_an_entry_in_the_earlier_acp_hook_form(tmp_path: Path) -> None:
    path = tmp_path / ".claude/settings.json"
    path.parent.mkdir()
    old = shlex.join([str(BIN / "acp"), "hook", "claude", "--judge", "hook_judges:denies"])
    handler = {"type": "command", "command": old, "timeout": 30}
    path.write_text(json.dumps({"hooks": {"PreToolUse": [{"hooks": [handler]}]}}))
    install("claude", tmp_path, judge="hook_judges:asks")
    (group,) = json.loads(path.read_text())["hooks"]["PreToolUse"]
    (ours,) = group["hooks"]
    assert ours["command"].endswith(f"ACP_JUDGE=hook_judges:asks {BIN / 'acp-claude-hook'}")


@pytest.mark.parametrize("sole_gate", [False, True])
def test_sole_gate_is_an_install_option_that_sends_the_explicit_allow(
    tmp_path: Path, sole_gate: bool
) -> None:
    # N18: without it an allow abstains (the host's own prompt runs); with it the allow is explicit.
    install("claude", tmp_path, sole_gate=sole_gate)
    settings = json.loads((tmp_path / ".claude/settings.json").read_text())
    command = settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    assert ("ACP_SOLE_GATE=1" in command) is sole_gate
    ls = {**PRE_TOOL["claude"], "tool_input": {"command": "ls"}}
    answer = _run_installed(command, ls)
    assert answer.returncode == 0
    body = json.loads(answer.stdout)["hookSpecificOutput"]
    assert body.get("permissionDecision") == ("allow" if sole_gate else None)


def test_matcher_goes_on_the_tool_events_and_a_reinstall_moves_or_drops_it(tmp_path: Path) -> None:
    # N15: a hook for every tool costs a process start per Read or Grep call.
    install("claude", tmp_path, matcher="Bash|Edit")
    path = tmp_path / ".claude/settings.json"
    hooks = json.loads(path.read_text())["hooks"]
    assert [group["matcher"] for group in hooks["PreToolUse"]] == ["Bash|Edit"]
    assert [group["matcher"] for group in hooks["PostToolUse"]] == ["Bash|Edit"]
    assert "matcher" not in hooks["UserPromptSubmit"][0]  # a prompt names no tool
    install("claude", tmp_path)
    (group,) = json.loads(path.read_text())["hooks"]["PreToolUse"]
    assert "matcher" not in group and len(group["hooks"]) == 1


def test_matcher_leaves_a_shared_group_to_its_other_handlers(tmp_path: Path) -> None:
    path = tmp_path / ".claude/settings.json"
    path.parent.mkdir()
    theirs = {"type": "command", "command": "./mine.sh"}
    ours = {"type": "command", "command": str(BIN / "acp-claude-hook"), "timeout": 9}
    group = {"matcher": "Read", "hooks": [theirs, ours]}
    path.write_text(json.dumps({"hooks": {"PreToolUse": [group]}}))
    install("claude", tmp_path, matcher="Bash")
    pre = json.loads(path.read_text())["hooks"]["PreToolUse"]
    assert pre == [{"matcher": "Read", "hooks": [theirs]}, {"matcher": "Bash", "hooks": [ours]}]


def test_matcher_is_kiros_tool_regex_and_refused_where_there_is_none(tmp_path: Path) -> None:
    plan = plan_install("kiro", root=tmp_path, bin_dir=BIN, matcher="shell")
    entries = json.loads(plan.after)["hooks"]
    assert {e["trigger"]: e.get("matcher") for e in entries}["PreToolUse"] == "shell"
    with pytest.raises(InstallError, match="cursor has no tool matcher"):
        plan_install("cursor", root=tmp_path, bin_dir=BIN, matcher="Shell")
    with pytest.raises(InstallError, match="not a regular expression"):
        plan_install("claude", root=tmp_path, bin_dir=BIN, matcher="(Bash")


def test_local_writes_claudes_per_machine_file_and_project_scope_says_why(tmp_path: Path) -> None:
    # N14: .claude/settings.json is committed; the absolute venv path is this machine's.
    shared = plan_install("claude", root=tmp_path, bin_dir=BIN)
    assert any("--local writes .claude/settings.local.json" in note for note in shared.notes)
    local = plan_install("claude", root=tmp_path, bin_dir=BIN, local=True)
    assert local.path == tmp_path / ".claude/settings.local.json"
    command = json.loads(local.after)["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    assert command == str(BIN / "acp-claude-hook")
    assert any("keep it out of git" in note for note in local.notes)
    assert not any(
        "other machine" in n
        for n in plan_install("claude", home=tmp_path, scope="user", bin_dir=BIN).notes
    )
    with pytest.raises(InstallError, match="--local"):
        plan_install("gemini", root=tmp_path, bin_dir=BIN, local=True)
    with pytest.raises(InstallError, match="--local"):
        plan_install("claude", home=tmp_path, scope="user", bin_dir=BIN, local=True)
