"""agent-control-plane-core: one event shape and one verdict shape across coding-agent hosts."""

from __future__ import annotations

from ._generated.constants import (
    CONTROL_PLANE_SCHEMA,
    MODELED_TOOL_INPUT_KEYS,
    MODELED_TOOLS,
    SCHEMA_VERSION,
    Decisions,
    EventKinds,
    IntegrationModes,
)
from ._generated.models.native_response_schema import NativeResponse
from ._generated.models.tool_call_event_schema import EventMeta, ToolCallEvent
from ._generated.models.verdict_schema import Verdict
from ._model_base import ABSENT
from .adapters import AGENT_IDS, adapter_for, create_codex_adapter
from .contract import make_event, normalize_verdict, sanitize_verdict

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .adapters._protocol import Adapter
    from .conformance import (
        ConformanceError,
        ConformanceReport,
        assert_conforms,
        run_adapter_conformance,
    )

# The conformance kit is for test suites, not the hook path: load it on first use only.
_LAZY = frozenset(
    {"ConformanceError", "ConformanceReport", "assert_conforms", "run_adapter_conformance"}
)

__all__ = [
    "ABSENT",
    "AGENT_IDS",
    "CONTROL_PLANE_SCHEMA",
    "MODELED_TOOLS",
    "MODELED_TOOL_INPUT_KEYS",
    "SCHEMA_VERSION",
    "Adapter",
    "ConformanceError",
    "ConformanceReport",
    "Decisions",
    "EventKinds",
    "EventMeta",
    "IntegrationModes",
    "NativeResponse",
    "ToolCallEvent",
    "Verdict",
    "adapter_for",
    "assert_conforms",
    "create_codex_adapter",
    "make_event",
    "normalize_verdict",
    "run_adapter_conformance",
    "sanitize_verdict",
]


def __getattr__(name: str) -> Any:
    if name == "Adapter":  # a runtime Protocol needs typing, which a hook call never loads
        from .adapters._protocol import Adapter

        return Adapter
    if name in _LAZY:
        from . import conformance

        return getattr(conformance, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _LAZY | {"Adapter"})
