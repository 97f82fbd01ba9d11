"""Codex: every payload a real Codex sent parses right, nothing lost; patch paths; version switch."""

from __future__ import annotations

import pytest

from agent_control_plane_core import Verdict, adapter_for
from agent_control_plane_core.schemas import validator_for

from conftest import RealPayload, assert_nothing_lost, real_payloads

# Where a parsed event carries each Codex field it reads; the rest stays in passthrough.
CONSUMED = {
    "hook_event_name": "native_event",
    "tool_name": "native_tool",
    "tool_input": "input",
    "tool_response": "response",
    "session_id": "session_id",
    "cwd": "cwd",
    "permission_mode": "permission_mode",
    "transcript_path": "transcript_path",
}
KINDS = {"PreToolUse": "pre_tool", "PostToolUse": "post_tool", "UserPromptSubmit": "prompt_submit"}


@pytest.mark.parametrize("found", real_payloads("codex"), ids=lambda found: found.name)
def test_every_real_codex_payload_parses_to_its_kind_and_tool_with_nothing_lost(
    found: RealPayload,
) -> None:
    payload = dict(found.payload)
    event = adapter_for("codex", codex_version=found.version).parse(payload).to_dict()
    assert event["event"] == KINDS[found.native_event]
    assert validator_for("tool-call-event").is_valid(event)
    if event["event"] == "prompt_submit":
        # The prompt is the event's input; nothing else of the payload is read.
        assert (event["tool"], event["input"]) == (None, {"prompt": payload.pop("prompt")})
    else:
        assert (event["tool"], event["this_call_vetoable"]) == ("Bash", True)
    assert_nothing_lost(payload, event, CONSUMED)


def test_a_multi_file_patch_shows_every_path_and_a_pure_add_is_a_write() -> None:
    codex = adapter_for("codex")
    patch = "*** Begin Patch\n*** Update File: a.py\n*** Move to: b.py\n*** Delete File: c.py\n"
    event = codex.parse(
        {
            "hook_event_name": "PreToolUse",
            "tool_name": "apply_patch",
            "tool_input": {"command": patch},
        }
    )
    assert (event.tool, event.input["file_path"], event.input["file_paths"]) == (
        "Edit",
        "a.py",
        ["a.py", "b.py", "c.py"],
    )
    add = "*** Begin Patch\n*** Add File: new.txt\n+x\n*** End Patch\n"
    added = codex.parse(
        {
            "hook_event_name": "PreToolUse",
            "tool_name": "apply_patch",
            "tool_input": {"command": add},
        }
    )
    assert (added.tool, added.input["file_paths"]) == ("Write", ["new.txt"])


def test_pre_tool_context_and_rewrite_switch_on_at_their_first_releases() -> None:
    payload = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "x"}}
    verdict = Verdict(decision="allow", additional_context="ctx", mutated_input={"command": "y"})
    bodies = {}
    for version in ("0.128.0", "0.129.0", "0.131.0", None):
        codex = adapter_for("codex", codex_version=version)
        body = codex.render(verdict, codex.parse(dict(payload))).stdout
        bodies[version] = sorted(body["hookSpecificOutput"])  # type: ignore[index]
    assert bodies["0.128.0"] == bodies[None] == ["hookEventName"]
    assert bodies["0.129.0"] == ["additionalContext", "hookEventName"]
    assert bodies["0.131.0"] == [
        "additionalContext",
        "hookEventName",
        "permissionDecision",
        "updatedInput",
    ]
