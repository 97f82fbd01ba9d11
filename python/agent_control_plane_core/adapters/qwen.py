"""Qwen Code adapter: Claude Code's hook protocol with Qwen Code's runtime tool ids."""

from __future__ import annotations

from .._generated.constants import ContentFields, Decisions, EventKinds, PromptInputFields
from .._generated.hosts import qwen as declaration
from .._generated.models.tool_call_event_schema import ToolCallEvent
from .._generated.models.verdict_schema import Verdict
from .claude import ClaudeAdapter

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["QwenAdapter", "qwen_adapter"]


class QwenAdapter(ClaudeAdapter):
    """Parses Qwen Code hook payloads and renders verdicts as Qwen Code enforces them."""

    # Qwen Code answers Claude Code's events and hookSpecificOutput (QwenLM/qwen-code
    # docs/users/features/hooks.md); its tool ids and the fields it lacks are in hosts/qwen.json.
    DECLARATION = declaration
    # agent_id is present only inside a subagent (packages/core/src/hooks/types.ts; QW-10).
    CALL_KEYS = ("mcp_context", "agent_id")
    # PermissionRequest is read only from hookSpecificOutput.decision at exit 0 (QW-7).
    PERMISSION_REQUEST_EXIT_BLOCKS = False

    def can_block(self, event: ToolCallEvent) -> bool:
        """An empty prompt is a tool-result continuation, not a user's prompt (QW-9)."""
        if event.event == EventKinds.PROMPT_SUBMIT and not event.input.get(
            PromptInputFields.PROMPT
        ):
            return False
        return super().can_block(event)

    def refusal(self) -> str:
        """Why a rewrite was refused: Qwen Code never applies PreToolUse updatedInput (QW-2)."""
        return (
            "the guardrail rewrote this call's input, which Qwen Code cannot apply,"
            " so the call was refused rather than run unchanged"
        )

    def post_tool_body(
        self, verdict: Verdict, event: ToolCallEvent, reason: str | None
    ) -> dict[str, Any]:
        """Feedback after the tool is additionalContext only: decision block is ignored (QW-4)."""
        out: dict[str, Any] = {"hookEventName": event.meta.native_event}
        parts = []
        if verdict.decision != Decisions.ALLOW:
            parts.append(reason if reason else self.DEFAULT_BLOCK_REASON)
        context = verdict.additional_context
        if isinstance(context, str) and self.carries(
            EventKinds.POST_TOOL, ContentFields.ADDITIONAL_CONTEXT
        ):
            parts.append(context)
        if parts:
            out["additionalContext"] = "\n\n".join(parts)
        return {"hookSpecificOutput": out}

    def other_body(
        self, verdict: Verdict, event: ToolCallEvent, reason: str | None
    ) -> dict[str, Any]:
        """An empty prompt gets no decision: the host fires it for continuations too (QW-9)."""
        body = super().other_body(verdict, event, reason)
        if event.event == EventKinds.PROMPT_SUBMIT and not event.input.get(
            PromptInputFields.PROMPT
        ):
            body.pop("decision", None)
            body.pop("reason", None)
        return body


qwen_adapter = QwenAdapter()
