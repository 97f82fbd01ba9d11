"""agent-control-plane-core: one event shape and one verdict shape across coding-agent hosts."""

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
from .adapters import AGENT_IDS, Adapter, adapter_for, create_codex_adapter
from .contract import make_event, normalize_verdict, sanitize_verdict

__all__ = [
    "ABSENT",
    "AGENT_IDS",
    "CONTROL_PLANE_SCHEMA",
    "MODELED_TOOLS",
    "MODELED_TOOL_INPUT_KEYS",
    "SCHEMA_VERSION",
    "Adapter",
    "Decisions",
    "EventKinds",
    "EventMeta",
    "IntegrationModes",
    "NativeResponse",
    "ToolCallEvent",
    "Verdict",
    "adapter_for",
    "create_codex_adapter",
    "make_event",
    "normalize_verdict",
    "sanitize_verdict",
]
