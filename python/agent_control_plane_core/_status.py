"""`acp status`: what `acp install` registered, per host and scope, and whether it still works.

For every host with a configuration folder on this machine (or an entry of ours) and every scope,
each registered command is read back: its program (does it still exist and run?), its policy
(which file, the digest pinned at install, the digest now, does it load?) or judge (does it
import?), and what the host ignores there. Anything broken makes the exit non-zero.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from ._uninstall import config_paths, handlers, plugin_command_argv
from .install import INSTALLABLE, InstallError
from .install._base import _LOCAL
from .install._command import _is_ours
from .install._plan import _PLUGIN_HOSTS

__all__ = ["Entry", "Finding", "installed", "parse_command", "status_text"]

_POLICY: Final = "ACP_POLICY"
_DIGEST: Final = "ACP_POLICY_DIGEST"
_JUDGE: Final = "ACP_JUDGE"
_JUDGE_PATH: Final = "ACP_JUDGE_PATH"


@dataclass(frozen=True)
class Entry:
    """One registered command, read back into its program and its environment assignments."""

    program: str
    env: Mapping[str, str]
    unset: tuple[str, ...] = ()


def parse_command(command: str) -> Entry | None:
    """The program and assignments of a command line install wrote (env [-u N] [N=V]... prog)."""
    try:
        argv = shlex.split(command)
    except ValueError:
        return None
    if not argv:
        return None
    env: dict[str, str] = {}
    unset: list[str] = []
    if Path(argv[0]).name == "env":
        rest = argv[1:]
        while rest and (rest[0] == "-u" or "=" in rest[0]):
            if rest[0] == "-u":
                unset.extend(rest[1:2])
                rest = rest[2:]
            else:
                name, _, value = rest[0].partition("=")
                env[name] = value
                rest = rest[1:]
        argv = rest or [""]
    return Entry(argv[0], env, tuple(unset))


@dataclass
class Finding:
    """One scope's file of one host: the commands found in it and what is wrong with each."""

    host: str
    scope: str
    path: Path
    commands: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    broken: list[str] = field(default_factory=list)


def _scopes(host: str) -> Iterator[tuple[str, dict[str, Any]]]:
    from ._admin_layer import managed_layer

    if managed_layer(host) is not None:
        yield "managed", {"scope": "managed"}
    yield "project", {"scope": "project"}
    if host in _LOCAL:
        yield "local", {"scope": "project", "local": True}
    yield "user", {"scope": "user"}
    if host in _PLUGIN_HOSTS:
        yield "plugin (project)", {"scope": "project", "plugin": True}
        yield "plugin (user)", {"scope": "user", "plugin": True}


def _commands(host: str, path: Path, text: str) -> list[str]:
    """The command lines of this host's entries in one configuration file."""
    if host == "cline":
        found = [line.removeprefix("exec ") for line in text.splitlines()]
        return [line for line in found if _is_ours(line, host)]
    if path.suffix in (".js", ".ts"):
        argv = plugin_command_argv(text)
        return [shlex.join(argv)] if argv and any(_is_ours(w, host) for w in argv) else []
    data: Any
    try:
        if path.suffix == ".toml":
            import tomllib

            data = tomllib.loads(text)
        else:
            data = json.loads(text)
    except ValueError:
        return []
    commands = []
    for handler in handlers(data, host):
        action = handler.get("action")
        values = [handler.get(key) for key in ("command", "bash", "to")]
        values.append(action.get("command") if isinstance(action, Mapping) else None)
        commands += [v for v in values if isinstance(v, str) and _is_ours(v, host)]
    return list(dict.fromkeys(commands))


def policy_digest(path: str) -> str:
    """sha256:<hex> of a rule file's bytes (what the install pins)."""
    with open(path, "rb") as rules:
        return "sha256:" + hashlib.sha256(rules.read()).hexdigest()


def _check(entry: Entry, finding: Finding) -> None:
    """Describe one command; note every reason it would not run what install checked."""
    program = entry.program
    if not (os.path.isfile(program) and os.access(program, os.X_OK)):
        finding.broken.append(
            f"{program} does not exist or is not executable (moved or recreated environment):"
            f" the host cannot start the hook; run acp install {finding.host} again"
        )
    else:
        finding.lines.append(f"runs {program}")
    policy = entry.env.get(_POLICY)
    if policy:
        pinned = entry.env.get(_DIGEST)
        try:
            now = policy_digest(policy)
        except OSError as exc:
            finding.broken.append(f"policy {policy} cannot be read ({exc.strerror or exc})")
            return
        finding.lines.append(f"policy {policy} ({now})")
        if pinned is None:
            finding.lines.append("policy not pinned (no ACP_POLICY_DIGEST): edits take effect")
        elif pinned != now:
            finding.broken.append(
                f"policy {policy} changed since install (pinned {pinned}, now {now}): the hook"
                f" blocks every call; review the change, then run acp install {finding.host} again"
            )
        from ._judges import JudgeLoadError
        from .policy import load_policy_judge

        try:
            load_policy_judge(policy)
        except JudgeLoadError as exc:
            finding.broken.append(str(exc))
        return
    spec = entry.env.get(_JUDGE)
    if spec:
        finding.lines.append(f"judge {spec}")
        _check_judge(spec, entry.env.get(_JUDGE_PATH, ""), finding)
    else:
        finding.lines.append("demo judge (blocks only rm -rf) unless ACP_POLICY/ACP_JUDGE is set")


def _check_judge(spec: str, path: str, finding: Finding) -> None:
    import sys

    from ._judges import JudgeLoadError, load_judge

    folders = [f for f in path.split(os.pathsep) if f]
    added = [f for f in folders if f not in sys.path]
    sys.path[:0] = added
    try:
        load_judge(spec)
    except JudgeLoadError as exc:
        finding.broken.append(f"judge {spec} does not load: {exc}")
    finally:
        for folder in added:
            sys.path.remove(folder)


def installed(
    root: Path | None = None,
    home: Path | None = None,
    hosts: tuple[str, ...] = INSTALLABLE,
    extra: Mapping[str, Any] | None = None,
) -> tuple[list[Finding], list[str]]:
    """Every file of ours per host and scope, and the hosts found on this machine without one."""
    findings: list[Finding] = []
    bare: list[str] = []
    for host in hosts:
        mine = 0
        found = False
        for scope, options in _scopes(host):
            try:
                paths = config_paths(host, root=root, home=home, **options, **(extra or {}))
            except InstallError:  # pragma: no cover - every scope listed is one the host has
                continue
            for path in paths:
                found = found or (scope == "user" and path.parent.is_dir())
                try:
                    text = path.read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError):
                    continue
                commands = _commands(host, path, text)
                if not commands:
                    continue
                finding = Finding(host, scope, path, commands)
                for command in commands:
                    entry = parse_command(command)
                    if entry is not None:
                        _check(entry, finding)
                finding.lines = list(dict.fromkeys(finding.lines))
                finding.broken = list(dict.fromkeys(finding.broken))
                findings.append(finding)
                mine += 1
        if found and not mine:
            bare.append(host)
    return findings, bare


def status_text(findings: list[Finding], bare: list[str]) -> str:
    """The report `acp status` prints."""
    out = []
    for finding in findings:
        state = "BROKEN" if finding.broken else "ok"
        out.append(f"{finding.host} {finding.scope}: {finding.path} [{state}]")
        out += [f"  {line}" for line in finding.lines]
        out += [f"  broken: {line}" for line in finding.broken]
        for note in _ignored(finding.host, finding.scope):
            out.append(f"  host ignores: {note}")
    if bare:
        out.append(f"found without an acp entry: {', '.join(bare)}")
    if not findings:
        out.append("no acp hook entry installed in any scope")
    return "\n".join(out)


def _ignored(host: str, scope: str) -> list[str]:
    """What the host will not run of this entry, as far as this machine's configuration says."""
    if scope == "managed":
        return []
    from ._managed import hooks_only

    switch = hooks_only(host)
    if switch is None:
        return []
    return [f"this entry: the admin layer {switch} makes {host} run managed hooks only"]
