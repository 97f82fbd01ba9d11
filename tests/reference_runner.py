"""Runs reference payloads through our adapters and explains every difference by registry entries."""

from __future__ import annotations

import copy
from typing import Any

from agent_control_plane_core import Verdict, adapter_for
from agent_control_plane_core.adapters import Adapter

from conftest import FIXTURES_DIR, load_json

_MISSING = object()


def registry() -> dict[str, dict[str, Any]]:
    """The divergence registry (fixtures/divergences.json), by id."""
    entries = load_json(FIXTURES_DIR / "divergences.json")["entries"]
    return {entry["id"]: entry for entry in entries}


def adapter_with(agent: str, options: dict[str, Any]) -> Adapter:
    """The adapter a reference line ran under; sole_gate is a render option, not an adapter one."""
    adapter_options = {k: v for k, v in options.items() if k != "sole_gate"}
    return adapter_for(agent, **adapter_options)


def run(
    agent: str, native: Any, verdict: dict[str, Any], options: dict[str, Any]
) -> dict[str, Any]:
    """Our parsed event and rendered response, as one JSON object {event, render}."""
    adapter = adapter_with(agent, options)
    event = adapter.parse(copy.deepcopy(native))
    response = adapter.render(
        Verdict.from_dict(verdict), event, sole_gate=bool(options.get("sole_gate", False))
    )
    return {"event": event.to_dict(), "render": response.to_dict()}


def _at(answer: dict[str, Any], path: str) -> Any:
    node: Any = answer
    for key in path.split("."):
        if not isinstance(node, dict) or key not in node:
            return _MISSING
        node = node[key]
    return node


def differs_at(ours: dict[str, Any], theirs: dict[str, Any], paths: list[str]) -> bool:
    """Whether the two answers differ at any of these paths."""
    return any(_at(ours, path) != _at(theirs, path) for path in paths)


def _without(answer: dict[str, Any], paths: set[str]) -> dict[str, Any]:
    masked = copy.deepcopy(answer)
    for path in paths:
        *parents, last = path.split(".")
        node: Any = masked
        for key in parents:
            node = node.get(key) if isinstance(node, dict) else None
        if isinstance(node, dict):
            node.pop(last, None)
    return masked


def _holds(line: dict[str, Any], condition: dict[str, Any]) -> bool:
    value = _at(line, condition["path"])
    if "present" in condition:
        return (value is not _MISSING) is condition["present"]
    if "equals" in condition:
        return bool(value == condition["equals"])
    if "in" in condition:
        return value in list(condition["in"])
    if "prefix" in condition:
        return isinstance(value, str) and value.startswith(condition["prefix"])
    if "type" in condition:
        return isinstance(value, {"object": dict, "array": list, "string": str}[condition["type"]])
    raise AssertionError(f"unknown applies_to condition {condition}")


def matched_tags(line: dict[str, Any]) -> list[str]:
    """Ids of the entries whose applies_to selects this reference line (see docs/divergences.md)."""
    found = []
    for entry_id, entry in registry().items():
        groups = entry.get("applies_to")
        if not groups or line["agent"] not in entry["agents"]:
            continue
        if any(all(_holds(line, condition) for condition in group) for group in groups):
            found.append(entry_id)
    return found


def unexplained(
    agent: str,
    tags: list[str],
    ours: dict[str, Any],
    theirs: dict[str, Any],
    matched: list[str] | None = None,
) -> str | None:
    """Why our answer's difference from the reference is not covered by its tags, or None.

    Each registry entry lists the JSON paths it may change: outside the union of a line's tags'
    paths (its own tags and the entries whose applies_to selects it) the answers must be equal,
    and every tag the line itself carries must change at least one of its own paths on that line
    (else the tag is stale there).
    """
    entries = registry()
    # A withdrawn entry's tag no longer excuses anything: the corpus still carries it (read-only).
    tags = [tag for tag in tags if not entries.get(tag, {}).get("withdrawn")]
    own = list(tags)
    tags = own + [tag for tag in matched or [] if tag not in own]
    for tag in tags:
        if tag not in entries:
            return f"tag {tag!r} is not in fixtures/divergences.json"
        if agent not in entries[tag]["agents"]:
            return f"entry {tag!r} does not name agent {agent!r}"
    scope = {path for tag in tags for path in entries[tag]["paths"]}
    if _without(ours, scope) != _without(theirs, scope):
        outside = "no registry entry" if not tags else f"what {tags} may change"
        return f"answer differs outside {outside}"
    for tag in own:
        if all(_at(ours, path) == _at(theirs, path) for path in entries[tag]["paths"]):
            return f"tagged {tag!r} but none of its paths differ here (stale tag)"
    if "nothing-lost" in tags:
        # nothing-lost may only add passthrough fields, never change or drop one.
        kept = ours["event"]["meta"]["passthrough"]
        for key, value in theirs["event"]["meta"]["passthrough"].items():
            if kept.get(key, _MISSING) != value:
                return f"nothing-lost dropped or changed passthrough field {key!r}"
    return None
