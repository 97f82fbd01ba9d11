"""Augment Auggie CLI adapter: Claude Code's hook protocol, with Auggie's own declaration."""

from __future__ import annotations

from .._generated.hosts import auggie as declaration
from .claude import ClaudeAdapter

__all__ = ["AuggieAdapter", "auggie_adapter"]


class AuggieAdapter(ClaudeAdapter):
    """Parses Auggie hook payloads and renders verdicts as Auggie enforces them."""

    # Auggie reads Claude Code's hookSpecificOutput and exit 2 (@augmentcode/auggie 0.36.0
    # bundle); its tool names and the PreToolUse context it drops are data in hosts/auggie.json.
    DECLARATION = declaration


auggie_adapter = AuggieAdapter()
