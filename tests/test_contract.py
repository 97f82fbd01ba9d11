"""The contract module: every rule of contract.md §3."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import pytest

from agent_control_plane_core import (
    ABSENT,
    EventMeta,
    Verdict,
    make_event,
    normalize_verdict,
    sanitize_verdict,
)
from agent_control_plane_core.contract import (
    aliased_tool,
    call_class,
    canonical_tool,
    check_alias_targets,
    coverage_allows_veto,
    parse_version,
    present,
    rename_input_keys,
    to_object,
    to_string,
    tool_rule,
    vetoable_for,
)


def _meta(mode: Any = "external_hook") -> EventMeta:
    return EventMeta(
        agent="claude",
        native_event="PreToolUse",
        integration_mode=mode,
        primary_gate_present=True,
        passthrough={},
    )


def test_make_event_builds_a_version_one_event() -> None:
    event = make_event(
        event="pre_tool", tool="Bash", input={}, this_call_vetoable=True, meta=_meta()
    )
    assert event.schema_version == 1
    assert event.response is ABSENT
    assert "response" not in event.to_dict()


def test_make_event_carries_a_null_response() -> None:
    event = make_event(
        event="post_tool",
        tool="Bash",
        input={},
        this_call_vetoable=True,
        meta=_meta(),
        response=None,
    )
    assert event.to_dict()["response"] is None


def test_make_event_refuses_an_unmodelled_kind() -> None:
    with pytest.raises(ValueError, match="'stop' is not one of"):
        make_event(event="stop", tool=None, input={}, this_call_vetoable=False, meta=_meta())  # type: ignore[arg-type]


def test_make_event_refuses_a_non_bool_vetoable() -> None:
    with pytest.raises(TypeError, match="must be a bool"):
        make_event(event="pre_tool", tool=None, input={}, this_call_vetoable=1, meta=_meta())  # type: ignore[arg-type]


def test_make_event_refuses_a_vetoable_unknown_event() -> None:
    with pytest.raises(ValueError, match="unknown event cannot be vetoable"):
        make_event(event="unknown", tool=None, input={}, this_call_vetoable=True, meta=_meta())


def test_make_event_refuses_a_vetoable_observe_only_event() -> None:
    with pytest.raises(ValueError, match="observe_only"):
        make_event(
            event="pre_tool",
            tool=None,
            input={},
            this_call_vetoable=True,
            meta=_meta("observe_only"),
        )


def test_normalize_verdict_keeps_present_fields_and_drops_null_ones() -> None:
    verdict = normalize_verdict({"decision": "allow", "mutated_output": None, "extra": 1})
    assert verdict.to_dict() == {"decision": "allow"}  # null is absent (contract.md §2)
    verdict = normalize_verdict({"decision": "allow", "mutated_output": 0, "extra": 1})
    assert verdict.to_dict() == {"decision": "allow", "mutated_output": 0}


def test_normalize_verdict_accepts_a_verdict() -> None:
    verdict = Verdict(decision="deny", reason="r")
    assert normalize_verdict(verdict) == verdict


@pytest.mark.parametrize("bad", [{"decision": "block"}, {}, {"decision": None}])
def test_normalize_verdict_raises_on_a_decision_outside_the_three(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="is not one of"):
        normalize_verdict(bad)


def test_normalize_verdict_raises_on_a_non_mapping() -> None:
    with pytest.raises(TypeError):
        normalize_verdict("deny")  # type: ignore[arg-type]


def test_sanitize_keeps_a_valid_verdict() -> None:
    verdict = sanitize_verdict({"decision": "deny", "reason": "r", "mutated_output": False})
    assert verdict.to_dict() == {"decision": "deny", "mutated_output": False, "reason": "r"}


def test_sanitize_clamps_a_non_object_to_ask_naming_the_value() -> None:
    verdict = sanitize_verdict("deny")
    assert verdict.decision == "ask"
    assert verdict.reason == '[control-plane: invalid verdict decision "deny" clamped to "ask"]'


def test_sanitize_appends_the_note_after_an_existing_reason() -> None:
    verdict = sanitize_verdict({"decision": "block", "reason": "rm"})
    assert verdict.reason == 'rm [control-plane: invalid verdict decision "block" clamped to "ask"]'


def test_sanitize_names_a_value_json_cannot_encode() -> None:
    verdict = sanitize_verdict({"decision": {1, 2}})
    assert verdict.decision == "ask"
    assert isinstance(verdict.reason, str) and "clamped" in verdict.reason


def test_sanitize_runs_the_text_sanitizer_over_reason_and_context_only() -> None:
    verdict = sanitize_verdict(
        {
            "decision": "allow",
            "reason": "key sk-1",
            "additional_context": "sk-2",
            "mutated_output": "sk-3",
        },
        lambda text: text.replace("sk-", "***"),
    )
    assert verdict.reason == "key ***1"
    assert verdict.additional_context == "***2"
    assert verdict.mutated_output == "sk-3"


def test_sanitize_drops_non_string_text_and_a_non_object_mutated_input() -> None:
    verdict = sanitize_verdict({"decision": "allow", "reason": 3, "mutated_input": ["ls"]})
    assert verdict.to_dict() == {"decision": "allow"}


def test_sanitize_raises_when_the_text_sanitizer_returns_a_non_string() -> None:
    with pytest.raises(TypeError, match="sanitize_text returned int"):
        sanitize_verdict({"decision": "deny", "reason": "r"}, lambda text: 1)  # type: ignore[arg-type,return-value]


@pytest.mark.parametrize("value", [None, [], "x", 3, True])
def test_to_object_coerces_non_objects_to_empty(value: Any) -> None:
    assert to_object(value) == {}


def test_to_object_and_to_string_keep_the_right_types() -> None:
    payload = {"a": 1}
    assert to_object(payload) is payload
    assert to_string("x") == "x"
    assert to_string(3) is None
    assert to_string(3, "fallback") == "fallback"


def test_global_alias_applies_to_every_call_class() -> None:
    for calls in ("builtin", "mcp", "subagent"):
        assert canonical_tool("run_shell_command", {}, calls, {}) == "Bash"  # type: ignore[arg-type]


def test_host_alias_needs_a_builtin_call_carrying_the_advertised_key() -> None:
    aliases = {"read_file": "Read"}
    assert canonical_tool("read_file", {"file_path": "/a"}, "builtin", aliases) == "Read"
    assert canonical_tool("read_file", {"path": "/a"}, "builtin", aliases) == "read_file"
    assert canonical_tool("read_file", {"file_path": "/a"}, "mcp", aliases) == "read_file"
    assert canonical_tool(None, {}, "builtin", aliases) is None
    assert canonical_tool("Glob", {}, "builtin", aliases) == "Glob"


def test_tool_rule_caches_what_canonical_tool_decides() -> None:
    # build_event caches tool_rule per name and applies aliased_tool per call: the pair must give
    # canonical_tool's answer for every input, or a cached name would hide an alias (or invent one).
    aliases = {"bash": "Bash", "read_file": "Read"}
    assert tool_rule("run_shell_command", "builtin", aliases) == "Bash"
    assert tool_rule("bash", "builtin", aliases) == ("Bash", "command")
    assert tool_rule("bash", "mcp", aliases) == "bash"
    for name in ("bash", "read_file", "run_shell_command", "Glob"):
        for calls in ("builtin", "mcp", "subagent"):
            for tool_input in ({}, {"command": "ls"}, {"file_path": "/a"}, {"path": "/a"}):
                rule = tool_rule(name, calls, aliases)  # type: ignore[arg-type]
                assert aliased_tool(rule, name, tool_input) == canonical_tool(
                    name,
                    tool_input,
                    calls,
                    aliases,  # type: ignore[arg-type]
                ), (name, calls, tool_input)
    assert aliased_tool(("Bash", "command"), "bash", {"command": "ls"}) == "Bash"
    assert aliased_tool(("Bash", "command"), "bash", {"cmd": "ls"}) == "bash"


def test_rename_never_overwrites_and_keeps_the_value() -> None:
    renames = MappingProxyType({"absolute_path": "file_path"})
    original = {"absolute_path": "/a", "file_path": "/b"}
    assert rename_input_keys(original, renames) is original
    assert rename_input_keys({"absolute_path": "/a"}, renames) == {"file_path": "/a"}
    assert rename_input_keys({"x": 1}, renames) == {"x": 1}


@pytest.mark.parametrize(
    ("tool", "mcp_context", "agent_type", "expected"),
    [
        ("mcp__github__create", None, None, "mcp"),
        ("mcp_fs_read", None, None, "mcp"),
        ("mcp___x", None, None, "builtin"),
        ("mcpx", None, None, "builtin"),
        ("Bash", {"server": "s"}, None, "mcp"),
        ("Bash", [], None, "builtin"),
        ("Bash", None, "Explore", "subagent"),
        ("Bash", None, "", "builtin"),
        ("Bash", None, 1, "builtin"),
        (None, None, "Explore", "subagent"),
        ("mcp__x__y", None, "Explore", "mcp"),
    ],
)
def test_call_class(tool: str | None, mcp_context: Any, agent_type: Any, expected: str) -> None:
    assert call_class(tool, mcp_context, agent_type) == expected


def test_coverage_allows_veto_only_when_covered_or_partial() -> None:
    assert coverage_allows_veto("covered") and coverage_allows_veto("partial")
    assert not coverage_allows_veto("uncovered")
    assert not coverage_allows_veto("unknown")
    assert not coverage_allows_veto(None)


def test_vetoable_needs_a_gated_kind_and_vetoing_coverage() -> None:
    coverage = MappingProxyType(
        {"builtin": "covered", "mcp": "uncovered", "subagent": "partial", "resumed": "unknown"}
    )
    gated = frozenset({"pre_tool"})
    assert vetoable_for("pre_tool", "builtin", gated, coverage)  # type: ignore[arg-type]
    assert vetoable_for("pre_tool", "subagent", gated, coverage)  # type: ignore[arg-type]
    assert not vetoable_for("pre_tool", "mcp", gated, coverage)  # type: ignore[arg-type]
    assert not vetoable_for("post_tool", "builtin", gated, coverage)  # type: ignore[arg-type]
    assert not vetoable_for("unknown", "builtin", frozenset({"unknown"}), coverage)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0.135.0", (0, 135, 0)),
        ("0.134.9", (0, 134, 9)),
        ("v1.2", (1, 2, 0)),
        ("codex-cli 0.151.2 (build 7)", (0, 151, 2)),
        ("7", (7, 0, 0)),
        ("1.2.3.4", (1, 2, 3)),
        ("garbage", None),
        ("", None),
        (None, None),
        (135, None),
    ],
)
def test_parse_version_coerces_like_semver(
    text: Any, expected: tuple[int, int, int] | None
) -> None:
    assert parse_version(text) == expected


def test_present_tells_absent_from_null() -> None:
    assert present(None)
    assert present("")
    assert not present(ABSENT)


def test_alias_targets_must_be_modelled_tools() -> None:
    check_alias_targets({"run_shell_command": "Bash"}, "x.json")
    with pytest.raises(
        ValueError, match=r"hosts/demo.json: alias target\(s\) \['Shell'\] are not modelled"
    ):
        check_alias_targets({"shell": "Shell"}, "hosts/demo.json")


@pytest.mark.parametrize("decision", ["allow", "deny", "ask"])
def test_sanitize_keeps_a_verdict_instance(decision: Any) -> None:
    verdict = Verdict(decision=decision, reason="r", mutated_output=[])
    assert sanitize_verdict(verdict) == verdict


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("reason", 123, "string"),
        ("additional_context", 0, "string"),
        ("mutated_input", "ls", "object"),
    ],
)
def test_normalize_verdict_names_a_mistyped_field(field: str, value: Any, expected: str) -> None:
    with pytest.raises(TypeError, match=f"{field} must be a JSON {expected}"):
        normalize_verdict({"decision": "ask", field: value})


def test_a_gated_kind_outside_the_coverage_kinds_vetoes_whatever_the_class() -> None:
    coverage = MappingProxyType(
        {"builtin": "partial", "mcp": "uncovered", "subagent": "partial", "resumed": "partial"}
    )
    gated = frozenset({"pre_tool", "post_tool"})
    scope = frozenset({"pre_tool"})
    assert vetoable_for("post_tool", "mcp", gated, coverage, scope)  # type: ignore[arg-type]
    assert not vetoable_for("pre_tool", "mcp", gated, coverage, scope)  # type: ignore[arg-type]
    assert not vetoable_for("prompt_submit", "builtin", gated, coverage, scope)  # type: ignore[arg-type]
