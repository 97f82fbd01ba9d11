"""Adapter registry, declarations and parse robustness across every declared host."""

from __future__ import annotations

import itertools
import subprocess
import sys
from collections.abc import Mapping
from typing import Any

import pytest

from agent_control_plane_core import (
    AGENT_IDS,
    Adapter,
    EventKinds,
    Verdict,
    adapter_for,
    create_codex_adapter,
)
from agent_control_plane_core._generated.constants import CallClasses
from agent_control_plane_core.schemas import validator_for

from conftest import SCHEMA_DIR, load_json

# A spread of JSON values, including shapes a host never sends, for the never-raises rule.
ODD_VALUES: list[Any] = [None, True, 0, -1.5, "", "x", [], [1, {}], {}, {"a": None}, "__class__"]


def test_agent_ids_are_the_declared_hosts() -> None:
    # The shipped hosts stay; a new declaration adds its id without an edit here.
    shipped = (
        "amp",
        "auggie",
        "claude",
        "cline",
        "codex",
        "copilot",
        "crush",
        "cursor",
        "factory",
        "gemini",
        "kiro",
        "opencode",
        "qwen",
        "windsurf",
    )
    assert set(shipped) <= set(AGENT_IDS)
    assert tuple(sorted(p.stem for p in (SCHEMA_DIR / "hosts").glob("*.json"))) == AGENT_IDS


def test_unknown_agent_id_names_the_known_ids() -> None:
    known = f"known agent ids are {', '.join(AGENT_IDS)}, plus any adapter registered"
    with pytest.raises(ValueError, match=known):
        adapter_for("devin")


def test_unknown_option_raises_one_line_naming_option_and_host() -> None:
    with pytest.raises(
        ValueError,
        match=r"^option codex_versoin is not taken by the codex adapter; it takes: codex_version$",
    ):
        adapter_for("codex", codex_versoin="0.150.0")
    with pytest.raises(ValueError, match=r"^option codex_version is not taken by the gemini"):
        adapter_for("gemini", codex_version="0.150.0")
    # Still a TypeError for callers that caught the old error.
    with pytest.raises(TypeError, match=r"it takes: claude_version$"):
        adapter_for("claude", sole_gate=True)


@pytest.mark.parametrize("agent", AGENT_IDS)
def test_every_adapter_takes_its_version_option_and_env_name(agent: str) -> None:
    adapter = adapter_for(agent, **{f"{agent}_version": "1.2.3"})
    assert adapter.HOST_VERSION == "1.2.3"  # type: ignore[attr-defined]
    expected = {f"{agent}_version": f"ACP_{agent.upper()}_VERSION"}
    if adapter.DECLARATION.FORMS:  # type: ignore[attr-defined]
        # A host with integration forms also takes its form (hosts/<agent>.json forms).
        expected[f"{agent}_form"] = f"ACP_{agent.upper()}_FORM"
    assert expected == adapter.ENV_OPTIONS  # type: ignore[attr-defined]


def test_adapter_for_never_reads_the_environment() -> None:
    code = "from agent_control_plane_core import adapter_for; print(adapter_for('codex').INTEGRATION_MODE)"
    # Below the supported range this would be observe_only, were the environment read.
    env = {"ACP_CODEX_VERSION": "0.100.0", "PATH": ""}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "external_hook"


def test_gemini_has_no_native_ask_tier() -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "from agent_control_plane_core import adapter_for; print(adapter_for('gemini').NATIVE_ASK_TIER)",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout == "False\n"


@pytest.mark.parametrize("agent", AGENT_IDS)
def test_adapter_attributes_mirror_the_declaration_document(agent: str) -> None:
    adapter = adapter_for(agent)
    assert isinstance(adapter, Adapter)
    document = load_json(SCHEMA_DIR / "hosts" / f"{agent}.json")
    assert agent == adapter.AGENT
    assert adapter.NATIVE_ASK_TIER is document["native_ask_tier"]
    assert dict(adapter.COVERAGE) == document["coverage"]
    assert set(adapter.COVERAGE) == set(CallClasses.ALL)
    assert dict(adapter.NATIVE_EVENT_FOR) == document["native_event_for"]
    assert set(adapter.UNRENDERED_FIELDS) == set(EventKinds.ALL)
    for kind, row in adapter.UNRENDERED_FIELDS.items():
        assert isinstance(row, frozenset)
        assert row == set(document["unrendered_fields"][kind])


@pytest.mark.parametrize("agent", AGENT_IDS)
def test_declarations_are_immutable(agent: str) -> None:
    adapter = adapter_for(agent)
    with pytest.raises(TypeError):
        adapter.UNRENDERED_FIELDS["pre_tool"] = frozenset()  # type: ignore[index]
    with pytest.raises(TypeError):
        adapter.COVERAGE["mcp"] = "covered"  # type: ignore[index]
    assert isinstance(adapter.UNRENDERED_FIELDS, Mapping)


def test_codex_enforces_on_every_version_but_below_its_supported_range() -> None:
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
    }
    for version, vetoable in [
        ("0.150.0", True),
        ("0.171.0", True),
        ("v1.2", True),  # coerced to 1.2.0: above the range, facts apply by their windows
        ("0.100.0", False),
        ("garbage", True),  # no digits: no version, the conservative intersection (CX-9)
        (None, True),
    ]:
        event = create_codex_adapter(version=version).parse(payload)
        assert event.this_call_vetoable is vetoable, version
        assert event.meta.integration_mode == ("external_hook" if vetoable else "observe_only")


def test_codex_post_tool_vetoes_whenever_the_version_enforces() -> None:
    payload = {"hook_event_name": "PostToolUse", "tool_name": "mcp__x__y", "tool_input": {}}
    assert create_codex_adapter(version="0.171.0").parse(payload).this_call_vetoable
    assert not create_codex_adapter(version="0.100.0").parse(payload).this_call_vetoable


def test_amp_renames_dialect_keys_without_overwriting() -> None:
    amp = adapter_for("amp")
    assert amp.parse({"tool": "Bash", "input": {"cmd": "ls"}}).input == {"command": "ls"}
    assert amp.parse({"tool": "Bash", "input": {"cmd": "a", "command": "b"}}).input == {
        "cmd": "a",
        "command": "b",
    }
    assert amp.parse({"tool": "Read", "input": {"path": "/x"}}).input == {"file_path": "/x"}


def test_gemini_aliases_only_builtin_calls_with_the_advertised_key() -> None:
    gemini = adapter_for("gemini")
    builtin = gemini.parse(
        {
            "hook_event_name": "BeforeTool",
            "tool_name": "read_file",
            "tool_input": {"absolute_path": "/a"},
        }
    )
    assert (builtin.tool, builtin.input) == ("Read", {"file_path": "/a"})
    assert builtin.meta.native_tool == "read_file"
    mcp = gemini.parse(
        {
            "hook_event_name": "BeforeTool",
            "tool_name": "read_file",
            "tool_input": {"absolute_path": "/a"},
            "mcp_context": {},
        }
    )
    # MCP is covered on Gemini (docs/findings.md GM-8), but an MCP tool is never renamed or aliased.
    assert (mcp.tool, mcp.input, mcp.this_call_vetoable) == (
        "read_file",
        {"absolute_path": "/a"},
        True,
    )
    fetch = gemini.parse(
        {"hook_event_name": "BeforeTool", "tool_name": "web_fetch", "tool_input": {"url": "u"}}
    )
    assert fetch.tool == "web_fetch"


@pytest.mark.parametrize("agent", AGENT_IDS)
def test_parse_never_raises_and_always_validates(agent: str) -> None:
    adapter = (
        adapter_for(agent, codex_version="0.150.0") if agent == "codex" else adapter_for(agent)
    )
    validator = validator_for("tool-call-event")
    keys = [
        "hook_event_name",
        "tool_name",
        "tool_input",
        "tool_response",
        "prompt",
        "session_id",
        "tool",
        "input",
        "agent_type",
        "mcp_context",
    ]
    names = [
        "PreToolUse",
        "PostToolUse",
        "UserPromptSubmit",
        "SessionStart",
        "BeforeTool",
        "AfterTool",
        "BeforeAgent",
        "PermissionRequest",
        "Stop",
    ]
    payloads: list[Any] = list(ODD_VALUES)
    for key, value in itertools.product(keys, ODD_VALUES):
        payloads += [{key: value}] + [{"hook_event_name": name, key: value} for name in names]
    for payload in payloads:
        event = adapter.parse(payload)
        assert validator.is_valid(event.to_dict()), payload
        if event.event == "unknown":
            assert not event.this_call_vetoable
        for decision in ("allow", "deny", "ask"):
            response = adapter.render(Verdict(decision=decision, reason=""), event)
            # Only a host that blocks on the body at exit 0 (exit_zero_block) enforces at exit 0.
            zero_blocks = adapter.EXIT_ZERO_BLOCK  # type: ignore[attr-defined]
            assert zero_blocks or not (response.enforced and response.exit_code == 0)


@pytest.mark.parametrize("agent", AGENT_IDS)
def test_parse_keeps_every_unconsumed_field_verbatim(agent: str) -> None:
    adapter = adapter_for(agent)
    payload = {
        "future_field": {"nested": [1, None]},
        "session_id": 7,
        "cwd": None,
        "version": "9.9.9",
    }
    event = adapter.parse(payload)
    assert event.meta.passthrough == payload
    assert "session_id" not in event.meta.to_dict()
    assert "cwd" not in event.meta.to_dict()


@pytest.mark.parametrize("agent", AGENT_IDS)
def test_adapters_are_immutable_after_construction(agent: str) -> None:
    adapter = adapter_for(agent)
    with pytest.raises(AttributeError, match=r"immutable: use configure\(\.\.\.\)"):
        adapter.INTEGRATION_MODE = "external_hook"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        adapter.NATIVE_ASK_TIER = not adapter.NATIVE_ASK_TIER  # type: ignore[misc]


def test_configure_keeps_options_already_set() -> None:
    codex = adapter_for("codex", codex_version="0.150.0")
    assert codex.configure().INTEGRATION_MODE == "external_hook"
    assert codex.configure(codex_version="0.1.0").INTEGRATION_MODE == "observe_only"
    assert "codex_version='0.150.0'" in repr(codex)


@pytest.mark.parametrize("agent", AGENT_IDS)
def test_render_refuses_an_invalid_decision_naming_the_fix(agent: str) -> None:
    adapter = adapter_for(agent)
    event = adapter.parse({})
    with pytest.raises(ValueError, match=r"'block' is not one of.*sanitize_verdict"):
        adapter.render(Verdict(decision="block"), event)  # type: ignore[arg-type]


def test_render_refuses_another_hosts_event() -> None:
    event = adapter_for("gemini").parse({"hook_event_name": "BeforeTool", "tool_name": "x"})
    with pytest.raises(
        ValueError, match=r"parsed by the 'gemini' adapter.*adapter_for\('gemini'\)"
    ):
        adapter_for("claude").render(Verdict(decision="deny"), event)


@pytest.mark.parametrize("agent", ["codex", "gemini"])
@pytest.mark.parametrize("reason", [" ", "\n\t", ""])
def test_an_enforced_block_never_carries_a_blank_reason(agent: str, reason: str) -> None:
    # Codex and Gemini trim stderr and run the tool when nothing is left (enforced-deny-stderr,
    # gemini-default-reason), so a block must carry visible text.
    adapter = (
        adapter_for(agent, codex_version="0.150.0") if agent == "codex" else adapter_for(agent)
    )
    native = {
        "hook_event_name": adapter.NATIVE_EVENT_FOR["pre_tool"],
        "tool_name": "Bash",
        "tool_input": {},
    }
    event = adapter.parse(native)
    response = adapter.render(Verdict(decision="deny", reason=reason), event)
    assert response.enforced
    assert isinstance(response.stderr, str) and response.stderr.strip()


@pytest.mark.parametrize(
    "text",
    [
        '{"command":"ls"}',
        ' \t\n{"command": "ls"}\r\n',
        '{"a": NaN, "b": [1, {"c": null}]}',
        '{"a":"\\ud800"}',
        "{}",
        '{"command":"ls"} trailing',
        '{"command":"ls"}{}',
        '{"command":',
        "{",
        '["ls"]',
        '"{\\"command\\": \\"ls\\"}"',
        "\ufeff{}",
        "\u00a0{}",
        "",
        "   ",
        "null",
        "[" * 10000 + "]" * 10000,
        "{" + '"a":{' * 5000 + "}" * 5001,
    ],
)
def test_json_string_input_decodes_exactly_as_json_loads_would(text: str) -> None:
    # NativeFields.json_object calls json's scanner directly (issue 13); what it accepts and what
    # it leaves verbatim in passthrough must be json.loads's answer, object or not.
    import json

    from agent_control_plane_core.adapters._base import NativeFields

    try:
        expected = json.loads(text)
    except (ValueError, RecursionError):
        expected = None
    if not isinstance(expected, dict):
        expected = None
    fields = NativeFields({"toolArgs": text})
    got = fields.json_object("toolArgs")
    assert json.dumps(got) == json.dumps(expected)  # NaN != NaN: compare the encodings
    assert ("toolArgs" in fields.passthrough()) is (expected is None)
