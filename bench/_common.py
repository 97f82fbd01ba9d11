"""Shared benchmark inputs: the payloads each host sends, the hook environment and statistics."""

from __future__ import annotations

import json
import os
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
FLOOR = ROOT / "bench" / "floor.py"
CODEX_VERSION = "0.150.0"  # Codex payloads carry no version: the launcher pins it

# One realistic allowed shell call per host, as the host writes it on the hook's stdin.
HOOK_PAYLOADS: dict[str, dict[str, Any]] = {
    "claude": {
        "session_id": "0b6f3b2e-6c1f-4d8e-9a57-2f1c9d0e7a11",
        "transcript_path": "/home/dev/.claude/projects/-home-dev-app/0b6f3b2e.jsonl",
        "cwd": "/home/dev/app",
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "git status --short", "description": "Show working tree status"},
    },
    "codex": {
        "session_id": "019a4c2e-5d7b-7c10-b0a4-3e9d2f6a8c41",
        "turn_id": "t-7",
        "transcript_path": "/home/dev/.codex/sessions/rollout.jsonl",
        "cwd": "/home/dev/app",
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "git status --short"},
    },
    "gemini": {
        "session_id": "g-4f2a",
        "transcript_path": "/home/dev/.gemini/tmp/chats/session.json",
        "cwd": "/home/dev/app",
        "hook_event_name": "BeforeTool",
        "timestamp": "2026-01-01T00:00:00Z",
        "tool_name": "run_shell_command",
        "tool_input": {"command": "git status --short", "description": "Show status"},
    },
    # Amp's delegate gets only the tool's parameters; the name comes in AGENT_TOOL_NAME.
    "amp": {"cmd": "git status --short"},
}


# Hosts whose pinned lab version sends another form than their golden shell call: Copilot CLI
# 1.0.102 sends toolArgs as an object (docs/findings.md CP-13), the golden call a JSON string as
# older docs show. Section 2 measures the fixture's case recorded at the lab's pinned version
# (lab/hosts.lock.json), and the golden one as a reference row.
OBSERVED_FORMS: tuple[str, ...] = ("copilot",)


def lab_version(agent: str) -> str:
    """The host version the lab pins (lab/hosts.lock.json)."""
    sys.path.insert(0, str(ROOT))
    from lab.install import lock

    version: str = lock()["hosts"][agent]["version"]
    return version


def library_payload(agent: str, *, golden: bool = False) -> dict[str, Any]:
    """The payload adapter.parse receives in process (Amp's envelope form, as the hook builds it).

    A host without a payload above gets its golden shell call, the one the demos send
    (examples/host_calls.py: its fixture's first vetoable pre_tool Bash case), running the same
    command. A host in OBSERVED_FORMS gets its case at the lab's pinned version instead, unless
    golden is set.
    """
    if agent == "amp":
        return {"tool": "Bash", "input": HOOK_PAYLOADS["amp"]}
    if agent not in HOOK_PAYLOADS:
        sys.path.insert(0, str(ROOT / "examples"))
        from host_calls import shell_call

        version = lab_version(agent) if agent in OBSERVED_FORMS and not golden else None
        command = HOOK_PAYLOADS["codex"]["tool_input"]["command"]
        payload: dict[str, Any] = shell_call(agent, command, version)
        return payload
    return HOOK_PAYLOADS[agent]


def adapter_options(agent: str) -> dict[str, Any]:
    """Options that make each adapter enforce (Codex needs the version its launcher pins)."""
    return {"codex_version": CODEX_VERSION} if agent == "codex" else {}


def hook_env() -> dict[str, str]:
    """The environment of a hook process: no ACP_* settings but the Codex version and Amp's tool."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACP_")}
    env.update(ACP_CODEX_VERSION=CODEX_VERSION, AGENT_TOOL_NAME="Bash", AMP_THREAD_ID="T-1")
    return env


def write_payloads(folder: Path) -> dict[str, Path]:
    """Write each host's hook payload to folder/<agent>.json and return the paths."""
    paths = {}
    for agent, payload in HOOK_PAYLOADS.items():
        path = folder / f"{agent}.json"
        path.write_text(json.dumps(payload), encoding="utf-8")
        paths[agent] = path
    return paths


def summary(samples: list[float]) -> dict[str, float]:
    """Median, quartiles and minimum of a list of samples."""
    ordered = sorted(samples)
    q1, _, q3 = statistics.quantiles(ordered, n=4) if len(ordered) > 1 else ordered * 3
    return {"median": statistics.median(ordered), "q1": q1, "q3": q3, "min": ordered[0]}
