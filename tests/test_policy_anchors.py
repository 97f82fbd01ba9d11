"""Issue 26: file changes are canonical Edit/Write everywhere, and path rules anchor on the project."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_control_plane_core import AGENT_IDS, adapter_for
from agent_control_plane_core.cli import main
from agent_control_plane_core.policy import check_policy_file, load_policy_judge

from conftest import REPO
from hook_runner import BLOCK_EXIT, run_hook

EXAMPLE = REPO / "examples" / "policy.toml"
OUTSIDE = """[[rules]]
name = "outside"
tools = ["Edit", "Write"]
paths = ["!{project}/**"]
decision = "deny"
reason = "outside the project"
"""


def _claude(tool: str, tool_input: dict[str, Any], cwd: str | None = "/work/app") -> Any:
    payload: dict[str, Any] = {
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
    }
    if cwd is not None:
        payload["cwd"] = cwd
    return adapter_for("claude").parse(payload)


@pytest.fixture
def outside(tmp_path: Path) -> Any:
    path = tmp_path / "p.toml"
    path.write_text(OUTSIDE, encoding="utf-8")
    return load_policy_judge(str(path))


def test_multi_edit_and_notebook_edit_are_canonical_edits() -> None:
    multi = _claude("MultiEdit", {"file_path": "/x/a.py", "edits": []})
    assert (multi.tool, multi.meta.native_tool, multi.input["file_path"]) == (
        "Edit",
        "MultiEdit",
        "/x/a.py",
    )
    notebook = _claude("NotebookEdit", {"notebook_path": "/x/n.ipynb", "new_source": "1"})
    assert notebook.tool == "Edit" and notebook.input == {
        "new_source": "1",
        "file_path": "/x/n.ipynb",
    }


@pytest.mark.parametrize(
    ("tool", "tool_input", "decision"),
    [
        ("MultiEdit", {"file_path": "/etc/hosts", "edits": []}, "deny"),
        ("MultiEdit", {"file_path": "../../etc/hosts", "edits": []}, "deny"),
        ("MultiEdit", {"file_path": "/work/app/src/a.py", "edits": []}, "allow"),
        ("MultiEdit", {"file_path": "/work/application/a.py", "edits": []}, "deny"),
        ("NotebookEdit", {"notebook_path": "/home/dev/n.ipynb", "new_source": ""}, "deny"),
        ("NotebookEdit", {"notebook_path": "nb/n.ipynb", "new_source": ""}, "allow"),
        ("Write", {"file_path": "/work/app", "content": ""}, "allow"),
    ],
)
def test_one_portable_rule_denies_changes_outside_the_project(
    outside: Any, tool: str, tool_input: dict[str, Any], decision: str
) -> None:
    assert outside(_claude(tool, tool_input)).decision == decision


def test_project_comes_from_acp_project_dir_then_the_cwd_then_the_hook_folder(
    outside: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    event = _claude("Write", {"file_path": "/work/app/a.py", "content": ""})
    monkeypatch.setenv("ACP_PROJECT_DIR", "/srv/real")
    assert outside(event).decision == "deny"
    assert (
        outside(_claude("Write", {"file_path": "/srv/real/a", "content": ""})).decision == "allow"
    )
    monkeypatch.delenv("ACP_PROJECT_DIR")
    # No cwd in the payload: the hook's own working folder, where hosts start it.
    monkeypatch.chdir(tmp_path)
    inside = _claude("Write", {"file_path": str(tmp_path / "a"), "content": ""}, cwd=None)
    assert outside(inside).decision == "allow"
    assert (
        outside(_claude("Write", {"file_path": "/etc/x", "content": ""}, cwd=None)).decision
        == "deny"
    )
    # A relative ACP_PROJECT_DIR anchors nothing: the deny rule counts it as unreadable input.
    monkeypatch.setenv("ACP_PROJECT_DIR", "relative")
    verdict = outside(event)
    assert verdict.decision == "deny" and "input the policy cannot read" in verdict.reason


def test_cwd_and_home_anchors_and_glob_characters_in_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "p.toml"
    path.write_text(
        '[[rules]]\nname = "home"\ndecision = "ask"\ntools = ["Write"]\npaths = ["{home}/.ssh/**"]\n'
        '[[rules]]\nname = "cwd"\ndecision = "deny"\ntools = ["Write"]\npaths = ["{cwd}/*.lock"]\n',
        encoding="utf-8",
    )
    judge = load_policy_judge(str(path))
    monkeypatch.setenv("HOME", "/home/d[e]v")
    assert (
        judge(_claude("Write", {"file_path": "/home/d[e]v/.ssh/config", "content": ""})).decision
        == "ask"
    )
    # The folder's brackets are literal text, not a character class.
    assert (
        judge(_claude("Write", {"file_path": "/home/dev/.ssh/config", "content": ""})).decision
        == "allow"
    )
    assert judge(_claude("Write", {"file_path": "x.lock", "content": ""})).decision == "deny"
    assert judge(_claude("Write", {"file_path": "sub/x.lock", "content": ""})).decision == "allow"
    monkeypatch.delenv("HOME")
    # No HOME: an ask rule that cannot anchor does not match (only a deny or ask with
    # on_unparsed = match counts it; here the default holds, so it is a match).
    verdict = judge(_claude("Write", {"file_path": "/x/.ssh/config", "content": ""}))
    assert verdict.decision == "ask" and "anchor" in " ".join(
        judge.explain(_claude("Write", {"file_path": "/x/.ssh/config", "content": ""})).why
    )


def test_an_allow_rule_with_an_anchor_never_covers_an_unknown_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "p.toml"
    path.write_text(
        '[[rules]]\nname = "in"\ndecision = "allow"\ntools = ["Write"]\npaths = ["{home}/**"]\n'
        '[[rules]]\nname = "rest"\ndecision = "ask"\ntools = ["Write"]\n',
        encoding="utf-8",
    )
    judge = load_policy_judge(str(path))
    monkeypatch.delenv("HOME", raising=False)
    assert judge(_claude("Write", {"file_path": "/a", "content": ""})).decision == "ask"


def test_an_unknown_anchor_is_an_error_with_a_suggestion(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text(OUTSIDE.replace("{project}", "{projct}"), encoding="utf-8")
    problems = check_policy_file(str(path))
    assert problems and "{projct}, which is not an anchor" in problems[0]
    assert "did you mean {project}?" in problems[0]


def test_a_multi_edit_outside_the_project_is_blocked_by_the_shipped_policy_hook() -> None:
    payload = {
        "hook_event_name": "PreToolUse",
        "cwd": "/work/app",
        "tool_name": "MultiEdit",
        "tool_input": {"file_path": "/work/other/a.py", "edits": []},
    }
    run = run_hook("claude", payload, ACP_POLICY=str(EXAMPLE))
    assert run.code == BLOCK_EXIT["claude"]
    assert run.stderr.startswith("policy: changing a file outside the project is not allowed")


def test_the_shipped_policys_outside_tests_run_on_every_host_with_file_tools() -> None:
    from agent_control_plane_core.policy_tools import fixtures_dir, run_tests

    runs = [run for run in run_tests(str(EXAMPLE), (), fixtures_dir()) if "outside" in run.test]
    assert [run for run in runs if not run.skipped and run.problem is not None] == []
    hosts = {run.agent for run in runs if not run.skipped}
    # Every host whose payload carries a cwd and that has a file tool (Codex: apply_patch).
    assert len(hosts) >= 8 and {"claude", "codex", "gemini", "copilot", "opencode"} <= hosts
    multi = [run for run in runs if run.test == "outside: Claude MultiEdit" and not run.skipped]
    assert [run.agent for run in multi] == ["claude"]


def test_policy_test_fails_when_it_ran_no_host_case(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import agent_control_plane_core.policy_tools as tools

    # A wheel install without fixtures: neither the checkout's nor the packaged folder exists.
    monkeypatch.setattr(tools, "_CHECKOUT_FIXTURES", tmp_path / "none")
    monkeypatch.setattr(tools, "_PACKAGED_FIXTURES", tmp_path / "none")
    assert main(["policy", "test", str(EXAMPLE)]) == 1
    captured = capsys.readouterr()
    # Only the four whole-payload tests could run; every other test is reported, not passed.
    assert "4 of 106 test(s) passed" in captured.out
    assert "NOT RUN form 1: rm -r -f / (no host could build this call)" in captured.out
    assert "102 test(s) ran on no host, so nothing checked them" in captured.err
    rules = tmp_path / "one.toml"
    rules.write_text(
        'tests = [{ name = "t", tool = "Bash", input = { command = "ls" }, expect = "allow" }]\n'
        '[[rules]]\ndecision = "deny"\ntools = ["Read"]\n',
        encoding="utf-8",
    )
    assert main(["policy", "test", str(rules)]) == 1
    captured = capsys.readouterr()
    assert "0 of 1 test(s) passed, 0 host run(s)" in captured.out
    assert "no test ran on any host, so nothing checked them" in captured.err


def test_policy_test_finds_the_packaged_fixtures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import agent_control_plane_core.policy_tools as tools

    monkeypatch.setattr(tools, "_CHECKOUT_FIXTURES", tmp_path / "none")
    packaged = tmp_path / "packaged"
    packaged.mkdir()
    for agent in AGENT_IDS:
        (packaged / f"{agent}.json").write_text((REPO / "fixtures" / f"{agent}.json").read_text())
    monkeypatch.setattr(tools, "_PACKAGED_FIXTURES", packaged)
    assert tools.fixtures_dir() == packaged
    assert main(["policy", "test", str(EXAMPLE), "--agent", "claude"]) == 0
