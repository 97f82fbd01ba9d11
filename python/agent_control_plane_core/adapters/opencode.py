"""opencode adapter: the shipped plugin's payload in, an answer the plugin applies (or throws) out."""

from __future__ import annotations

from .._generated.constants import ContentFields, Decisions, EventKinds, StandardMetaFields
from .._generated.hosts import opencode as declaration
from .._generated.models.native_response_schema import NativeResponse
from .._generated.models.tool_call_event_schema import ToolCallEvent
from .._generated.models.verdict_schema import Verdict
from ..contract import present, rename_input_keys, to_object
from ._base import HostAdapter, NativeFields, output_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

__all__ = ["OpencodeAdapter", "opencode_adapter"]

# The payload is the plugin's own shape (templates/opencode/agent-control-plane.js.j2): opencode's
# hook arguments input {tool, sessionID, callID} and output {args} (opencode.ai/docs/plugins).
_EVENT: Final = "event"
_TOOL: Final = "tool"
_SESSION: Final = "sessionID"
_ARGS: Final = "args"
_OUTPUT: Final = "output"
# Answer keys the plugin applies: replace output.args in place, replace output.output, and add
# notes to the output the model reads (held from before until the same call's after).
_NEW_ARGS: Final = "args"
_NEW_OUTPUT: Final = "output"
_CONTEXT: Final = "context"
_WARNING: Final = "warning"
# The plugin throws on exit 2 with stderr as the message: the tool result the model sees.
_BLOCK: Final = 2
_TOOL_KINDS: Final = frozenset({EventKinds.PRE_TOOL, EventKinds.POST_TOOL})


class OpencodeAdapter(HostAdapter):
    """Parses the opencode plugin's payloads and renders the answers the plugin carries out."""

    DECLARATION = declaration

    def parse(self, native: object) -> ToolCallEvent:
        """Turn an opencode plugin payload into a ToolCallEvent; never raises."""
        payload = to_object(native)
        fields = NativeFields(payload)
        # opencode's sessionID is the session id every host's meta carries.
        fields.standard_meta(_SESSION, StandardMetaFields.SESSION_ID)
        native_event = fields.string(_EVENT) or ""
        kind = self.kind_of(native_event)
        native_tool = fields.string(_TOOL) if kind in _TOOL_KINDS else None
        tool_input = fields.object(_ARGS) if kind in _TOOL_KINDS else {}
        return self.build_event(
            fields,
            kind=kind,
            native_event=native_event,
            native_tool=native_tool,
            tool_input=tool_input,
            call_keys=("mcp_context", "agent_type"),
            response_key=_OUTPUT,
        )

    def render_checked(
        self, verdict: Verdict, event: ToolCallEvent, *, sole_gate: bool
    ) -> NativeResponse:
        """Render a verdict as the plugin's answer body, or exit 2 with the reason to throw."""
        kind = event.event
        if verdict.decision == Decisions.DENY and event.this_call_vetoable:
            return self.response(exit_code=_BLOCK, enforced=True, stderr=self.block_reason(verdict))
        body: dict[str, Any] = {}
        if verdict.decision != Decisions.ALLOW:
            # No ask tier, and a deny here cannot stop the call: the objection travels to the
            # model with the tool result instead (hosts/opencode.json notes).
            body[_WARNING] = self.block_reason(verdict)
        if (
            kind == EventKinds.PRE_TOOL
            and present(verdict.mutated_input)
            and self.carries(kind, ContentFields.MUTATED_INPUT)
        ):
            body[_NEW_ARGS] = self._native_args(verdict.mutated_input, event)
        if (
            kind == EventKinds.POST_TOOL
            and present(verdict.mutated_output)
            and self.carries(kind, ContentFields.MUTATED_OUTPUT)
        ):
            # output.output is the text the model reads; a structured replacement goes as JSON.
            body[_NEW_OUTPUT] = output_text(verdict.mutated_output)
        if (
            kind in _TOOL_KINDS
            and present(verdict.additional_context)
            and self.carries(kind, ContentFields.ADDITIONAL_CONTEXT)
        ):
            body[_CONTEXT] = verdict.additional_context
        return self.response(stdout=body or None)

    def _native_args(self, mutated: dict[str, Any], event: ToolCallEvent) -> dict[str, Any]:
        """The rewrite in the tool's own key spelling: file_path goes back to filePath."""
        native_tool = event.meta.native_tool
        renames = (
            self.DECLARATION.INPUT_KEY_RENAMES.get(native_tool)
            if isinstance(native_tool, str)
            else None
        )
        if not renames:
            return mutated
        return rename_input_keys(mutated, {new: old for old, new in renames.items()})


opencode_adapter = OpencodeAdapter()
