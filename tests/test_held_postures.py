"""Held attack docs/findings.md HELD-DEFAULT: the default posture (no
ACP_FAIL_CLOSED) of every host for bad JSON, a raising judge and a 300 ms deadline against a 10 s
judge is what the host's declaration says, as docs/reliability.md's fault table shows it."""

from __future__ import annotations

import json

import pytest

from agent_control_plane_core import AGENT_IDS
from agent_control_plane_core._model_base import ABSENT
from agent_control_plane_core.runtime import entry_adapter, failure_response

from hook_runner import PRE_TOOL, hook_env, run_hook

# (raw stdin or None for the host's pre-tool call of `ls`, judge in hook_judges.py, environment)
FAULTS = {
    "bad JSON": (b"{not json", None, {}),
    "judge raises": (None, "raises", {}),
    "300 ms deadline, 10 s judge": (None, "sleeps_ten", {"ACP_HOOK_TIMEOUT_MS": "300"}),
}


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("agent", AGENT_IDS)
def test_held_default_posture_is_the_declared_failure_answer(agent: str, fault: str) -> None:
    raw, judge, env = FAULTS[fault]
    if agent == "amp":
        env = {**env, "AGENT_TOOL_NAME": "Bash"}
    # The failure answer hosts/<agent>.json declares, as tools/fault_table.py's cells show it.
    expected = failure_response(
        entry_adapter(agent, hook_env(agent, **env)), "x", fail_closed=False
    )
    ls = json.loads(json.dumps(PRE_TOOL[agent]).replace("rm -rf /", "ls"))
    run = run_hook(agent, ls, raw=raw, judge=judge, **env)
    assert run.code == expected.exit_code
    if expected.stdout is ABSENT:
        assert run.stdout == b""  # no body a host could read as a decision
    else:
        assert run.body() == expected.stdout  # the declared failure body (copilot's deny)
    assert "set ACP_FAIL_CLOSED=1 to block instead" in run.stderr
