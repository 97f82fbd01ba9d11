"""Crush adapter: PreToolUse command hooks; exit 2 blocks, a JSON envelope allows, rewrites, adds context."""

from __future__ import annotations

from .._generated.constants import ContentFields, Decisions, EventKinds
from .._generated.hosts import crush as declaration
from .._generated.models.native_response_schema import NativeResponse
from .._generated.models.tool_call_event_schema import ToolCallEvent
from .._generated.models.verdict_schema import Verdict
from ..contract import present, to_string
from ._base import HostAdapter, payload_fields

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

__all__ = ["CrushAdapter", "crush_adapter"]

# charmbracelet/crush docs/hooks/README.md (Output): exit 2 blocks with stderr as the reason.
_BLOCK: Final = 2
# MCP tools are named mcp_<server>_<tool> (docs/hooks/README.md, "Block all MCP tools").
_MCP_PREFIX: Final = "mcp_"
# Characters sjson reads as path syntax in an updated_input key (separator, wildcards, escape,
# modifiers), which internal/hooks/hooks.go shallowMerge hands it key by key.
_SJSON_PATH: Final = frozenset(".*?\\|#@:")
_REFUSED: Final = "the guardrail rewrote this call's input, which Crush cannot apply: "


class CrushAdapter(HostAdapter):
    """Parses Crush hook payloads and renders verdicts as Crush's exit code and envelope."""

    DECLARATION = declaration

    def parse(self, native: object) -> ToolCallEvent:
        """Turn a Crush hook payload into a ToolCallEvent; never raises."""
        fields = payload_fields(native)
        # internal/hooks/input.go: the event name is "event"; a Claude-shaped payload names it
        # hook_event_name, read as a fallback so either spelling parses.
        native_event = fields.string("event") or fields.string("hook_event_name") or ""
        kind = self.kind_of(native_event)
        native_tool = fields.string("tool_name") if kind != EventKinds.UNKNOWN else None
        tool_input = fields.object("tool_input") if native_tool is not None else {}
        return self.build_event(
            fields,
            kind=kind,
            native_event=native_event,
            native_tool=native_tool,
            tool_input=tool_input,
            call_keys=("mcp_context", "agent_type"),
            mcp_call=native_tool is not None and native_tool.startswith(_MCP_PREFIX),
        )

    def render_checked(
        self, verdict: Verdict, event: ToolCallEvent, *, sole_gate: bool
    ) -> NativeResponse:
        """Render a verdict as Crush's exit code, stderr reason and stdout envelope."""
        decision = verdict.decision
        patch = None
        kind = event.event
        if (
            decision == Decisions.ALLOW
            and present(verdict.mutated_input)
            and self.carries(kind, ContentFields.MUTATED_INPUT)
        ):
            patch = self._merge_patch(event, verdict.mutated_input)
            if isinstance(patch, str):
                # A rewrite the merge cannot apply as given is refused, never run unchanged: a
                # deny body at exit 0 blocks in Crush (hooked_tool.go), claimed as not enforced.
                return self.response(stdout={"decision": "deny", "reason": patch})
        if decision == Decisions.DENY and event.this_call_vetoable:
            # Exit 2 ignores stdout; the reason is what the model reads, so it is never empty.
            return self.response(exit_code=_BLOCK, enforced=True, stderr=self.block_reason(verdict))
        body: dict[str, Any] = {}
        if decision != Decisions.ALLOW:
            # No ask decision exists (silence is Crush's own prompt): an ask is an advisory deny.
            body["decision"] = "deny"
            if present(verdict.reason):
                body["reason"] = to_string(verdict.reason)
        elif sole_gate:
            # decision allow skips Crush's permission prompt, so only a sole gate says it.
            body["decision"] = "allow"
        if present(verdict.additional_context) and self.carries(
            kind, ContentFields.ADDITIONAL_CONTEXT
        ):
            body["context"] = verdict.additional_context
        if isinstance(patch, dict):
            body["updated_input"] = patch
        return self.response(stdout=body or None)

    def _merge_patch(self, event: ToolCallEvent, mutated: object) -> dict[str, Any] | str:
        """The updated_input that makes Crush's merge give the whole new input, or why none can.

        Crush shallow-merges updated_input into the original input, key by key as sjson paths
        (hosts/crush.json; docs/findings.md HA3-4): a key the rewrite removed is sent as null,
        and a key holding a path character would land elsewhere, so that rewrite is refused.
        """
        native = self.native_input(event, mutated)
        if not isinstance(native, dict):
            return _REFUSED + "its new input is not a JSON object"
        odd = sorted(key for key in native if _SJSON_PATH.intersection(key) or not key)
        if odd:
            return _REFUSED + f"its keys {odd} are paths to Crush's merge, not names"
        original = self.native_input(event, event.input)
        assert isinstance(original, dict)  # an event's input is an object
        removed = [key for key in original if key not in native]
        return {**native, **dict.fromkeys(removed)}


crush_adapter = CrushAdapter()
