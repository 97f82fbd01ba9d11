"""Codex CLI adapter: hookSpecificOutput bodies, exit 2 with a non-empty stderr as the block."""

from __future__ import annotations

import json
import re

from .._generated.constants import (
    MODELED_TOOL_INPUT_KEYS,
    ContentFields,
    Decisions,
    EventKinds,
    ModeledTools,
    PatchInputFields,
    PromptInputFields,
)
from .._generated.hosts import codex as declaration
from .._generated.models.native_response_schema import NativeResponse
from .._generated.models.tool_call_event_schema import ToolCallEvent
from .._generated.models.verdict_schema import Verdict
from ..contract import present, to_string
from ._base import HostAdapter, model_text, payload_fields

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

__all__ = ["CodexAdapter", "codex_adapter"]

# PermissionRequest answers with its own decision object (output_parser.rs parse_permission_request).
_PERMISSION_REQUEST: Final = "PermissionRequest"
_PATCH_TOOL: Final = "apply_patch"
# apply_patch envelope headers naming a file: "*** Add File: p", "*** Update File: p",
# "*** Delete File: p", and "*** Move to: p" after an update (codex apply-patch grammar).
_PATCH_HEADER: Final = r"^\*\*\* (Add File|Update File|Delete File|Move to): (.+?)\s*$"
_ADD: Final = "Add File"
# The shell tool's input key, and an apply_patch heredoc as the whole command (codex's shell
# interception of apply_patch, apply-patch/src/invocation.rs: `apply_patch <<'EOF' ... EOF`).
_SHELL_KEY: Final = MODELED_TOOL_INPUT_KEYS[ModeledTools.BASH]
_SHELL_PATCH: Final = (
    r"apply_patch\s+<<-?\s*(?P<q>['\"]?)(?P<tag>\w+)(?P=q)[ \t]*\n(?P<patch>.*)\n(?P=tag)"
)


class CodexAdapter(HostAdapter):
    """Parses Codex hook payloads and renders verdicts as Codex enforces them."""

    DECLARATION = declaration

    def parse(self, native: object) -> ToolCallEvent:
        """Turn a Codex hook payload into a ToolCallEvent; never raises."""
        fields = payload_fields(native)
        native_event = fields.string("hook_event_name") or ""
        kind = self.kind_of(native_event)
        native_tool: str | None = None
        tool_input: dict[str, Any] = {}
        aliases = None
        if kind == EventKinds.PROMPT_SUBMIT:
            # CX-4: UserPromptSubmit carries the prompt (user-prompt-submit.command.input).
            tool_input = {PromptInputFields.PROMPT: fields.string("prompt") or ""}
        elif kind != EventKinds.SESSION_START:
            native_tool = fields.string("tool_name")
            tool_input = fields.object("tool_input")
            if native_tool == _PATCH_TOOL:
                tool_input, aliases = _patch_input(tool_input)
            elif native_tool == ModeledTools.BASH:
                # An apply_patch heredoc through the shell is applied by Codex as a patch (HA3-13):
                # judged as the Edit or Write of every file it names, the command kept.
                tool_input, aliases = _shell_patch_input(tool_input)
        return self.build_event(
            fields,
            kind=kind,
            native_event=native_event,
            native_tool=native_tool,
            tool_input=tool_input,
            call_keys=("mcp_context", "agent_type"),
            response_key="tool_response",
            tool_aliases=aliases,
        )

    def render_checked(
        self, verdict: Verdict, event: ToolCallEvent, *, sole_gate: bool
    ) -> NativeResponse:
        """Render a verdict as Codex's stdout body, stderr reason and exit code."""
        enforced = verdict.decision == Decisions.DENY and event.this_call_vetoable
        kind = event.event
        # CX-1, CX-6: a deny or block without a non-empty reason is voided, so every one has one.
        reason = self.block_reason(verdict)
        body: dict[str, Any] | None
        if kind == EventKinds.POST_TOOL:
            body = self._post_tool_body(verdict, event, reason)
        elif kind == EventKinds.PROMPT_SUBMIT:
            body = self._prompt_body(verdict, event, reason)
        elif kind == EventKinds.SESSION_START:
            body = self._session_body(verdict, event, reason)
        elif kind == EventKinds.UNKNOWN:
            # Each Codex event has its own closed output schema: a body shaped for another event
            # voids the answer, so an unmodelled event gets none (CX-7).
            body = None
        elif event.meta.native_event == _PERMISSION_REQUEST:
            body = self._permission_body(verdict, event, reason, sole_gate)
        else:
            body = self._pre_tool_body(verdict, event, reason)
        if enforced:
            # On exit 2 Codex reads only stderr, and an empty stderr fails open
            # (codex-rs/hooks/src/events/pre_tool_use.rs; enforced-deny-stderr).
            # After the tool, that stderr is what the model reads in place of the output, so it
            # is the body's reason (the replacement, when the verdict redacts).
            text = body["reason"] if kind == EventKinds.POST_TOOL and body else reason
            return self.response(exit_code=2, enforced=True, stdout=body, stderr=text)
        return self.response(stdout=body)

    def _pre_tool_body(self, verdict: Verdict, event: ToolCallEvent, reason: str) -> dict[str, Any]:
        out: dict[str, Any] = {"hookEventName": event.meta.native_event}
        if verdict.decision == Decisions.ALLOW:
            # updatedInput is accepted only beside allow, and a bare allow fails the hook
            # (codex-updatedinput-with-allow, codex-bare-allow); before 0.131.0 it voids the answer.
            if present(verdict.mutated_input) and self.carries(
                EventKinds.PRE_TOOL, ContentFields.MUTATED_INPUT
            ):
                rewrite = _native_patch_input(event, verdict.mutated_input)
                if rewrite is None:
                    # The paths changed but not the patch that names them: Codex cannot apply
                    # that, so refuse it rather than run the original patch.
                    shown = json.dumps(verdict.mutated_input, ensure_ascii=False, sort_keys=True)
                    out["permissionDecision"] = "deny"
                    out["permissionDecisionReason"] = (
                        f"denied: the guardrail rewrote this patch to {shown}, whose paths its"
                        " patch text does not name, so the rewrite cannot be applied"
                    )
                    return {"hookSpecificOutput": out}
                out["permissionDecision"] = "allow"
                if present(verdict.reason):
                    out["permissionDecisionReason"] = verdict.reason
                out["updatedInput"] = rewrite
        else:
            # Codex has no ask tier: ask renders the advisory deny (codex-ask-advisory).
            out["permissionDecision"] = "deny"
            out["permissionDecisionReason"] = reason
        # CX-5: from 0.129.0 PreToolUse context reaches the model; before, it voids the answer.
        if present(verdict.additional_context) and self.carries(
            EventKinds.PRE_TOOL, ContentFields.ADDITIONAL_CONTEXT
        ):
            out["additionalContext"] = verdict.additional_context
        return {"hookSpecificOutput": out}

    def _permission_body(
        self, verdict: Verdict, event: ToolCallEvent, reason: str, sole_gate: bool
    ) -> dict[str, Any]:
        # CX-3: hookSpecificOutput {hookEventName, decision: {behavior, message}}, nothing else.
        out: dict[str, Any] = {"hookEventName": _PERMISSION_REQUEST}
        message = reason
        if verdict.decision == Decisions.ALLOW:
            if not (
                present(verdict.mutated_input)
                and self.carries(EventKinds.PRE_TOOL, ContentFields.MUTATED_INPUT)
            ):
                if sole_gate:
                    out["decision"] = {"behavior": "allow"}
                return {"hookSpecificOutput": out}
            # No input channel here: refuse the rewrite rather than run the original call.
            rewritten = json.dumps(verdict.mutated_input, ensure_ascii=False, sort_keys=True)
            message = (
                f"denied: the guardrail rewrote this call to {rewritten}, and a PermissionRequest"
                " answer cannot carry a rewrite"
            )
        # The deny message reaches the model: the only place context can ride on this event.
        if present(verdict.additional_context) and self.carries(
            EventKinds.PRE_TOOL, ContentFields.ADDITIONAL_CONTEXT
        ):
            message = f"{message}\n\n{verdict.additional_context}"
        out["decision"] = {"behavior": "deny", "message": message}
        return {"hookSpecificOutput": out}

    def _post_tool_body(
        self, verdict: Verdict, event: ToolCallEvent, reason: str
    ) -> dict[str, Any]:
        out: dict[str, Any] = {"hookEventName": event.meta.native_event}
        redaction = present(verdict.mutated_output) and self.carries(
            EventKinds.POST_TOOL, ContentFields.MUTATED_OUTPUT
        )
        if present(verdict.additional_context) and not redaction:
            out["additionalContext"] = verdict.additional_context
        body: dict[str, Any] = {"hookSpecificOutput": out}
        if redaction:
            # A PostToolUse decision:block hands its reason to the model in place of the tool's
            # output (lab scenarios redact and control_redact on 0.150.0 and 0.171.0), so the
            # replacement, and any context beside it, rides there. At exit 0: the tool already ran.
            body["decision"] = "block"
            text = model_text(verdict, output=True, context=True)
            body["reason"] = text if text.strip() else reason
        elif verdict.decision != Decisions.ALLOW:
            body["decision"] = "block"
            body["reason"] = reason
        return body

    def _prompt_body(self, verdict: Verdict, event: ToolCallEvent, reason: str) -> dict[str, Any]:
        # CX-4: decision block + reason blocks the prompt; context rides in hookSpecificOutput.
        body: dict[str, Any] = {}
        if verdict.decision != Decisions.ALLOW:
            body["decision"] = "block"
            body["reason"] = reason
        if present(verdict.additional_context):
            body["hookSpecificOutput"] = {
                "hookEventName": event.meta.native_event,
                "additionalContext": verdict.additional_context,
            }
        return body

    def _session_body(self, verdict: Verdict, event: ToolCallEvent, reason: str) -> dict[str, Any]:
        # CX-7: SessionStart cannot block; it takes context and a message shown to the user only.
        body: dict[str, Any] = {}
        if verdict.decision != Decisions.ALLOW:
            body["systemMessage"] = reason
        if present(verdict.additional_context):
            body["hookSpecificOutput"] = {
                "hookEventName": event.meta.native_event,
                "additionalContext": verdict.additional_context,
            }
        return body


def _patch_input(tool_input: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str] | None]:
    """apply_patch's input with every file of its patch headers, and the canonical tool it is.

    CX-2: file_path is the first file (what an Edit or Write rule reads), file_paths every file,
    so a judge sees each one; a patch that only adds files is a Write. No header: left native.
    """
    patch = to_string(tool_input.get("command"))
    if patch is None:
        return tool_input, None
    paths: list[str] = []
    only_adds = True
    for found in re.finditer(_PATCH_HEADER, patch, re.MULTILINE):
        operation, path = found.groups()
        only_adds = only_adds and operation == _ADD
        if path not in paths:
            paths.append(path)
    if not paths:
        return tool_input, None
    extended = {**tool_input}
    extended.setdefault(PatchInputFields.FILE_PATH, paths[0])
    extended.setdefault(PatchInputFields.FILE_PATHS, paths)
    return extended, {_PATCH_TOOL: ModeledTools.WRITE if only_adds else ModeledTools.EDIT}


def _shell_patch_input(
    tool_input: dict[str, Any],
) -> tuple[dict[str, Any], dict[str, str] | None]:
    """A shell call that is only `apply_patch <<'EOF' ... EOF`, read as the patch it applies."""
    command = to_string(tool_input.get(_SHELL_KEY))
    found = None if command is None else re.fullmatch(_SHELL_PATCH, command.strip(), re.DOTALL)
    if found is None:
        return tool_input, None
    extended, kind = _patch_input({_SHELL_KEY: found.group("patch")})
    if kind is None:
        return tool_input, None
    return {**tool_input, **{k: extended[k] for k in PatchInputFields.ALL}}, {
        ModeledTools.BASH: kind[_PATCH_TOOL]
    }


def _native_patch_input(event: ToolCallEvent, mutated: object) -> object | None:
    """A rewrite of apply_patch as Codex takes it: the patch, without the paths the parse added.

    None when the rewrite's file_path or file_paths differ from what its patch text names: only
    the patch reaches the tool, so such a rewrite cannot be applied.
    """
    if not isinstance(mutated, dict):
        return mutated
    if event.meta.native_tool != _PATCH_TOOL:
        if PatchInputFields.FILE_PATHS not in event.input:
            return mutated
        # A shell patch: the paths the parse added (from the old or the new command) are not the
        # shell tool's input; a value naming other files is passed on as the judge wrote it.
        derived, _ = _shell_patch_input({k: v for k, v in mutated.items() if k == _SHELL_KEY})
        return {
            k: v
            for k, v in mutated.items()
            if not (k in PatchInputFields.ALL and v in (event.input.get(k), derived.get(k)))
        }
    derived, _ = _patch_input({k: v for k, v in mutated.items() if k not in PatchInputFields.ALL})
    if any(key in mutated and mutated[key] != derived.get(key) for key in PatchInputFields.ALL):
        return None
    return {k: v for k, v in mutated.items() if k not in PatchInputFields.ALL}


codex_adapter = CodexAdapter()
