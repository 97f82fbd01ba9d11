"""Kiro CLI adapter: exit 2 with stderr blocks a PreToolUse call or a V3 prompt; there is no JSON answer."""

from __future__ import annotations

from .._generated.constants import MODELED_TOOL_INPUT_KEYS, Decisions
from .._generated.hosts import kiro as declaration
from .._generated.models.native_response_schema import NativeResponse
from .._generated.models.tool_call_event_schema import ToolCallEvent
from .._generated.models.verdict_schema import Verdict
from ..contract import check_alias_targets, make_event, to_string
from .gemini import GeminiAdapter

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

__all__ = ["KiroAdapter", "kiro_adapter"]

# kiro.dev/docs/cli/hooks (Hook output): exit 2 blocks; any other non-zero code is a failed hook
# whose stderr the user sees as a warning while the call runs.
_BLOCK, _WARN = 2, 1
# V2 (camelCase) events where exit 2 is only that warning: a V2 hook blocks preToolUse alone
# (crates/chat-cli/src/cli/chat/cli/hooks.rs @ 15cc8f3c); V3 UserPromptSubmit blocks (KR-4).
_V2_UNBLOCKABLE: Final = frozenset({"userPromptSubmit"})
# File tools (chat/tools/fs_write.rs, fs_read.rs @ 15cc8f3c; later releases write and read):
# hosts/kiro.json aliases fs_write to Write and renames its path to file_path; its command says
# whether it creates the file or edits one, and fs_read names its path inside operations.
_EDIT_COMMANDS: Final = frozenset({"str_replace", "insert", "append"})
_EDIT_OF: Final = {"fs_write": "Edit", "write": "Edit"}
check_alias_targets(_EDIT_OF, "adapters/kiro.py")
_READ_TOOLS: Final = frozenset({"fs_read", "read"})
# The builtin names _file_tool may rename; any other builtin keeps its tool.
_FILE_TOOLS: Final = _READ_TOOLS | frozenset(_EDIT_OF)
_MCP_NAME: Final = "mcp__{server}__{tool}"


class KiroAdapter(GeminiAdapter):
    """Parses Kiro CLI hook payloads and renders verdicts as Kiro CLI's exit codes."""

    # Kiro's payload has Gemini CLI's shape: hook_event_name, with tool_name and tool_input on
    # tool events, tool_response after the tool, prompt on prompt events, session_id
    # (chat/cli/hooks.rs @ 15cc8f3c run_hook), so parse is shared; names and answers are Kiro's.
    DECLARATION = declaration

    def parse(self, native: object) -> ToolCallEvent:
        """Turn a Kiro CLI hook payload into a ToolCallEvent; never raises."""
        event = super().parse(native)
        tool, tool_input = self._file_tool(event)
        vetoable = event.this_call_vetoable and event.meta.native_event not in _V2_UNBLOCKABLE
        if tool == event.tool and vetoable == event.this_call_vetoable:
            return event
        return make_event(
            event=event.event,
            tool=tool,
            input=tool_input,
            this_call_vetoable=vetoable,
            meta=event.meta,
            response=event.response,
        )

    def _file_tool(self, event: ToolCallEvent) -> tuple[str | None, dict[str, Any]]:
        """The event's tool and input: an MCP name, an fs_write edit or a one-file fs_read (TN-KR)."""
        native = event.meta.native_tool if isinstance(event.meta.native_tool, str) else None
        tool_input = event.input
        if native is None:
            return event.tool, tool_input
        if self.mcp_named(native):
            # The event's tool is mcp__<server>__<tool>, so one MCP rule matches Kiro as it
            # matches the hosts that name MCP tools so; native_tool keeps @server/tool.
            server, _, name = native[1:].partition("/")
            return _MCP_NAME.format(server=server, tool=name), tool_input
        if native not in _FILE_TOOLS:
            return event.tool, tool_input  # most calls (a shell command): nothing below applies
        if native in _EDIT_OF and event.tool != native:
            # Aliased to Write (its path renamed): str_replace, insert and append edit a file.
            command = tool_input.get("command")
            if isinstance(command, str) and command in _EDIT_COMMANDS:
                return _EDIT_OF[native], tool_input
        target = self.TOOL_ALIASES.get(native) if native in _READ_TOOLS else None
        key = MODELED_TOOL_INPUT_KEYS.get(target) if target else None
        operations = tool_input.get("operations")
        if key and key not in tool_input and isinstance(operations, list) and len(operations) == 1:
            # One Line-mode operation reads one file; a batch or a directory keeps its name.
            only = operations[0]
            if isinstance(only, dict) and only.get("mode") == "Line" and target:
                path = only.get("path")
                if isinstance(path, str):
                    return target, {**tool_input, key: path}
        return event.tool, tool_input

    def mcp_named(self, native_tool: str) -> bool:
        """Kiro names MCP tools @server/tool (chat/mod.rs namespaced_tool_name @ 15cc8f3c, KR-3)."""
        if not native_tool.startswith("@"):
            return False  # every parse asks: most names are a builtin's
        server, slash, name = native_tool[1:].partition("/")
        return bool(server) and bool(slash) and bool(name)

    def render_checked(
        self, verdict: Verdict, event: ToolCallEvent, *, sole_gate: bool
    ) -> NativeResponse:
        """Render a verdict as Kiro CLI's exit code, with the reason on stderr."""
        if verdict.decision == Decisions.ALLOW:
            return self.response()
        if verdict.decision == Decisions.DENY and event.this_call_vetoable:
            # The reason is what the model reads on a block, so it is never left empty.
            return self.response(exit_code=_BLOCK, enforced=True, stderr=self.block_reason(verdict))
        # No ask tier and no advisory body: a failed hook's warning is the one signal left that
        # reaches a person without claiming a block (hosts/kiro.json).
        return self.response(exit_code=_WARN, stderr=to_string(verdict.reason))


kiro_adapter = KiroAdapter()
