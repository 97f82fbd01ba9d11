"""Claude Code adapter: command hooks with a JSON body on stdout and exit 2 as the block."""

from __future__ import annotations

from typing import Any

from .._generated.constants import (
    ContentFields,
    Decisions,
    EventKinds,
    PromptInputFields,
)
from .._generated.hosts import claude as declaration
from .._generated.models.native_response_schema import NativeResponse
from .._generated.models.tool_call_event_schema import ToolCallEvent
from .._generated.models.verdict_schema import Verdict
from ..contract import present, to_string
from ._base import HostAdapter, payload_fields

__all__ = ["ClaudeAdapter", "claude_adapter"]

# Kinds whose payload names no tool (host-protocols.md §1: UserPromptSubmit, SessionStart).
_TOOLLESS = frozenset({EventKinds.PROMPT_SUBMIT, EventKinds.SESSION_START})


# PreToolUse permissionDecision values (host-protocols.md §1).
_PERMISSION = {Decisions.DENY: "deny", Decisions.ASK: "ask"}


class ClaudeAdapter(HostAdapter):
    """Parses Claude Code hook payloads and renders verdicts as Claude Code enforces them."""

    DECLARATION = declaration

    def parse(self, native: object) -> ToolCallEvent:
        """Turn a Claude Code hook payload into a ToolCallEvent; never raises."""
        fields = payload_fields(native)
        native_event = fields.string("hook_event_name") or ""
        kind = self.kind_of(native_event)
        native_tool = None if kind in _TOOLLESS else fields.string("tool_name")
        tool_input: dict[str, Any]
        if kind == EventKinds.PROMPT_SUBMIT:
            tool_input = {PromptInputFields.PROMPT: fields.string("prompt") or ""}
        elif kind == EventKinds.SESSION_START:
            tool_input = {}
        else:
            tool_input = fields.object("tool_input")
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
        """Render a verdict as Claude Code's stdout body, stderr reason and exit code."""
        if event.event == EventKinds.PRE_TOOL:
            body = self._pre_tool_body(verdict, event, sole_gate)
        else:
            body = self._other_body(verdict, event)
        if verdict.decision == Decisions.DENY and event.this_call_vetoable:
            # Exit 2 blocks and hands stderr to the model; with no reason the block still holds.
            return self.response(
                exit_code=2, enforced=True, stdout=body, stderr=to_string(verdict.reason)
            )
        return self.response(stdout=body)

    def _pre_tool_body(
        self, verdict: Verdict, event: ToolCallEvent, sole_gate: bool
    ) -> dict[str, Any]:
        out: dict[str, Any] = {"hookEventName": event.meta.native_event}
        decision = verdict.decision
        rewrite = present(verdict.mutated_input)
        if decision == Decisions.ALLOW:
            # An explicit allow skips the host's own permission prompt, so abstain unless sole gate.
            # updatedInput is applied only beside a permissionDecision (claude-rewrite-decision).
            if sole_gate:
                out["permissionDecision"] = "allow"
            elif rewrite:
                out["permissionDecision"] = "ask"
        else:
            out["permissionDecision"] = _PERMISSION[decision]
        if out.get("permissionDecision") in _PERMISSION.values() and present(verdict.reason):
            out["permissionDecisionReason"] = verdict.reason
        if rewrite:
            out["updatedInput"] = verdict.mutated_input
        if present(verdict.additional_context) and self.carries(
            event.event, ContentFields.ADDITIONAL_CONTEXT
        ):
            out["additionalContext"] = verdict.additional_context
        return {"hookSpecificOutput": out}

    def _other_body(self, verdict: Verdict, event: ToolCallEvent) -> dict[str, Any]:
        out: dict[str, Any] = {"hookEventName": event.meta.native_event}
        kind = event.event
        if (
            kind == EventKinds.POST_TOOL
            and present(verdict.mutated_output)
            and self.carries(kind, ContentFields.MUTATED_OUTPUT)
        ):
            out["updatedToolOutput"] = verdict.mutated_output
        if present(verdict.additional_context) and self.carries(
            kind, ContentFields.ADDITIONAL_CONTEXT
        ):
            out["additionalContext"] = verdict.additional_context
        body: dict[str, Any] = {"hookSpecificOutput": out}
        if verdict.decision != Decisions.ALLOW:
            body["decision"] = "block"
            if present(verdict.reason):
                body["reason"] = verdict.reason
        return body


claude_adapter = ClaudeAdapter()
