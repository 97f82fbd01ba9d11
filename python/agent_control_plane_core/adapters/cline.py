"""Cline adapter: one executable per event; {"cancel": true, "errorMessage"} on stdout ends the run."""

from __future__ import annotations

from .._generated.constants import (
    MODELED_TOOL_INPUT_KEYS,
    ContentFields,
    Decisions,
    EventKinds,
    ModeledTools,
    PromptInputFields,
)
from .._generated.hosts import cline as declaration
from .._generated.models.native_response_schema import NativeResponse
from .._generated.models.tool_call_event_schema import ToolCallEvent
from .._generated.models.verdict_schema import Verdict
from ..contract import present, to_string
from ._base import HostAdapter, payload_fields

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

__all__ = ["ClineAdapter", "cline_adapter"]

# Cline reads the control JSON whatever the exit code (@cline/core 0.0.86 runSubprocessEvent);
# the non-zero exit and the stderr reason on a block are for logs and any runner that checks them.
_BLOCK: Final = 2
# Per kind: the SDK's object ({name, input}) and the documented data key ({toolName, parameters}).
_TOOL_KEYS: Final = {
    EventKinds.PRE_TOOL: ("tool_call", "preToolUse"),
    EventKinds.POST_TOOL: ("tool_result", "postToolUse"),
}

# The 3.0.65 CLI's shell tool takes a list, {commands: [...]} (@cline/core 0.0.86; lab profile):
# a judge reads them as one shell script in the canonical key, beside the native list.
_COMMANDS_TOOL: Final = "run_commands"
_COMMANDS: Final = "commands"
_SHELL_KEY: Final = MODELED_TOOL_INPUT_KEYS[ModeledTools.BASH]


class ClineAdapter(HostAdapter):
    """Parses Cline hook payloads and renders verdicts as Cline's control JSON."""

    DECLARATION = declaration

    def parse(self, native: object) -> ToolCallEvent:
        """Turn a Cline hook payload into a ToolCallEvent; never raises."""
        fields = payload_fields(native)
        native_event = fields.string("hookName") or ""
        kind = self.kind_of(native_event)
        native_tool: str | None = None
        tool_input: dict[str, Any] = {}
        keys = _TOOL_KEYS.get(kind)
        if keys is not None:
            sdk, documented = (fields.payload.get(key) for key in keys)
            if isinstance(sdk, dict) and isinstance(sdk.get("name"), str):
                native_tool = sdk["name"]
                found = sdk.get("input")
                tool_input = dict(found) if isinstance(found, dict) else {}
            elif isinstance(documented, dict) and isinstance(documented.get("toolName"), str):
                native_tool = documented["toolName"]
                found = documented.get("parameters")
                tool_input = dict(found) if isinstance(found, dict) else {}
        if native_tool == _COMMANDS_TOOL:
            tool_input = _with_script(tool_input)
        elif kind == EventKinds.PROMPT_SUBMIT:
            data = fields.payload.get("userPromptSubmit")
            prompt = data.get("prompt") if isinstance(data, dict) else None
            tool_input = {PromptInputFields.PROMPT: prompt if isinstance(prompt, str) else ""}
        return self.build_event(
            fields,
            kind=kind,
            native_event=native_event,
            native_tool=native_tool,
            tool_input=tool_input,
            call_keys=("mcp_context", "agent_type"),
            response_key="tool_result",
        )

    def render_checked(
        self, verdict: Verdict, event: ToolCallEvent, *, sole_gate: bool
    ) -> NativeResponse:
        """Render a verdict as Cline's stdout control JSON and exit code."""
        decision = verdict.decision
        enforced = decision == Decisions.DENY and event.this_call_vetoable
        body: dict[str, Any] = {}
        if decision != Decisions.ALLOW:
            # No ask answer exists (hosts/cline.json): an ask cancels like a deny. The cancel ends
            # the whole run on 3.0.65 (block_ends_run), so errorMessage never reaches the model.
            body["cancel"] = True
            reason = self.block_reason(verdict) if enforced else to_string(verdict.reason)
            if reason:
                body["errorMessage"] = reason
        kind = event.event
        if present(verdict.additional_context) and self.carries(
            kind, ContentFields.ADDITIONAL_CONTEXT
        ):
            body["contextModification"] = verdict.additional_context
        if (
            decision == Decisions.ALLOW
            and present(verdict.mutated_input)
            and self.carries(kind, ContentFields.MUTATED_INPUT)
        ):
            body["overrideInput"] = _native_input(event, verdict.mutated_input)
        if enforced:
            return self.response(
                exit_code=_BLOCK, enforced=True, stdout=body, stderr=body["errorMessage"]
            )
        return self.response(stdout=body or None)


def _with_script(tool_input: dict[str, Any]) -> dict[str, Any]:
    """run_commands input with its commands joined, one per line, under the shell key."""
    commands = tool_input.get(_COMMANDS)
    if _SHELL_KEY in tool_input or not isinstance(commands, list):
        return tool_input
    if not all(isinstance(command, str) for command in commands):
        return tool_input
    return {**tool_input, _SHELL_KEY: "\n".join(commands)}


def _native_input(event: ToolCallEvent, rewrite: Any) -> Any:
    """A rewrite in Cline's own parameters: a rewritten script becomes the one command to run."""
    if event.meta.native_tool != _COMMANDS_TOOL or not isinstance(rewrite, dict):
        return rewrite
    if _SHELL_KEY not in rewrite or _SHELL_KEY in _native_parameters(event):
        return rewrite
    native = {key: value for key, value in rewrite.items() if key != _SHELL_KEY}
    if rewrite[_SHELL_KEY] != event.input.get(_SHELL_KEY):
        native[_COMMANDS] = [rewrite[_SHELL_KEY]]
    return native


def _native_parameters(event: ToolCallEvent) -> dict[str, Any]:
    """The keys the host itself sent, i.e. the event input minus the joined script we added."""
    commands = event.input.get(_COMMANDS)
    if isinstance(commands, list) and event.input.get(_SHELL_KEY) == "\n".join(map(str, commands)):
        return {key: value for key, value in event.input.items() if key != _SHELL_KEY}
    return event.input


cline_adapter = ClineAdapter()
