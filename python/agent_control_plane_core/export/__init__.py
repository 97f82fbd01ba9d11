"""`acp audit export`: the audit log shipped to an OTLP endpoint (the optional [otel] extra)."""

from __future__ import annotations

from ._mapping import NAMESPACE, map_record
from ._run import main

__all__ = ["NAMESPACE", "main", "map_record"]
