"""Issue 26: the compiled policy cache lives outside the agent's reach and is trusted for that."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest
from test_policy_language import shell_event

from agent_control_plane_core import policy
from agent_control_plane_core.policy import cache_dir, load_policy_judge

RULES = '[[rules]]\nname = "no-rm"\ndecision = "deny"\ntools = ["Bash"]\nmatch = "rm -rf"\nreason = "{}"\n'


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A per-user cache under tmp_path (the real check refuses /tmp, so only the project counts)."""
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(policy, "_agent_writable", lambda environ: [str(project)])
    return tmp_path / "xdg" / "agent-control-plane-core" / "policy"


def _policy(folder: Path, reason: str = "blocked") -> Path:
    path = folder / "policy.toml"
    path.write_text(RULES.format(reason), encoding="utf-8")
    return path


def _decide(path: Path, command: str = "rm -rf /") -> Any:
    return load_policy_judge(str(path))(shell_event("claude", command))


def test_the_cache_is_per_user_0700_and_named_by_the_content_digest(
    cache: Path, tmp_path: Path
) -> None:
    path = _policy(tmp_path / "project")
    assert _decide(path).reason == "blocked"
    assert cache.stat().st_mode & 0o777 == 0o700
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    entry = cache / f"{digest}.json"
    assert entry.stat().st_mode & 0o777 == 0o600
    assert "tests" not in json.loads(entry.read_text())["policy"]
    # Nothing is written beside the rule file, in the folder the agent writes to.
    assert sorted(p.name for p in path.parent.iterdir()) == ["policy.toml"]
    # The current entry is what the loader reads: prove it by editing the cached rules.
    data = json.loads(entry.read_text())
    data["policy"]["rules"][0]["reason"] = "from the cache"
    entry.write_text(json.dumps(data))
    assert _decide(path).reason == "from the cache"
    # Any change of the file (same size, its old mtime restored) is a new digest.
    times = path.stat()
    path.write_text(RULES.format("changed"), encoding="utf-8")
    os.utime(path, ns=(times.st_atime_ns, times.st_mtime_ns))
    assert _decide(path).reason == "changed"


def test_a_forged_cache_in_the_project_changes_nothing(cache: Path, tmp_path: Path) -> None:
    # Issue 26: the old cache beside the file, replaced with no rules under a matching key.
    path = _policy(tmp_path / "project")
    status = path.stat()
    from binascii import crc32

    forged = {"key": [1, status.st_mtime_ns, status.st_size, crc32(path.read_bytes())]}
    (path.parent / ".policy.toml.acp-cache.json").write_text(
        json.dumps({**forged, "policy": {"rules": []}})
    )
    assert _decide(path).decision == "deny"


def test_entries_that_are_not_the_users_regular_files_are_ignored_and_rebuilt(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _policy(tmp_path / "project")
    _decide(path)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    entry = cache / f"{digest}.json"
    # A symbolic link to a forged entry (no rules) is not followed.
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps({"digest": digest, "policy": {"rules": []}}))
    entry.unlink()
    entry.symlink_to(forged)
    assert _decide(path).decision == "deny"
    assert entry.is_file() and not entry.is_symlink()  # rebuilt in its place
    # A file others can write is not trusted either.
    data = json.loads(entry.read_text())
    data["policy"]["rules"] = []
    entry.write_text(json.dumps(data))
    entry.chmod(0o666)
    assert _decide(path).decision == "deny"
    # Nor one owned by somebody else (seen as such when this user's id differs).
    entry.write_text(json.dumps(data))
    entry.chmod(0o600)
    real = os.geteuid()
    monkeypatch.setattr(policy.os, "geteuid", lambda: real + 1)
    assert _decide(path).decision == "deny"


def test_no_cache_where_the_agent_can_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Under /tmp ($TMPDIR, the working directory): no cache at all, the TOML is parsed each time.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() is None
    assert not (tmp_path / "xdg").exists()
    path = _policy(tmp_path)
    assert _decide(path).decision == "deny"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["policy.toml"]
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")
    monkeypatch.setenv("HOME", "relative")
    assert cache_dir() is None


def test_a_cache_folder_that_is_not_the_users_own_is_not_used(cache: Path, tmp_path: Path) -> None:
    cache.parent.mkdir(parents=True)
    cache.write_text("not a folder")
    assert cache_dir() is None
    cache.unlink()
    cache.mkdir(mode=0o777)
    cache.chmod(0o777)
    assert cache_dir() is None
    cache.chmod(0o700)
    assert cache_dir() == str(cache)
    cache.rmdir()
    assert cache_dir(create=False) is None
    (cache.parent).chmod(0o500)
    try:
        if os.geteuid() != 0:  # root writes anyway
            assert cache_dir() is None
    finally:
        cache.parent.chmod(0o700)


def test_a_broken_or_unwritable_cache_compiles_in_memory(cache: Path, tmp_path: Path) -> None:
    path = _policy(tmp_path / "project")
    _decide(path)
    for entry in cache.iterdir():
        entry.write_text("{broken")
    assert _decide(path).decision == "deny"
    # A folder where an entry would go: it can be neither read nor replaced.
    for entry in cache.iterdir():
        entry.unlink()
        entry.mkdir()
    assert _decide(path).decision == "deny"
    assert _decide(path).decision == "deny"
