"""Runs the installed hook console scripts as the host would: payload on stdin, clean environment."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_control_plane_core import AGENT_IDS, adapter_for

TESTS_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(TESTS_DIR.parent / "examples"))
from host_calls import shell_call  # noqa: E402

BIN = Path(sys.executable).parent
# An enforcing Codex version: payloads carry none, so the launcher's pin decides.
CODEX_VERSION = "0.150.0"
# Below 1.0.70, where the deny body at exit 0 is the block (hosts/copilot.json version_facts).
COPILOT_VERSION = "1.0.65"

# One vetoable pre-tool shell call per host, from its golden fixture file (examples/host_calls.py).
PRE_TOOL: dict[str, Any] = {agent: shell_call(agent, "rm -rf /") for agent in AGENT_IDS}
# Per-host facts from the declarations (hosts/<agent>.json), so a new host needs no edit here.
_ADAPTERS = {agent: adapter_for(agent) for agent in AGENT_IDS}
# The exit code each host's entry gives when the hook itself fails (failure_response).
FAILURE_EXIT = {agent: adapter.FAILURE_EXIT_CODE for agent, adapter in _ADAPTERS.items()}
# Hosts whose failed hook answers with a deny body (failure_response.stdout).
FAILURE_DENIES = tuple(agent for agent, a in _ADAPTERS.items() if a.FAILURE_STDOUT is not None)
# The exit code that blocks on each host (block_response; exit 2 unless declared).
BLOCK_EXIT = {agent: adapter.BLOCK_EXIT_CODE for agent, adapter in _ADAPTERS.items()}
# Hosts whose native protocol has an ask tier (native_ask_tier).
ASK_TIER = {agent: adapter.NATIVE_ASK_TIER for agent, adapter in _ADAPTERS.items()}
# Hosts whose enforced deny is the body at exit 0 when no version is configured (exit_zero_block).
BODY_BLOCKS = tuple(agent for agent, a in _ADAPTERS.items() if getattr(a, "EXIT_ZERO_BLOCK", False))


@dataclass
class HookRun:
    """What the host saw: exit code, stdout bytes, stderr text."""

    code: int
    stdout: bytes
    stderr: str

    def body(self) -> Any:
        """The stdout body parsed as JSON (fails the test when it is not JSON)."""
        return json.loads(self.stdout)


# Uninstrumented child: coverage's subprocess hook (make test runs under coverage) starts only when
# this holds a configuration. Its os._exit patch saves data, through SQLite, before the exit, and
# it imports modules the hook itself never does.
NO_COVERAGE: dict[str, str] = {"COVERAGE_PROCESS_CONFIG": ""}


def hook_env(agent: str, judge: str | None = None, **extra: str) -> dict[str, str]:
    """A clean environment for one hook run: no inherited ACP_ or Amp variables."""
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("ACP_", "AGENT_TOOL_NAME", "AMP_"))
    }
    env["PYTHONPATH"] = str(TESTS_DIR)
    if agent == "codex":
        env["ACP_CODEX_VERSION"] = CODEX_VERSION
    if agent == "copilot":
        env["ACP_COPILOT_VERSION"] = COPILOT_VERSION
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
