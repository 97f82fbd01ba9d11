"""`acp status`: every entry per host and scope, its policy and digest, broken ones exit 1."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agent_control_plane_core._status import installed, parse_command, status_text
from agent_control_plane_core._uninstall import recorded_apply
from agent_control_plane_core.cli import main
from agent_control_plane_core.install import plan_install

from hook_runner import BIN

POLICY = """
[[rules]]
tools = ["Bash"]
command = { program = ["rm"] }
decision = "deny"
reason = "no rm"
"""


@pytest.fixture(autouse=True)
def _state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def _folders(tmp_path: Path) -> tuple[Path, Path]:
    root, home = tmp_path / "project", tmp_path / "home"
    root.mkdir()
    home.mkdir()
    return root, home


def _status(root: Path, home: Path) -> int:
    return main(["status", "--root", str(root), "--home", str(home)])


def test_nothing_installed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root, home = _folders(tmp_path)
    (home / ".gemini").mkdir()
    assert _status(root, home) == 0
    out = capsys.readouterr().out
    assert "no acp hook entry installed" in out
    assert "found without an acp entry: gemini" in out


def test_every_scope_is_listed_with_its_policy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, home = _folders(tmp_path)
    policy = tmp_path / "policy.toml"
    policy.write_text(POLICY)
    for argv in (
        ["claude", "--project", "--policy", str(policy)],
        ["claude", "--project", "--local", "--judge", "hook_judges:denies"],
        ["codex", "--user"],
        ["cline", "--project"],
        ["opencode", "--user"],
        ["amp", "--user", "--plugin"],
        ["kiro", "--project"],
        ["copilot", "--user"],
    ):
        assert main(["install", *argv, "--root", str(root), "--home", str(home)]) == 0
    capsys.readouterr()
    assert _status(root, home) == 0
    out = capsys.readouterr().out
    assert "claude project: " in out and f"policy {policy} (sha256:" in out
    assert "claude local: " in out and "judge hook_judges:denies" in out
    for line in ("codex user: ", "cline project: ", "opencode user: ", "amp plugin (user): "):
        assert line in out
    assert "kiro project: " in out and "copilot user: " in out
    assert "BROKEN" not in out


def test_a_moved_environment_is_broken(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root, home = _folders(tmp_path)
    venv = tmp_path / "venv-bin"
    venv.mkdir()
    shutil.copy2(BIN / "acp-claude-hook", venv / "acp-claude-hook")
    recorded_apply(plan_install("claude", root=root, bin_dir=venv))
    assert _status(root, home) == 0
    shutil.rmtree(venv)  # the project moved, .venv was recreated elsewhere
    assert _status(root, home) == 1
    out = capsys.readouterr().out
    assert "[BROKEN]" in out and "does not exist or is not executable" in out


@pytest.mark.parametrize("damage", ["removed", "invalid"])
def test_a_policy_that_no_longer_loads_is_broken(
    damage: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, home = _folders(tmp_path)
    policy = tmp_path / "policy.toml"
    policy.write_text(POLICY)
    recorded_apply(plan_install("gemini", root=root, bin_dir=BIN, policy=str(policy)))
    if damage == "removed":
        policy.unlink()
    else:
        policy.write_text(POLICY.replace('decision = "deny"', 'decision = "maybe"'))
    assert _status(root, home) == 1
    out = capsys.readouterr().out
    assert "broken: " in out and str(policy) in out


def test_a_judge_that_no_longer_imports_is_broken(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, home = _folders(tmp_path)
    settings = root / ".claude/settings.json"
    settings.parent.mkdir()
    command = (
        f"/usr/bin/env ACP_JUDGE=gone_module:judge ACP_JUDGE_PATH={tmp_path} {BIN}/acp-claude-hook"
    )
    hooks = {"PreToolUse": [{"hooks": [{"type": "command", "command": command}]}]}
    settings.write_text(json.dumps({"hooks": hooks}))
    assert _status(root, home) == 1
    assert "judge gone_module:judge does not load" in capsys.readouterr().out


def test_unreadable_files_are_skipped(tmp_path: Path) -> None:
    root, home = _folders(tmp_path)
    (root / ".claude").mkdir()
    (root / ".claude/settings.json").write_bytes(b"\xff\xfe not text")
    (root / ".gemini").mkdir()
    (root / ".gemini/settings.json").write_text("{not json")
    (root / ".opencode/plugin").mkdir(parents=True)
    (root / ".opencode/plugin/agent-control-plane.js").write_text("// mine\n")
    findings, _ = installed(root=root, home=home)
    assert findings == []
    assert status_text([], []) == "no acp hook entry installed in any scope"


def test_command_lines_are_read_back() -> None:
    entry = parse_command("/usr/bin/env -u ACP_POLICY ACP_JUDGE=m:j /venv/bin/acp-claude-hook")
    assert entry is not None
    assert entry.program == "/venv/bin/acp-claude-hook"
    assert entry.env == {"ACP_JUDGE": "m:j"} and entry.unset == ("ACP_POLICY",)
    assert parse_command("'unterminated") is None
    assert parse_command("") is None
    assert parse_command("/usr/bin/env").program == ""  # type: ignore[union-attr]
