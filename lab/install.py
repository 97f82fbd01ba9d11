"""Pinned installer for the real-host lab: a node runtime and the host CLIs from the npm registry."""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

__all__ = [
    "HostInstall",
    "LockError",
    "cache_dir",
    "ensure_host",
    "ensure_node",
    "lock",
    "main",
    "netns_argv",
    "netns_available",
    "netns_prefix",
]

REPO = Path(__file__).resolve().parent.parent
LOCK_PATH = Path(__file__).resolve().with_name("hosts.lock.json")
HOSTS = ("claude", "codex", "gemini", "qwen", "factory", "copilot", "opencode", "cline")
STAMP = ".lab-stamp.json"
VERIFY_TIMEOUT = 60.0
INSTALL_TIMEOUT = 1800.0
# Exact versions only: the lab pins, a range would let a rerun drift.
_SEMVER = re.compile(r"^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$")
# docs/findings.md LAB-0: the newest Claude Code and Qwen Code releases declare node >= 22.
_NODE_MIN_MAJOR = 22
_NPM_INSTALL = ("install", "--no-audit", "--no-fund", "--no-save", "--loglevel=error")
# docs/findings.md LAB-0: inside this namespace 127.0.0.1 works and every other address is unreachable.
_NETNS_SCRIPT = 'ip link set lo up && exec "$@"'


class LockError(ValueError):
    """The lockfile does not have the expected shape."""


@dataclass(frozen=True)
class HostInstall:
    """One installed host CLI and the node runtime it must run with."""

    host: str
    version: str
    prefix: Path
    bin: Path
    node_bin_dir: Path


def cache_dir() -> Path:
    """The lab cache: env ACP_LAB_CACHE, else the user's cache folder, so fresh clones share it."""
    env = os.environ.get("ACP_LAB_CACHE")
    if env:
        return Path(env).expanduser().resolve()
    # Outside any git checkout: a host whose project sits inside a repository takes the
    # repository's root as its workspace, and trust and project settings stop matching (lab runs
    # with the cache inside this clone: Claude ignored the project settings).
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return (Path(base).expanduser() / "agent-control-plane-core" / "lab").resolve()


def lock() -> dict[str, Any]:
    """The validated contents of lab/hosts.lock.json."""
    data = json.loads(LOCK_PATH.read_text(encoding="utf-8"))
    validate_lock(data)
    result: dict[str, Any] = data
    return result


def _exact(value: object, where: str) -> str:
    if not isinstance(value, str) or not _SEMVER.match(value):
        raise LockError(f"{where}: {value!r} is not an exact version")
    return value


def _str_list(value: object, where: str, *, empty: bool) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise LockError(f"{where}: expected a list of non-empty strings")
    if not value and not empty:
        raise LockError(f"{where}: must not be empty")
    return list(value)


def validate_lock(data: object) -> None:
    """Raise LockError unless data has the lockfile's shape with exact versions."""
    if not isinstance(data, dict) or set(data) != {"node", "hosts"}:
        raise LockError("lock: expected exactly the keys node and hosts")
    node = data["node"]
    if not isinstance(node, dict) or not isinstance(node.get("package"), str):
        raise LockError("node: expected {package, version}")
    major = int(_exact(node.get("version"), "node.version").split(".")[0])
    if major < _NODE_MIN_MAJOR:
        raise LockError(f"node.version: below {_NODE_MIN_MAJOR}")
    hosts = data["hosts"]
    if not isinstance(hosts, dict) or set(hosts) != set(HOSTS):
        raise LockError(f"hosts: expected exactly {', '.join(HOSTS)}")
    for host, entry in hosts.items():
        where = f"hosts.{host}"
        if not isinstance(entry, dict):
            raise LockError(f"{where}: expected an object")
        version = _exact(entry.get("version"), f"{where}.version")
        for index, spec in enumerate(
            _str_list(entry.get("packages"), f"{where}.packages", empty=False)
        ):
            pinned = split_spec(spec)[1]
            if pinned is not None and "{version}" not in pinned:
                _exact(pinned, f"{where}.packages[{index}]")
        older = _str_list(entry.get("older", []), f"{where}.older", empty=True)
        for index, old in enumerate(older):
            _exact(old, f"{where}.older[{index}]")
            if old == version:
                raise LockError(f"{where}.older[{index}]: equals the pinned version")
        binary = entry.get("bin")
        if (
            not isinstance(binary, str)
            or not binary
            or Path(binary).is_absolute()
            or ".." in Path(binary).parts
        ):
            raise LockError(f"{where}.bin: expected a path inside the install prefix")
        _str_list(entry.get("version_args"), f"{where}.version_args", empty=False)
        pattern = entry.get("version_pattern")
        if not isinstance(pattern, str) or "{version}" not in pattern:
            raise LockError(f"{where}.version_pattern: must contain {{version}}")
        re.compile(version_regex(pattern, version))


def split_spec(spec: str) -> tuple[str, str | None]:
    """Split an npm spec into name and version part; a scope's leading @ is part of the name."""
    at = spec.find("@", 1)
    return (spec, None) if at < 0 else (spec[:at], spec[at + 1 :])


def package_specs(packages: Sequence[str], version: str) -> list[str]:
    """The npm install specs: a bare name gets @version, {version} in an explicit spec is filled in."""
    specs = []
    for spec in packages:
        name, pinned = split_spec(spec)
        specs.append(
            f"{name}@{version}"
            if pinned is None
            else f"{name}@{pinned.replace('{version}', version)}"
        )
    return specs


def version_regex(pattern: str, version: str) -> str:
    """The version pattern with {version} replaced by the escaped version."""
    return pattern.replace("{version}", re.escape(version))


# The ways to get a namespace holding only loopback: root unshares one directly; any other user
# first enters a user namespace mapping it to root there (unprivileged user namespaces, Linux
# 3.8+, allowed unless a sysctl or an LSM forbids them), which gives the same view inside.
ROOT_PREFIX = ("unshare", "-n")
USER_PREFIX = ("unshare", "--user", "--map-root-user", "-n")
NETNS_FIX = (
    "the lab needs a network namespace holding only loopback: run make test as root, or allow"
    " unprivileged user namespaces (sysctl -w user.max_user_namespaces=15000; on Debian"
    " kernel.unprivileged_userns_clone=1; on Ubuntu kernel.apparmor_restrict_unprivileged_userns=0)"
    " and have unshare (util-linux) and ip (iproute2) on PATH"
)


def _prefixes() -> list[tuple[str, ...]]:
    """The namespace commands to try here, the one root can use first."""
    return [ROOT_PREFIX, USER_PREFIX] if os.geteuid() == 0 else [USER_PREFIX]


@cache
def netns_prefix() -> tuple[str, ...] | None:
    """The unshare command that gives a loopback-only network namespace here, or None."""
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return None
    for prefix in _prefixes():
        argv = [*prefix, "sh", "-c", _NETNS_SCRIPT, "sh", "true"]
        try:
            done = subprocess.run(argv, capture_output=True, timeout=30, check=False)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if done.returncode == 0:
            return prefix
    return None


def netns_argv(argv: Sequence[str]) -> list[str]:
    """Wrap argv to run in a fresh network namespace where only loopback is up."""
    prefix = netns_prefix() or ROOT_PREFIX
    return [*prefix, "sh", "-c", _NETNS_SCRIPT, "sh", *argv]


def netns_available() -> bool:
    """Whether a loopback-only namespace can be made here (as root, or in a user namespace)."""
    return netns_prefix() is not None


def _log(message: str) -> None:
    print(f"lab: {message}", file=sys.stderr, flush=True)


def _run(
    argv: Sequence[str], *, env: Mapping[str, str], timeout: float
) -> subprocess.CompletedProcess[str]:
    """Run argv capturing text output; the single seam tests replace."""
    return subprocess.run(
        list(argv),
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        stdin=subprocess.DEVNULL,
    )


def _env(node_bin_dir: Path | None, **extra: str) -> dict[str, str]:
    # The lab's node goes first on PATH so npm's engine checks and the hosts' shebangs see it (docs/findings.md LAB-0).
    env = dict(os.environ)
    if node_bin_dir is not None:
        env["PATH"] = os.pathsep.join([str(node_bin_dir), env.get("PATH", os.defpath)])
    env["npm_config_update_notifier"] = "false"
    env.update(extra)
    return env


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    # Two lab runs sharing a cache must not install into the same prefix at once.
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _read_stamp(prefix: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((prefix / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _npm_install(prefix: Path, specs: Sequence[str], node_bin_dir: Path | None) -> None:
    if prefix.exists():
        # No matching stamp: a half-done or different install; start from nothing.
        shutil.rmtree(prefix)
    prefix.mkdir(parents=True)
    done = _run(
        ["npm", *_NPM_INSTALL, "--prefix", str(prefix), *specs],
        env=_env(node_bin_dir),
        timeout=INSTALL_TIMEOUT,
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"npm install {' '.join(specs)} failed ({done.returncode}): {done.stderr.strip()}"
        )


def _installed(prefix: Path, stamp: Mapping[str, Any], install: Any) -> bool:
    """Install under prefix unless its stamp matches; True when it was already installed."""
    with _locked(prefix.with_name(prefix.name + ".lock")):
        if _read_stamp(prefix) == dict(stamp):
            return True
        install()
        (prefix / STAMP).write_text(
            json.dumps(dict(stamp), sort_keys=True) + "\n", encoding="utf-8"
        )
        return False


def ensure_node(cache: Path) -> Path:
    """Install the pinned node runtime into <cache>/node@<version>; return its bin directory."""
    node = lock()["node"]
    package, version = str(node["package"]), str(node["version"])
    prefix = cache / f"node@{version}"
    bin_dir = prefix / "node_modules" / package / "bin"

    def install() -> None:
        _log(f"installing node {version} ({package}) ...")
        _npm_install(prefix, [f"{package}@{version}"], None)
        done = _run([str(bin_dir / "node"), "--version"], env=_env(None), timeout=VERIFY_TIMEOUT)
        if done.stdout.strip() != f"v{version}":
            raise RuntimeError(f"node {version}: --version printed {done.stdout.strip()!r}")

    _installed(prefix, {"package": package, "version": version}, install)
    return bin_dir


def npm_view_version(package: str, node_bin_dir: Path | None) -> str:
    """The registry's latest version of package (npm view <package> version)."""
    done = _run(["npm", "view", package, "version"], env=_env(node_bin_dir), timeout=120)
    version = done.stdout.strip()
    if done.returncode != 0 or not _SEMVER.match(version):
        raise RuntimeError(f"npm view {package} version: {done.stderr.strip() or version!r}")
    return version


def check_version(
    entry: Mapping[str, Any], version: str, binary: Path, node_bin_dir: Path
) -> subprocess.CompletedProcess[str]:
    """Run the host's version command offline with a throwaway HOME; raise unless it matches."""
    argv = [str(binary), *entry["version_args"]]
    if netns_available():
        argv = netns_argv(argv)
    else:
        _log(
            f"WARNING: no loopback-only network namespace, so the version check runs with the network: {NETNS_FIX}"
        )
    with tempfile.TemporaryDirectory(prefix="acp-lab-home-") as home:
        done = _run(argv, env=_env(node_bin_dir, HOME=home), timeout=VERIFY_TIMEOUT)
    output = done.stdout + done.stderr
    if done.returncode != 0 or not re.search(
        version_regex(str(entry["version_pattern"]), version), output, re.M
    ):
        raise RuntimeError(
            f"{binary} {' '.join(entry['version_args'])} exited {done.returncode}: {output.strip()[:500]!r}"
        )
    return done


def ensure_host(
    host: str, version: str | None = None, *, cache: Path | None = None, latest: bool = False
) -> HostInstall:
    """Install host at version (default: the pinned one, or the newest with latest) and verify it."""
    data = lock()
    if host not in data["hosts"]:
        raise KeyError(f"unknown host {host!r}; known: {', '.join(HOSTS)}")
    entry = data["hosts"][host]
    root = cache if cache is not None else cache_dir()
    node_bin_dir = ensure_node(root)
    if version is None:
        version = (
            npm_view_version(split_spec(entry["packages"][0])[0], node_bin_dir)
            if latest
            else str(entry["version"])
        )
    if not _SEMVER.match(version):
        raise ValueError(f"{host}: {version!r} is not an exact version")
    specs = package_specs(entry["packages"], version)
    prefix = root / "hosts" / f"{host}@{version}"
    binary = prefix / entry["bin"]

    def install() -> None:
        plural = "" if len(specs) == 1 else "s"
        _log(f"installing {host} {version} ({len(specs)} package{plural}) ...")
        _npm_install(prefix, specs, node_bin_dir)
        check_version(entry, version, binary, node_bin_dir)

    stamp = {"host": host, "version": version, "specs": specs, "node": str(data["node"]["version"])}
    _installed(prefix, stamp, install)
    return HostInstall(
        host=host, version=version, prefix=prefix, bin=binary, node_bin_dir=node_bin_dir
    )


def disk_size(path: Path) -> int:
    """Bytes on disk under path, symlinks not followed and hard links counted once."""
    # Claude Code's and opencode's postinstall hard-link the platform binary into the main package.
    seen: set[tuple[int, int]] = set()
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):
                info = os.lstat(os.path.join(root, name))
                if (info.st_dev, info.st_ino) not in seen:
                    seen.add((info.st_dev, info.st_ino))
                    total += info.st_blocks * 512
    return total


def _mb(size: int) -> str:
    return f"{size / 1e6:.0f} MB"


def main(argv: Sequence[str] | None = None) -> int:
    """CLI: python -m lab.install [--host H]... [--latest] [--older] [--json]."""
    parser = argparse.ArgumentParser(prog="python -m lab.install", description=__doc__)
    parser.add_argument(
        "--host", action="append", choices=HOSTS, help="install only this host (repeatable)"
    )
    parser.add_argument(
        "--latest",
        action="store_true",
        help="the registry's newest host versions instead of the pins",
    )
    parser.add_argument("--older", action="store_true", help="also the lockfile's older versions")
    parser.add_argument(
        "--json", action="store_true", help="print the installs as a JSON list on stdout"
    )
    args = parser.parse_args(argv)
    data = lock()
    root = cache_dir()
    started = time.monotonic()
    node_bin_dir = ensure_node(root)
    wanted: list[tuple[str, str | None]] = []
    for host in args.host or HOSTS:
        wanted.append((host, None))
        if args.older:
            wanted.extend((host, old) for old in data["hosts"][host].get("older", []))
    rows: list[dict[str, Any]] = []
    for host, version in wanted:
        began = time.monotonic()
        install = ensure_host(host, version, cache=root, latest=args.latest and version is None)
        seconds = time.monotonic() - began
        size = disk_size(install.prefix)
        _log(f"{host} {install.version} ready ({_mb(size)}, {seconds:.1f} s)")
        rows.append(
            {
                "host": host,
                "version": install.version,
                "prefix": str(install.prefix),
                "bin": str(install.bin),
                "node_bin_dir": str(install.node_bin_dir),
                "size_bytes": size,
                "seconds": round(seconds, 1),
            }
        )
    node_size = disk_size(node_bin_dir.parents[2])
    total = node_size + sum(int(row["size_bytes"]) for row in rows)
    _log(f"total on disk {_mb(total)} (node {_mb(node_size)}), {time.monotonic() - started:.1f} s")
    if args.json:
        print(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
