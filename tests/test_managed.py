"""`acp install HOST --managed`: the admin layer, under ACP_ADMIN_ROOT (issue 28)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from agent_control_plane_core import _managed
from agent_control_plane_core.cli import main
from agent_control_plane_core.install import InstallError

from hook_runner import BIN, PRE_TOOL, hook_env

POLICY = """
[[rules]]
name = "no-rm"
tools = ["Bash"]
command = { program = ["rm"] }
decision = "deny"
reason = "the organisation forbids rm"
"""


@pytest.fixture(autouse=True)
def _admin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    admin = tmp_path / "admin"
    admin.mkdir()
    monkeypatch.setenv(_managed.ADMIN_ROOT_ENV, str(admin))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return admin


def _policy(tmp_path: Path) -> Path:
    folder = tmp_path / "rules"
    folder.mkdir(exist_ok=True)
    os.chmod(folder, 0o755)
    policy = folder / "baseline.toml"
    policy.write_text(POLICY)
    os.chmod(policy, 0o644)
    return policy


def test_every_declared_layer_has_its_facts() -> None:
    hosts = _managed.managed_hosts()
    assert {"claude", "cursor", "gemini"} <= set(hosts)
    for host in hosts:
        layer = _managed.managed_layer(host)
        assert layer is not None
        assert str(layer["linux"]).startswith("/") and str(layer["macos"]).startswith("/")
        assert layer["evidence"]["level"] and layer["evidence"]["at"]  # type: ignore[index]


def test_a_managed_deny_blocks_and_says_what_is_enforced(
    tmp_path: Path, _admin: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    policy = _policy(tmp_path)
    assert main(["install", "claude", "--managed", "--policy", str(policy)]) == 0
    err = capsys.readouterr().err
    assert "allowManagedHooksOnly = true" in err and "admin layer" in err
    settings = _admin / "etc/claude-code/managed-settings.json"
    command = json.loads(settings.read_text())["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    assert "ACP_POLICY_DIGEST=sha256:" in command
    run = subprocess.run(
        command,
        shell=True,
        input=json.dumps(PRE_TOOL["claude"]),
        capture_output=True,
        text=True,
        env=hook_env("claude"),
        check=False,
    )
    assert run.returncode == 2 and "the organisation forbids rm" in run.stderr


def test_every_host_with_a_layer_at_once_and_back_out(
    tmp_path: Path, _admin: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    policy = _policy(tmp_path)
    assert main(["install", "--managed", "--all", "--policy", str(policy)]) == 0
    out = capsys.readouterr().out
    for host in _managed.managed_hosts():
        assert _managed.managed_path(host).is_file()
        assert f"{host} hook registered in the admin layer" in out
    assert main(["install", "--managed", "--all", "--policy", str(policy)]) == 0
    assert "nothing to change" in capsys.readouterr().out
    assert main(["status"]) == 0
    assert "claude managed: " in capsys.readouterr().out
    assert main(["uninstall", "claude", "--managed"]) == 0
    assert not _managed.managed_path("claude").exists()
    assert main(["uninstall", "--managed", "--all"]) == 0
    assert [p for p in _admin.rglob("*") if p.is_file()] == []
    # The folders each install created went with its file (etc/ stays: claude created it, and
    # it still held the others' folders when claude's entry was removed).
    assert [p.name for p in _admin.rglob("*")] == ["etc"]
    assert main(["uninstall", "--managed"]) == 2


def test_dry_run_writes_nothing(tmp_path: Path, _admin: Path) -> None:
    assert main(["install", "gemini", "--managed", "--dry-run"]) == 0
    assert list(_admin.iterdir()) == []


def _owned_by_a_user(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    """Make the check see PATH as another user's file (no chown: the suite runs as any user)."""
    real = _managed._uid_of
    monkeypatch.setattr(
        _managed, "_uid_of", lambda item, status: 4242 if item == path else real(item, status)
    )


@pytest.mark.parametrize("damage", ["group-writable", "user-owned", "folder-writable"])
def test_a_policy_the_user_can_change_is_refused(
    damage: str,
    tmp_path: Path,
    _admin: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    policy = _policy(tmp_path)
    if damage == "group-writable":
        os.chmod(policy, 0o664)
    elif damage == "user-owned":
        _owned_by_a_user(monkeypatch, policy)
    else:
        os.chmod(policy.parent, 0o777)
    assert main(["install", "cursor", "--managed", "--policy", str(policy)]) == 2
    err = capsys.readouterr().err
    assert "the policy" in err and "nothing registered" in err
    assert list(_admin.iterdir()) == []


def test_a_judge_the_user_can_change_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = tmp_path / "mine_judge.py"
    module.write_text("def judge(event):\n    return None\n")
    _owned_by_a_user(monkeypatch, module)
    import sys

    sys.path.insert(0, str(tmp_path))
    try:
        with pytest.raises(InstallError, match="the judge"):
            _managed.plan_managed("claude", judge="mine_judge:judge", bin_dir=BIN)
    finally:
        sys.path.remove(str(tmp_path))


def test_a_host_without_an_admin_layer_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["install", "amp", "--managed"]) == 2
    assert "no admin layer" in capsys.readouterr().err
    with pytest.raises(InstallError, match="no installer"):
        _managed.plan_managed("nobody")
    with pytest.raises(InstallError, match="does not exist"):
        _managed.plan_managed("claude", bin_dir=Path("/nonexistent"))


def test_status_says_what_the_managed_switch_makes_the_host_ignore(
    tmp_path: Path, _admin: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    assert main(["install", "claude", "--root", str(root)]) == 0
    assert main(["install", "claude", "--managed"]) == 0
    settings = _admin / "etc/claude-code/managed-settings.json"
    data = json.loads(settings.read_text())
    assert _managed.hooks_only("claude") is None
    settings.write_text(json.dumps({**data, "allowManagedHooksOnly": True}))
    capsys.readouterr()
    assert main(["status", "--root", str(root), "--home", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "claude project: " in out
    assert f"host ignores: this entry: the admin layer {settings}" in out
    assert _managed.hooks_only("gemini") is None  # no switch declared
    settings.write_text("{broken")
    assert _managed.hooks_only("claude") is None


def test_macos_paths_are_used_on_macos(monkeypatch: pytest.MonkeyPatch, _admin: Path) -> None:
    monkeypatch.setattr(_managed.sys, "platform", "darwin")
    path = _managed.managed_path("claude")
    assert path == _admin / "Library/Application Support/ClaudeCode/managed-settings.json"
    monkeypatch.delenv(_managed.ADMIN_ROOT_ENV)
    assert str(_managed.managed_path("cursor")) == "/Library/Application Support/Cursor/hooks.json"


def test_only_root_owns_what_a_managed_hook_runs_unless_an_admin_root_stands_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _managed._admin_uids() == {0, os.stat(tmp_path / "admin").st_uid}
    monkeypatch.delenv(_managed.ADMIN_ROOT_ENV)
    assert _managed._admin_uids() == {0}
