"""Crush adapter: PreToolUse command hooks; exit 2 blocks, a JSON envelope allows, rewrites, adds context."""

from __future__ import annotations

from .._generated.constants import ContentFields, Decisions, EventKinds
from .._generated.hosts import crush as declaration
from .._generated.models.native_response_schema import NativeResponse
from .._generated.models.tool_call_event_schema import ToolCallEvent
from .._generated.models.verdict_schema import Verdict
from ..contract import present, to_string
from ._base import HostAdapter, payload_fields

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

__all__ = ["CrushAdapter", "crush_adapter"]

# charmbracelet/crush docs/hooks/README.md (Output): exit 2 blocks with stderr as the reason.
_BLOCK: Final = 2
# MCP tools are named mcp_<server>_<tool> (docs/hooks/README.md, "Block all MCP tools").
_MCP_PREFIX: Final = "mcp_"


class CrushAdapter(HostAdapter):
    """Parses Crush hook payloads and renders verdicts as Crush's exit code and envelope."""

    DECLARATION = declaration

    def parse(self, native: object) -> ToolCallEvent:
        """Turn a Crush hook payload into a ToolCallEvent; never raises."""
        fields = payload_fields(native)
        # internal/hooks/input.go: the event name is "event"; a Claude-shaped payload names it
        # hook_event_name, read as a fallback so either spelling parses.
        native_event = fields.string("event") or fields.string("hook_event_name") or ""
        kind = self.kind_of(native_event)
        native_tool = fields.string("tool_name") if kind != EventKinds.UNKNOWN else None
        tool_input = fields.object("tool_input") if native_tool is not None else {}
        return self.build_event(
            fields,
            kind=kind,
            native_event=native_event,
            native_tool=native_tool,
            tool_input=tool_input,
            call_keys=("mcp_context", "agent_type"),
            mcp_call=native_tool is not None and native_tool.startswith(_MCP_PREFIX),
        )

    def render_checked(
        self, verdict: Verdict, event: ToolCallEvent, *, sole_gate: bool
    ) -> NativeResponse:
        """Render a verdict as Crush's exit code, stderr reason and stdout envelope."""
        decision = verdict.decision
        if decision == Decisions.DENY and event.this_call_vetoable:
            # Exit 2 ignores stdout; the reason is what the model reads, so it is never empty.
            return self.response(exit_code=_BLOCK, enforced=True, stderr=self.block_reason(verdict))
        body: dict[str, Any] = {}
        if decision != Decisions.ALLOW:
            # No ask decision exists (silence is Crush's own prompt): an ask is an advisory deny.
            body["decision"] = "deny"
            if present(verdict.reason):
                body["reason"] = to_string(verdict.reason)
        elif sole_gate:
            # decision allow skips Crush's permission prompt, so only a sole gate says it.
            body["decision"] = "allow"
        kind = event.event
        if present(verdict.additional_context) and self.carries(
            kind, ContentFields.ADDITIONAL_CONTEXT
        ):
            body["context"] = verdict.additional_context
        if (
            decision == Decisions.ALLOW
            and present(verdict.mutated_input)
            and self.carries(kind, ContentFields.MUTATED_INPUT)
        ):
            # updated_input is shallow-merged into tool_input; the whole new input overwrites it.
            body["updated_input"] = verdict.mutated_input
        return self.response(stdout=body or None)


crush_adapter = CrushAdapter()
