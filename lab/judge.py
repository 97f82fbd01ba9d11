"""The judge every lab scenario installs: it answers what the scenario file asks, per event kind."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

from agent_control_plane_core import Decisions

# The scenario file is found through the environment the host gives its hooks, else under HOME:
# Gemini CLI strips unknown variables from hook processes when GITHUB_SHA is set (GM-3).
SCENARIO_ENV = "ACP_LAB_SCENARIO"


class LabJudgeCrash(RuntimeError):
    """The crash a scenario asks the judge for."""


def _scenario_path() -> Path:
    named = os.environ.get(SCENARIO_ENV)
    if named:
        return Path(named)
    return Path(os.environ.get("HOME", "/nonexistent")) / ".acp-lab" / "scenario.json"


def _record(folder: str, event: Any) -> None:
    """Keep the event the hook handed to the judge, as evidence of which hook calls happened."""
    target = Path(folder)
    target.mkdir(parents=True, exist_ok=True)
    name = f"judge-{time.time_ns()}-{os.getpid()}.json"
    (target / name).write_text(json.dumps(event.to_dict(), default=str), encoding="utf-8")


def _command_line(pid: int) -> bytes:
    """The command line of a process (empty when it cannot be read)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as found:
            return found.read()
    except OSError:
        return b""


def _kill_supervisor() -> None:
    """SIGKILL the hook process that forked this judge's process, if one did (ACP_FAIL_CLOSED)."""
    # The fail-closed entry runs the judge in a forked child, whose command line is its parent's;
    # an unsupervised judge's parent is the lab's tap (another program), which must live.
    parent = os.getppid()
    mine = _command_line(os.getpid())
    if mine and _command_line(parent) == mine:
        os.kill(parent, signal.SIGKILL)


def judge(event: Any) -> dict[str, Any]:
    """Answer the scenario's verdict for this event kind; allow everything the scenario leaves out."""
    scenario = json.loads(_scenario_path().read_text(encoding="utf-8"))
    if scenario.get("record"):
        _record(scenario["record"], event)
    if scenario.get("sleep_s") and event.event == scenario.get("on_kind", event.event):
        time.sleep(float(scenario["sleep_s"]))
    if scenario.get("crash") and event.event == scenario.get("on_kind", event.event):
        raise LabJudgeCrash("the lab scenario asked this judge to crash")
    if scenario.get("kill") and event.event == scenario.get("on_kind", event.event):
        if scenario["kill"] == "hook":
            _kill_supervisor()
        # A death no handler in this process can catch: unsupervised, only the host's own failure
        # posture decides the call (CC-10); supervised (fail-closed), the hook answers for it.
        os.kill(os.getpid(), signal.SIGKILL)
    verdict: dict[str, Any] = scenario.get("verdicts", {}).get(event.event) or {
        "decision": Decisions.ALLOW
    }
    return verdict
