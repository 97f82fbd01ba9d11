"""Augment Auggie CLI adapter: Claude Code's hook answers, Auggie's own payload and declaration."""

from __future__ import annotations

from .._generated.constants import EventKinds, StandardMetaFields
from .._generated.hosts import auggie as declaration
from .._generated.models.tool_call_event_schema import ToolCallEvent
from .._generated.models.verdict_schema import Verdict
from ._base import payload_fields
from .claude import ClaudeAdapter

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

__all__ = ["AuggieAdapter", "auggie_adapter"]

# The 0.36.0 bundle's tool-event payload (hosts/auggie.json; docs/findings.md HA3-1):
# {hook_event_name, conversation_id, workspace_roots: [root], tool_name, tool_input,
# tool_output, tool_error, is_mcp_tool, ...}; no session_id, cwd or tool_response.
# workspace_roots[0] is the cwd and is_mcp_tool true the MCP class; both also stay in passthrough.
_SESSION: Final = "conversation_id"
_ROOTS: Final = "workspace_roots"
_OUTPUT: Final = "tool_output"
_IS_MCP: Final = "is_mcp_tool"
# PostToolUse feedback Auggie reads only inside hookSpecificOutput (HA3-1).
_FEEDBACK: Final = ("decision", "reason")


class AuggieAdapter(ClaudeAdapter):
    """Parses Auggie hook payloads and renders verdicts as Auggie enforces them."""

    # Auggie reads Claude Code's hookSpecificOutput and exit 2 (@augmentcode/auggie 0.36.0
    # bundle); its tool names, its missing ask tier and the context it drops are hosts/auggie.json.
    DECLARATION = declaration

    def parse(self, native: object) -> ToolCallEvent:
        """Turn an Auggie hook payload into a ToolCallEvent; never raises."""
        fields = payload_fields(native)
        native_event = fields.string("hook_event_name") or ""
        kind = self.kind_of(native_event)
        native_tool = None if kind == EventKinds.SESSION_START else fields.string("tool_name")
        tool_input = {} if native_tool is None else fields.object("tool_input")
        fields.standard_meta(_SESSION, StandardMetaFields.SESSION_ID)
        payload = fields.payload
        # workspace_roots and is_mcp_tool are read but not consumed: the event has no list of roots
        # and no call-class field, so both stay in passthrough as sent (nothing the host sent is lost).
        roots = payload.get(_ROOTS)
        if (
            isinstance(roots, list)
            and roots
            and isinstance(roots[0], str)
            and StandardMetaFields.CWD not in payload
        ):
            # The first workspace root is where the agent works.
            if fields.meta is None:
                fields.meta = {}
            fields.meta[StandardMetaFields.CWD] = roots[0]
        mcp = payload.get(_IS_MCP)
        return self.build_event(
            fields,
            kind=kind,
            native_event=native_event,
            native_tool=native_tool,
            tool_input=tool_input,
            call_keys=self.CALL_KEYS,
            response_key=_OUTPUT,
            mcp_call=mcp is True,
        )

    def post_tool_body(
        self, verdict: Verdict, event: ToolCallEvent, reason: str | None
    ) -> dict[str, Any]:
        """PostToolUse feedback: Auggie reads decision and reason only inside hookSpecificOutput."""
        body = self.other_body(verdict, event, reason)
        inner = body["hookSpecificOutput"]
        for key in _FEEDBACK:
            if key in body:
                inner[key] = body.pop(key)
        return body


auggie_adapter = AuggieAdapter()
