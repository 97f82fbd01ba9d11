"""Demo: one guardrail, four hosts — parse each host's payload, judge once, render each host's native answer."""

from __future__ import annotations

import json
import re
import sys

from agent_control_plane_core import (
    AGENT_IDS,
    MODELED_TOOL_INPUT_KEYS,
    ToolCallEvent,
    Verdict,
    adapter_for,
)
from agent_control_plane_core.schemas import validator_for

# The same two shell commands as each host would send them (host-protocols.md).
PAYLOADS = {
    "claude": lambda cmd: {
        "hook_event_name": "PreToolUse",
        "session_id": "s1",
        "cwd": "/work",
        "tool_name": "Bash",
        "tool_input": {"command": cmd},
        "tool_use_id": "toolu_1",
    },
    "codex": lambda cmd: {
        "hook_event_name": "PreToolUse",
        "session_id": "c1",
        "turn_id": "t1",
        "cwd": "/work",
        "tool_name": "Bash",
        "tool_input": {"command": cmd},
    },
    "gemini": lambda cmd: {
        "hook_event_name": "BeforeTool",
        "session_id": "g1",
        "timestamp": "2026-11-30T00:00:00Z",
        "tool_name": "run_shell_command",
        "tool_input": {"command": cmd},
    },
    "amp": lambda cmd: {"tool": "Bash", "input": {"cmd": cmd}, "session_id": "T-1"},
}
COMMANDS = ("ls -la", "rm -rf /")


def judge(event: ToolCallEvent) -> Verdict:
    """The demo policy: deny a shell command that runs rm -rf, allow everything else."""
    # Read the input key the contract publishes for the tool instead of hard-coding it.
    command = event.input.get(MODELED_TOOL_INPUT_KEYS.get(event.tool or "", ""))
    if event.tool == "Bash" and isinstance(command, str) and re.search(r"rm\s+-rf", command):
        return Verdict(decision="deny", reason="demo policy: rm -rf blocked")
    return Verdict(decision="allow")


def main() -> int:
    """Run both commands through every host and print what each host would receive."""
    schemas = {
        name: validator_for(name) for name in ("tool-call-event", "verdict", "native-response")
    }
    invalid = 0
    for agent in AGENT_IDS:
        # Codex payloads carry no version: the launcher pins it (here, an enforcing one).
        options = {"codex_version": "0.150.0"} if agent == "codex" else {}
        adapter = adapter_for(agent, **options)
        for command in COMMANDS:
            event = adapter.parse(PAYLOADS[agent](command))
            verdict = judge(event)
            response = adapter.render(verdict, event)
            for name, instance in (
                ("tool-call-event", event.to_dict()),
                ("verdict", verdict.to_dict()),
                ("native-response", response.to_dict()),
            ):
                errors = [error.message for error in schemas[name].iter_errors(instance)]
                if errors:
                    invalid += 1
                    print(f"  INVALID {name}: {errors}")
            stdout = json.dumps(response.stdout) if response.stdout else "-"
            stderr = response.stderr if response.stderr else "-"
            print(
                f"{agent:6} {command!r:11} tool={event.tool} vetoable={event.this_call_vetoable}"
                f" -> {verdict.decision:5} exit={response.exit_code}"
                f" enforced={response.enforced!s:5} stderr={stderr!r} stdout={stdout}"
            )
    checked = len(AGENT_IDS) * len(COMMANDS)
    print(f"\n{checked} payloads parsed, judged and rendered; {invalid} schema violations")
    return 1 if invalid else 0


if __name__ == "__main__":
    sys.exit(main())
