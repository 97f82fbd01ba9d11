"""Factory Droid adapter: Claude Code's hook protocol, with Droid's own declaration and tools."""

from __future__ import annotations

import re

from .._generated.constants import MODELED_TOOL_INPUT_KEYS
from .._generated.hosts import factory as declaration
from .._generated.models.tool_call_event_schema import ToolCallEvent
from ._base import NativeFields
from .claude import ClaudeAdapter, rebuilt

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

__all__ = ["FactoryAdapter", "factory_adapter"]

# Droid's permission modes, none of which Claude Code sends (docs/findings.md XH-1).
# Droid's patch tool: tool_input {input: "<patch>"} with "*** Add/Update/Delete File: <path>"
# headers, the ones its 0.225.2 bundle parses for sandbox file checks (hosts/factory.json, FD-3).
_PATCH_TOOL: Final = "ApplyPatch"
_PATCH_INPUT: Final = "input"
_PATCH_HEADER: Final = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+?)\s*$", re.MULTILINE)
_PATCH_MOVE: Final = re.compile(r"^\*\*\* Move to: (.+?)\s*$", re.MULTILINE)
_ADD: Final = "Add"
# Every path a multi-file patch touches, beside the first one in the canonical key.
PATCH_PATHS_KEY: Final = "file_paths"
# A patch that only adds files is a write; the alias target for the rest is Edit (hosts/factory.json).
_WRITE_TOOL: Final = "Write"
_PATH_KEY: Final = MODELED_TOOL_INPUT_KEYS[_WRITE_TOOL]


class FactoryAdapter(ClaudeAdapter):
    """Parses Droid hook payloads and renders verdicts as Droid enforces them."""

    # Droid speaks Claude Code's events, payload and output (docs.factory.ai hooks reference);
    # what differs (no ask tier, no gated post_tool or prompt, tool aliases) is hosts/factory.json.
    DECLARATION = declaration

    def tool_input(self, native_tool: str | None, fields: NativeFields) -> dict[str, Any]:
        """Droid's tool input, with ApplyPatch's file paths read from its patch headers (FD-3)."""
        tool_input = fields.object("tool_input")
        if native_tool != _PATCH_TOOL:
            return tool_input
        patch = tool_input.get(_PATCH_INPUT)
        if not isinstance(patch, str) or _PATH_KEY in tool_input:
            return tool_input
        paths = _patch_paths(patch)
        if paths:
            tool_input[_PATH_KEY] = paths[0]
            if len(paths) > 1 and PATCH_PATHS_KEY not in tool_input:
                tool_input[PATCH_PATHS_KEY] = paths
        return tool_input

    def refined(self, event: ToolCallEvent) -> ToolCallEvent:
        """A patch whose every header adds a file is a Write, not an Edit (TN-FD)."""
        if event.meta.native_tool != _PATCH_TOOL or event.tool == _PATCH_TOOL:
            return event
        patch = event.input.get(_PATCH_INPUT)
        if isinstance(patch, str) and _only_adds(patch):
            return rebuilt(event, tool=_WRITE_TOOL)
        return event


def _patch_paths(patch: str) -> list[str]:
    """Every path a patch adds, updates, deletes or moves to, in order, each once."""
    found: list[str] = []
    for match in re.finditer(f"{_PATCH_HEADER.pattern}|{_PATCH_MOVE.pattern}", patch, re.MULTILINE):
        path = match.group(2) or match.group(3)
        if path and path not in found:
            found.append(path)
    return found


def _only_adds(patch: str) -> bool:
    """Whether the patch has headers and every one of them adds a file."""
    kinds = [match.group(1) for match in _PATCH_HEADER.finditer(patch)]
    return bool(kinds) and all(kind == _ADD for kind in kinds)


factory_adapter = FactoryAdapter()
