"""Which other host sent a payload to a hook entry that other hosts also run (docs/findings.md XH-1)."""

from __future__ import annotations

from .._generated.hosts import SENDER_MARKERS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


__all__ = ["foreign_host", "receives_foreign_payloads"]


def receives_foreign_payloads(agent: str) -> bool:
    """Whether another host runs agent's hook configuration (a declared sender_markers entry)."""
    return agent in SENDER_MARKERS


def foreign_host(payload: Any, entry: str = "claude") -> str | None:
    """The id of the host whose sender_markers match a payload entry's hook received, else None."""
    if not isinstance(payload, dict):
        return None
    # Read from the declarations, not the senders' adapters: the Claude entry runs on every
    # Claude Code tool call and must not load Cursor's and Droid's modules to rule them out.
    for host, string_fields, field_values in SENDER_MARKERS.get(entry, ()):
        if any(isinstance(payload.get(key), str) for key in string_fields):
            return host
        for key, values in field_values.items():
            value = payload.get(key)
            if isinstance(value, str) and value in values:
                return host
    return None
