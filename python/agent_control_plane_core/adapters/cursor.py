"""Cursor adapter: flat snake_case JSON on stdout for every answer, exit 2 as the block."""

from __future__ import annotations

import json

from .._generated.constants import Decisions, EventKinds, PromptInputFields
from .._generated.hosts import cursor as declaration
from .._generated.models.native_response_schema import NativeResponse
from .._generated.models.tool_call_event_schema import ToolCallEvent
from .._generated.models.verdict_schema import Verdict
from ..contract import make_event, present, to_string
from ._base import HostAdapter, payload_fields

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

__all__ = ["CursorAdapter", "cursor_adapter"]

# Events that name their tool by the event itself (cursor.com/docs/hooks): the flat shell command
# is Cursor's Shell tool, the file read its Read tool.
_SHELL_EVENT: Final = "beforeShellExecution"
_READ_EVENT: Final = "beforeReadFile"
_MCP_EVENT: Final = "beforeMCPExecution"
_SHELL_TOOL: Final = "Shell"
_READ_TOOL: Final = "Read"
# subagentStart can allow or deny creating a subagent (cursor.com/docs/hooks, CUR-3): it is the
# call of Cursor's subagent tool, Task, as preToolUse names it.
_SUBAGENT_EVENT: Final = "subagentStart"
_SUBAGENT_TOOL: Final = "Task"
# preToolUse names MCP tools MCP:<tool> or MCP:<server>:<tool> (cursor.com/docs/hooks).
_MCP_PREFIX: Final = "MCP:"
# The event's tool of an MCP call whose server is known: mcp__<server>__<tool>, so one MCP rule
# matches Cursor as it does the hosts that name MCP tools so (CUR-4).
_MCP_NAME: Final = "mcp__{server}__{tool}"
# beforeReadFile's output schema is {permission, user_message} only (cursor.com/docs/hooks, CUR-7).
_BARE_DENY_EVENTS: Final = frozenset({_READ_EVENT})
# Only preToolUse reads updated_input (cursor.com/docs/hooks, output).
_REWRITE_EVENTS: Final = frozenset({"preToolUse"})
# Cursor's exit code for a block (cursor.com/docs/hooks).
_BLOCK: Final = 2


class CursorAdapter(HostAdapter):
    """Parses Cursor hook payloads and renders verdicts as Cursor enforces them."""

    DECLARATION = declaration

    def parse(self, native: object) -> ToolCallEvent:
        """Turn a Cursor hook payload into a ToolCallEvent; never raises."""
        fields = payload_fields(native)
        native_event = fields.string("hook_event_name") or ""
        kind = self.kind_of(native_event)
        native_tool: str | None = None
        tool_input: dict[str, Any] = {}
        mcp_call = False
        if native_event == _SHELL_EVENT:
            native_tool = _SHELL_TOOL
            command = fields.string("command")
            tool_input = {} if command is None else {"command": command}
        elif native_event == _READ_EVENT:
            # The file's content stays in passthrough: it is what the read returns, not its input.
            native_tool = _READ_TOOL
            path = fields.string("file_path")
            tool_input = {} if path is None else {"file_path": path}
        elif native_event == _MCP_EVENT:
            # Its command or url names the MCP server, not a shell command: left in passthrough.
            native_tool = fields.string("tool_name")
            # beforeMCPExecution sends tool_input as a JSON string (cursor.com/docs/hooks).
            tool_input = fields.json_object("tool_input") or {}
            mcp_call = True
        elif native_event == _SUBAGENT_EVENT:
            # Its fields describe the subagent; none is a tool input, so all stay in passthrough.
            native_tool = _SUBAGENT_TOOL
        elif kind == EventKinds.PROMPT_SUBMIT:
            tool_input = {PromptInputFields.PROMPT: fields.string("prompt") or ""}
        elif kind != EventKinds.SESSION_START:
            native_tool = fields.string("tool_name")
            tool_input = fields.json_object("tool_input") or {}
            mcp_call = native_tool is not None and native_tool.startswith(_MCP_PREFIX)
        server = fields.payload.get("mcp_server_name") if native_event == _MCP_EVENT else None
        event = self.build_event(
            fields,
            kind=kind,
            native_event=native_event,
            native_tool=native_tool,
            tool_input=tool_input,
            call_keys=("mcp_context", "agent_type"),
            response_key="tool_output",
            mcp_call=mcp_call,
        )
        tool = _mcp_tool(native_tool, server) if mcp_call else None
        if tool is None:
            return event
        return make_event(
            event=event.event,
            tool=tool,
            input=event.input,
            this_call_vetoable=event.this_call_vetoable,
            meta=event.meta,
            response=event.response,
        )

    def unreadable_input(self, event: ToolCallEvent) -> str | None:
        """A tool call whose tool_input is not an object nor a JSON string of one."""
        if event.event not in (EventKinds.PRE_TOOL, EventKinds.POST_TOOL):
            return None
        # L12: an argument string that does not decode stays in passthrough; never judge it as {}.
        if "tool_input" in event.meta.passthrough:
            return "tool_input is not a JSON object (nor a JSON string of one)"
        return None

    def render_checked(
        self, verdict: Verdict, event: ToolCallEvent, *, sole_gate: bool
    ) -> NativeResponse:
        """Render a verdict as Cursor's stdout body, stderr reason and exit code."""
        # sole_gate changes nothing: the abstaining allow is already an explicit allow (notes).
        enforced = verdict.decision == Decisions.DENY and event.this_call_vetoable
        reason = self.block_reason(verdict) if enforced else to_string(verdict.reason)
        kind = event.event
        if kind == EventKinds.PRE_TOOL:
            body = self._permission_body(verdict, event, reason)
        elif kind == EventKinds.PROMPT_SUBMIT:
            body = {"continue": verdict.decision == Decisions.ALLOW}
            if verdict.decision != Decisions.ALLOW and reason:
                body["user_message"] = reason
        elif kind == EventKinds.UNKNOWN:
            body = {} if verdict.decision == Decisions.ALLOW else _deny_body(reason)
        else:
            # postToolUse and sessionStart cannot block; they carry context only.
            body = {}
            if present(verdict.additional_context):
                body["additional_context"] = verdict.additional_context
        if enforced:
            # Exit 2 blocks; the body and stderr carry the reason for whichever the host reads.
            return self.response(exit_code=_BLOCK, enforced=True, stdout=body, stderr=reason)
        # With failClosed, EMPTY output blocks: every answer prints a body (hosts/cursor.json).
        return self.response(stdout=body)

    def _permission_body(
        self, verdict: Verdict, event: ToolCallEvent, reason: str | None
    ) -> dict[str, Any]:
        if verdict.decision != Decisions.ALLOW:
            # No ask tier: an ask is the advisory deny (hosts/cursor.json).
            return _deny_body(reason, bare=event.meta.native_event in _BARE_DENY_EVENTS)
        if not present(verdict.mutated_input):
            return {"permission": "allow"}
        if event.meta.native_event in _REWRITE_EVENTS:
            return {"permission": "allow", "updated_input": verdict.mutated_input}
        # This event has no input channel: running the original would drop the rewrite, so the
        # call is refused and the agent is told what to run instead.
        rewritten = json.dumps(verdict.mutated_input, ensure_ascii=False, sort_keys=True)
        note = f"the guardrail rewrote this call's input, which Cursor cannot apply on {event.meta.native_event}; run it with {rewritten}"
        bare = event.meta.native_event in _BARE_DENY_EVENTS
        return _deny_body(f"{reason} ({note})" if reason else note, bare=bare)


def _deny_body(reason: str | None, *, bare: bool = False) -> dict[str, Any]:
    """Cursor's permission deny, with the reason for the user and (unless bare) the agent."""
    body: dict[str, Any] = {"permission": "deny"}
    if reason:
        body["user_message"] = reason
        if not bare:
            body["agent_message"] = reason
    return body


def _mcp_tool(native_tool: str | None, server: object) -> str | None:
    """mcp__<server>__<tool> for an MCP call whose server the payload names, else None."""
    if native_tool is None:
        return None
    name = native_tool
    if name.startswith(_MCP_PREFIX):
        name = name[len(_MCP_PREFIX) :]
        # preToolUse MCP:<server>:<tool> (cursor.com/docs/hooks sample MCP:github:create_issue).
        head, colon, tail = name.partition(":")
        if colon and head and tail:
            server, name = head, tail
    if isinstance(server, str) and server and name:
        return _MCP_NAME.format(server=server, tool=name)
    return None


cursor_adapter = CursorAdapter()
