"""Gemini CLI adapter: a JSON decision body on stdout, with exit 2 and the reason on stderr to block."""

from __future__ import annotations

from .._generated.constants import Decisions, EventKinds, PromptInputFields
from .._generated.hosts import gemini as declaration
from .._generated.models.native_response_schema import NativeResponse
from .._generated.models.tool_call_event_schema import ToolCallEvent
from .._generated.models.verdict_schema import Verdict
from ..contract import present
from ._base import HostAdapter, model_text, payload_fields

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["GeminiAdapter", "gemini_adapter"]

_TOOL_KINDS = frozenset({EventKinds.PRE_TOOL, EventKinds.POST_TOOL})
# Kinds whose hookSpecificOutput.additionalContext reaches the model: AfterTool appends it to the
# tool result in <hook_context> tags, BeforeAgent to the prompt (coreToolHookTriggers.ts @
# 5411f113, GM-4). BeforeTool has no model channel (GM-5: declared unrendered).
_CONTEXT_KINDS = frozenset({EventKinds.POST_TOOL, EventKinds.PROMPT_SUBMIT})


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
            mcp_call=native_tool is not None and self.mcp_named(native_tool),
        )

    def mcp_named(self, native_tool: str) -> bool:
        """Whether the host's own naming marks this tool as an MCP server's (Gemini: mcp_context)."""
        return False

    def render_checked(
        self, verdict: Verdict, event: ToolCallEvent, *, sole_gate: bool
    ) -> NativeResponse:
        """Render a verdict as Gemini CLI's stdout body, or an exit-2 block that also prints one."""
        kind = event.event
        if verdict.decision == Decisions.DENY and event.this_call_vetoable:
            reason = self.block_reason(verdict)
            # GM-1: the runner parses stdout.trim() || stderr.trim() as JSON before anything else
            # (hookRunner.ts @ 5411f113, since 0.30.0 @ 884acda2), so a reason alone on stderr
            # that is itself JSON (403, null, ["x"]) decides nothing or allows. The deny body on
            # stdout is what it parses; older runners read only stderr's text at a non-zero exit,
            # and exit 2 with a non-empty reason there blocks too (gemini-default-reason).
            block = {"decision": "deny", "reason": reason}
            return self.response(exit_code=2, enforced=True, stdout=block, stderr=reason)
        body: dict[str, Any] = {}
        redaction = kind == EventKinds.POST_TOOL and present(verdict.mutated_output)
        denies = verdict.decision != Decisions.ALLOW or redaction
        if denies:
            # No ask tier over the supported range (hosts/gemini.json): ask and an unenforced deny
            # are the deny body at exit 0. On AfterTool a deny replaces the result the model sees
            # with "Tool result blocked: <reason>" (GM-6), the one way to redact there.
            body["decision"] = "deny"
            text = self._deny_text(verdict, kind, redaction)
            if text is not None:
                body["reason"] = text
        elif sole_gate and kind != EventKinds.PROMPT_SUBMIT:
            body["decision"] = "allow"
        specific: dict[str, Any] = {}
        if kind == EventKinds.PRE_TOOL and present(verdict.mutated_input):
            specific["tool_input"] = verdict.mutated_input
        # A blocked AfterTool result skips additionalContext, so there it rides in the reason.
        context_here = kind == EventKinds.PROMPT_SUBMIT or (
            kind == EventKinds.POST_TOOL and not denies
        )
        if context_here and present(verdict.additional_context):
            specific["additionalContext"] = verdict.additional_context
        if specific:
            # GM-9: every hookSpecificOutput type names its event (types.d.ts, core 0.61.0).
            body["hookSpecificOutput"] = {"hookEventName": event.meta.native_event, **specific}
        return self.response(stdout=body or None)

    def _deny_text(self, verdict: Verdict, kind: str, redaction: bool) -> str | None:
        """The reason of a deny body; on AfterTool it is what the model reads instead of the result."""
        # coreToolHookTriggers.ts @ 5411f113 returns the blocked result before reading context.
        text = model_text(verdict, output=redaction, context=kind == EventKinds.POST_TOOL)
        if not text:
            return verdict.reason if present(verdict.reason) else None
        return text


gemini_adapter = GeminiAdapter()
