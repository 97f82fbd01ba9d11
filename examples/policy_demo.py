"""Demo: one policy file enforced on four hosts through the real hook entries, then the audit log."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_control_plane_core import AGENT_IDS
from agent_control_plane_core._generated.constants import (
    MODELED_TOOL_INPUT_KEYS,
    AuditRecordFields,
    ToolCallEventFields,
    VerdictFields,
)

HERE = Path(__file__).resolve().parent
POLICY = HERE / "policy.toml"
BIN = Path(sys.executable).parent  # the console scripts sit beside the interpreter
# An access key id in the documented example format (AKIA + 16 upper-case letters or digits).
KEY = "AKIAIOSFODNN7EXAMPLE"
OUTPUT = f"[default]\naws_access_key_id = {KEY}\n"

Payload = Callable[[str], tuple[dict[str, Any], dict[str, str]]]
# Claude-compatible hosts whose shell tool has its own name (hosts/<agent>.json tool_aliases).
_SHELL_TOOL = {"factory": "Execute", "qwen": "run_shell_command"}


def _pre(agent: str, command: str) -> tuple[dict[str, Any], dict[str, str]]:
    """One shell command before it runs, as each host sends it (fixtures/<agent>.json shapes)."""
    if agent == "amp":
        # Amp's delegate: the parameters on stdin, the tool name in the environment.
        return {"cmd": command}, {"AGENT_TOOL_NAME": "Bash", "AMP_THREAD_ID": "T-demo"}
    if agent == "gemini":
        native = {"hook_event_name": "BeforeTool", "tool_name": "run_shell_command"}
        return {**native, "session_id": "g1", "tool_input": {"command": command}}, {}
    if agent == "kiro":
        native = {"hook_event_name": "preToolUse", "tool_name": "execute_bash", "cwd": "/work"}
        return {**native, "tool_input": {"command": command}}, {}
    if agent == "cursor":
        native = {"hook_event_name": "preToolUse", "tool_name": "Shell", "cwd": "/work"}
        return {**native, "tool_input": {"command": command}}, {}
    if agent == "copilot":
        # camelCase form: no event name, the arguments as a JSON string.
        native = {"timestamp": 1, "sessionId": "co-1", "toolName": "bash"}
        return {**native, "toolArgs": json.dumps({"command": command})}, {}
    if agent == "opencode":
        # The payload the shipped opencode plugin sends (hosts/opencode.json notes).
        native = {"event": "tool.execute.before", "tool": "bash", "sessionID": "oc-1"}
        return {**native, "args": {"command": command}, "cwd": "/work"}, {}
    tool = _SHELL_TOOL.get(agent, "Bash")
    native = {"hook_event_name": "PreToolUse", "tool_name": tool, "session_id": f"{agent}-1"}
    return {**native, "tool_input": {"command": command}}, {}


def _post(agent: str, command: str) -> tuple[dict[str, Any], dict[str, str]] | None:
    """The same command after it ran, with its output; None where the host has no such event."""
    tool_input = {"command": command}
    if agent == "claude":
        response: Any = {"stdout": OUTPUT, "stderr": "", "interrupted": False, "isImage": False}
        event, tool = "PostToolUse", "Bash"
    elif agent == "codex":
        response, event, tool = OUTPUT, "PostToolUse", "Bash"
    elif agent == "gemini":
        response = {"llmContent": OUTPUT, "returnDisplay": OUTPUT, "error": None}
        event, tool = "AfterTool", "run_shell_command"
    elif agent in _SHELL_TOOL:
        response, event, tool = {"output": OUTPUT}, "PostToolUse", _SHELL_TOOL[agent]
    elif agent == "kiro":
        response = {"exit_status": "0", "stdout": OUTPUT}
        native = {"hook_event_name": "postToolUse", "tool_name": "execute_bash", "cwd": "/work"}
        return {**native, "tool_input": tool_input, "tool_response": response}, {}
    elif agent == "cursor":
        native = {"hook_event_name": "postToolUse", "tool_name": "Shell", "cwd": "/work"}
        return {**native, "tool_input": tool_input, "tool_output": OUTPUT}, {}
    elif agent == "copilot":
        native = {"timestamp": 2, "sessionId": "co-1", "toolName": "bash"}
        result = {"resultType": "success", "textResultForLlm": OUTPUT}
        return {**native, "toolArgs": json.dumps(tool_input), "toolResult": result}, {}
    elif agent == "opencode":
        native = {
            "event": "tool.execute.after",
            "tool": "bash",
            "sessionID": "oc-1",
            "cwd": "/work",
        }
        return {**native, "args": tool_input, "output": OUTPUT}, {}
    else:
        return None  # amp's delegate runs before a tool only
    native = {"hook_event_name": event, "tool_name": tool, "session_id": f"{agent}-1"}
    return {**native, "tool_input": tool_input, "tool_response": response}, {}


CALLS: tuple[tuple[str, Callable[[str], tuple[dict[str, Any], dict[str, str]] | None]], ...] = (
    ("rm -rf", lambda agent: _pre(agent, "rm -rf /tmp/build")),
    ("git push", lambda agent: _pre(agent, "git push origin main")),
    ("AKIA output", lambda agent: _post(agent, "cat ~/.aws/credentials")),
    ("ls", lambda agent: _pre(agent, "ls -la")),
)


def _short(text: str, width: int = 100) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def main() -> int:
    """Run every call through every host's hook entry and print the answers and the audit summary."""
    with tempfile.TemporaryDirectory() as tmp:
        log = str(Path(tmp) / "audit.jsonl")
        env = {
            **os.environ,
            "ACP_POLICY": str(POLICY),
            "ACP_CODEX_VERSION": "0.150.0",
            "ACP_AUDIT_LOG": log,
        }
        print(f"policy: {POLICY.relative_to(HERE.parent)}    codex version: 0.150.0\n")
        print(f"{'call':12} {'host':7} {'exit':>4}")
        for label, build in CALLS:
            for agent in AGENT_IDS:
                call = build(agent)
                if call is None:
                    print(f"{label:12} {agent:7}    -  (amp has no post_tool event)")
                    continue
                native, extra_env = call
                result = subprocess.run(
                    [str(BIN / f"acp-{agent}-hook")],
                    input=json.dumps(native),
                    capture_output=True,
                    text=True,
                    env={**env, **extra_env},
                    check=False,
                )
                print(f"{label:12} {agent:7} {result.returncode:>4}")
                for name, text in (("stdout", result.stdout), ("stderr", result.stderr)):
                    if text:
                        print(f"{'':25} {name}: {_short(text)}")
            print()
        summary = subprocess.run(
            [str(BIN / "acp"), "audit", log], capture_output=True, text=True, check=True
        )
        print("acp audit:\n" + summary.stdout)
        return _same_decisions(Path(log))


def _same_decisions(log: Path) -> int:
    """Print the judge decision each host's call got, read back from the audit log."""
    table: dict[tuple[str, str], dict[str, str]] = {}
    lines = log.read_text(encoding="utf-8").splitlines()
    for line in lines:
        record = json.loads(line)
        event = record[AuditRecordFields.EVENT]
        verdict = record[AuditRecordFields.VERDICT] or {}
        # The same call differs only in its host: key it by kind and the command it ran.
        command = event[ToolCallEventFields.INPUT].get(MODELED_TOOL_INPUT_KEYS["Bash"], "")
        row = table.setdefault((event[ToolCallEventFields.EVENT], command), {})
        row[record[AuditRecordFields.AGENT]] = str(verdict.get(VerdictFields.DECISION))
    print(f"judge decisions in the audit log ({len(lines)} lines):")
    print(f"  {'event':9} {'command':24} " + " ".join(f"{agent:7}" for agent in AGENT_IDS).rstrip())
    split = 0
    for (kind, command), row in table.items():
        cells = " ".join(f"{row.get(agent, '-'):7}" for agent in AGENT_IDS)
        print(f"  {kind:9} {command:24} {cells}".rstrip())
        # Only a rewrite may split: allow where it reaches the host, deny (on_unrendered) elsewhere.
        split += kind != "post_tool" and len(set(row.values())) > 1
    return 1 if split else 0


if __name__ == "__main__":
    sys.exit(main())
