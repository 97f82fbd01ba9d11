"""`acp install`: register a hook entry in a host's own configuration, merged and idempotent."""

from __future__ import annotations

import difflib
import json
import os
import shlex
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

from ._generated.constants import EventKinds
from .adapters import AGENT_IDS

__all__ = ["INSTALLABLE", "SCOPES", "InstallError", "InstallPlan", "hook_command", "plan_install"]

Scope = Literal["project", "user"]
SCOPES: Final[tuple[Scope, ...]] = ("project", "user")
# Event kinds where exit 2 stops a tool call; elsewhere (a Stop event) it means something else.
_TOOL_KINDS: Final = frozenset({EventKinds.PRE_TOOL, EventKinds.POST_TOOL})


class InstallError(Exception):
    """A configuration that cannot be merged safely; the message names the file and the fix."""


@dataclass(frozen=True)
class InstallPlan:
    """What installing would do to one configuration file."""

    host: str
    path: Path
    before: str | None
    after: str
    notes: tuple[str, ...] = ()
    # Permission bits for a file the host executes itself (Cline runs one per event); None keeps.
    mode: int | None = None

    @property
    def changed(self) -> bool:
        """Whether applying the plan would change the file."""
        return self.before != self.after

    def diff(self) -> str:
        """A unified diff from the current file to the planned one."""
        lines = difflib.unified_diff(
            (self.before or "").splitlines(keepends=True),
            self.after.splitlines(keepends=True),
            fromfile=str(self.path) if self.before is not None else "/dev/null",
            tofile=str(self.path),
        )
        return "".join(lines)

    def apply(self) -> bool:
        """Write the planned file atomically; return whether anything changed."""
        if not self.changed:
            if self.mode is not None and self.path.stat().st_mode & 0o7777 != self.mode:
                os.chmod(self.path, self.mode)
                return True
            return False
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # Write beside the target and rename, so a crash never leaves half a settings file.
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(self.after)
            if self.mode is not None:
                os.chmod(tmp, self.mode)
            elif self.path.exists():
                os.chmod(tmp, self.path.stat().st_mode & 0o7777)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return True


def hook_command(
    host: str,
    *,
    judge: str | None = None,
    policy: str | None = None,
    fail_closed: bool = False,
    codex_version: str | None = None,
    bin_dir: Path | None = None,
) -> list[str]:
    """The argv a host runs: the venv's absolute console script, so no shim sits in front of it."""
    folder = (bin_dir or Path(sys.executable).parent).absolute()
    if judge is None and policy is None and not fail_closed and codex_version is None:
        return [str(folder / f"acp-{host}-hook")]
    argv = [str(folder / "acp"), "hook", host]
    if codex_version is not None:
        argv += ["--codex-version", codex_version]
    if judge is not None:
        argv += ["--judge", judge]
    if policy is not None:
        argv += ["--policy", str(Path(policy).absolute())]
    if fail_closed:
        argv.append("--fail-closed")
    return argv


def _is_ours(command: object, host: str) -> bool:
    """Whether a configured command is an entry this installer wrote for this host."""
    if not isinstance(command, str):
        return False
    try:
        argv = shlex.split(command)
    except ValueError:
        return False
    if not argv:
        return False
    program = Path(argv[0]).name
    return program == f"acp-{host}-hook" or (program == "acp" and argv[1:3] == ["hook", host])


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InstallError(f"{path}: cannot read ({exc.strerror})") from exc


def _load_json(path: Path, text: str | None) -> dict[str, Any]:
    if text is None or not text.strip():
        return {}
    try:
        loaded = json.loads(text)
    except ValueError as exc:
        raise InstallError(
            f"{path} is not valid JSON ({exc}); fix or move it, then run acp install again"
        ) from exc
    if not isinstance(loaded, dict):
        raise InstallError(f"{path} holds a JSON {type(loaded).__name__}, not an object")
    return loaded


def _child(parent: dict[str, Any], key: str, kind: type, path: Path) -> Any:
    """parent[key], created empty when absent; refuse to overwrite a value of another type."""
    value = parent.setdefault(key, kind())
    if not isinstance(value, kind):
        raise InstallError(
            f"{path}: {key!r} is a {type(value).__name__}, expected a {kind.__name__};"
            " fix it by hand so nothing of yours is overwritten"
        )
    return value


def _merge_handler(groups: list[Any], handler: dict[str, Any], host: str) -> None:
    """Replace this installer's earlier handler in place, or append a new matcher group."""
    for group in groups:
        handlers = group.get("hooks") if isinstance(group, Mapping) else None
        if not isinstance(handlers, list):
            continue
        for index, existing in enumerate(handlers):
            if isinstance(existing, Mapping) and _is_ours(existing.get("command"), host):
                handlers[index] = handler
                return
    groups.append({"hooks": [handler]})


def _native_events(host: str, also: frozenset[str] = frozenset()) -> list[tuple[str, str]]:
    """(kind, native event name) for every kind the host gates (plus also), in kind order."""
    import importlib

    declaration = importlib.import_module(f"{__package__}._generated.hosts.{host}")
    wanted: frozenset[str] = declaration.GATED_KINDS | also
    events: Mapping[str, str] = declaration.NATIVE_EVENT_FOR
    return [(kind, events[kind]) for kind in EventKinds.ALL if kind in wanted and kind in events]


@dataclass(frozen=True)
class _Request:
    host: str
    path: Path
    argv: list[str]
    plain_argv: list[str]
    fail_closed: bool
    timeout_s: int


def _command(request: _Request, kind: str) -> tuple[str, bool]:
    """The command line registered for one event kind, and whether it fails closed."""
    # contract.md §7: fail closed only where exit 2 stops a tool call.
    closed = request.fail_closed and kind in _TOOL_KINDS
    return shlex.join(request.argv if closed else request.plain_argv), closed


def _no_fail_closed(request: _Request, host_name: str) -> tuple[str, ...]:
    """The note for a host without a fail-closed option, when --fail-closed was asked."""
    if not request.fail_closed:
        return ()
    return (f"{host_name} has no fail-closed option: a hook that never starts lets the call run.",)


def _json_hooks(
    request: _Request,
    *,
    timeout_ms: bool,
    on_failure: bool,
    also: frozenset[str] = frozenset(),
    closed_fields: Mapping[str, str] | None = None,
    top_level: bool = False,
) -> tuple[str, str | None]:
    """Claude-shaped hooks: {"hooks": {Event: [{"hooks": [{type, command, timeout}]}]}}.

    top_level: the file is keyed by event name itself, without the "hooks" key.
    """
    before = _read(request.path)
    settings = _load_json(request.path, before)
    hooks = settings if top_level else _child(settings, "hooks", dict, request.path)
    for kind, event in _native_events(request.host, also):
        command, closed = _command(request, kind)
        handler: dict[str, Any] = {
            "type": "command",
            "command": command,
            "timeout": request.timeout_s * 1000 if timeout_ms else request.timeout_s,
        }
        if closed and on_failure:
            # A hook that never starts still blocks (host-protocols.md §1, v2.1.295+).
            handler["onFailure"] = "block"
        if closed and closed_fields:
            handler.update(closed_fields)
        _merge_handler(_child(hooks, event, list, request.path), handler, request.host)
    return json.dumps(settings, indent=2, ensure_ascii=False) + "\n", before


# Kinds the Claude family cannot block but whose answer still reaches the model: PostToolUse
# feedback, context and updatedToolOutput (hosts/claude.json, factory.json, qwen.json; CC-1).
_FEEDBACK_KINDS: Final = frozenset({EventKinds.POST_TOOL, EventKinds.PROMPT_SUBMIT})


def _claude(request: _Request) -> tuple[str, str | None, tuple[str, ...]]:
    # onFailure sits on each command handler, where Claude Code 2.1.332's settings schema has it (CC-10).
    after, before = _json_hooks(request, timeout_ms=False, on_failure=True, also=_FEEDBACK_KINDS)
    return after, before, ()


def _gemini(request: _Request) -> tuple[str, str | None, tuple[str, ...]]:
    # Gemini CLI's handler timeout is in milliseconds (host-protocols.md §3).
    after, before = _json_hooks(request, timeout_ms=True, on_failure=False)
    return after, before, _no_fail_closed(request, "Gemini CLI")


def _factory(request: _Request) -> tuple[str, str | None, tuple[str, ...]]:
    # .factory/hooks.json is canonical; settings.json's hooks key is read only while it is absent,
    # and Droid's /hooks manager writes hooks.json on its next save (docs.factory.ai/harness/hooks;
    # FD-6), so the entry merges into hooks.json.
    after, before = _json_hooks(
        request, timeout_ms=False, on_failure=False, also=_FEEDBACK_KINDS, top_level=True
    )
    notes = (
        "Droid may ask you to review hooks edited outside /hooks before they run, and an"
        " organisation with allowManagedHooksOnly ignores project and user hooks.",
        "droid exec never calls UserPromptSubmit: prompts are not judged there.",
    )
    return after, before, notes + _no_fail_closed(request, "Droid")


def _qwen(request: _Request) -> tuple[str, str | None, tuple[str, ...]]:
    # Milliseconds: newer releases read seconds but keep values >= 1000 as milliseconds, older
    # ones read only milliseconds (hook-timeout.ts; QW-8). failMode closed makes a crash, timeout
    # or bad exit deny (types.ts, hookRunner.ts @ 01ed106f; QW-6).
    after, before = _json_hooks(
        request,
        timeout_ms=True,
        on_failure=False,
        also=_FEEDBACK_KINDS,
        closed_fields={"failMode": "closed"},
    )
    notes = [
        "Qwen Code runs the hooks of a project's .qwen/settings.json only in a trusted folder."
    ]
    if request.fail_closed:
        notes.append(
            "failMode closed is honoured only by Qwen Code releases newer than 0.24.4; older ones"
            " ignore it, and a hook that never starts lets the call run."
        )
    return after, before, tuple(notes)


def _codex(request: _Request) -> tuple[str, str | None, tuple[str, ...]]:
    notes: tuple[str, ...] = ("Codex runs a new hook only after you trust it with /hooks.",)
    if "--codex-version" not in request.argv:
        # Codex payloads carry no version (host-protocols.md §2): without one nothing can block.
        notes += (
            "No --codex-version: unless ACP_CODEX_VERSION is set where Codex runs, every Codex"
            " call is observe-only and never blocked.",
        )
    notes += _no_fail_closed(request, "Codex")
    if request.path.suffix == ".json":
        after, before = _json_hooks(request, timeout_ms=False, on_failure=False)
        return after, before, notes
    return (*_codex_toml(request), notes)


def _codex_toml(request: _Request) -> tuple[str, str | None]:
    """~/.codex/config.toml: [[hooks.<Event>]] with [[hooks.<Event>.hooks]], comments kept."""
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    before = _read(request.path)
    try:
        document = tomlkit.parse(before or "")
    except TOMLKitError as exc:
        raise InstallError(f"{request.path} is not valid TOML ({exc}); fix it first") from exc
    plain = document.unwrap()
    hooks_plain = plain.get("hooks", {})
    if not isinstance(hooks_plain, dict):
        raise InstallError(f"{request.path}: 'hooks' is not a table; fix it by hand")
    if "hooks" not in document:
        document["hooks"] = tomlkit.table(is_super_table=True)
    hooks: Any = document["hooks"]
    for kind, event in _native_events(request.host):
        command, _ = _command(request, kind)
        handler = {"type": "command", "command": command, "timeout": request.timeout_s}
        if event not in hooks:
            hooks[event] = tomlkit.aot()
        groups: Any = hooks[event]
        if not isinstance(groups.unwrap(), list):
            raise InstallError(f"{request.path}: hooks.{event} is not an array of tables")
        if not _replace_toml_handler(groups, handler, request.host):
            group = tomlkit.table()
            inner = tomlkit.aot()
            inner.append(tomlkit.item(handler))
            group["hooks"] = inner
            groups.append(group)
    return tomlkit.dumps(document), before


def _replace_toml_handler(groups: Any, handler: dict[str, Any], host: str) -> bool:
    for group in groups:
        handlers = group.get("hooks") if hasattr(group, "get") else None
        if handlers is None:
            continue
        for existing in handlers:
            if hasattr(existing, "get") and _is_ours(existing.get("command"), host):
                for key, value in handler.items():
                    existing[key] = value
                return True
    return False


def _amp(request: _Request) -> tuple[str, str | None, tuple[str, ...]]:
    """amp.permissions: a delegate rule for every tool, first, so the guard sees every call."""
    if len(request.argv) > 1:
        raise InstallError(
            "amp runs its delegate program without arguments: drop --judge/--policy/--fail-closed"
            " and set ACP_JUDGE, ACP_POLICY or ACP_FAIL_CLOSED in the environment amp runs in"
        )
    before = _read(request.path)
    settings = _load_json(request.path, before)
    rules = _child(settings, "amp.permissions", list, request.path)
    rule = {"tool": "*", "action": "delegate", "to": request.argv[0]}
    mine = [r for r in rules if isinstance(r, Mapping) and _is_ours(r.get("to"), request.host)]
    for old in mine:
        rules.remove(old)
    rules.insert(0, rule)
    notes = (
        "The delegate rule is first, so every call reaches the guard; a guard's allow (exit 0)"
        " then allows the call, ahead of your later rules.",
    )
    return json.dumps(settings, indent=2, ensure_ascii=False) + "\n", before, notes


def _flat_hooks(
    request: _Request, command_key: str, handler_for: Callable[[str, bool], dict[str, Any]]
) -> tuple[str, str | None]:
    """{"version": 1, "hooks": {event: [handler, ...]}}: one handler list per event, no matchers."""
    before = _read(request.path)
    settings = _load_json(request.path, before)
    settings.setdefault("version", 1)
    hooks = _child(settings, "hooks", dict, request.path)
    for kind, event in _native_events(request.host):
        handler = handler_for(*_command(request, kind))
        handlers = _child(hooks, event, list, request.path)
        for index, existing in enumerate(handlers):
            if isinstance(existing, Mapping) and _is_ours(existing.get(command_key), request.host):
                handlers[index] = handler
                break
        else:
            handlers.append(handler)
    return json.dumps(settings, indent=2, ensure_ascii=False) + "\n", before


def _cursor(request: _Request) -> tuple[str, str | None, tuple[str, ...]]:
    """.cursor/hooks.json: {"command", "failClosed"?} per event (host-protocols.md §5)."""

    def handler(command: str, closed: bool) -> dict[str, Any]:
        # The per-script timeout is in seconds (cursor.com/docs/hooks, CUR-6).
        entry: dict[str, Any] = {"command": command, "timeout": request.timeout_s}
        if closed:
            # A crash, a timeout or empty output then blocks too (host-protocols.md §5).
            entry["failClosed"] = True
        return entry

    after, before = _flat_hooks(request, "command", handler)
    notes = (
        "Cursor runs a project's .cursor/hooks.json only in a trusted workspace; enterprise"
        " (/etc/cursor/hooks.json) and team hooks run beside it.",
    )
    return after, before, notes


def _copilot(request: _Request) -> tuple[str, str | None, tuple[str, ...]]:
    """.github/hooks/<file>.json: {"type": "command", "bash", "timeoutSec"} per event."""

    def handler(command: str, closed: bool) -> dict[str, Any]:
        return {"type": "command", "bash": command, "timeoutSec": request.timeout_s}

    after, before = _flat_hooks(request, "bash", handler)
    # preToolUse fails closed by itself (host-protocols.md §6): a hook that never starts blocks.
    notes = ("Copilot CLI denies a call when its preToolUse hook fails or times out.",)
    return after, before, notes


def _auggie(request: _Request) -> tuple[str, str | None, tuple[str, ...]]:
    # Auggie's hook timeout is in milliseconds (default 6e4 in the 0.36.0 bundle; hosts/auggie.json).
    after, before = _json_hooks(request, timeout_ms=True, on_failure=False)
    return after, before, _no_fail_closed(request, "Auggie")


def _crush(request: _Request) -> tuple[str, str | None, tuple[str, ...]]:
    """crush.json: {"hooks": {"PreToolUse": [{"command", "timeout"}]}}, no matcher (every tool)."""
    before = _read(request.path)
    settings = _load_json(request.path, before)
    hooks = _child(settings, "hooks", dict, request.path)
    for kind, event in _native_events(request.host):
        command, _ = _command(request, kind)
        # Crush's hook timeout is in seconds (charmbracelet/crush docs/hooks/README.md).
        handler = {"command": command, "timeout": request.timeout_s}
        handlers = _child(hooks, event, list, request.path)
        for index, existing in enumerate(handlers):
            if isinstance(existing, Mapping) and _is_ours(existing.get("command"), request.host):
                handlers[index] = handler
                break
        else:
            handlers.append(handler)
    after = json.dumps(settings, indent=2, ensure_ascii=False) + "\n"
    # A hook that times out or exits non-zero (not 2) is "no opinion" in Crush: the call runs.
    return after, before, _no_fail_closed(request, "Crush")


def _cline(request: _Request) -> tuple[str, str | None, tuple[str, ...]]:
    """.clinerules/hooks/PreToolUse: Cline runs the executable named after the event."""
    before = _read(request.path)
    if before is not None and not any(
        _is_ours(line.removeprefix("exec "), request.host) for line in before.splitlines()
    ):
        raise InstallError(
            f"{request.path} already holds a hook that is not ours: Cline runs one executable per"
            " event, so call the command of `acp install cline --dry-run` from it by hand"
        )
    command, _ = _command(request, EventKinds.PRE_TOOL)
    after = f"#!/bin/sh\n# Written by acp install cline.\nexec {command}\n"
    notes = (
        "Cline runs only PreToolUse from this file; other events need their own executables.",
        *_no_fail_closed(request, "Cline"),
    )
    return after, before, notes


def _windsurf(request: _Request) -> tuple[str, str | None, tuple[str, ...]]:
    """hooks.json: {"hooks": {action: [{"command", "show_output"}]}} for every blocking pre-hook."""
    import importlib

    declaration = importlib.import_module(f"{__package__}._generated.hosts.{request.host}")
    gated: frozenset[str] = declaration.GATED_KINDS
    # Every action is its own event (pre_run_command, pre_read_code, ...): register each one
    # whose kind blocks, not only the NATIVE_EVENT_FOR probe name.
    actions = sorted(name for name, kind in declaration.NATIVE_EVENTS.items() if kind in gated)
    before = _read(request.path)
    settings = _load_json(request.path, before)
    hooks = _child(settings, "hooks", dict, request.path)
    for action in actions:
        command, _ = _command(request, declaration.NATIVE_EVENTS[action])
        # show_output lets the user see the block reason in Cascade (hosts/windsurf.json).
        handler = {"command": command, "show_output": True}
        handlers = _child(hooks, action, list, request.path)
        for index, existing in enumerate(handlers):
            if isinstance(existing, Mapping) and _is_ours(existing.get("command"), request.host):
                handlers[index] = handler
                break
        else:
            handlers.append(handler)
    after = json.dumps(settings, indent=2, ensure_ascii=False) + "\n"
    return after, before, _no_fail_closed(request, "Windsurf")


def _kiro(request: _Request) -> tuple[str, str | None, tuple[str, ...]]:
    """.kiro/hooks/<file>.json, a V3 hook file: {"version": "v1", "hooks": [{name, trigger, ...}]}."""
    before = _read(request.path)
    settings = _load_json(request.path, before)
    version = settings.setdefault("version", "v1")
    if version != "v1":
        raise InstallError(f"{request.path}: version {version!r} is not the V3 hook format v1")
    hooks = _child(settings, "hooks", list, request.path)
    for kind, trigger in _native_events(request.host):
        command, _ = _command(request, kind)
        # kiro.dev/docs/cli/v3/hooks: timeout in seconds; never cache_ttl_seconds, which replays
        # one allow for every later call (host-findings KR-2).
        entry: dict[str, Any] = {"name": f"agent-control-plane-{trigger}", "trigger": trigger}
        if kind in _TOOL_KINDS:
            entry["matcher"] = ".*"  # a tool-name regex: every tool
        entry |= {
            "action": {"type": "command", "command": command},
            "timeout": request.timeout_s,
            "enabled": True,
        }
        for index, existing in enumerate(hooks):
            action = existing.get("action") if isinstance(existing, Mapping) else None
            ours = isinstance(action, Mapping) and _is_ours(action.get("command"), request.host)
            if ours and existing.get("trigger") == trigger:
                hooks[index] = entry
                break
        else:
            hooks.append(entry)
    notes = (
        "Kiro CLI reads .kiro/hooks/ files from its V3 hooks (CLI 2.13); an older CLI runs only"
        " hooks embedded in .kiro/agents/<name>.json.",
        "Never add cache_ttl_seconds to these hooks: Kiro would replay one allow for every later"
        " matching call.",
        *_no_fail_closed(request, "Kiro CLI"),
    )
    return json.dumps(settings, indent=2, ensure_ascii=False) + "\n", before, notes


# The plugin acp install copies for opencode (generated from templates/opencode/), and the one line
# of it that carries the hook command (hosts/opencode.json notes).
_OPENCODE_PLUGIN: Final = Path(__file__).parent / "_generated" / "plugins" / "opencode.js"
_PLUGIN_CONFIG: Final = "const CONFIG = "
_PLUGIN_MARK: Final = "// DO NOT EDIT: this file is generated."


def _opencode(request: _Request) -> tuple[str, str | None, tuple[str, ...]]:
    """.opencode/plugin/agent-control-plane.js: the packaged plugin with this hook command in it."""
    before = _read(request.path)
    if before is not None and not before.startswith(_PLUGIN_MARK):
        raise InstallError(
            f"{request.path} exists and was not written by acp install; move it, then run"
            " acp install opencode again"
        )
    template = _OPENCODE_PLUGIN.read_text(encoding="utf-8")
    config = {
        "command": request.argv,
        "failClosed": request.fail_closed,
        "timeoutMs": request.timeout_s * 1000,
    }
    lines = template.splitlines(keepends=True)
    found = [i for i, line in enumerate(lines) if line.startswith(_PLUGIN_CONFIG)]
    if len(found) != 1:
        raise InstallError(f"{_OPENCODE_PLUGIN} has no single CONFIG line; reinstall the package")
    lines[found[0]] = f"{_PLUGIN_CONFIG}{json.dumps(config, sort_keys=True)};\n"
    notes = (
        "opencode loads the plugin at its next start. On first run it installs @opencode-ai/plugin"
        " into its config folders from the package registry; the plugin needs none of it, but"
        " offline opencode waits for that install (host-findings.md §3.8).",
    )
    return "".join(lines), before, notes


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


# Hosts whose installed file is the hook program itself, so it must be executable.
_EXECUTED: Final = frozenset({"cline"})
_EXECUTABLE: Final = 0o755

INSTALLABLE: Final[tuple[str, ...]] = tuple(sorted(_HOSTS))
"""Hosts acp install has a configuration entry for."""

# Hosts that also run the hooks of Claude Code's settings (host-findings XH-1): Cursor reads
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
    timeout_s: int = 30,
    codex_version: str | None = None,
    bin_dir: Path | None = None,
) -> InstallPlan:
    """Plan the configuration change that registers this host's hook entry; nothing is written."""
    if host not in _HOSTS:
        known = ", ".join(sorted(_HOSTS))
        raise InstallError(f"no installer for {host!r}: known hosts are {known}")
    if host not in AGENT_IDS:
        raise InstallError(f"{host!r} has an installer entry but no adapter")
    if scope not in SCOPES:
        raise InstallError(f"scope {scope!r} is not one of {', '.join(SCOPES)}")
    if timeout_s <= 0:
        raise InstallError(f"timeout {timeout_s} must be a positive number of seconds")
    if codex_version is not None and host != "codex":
        raise InstallError(f"--codex-version is a Codex option; {host} takes none")
    project_path, user_path, entry = _HOSTS[host]
    base = (root or Path.cwd()) if scope == "project" else (home or Path.home())
    path = base.absolute() / (project_path if scope == "project" else user_path)
    folder = bin_dir or Path(sys.executable).parent
    script = folder / f"acp-{host}-hook"
    if not script.exists():
        raise InstallError(
            f"{script} does not exist: install agent-control-plane-core in this environment"
            " (or pass the folder of its console scripts)"
        )
    request = _Request(
        host=host,
        path=path,
        argv=hook_command(
            host,
            judge=judge,
            policy=policy,
            fail_closed=fail_closed,
            codex_version=codex_version,
            bin_dir=folder,
        ),
        plain_argv=hook_command(
            host, judge=judge, policy=policy, codex_version=codex_version, bin_dir=folder
        ),
        fail_closed=fail_closed,
        timeout_s=timeout_s,
    )
    after, before, notes = entry(request)
    notes = (*notes, *_shared_hook_notes(host, scope, base))
    mode = _EXECUTABLE if host in _EXECUTED else None
    return InstallPlan(host=host, path=path, before=before, after=after, notes=notes, mode=mode)
