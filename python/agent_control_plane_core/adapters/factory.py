"""Factory Droid adapter: Claude Code's hook protocol, with Droid's own declaration."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from .._generated.hosts import factory as declaration
from .claude import ClaudeAdapter

__all__ = ["FactoryAdapter", "factory_adapter", "sent_by_droid"]

# Droid's permission modes, none of which Claude Code sends (host-findings XH-1).
_DROID_MODES: Final = frozenset({"off", "spec", "auto-low", "auto-medium", "auto-high"})


class FactoryAdapter(ClaudeAdapter):
    """Parses Droid hook payloads and renders verdicts as Droid enforces them."""

    # Droid speaks Claude Code's events, payload and output (docs.factory.ai hooks reference);
    # what differs (the Execute alias, fields without a channel) is data in hosts/factory.json.
    DECLARATION = declaration


def sent_by_droid(payload: Mapping[str, Any]) -> bool:
    """Whether a payload the Claude entry received was sent by Droid, which imports Claude hooks."""
    mode = payload.get("permission_mode")
    return isinstance(mode, str) and mode in _DROID_MODES


factory_adapter = FactoryAdapter()
