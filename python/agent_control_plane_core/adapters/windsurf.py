"""Windsurf (Cascade) adapter: one hook per action; a pre-hook blocks by exit 2 with stderr."""

from __future__ import annotations

from .._generated.constants import Decisions, EventKinds, PromptInputFields
from .._generated.hosts import windsurf as declaration
from .._generated.models.native_response_schema import NativeResponse
from .._generated.models.tool_call_event_schema import ToolCallEvent
from .._generated.models.verdict_schema import Verdict
from ._base import HostAdapter, payload_fields

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

__all__ = ["WindsurfAdapter", "windsurf_adapter"]

# docs.windsurf.com/windsurf/cascade/hooks: exit 2 blocks a pre-hook's action, stderr is shown.
_BLOCK: Final = 2
# The payload has no tool name: the action after its pre_/post_ prefix names the tool.
_PREFIXES: Final = ("pre_", "post_")
_MCP_ACTION: Final = "mcp_tool_use"


class WindsurfAdapter(HostAdapter):
    """Parses Cascade hook payloads and renders verdicts as Cascade's exit codes."""

    DECLARATION = declaration

    def parse(self, native: object) -> ToolCallEvent:
        """Turn a Cascade hook payload into a ToolCallEvent; never raises."""
        fields = payload_fields(native)
        native_event = fields.string("agent_action_name") or ""
        kind = self.kind_of(native_event)
        info = fields.object("tool_info") if kind != EventKinds.UNKNOWN else {}
        native_tool: str | None = None
        tool_input: dict[str, Any] = {}
        mcp = False
        if kind == EventKinds.PROMPT_SUBMIT:
            prompt = info.get("user_prompt")
            tool_input = {PromptInputFields.PROMPT: prompt if isinstance(prompt, str) else ""}
        elif kind in (EventKinds.PRE_TOOL, EventKinds.POST_TOOL):
            action = native_event.removeprefix(_PREFIXES[0]).removeprefix(_PREFIXES[1])
            if action == _MCP_ACTION:
                mcp = True
                server, tool = info.get("mcp_server_name"), info.get("mcp_tool_name")
                native_tool = f"mcp__{server}__{tool}"
                arguments = info.get("mcp_tool_arguments")
                tool_input = dict(arguments) if isinstance(arguments, dict) else {}
                # The server and tool names live only in the tool name, so the native tool_info
                # is carried through verbatim as well: nothing the host sent is lost.
                fields.consumed.discard("tool_info")
            else:
                # None is documented, but a payload's own tool_name names the tool best.
                named = fields.payload.get("tool_name")
                # An empty tool_name names nothing: it stays in passthrough as sent.
                native_tool = (
                    fields.string("tool_name") if isinstance(named, str) and named else action
                )
                tool_input = dict(info)
        return self.build_event(
            fields,
            kind=kind,
            native_event=native_event,
            native_tool=native_tool,
            tool_input=tool_input,
            call_keys=("mcp_context", "agent_type"),
            mcp_call=mcp,
        )

    def render_checked(
        self, verdict: Verdict, event: ToolCallEvent, *, sole_gate: bool
    ) -> NativeResponse:
        """Render a verdict as Cascade's exit code, with the reason on stderr."""
        if verdict.decision == Decisions.ALLOW:
            return self.response()
        if verdict.decision == Decisions.DENY and event.this_call_vetoable:
            return self.response(exit_code=_BLOCK, enforced=True, stderr=self.block_reason(verdict))
        # No answer but the exit code exists; a post-hook's exit 2 is shown without blocking,
        # so an advisory deny (and an ask, which has no tier) is the reason on stderr at exit 0.
        return self.response(stderr=self.block_reason(verdict))


windsurf_adapter = WindsurfAdapter()
