"""Host audit 3 (docs/findings.md HA3): each fail-open closed, checked on parse, render and policy."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_control_plane_core import Verdict, adapter_for
from agent_control_plane_core.adapters._paths import derive_paths
from agent_control_plane_core.policy import load_policy_judge
from agent_control_plane_core.runtime import render_escalated

# A patch whose first file is inside the project and whose second is not.
PATCH = (
    "*** Begin Patch\n*** Update File: src/app.ts\n@@\n-a\n+b\n"
    "*** Add File: /etc/cron.d/evil\n+* * * * * root sh\n*** End Patch\n"
)
OUTSIDE = """
[[rules]]
name = "no-writes-outside"
tools = ["Edit", "Write"]
paths = ["/etc/**"]
decision = "deny"
reason = "a file outside the project"

[[rules]]
name = "allow-project-files"
tools = ["Edit", "Write"]
paths = ["/home/dev/project/**"]
decision = "allow"
"""


def _auggie(tool: str, tool_input: dict[str, Any]) -> Any:
    return adapter_for("auggie").parse(
        {
            "hook_event_name": "PreToolUse",
            "conversation_id": "c1",
            "workspace_roots": ["/home/dev/project"],
            "tool_name": tool,
            "tool_input": tool_input,
            "tool_error": None,
            "is_mcp_tool": False,
        }
    )


def test_auggie_ask_is_escalated_to_the_exit_2_block_because_auggie_ignores_ask() -> None:
    adapter = adapter_for("auggie")
    assert adapter.NATIVE_ASK_TIER is False
    event = _auggie("launch-process", {"command": "npm publish"})
    answer = render_escalated(adapter, Verdict(decision="ask", reason="confirm it"), event)
    assert (answer.exit_code, answer.enforced) == (2, True)
    assert answer.stdout["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_auggie_payload_fields_are_read_where_auggie_sends_them() -> None:
    adapter = adapter_for("auggie")
    post = adapter.parse(
        {
            "hook_event_name": "PostToolUse",
            "conversation_id": "c1",
            "workspace_roots": ["/home/dev/project", "/home/dev/other"],
            "tool_name": "launch-process",
            "tool_input": {"command": "ls"},
            "tool_output": "a\nb\n",
            "tool_error": None,
            "is_mcp_tool": True,
        }
    )
    assert (post.meta.session_id, post.meta.cwd, post.response) == (
        "c1",
        "/home/dev/project",
        "a\nb\n",
    )
    assert post.meta.passthrough["workspace_roots"] == ["/home/dev/project", "/home/dev/other"]
    assert "is_mcp_tool" not in post.meta.passthrough
    assert post.tool == "launch-process"  # an MCP server's tool keeps its own name
    body = adapter.render(Verdict(decision="deny", reason="bad output"), post).stdout
    assert body == {
        "hookSpecificOutput": {
            "hookEventName": "PostToolUse",
            "decision": "block",
            "reason": "bad output",
        }
    }


@pytest.mark.parametrize(
    ("tool", "tool_input", "canonical", "key", "value"),
    [
        ("apply_patch", {"input": PATCH}, "Edit", "file_paths", ["src/app.ts", "/etc/cron.d/evil"]),
        ("remove-files", {"file_paths": ["a", "b"]}, "Edit", "file_path", "a"),
        (
            "write-process",
            {"terminal_id": 1, "input_text": "rm -rf /"},
            "Bash",
            "command",
            "rm -rf /",
        ),
    ],
)
def test_auggie_file_and_process_tools_reach_canonical_rules(
    tool: str, tool_input: dict[str, Any], canonical: str, key: str, value: object
) -> None:
    event = _auggie(tool, tool_input)
    assert (event.tool, event.input[key]) == (canonical, value)


def test_derived_paths_keep_what_the_input_names_and_skip_what_names_no_file() -> None:
    given: dict[str, Any] = {"input": PATCH, "file_path": "x"}
    assert derive_paths(given, "input", "patch") is None
    assert given["file_path"] == "x"
    assert given["file_paths"] == ["src/app.ts", "/etc/cron.d/evil"]
    for key, form, empty in (
        ("input", "patch", {"input": "no headers"}),
        ("input", "patch", {"input": 3}),
        ("paths", "list", {"paths": []}),
        ("paths", "list", {"paths": [1, ""]}),
        ("*", "patch", {"a": 1, "b": "text"}),
    ):
        before = dict(empty)
        assert derive_paths(empty, key, form) is None
        assert empty == before
    moved: dict[str, Any] = {"p": "*** Update File: a\n*** Move to: b\n*** Update File: a\n"}
    derive_paths(moved, "p", "patch")
    assert moved["file_paths"] == ["a", "b"]
    added: dict[str, Any] = {"q": 1, "p": "*** Add File: a\n*** Add File: b\n"}
    assert derive_paths(added, "*", "patch") == "Write"
    assert added["file_paths"] == ["a", "b"]


_PATCH_CALLS = [
    (
        "codex",
        {
            "hook_event_name": "PreToolUse",
            "cwd": "/home/dev/project",
            "tool_name": "apply_patch",
            "tool_input": {"command": PATCH},
        },
    ),
    (
        "factory",
        {
            "hook_event_name": "PreToolUse",
            "cwd": "/home/dev/project",
            "tool_name": "ApplyPatch",
            "tool_input": {"input": PATCH},
        },
    ),
    (
        "auggie",
        {
            "hook_event_name": "PreToolUse",
            "workspace_roots": ["/home/dev/project"],
            "tool_name": "apply_patch",
            "tool_input": {"input": PATCH},
        },
    ),
    ("amp", {"tool": "apply_patch", "cwd": "/home/dev/project", "input": {"patch_text": PATCH}}),
]


@pytest.mark.parametrize(("agent", "payload"), _PATCH_CALLS, ids=[a for a, _ in _PATCH_CALLS])
def test_a_patch_with_one_file_outside_is_denied_by_a_path_rule(
    agent: str, payload: dict[str, Any], tmp_path: Path
) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text(OUTSIDE)
    judge = load_policy_judge(str(policy))
    event = adapter_for(agent).parse(payload)
    assert event.tool == "Edit"
    assert judge(event).decision == "deny"
    # The allow rule needs every file inside: a patch of project files alone is allowed by it.
    inside = json.loads(json.dumps(payload).replace("/etc/cron.d/evil", "src/new.ts"))
    assert judge(adapter_for(agent).parse(inside)).decision == "allow"


def test_crush_rewrite_that_is_no_object_is_refused_not_run_unchanged() -> None:
    adapter = adapter_for("crush")
    event = adapter.parse({"event": "PreToolUse", "tool_name": "bash", "tool_input": {"c": 1}})
    answer = adapter.render(Verdict(decision="allow", mutated_input="ls"), event)  # type: ignore[arg-type]
    assert (answer.exit_code, answer.enforced) == (0, False)
    assert answer.stdout["decision"] == "deny"
    assert "not a JSON object" in answer.stdout["reason"]
