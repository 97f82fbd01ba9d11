"""GitHub Copilot CLI adapter: a flat permissionDecision body that denies at exit 0."""

from __future__ import annotations

from .._generated.constants import (
    ContentFields,
    Decisions,
    EventKinds,
    PromptInputFields,
    StandardMetaFields,
)
from .._generated.hosts import copilot as declaration
from .._generated.models.native_response_schema import NativeResponse
from .._generated.models.tool_call_event_schema import ToolCallEvent
from .._generated.models.verdict_schema import Verdict
from ..contract import present, to_object
from ._base import HostAdapter, NativeFields, output_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

__all__ = ["CopilotAdapter", "copilot_adapter"]

# The camelCase form names no event; its shape does (hooks-reference.md @ 05da5bc3, input
# payloads; CP-6, CP-7). First match wins: a tool payload before any lifecycle one.
_CAMEL_TOOL: Final = "toolName"
_CAMEL_RESULT: Final = "toolResult"
_CAMEL_ERROR: Final = "error"
_TOOL_SHAPES: Final = (
    (_CAMEL_RESULT, "postToolUse"),
    (_CAMEL_ERROR, "postToolUseFailure"),
)
_LIFECYCLE_SHAPES: Final = (
    ("prompt", "userPromptSubmitted"),
    ("initialPrompt", "sessionStart"),
    ("source", "sessionStart"),
    (_CAMEL_ERROR, "errorOccurred"),
    ("stopReason", "agentStop"),
    ("reason", "sessionEnd"),
)
_CAMEL_PRE: Final = "preToolUse"
# The PascalCase (Claude-style) form's result field (CP-8); tool_response is read as a fallback.
_PASCAL_RESULT: Final = "tool_result"
_PERMISSION: Final = {Decisions.DENY: "deny", Decisions.ASK: "deny"}
# No built-in tool name has a hyphen; MCP tools arrive as <server>-<tool> (CP-11).
_MCP_SEPARATOR: Final = "-"
# From 1.0.70 exit 2 also denies (changelog 1.0.70); before, only the body does (CP-2).
_EXIT_2_DENIES: Final = "exit_2_denies"
_BLOCK: Final = 2
# postToolUse modifiedResult is a tool result object (copilot-sdk PostToolUseHookOutput).
_RESULT_TEXT: Final = "textResultForLlm"
_RESULT_TYPE: Final = "resultType"


class CopilotAdapter(HostAdapter):
    """Parses Copilot CLI hook payloads (camelCase or Claude-style) and renders its answers."""

    DECLARATION = declaration

    def parse(self, native: object) -> ToolCallEvent:
        """Turn a Copilot CLI hook payload into a ToolCallEvent; never raises."""
        fields = NativeFields(native)  # a non-object payload parses as an empty one
        payload = fields.payload
        # camelCase sessionId is the session id every host's meta carries.
        fields.standard_meta("sessionId", StandardMetaFields.SESSION_ID)
        camel_tool = isinstance(payload.get(_CAMEL_TOOL), str)
        native_event = fields.string("hook_event_name")
        pascal = native_event is not None
        if native_event is None:
            native_event = _camel_event(payload, camel_tool)
        kind = self.kind_of(native_event)
        native_tool: str | None = None
        tool_input: dict[str, Any] = {}
        if kind == EventKinds.PROMPT_SUBMIT:
            tool_input = {PromptInputFields.PROMPT: fields.string("prompt") or ""}
        elif kind in (EventKinds.PRE_TOOL, EventKinds.POST_TOOL) or (
            kind == EventKinds.UNKNOWN and (camel_tool or pascal)
        ):
            native_tool = fields.string(_CAMEL_TOOL) if camel_tool else fields.string("tool_name")
            # toolArgs is an object on 1.0.102, a JSON string in older docs (CP-13).
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
            response_key=_response_key(payload),
            mcp_call=native_tool is not None and _MCP_SEPARATOR in native_tool,
        )

    def unreadable_input(self, event: ToolCallEvent) -> str | None:
        """A tool call whose toolArgs (or tool_input) is not an object nor a JSON string of one."""
        if event.event not in (EventKinds.PRE_TOOL, EventKinds.POST_TOOL):
            return None
        # json_object leaves an argument string that does not decode to an object in passthrough
        # (L12: invalid or double-encoded JSON would otherwise be judged as a call with no input).
        for key in ("toolArgs", "tool_input"):
            if key in event.meta.passthrough:
                return f"{key} is not a JSON object (nor a JSON string of one)"
        return None

    def render_checked(
        self, verdict: Verdict, event: ToolCallEvent, *, sole_gate: bool
    ) -> NativeResponse:
        """Render a verdict as Copilot CLI's stdout body, stderr reason and exit code."""
        kind = event.event
        enforced = verdict.decision == Decisions.DENY and event.this_call_vetoable
        # Only a deny or an ask states a reason (an allow's body never carries one).
        reason = "" if verdict.decision == Decisions.ALLOW else self.block_reason(verdict)
        if kind == EventKinds.PRE_TOOL:
            body = self._pre_tool_body(verdict, event, reason, sole_gate)
        elif kind == EventKinds.POST_TOOL:
            body = self._post_tool_body(verdict, event, reason)
        elif kind == EventKinds.SESSION_START and present(verdict.additional_context):
            body = {"additionalContext": verdict.additional_context}
        else:
            # userPromptSubmitted output is dropped and unmodelled events read none (CP-6).
            body = {}
        if enforced:
            # The body denies on every version; exit 2 also does from 1.0.70 (CP-2).
            code = _BLOCK if self.feature(_EXIT_2_DENIES) else 0
            return self.response(exit_code=code, enforced=True, stdout=body, stderr=reason)
        # No output at exit 0 lets the call through the CLI's own permission flow.
        return self.response(stdout=body or None)

    def _pre_tool_body(
        self, verdict: Verdict, event: ToolCallEvent, reason: str, sole_gate: bool
    ) -> dict[str, Any]:
        decision = verdict.decision
        body: dict[str, Any] = {}
        if decision != Decisions.ALLOW:
            # No native ask tier is trusted (CP-15): ask is the same deny, with a reason always.
            body["permissionDecision"] = _PERMISSION[decision]
            body["permissionDecisionReason"] = reason
        else:
            if sole_gate:
                # An explicit allow skips the CLI's own prompt (1.0.18): only a sole gate says it.
                body["permissionDecision"] = "allow"
            if present(verdict.mutated_input):
                # modifiedArgs alone rewrites (observed on 1.0.102; CP-13).
                body["modifiedArgs"] = self.native_input(event, verdict.mutated_input)
        if present(verdict.additional_context):
            body["additionalContext"] = verdict.additional_context
        return body

    def _post_tool_body(
        self, verdict: Verdict, event: ToolCallEvent, reason: str
    ) -> dict[str, Any]:
        # CP-12: no permissionDecision after the tool; context and modifiedResult from 1.0.51.
        body: dict[str, Any] = {}
        if not self.carries(EventKinds.POST_TOOL, ContentFields.ADDITIONAL_CONTEXT):
            return body
        context = [verdict.additional_context] if present(verdict.additional_context) else []
        if verdict.decision != Decisions.ALLOW:
            # The tool already ran: the deny's reason reaches the model as feedback.
            context.insert(0, reason)
        if context:
            body["additionalContext"] = "\n\n".join(context)
        if present(verdict.mutated_output):
            body["modifiedResult"] = _result_object(verdict.mutated_output, event.response)
        return body


def _camel_event(payload: dict[str, Any], camel_tool: bool) -> str:
    """The event a camelCase payload is, from its shape; "" when no shape matches."""
    shapes = _TOOL_SHAPES if camel_tool else _LIFECYCLE_SHAPES
    for key, name in shapes:
        if key in payload:
            return name
    return _CAMEL_PRE if camel_tool else ""


def _response_key(payload: dict[str, Any]) -> str:
    """Where the tool's result is: camelCase toolResult, or the PascalCase tool_result (CP-8)."""
    if _CAMEL_RESULT in payload:
        return _CAMEL_RESULT
    return _PASCAL_RESULT if _PASCAL_RESULT in payload else "tool_response"


def _result_object(replacement: object, original: object) -> dict[str, Any]:
    """A tool result object carrying the replacement text, keeping the original result type."""
    if isinstance(replacement, dict) and _RESULT_TEXT in replacement:
        return replacement
    text = output_text(replacement)
    kept = to_object(original).get(_RESULT_TYPE)
    result: dict[str, Any] = {_RESULT_TEXT: text}
    result[_RESULT_TYPE] = kept if isinstance(kept, str) else "success"
    return result


copilot_adapter = CopilotAdapter()
