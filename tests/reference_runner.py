"""Runs reference payloads through our adapters and explains every difference by registry entries."""

from __future__ import annotations

import copy
from typing import Any

from agent_control_plane_core import Verdict, adapter_for
from agent_control_plane_core.adapters import Adapter

from conftest import FIXTURES_DIR, load_json


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
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Our parsed event and rendered response, as JSON objects."""
    adapter = adapter_with(agent, options)
    event = adapter.parse(copy.deepcopy(native))
    response = adapter.render(
        Verdict.from_dict(verdict), event, sole_gate=bool(options.get("sole_gate", False))
    )
    return event.to_dict(), response.to_dict()


def _masked(event: dict[str, Any], *, passthrough: bool, tool_input: bool) -> dict[str, Any]:
    event = copy.deepcopy(event)
    if passthrough:
        event["meta"].pop("passthrough")
    if tool_input:
        event.pop("input")
    return event


def unexplained(
    agent: str,
    tags: list[str],
    ours: tuple[dict[str, Any], dict[str, Any]],
    theirs: tuple[dict[str, Any], dict[str, Any]],
) -> str | None:
    """Why our answer's difference from the reference is not covered by its tags, or None."""
    entries = registry()
    for tag in tags:
        if tag not in entries:
            return f"tag {tag!r} is not in fixtures/divergences.json"
        if agent not in entries[tag]["agents"]:
            return f"entry {tag!r} does not name agent {agent!r}"
    (our_event, our_render), (ref_event, ref_render) = ours, theirs
    if not tags:
        if our_event != ref_event:
            return "parse differs with no registry entry"
        if our_render != ref_render:
            return "render differs with no registry entry"
        return None
    if our_event == ref_event and our_render == ref_render:
        return f"tagged {tags} but our answer equals the reference (stale tag)"
    if our_event != ref_event:
        parse_tags = {tag for tag in tags if entries[tag]["part"] == "parse"}
        if not parse_tags:
            return f"parse differs but {tags} only change the render"
        # nothing-lost may only add passthrough fields; the key-rename entries touch input only.
        lost = "nothing-lost" in parse_tags
        renamed = bool(parse_tags - {"nothing-lost"})
        if _masked(our_event, passthrough=lost, tool_input=renamed) != _masked(
            ref_event, passthrough=lost, tool_input=renamed
        ):
            return f"parse differs outside what {sorted(parse_tags)} change"
        if lost:
            ours_kept = our_event["meta"]["passthrough"]
            for key, value in ref_event["meta"]["passthrough"].items():
                if key not in ours_kept or ours_kept[key] != value:
                    return f"nothing-lost dropped or changed passthrough field {key!r}"
    if our_render != ref_render and all(entries[tag]["part"] != "render" for tag in tags):
        return f"render differs but {tags} only change the parse"
    return None
