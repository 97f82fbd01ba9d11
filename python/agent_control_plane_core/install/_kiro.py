"""Kiro: the standalone hook file and the agent the 2.x engine runs hooks from."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from .._generated.constants import EventKinds
from ._base import _TOOL_KINDS, InstallError, _child, _dump_json, _load_json, _read, _Request
from ._command import _command, _is_ours
from ._json_nested import _native_events, _no_fail_closed


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
        # one allow for every later call (docs/findings.md KR-2).
        entry: dict[str, Any] = {"name": f"agent-control-plane-{trigger}", "trigger": trigger}
        if kind in _TOOL_KINDS:
            entry["matcher"] = request.matcher or ".*"  # a tool-name regex (.*: every tool)
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
        "Kiro CLI reads .kiro/hooks/ files from its V3 hooks (CLI 2.13); the 2.x engine runs only"
        f" hooks embedded in the active agent, so {_KIRO_AGENT_FILE} carries the same guard:"
        f" run kiro-cli chat --agent {_KIRO_AGENT} (or kiro-cli settings chat.defaultAgent"
        f" {_KIRO_AGENT}); the built-in default agent carries no hooks.",
        "Never add cache_ttl_seconds to these hooks: Kiro would replay one allow for every later"
        " matching call.",
        *_no_fail_closed(request, "Kiro CLI"),
    )
    return _dump_json(request.path, settings), before, notes


# The agent the 2.x engine runs the guard in (HA3-9): hooks embedded in an agent file, V2 shape
# {hooks: {preToolUse: [{command, matcher, timeout_ms}]}} (aws/amazon-q-developer-cli
# crates/chat-cli/src/cli/agent/hook.rs @ 15cc8f3c), tools "*" as the default agent has them.
_KIRO_AGENT: Final = "agent-control-plane"


_KIRO_AGENT_FILE: Final = f".kiro/agents/{_KIRO_AGENT}.json"


def _kiro_agent(request: _Request) -> tuple[str, str | None]:
    """.kiro/agents/agent-control-plane.json: the guard as the 2.x engine runs it, V2 hooks."""
    before = _read(request.path)
    agent = _load_json(request.path, before)
    agent.setdefault("name", _KIRO_AGENT)
    agent.setdefault(
        "description", "The default tools with the agent-control-plane guard on every call"
    )
    agent.setdefault("tools", ["*"])
    hooks = _child(agent, "hooks", dict, request.path)
    command, _ = _command(request, EventKinds.PRE_TOOL)
    # V2 matchers are globs: * is every tool (KR-2 on the matcher); only preToolUse blocks on V2.
    entry = {"command": command, "matcher": "*", "timeout_ms": request.timeout_s * 1000}
    handlers = _child(hooks, "preToolUse", list, request.path)
    for index, existing in enumerate(handlers):
        if isinstance(existing, Mapping) and _is_ours(existing.get("command"), request.host):
            handlers[index] = entry
            break
    else:
        handlers.append(entry)
    return _dump_json(request.path, agent, before), before
