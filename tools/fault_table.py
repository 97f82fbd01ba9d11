"""Print docs/reliability.md's fault table by running every hook entry on every fault.

Usage: tools/fault_table.py   (run with the venv's python; prints Markdown)
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from agent_control_plane_core import AGENT_IDS

from hook_runner import PRE_TOOL, run_hook

# fault -> (raw stdin or None for the host's pre-tool payload, judge in tests/hook_judges.py, env)
FAULTS: dict[str, tuple[bytes | None, str | None, dict[str, str]]] = {
    "bad JSON": (b"{not json", None, {}),
    "non-object payload": (b"[1, 2]", None, {}),
    "judge raises": (None, "raises", {}),
    "judge returns None": (None, "returns_none", {}),
    "judge mapping without `decision`": (None, "returns_nameless", {}),
    "`ACP_JUDGE` unimportable": (None, None, {"ACP_JUDGE": "no_such_module:judge"}),
    "deadline passes": (None, "sleeps", {"ACP_HOOK_TIMEOUT_MS": "300"}),
    "invalid decision (clamped to ask, not a failure)": (None, "returns_bad_decision", {}),
    "stdin not UTF-8": (b'{"tool_name": "\xff"}', None, {}),
    "unknown verdict field (`mutated_ouput`)": (None, "typo_redact", {}),
    "verdict holds NaN": (None, "nan_rewrite", {}),
    "relative `ACP_POLICY`": (None, None, {"ACP_POLICY": "policy.toml"}),
    "judge leaves a child holding the pipes": (None, "bg_child_deny", {}),
    "audit log is a FIFO": (None, None, {"ACP_AUDIT_LOG": "{fifo}"}),
    "judge rewrites the command": (None, "rewrites", {}),
    "judge stuck in a catastrophic regex, deadline passes": (
        None,
        "redos_then_allow",
        {"ACP_HOOK_TIMEOUT_MS": "300"},
    ),
    "judge killed by a signal (SIGSEGV)": (None, "overflows_c_stack", {}),
}


def cell(agent: str, raw: bytes | None, judge: str | None, env: dict[str, str]) -> str:
    """What the host sees: the exit code and whether a body was printed."""
    payload = json.loads(json.dumps(PRE_TOOL[agent]).replace("rm -rf /", "ls"))
    env = {key: value.replace("{fifo}", FIFO) for key, value in env.items()}
    if agent == "amp":
        env.setdefault("AGENT_TOOL_NAME", "Bash")
    run = run_hook(agent, payload, raw=raw, judge=judge, **env)
    body = ", body" if run.stdout else ""
    return f"exit {run.code}{body}"


FIFO = str(Path(tempfile.mkdtemp()) / "audit.fifo")


def main() -> int:
    """Print one row per host: each fault under the default posture / under ACP_FAIL_CLOSED=1."""
    os.mkfifo(FIFO)
    print("| host | " + " | ".join(FAULTS) + " |")
    print("|---" * (len(FAULTS) + 1) + "|")
    for agent in AGENT_IDS:
        cells = []
        for raw, judge, env in FAULTS.values():
            default = cell(agent, raw, judge, env)
            closed = cell(agent, raw, judge, {**env, "ACP_FAIL_CLOSED": "1"})
            cells.append(f"{default} / {closed}")
        print(f"| {agent} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
