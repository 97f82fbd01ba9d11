"""`acp install`: which file each host and scope uses, and the plan that merges the entry into it."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, Final

from .._generated.constants import UnrenderedPostures
from ..adapters import AGENT_IDS
from ._base import (
    _LOCAL,
    SCOPES,
    InstallError,
    InstallPlan,
    Scope,
    _check_writable,
    _declaration,
    _Request,
)
from ._command import _is_ours, _judge_path, _registered, hook_command
from ._json_flat import _amp, _copilot, _cursor, _windsurf
from ._json_nested import _auggie, _claude, _crush, _factory, _gemini, _native_events, _qwen
from ._kiro import _KIRO_AGENT_FILE, _kiro, _kiro_agent
from ._notes import _dead_hook_notes, _machine_path_notes, _reach_notes
from ._programs import _EXECUTABLE, _EXECUTED, _amp_plugin, _cline, _opencode
from ._toml import _codex

# host -> (project-relative path, home-relative path, installer entry)
_HOSTS: Final[
    Mapping[str, tuple[str, str, Callable[[_Request], tuple[str, str | None, tuple[str, ...]]]]]
] = {
    "claude": (".claude/settings.json", ".claude/settings.json", _claude),
    "codex": (".codex/hooks.json", ".codex/config.toml", _codex),
    "gemini": (".gemini/settings.json", ".gemini/settings.json", _gemini),
    "factory": (".factory/hooks.json", ".factory/hooks.json", _factory),
    "qwen": (".qwen/settings.json", ".qwen/settings.json", _qwen),
    # V3 standalone hook files apply to every agent of the workspace (hosts/kiro.json).
    "kiro": (
        ".kiro/hooks/agent-control-plane.json",
        ".kiro/hooks/agent-control-plane.json",
        _kiro,
    ),
    # The workspace settings path is unverified (?); the user one is documented.
    "amp": (".amp/settings.json", ".config/amp/settings.json", _amp),
    "cursor": (".cursor/hooks.json", ".cursor/hooks.json", _cursor),
    "auggie": (".augment/settings.json", ".augment/settings.json", _auggie),
    # Crush reads crush.json (or .crush.json) in the project and ~/.config/crush/crush.json.
    "crush": ("crush.json", ".config/crush/crush.json", _crush),
    # Cline: one executable per event, .clinerules/hooks/ or ~/Documents/Cline/Hooks/ (hosts/cline.json).
    "cline": (".clinerules/hooks/PreToolUse", "Documents/Cline/Hooks/PreToolUse", _cline),
    "windsurf": (".windsurf/hooks.json", ".codeium/windsurf/hooks.json", _windsurf),
    # Copilot CLI loads every .github/hooks/*.json of the repository and ~/.copilot/hooks/*.json.
    "copilot": (
        ".github/hooks/agent-control-plane.json",
        ".copilot/hooks/agent-control-plane.json",
        _copilot,
    ),
    # opencode auto-loads every *.js in these plugin folders (opencode.ai/docs/plugins).
    "opencode": (
        ".opencode/plugin/agent-control-plane.js",
        ".config/opencode/plugin/agent-control-plane.js",
        _opencode,
    ),
}


# Hosts whose plugin form --plugin installs instead of the entry above: Amp loads plugins from
# .amp/plugins/ and ~/.config/amp/plugins/ (ampcode.com/manual/plugin-api; rulesync#1938).
_PLUGIN_HOSTS: Final[
    Mapping[str, tuple[str, str, Callable[[_Request], tuple[str, str | None, tuple[str, ...]]]]]
] = {
    "amp": (
        ".amp/plugins/agent-control-plane.ts",
        ".config/amp/plugins/agent-control-plane.ts",
        _amp_plugin,
    ),
}


INSTALLABLE: Final[tuple[str, ...]] = tuple(sorted(_HOSTS))


"""Hosts acp install has a configuration entry for."""


# Hosts that also run the hooks of Claude Code's settings (docs/findings.md XH-1): Cursor reads
# .claude/settings*.json, Copilot CLI reads .claude/settings.json, Droid imports Claude hooks.
_RUN_CLAUDE_HOOKS: Final[Mapping[str, str]] = {
    "cursor": "Cursor",
    "copilot": "Copilot CLI",
    "factory": "Droid",
}


def _claude_entry_in(path: Path) -> bool:
    """Whether a Claude settings file holds an entry this installer wrote for claude."""
    try:
        loaded: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    stack = [loaded]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
        elif _is_ours(node, "claude"):
            return True
    return False


def _shared_hook_notes(host: str, scope: Scope, base: Path) -> tuple[str, ...]:
    """Warn when another host in this scope would also run the Claude entry (XH-1)."""

    def config(of: str) -> Path:
        project, user, _ = _HOSTS[of]
        return base.absolute() / (project if scope == "project" else user)

    claude = config("claude")
    if host == "claude":
        present = [
            name for other, name in _RUN_CLAUDE_HOOKS.items() if config(other).parent.is_dir()
        ]
        if not present:
            return ()
        return (
            f"{', '.join(present)} also run the hooks in {claude}, judging their calls through"
            " the Claude adapter: give each its own entry (acp install <host>) and keep this one"
            " only if Claude Code runs here too.",
        )
    name = _RUN_CLAUDE_HOOKS.get(host)
    if name is None or not _claude_entry_in(claude):
        return ()
    return (
        f"{name} also runs the acp-claude-hook entry in {claude}: each {name} call is then judged"
        " twice, once through the Claude adapter; remove that entry if Claude Code does not run"
        " here.",
    )


def plan_install(
    host: str,
    *,
    scope: Scope = "project",
    root: Path | None = None,
    home: Path | None = None,
    judge: str | None = None,
    policy: str | None = None,
    fail_closed: bool = False,
    timeout_s: int | None = None,
    codex_version: str | None = None,
    bin_dir: Path | None = None,
    on_unrendered: str | None = None,
    sole_gate: bool = False,
    matcher: str | None = None,
    local: bool = False,
    plugin: bool = False,
    audit_log: str | None = None,
    windows: bool | None = None,
    host_version: str | None = None,
) -> InstallPlan:
    """Plan the configuration change that registers this host's hook entry; nothing is written."""
    if host not in _HOSTS:
        known = ", ".join(sorted(_HOSTS))
        raise InstallError(f"no installer for {host!r}: known hosts are {known}")
    if host not in AGENT_IDS:
        raise InstallError(f"{host!r} has an installer entry but no adapter")
    if scope not in SCOPES:
        raise InstallError(f"scope {scope!r} is not one of {', '.join(SCOPES)}")
    if timeout_s is not None and timeout_s <= 0:
        raise InstallError(f"timeout {timeout_s} must be a positive number of seconds")
    if codex_version is not None and host != "codex":
        raise InstallError(f"--codex-version is a Codex option; {host} takes none")
    if on_unrendered is not None and on_unrendered not in UnrenderedPostures.ALL:
        raise InstallError(
            f"--on-unrendered {on_unrendered!r} is not one of {', '.join(UnrenderedPostures.ALL)}"
        )
    _check_matcher(host, matcher)
    version_env, version_notes = _host_version(host, host_version, codex_version)
    if plugin and host not in _PLUGIN_HOSTS:
        raise InstallError(
            f"--plugin installs a host's plugin form; only {', '.join(sorted(_PLUGIN_HOSTS))}"
            f" has one besides its hook entry, {host} has none"
        )
    project_path, user_path, entry = (_PLUGIN_HOSTS if plugin else _HOSTS)[host]
    if local:
        if host not in _LOCAL or scope != "project":
            where = "project scope" if host in _LOCAL else ", ".join(sorted(_LOCAL))
            raise InstallError(f"--local: a per-machine project file exists only for {where}")
        project_path = _LOCAL[host]
    base = (root or Path.cwd()) if scope == "project" else (home or Path.home())
    path = base.absolute() / (project_path if scope == "project" else user_path)
    if host == "cline" and scope == "user":
        from .._host_shells import documents_dir

        # The extension reads <Documents>/Cline/Hooks, XDG's documents folder on Linux (HA3-12).
        path = documents_dir(base.absolute()) / Path(user_path).relative_to("Documents")
    folder = bin_dir or Path(sys.executable).parent
    script = folder / f"acp-{host}-hook"
    if not script.exists():
        raise InstallError(
            f"{script} does not exist: install agent-control-plane-core in this environment"
            " (or pass the folder of its console scripts)"
        )

    judge_path = _judge_path(judge)

    def argv(closed: bool) -> list[str]:
        return hook_command(
            host,
            judge=judge,
            policy=policy,
            fail_closed=closed,
            codex_version=codex_version,
            bin_dir=folder,
            version_env=version_env,
            on_unrendered=on_unrendered,
            sole_gate=sole_gate,
            judge_path=judge_path,
            audit_log=audit_log,
        )

    request = _Request(
        host=host,
        path=path,
        argv=argv(fail_closed),
        plain_argv=argv(False),
        fail_closed=fail_closed,
        timeout_s=30 if timeout_s is None else timeout_s,
        timeout_set=timeout_s is not None,
        matcher=matcher,
        windows=os.name == "nt" if windows is None else windows,
    )
    after, before, notes = entry(request)
    notes = (*version_notes, *notes)
    if after != before:
        _check_writable(Path(os.path.realpath(path)))
    also: list[InstallPlan] = []
    if host in _EXECUTED:
        for _, event in _native_events(host, _EXECUTED[host]):
            if event == path.name:
                continue
            sibling = replace(request, path=path.with_name(event))
            more, earlier, _ = entry(sibling)
            if more != earlier:
                _check_writable(Path(os.path.realpath(sibling.path)))
            also.append(InstallPlan(host, sibling.path, earlier, more, mode=_EXECUTABLE))
    if host == "kiro" and not plugin:
        agent = replace(request, path=base.absolute() / _KIRO_AGENT_FILE)
        more, earlier = _kiro_agent(agent)
        if more != earlier:
            _check_writable(Path(os.path.realpath(agent.path)))
        also.append(InstallPlan(host, agent.path, earlier, more))
    return InstallPlan(
        host=host,
        path=path,
        before=before,
        after=after,
        notes=(
            *notes,
            *_shared_hook_notes(host, scope, base),
            *_machine_path_notes(host, scope, local, path, folder),
            _registered(host, judge, policy),
            *_reach_notes(host, base if scope == "project" else None, judge, policy),
            *_dead_hook_notes(host, fail_closed),
        ),
        mode=_EXECUTABLE if host in _EXECUTED else None,
        also=tuple(also),
    )


def _host_version(
    host: str, given: str | None, codex_version: str | None
) -> tuple[tuple[str, str] | None, tuple[str, ...]]:
    """ACP_<HOST>_VERSION for the hook command, from --host-version VERSION or detect (HA3-15)."""
    from ..contract import version_key

    declaration = _declaration(host)
    supported = declaration.SUPPORTED_VERSIONS
    if given is None:
        return None, ()
    if supported is None:
        raise InstallError(f"--host-version: {host} declares no versions, so none is written")
    if host == "codex" and codex_version is not None:
        raise InstallError("--host-version and --codex-version both name Codex's version; give one")
    version = given
    if given == "detect":
        from .._host_shells import VERSION_COMMANDS, detect_version

        found = detect_version(host)
        if found is None:
            raise InstallError(
                f"--host-version detect: {' '.join(VERSION_COMMANDS[host])} gave no version;"
                f" pass it (--host-version {supported[1]})"
            )
        version = found
    key = version_key(version)
    if key is None:
        raise InstallError(f"--host-version {version!r} is not a version such as {supported[1]}")
    notes: tuple[str, ...] = (f"{host} {version}: the hook renders that version's facts.",)
    low, high = version_key(supported[0]), version_key(supported[1])
    assert low is not None and high is not None  # the declaration is validated
    if key < low:
        notes = (
            f"{host} {version} is older than the supported {supported[0]}: the hook claims no"
            " block there (observe only).",
        )
    elif key > high:
        notes += (f"{host} {version} is newer than {supported[1]}, the newest release examined.",)
    return (f"ACP_{host.upper()}_VERSION", version), notes


# Hosts whose hook entry takes a tool-name regular expression (N15): the Claude-shaped matcher
# group (hosts/claude.json, factory.json, qwen.json, gemini.json) and Kiro's matcher (KR-5).
_MATCHER_HOSTS: Final = frozenset({"claude", "factory", "gemini", "kiro", "qwen"})


def _check_matcher(host: str, matcher: str | None) -> None:
    """Refuse a matcher the host cannot take, or one that is not a regular expression."""
    if matcher is None:
        return
    if host not in _MATCHER_HOSTS:
        raise InstallError(
            f"--matcher: {host} has no tool matcher in its hook configuration (its hook runs on"
            f" every tool); hosts with one: {', '.join(sorted(_MATCHER_HOSTS))}"
        )
    import re

    try:
        re.compile(matcher)
    except re.error as exc:
        raise InstallError(f"--matcher {matcher!r} is not a regular expression ({exc})") from exc
    if not matcher:
        raise InstallError("--matcher is empty; leave it out to run the hook on every tool")
