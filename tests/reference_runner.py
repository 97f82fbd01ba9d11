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


def tags_for(line: dict[str, Any]) -> list[str]:
    """A reference line's divergence tags: its own, plus every registry entry that selects it.

    The reference corpus is read-only, so an entry for a difference found later names the lines
    it covers by ``selects``: dotted paths into the line, each with the values it may hold
    (null also matches an absent path).
    """
    tags = list(line.get("divergence", []))
    for entry_id, entry in registry().items():
        selects = entry.get("selects")
        if (
            selects
            and entry_id not in tags
            and all(_selected(_at(line, path), values) for path, values in selects.items())
        ):
            tags.append(entry_id)
    return tags


def _selected(found: Any, values: list[Any]) -> bool:
    return any(found == value or (value is None and found is _MISSING) for value in values)


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


def selected_tags(line: dict[str, Any]) -> list[str]:
    """The registry entries a line carries through their selects, not through its own tags."""
    own = set(line.get("divergence", []))
    return [tag for tag in tags_for(line) if tag not in own]


def unexplained(
    agent: str,
    tags: list[str],
    ours: dict[str, Any],
    theirs: dict[str, Any],
    selected: tuple[str, ...] | list[str] = (),
) -> str | None:
    """Why our answer's difference from the reference is not covered by its tags, or None.

    Each registry entry lists the JSON paths it may change: outside the union of a line's tags'
    paths the answers must be equal, and every tag must change at least one of its own paths on
    that line (else the tag is stale there). A selected tag (``selects``) names a class of lines;
    it widens the scope but is not stale where one of its lines happens to agree.
    """
    entries = registry()
    for tag in tags:
        if tag not in entries:
            return f"tag {tag!r} is not in fixtures/divergences.json"
        if agent not in entries[tag]["agents"]:
            return f"entry {tag!r} does not name agent {agent!r}"
    scope = {path for tag in tags for path in entries[tag]["paths"]}
    if _without(ours, scope) != _without(theirs, scope):
        outside = "no registry entry" if not tags else f"what {tags} may change"
        return f"answer differs outside {outside}"
    for tag in tags:
        if tag in selected:
            continue
        if all(_at(ours, path) == _at(theirs, path) for path in entries[tag]["paths"]):
            return f"tagged {tag!r} but none of its paths differ here (stale tag)"
    if "nothing-lost" in tags:
        # nothing-lost may only add passthrough fields, never change or drop one.
        kept = ours["event"]["meta"]["passthrough"]
        for key, value in theirs["event"]["meta"]["passthrough"].items():
            if kept.get(key, _MISSING) != value:
                return f"nothing-lost dropped or changed passthrough field {key!r}"
    return None
