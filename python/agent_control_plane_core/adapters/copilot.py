"""GitHub Copilot CLI adapter: a flat permissionDecision body, exit 2 beside it as the block."""

from __future__ import annotations

from typing import Any, Final

from .._generated.constants import Decisions, EventKinds, PromptInputFields, StandardMetaFields
from .._generated.hosts import copilot as declaration
from .._generated.models.native_response_schema import NativeResponse
from .._generated.models.tool_call_event_schema import ToolCallEvent
from .._generated.models.verdict_schema import Verdict
from ..contract import present, to_object, to_string
from ._base import HostAdapter, NativeFields

__all__ = ["CopilotAdapter", "copilot_adapter"]

# The camelCase form names no event: a tool payload is preToolUse, or postToolUse with a result
# (docs.github.com copilot hooks reference, input payloads).
_CAMEL_PRE: Final = "preToolUse"
_CAMEL_POST: Final = "postToolUse"
_CAMEL_RESULT: Final = "toolResult"
# Exit 2 beside the deny body: preToolUse fails closed on a non-zero exit (host-protocols.md §6).
_BLOCK: Final = 2
_PERMISSION: Final = {Decisions.DENY: "deny", Decisions.ASK: "ask"}


class CopilotAdapter(HostAdapter):
    """Parses Copilot CLI hook payloads (camelCase or Claude-style) and renders its answers."""

    DECLARATION = declaration

    def parse(self, native: object) -> ToolCallEvent:
        """Turn a Copilot CLI hook payload into a ToolCallEvent; never raises."""
        payload = to_object(native)
        fields = NativeFields(payload)
        session = payload.get("sessionId")
        if isinstance(session, str) and StandardMetaFields.SESSION_ID not in payload:
            # camelCase sessionId is the session id every host's meta carries.
            fields = NativeFields({**payload, StandardMetaFields.SESSION_ID: session})
            fields.take("sessionId")
        camel_tool = isinstance(payload.get("toolName"), str)
        native_event = fields.string("hook_event_name")
        if native_event is None:
            native_event = ""
            if camel_tool:
                native_event = _CAMEL_POST if _CAMEL_RESULT in payload else _CAMEL_PRE
        kind = self.kind_of(native_event)
        native_tool: str | None = None
        tool_input: dict[str, Any] = {}
        if kind == EventKinds.PROMPT_SUBMIT:
            tool_input = {PromptInputFields.PROMPT: fields.string("prompt") or ""}
        elif kind != EventKinds.SESSION_START:
            native_tool = fields.string("toolName") if camel_tool else fields.string("tool_name")
            # toolArgs is a JSON string (host-protocols.md §6); the Claude-style form has tool_input.
            found = fields.json_object("toolArgs")
            if found is None:
                found = fields.json_object("tool_input")
            tool_input = found or {}
        return self.build_event(
            fields,
            kind=kind,
            native_event=native_event,
            native_tool=native_tool,
            tool_input=tool_input,
            call_keys=("mcp_context", "agent_type"),
            response_key=_CAMEL_RESULT if _CAMEL_RESULT in payload else "tool_response",
        )

    def render_checked(
        self, verdict: Verdict, event: ToolCallEvent, *, sole_gate: bool
    ) -> NativeResponse:
        """Render a verdict as Copilot CLI's stdout body, stderr reason and exit code."""
        decision = verdict.decision
        enforced = decision == Decisions.DENY and event.this_call_vetoable
        reason = self.block_reason(verdict) if enforced else to_string(verdict.reason)
        body: dict[str, Any] = {}
        if decision != Decisions.ALLOW:
            body["permissionDecision"] = _PERMISSION[decision]
            if reason:
                body["permissionDecisionReason"] = reason
        elif sole_gate:
            # An explicit allow may skip the CLI's own prompt (?): only a sole gate says it.
            body["permissionDecision"] = "allow"
        if (
            event.event == EventKinds.PRE_TOOL
            and decision != Decisions.DENY
            and present(verdict.mutated_input)
        ):
            body["modifiedArgs"] = verdict.mutated_input
        if enforced:
            return self.response(exit_code=_BLOCK, enforced=True, stdout=body, stderr=reason)
        # No output at exit 0 lets the call through the CLI's own permission flow.
        return self.response(stdout=body or None)


copilot_adapter = CopilotAdapter()
