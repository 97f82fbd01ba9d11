"""`acp uninstall`: install then uninstall leaves every file byte for byte as it was (issue 28)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from agent_control_plane_core._uninstall import (
    _without_ours,
    config_paths,
    plan_uninstall,
    plugin_command_argv,
    recorded_apply,
    state_dir,
)
from agent_control_plane_core.cli import main
from agent_control_plane_core.install import INSTALLABLE, InstallError, plan_install
from agent_control_plane_core.install._base import _LOCAL
from agent_control_plane_core.install._json_nested import _native_events
from agent_control_plane_core.install._plan import _PLUGIN_HOSTS

from hook_runner import BIN

# Every (host, scope options) acp install writes: both scopes, Claude's --local, Amp's --plugin.
CASES: list[tuple[str, tuple[str, ...]]] = [
    *((host, (scope,)) for host in INSTALLABLE for scope in ("--project", "--user")),
    *((host, ("--project", "--local")) for host in _LOCAL),
    *((host, (scope, "--plugin")) for host in _PLUGIN_HOSTS for scope in ("--project", "--user")),
]


def _ids(case: tuple[str, tuple[str, ...]]) -> str:
    return case[0] + "".join(case[1])


@pytest.fixture(autouse=True)
def _state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    # The user-dirs.dirs read is the test home's own (Cline's user folder), not the runner's.
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)


def _folders(tmp_path: Path) -> tuple[Path, Path]:
    root, home = tmp_path / "project", tmp_path / "home"
    root.mkdir(exist_ok=True)
    home.mkdir(exist_ok=True)
    return root, home


def _tree(*folders: Path) -> dict[str, Any]:
    """Every file (bytes and mode) and folder below the folders."""
    found: dict[str, Any] = {}
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            key = str(path.relative_to(folder.parent))
            if path.is_dir():
                found[key] = "dir"
            else:
                found[key] = (path.read_bytes(), path.stat().st_mode & 0o7777)
    return found


def _paths(host: str, options: tuple[str, ...], root: Path, home: Path) -> list[Path]:
    scope = "user" if "--user" in options else "project"
    return config_paths(
        host,
        scope=scope,  # type: ignore[arg-type]
        root=root,
        home=home,
        local="--local" in options,
        plugin="--plugin" in options,
    )


def _user_file(host: str, path: Path, *, canonical: bool) -> tuple[Path, str]:
    """A user's own configuration where the host's entry goes (or beside it), with their hooks."""
    if host == "cline":
        return path.with_name("TaskStart"), "#!/bin/sh\n# mine\necho started\n"
    if path.suffix in (".js", ".ts"):
        return path.with_name(f"mine{path.suffix}"), "export default {} // my own plugin\n"
    event = _native_events(host)[0][1]
    mine: dict[str, Any] = {"type": "command", "command": "my-linter", "timeout": 5}
    if path.suffix == ".toml":
        text = (
            "# my Codex settings\n"
            'model = "o3"  # the model I use\n\n'
            "[[hooks.PreToolUse]]\n"
            'matcher = "Bash"\n\n'
            "[[hooks.PreToolUse.hooks]]\n"
            'type = "command"\n'
            'command = "my-linter"\n'
        )
        return path, text
    data: dict[str, Any]
    if host == "amp":
        data = {"amp.permissions": [{"tool": "Bash", "action": "ask"}], "amp.notifications": True}
    elif host == "kiro":
        data = {
            "version": "v1",
            "hooks": [{"name": "mine", "trigger": event, "action": mine}],
        }
    elif host in ("cursor", "copilot"):
        key = "bash" if host == "copilot" else "command"
        data = {"version": 1, "hooks": {event: [{key: "my-linter"}]}}
    elif host in ("crush", "windsurf"):
        data = {"hooks": {event: [{"command": "my-linter"}]}, "options": {"debug": True}}
    elif host == "factory":
        data = {event: [{"matcher": "Bash", "hooks": [mine]}]}
    else:
        data = {
            "model": "opus",
            "hooks": {event: [{"matcher": "Bash", "hooks": [mine]}], "Stop": []},
        }
    if canonical:
        return path, json.dumps(data, indent=2) + "\n"
    # Not the form json.dumps writes: install rewrites it, uninstall must give these bytes back.
    return path, json.dumps(data, indent=4, separators=(",", " : ")).replace("\n", "\r\n")


def _install(host: str, options: tuple[str, ...], root: Path, home: Path, *more: str) -> None:
    argv = ["install", host, *options, "--root", str(root), "--home", str(home), *more]
    assert main(argv) == 0


def _uninstall(host: str, options: tuple[str, ...], root: Path, home: Path, *more: str) -> int:
    return main(["uninstall", host, *options, "--root", str(root), "--home", str(home), *more])


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_install_then_uninstall_leaves_no_trace(case: Any, tmp_path: Path) -> None:
    host, options = case
    root, home = _folders(tmp_path)
    before = _tree(root, home)
    _install(host, options, root, home)
    assert _tree(root, home) != before
    assert _uninstall(host, options, root, home) == 0
    assert _tree(root, home) == before
    assert not any(state_dir().iterdir())


@pytest.mark.parametrize("canonical", [True, False], ids=["canonical", "own-format"])
@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_a_users_own_settings_come_back_byte_for_byte(
    case: Any, canonical: bool, tmp_path: Path
) -> None:
    host, options = case
    root, home = _folders(tmp_path)
    path, text = _user_file(host, _paths(host, options, root, home)[0], canonical=canonical)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode())
    os.chmod(path, 0o640)
    before = _tree(root, home)
    _install(host, options, root, home)
    _install(host, options, root, home, "--timeout", "9")  # a reinstall keeps the first record
    assert _uninstall(host, options, root, home) == 0
    assert _tree(root, home) == before


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_without_a_record_only_our_entries_go(case: Any, tmp_path: Path) -> None:
    """A file installed elsewhere (no record here): the entries are found and removed from it."""
    host, options = case
    root, home = _folders(tmp_path)
    path, text = _user_file(host, _paths(host, options, root, home)[0], canonical=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    before = _tree(root, home)
    _install(host, options, root, home)
    shutil.rmtree(state_dir())
    assert _uninstall(host, options, root, home) == 0
    after = _tree(root, home)
    # Folders install created stay (nothing recorded them); every file is as it was.
    assert {k: v for k, v in after.items() if v != "dir"} == {
        k: v for k, v in before.items() if v != "dir"
    }


def test_cline_user_hooks_in_the_xdg_documents_folder_are_found(tmp_path: Path) -> None:
    """HA3-12: install writes <Documents>/Cline/Hooks; uninstall looks in the same folder."""
    root, home = _folders(tmp_path)
    (home / ".config").mkdir()
    (home / ".config/user-dirs.dirs").write_text('XDG_DOCUMENTS_DIR="$HOME/Dokumente"\n')
    before = _tree(root, home)
    _install("cline", ("--user",), root, home)
    assert (home / "Dokumente/Cline/Hooks/PreToolUse").exists()
    assert _paths("cline", ("--user",), root, home)[0] == home / "Dokumente/Cline/Hooks/PreToolUse"
    assert _uninstall("cline", ("--user",), root, home) == 0
    assert _tree(root, home) == before


def test_an_edit_after_install_is_kept_and_only_ours_removed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, home = _folders(tmp_path)
    _install("claude", ("--project",), root, home)
    settings = root / ".claude/settings.json"
    data = json.loads(settings.read_text())
    data["model"] = "sonnet"
    settings.write_text(json.dumps(data))
    assert _uninstall("claude", ("--project",), root, home) == 0
    assert json.loads(settings.read_text()) == {"model": "sonnet"}
    assert "changed since acp install" in capsys.readouterr().err


def test_another_hosts_entries_are_not_touched(tmp_path: Path) -> None:
    root, home = _folders(tmp_path)
    _install("claude", ("--project",), root, home)
    claude = (root / ".claude/settings.json").read_text()
    # Qwen and Claude share the file format; a qwen uninstall in the same folder removes nothing.
    shared = root / ".qwen/settings.json"
    shared.parent.mkdir()
    shared.write_text(claude)
    assert _uninstall("qwen", ("--project",), root, home) == 0
    assert shared.read_text() == claude
    assert (root / ".claude/settings.json").read_text() == claude


def test_dry_run_prints_the_diff_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, home = _folders(tmp_path)
    _install("gemini", ("--project",), root, home)
    written = _tree(root, home)
    capsys.readouterr()
    assert _uninstall("gemini", ("--project",), root, home, "--dry-run") == 0
    out = capsys.readouterr().out
    assert "+++ /dev/null" in out and "acp-gemini-hook" in out
    assert _tree(root, home) == written


def test_nothing_installed_is_said_and_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, home = _folders(tmp_path)
    assert _uninstall("cursor", ("--user",), root, home) == 0
    assert "nothing to change" in capsys.readouterr().out
    (home / ".cursor").mkdir()
    (home / ".cursor/hooks.json").write_text('{"version": 1, "hooks": {}}\n')
    assert plan_uninstall("cursor", scope="user", home=home) == []


def test_unknown_hosts_and_options_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, home = _folders(tmp_path)
    assert _uninstall("nobody", (), root, home) == 2
    assert _uninstall("claude", ("--plugin",), root, home) == 2
    assert _uninstall("cursor", ("--local",), root, home) == 2
    assert "known hosts" in capsys.readouterr().err
    with pytest.raises(InstallError):
        config_paths("claude", scope="user", local=True)


def test_a_broken_file_is_refused_with_the_file_named(tmp_path: Path) -> None:
    root, _ = _folders(tmp_path)
    broken = root / ".codex/config.toml"
    with pytest.raises(InstallError, match="not valid TOML"):
        _without_ours("codex", broken, "[hooks\n")
    assert _without_ours("codex", broken, "model = 'o3'\n") == "model = 'o3'\n"
    assert _without_ours("codex", broken, "hooks = 3\n") == "hooks = 3\n"
    text = "[hooks]\nPreToolUse = 1\n[[hooks.Stop]]\nx = 1\n"
    assert _without_ours("codex", broken, text) == text


def test_an_unwritable_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root, home = _folders(tmp_path)
    _install("crush", ("--project",), root, home)
    plans = plan_uninstall("crush", root=root)
    (root / "crush.json").unlink()
    with pytest.raises(InstallError, match="cannot write"):
        plans[0].apply()


def test_a_record_that_is_not_ours_is_ignored(tmp_path: Path) -> None:
    root, _ = _folders(tmp_path)
    plan = plan_install("claude", root=root, bin_dir=BIN)
    recorded_apply(plan)
    (record,) = state_dir().iterdir()
    record.write_text("not json")
    (only,) = plan_uninstall("claude", root=root)
    assert only.restored is False and only.after is None


def test_plugin_config_lines_are_read_strictly() -> None:
    assert plugin_command_argv("const CONFIG = {bad;\n") is None
    assert plugin_command_argv('const CONFIG = {"command": [1]};\n') is None
    assert plugin_command_argv("nothing here\n") is None
    assert plugin_command_argv('const CONFIG = {"command": ["a"]};\n') == ["a"]
