"""Runs the installed hook console scripts as the host would: payload on stdin, clean environment."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TESTS_DIR = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent
# An enforcing Codex version: payloads carry none, so the launcher's pin decides (seed: Usage).
CODEX_VERSION = "0.150.0"

# One vetoable pre-tool shell call per host, as each host sends it (fixtures/*.json).
PRE_TOOL: dict[str, dict[str, Any]] = {
    "claude": {
        "hook_event_name": "PreToolUse",
        "session_id": "s1",
        "tool_name": "Bash",
        "tool_input": {"command": "rm -rf /"},
    },
    "codex": {
        "hook_event_name": "PreToolUse",
        "session_id": "c1",
        "tool_name": "Bash",
        "tool_input": {"command": "rm -rf /"},
    },
    "gemini": {
        "hook_event_name": "BeforeTool",
        "session_id": "g1",
        "tool_name": "run_shell_command",
        "tool_input": {"command": "rm -rf /"},
    },
    "amp": {"tool": "Bash", "input": {"cmd": "rm -rf /"}},
    "cursor": {
        "hook_event_name": "preToolUse",
        "conversation_id": "cu1",
        "tool_name": "Shell",
        "tool_input": {"command": "rm -rf /"},
    },
    "copilot": {
        "timestamp": 1704614600000,
        "sessionId": "co1",
        "toolName": "bash",
        "toolArgs": '{"command": "rm -rf /"}',
    },
    "factory": {
        "hook_event_name": "PreToolUse",
        "session_id": "f1",
        "tool_name": "Execute",
        "tool_input": {"command": "rm -rf /"},
    },
    "qwen": {
        "hook_event_name": "PreToolUse",
        "session_id": "q1",
        "tool_name": "run_shell_command",
        "tool_input": {"command": "rm -rf /"},
    },
    "kiro": {
        "hook_event_name": "preToolUse",
        "cwd": "/w",
        "tool_name": "execute_bash",
        "tool_input": {"command": "rm -rf /"},
    },
    "auggie": {
        "hook_event_name": "PreToolUse",
        "session_id": "a1",
        "tool_name": "launch-process",
        "tool_input": {"command": "rm -rf /", "wait": True},
    },
    "crush": {
        "event": "PreToolUse",
        "session_id": "cr1",
        "tool_name": "bash",
        "tool_input": {"command": "rm -rf /"},
    },
    "windsurf": {
        "agent_action_name": "pre_run_command",
        "trajectory_id": "w1",
        "tool_info": {"command_line": "rm -rf /", "cwd": "/w"},
    },
    "cline": {
        "hookName": "PreToolUse",
        "taskId": "cl1",
        "preToolUse": {"toolName": "execute_command", "parameters": {"command": "rm -rf /"}},
    },
    # The shipped plugin's own payload (templates/opencode/agent-control-plane.js.j2).
    "opencode": {
        "event": "tool.execute.before",
        "sessionID": "o1",
        "callID": "call_1",
        "tool": "bash",
        "args": {"command": "rm -rf /"},
    },
}
# The exit code each host's entry gives when the hook itself fails (contract.md §7).
FAILURE_EXIT = {
    "claude": 0,
    "codex": 0,
    "gemini": 0,
    "amp": 1,
    "cursor": 0,  # no body: Cursor's own failClosed setting decides
    "copilot": 2,  # preToolUse fails closed: the deny body at exit 2
    "factory": 0,
    "qwen": 0,
    "kiro": 0,
    "auggie": 0,
    "crush": 0,
    "cline": 0,
    "windsurf": 0,
    "opencode": 0,  # the plugin logs the diagnostic and the call runs
}
# Hosts whose failed hook answers with a deny body (hosts/<agent>.json failure_response).
FAILURE_DENIES = ("copilot",)
# Hosts whose native protocol has an ask tier (contract.md §4 table).
ASK_TIER = {
    "claude": True,
    "codex": False,
    "gemini": False,
    "amp": False,  # AMP-3: exit 1 may run unattended in execute mode, so asks are escalated
    "cursor": False,
    "copilot": True,
    "factory": False,  # droid exec ignores a hook ask (FD-1)
    "qwen": True,
    "kiro": False,
    "auggie": True,
    "crush": False,
    "cline": False,
    "windsurf": False,
    "opencode": False,
}


@dataclass
class HookRun:
    """What the host saw: exit code, stdout bytes, stderr text."""

    code: int
    stdout: bytes
    stderr: str

    def body(self) -> Any:
        """The stdout body parsed as JSON (fails the test when it is not JSON)."""
        return json.loads(self.stdout)


def hook_env(agent: str, judge: str | None = None, **extra: str) -> dict[str, str]:
    """A clean environment for one hook run: no inherited ACP_ or Amp variables."""
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("ACP_", "AGENT_TOOL_NAME", "AMP_"))
    }
    env["PYTHONPATH"] = str(TESTS_DIR)
    if agent == "codex":
        env["ACP_CODEX_VERSION"] = CODEX_VERSION
    if judge is not None:
        env["ACP_JUDGE"] = f"hook_judges:{judge}"
    env.update(extra)
    return {k: v for k, v in env.items() if v != ""}


def run_hook(
    agent: str,
    payload: Any = None,
    *,
    raw: bytes | None = None,
    judge: str | None = None,
    argv: list[str] | None = None,
    **env: str,
) -> HookRun:
    """Run acp-<agent>-hook (or argv) with the payload on stdin and return what it wrote."""
    stdin = (
        raw
        if raw is not None
        else json.dumps(PRE_TOOL[agent] if payload is None else payload).encode()
    )
    command = argv or [str(BIN / f"acp-{agent}-hook")]
    result = subprocess.run(
        command, input=stdin, capture_output=True, env=hook_env(agent, judge, **env), timeout=60
    )
    return HookRun(result.returncode, result.stdout, result.stderr.decode("utf-8", "replace"))
