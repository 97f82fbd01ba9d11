"""Null in an optional verdict field is absent in every entry (docs/contract.md §2, issue 31)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_control_plane_core import (
    AGENT_IDS,
    Verdict,
    adapter_for,
    normalize_verdict,
    sanitize_verdict,
)
from agent_control_plane_core.cli import bridge_line

from conftest import REPO
from hook_runner import NO_COVERAGE, run_hook

OPTIONAL = ("mutated_input", "mutated_output", "additional_context", "reason")
NAIVE = {"decision": "allow", **dict.fromkeys(OPTIONAL)}


def _goldens() -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """The first case of each kind per host, with its plain allow golden when it has one."""
    found = []
    for agent in AGENT_IDS:
        seen: set[str] = set()
        for case in json.loads((REPO / "fixtures" / f"{agent}.json").read_text())["cases"]:
            kind = case["event"]["event"]
            allow = case["render"].get("allow")
            if kind in seen or allow is None or allow["verdict"] != {"decision": "allow"}:
                continue
            if case.get("adapter_options") or allow.get("sole_gate"):
                continue
            seen.add(kind)
            found.append((agent, case, allow["native"]))
    return found


def test_normalize_and_sanitize_drop_every_null_field() -> None:
    assert normalize_verdict(NAIVE).to_dict() == {"decision": "allow"}
    assert sanitize_verdict(NAIVE).to_dict() == {"decision": "allow"}
    built = Verdict(decision="deny", reason="r", mutated_output=None)
    assert normalize_verdict(built).to_dict() == {"decision": "deny", "reason": "r"}


@pytest.mark.parametrize(("agent", "case", "golden"), _goldens(), ids=lambda v: str(v)[:40])
def test_a_naive_all_null_verdict_renders_as_the_plain_allow(
    agent: str, case: dict[str, Any], golden: dict[str, Any]
) -> None:
    adapter = adapter_for(agent)
    event = adapter.parse(case["native"])
    naive = Verdict(decision="allow", **dict.fromkeys(OPTIONAL))  # type: ignore[arg-type]
    assert adapter.render(naive, event).to_dict() == golden
    answer = bridge_line(json.dumps({"agent": agent, "native": case["native"], "verdict": NAIVE}))
    assert answer["render"] == answer["escalated"] == golden
    assert answer["unrendered"] == []


def test_the_hook_entry_answers_a_naive_null_verdict_as_a_plain_allow(tmp_path: Path) -> None:
    (tmp_path / "naive_judge.py").write_text(
        "def judge(event):\n"
        "    return {'decision': 'allow', 'mutated_output': None, 'mutated_input': None}\n"
    )
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
    }
    run = run_hook(
        "claude",
        payload,
        ACP_JUDGE="naive_judge:judge",
        PYTHONPATH=str(tmp_path),
        **NO_COVERAGE,
    )
    assert run.code == 0, run.stderr
    assert run.body() == {"hookSpecificOutput": {"hookEventName": "PreToolUse"}}


@pytest.mark.parametrize(
    ("change", "what"),
    [
        (lambda e: e["meta"].pop("native_tool"), "a tool without meta.native_tool"),
        (lambda e: e.update(tool=None), "meta.native_tool without a tool"),
        (lambda e: e.update(response=None), "a result on pre_tool"),
    ],
)
def test_the_event_schema_encodes_the_native_tool_and_response_rules(
    change: Any, what: str
) -> None:
    from agent_control_plane_core.schemas import validator_for

    event = json.loads((REPO / "fixtures" / "claude.json").read_text())["cases"][0]["event"]
    assert validator_for("tool-call-event").is_valid(event)
    change(event)
    assert not validator_for("tool-call-event").is_valid(event), what
