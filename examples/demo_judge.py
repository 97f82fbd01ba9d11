"""The demo guardrail: deny rm -rf, ask before git push, rewrite npm install to npm ci."""

from __future__ import annotations

import re

from agent_control_plane_core import MODELED_TOOL_INPUT_KEYS, ToolCallEvent, Verdict
from agent_control_plane_core.runtime import demo_judge

# A judge loads in every hook process: typing, imported only for an annotation, would cost each
# tool call a few milliseconds (docs/performance.md). Type checkers read this block.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_PUSH = re.compile(r"\bgit\s+push\b")
_NPM_INSTALL = re.compile(r"\bnpm\s+install\b")


def judge(event: ToolCallEvent) -> Verdict | dict[str, Any]:
    """Answer one normalized call with each of the four kinds of verdict."""
    denied = demo_judge(event)  # the shipped default: deny rm -rf
    if denied.decision != "allow":
        return denied
    # Read the input key the contract publishes for the tool instead of hard-coding it.
    key = MODELED_TOOL_INPUT_KEYS.get(event.tool or "")
    command = event.input.get(key) if key else None
    if not isinstance(command, str):
        return Verdict(decision="allow")
    if _PUSH.search(command):
        return Verdict(decision="ask", reason="pushing leaves this machine: confirm")
    if _NPM_INSTALL.search(command):
        rewritten = {**event.input, key: _NPM_INSTALL.sub("npm ci", command)}
        return Verdict(decision="allow", reason="use the lockfile", mutated_input=rewritten)
    return Verdict(decision="allow")
