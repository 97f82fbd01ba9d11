"""Issue 26: each way a new user's guard could switch itself off ends in a block or a loud refusal."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agent_control_plane_core import policy
from agent_control_plane_core.install import InstallError, plan_install
from agent_control_plane_core.runtime import JudgeLoadError, judge_from_env

from hook_runner import BIN, PRE_TOOL, hook_env

RULES = """# the guard
[[rules]]
name = "no-rm-rf"
decision = "deny"
tools = ["Bash"]
match = "rm -rf"
reason = "rm -rf is not allowed"
"""


def _registered(settings: Path, event: str = "PreToolUse") -> str:
    command: str = json.loads(settings.read_text())["hooks"][event][0]["hooks"][0]["command"]
    return command


def _run(command: str, payload: Any, **env: str) -> subprocess.CompletedProcess[str]:
    """The registered command through a shell, as Claude Code runs it, with a clean environment."""
    clean = hook_env("claude", **env)
    clean.pop("PYTHONPATH", None)  # the host's environment, not the test's
    return subprocess.run(
        ["sh", "-c", command], input=json.dumps(payload), capture_output=True, text=True, env=clean
    )


@pytest.fixture
def guard(tmp_path: Path) -> Path:
    """A project and, beside it, the user's own folder for the guard."""
    (tmp_path / "project").mkdir()
    (tmp_path / "guard").mkdir()
    return tmp_path


def test_a_typo_in_an_installed_policy_blocks_naming_file_line_and_fix(guard: Path) -> None:
    rules = guard / "guard" / "policy.toml"
    rules.write_text(RULES, encoding="utf-8")
    plan_install("claude", root=guard / "project", bin_dir=BIN, policy=str(rules)).apply()
    command = _registered(guard / "project" / ".claude" / "settings.json")
    log = guard / "guard" / "audit.jsonl"
    harmless = json.loads(json.dumps(PRE_TOOL["claude"]).replace("rm -rf /", "ls"))
    assert _run(command, harmless, ACP_AUDIT_LOG=str(log)).returncode == 0
    # One typo edited in later: every call is blocked, and the reason says where and what to do.
    rules.write_text(RULES.replace('decision = "deny"', 'decison = "deny"'), encoding="utf-8")
    run = _run(command, harmless, ACP_AUDIT_LOG=str(log))
    assert run.returncode == 2 and str(rules) in run.stderr
    # Where install pinned the file's digest (issue 28), the change itself is what is named;
    # without the pin, the error found in the file is, with its line.
    command = re.sub(r" ACP_POLICY_DIGEST=\S+", "", command)
    run = _run(command, harmless, ACP_AUDIT_LOG=str(log))
    assert run.returncode == 2
    assert f"policy {rules}: line 2, rules[0] ('no-rm-rf'), field decison" in run.stderr
    assert "acp policy check FILE" in run.stderr and "ACP_ON_CONFIG_ERROR=host" in run.stderr
    body = json.loads(run.stdout)["hookSpecificOutput"]
    assert body["permissionDecision"] == "deny"
    last = json.loads(log.read_text().splitlines()[-1])
    assert last["event"]["tool"] == "Bash" and last["verdict"]["decision"] == "deny"
    assert last["failure"].startswith(f"configuration error: policy {rules}: line 2")
    # An unreadable rule file is a configuration error too; ACP_ON_CONFIG_ERROR=host keeps the
    # host's failure posture (Claude Code: exit 0, the call runs), and says so.
    rules.unlink()
    assert _run(command, harmless).returncode == 2
    run = _run(command, harmless, ACP_ON_CONFIG_ERROR="host")
    assert run.returncode == 0 and "cannot read the rule file" in run.stderr


def test_a_toml_error_names_its_line(guard: Path) -> None:
    rules = guard / "guard" / "policy.toml"
    rules.write_text(RULES + "oops =\n", encoding="utf-8")
    with pytest.raises(JudgeLoadError, match=r"not valid TOML \(.*line 8"):
        policy.load_policy_judge(str(rules))


def test_the_hook_imports_the_judge_install_checked_through_pythonpath(
    guard: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = guard / "guard" / "mymod_day_one.py"
    module.write_text(
        "from agent_control_plane_core import Verdict\n"
        "def judge(event):\n"
        "    return Verdict(decision='deny', reason='mine')\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("PYTHONPATH", str(module.parent))
    monkeypatch.syspath_prepend(str(module.parent))
    project = guard / "project"
    plan_install("claude", root=project, bin_dir=BIN, judge="mymod_day_one:judge").apply()
    command = _registered(project / ".claude" / "settings.json")
    assert f"ACP_JUDGE_PATH={module.parent}" in command
    # The host's environment has no PYTHONPATH: the judge still imports and decides.
    run = _run(command, PRE_TOOL["claude"])
    assert run.returncode == 2 and run.stderr.splitlines()[0] == "mine"
    # The module removed: a block that names where it was installed from and the fix.
    module.unlink()
    run = _run(command, PRE_TOOL["claude"])
    assert run.returncode == 2
    assert f"installed from ACP_JUDGE_PATH={module.parent}" in run.stderr
    assert "run acp install --judge again" in run.stderr


def test_a_judge_path_that_loses_the_module_is_named(tmp_path: Path) -> None:
    env = {"ACP_JUDGE": "nowhere_day_one:judge", "ACP_JUDGE_PATH": str(tmp_path)}
    with pytest.raises(JudgeLoadError, match="installed from ACP_JUDGE_PATH"):
        judge_from_env(env)
    with pytest.raises(JudgeLoadError, match="check PYTHONPATH") as caught:
        judge_from_env({"ACP_JUDGE": "nowhere_day_one:judge"})
    assert "ACP_JUDGE_PATH" not in str(caught.value)


def test_install_warns_on_a_guard_inside_the_project(
    guard: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = guard / "project"
    inside = project / "policy.toml"
    inside.write_text(RULES, encoding="utf-8")
    monkeypatch.chdir(guard / "guard")
    # A tmp_path is under /tmp, itself a folder a sandboxed agent may write: left out here.
    monkeypatch.setattr("agent_control_plane_core.install._notes._temporary_folders", lambda: ())
    notes = plan_install("claude", root=project, bin_dir=BIN, policy=str(inside)).notes
    warned = [note for note in notes if note.startswith("warning:")]
    assert warned and f"the policy {inside} is inside {project}" in warned[0]
    assert "acp install claude again" in warned[0]
    outside = guard / "guard" / "policy.toml"
    outside.write_text(RULES, encoding="utf-8")
    notes = plan_install("claude", root=project, bin_dir=BIN, policy=str(outside)).notes
    assert not [note for note in notes if note.startswith("warning:")]
    # A judge module inside the project is warned about the same way.
    (project / "inproject_day_one.py").write_text("def judge(event):\n    return None\n")
    monkeypatch.syspath_prepend(str(project))
    notes = plan_install("claude", root=project, bin_dir=BIN, judge="inproject_day_one:judge").notes
    assert any(n.startswith("warning: the judge inproject_day_one:judge") for n in notes)


def test_install_warns_on_a_guard_in_a_temporary_folder(tmp_path: Path) -> None:
    rules = tmp_path / "policy.toml"
    rules.write_text(RULES, encoding="utf-8")
    notes = plan_install(
        "claude", scope="user", home=tmp_path, bin_dir=BIN, policy=str(rules)
    ).notes
    assert any(n.startswith(f"warning: the policy {rules} is inside /tmp") for n in notes)


def test_install_says_what_stays_open_when_the_hook_cannot_start(tmp_path: Path) -> None:
    # opencode's plugin blocks a dead entry when installed with --fail-closed (its dead_hook).
    opencode = plan_install("opencode", root=tmp_path, bin_dir=BIN).notes
    assert any("exit 127" in n and "--fail-closed registers its own block" in n for n in opencode)
    closed = plan_install("opencode", root=tmp_path, bin_dir=BIN, fail_closed=True).notes
    assert not any("exit 127" in n for n in closed)
    gemini = plan_install("gemini", root=tmp_path, bin_dir=BIN).notes
    assert any("exit 127" in n and "no blocking failure mode" in n for n in gemini)


def test_a_judge_that_does_not_import_is_refused_with_the_fix(tmp_path: Path) -> None:
    with pytest.raises(InstallError, match=r"cannot import 'absent_day_one'.*check PYTHONPATH"):
        plan_install("claude", root=tmp_path, bin_dir=BIN, judge="absent_day_one:judge")


def test_audit_log_is_registered_in_the_command(tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    plan = plan_install("gemini", root=tmp_path, bin_dir=BIN, audit_log=str(log))
    assert f"ACP_AUDIT_LOG={log}" in plan.after


def test_acp_audit_lists_what_was_denied_asked_or_failed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agent_control_plane_core.cli import main

    from conftest import REPO
    from hook_runner import run_hook

    log = tmp_path / "audit.jsonl"
    env = {"ACP_POLICY": str(REPO / "examples" / "policy.toml"), "ACP_AUDIT_LOG": str(log)}
    assert run_hook("claude", **env).code == 2
    push = json.loads(json.dumps(PRE_TOOL["claude"]).replace("rm -rf /", "git push"))
    run_hook("claude", push, **env)
    run_hook("claude", json.loads(json.dumps(PRE_TOOL["claude"]).replace("rm -rf /", "ls")), **env)
    run_hook("claude", raw=b"{not json", ACP_AUDIT_LOG=str(log))
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert records[0]["rule"] == "rules[0] ('no-rm-rf')"
    assert "rule" not in records[2] and "failure" not in records[2]
    assert records[3]["failure"].startswith("payload is not JSON")
    assert main(["audit", str(log)]) == 0
    out = capsys.readouterr().out
    listed = out[out.index("denied, asked or failed (3):") :].splitlines()[1:4]
    assert (
        "claude Bash rm -rf / -> deny by rules[0] ('no-rm-rf'): policy: rm -rf is blocked"
        in listed[0]
    )
    assert "claude Bash git push -> ask by rules[" in listed[1]
    assert "claude - -> failed: payload is not JSON" in listed[2]


def test_acp_version_and_help_per_policy_action(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    from agent_control_plane_core.cli import main

    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"acp {version('agent-control-plane-core')}"
    for action, usage in (
        ("check", "usage: acp policy check FILE..."),
        ("test", "usage: acp policy test FILE... [--agent HOST]... [--fixtures DIR]"),
        ("explain", "usage: acp policy explain RULES PAYLOAD --agent HOST"),
        ("replay", "usage: acp policy replay RULES AUDIT"),
    ):
        assert main(["policy", action, "--help"]) == 0
        assert capsys.readouterr().out.startswith(usage)
    assert "NOT RUN" in (main(["policy", "test", "-h"]), capsys.readouterr().out)[1]


def test_acp_install_audit_log_registers_the_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agent_control_plane_core.cli import main

    log = tmp_path / "logs" / "audit.jsonl"
    assert main(["install", "gemini", "--root", str(tmp_path), "--audit-log", str(log)]) == 0
    command = json.loads((tmp_path / ".gemini" / "settings.json").read_text())
    line = command["hooks"]["BeforeTool"][0]["hooks"][0]["command"]
    assert f"ACP_AUDIT_LOG={log}" in line


def test_an_unknown_policy_key_gets_a_did_you_mean(tmp_path: Path) -> None:
    rules = tmp_path / "p.toml"
    rules.write_text(
        'test = []\n[[rules]]\nname = "x"\ndecison = "deny"\n'
        'command = { programs = ["rm"] }\nrewrite = { pattern = "a", replacment = "b" }\n',
        encoding="utf-8",
    )
    problems = policy.check_policy_file(str(rules))
    assert any("'decison' was unexpected); did you mean 'decision'?" in p for p in problems)
    assert any("top level, field test" in p and "did you mean 'tests'?" in p for p in problems)
    with pytest.raises(JudgeLoadError) as caught:
        policy.load_policy_judge(str(rules))
    text = str(caught.value)
    assert "field decison: not a rule field; did you mean 'decision'?" in text
    assert "field command.programs: not a command field; did you mean 'program'?" in text
    assert "field rewrite.replacment: not a rewrite field; did you mean 'replacement'?" in text
    assert "field test: not a policy field; did you mean 'tests'?" in text


def test_the_readme_names_every_host_and_its_hook_entry() -> None:
    from agent_control_plane_core import AGENT_IDS

    from conftest import REPO

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    intro = readme[: readme.index("## Install it into your project")]
    for name in ("Auggie CLI", "Crush", "Cline", "Windsurf", "Claude Code", "opencode"):
        assert name in intro
    for agent in AGENT_IDS:
        assert f"| `acp-{agent}-hook` |" in readme, agent


def test_the_readme_claims_corrected_on_the_way_hold() -> None:
    from agent_control_plane_core import Verdict, adapter_for
    from agent_control_plane_core._generated.hosts import cline

    from hook_runner import run_hook

    # Codex without a version: a deny still blocks.
    assert run_hook("codex", ACP_CODEX_VERSION="").code == 2
    # Gemini CLI does replace tool output (a redaction reaches the model); Codex does not.
    assert "mutated_output" not in adapter_for("gemini").UNRENDERED_FIELDS["post_tool"]
    assert "mutated_output" in adapter_for("codex").UNRENDERED_FIELDS["post_tool"]
    gemini = adapter_for("gemini")
    event = gemini.parse(
        {
            "hook_event_name": "AfterTool",
            "tool_name": "run_shell_command",
            "tool_input": {"command": "env"},
            "tool_response": {"llmContent": "AKIA"},
        }
    )
    answer = gemini.render(Verdict(decision="allow", mutated_output="[REDACTED]"), event)
    assert "[REDACTED]" in json.dumps(answer.to_dict())
    # Cline's block ends the whole task.
    assert cline.BLOCK_ENDS_RUN is True
