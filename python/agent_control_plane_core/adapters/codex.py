"""Codex CLI adapter: hookSpecificOutput bodies, exit 2 with a non-empty stderr as the block."""

from __future__ import annotations

from typing import Any

from .._generated.constants import Decisions, EventKinds
from .._generated.hosts import codex as declaration
from .._generated.models.native_response_schema import NativeResponse
from .._generated.models.tool_call_event_schema import ToolCallEvent
from .._generated.models.verdict_schema import Verdict
from ..contract import present, to_string
from ._base import HostAdapter, payload_fields

__all__ = ["CodexAdapter", "codex_adapter"]


class CodexAdapter(HostAdapter):
    """Parses Codex hook payloads and renders verdicts as Codex enforces them."""

    DECLARATION = declaration

    def parse(self, native: object) -> ToolCallEvent:
        """Turn a Codex hook payload into a ToolCallEvent; never raises."""
        fields = payload_fields(native)
        native_event = fields.string("hook_event_name") or ""
        kind = self.kind_of(native_event)
        native_tool = fields.string("tool_name")
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
        """Render a verdict as Codex's stdout body, stderr reason and exit code."""
        # sole_gate changes nothing here: a bare explicit allow fails the hook (codex-bare-allow).
        enforced = verdict.decision == Decisions.DENY and event.this_call_vetoable
        if event.event == EventKinds.POST_TOOL:
            body, reason = self._post_tool_body(verdict, event, enforced)
        else:
            body, reason = self._pre_tool_body(verdict, event, enforced)
        if enforced:
            # On exit 2 Codex reads only stderr, and an empty stderr fails open
            # (codex-rs/hooks/src/events/pre_tool_use.rs; enforced-deny-stderr).
            return self.response(exit_code=2, enforced=True, stdout=body, stderr=reason)
        return self.response(stdout=body)

    def _pre_tool_body(
        self, verdict: Verdict, event: ToolCallEvent, enforced: bool
    ) -> tuple[dict[str, Any], str]:
        name = event.meta.native_event or self.NATIVE_EVENT_FOR[EventKinds.PRE_TOOL]
        out: dict[str, Any] = {"hookEventName": name}
        reason = self.block_reason(verdict)
        if verdict.decision == Decisions.ALLOW:
            # updatedInput is accepted only beside allow, and a bare allow fails the hook
            # (codex-updatedinput-with-allow, codex-bare-allow).
            if event.event == EventKinds.PRE_TOOL and present(verdict.mutated_input):
                out["permissionDecision"] = "allow"
                if present(verdict.reason):
                    out["permissionDecisionReason"] = verdict.reason
                out["updatedInput"] = verdict.mutated_input
        else:
            # Codex has no ask tier: ask renders the advisory deny (codex-ask-advisory), and a
            # deny needs a non-empty reason or the hook fails open.
            out["permissionDecision"] = "deny"
            advisory = to_string(verdict.reason)
            if enforced or advisory is not None:
                out["permissionDecisionReason"] = reason if enforced else advisory
        return {"hookSpecificOutput": out}, reason

    def _post_tool_body(
        self, verdict: Verdict, event: ToolCallEvent, enforced: bool
    ) -> tuple[dict[str, Any], str]:
        out: dict[str, Any] = {"hookEventName": event.meta.native_event}
        if present(verdict.additional_context):
            out["additionalContext"] = verdict.additional_context
        body: dict[str, Any] = {"hookSpecificOutput": out}
        reason = self.block_reason(verdict)
        if verdict.decision != Decisions.ALLOW:
            body["decision"] = "block"
            if enforced:
                body["reason"] = reason
            elif present(verdict.reason):
                body["reason"] = verdict.reason
        return body, reason


codex_adapter = CodexAdapter()
