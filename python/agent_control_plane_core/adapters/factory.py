"""Factory Droid adapter: Claude Code's hook protocol, with Droid's own declaration."""

from __future__ import annotations

from .._generated.hosts import factory as declaration
from .claude import ClaudeAdapter

__all__ = ["FactoryAdapter", "factory_adapter"]


class FactoryAdapter(ClaudeAdapter):
    """Parses Droid hook payloads and renders verdicts as Droid enforces them."""

    # Droid speaks Claude Code's events, payload and output (docs.factory.ai hooks reference);
    # what differs (the Execute alias, fields without a channel) is data in hosts/factory.json.
    DECLARATION = declaration


factory_adapter = FactoryAdapter()
