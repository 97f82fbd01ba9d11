"""The cursor adapter passes the conformance kit on its golden fixtures."""

from __future__ import annotations

import json

from agent_control_plane_core import Verdict, adapter_for, assert_conforms

from conftest import FIXTURES_DIR


def test_cursor_adapter_conforms_to_its_fixtures() -> None:
    report = assert_conforms(adapter_for("cursor"), FIXTURES_DIR / "cursor.json")
    assert report.scenarios > 0


def test_every_cursor_answer_prints_a_body_so_fail_closed_never_blocks_an_allow() -> None:
    adapter = adapter_for("cursor")
    fixtures = json.loads((FIXTURES_DIR / "cursor.json").read_text())
    for case in fixtures["cases"]:
        event = adapter.parse(case["native"])
        for decision in ("allow", "deny", "ask"):
            response = adapter.render(Verdict(decision=decision), event)
            # With failClosed, EMPTY output blocks (cursor.com/docs/hooks).
            assert isinstance(response.stdout, dict), (case["name"], decision)


def test_a_json_string_tool_input_that_is_not_an_object_stays_verbatim() -> None:
    adapter = adapter_for("cursor")
    for raw in ("[1, 2]", '"text"', "null", "{"):
        event = adapter.parse(
            {"hook_event_name": "beforeMCPExecution", "tool_name": "q", "tool_input": raw}
        )
        assert event.input == {}
        assert event.meta.passthrough["tool_input"] == raw


def test_the_mcp_server_command_is_never_read_as_a_shell_command() -> None:
    adapter = adapter_for("cursor")
    event = adapter.parse(
        {"hook_event_name": "beforeMCPExecution", "tool_name": "q", "command": "rm -rf /"}
    )
    assert event.tool == "q" and "command" not in event.input
    assert event.meta.passthrough["command"] == "rm -rf /"
