"""The factory adapter passes the conformance kit on its golden fixtures."""

from __future__ import annotations

import json

import pytest

from agent_control_plane_core import Verdict, adapter_for, assert_conforms
from agent_control_plane_core.runtime import render_escalated

from conftest import FIXTURES_DIR


def test_factory_adapter_conforms_to_its_fixtures() -> None:
    report = assert_conforms(adapter_for("factory"), FIXTURES_DIR / "factory.json")
    assert report.scenarios > 0


PRE = {
    "hook_event_name": "PreToolUse",
    "tool_name": "Execute",
    "tool_input": {
        "command": "npm publish",
        "summary": "s",
        "riskLevel": "low",
        "riskLevelReason": "r",
    },
}


def test_an_ask_escalates_to_the_enforced_deny() -> None:
    adapter = adapter_for("factory")
    event = adapter.parse(PRE)
    response = render_escalated(adapter, Verdict(decision="ask", reason="confirm"), event)
    # droid exec runs an asked call unattended (FD-1).
    assert (response.exit_code, response.enforced, response.stderr) == (2, True, "confirm")
    assert "ask" not in json.dumps(response.to_dict())


def test_a_rewrite_goes_alone_and_never_asks() -> None:
    adapter = adapter_for("factory")
    event = adapter.parse(PRE)
    verdict = Verdict(decision="allow", mutated_input={"command": "npm publish --dry-run"})
    out = render_escalated(adapter, verdict, event).stdout["hookSpecificOutput"]
    # Beside ask Droid drops updatedInput and runs the original (FD-2).
    assert "permissionDecision" not in out
    assert out["updatedInput"] == {"command": "npm publish --dry-run"}


@pytest.mark.parametrize("native", ["UserPromptSubmit", "PostToolUse"])
def test_prompt_and_post_tool_denies_never_claim_a_block(native: str) -> None:
    adapter = adapter_for("factory")
    payload = {**PRE, "hook_event_name": native, "prompt": "deploy", "tool_response": "ok"}
    event = adapter.parse(payload)
    response = render_escalated(adapter, Verdict(decision="deny", reason="no"), event)
    # droid exec never calls UserPromptSubmit (FD-4); PostToolUse runs after the tool (FD-5).
    assert not event.this_call_vetoable
    assert (response.exit_code, response.enforced) == (0, False)


def test_mcp_calls_are_covered() -> None:
    adapter = adapter_for("factory")
    event = adapter.parse({**PRE, "tool_name": "mcp__github__create_issue", "tool_input": {}})
    assert event.this_call_vetoable
    assert adapter.render(Verdict(decision="deny", reason="no"), event).enforced


@pytest.mark.parametrize(
    ("patch", "tool", "paths"),
    [
        ("*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** End Patch", "Edit", ["a.py"]),
        (
            "*** Begin Patch\n*** Add File: a.py\n+x\n*** Add File: b.py\n+y\n",
            "Write",
            ["a.py", "b.py"],
        ),
        ("*** Delete File: old.py\n", "Edit", ["old.py"]),
        ("*** Update File: a.py\n*** Move to: b.py\n", "Edit", ["a.py", "b.py"]),
        ("no headers", "ApplyPatch", []),
    ],
)
def test_apply_patch_takes_its_paths_from_the_patch_headers(
    patch: str, tool: str, paths: list[str]
) -> None:
    adapter = adapter_for("factory")
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": "ApplyPatch",
        "tool_input": {"input": patch},
    }
    event = adapter.parse(payload)
    assert event.tool == tool
    assert event.input["input"] == patch  # the patch itself is kept
    assert event.input.get("file_path") == (paths[0] if paths else None)
    assert event.input.get("file_paths") == (paths if len(paths) > 1 else None)
    assert payload["tool_input"] == {"input": patch}  # the caller's payload is not edited


def test_an_apply_patch_file_path_sent_by_the_host_wins() -> None:
    adapter = adapter_for("factory")
    tool_input = {"input": "*** Update File: a.py\n", "file_path": "z.py"}
    event = adapter.parse(
        {"hook_event_name": "PreToolUse", "tool_name": "ApplyPatch", "tool_input": tool_input}
    )
    assert event.input == tool_input
