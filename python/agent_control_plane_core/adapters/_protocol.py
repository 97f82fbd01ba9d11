"""The Adapter protocol: what every host adapter provides."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

# Its own module, out of the hook path: a Protocol needs typing at run time, and a hook call
# only annotates with it (issue 13).
from .._generated.constants import (
    CallClass,
    ContentField,
    CoverageStatus,
    EventKind,
    IntegrationMode,
)
from .._generated.models.native_response_schema import NativeResponse
from .._generated.models.tool_call_event_schema import ToolCallEvent
from .._generated.models.verdict_schema import Verdict

__all__ = ["Adapter"]


@runtime_checkable
class Adapter(Protocol):
    """What every host adapter provides (contract.md §4)."""

    AGENT: str
    INTEGRATION_MODE: IntegrationMode
    COVERAGE: Mapping[CallClass, CoverageStatus]
    UNRENDERED_FIELDS: Mapping[EventKind, frozenset[ContentField]]
    NATIVE_ASK_TIER: bool
    NATIVE_EVENT_FOR: Mapping[EventKind, str]
    DEFAULT_BLOCK_REASON: str
    FAILURE_EXIT_CODE: int

    def parse(self, native: object) -> ToolCallEvent:
        """Turn a raw hook payload into a ToolCallEvent; never raises."""
        ...

    def render(
        self, verdict: Verdict, event: ToolCallEvent, *, sole_gate: bool = False
    ) -> NativeResponse:
        """Turn a verdict into the host's whole native response."""
        ...

    def configure(self, **options: Any) -> Adapter:
        """Return a new adapter with these options; unknown options raise."""
        ...
