"""Claude Code adapter: command hooks with a JSON body on stdout and exit 2 as the block."""

from __future__ import annotations

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
from ..contract import make_event, present, to_string, unreadable_as_json
from ._base import HostAdapter, NativeFields, payload_fields

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar, Final

__all__ = ["ClaudeAdapter", "claude_adapter"]

# Kinds whose payload names no tool (docs.claude.com/en/docs/claude-code/hooks: UserPromptSubmit, SessionStart).
_TOOLLESS = frozenset({EventKinds.PROMPT_SUBMIT, EventKinds.SESSION_START})

# PreToolUse permissionDecision values (docs.claude.com/en/docs/claude-code/hooks).
_PERMISSION = {Decisions.DENY: "deny", Decisions.ASK: "ask"}

# The permission dialog's own event: answered with hookSpecificOutput.decision (CC-4, QW-7).
PERMISSION_REQUEST: Final = "PermissionRequest"

# The shell tool's result fields (PostToolUse tool_response of Bash, docs/findings.md LAB-CC).
_SHELL_STDOUT: Final = "stdout"
_SHELL_STDERR: Final = "stderr"


class ClaudeAdapter(HostAdapter):
    """Parses Claude Code hook payloads and renders verdicts as Claude Code enforces them."""

    DECLARATION = declaration
    # The payload fields naming a call's MCP context and its subagent.
    CALL_KEYS: ClassVar[tuple[str, str]] = ("mcp_context", "agent_type")
    # Whether an exit-2 answer blocks a PermissionRequest (Claude: yes; Qwen reads only stdout).
    PERMISSION_REQUEST_EXIT_BLOCKS: ClassVar[bool] = True

    def parse(self, native: object) -> ToolCallEvent:
        """Turn a hook payload into a ToolCallEvent; never raises."""
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
            tool_input = self.tool_input(native_tool, fields)
        event = self.build_event(
            fields,
            kind=kind,
            native_event=native_event,
            native_tool=native_tool,
            tool_input=tool_input,
            call_keys=self.CALL_KEYS,
            response_key="tool_response",
        )
        event = self.refined(event)
        if event.this_call_vetoable and not self.can_block(event):
            return rebuilt(event, this_call_vetoable=False)
        return event

    def runs_for_other_hosts(self) -> bool:
        """Whether other hosts may hand this entry their payloads: only Claude Code's own entry."""
        # Cursor runs .claude/settings.json hooks and Droid imports them (docs/findings.md XH-1): their
        # declarations' sender_markers name this entry. The hosts built on this adapter (Droid,
        # Qwen, Auggie) have entries of their own, which no other host runs.
        from ._foreign import receives_foreign_payloads  # the hook entry's, not parse's

        return receives_foreign_payloads(self.AGENT)

    def tool_input(self, native_tool: str | None, fields: NativeFields) -> dict[str, Any]:
        """The tool's input as the adapter reads it (a host may derive canonical keys)."""
        return fields.object("tool_input")

    def refined(self, event: ToolCallEvent) -> ToolCallEvent:
        """The parsed event, adjusted where a host names its tool by content (none here)."""
        return event

    def can_block(self, event: ToolCallEvent) -> bool:
        """Whether the host honours an exit-2 block on this particular event."""
        return self.PERMISSION_REQUEST_EXIT_BLOCKS or event.meta.native_event != PERMISSION_REQUEST

    def render_checked(
        self, verdict: Verdict, event: ToolCallEvent, *, sole_gate: bool
    ) -> NativeResponse:
        """Render a verdict as the host's stdout body, stderr reason and exit code."""
        enforced = verdict.decision == Decisions.DENY and event.this_call_vetoable
        # One text for stderr and the body when the render blocks (CC-8), never empty (QW-1).
        reason = self.stated_reason(verdict) if enforced else to_string(verdict.reason)
        native = event.meta.native_event
        kind = event.event
        body: dict[str, Any] | None
        if not native:
            # An empty hookEventName is no valid value (CC-6): the exit code is the only channel.
            body = None
        elif kind == EventKinds.UNKNOWN:
            # A decision on Stop/SubagentStop means "keep working" (CC-5): abstain on what is unmodelled.
            body = {}
        elif native == PERMISSION_REQUEST:
            body = self.permission_request_body(verdict, reason, sole_gate)
        elif kind == EventKinds.PRE_TOOL:
            body = self.pre_tool_body(verdict, event, reason, sole_gate)
        elif kind == EventKinds.POST_TOOL:
            body = self.post_tool_body(verdict, event, reason)
        else:
            body = self.other_body(verdict, event, reason)
        if enforced:
            # Exit 2 blocks and hands stderr to the model; the body says the same (CC-8).
            return self.response(exit_code=2, enforced=True, stdout=body, stderr=reason)
        return self.response(stdout=body)

    def stated_reason(self, verdict: Verdict) -> str:
        """The block text: the reason or the default, guarded so it never parses as JSON (QW-1)."""
        return unreadable_as_json(self.block_reason(verdict))

    def decision_word(self, decision: str) -> str:
        """The permissionDecision for a deny or ask: ask only where the host has an ask tier (FD-1)."""
        if decision == Decisions.ASK and not self.NATIVE_ASK_TIER:
            return _PERMISSION[Decisions.DENY]
        return _PERMISSION[decision]

    def refusal(self) -> str:
        """Why a rewrite the host cannot apply here was refused instead of running the original."""
        return (
            "the guardrail rewrote this call's input, which this hook answer cannot carry,"
            " so the call was refused rather than run unchanged"
        )

    def pre_tool_body(
        self, verdict: Verdict, event: ToolCallEvent, reason: str | None, sole_gate: bool
    ) -> dict[str, Any]:
        """The PreToolUse answer."""
        out: dict[str, Any] = {"hookEventName": event.meta.native_event}
        decision = verdict.decision
        rewrite = present(verdict.mutated_input)
        carried = rewrite and self.carries(EventKinds.PRE_TOOL, ContentFields.MUTATED_INPUT)
        if decision == Decisions.ALLOW:
            if rewrite and not carried:
                # The host never applies updatedInput (QW-2): refuse rather than run the original.
                out["permissionDecision"] = _PERMISSION[Decisions.DENY]
                out["permissionDecisionReason"] = self.refusal()
            elif sole_gate:
                # An explicit allow skips the host's own prompt: only the sole gate sends it.
                out["permissionDecision"] = "allow"
            # Otherwise a rewrite goes alone: updatedInput with no permissionDecision is applied
            # and the host's permission flow continues (2.1.197 and 2.1.332 binaries; CC-2, FD-2).
        else:
            out["permissionDecision"] = self.decision_word(decision)
            if reason is not None:
                out["permissionDecisionReason"] = reason
        if carried:
            out["updatedInput"] = verdict.mutated_input
        if present(verdict.additional_context) and self.carries(
            EventKinds.PRE_TOOL, ContentFields.ADDITIONAL_CONTEXT
        ):
            out["additionalContext"] = verdict.additional_context
        return {"hookSpecificOutput": out}

    def permission_request_body(
        self, verdict: Verdict, reason: str | None, sole_gate: bool
    ) -> dict[str, Any]:
        """The PermissionRequest answer: hookSpecificOutput.decision {behavior, ...} (CC-4, QW-7)."""
        decision: dict[str, Any]
        rewrite = present(verdict.mutated_input)
        carried = rewrite and self.carries(EventKinds.PRE_TOOL, ContentFields.MUTATED_INPUT)
        if verdict.decision == Decisions.ALLOW:
            if rewrite and not (sole_gate and carried):
                # updatedInput comes only with allow, which would answer the person's prompt.
                decision = {"behavior": "deny", "message": self.refusal()}
            elif sole_gate:
                decision = {"behavior": "allow"}
                if carried:
                    decision["updatedInput"] = verdict.mutated_input
            else:
                # decision is required on this event: abstaining is an empty body.
                return {}
        else:
            # No ask answer exists here; the dialog an abstain leaves is what allow gets, so an
            # ask refuses too (conservative). The message is the model's only text channel.
            parts = [reason if reason else self.DEFAULT_BLOCK_REASON]
            if present(verdict.additional_context) and self.carries(
                EventKinds.PRE_TOOL, ContentFields.ADDITIONAL_CONTEXT
            ):
                parts.append(verdict.additional_context)
            decision = {"behavior": "deny", "message": "\n\n".join(parts)}
        return {"hookSpecificOutput": {"hookEventName": PERMISSION_REQUEST, "decision": decision}}

    def post_tool_body(
        self, verdict: Verdict, event: ToolCallEvent, reason: str | None
    ) -> dict[str, Any]:
        """The PostToolUse answer: feedback at exit 0, the tool already ran (CC-1, CC-9)."""
        return self.other_body(verdict, event, reason)

    def other_body(
        self, verdict: Verdict, event: ToolCallEvent, reason: str | None
    ) -> dict[str, Any]:
        """The answer on PostToolUse, UserPromptSubmit and SessionStart."""
        out: dict[str, Any] = {"hookEventName": event.meta.native_event}
        kind = event.event
        if (
            kind == EventKinds.POST_TOOL
            and present(verdict.mutated_output)
            and self.carries(kind, ContentFields.MUTATED_OUTPUT)
        ):
            out["updatedToolOutput"] = replacement_output(verdict.mutated_output, event.response)
        if present(verdict.additional_context) and self.carries(
            kind, ContentFields.ADDITIONAL_CONTEXT
        ):
            out["additionalContext"] = verdict.additional_context
        body: dict[str, Any] = {"hookSpecificOutput": out}
        if verdict.decision != Decisions.ALLOW:
            body["decision"] = "block"
            if reason is not None:
                body["reason"] = reason
        return body


def replacement_output(replacement: Any, response: Any) -> Any:
    """The updatedToolOutput for a replacement: text replaces a shell result's stdout in its shape.

    Claude Code 2.1.332 drops an updatedToolOutput that fails the builtin tool's output schema
    (lab scenario redact: a bare string for Bash was dropped), and Bash's result is an object
    with stdout and stderr; any other replacement is sent as the verdict gave it.
    """
    shaped = isinstance(response, dict) and isinstance(response.get(_SHELL_STDOUT), str)
    if isinstance(replacement, str) and shaped:
        return {**response, _SHELL_STDOUT: replacement, _SHELL_STDERR: ""}
    return replacement


def rebuilt(event: ToolCallEvent, **changes: Any) -> ToolCallEvent:
    """The same event with some top-level fields changed, checked like any parse."""
    fields: dict[str, Any] = {
        "event": event.event,
        "tool": event.tool,
        "input": event.input,
        "this_call_vetoable": event.this_call_vetoable,
        "meta": event.meta,
        "response": event.response,
    }
    fields.update(changes)
    return make_event(**fields)


claude_adapter = ClaudeAdapter()
