"""Amp adapter: the delegate program's exit codes, or the answer body the shipped plugin carries out."""

from __future__ import annotations

from collections.abc import Mapping

from .._generated.constants import ContentFields, Decisions, EventKinds, StandardMetaFields
from .._generated.hosts import amp as declaration
from .._generated.models.native_response_schema import NativeResponse
from .._generated.models.tool_call_event_schema import ToolCallEvent
from .._generated.models.verdict_schema import Verdict
from ..contract import present, to_object, to_string
from ._base import HostAdapter, NativeFields, output_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

__all__ = ["AmpAdapter", "amp_adapter"]

# Amp delegate exit codes (ampcode.com/manual, Permissions: delegate): 0 allows, 1 asks the operator, 2 rejects.
_ALLOW, _ASK, _REJECT = 0, 1, 2
# The real delegate puts only the tool's parameters on stdin; the tool name and the thread come
# from the environment (ampcode.com/manual, Permissions: delegate).
_TOOL_NAME_ENV, _THREAD_ID_ENV = "AGENT_TOOL_NAME", "AMP_THREAD_ID"
# The plugin form's payload is the shipped plugin's own shape (templates/amp/agent-control-plane.ts.j2),
# built from the Plugin API's tool.call / tool.result events (hosts/amp.json forms.plugin, AMP-2).
_EVENT: Final = "event"
_TOOL: Final = "tool"
_INPUT: Final = "input"
_THREAD: Final = "threadID"
_OUTPUT: Final = "output"
# Answer keys the plugin applies: modify with input, ctx.ui.confirm the ask text, replace the
# tool.result output, and append notes to that output (held from tool.call until its result).
_NEW_INPUT: Final = "input"
_CONFIRM: Final = "ask"
_NEW_OUTPUT: Final = "output"
_CONTEXT: Final = "context"
_WARNING: Final = "warning"
_PLUGIN_KINDS: Final = frozenset({EventKinds.PRE_TOOL, EventKinds.POST_TOOL})
# The delegate's one native event, and those only the plugin sends: every other declared one.
_DELEGATE_EVENT: Final = declaration.NATIVE_EVENT_FOR[EventKinds.PRE_TOOL]
_PLUGIN_EVENTS: Final = frozenset(declaration.NATIVE_EVENTS) - {_DELEGATE_EVENT}


class AmpAdapter(HostAdapter):
    """Parses Amp's delegate envelope or plugin payload and renders the answer that form reads."""

    DECLARATION = declaration

    def parse(self, native: object) -> ToolCallEvent:
        """Turn an Amp delegate envelope or plugin payload into a ToolCallEvent; never raises."""
        payload = to_object(native)
        native_event = payload.get(_EVENT)
        if isinstance(native_event, str) or self.FORM is not None:
            # Only the plugin names its event; the delegate's envelope never does, so in the
            # plugin form a payload without one is an unmodelled event, not a delegate call.
            return self._parse_plugin(
                payload, native_event if isinstance(native_event, str) else ""
            )
        fields = NativeFields(payload)
        # Every delegate call is a pre-tool permission check; the payload names no event.
        return self.build_event(
            fields,
            kind=EventKinds.PRE_TOOL,
            native_event=_DELEGATE_EVENT,
            native_tool=fields.string(_TOOL),
            tool_input=fields.object(_INPUT),
            call_keys=("mcp_context", "agent_type"),
        )

    def _parse_plugin(self, payload: dict[str, Any], native_event: str) -> ToolCallEvent:
        """A plugin payload {event, tool, toolUseID, input, threadID, cwd, output?, status?}."""
        fields = NativeFields(payload)
        # An Amp thread is the session every host's meta carries.
        fields.standard_meta(_THREAD, StandardMetaFields.SESSION_ID)
        if native_event:
            fields.take(_EVENT)
        kind = self.kind_of(native_event)
        tool_call = kind in _PLUGIN_KINDS
        return self.build_event(
            fields,
            kind=kind,
            native_event=native_event,
            native_tool=fields.string(_TOOL) if tool_call else None,
            tool_input=fields.object(_INPUT) if tool_call else {},
            call_keys=("mcp_context", "agent_type"),
            response_key=_OUTPUT,
        )

    def hook_payload(self, payload: dict[str, Any], environ: Mapping[str, str]) -> dict[str, Any]:
        """The envelope {tool, input, session_id?} built from the delegate form, or the payload sent."""
        if self.FORM is not None:
            # The plugin sends its own payload; the delegate's variables are not about this call.
            return payload
        tool = environ.get(_TOOL_NAME_ENV)
        if not tool:
            return payload  # already the envelope form
        envelope: dict[str, Any] = {_TOOL: tool, _INPUT: payload}
        thread = environ.get(_THREAD_ID_ENV)
        if thread:
            # A thread is Amp's session: carry it where every host's session id goes.
            envelope[StandardMetaFields.SESSION_ID] = thread
        return envelope

    def unreadable_input(self, event: ToolCallEvent) -> str | None:
        """A call that names no tool: the input cannot be read as any tool's."""
        tool = event.meta.native_tool
        if isinstance(tool, str) and tool:
            return None
        if self.FORM is not None or event.meta.native_event in _PLUGIN_EVENTS:
            return "the plugin payload names no tool" if event.event in _PLUGIN_KINDS else None
        # L12: an empty AGENT_TOOL_NAME leaves the bare parameters, which parse as no call at all.
        return (
            f"the delegate call names no tool ({_TOOL_NAME_ENV} is empty or unset and the payload"
            " is not a {tool, input} envelope)"
        )

    def render_checked(
        self, verdict: Verdict, event: ToolCallEvent, *, sole_gate: bool
    ) -> NativeResponse:
        """Render a verdict as the plugin's answer body, or as the delegate's exit code."""
        if self.FORM is not None or event.meta.native_event in _PLUGIN_EVENTS:
            return self._render_plugin(verdict, event)
        if verdict.decision == Decisions.ALLOW:
            return self.response(exit_code=_ALLOW)
        if verdict.decision == Decisions.DENY and event.this_call_vetoable:
            return self.response(exit_code=_REJECT, enforced=True, stderr=to_string(verdict.reason))
        # An ask, or a deny the host will not enforce here, puts the call before the operator.
        return self.response(exit_code=_ASK)

    def _render_plugin(self, verdict: Verdict, event: ToolCallEvent) -> NativeResponse:
        """The plugin's answer: exit 2 rejects with the reason; a body allows, asks or modifies."""
        kind = event.event
        decision = verdict.decision
        if decision == Decisions.DENY and event.this_call_vetoable:
            # The plugin answers reject-and-continue with this message, which the model reads.
            return self.response(
                exit_code=_REJECT, enforced=True, stderr=self.block_reason(verdict)
            )
        body: dict[str, Any] = {}
        if decision == Decisions.ASK and kind == EventKinds.PRE_TOOL and self.NATIVE_ASK_TIER:
            # ctx.ui.confirm: yes runs the call, no rejects it with this text (forms.plugin).
            body[_CONFIRM] = self.block_reason(verdict)
        elif decision != Decisions.ALLOW:
            # A verdict the host cannot enforce here travels to the model with the tool result.
            body[_WARNING] = self.block_reason(verdict)
        if (
            kind == EventKinds.PRE_TOOL
            and present(verdict.mutated_input)
            and self.carries(kind, ContentFields.MUTATED_INPUT)
        ):
            body[_NEW_INPUT] = self.native_input(event, verdict.mutated_input)
        if (
            kind == EventKinds.POST_TOOL
            and present(verdict.mutated_output)
            and self.carries(kind, ContentFields.MUTATED_OUTPUT)
        ):
            body[_NEW_OUTPUT] = output_text(verdict.mutated_output)  # the model reads text
        if (
            kind in _PLUGIN_KINDS
            and present(verdict.additional_context)
            and self.carries(kind, ContentFields.ADDITIONAL_CONTEXT)
        ):
            body[_CONTEXT] = verdict.additional_context
        return self.response(stdout=body or None)


amp_adapter = AmpAdapter()
