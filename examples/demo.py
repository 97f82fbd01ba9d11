"""Demo: each host's real hook entry answers the same four calls in that host's own native signal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from agent_control_plane_core import AGENT_IDS, ToolCallEvent, adapter_for
from agent_control_plane_core.cli import bridge_line
from agent_control_plane_core.schemas import validator_for

HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent
CODEX_VERSION = "0.150.0"  # Codex payloads carry no version: the launcher pins it

# The same shell call as each host sends it (host-protocols.md; fixtures/*.json).
PAYLOADS = {
    "claude": lambda cmd: {
        "hook_event_name": "PreToolUse",
        "session_id": "s1",
        "cwd": "/work",
        "tool_name": "Bash",
        "tool_input": {"command": cmd},
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
        "tool_name": "run_shell_command",
        "tool_input": {"command": cmd},
    },
    # Amp's delegate gets the tool's parameters on stdin and the tool name in the environment.
    "amp": lambda cmd: {"cmd": cmd},
    "factory": lambda cmd: {
        "hook_event_name": "PreToolUse",
        "session_id": "f1",
        "cwd": "/work",
        "tool_name": "Execute",
        "tool_input": {"command": cmd},
    },
    "qwen": lambda cmd: {
        "hook_event_name": "PreToolUse",
        "session_id": "q1",
        "tool_name": "run_shell_command",
        "tool_input": {"command": cmd},
    },
    # The payload the shipped opencode plugin sends (hosts/opencode.json notes).
    "opencode": lambda cmd: {
        "event": "tool.execute.before",
        "sessionID": "o1",
        "cwd": "/work",
        "tool": "bash",
        "args": {"command": cmd},
    },
    "kiro": lambda cmd: {
        "hook_event_name": "preToolUse",
        "cwd": "/work",
        "tool_name": "execute_bash",
        "tool_input": {"command": cmd},
    },
    "cursor": lambda cmd: {
        "hook_event_name": "preToolUse",
        "conversation_id": "cu1",
        "cursor_version": "3.9.16",
        "tool_name": "Shell",
        "tool_input": {"command": cmd},
    },
    # Copilot CLI's camelCase form: no event name, the arguments as a JSON string.
    "copilot": lambda cmd: {
        "timestamp": 1704614600000,
        "cwd": "/work",
        "sessionId": "co1",
        "toolName": "bash",
        "toolArgs": json.dumps({"command": cmd}),
    },
}
CALLS = (("allow", "ls -la"), ("deny", "rm -rf /"), ("ask", "git push"), ("rewrite", "npm install"))


def run_entry(agent: str, payload: dict[str, Any]) -> tuple[int, str, str]:
    """Run acp-<agent>-hook as the host would and return (exit code, stdout, stderr)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACP_")}
    env.update(
        ACP_JUDGE="demo_judge:judge",
        PYTHONPATH=os.pathsep.join(filter(None, [str(HERE), env.get("PYTHONPATH")])),
        ACP_CODEX_VERSION=CODEX_VERSION,
    )
    if agent == "amp":
        env["AGENT_TOOL_NAME"] = "Bash"
    result = subprocess.run(
        [str(BIN / f"acp-{agent}-hook")],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    return result.returncode, result.stdout, result.stderr


def library_answer(agent: str, payload: dict[str, Any], judge: Any) -> dict[str, Any]:
    """The same call through acp bridge's in-process answer, judged by the same judge."""
    native = {"tool": "Bash", "input": payload} if agent == "amp" else payload  # the envelope form
    line: dict[str, Any] = {"agent": agent, "native": native}
    if agent == "codex":
        line["options"] = {"codex_version": CODEX_VERSION}
    event = ToolCallEvent.from_dict(bridge_line(json.dumps(line))["event"])
    verdict = judge(event)
    line["verdict"] = verdict if isinstance(verdict, dict) else verdict.to_dict()
    return {**bridge_line(json.dumps(line)), "verdict": line["verdict"]}


def _cell(text: str, width: int) -> str:
    text = text or "-"
    return text if len(text) <= width else text[: width - 1] + "…"


def main() -> int:
    """Print what each host receives for each call, then check it against the schemas."""
    sys.path.insert(0, str(HERE))
    from demo_judge import judge

    schemas = {name: validator_for(name) for name in ("tool-call-event", "native-response")}
    print(f"{'host':9}{'judge':9}{'command':13}{'exit':>4} {'blocks':7}{'stderr':34}stdout")
    problems = 0
    dropped = []
    for agent in AGENT_IDS:
        for label, command in CALLS:
            code, stdout, stderr = run_entry(agent, PAYLOADS[agent](command))
            # Cross-check: the library's parse, judge and render_escalated give the same answer.
            expected = library_answer(agent, PAYLOADS[agent](command), judge)
            answer = expected["escalated"]
            blocks = "yes" if answer["enforced"] else "no"
            print(
                f"{agent:9}{label:9}{command:13}{code:>4} {blocks:7}"
                f"{_cell(stderr, 32):34}{stdout or '-'}"
            )
            unrendered = adapter_for(agent).UNRENDERED_FIELDS[expected["event"]["event"]]
            lost = sorted(set(expected["verdict"]) & unrendered) if "verdict" in expected else []
            if lost:
                dropped.append(
                    f"  {agent}: {label} carried {', '.join(lost)}, which {agent} cannot receive"
                )
            same = (
                answer["exit_code"] == code
                and answer.get("stderr", "") == stderr
                and (json.loads(stdout) if stdout else None) == answer.get("stdout")
            )
            valid = schemas["tool-call-event"].is_valid(expected["event"]) and schemas[
                "native-response"
            ].is_valid(answer)
            if not (same and valid):
                problems += 1
                print(f"  MISMATCH or schema violation: {answer}")
    if dropped:
        print("\nDropped by the host's protocol (UNRENDERED_FIELDS), never silently claimed:")
        print("\n".join(dropped))
    total = len(AGENT_IDS) * len(CALLS)
    print(
        f"\n{total} calls through the real hook entries; {problems} disagreed with the library"
        " or broke a schema. Exit 2 is the block every host enforces; amp asks by exit 1."
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
