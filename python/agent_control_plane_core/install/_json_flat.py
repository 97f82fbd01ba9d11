"""Hosts whose hooks are flat JSON lists of commands per event (Amp, Cursor, Copilot CLI, Windsurf)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

from .._generated.constants import EventKinds
from ..runtime import (
    TIMEOUT_ENV,
)
from ._base import InstallError, _child, _declaration, _dump_json, _load_json, _read, _Request
from ._command import _command, _is_ours
from ._json_nested import _native_events, _no_fail_closed, _update_handler


def _amp(request: _Request) -> tuple[str, str | None, tuple[str, ...]]:
    """amp.permissions: a delegate rule for every tool, after the user's ask and reject rules."""
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
    # H2: Amp takes the first matching rule, and the guard's exit 0 allows the call. The user's
    # stricter rules (ask, reject, another delegate) must stay ahead of ours, so they still win;
    # only their allow rules may follow it, since the guard is stricter than an allow.
    stricter = [
        index
        for index, r in enumerate(rules)
        if not (isinstance(r, Mapping) and r.get("action") == "allow")
    ]
    position = stricter[-1] + 1 if stricter else 0
    for r in rules[:position]:
        if isinstance(r, Mapping) and r.get("tool") == "*" and r.get("action") != "allow":
            raise InstallError(
                f"{request.path}: your rule {json.dumps(r)} matches every tool before the guard"
                " could see it, so a delegate rule would never run; remove it or put the"
                f" delegate {json.dumps(rule)} where you want it by hand"
            )
    rules.insert(position, rule)
    order = ", ".join(
        f"{r.get('tool')} {r.get('action')}{' (acp)' if r is rule else ''}"
        for r in rules
        if isinstance(r, Mapping)
    )
    notes = (
        f"amp.permissions order (first match wins): {order}. The guard sees only calls no rule"
        " ahead of it matched; its allow (exit 0) allows the call.",
    )
    return _dump_json(request.path, settings, before), before, notes


def _flat_hooks(
    request: _Request,
    command_key: str,
    handler_for: Callable[[str, bool], dict[str, Any]],
    also: frozenset[str] = frozenset(),
) -> tuple[str, str | None]:
    """{"version": 1, "hooks": {event: [handler, ...]}}: one handler list per event, no matchers."""
    before = _read(request.path)
    settings = _load_json(request.path, before)
    settings.setdefault("version", 1)
    hooks = _child(settings, "hooks", dict, request.path)
    for kind, event in _native_events(request.host, also):
        handler = handler_for(*_command(request, kind))
        handlers = _child(hooks, event, list, request.path)
        for existing in handlers:
            if isinstance(existing, dict) and _is_ours(existing.get(command_key), request.host):
                _update_handler(existing, handler, request.timeout_set)
                break
        else:
            handlers.append(handler)
    return _dump_json(request.path, settings, before), before


def _cursor(request: _Request) -> tuple[str, str | None, tuple[str, ...]]:
    """.cursor/hooks.json: {"command", "failClosed"?} per event (cursor.com/docs/hooks)."""

    def handler(command: str, closed: bool) -> dict[str, Any]:
        # The per-script timeout is in seconds (cursor.com/docs/hooks, CUR-6).
        entry: dict[str, Any] = {"command": command, "timeout": request.timeout_s}
        if closed:
            # A crash, a timeout or empty output then blocks too (cursor.com/docs/hooks, failClosed).
            entry["failClosed"] = True
        return entry

    _check_cursor_file(request.path)
    after, before = _flat_hooks(request, "command", handler)
    notes = (
        "Cursor runs a project's .cursor/hooks.json only in a trusted workspace; enterprise"
        " (/etc/cursor/hooks.json) and team hooks run beside it.",
        # hosts/cursor.json (docs/findings.md HA3-6): the prompt hook is not run everywhere.
        "beforeSubmitPrompt does not run under cursor-agent -p (print mode) or for cloud agents,"
        " so prompts are not judged there; tool calls are.",
    )
    return after, before, notes


# Every event name Cursor's hooks.json takes (cursor.com/docs/hooks; cursor/cookbook
# hooks/README.md @ 26a68e50): one unknown name voids the whole file silently (HA3-7).
_CURSOR_EVENTS: Final = frozenset(
    {
        "sessionStart",
        "sessionEnd",
        "preToolUse",
        "postToolUse",
        "postToolUseFailure",
        "subagentStart",
        "subagentStop",
        "beforeShellExecution",
        "afterShellExecution",
        "beforeMCPExecution",
        "afterMCPExecution",
        "beforeReadFile",
        "afterFileEdit",
        "beforeSubmitPrompt",
        "preCompact",
        "stop",
        "afterAgentResponse",
        "afterAgentThought",
        "beforeTabFileRead",
        "afterTabFileEdit",
    }
)


def _check_cursor_file(path: Path) -> None:
    """Refuse to merge into a hooks.json Cursor would ignore, which would void our entry too."""
    settings = _load_json(path, _read(path))
    hooks = settings.get("hooks", {})
    version = settings.get("version", 1)
    if not isinstance(hooks, dict) or version != 1:
        raise InstallError(
            f"{path}: Cursor reads a hooks.json of version 1 with a hooks object; this one is"
            " not, and Cursor would ignore it with the entry merged in: fix or move it first"
        )
    unknown = sorted(set(hooks) - _CURSOR_EVENTS)
    if unknown:
        raise InstallError(
            f"{path}: {', '.join(unknown)} is no Cursor hook event, and one unknown event name"
            " makes Cursor silently ignore the whole file, with the entry merged in: rename or"
            " remove it first"
        )


def _copilot(request: _Request) -> tuple[str, str | None, tuple[str, ...]]:
    """.github/hooks/<file>.json: {"type": "command", "bash", "timeoutSec"} per event."""

    # CP-1: Copilot lets the call run when a hook times out, so the hook gets its own deadline a
    # little earlier and answers with its failure body, a deny, before Copilot gives up.
    limit_ms = request.timeout_s * 1000
    deadline_ms = limit_ms - min(5000, limit_ms // 3)

    def handler(command: str, closed: bool) -> dict[str, Any]:
        return {
            "type": "command",
            "bash": command,
            "timeoutSec": request.timeout_s,
            "env": {TIMEOUT_ENV: str(deadline_ms)},
        }

    # postToolUse carries context and a replaced result from 1.0.51 (CP-9), though it cannot block.
    after, before = _flat_hooks(request, "bash", handler, also=frozenset({EventKinds.POST_TOOL}))
    notes = (
        f"Copilot CLI lets a call run when its hook times out (and, before 1.0.57, when it"
        f" crashes): the entry sets"
        f" {TIMEOUT_ENV}={deadline_ms} so the hook denies by itself before the"
        f" {request.timeout_s} s timeoutSec.",
        "Copilot CLI loads repository hooks only in a trusted folder: in CI trust the folder,"
        " set COPILOT_ALLOW_ALL=true, or install at user scope (acp install copilot --user).",
    )
    return after, before, notes


def _windsurf(request: _Request) -> tuple[str, str | None, tuple[str, ...]]:
    """hooks.json: {"hooks": {action: [{"command", "show_output"}]}} for every blocking pre-hook."""
    declaration = _declaration(request.host)
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
    notes = (
        # hosts/windsurf.json (docs/findings.md HA3-8): Devin Desktop's new local agent.
        "Windsurf is now Devin Desktop: its Devin Local sessions read Devin CLI hooks"
        " (.devin/hooks.v1.json, Claude-compatible) and import .claude/ hooks, not this file,"
        " so they run unguarded by it; run acp install claude for them as well.",
        *_no_fail_closed(request, "Windsurf"),
    )
    return after, before, notes
