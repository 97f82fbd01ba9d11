"""Pinned policies (issue 28): the installed command carries the rule file's digest."""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agent_control_plane_core import _pin
from agent_control_plane_core._judges import JudgeLoadError
from agent_control_plane_core.cli import main
from agent_control_plane_core.install import hook_command, plan_install

from hook_runner import BIN, PRE_TOOL, hook_env

POLICY = """
[[rules]]
tools = ["Bash"]
command = { program = ["rm"] }
decision = "deny"
reason = "no rm here"
"""
LS: dict[str, Any] = {**PRE_TOOL["claude"], "tool_input": {"command": "ls"}}


@pytest.fixture(autouse=True)
def _folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def _installed(tmp_path: Path) -> tuple[Path, str]:
    policy = tmp_path / "rules" / "policy.toml"
    policy.parent.mkdir(exist_ok=True)
    if not policy.exists():
        policy.write_text(POLICY)
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    argv = ["install", "claude", "--root", str(project), "--policy", str(policy)]
    assert main(argv) == 0
    settings = json.loads((project / ".claude/settings.json").read_text())
    return policy, settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"]


def _run(
    command: str, payload: Any, tmp_path: Path, **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command,
        shell=True,
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=hook_env("claude", XDG_CACHE_HOME=str(tmp_path / "cache"), **env),
        check=False,
    )


def test_the_installed_command_pins_the_policy_digest(tmp_path: Path) -> None:
    policy, command = _installed(tmp_path)
    digest = "sha256:" + hashlib.sha256(policy.read_bytes()).hexdigest()
    words = shlex.split(command)
    assert words.index(f"ACP_POLICY_DIGEST={digest}") == words.index(f"ACP_POLICY={policy}") + 1


def test_an_edited_policy_blocks_until_installed_again(tmp_path: Path) -> None:
    policy, command = _installed(tmp_path)
    log = tmp_path / "audit.jsonl"
    assert _run(command, LS, tmp_path).returncode == 0
    assert _run(command, PRE_TOOL["claude"], tmp_path).returncode == 2
    # "Edit the policy in place and nobody notices": the rm rule is weakened to an allow.
    policy.write_text(POLICY.replace('decision = "deny"', 'decision = "allow"'))
    for payload in (LS, PRE_TOOL["claude"]):
        run = _run(command, payload, tmp_path, ACP_AUDIT_LOG=str(log))
        assert run.returncode == 2
        assert "changed since acp install" in run.stderr
        assert "run acp install again" in run.stderr
    record = json.loads(log.read_text().splitlines()[-1])
    assert "configuration error" in json.dumps(record)
    # The fix it names: install again pins the new version.
    _, command = _installed(tmp_path)
    assert _run(command, PRE_TOOL["claude"], tmp_path).returncode == 0


def test_status_reports_the_edited_policy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    policy, _ = _installed(tmp_path)
    project = tmp_path / "project"
    argv = ["status", "--root", str(project), "--home", str(tmp_path)]
    assert main(argv) == 0
    policy.write_text(POLICY + "\n# edited\n")
    assert main(argv) == 1
    assert "changed since install" in capsys.readouterr().out


def test_a_bare_policy_without_digest_still_works(tmp_path: Path) -> None:
    policy, _ = _installed(tmp_path)
    policy.write_text(POLICY + "# edited, not pinned\n")
    run = _run(f"{BIN}/acp-claude-hook", PRE_TOOL["claude"], tmp_path, ACP_POLICY=str(policy))
    assert run.returncode == 2 and "no rm here" in run.stderr


@pytest.mark.parametrize(
    ("digest", "message"),
    [("md5:abc", "is not a sha256:<hex> digest"), ("sha256:00", "changed since acp install")],
)
def test_a_wrong_digest_is_a_configuration_error(digest: str, message: str, tmp_path: Path) -> None:
    policy, _ = _installed(tmp_path)
    run = _run(
        f"{BIN}/acp-claude-hook", LS, tmp_path, ACP_POLICY=str(policy), ACP_POLICY_DIGEST=digest
    )
    assert run.returncode == 2 and message in run.stderr


def test_an_unreadable_pinned_policy_names_the_fix(tmp_path: Path) -> None:
    with pytest.raises(JudgeLoadError, match="cannot read the rule file"):
        _pin.check_pinned(str(tmp_path / "gone.toml"), "sha256:00")


def test_the_digest_is_read_from_a_stat_keyed_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_control_plane_core import policy as policy_module

    # tmp_path is under /tmp, which cache_dir refuses as agent-writable: allow it for this test.
    monkeypatch.setattr(policy_module, "_agent_writable", lambda environ: [])
    policy = tmp_path / "policy.toml"
    policy.write_text(POLICY)
    first = _pin.current_digest(str(policy))
    assert first == _pin.file_digest(str(policy))

    real = _pin.file_digest

    def no_hashing(path: str) -> str:
        raise AssertionError("hashed although the file did not change")

    monkeypatch.setattr(_pin, "file_digest", no_hashing)
    assert _pin.current_digest(str(policy)) == first
    monkeypatch.setattr(_pin, "file_digest", real)
    policy.write_text(POLICY + "# changed\n")
    assert _pin.current_digest(str(policy)) != first


def test_without_a_cache_folder_the_file_is_hashed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text(POLICY)
    monkeypatch.setenv("XDG_CACHE_HOME", "/tmp")  # inside /tmp: never a cache folder
    monkeypatch.setenv("HOME", "relative")
    assert _pin.current_digest(str(policy)) == _pin.file_digest(str(policy))


def test_hook_command_pins_only_a_readable_file(tmp_path: Path) -> None:
    argv = hook_command("claude", policy=str(tmp_path / "missing.toml"), bin_dir=BIN)
    assert not any(word.startswith("ACP_POLICY_DIGEST=") for word in argv)
    policy = tmp_path / "policy.toml"
    policy.write_text(POLICY)
    plan = plan_install("claude", root=tmp_path, bin_dir=BIN, policy=str(policy))
    assert _pin.file_digest(str(policy)) in plan.after
    os.chmod(policy, 0o600)
