"""Hosts whose hooks are JSON event tables of matcher groups and handlers (Claude Code's form and its kin)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from .._generated.constants import EventKinds
from ._base import _TOOL_KINDS, _child, _declaration, _dump_json, _load_json, _read, _Request
from ._command import _command, _is_ours

# Keys of our handler the installer owns; a reinstall sets (or, when absent, removes) them.
_OWNED: Final = frozenset({"type", "command", "bash", "onFailure", "failClosed"})


# Keys the installer sets on a new handler but keeps when the user tuned them (L4).
_TUNABLE: Final = frozenset({"timeout", "timeoutSec"})


def _update_handler(existing: Any, handler: Mapping[str, Any], timeout_set: bool) -> None:
    """Update our earlier handler in place: owned keys rewritten, the user's own keys kept."""
    for key in _OWNED - set(handler):
        if key in existing:
            del existing[key]
    for key, value in handler.items():
        if key in _TUNABLE and key in existing and not timeout_set:
            continue
        existing[key] = value


def _merge_handler(
    groups: list[Any],
    handler: dict[str, Any],
    host: str,
    timeout_set: bool,
    matcher: str | None = None,
) -> None:
    """Update this installer's earlier handler in place, or append a new matcher group."""
    for group in groups:
        handlers = group.get("hooks") if isinstance(group, Mapping) else None
        if not isinstance(handlers, list):
            continue
        for existing in handlers:
            if isinstance(existing, dict) and _is_ours(existing.get("command"), host):
                _update_handler(existing, handler, timeout_set)
                if group.get("matcher") == matcher:
                    return
                if len(handlers) == 1:
                    # N15: the group is ours alone, so its matcher is ours to set or remove.
                    if matcher is None:
                        del group["matcher"]
                    else:
                        group["matcher"] = matcher
                    return
                # The user's handlers keep their group and its matcher; ours moves out.
                handlers.remove(existing)
                groups.append(_group(existing, matcher))
                return
    groups.append(_group(handler, matcher))


def _group(handler: dict[str, Any], matcher: str | None) -> dict[str, Any]:
    """A Claude-shaped matcher group holding one handler; no matcher means every tool."""
    return {"hooks": [handler]} if matcher is None else {"matcher": matcher, "hooks": [handler]}


def _native_events(host: str, also: frozenset[str] = frozenset()) -> list[tuple[str, str]]:
    """(kind, native event name) for every kind the host gates (plus also), in kind order."""
    declaration = _declaration(host)
    wanted: frozenset[str] = declaration.GATED_KINDS | also
    events: Mapping[str, str] = declaration.NATIVE_EVENT_FOR
    return [(kind, events[kind]) for kind in EventKinds.ALL if kind in wanted and kind in events]


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
            # A hook that never starts still blocks (Claude Code hooks docs, onFailure, v2.1.295+).
            handler["onFailure"] = "block"
        if closed and closed_fields:
            handler.update(closed_fields)
        groups = _child(hooks, event, list, request.path)
        # A tool-name matcher applies to tool events only; a prompt names no tool.
        matcher = request.matcher if kind in _TOOL_KINDS else None
        _merge_handler(groups, handler, request.host, request.timeout_set, matcher)
    return _dump_json(request.path, settings, before), before


# Kinds the Claude family cannot block but whose answer still reaches the model: PostToolUse
# feedback, context and updatedToolOutput (hosts/claude.json, factory.json, qwen.json; CC-1).
_FEEDBACK_KINDS: Final = frozenset({EventKinds.POST_TOOL, EventKinds.PROMPT_SUBMIT})


def _claude(request: _Request) -> tuple[str, str | None, tuple[str, ...]]:
    # onFailure sits on each command handler: there 2.1.332 blocks a killed hook, on the matcher
    # group it does not (CC-10; lab scenario killed_fail_closed).
    after, before = _json_hooks(request, timeout_ms=False, on_failure=True, also=_FEEDBACK_KINDS)
    notes: tuple[str, ...] = ()
    if request.fail_closed:
        # hosts/claude.json version fact on-failure-block (docs/findings.md HA3-11).
        notes = (
            "Claude Code honours onFailure from 2.1.295: on 2.1.197 to 2.1.294 a hook that is"
            " killed, never starts or times out lets the call run whatever --fail-closed says.",
        )
    return after, before, notes


def _gemini(request: _Request) -> tuple[str, str | None, tuple[str, ...]]:
    # Gemini CLI's handler timeout is in milliseconds (Gemini CLI docs/hooks; hosts/gemini.json notes).
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
