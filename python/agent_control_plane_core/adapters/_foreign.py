"""Which other host sent a payload to a Claude-protocol hook entry (host-findings XH-1)."""

from __future__ import annotations

from typing import Any

__all__ = ["foreign_host"]


def foreign_host(payload: Any) -> str | None:
    """The host id of a Cursor or Droid payload that reached the Claude entry, else None."""
    if not isinstance(payload, dict):
        return None
    # Lazy: the Claude hook path loads another adapter module only when it is asked.
    from .cursor import sent_by_cursor

    if sent_by_cursor(payload):
        return "cursor"
    from .factory import sent_by_droid

    return "factory" if sent_by_droid(payload) else None
