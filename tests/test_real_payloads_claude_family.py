"""Every payload real Claude Code, Factory Droid and Qwen Code hosts sent parses to its kind and tool with nothing lost."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from agent_control_plane_core import EventKinds
from agent_control_plane_core.runtime import entry_adapter
from agent_control_plane_core.schemas import validator_for

from conftest import RealPayload, real_payloads
from hook_runner import BIN

HOSTS = ("claude", "factory", "qwen")

# The kind each native event the lab recorded names (the hosts' declarations, native_events).
KIND_OF = {
    "PreToolUse": EventKinds.PRE_TOOL,
    "PostToolUse": EventKinds.POST_TOOL,
    "UserPromptSubmit": EventKinds.PROMPT_SUBMIT,
}
# Meta fields copied verbatim from the payload field of the same name (contract.md §2).
STANDARD = ("session_id", "cwd", "permission_mode", "transcript_path")


def payload_files() -> list[RealPayload]:
    """Every recorded payload of the Claude-protocol hosts (fixtures/real, recorded by make lab)."""
    return [found for host in HOSTS for found in real_payloads(host)]


def rebuilt_payload(event: dict[str, Any]) -> dict[str, Any]:
    """The native payload put back together from the parsed event alone."""
    meta = event["meta"]
    native: dict[str, Any] = dict(meta["passthrough"])
    native["hook_event_name"] = meta["native_event"]
    native.update({key: meta[key] for key in STANDARD if key in meta})
    if event["event"] == EventKinds.PROMPT_SUBMIT:
        native["prompt"] = event["input"]["prompt"]
    else:
        native["tool_name"] = meta["native_tool"]
        native["tool_input"] = event["input"]
    if "response" in event:
        native["tool_response"] = event["response"]
    return native


def test_every_host_has_captured_payloads_of_every_tool_event_kind() -> None:
    for host in HOSTS:
        events = {found.native_event for found in real_payloads(host)}
        assert {"PreToolUse", "PostToolUse"} <= events, host


@pytest.mark.parametrize("found", payload_files(), ids=lambda found: found.name)
def test_real_payload_parses_to_its_kind_and_tool_with_nothing_lost(found: RealPayload) -> None:
    native, native_event, host = found.payload, found.native_event, found.host
    adapter = entry_adapter(host, {f"ACP_{host.upper()}_VERSION": found.version})
    event = adapter.parse(native).to_dict()
    validator_for("tool-call-event").validate(event)
    kind = KIND_OF[native_event]
    assert event["event"] == kind
    assert event["meta"]["native_event"] == native_event
    if kind == EventKinds.PROMPT_SUBMIT:
        assert event["tool"] is None
    else:
        # Every tool call the lab scripts is the host's shell tool (lab/profiles): canonical Bash.
        assert event["tool"] == "Bash"
        assert event["input"]["command"] == native["tool_input"]["command"]
    # pre_tool blocks on all three; post_tool never can (CC-1, FD-5, QW-4).
    if kind == EventKinds.PRE_TOOL:
        assert event["this_call_vetoable"] is True
    if kind == EventKinds.POST_TOOL:
        assert event["this_call_vetoable"] is False
        assert "response" in event
    assert rebuilt_payload(event) == native


@pytest.mark.parametrize("host", HOSTS)
def test_acp_parse_prints_the_same_event(host: str) -> None:
    native = real_payloads(host)[0].payload
    result = subprocess.run(
        [str(BIN / "acp"), "parse", "--agent", host],
        input=json.dumps(native),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert json.loads(result.stdout) == entry_adapter(host, environ={}).parse(native).to_dict()
