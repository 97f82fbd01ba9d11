"""The audit log: one whole JSON line per hook call, even with many writers, and its summary."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_control_plane_core import AGENT_IDS, Verdict, adapter_for
from agent_control_plane_core.audit import append_hook_record, append_line, summarize
from agent_control_plane_core.cli import main
from agent_control_plane_core.schemas import validator_for

from hook_runner import PRE_TOOL, run_hook

WRITERS = 20
LINES_PER_WRITER = 200
# Lines well over PIPE_BUF (4096): atomicity must not rest on the pipe guarantee.
PADDING = 9000

WRITER = """
import sys
from agent_control_plane_core.audit import append_line
path, writer, lines, padding = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
for n in range(lines):
    append_line(path, {"writer": writer, "n": n, "pad": chr(0x41 + writer) * padding})
"""


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_twenty_processes_appending_at_once_leave_only_whole_lines(tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(log), str(w), str(LINES_PER_WRITER), str(PADDING)]
        )
        for w in range(WRITERS)
    ]
    assert [writer.wait(timeout=120) for writer in writers] == [0] * WRITERS
    data = log.read_bytes()
    assert data.endswith(b"\n")
    lines = data.split(b"\n")[:-1]
    assert len(lines) == WRITERS * LINES_PER_WRITER
    seen: dict[int, list[int]] = {}
    for line in lines:
        record = json.loads(line)  # a torn or interleaved line fails to parse here
        assert record["pad"] == chr(0x41 + record["writer"]) * PADDING
        seen.setdefault(record["writer"], []).append(record["n"])
    # Every writer's lines are all there, once each, in the order that writer wrote them.
    assert seen == {w: list(range(LINES_PER_WRITER)) for w in range(WRITERS)}


def test_a_record_holds_the_call_and_validates_against_the_published_schema(
    tmp_path: Path,
) -> None:
    adapter = adapter_for("claude")
    event = adapter.parse(PRE_TOOL["claude"])
    verdict = Verdict(decision="deny", reason="no")
    response = adapter.render(verdict, event)
    log = tmp_path / "a.jsonl"
    for args in ((event, verdict), (None, None)):
        append_hook_record(
            str(log),
            agent="claude",
            event=args[0],
            verdict=args[1],
            response=response,
            duration_ms=12.34567,
        )
    first, failed = _records(log)
    assert list(first) == [
        "time",
        "agent",
        "event",
        "verdict",
        "exit_code",
        "enforced",
        "duration_ms",
    ]
    assert first["event"] == event.to_dict() and first["verdict"] == verdict.to_dict()
    assert (first["exit_code"], first["enforced"], first["duration_ms"]) == (2, True, 12.346)
    assert first["time"].endswith("Z") and first["time"][10] == "T"
    assert failed["event"] is None and failed["verdict"] is None
    validator = validator_for("audit-record")
    assert validator.is_valid(first) and validator.is_valid(failed)
    assert not validator.is_valid({**first, "extra": 1})
    # The log holds tool inputs and outputs: only its owner may read it.
    assert stat.S_IMODE(os.stat(log).st_mode) == 0o600


def test_a_lone_surrogate_is_escaped_so_the_line_is_still_written(tmp_path: Path) -> None:
    log = tmp_path / "s.jsonl"
    append_line(str(log), {"text": "\ud800"})
    assert log.read_bytes() == b'{"text":"\\ud800"}\n'


@pytest.mark.parametrize("agent", AGENT_IDS)
def test_every_hook_call_is_one_audit_line_with_the_same_exit_code(
    agent: str, tmp_path: Path
) -> None:
    log = tmp_path / "audit.jsonl"
    run = run_hook(agent, ACP_AUDIT_LOG=str(log))
    failed = run_hook(agent, raw=b"not json", ACP_AUDIT_LOG=str(log))
    deny, failure = _records(log)
    assert (deny["agent"], deny["exit_code"], deny["enforced"]) == (agent, run.code, True)
    assert deny["verdict"] == {"decision": "deny", "reason": "demo policy: rm -rf blocked"}
    assert deny["event"]["meta"]["agent"] == agent
    assert (failure["event"], failure["verdict"], failure["exit_code"]) == (None, None, failed.code)
    assert deny["duration_ms"] > 0


@pytest.mark.parametrize("agent", AGENT_IDS)
def test_a_log_that_cannot_be_written_never_changes_the_decision(
    agent: str, tmp_path: Path
) -> None:
    unwritable = tmp_path / "no-such-dir" / "audit.jsonl"
    plain = run_hook(agent)
    audited = run_hook(agent, ACP_AUDIT_LOG=str(unwritable))
    assert (audited.code, audited.stdout) == (plain.code, plain.stdout)
    # The block reason comes first and whole; the diagnostic is a later line of its own.
    assert audited.stderr.startswith(plain.stderr + "\n")
    assert f"audit log {str(unwritable)!r} not written" in audited.stderr


def test_a_redacted_output_is_logged_redacted(tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    payload = {
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "env"},
        "tool_response": {"stdout": "KEY=AKIAABCDEFGHIJKLMNOP"},
    }
    run = run_hook("claude", payload, judge="redacts", ACP_AUDIT_LOG=str(log))
    assert run.code == 0
    assert "AKIA" not in log.read_text()
    (record,) = _records(log)
    assert record["event"]["response"] == "[redacted]"


def test_a_call_answered_at_the_deadline_is_audited_once(tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    run = run_hook("claude", judge="spins", ACP_HOOK_TIMEOUT_MS="300", ACP_AUDIT_LOG=str(log))
    (record,) = _records(log)
    assert (record["exit_code"], record["verdict"]) == (run.code, None)
    assert record["duration_ms"] < 5000  # written at the deadline, not when the judge finished


def _write_log(path: Path) -> None:
    rows = [
        ("claude", "Bash", "deny", 5.0),
        ("claude", "Read", "allow", 50.0),
        ("codex", "Bash", "deny", 7.5),
        ("gemini", None, None, 1.0),
    ]
    with path.open("w", encoding="utf-8") as log:
        for agent, tool, decision, ms in rows:
            event = None if tool is None else {"event": "pre_tool", "tool": tool}
            verdict = None if decision is None else {"decision": decision}
            record = {
                "time": "2026-11-30T00:00:00.000Z",
                "agent": agent,
                "event": event,
                "verdict": verdict,
                "exit_code": 2 if decision == "deny" else 0,
                "enforced": decision == "deny",
                "duration_ms": ms,
            }
            log.write(json.dumps(record) + "\n")
        log.write("{torn\n\n")


def test_summary_counts_by_agent_tool_and_decision_and_lists_the_slowest(tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    _write_log(log)
    text = summarize(log.read_text(encoding="utf-8").splitlines(), slowest=2)
    lines = text.splitlines()
    assert lines[0] == "4 call(s), 1 line(s) not audit records"
    by = {}
    section = ""
    for line in lines[1:]:
        if not line.startswith(" "):
            section = line
            by[section] = {}
        elif section.startswith("by "):
            key, count = line.split()[0:-1], line.split()[-1]
            by[section][" ".join(key)] = int(count)
    assert by["by agent:"] == {"claude": 2, "codex": 1, "gemini": 1}
    assert by["by tool:"] == {"Bash": 2, "Read": 1, "-": 1}
    assert by["by decision:"] == {"allow": 1, "deny": 2, "(no verdict)": 1}
    slow = lines[lines.index("slowest 2:") + 1 :]
    assert len(slow) == 2
    assert "50.0 ms" in slow[0] and "claude pre_tool Read -> allow exit 0" in slow[0]
    assert "7.5 ms" in slow[1] and "codex" in slow[1]


def test_acp_audit_prints_the_summary_and_refuses_a_missing_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "audit.jsonl"
    _write_log(log)
    assert main(["audit", str(log)]) == 0
    assert capsys.readouterr().out.startswith("4 call(s)")
    assert main(["audit", str(tmp_path / "missing.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err
