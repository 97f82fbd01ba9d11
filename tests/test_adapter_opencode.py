"""The opencode adapter passes the conformance kit and reads and answers the plugin's own shape."""

from __future__ import annotations

from agent_control_plane_core import Verdict, adapter_for, assert_conforms
from agent_control_plane_core.runtime import failure_response, render_escalated

from conftest import FIXTURES_DIR
from hook_runner import run_hook

BEFORE, AFTER = "tool.execute.before", "tool.execute.after"


def test_opencode_adapter_conforms_to_its_fixtures() -> None:
    report = assert_conforms(adapter_for("opencode"), FIXTURES_DIR / "opencode.json")
    assert report.scenarios > 0


def test_session_id_is_the_session_id_and_the_call_id_stays_in_passthrough() -> None:
    adapter = adapter_for("opencode")
    event = adapter.parse(
        {"event": BEFORE, "tool": "bash", "sessionID": "s", "callID": "c", "args": {}}
    )
    assert event.meta.session_id == "s"
    assert event.meta.passthrough == {"callID": "c"}
    both = adapter.parse({"event": BEFORE, "sessionID": "s", "session_id": 7})
    # A non-string session_id stays in passthrough, and sessionID is not moved onto it.
    assert both.meta.passthrough == {"sessionID": "s", "session_id": 7}


def test_file_tools_are_canonical_with_file_path_and_a_rewrite_goes_back_to_file_path() -> None:
    adapter = adapter_for("opencode")
    for native, canonical in (("read", "Read"), ("write", "Write"), ("edit", "Edit")):
        event = adapter.parse({"event": BEFORE, "tool": native, "args": {"filePath": "/a"}})
        assert (event.tool, event.input) == (canonical, {"file_path": "/a"})
        rewrite = Verdict(decision="allow", mutated_input={"file_path": "/b", "limit": 1})
        assert adapter.render(rewrite, event).stdout == {"args": {"filePath": "/b", "limit": 1}}


def test_a_post_tool_payload_carries_the_output_as_the_response() -> None:
    adapter = adapter_for("opencode")
    event = adapter.parse({"event": AFTER, "tool": "bash", "args": {}, "output": "x", "title": "t"})
    assert (event.event, event.response, event.this_call_vetoable) == ("post_tool", "x", False)
    assert event.meta.passthrough == {"title": "t"}
    before = adapter.parse({"event": BEFORE, "tool": "bash", "args": {}, "output": "x"})
    assert "output" in before.meta.passthrough  # read as the response on post_tool only


def test_an_ask_is_escalated_to_the_block_the_plugin_throws() -> None:
    adapter = adapter_for("opencode")
    event = adapter.parse({"event": BEFORE, "tool": "bash", "args": {"command": "ls"}})
    response = render_escalated(adapter, Verdict(decision="ask", reason="sure?"), event)
    assert (response.exit_code, response.enforced, response.stderr) == (2, True, "sure?")


def test_a_failed_hook_lets_the_call_run_and_fail_closed_blocks() -> None:
    adapter = adapter_for("opencode")
    open_ = failure_response(adapter, "judge raised", fail_closed=False)
    assert (open_.exit_code, open_.enforced) == (0, False)
    closed = failure_response(adapter, "judge raised", fail_closed=True)
    assert (closed.exit_code, closed.enforced) == (2, True)


def test_a_payload_naming_no_event_still_blocks_by_exit_code() -> None:
    payload = {"tool": "bash", "args": {"command": "rm -rf /"}}
    run = run_hook("opencode", payload, judge="denies")
    assert (run.code, run.stdout, run.stderr) == (2, b"", "denied by test")
