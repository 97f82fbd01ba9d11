"""Kiro CLI adapter: exit 2 with stderr blocks a preToolUse call; there is no JSON answer."""

from __future__ import annotations

from .._generated.constants import Decisions
from .._generated.hosts import kiro as declaration
from .._generated.models.native_response_schema import NativeResponse
from .._generated.models.tool_call_event_schema import ToolCallEvent
from .._generated.models.verdict_schema import Verdict
from ..contract import to_string
from .gemini import GeminiAdapter

__all__ = ["KiroAdapter", "kiro_adapter"]

# kiro.dev/docs/cli/hooks (Hook output): exit 2 blocks on preToolUse; any other non-zero code is
# a failed hook whose stderr the user sees as a warning while the call runs.
_BLOCK, _WARN = 2, 1


class KiroAdapter(GeminiAdapter):
    """Parses Kiro CLI hook payloads and renders verdicts as Kiro CLI's exit codes."""

    # Kiro's payload has Gemini CLI's shape: hook_event_name, with tool_name and tool_input on
    # tool events, tool_response after the tool, prompt on prompt events (kiro.dev/docs/cli/hooks,
    # Hook event), so parse is shared; the event names and the answer are Kiro's own.
    DECLARATION = declaration

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
