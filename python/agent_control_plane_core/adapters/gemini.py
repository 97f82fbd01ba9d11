"""Gemini CLI adapter: a JSON decision body at exit 0, or exit 2 with the reason on stderr."""

from __future__ import annotations

from typing import Any, Final

from .._generated.constants import Decisions, EventKinds, PromptInputFields
from .._generated.hosts import gemini as declaration
from .._generated.models.native_response_schema import NativeResponse
from .._generated.models.tool_call_event_schema import ToolCallEvent
from .._generated.models.verdict_schema import Verdict
from ..contract import present
from ._base import HostAdapter, payload_fields

__all__ = ["GEMINI_REDACTION_WARNING", "GeminiAdapter", "gemini_adapter"]

GEMINI_REDACTION_WARNING: Final = (
    "The guardrail asked to redact this tool output, but Gemini CLI cannot replace a tool "
    "result after the tool ran: treat the output above as unredacted."
)
"""systemMessage text sent when a verdict redacts output Gemini CLI has no channel to replace."""

_TOOL_KINDS = frozenset({EventKinds.PRE_TOOL, EventKinds.POST_TOOL})


class GeminiAdapter(HostAdapter):
    """Parses Gemini CLI hook payloads and renders verdicts as Gemini CLI enforces them."""

    DECLARATION = declaration

    def parse(self, native: object) -> ToolCallEvent:
        """Turn a Gemini CLI hook payload into a ToolCallEvent; never raises."""
        fields = payload_fields(native)
        native_event = fields.string("hook_event_name") or ""
        kind = self.kind_of(native_event)
        native_tool = fields.string("tool_name") if kind in _TOOL_KINDS else None
        tool_input: dict[str, Any] = {}
        if kind in _TOOL_KINDS:
            tool_input = fields.object("tool_input")
        elif kind == EventKinds.PROMPT_SUBMIT:
            tool_input = {PromptInputFields.PROMPT: fields.string("prompt") or ""}
        return self.build_event(
            fields,
            kind=kind,
            native_event=native_event,
            native_tool=native_tool,
            tool_input=tool_input,
            call_keys=("mcp_context", "agent_type"),
            response_key="tool_response",
        )

    def render_checked(
        self, verdict: Verdict, event: ToolCallEvent, *, sole_gate: bool
    ) -> NativeResponse:
        """Render a verdict as Gemini CLI's stdout body or exit-2 block."""
        kind = event.event
        if verdict.decision == Decisions.DENY and event.this_call_vetoable:
            # Exit 2 with no output makes no decision on the host, so the reason is never
            # empty (gemini-default-reason).
            return self.response(exit_code=2, enforced=True, stderr=self.block_reason(verdict))
        body: dict[str, Any] = {}
        if verdict.decision != Decisions.ALLOW:
            # No ask tier (hosts/gemini.json): ask and an unenforced deny are an advisory deny.
            body["decision"] = "deny"
            if present(verdict.reason):
                body["reason"] = verdict.reason
        elif sole_gate and kind != EventKinds.PROMPT_SUBMIT:
            body["decision"] = "allow"
        specific: dict[str, Any] = {}
        if kind == EventKinds.PRE_TOOL and present(verdict.mutated_input):
            specific["tool_input"] = verdict.mutated_input
        if kind == EventKinds.PROMPT_SUBMIT and present(verdict.additional_context):
            specific["additionalContext"] = verdict.additional_context
        if specific:
            body["hookSpecificOutput"] = specific
        messages = []
        if kind in _TOOL_KINDS and present(verdict.additional_context):
            messages.append(verdict.additional_context)
        if kind == EventKinds.POST_TOOL and present(verdict.mutated_output):
            messages.append(GEMINI_REDACTION_WARNING)
        message = "\n\n".join(text for text in messages if text)
        if message:
            body["systemMessage"] = message
        return self.response(stdout=body or None)


gemini_adapter = GeminiAdapter()
