"""Amp adapter: a delegate permission program that answers with its exit code alone."""

from __future__ import annotations

from collections.abc import Mapping

from .._generated.constants import Decisions, EventKinds, StandardMetaFields
from .._generated.hosts import amp as declaration
from .._generated.models.native_response_schema import NativeResponse
from .._generated.models.tool_call_event_schema import ToolCallEvent
from .._generated.models.verdict_schema import Verdict
from ..contract import to_string
from ._base import HostAdapter, payload_fields

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["AmpAdapter", "amp_adapter"]

# Amp delegate exit codes (ampcode.com/manual, Permissions: delegate): 0 allows, 1 asks the operator, 2 rejects.
_ALLOW, _ASK, _REJECT = 0, 1, 2
# The real delegate puts only the tool's parameters on stdin; the tool name and the thread come
# from the environment (ampcode.com/manual, Permissions: delegate).
_TOOL_NAME_ENV, _THREAD_ID_ENV = "AGENT_TOOL_NAME", "AMP_THREAD_ID"


class AmpAdapter(HostAdapter):
    """Parses the Amp delegate envelope and renders verdicts as Amp's exit codes."""

    DECLARATION = declaration

    def parse(self, native: object) -> ToolCallEvent:
        """Turn an Amp delegate envelope {tool, input, ...} into a ToolCallEvent; never raises."""
        fields = payload_fields(native)
        # Every delegate call is a pre-tool permission check; the payload names no event.
        return self.build_event(
            fields,
            kind=EventKinds.PRE_TOOL,
            native_event=self.NATIVE_EVENT_FOR[EventKinds.PRE_TOOL],
            native_tool=fields.string("tool"),
            tool_input=fields.object("input"),
            call_keys=("mcp_context", "agent_type"),
        )

    def hook_payload(self, payload: dict[str, Any], environ: Mapping[str, str]) -> dict[str, Any]:
        """The envelope {tool, input, session_id?} built from the delegate form, or the envelope sent."""
        tool = environ.get(_TOOL_NAME_ENV)
        if not tool:
            return payload  # already the envelope form
        envelope: dict[str, Any] = {"tool": tool, "input": payload}
        thread = environ.get(_THREAD_ID_ENV)
        if thread:
            # A thread is Amp's session: carry it where every host's session id goes.
            envelope[StandardMetaFields.SESSION_ID] = thread
        return envelope

    def unreadable_input(self, event: ToolCallEvent) -> str | None:
        """A delegate call that names no tool: the input cannot be read as any tool's."""
        tool = event.meta.native_tool
        if isinstance(tool, str) and tool:
            return None
        # L12: an empty AGENT_TOOL_NAME leaves the bare parameters, which parse as no call at all.
        return (
            f"the delegate call names no tool ({_TOOL_NAME_ENV} is empty or unset and the payload"
            " is not a {tool, input} envelope)"
        )

    def render_checked(
        self, verdict: Verdict, event: ToolCallEvent, *, sole_gate: bool
    ) -> NativeResponse:
        """Render a verdict as Amp's exit code, with the reason on stderr for a rejection."""
        if verdict.decision == Decisions.ALLOW:
            return self.response(exit_code=_ALLOW)
        if verdict.decision == Decisions.DENY and event.this_call_vetoable:
            return self.response(exit_code=_REJECT, enforced=True, stderr=to_string(verdict.reason))
        # An ask, or a deny the host will not enforce here, puts the call before the operator.
        return self.response(exit_code=_ASK)


amp_adapter = AmpAdapter()
