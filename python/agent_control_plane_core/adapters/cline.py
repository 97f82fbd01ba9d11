"""Cline adapter: TODO say in one line how this host's hooks answer."""

from __future__ import annotations

from .._generated.constants import EventKinds
from .._generated.hosts import cline as declaration
from .._generated.models.native_response_schema import NativeResponse
from .._generated.models.tool_call_event_schema import ToolCallEvent
from .._generated.models.verdict_schema import Verdict
from ._base import HostAdapter, payload_fields

__all__ = ["ClineAdapter", "cline_adapter"]


class ClineAdapter(HostAdapter):
    """Parses Cline hook payloads and renders verdicts as Cline enforces them."""

    DECLARATION = declaration

    def parse(self, native: object) -> ToolCallEvent:
        """Turn a Cline hook payload into a ToolCallEvent; never raises."""
        fields = payload_fields(native)
        # TODO: read the host's event name, tool name and tool input (host-protocols.md); until
        # then every payload parses as an unknown event and every field stays in passthrough.
        return self.build_event(
            fields,
            kind=EventKinds.UNKNOWN,
            native_event="",
            native_tool=None,
            tool_input={},
            call_keys=("mcp_context", "agent_type"),
        )

    def render_checked(
        self, verdict: Verdict, event: ToolCallEvent, *, sole_gate: bool
    ) -> NativeResponse:
        """Render a verdict as Cline's stdout body, stderr reason and exit code."""
        # TODO: render each decision as the host enforces it; until then nothing is claimed.
        return self.response()


cline_adapter = ClineAdapter()
