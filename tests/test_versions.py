"""Host versions: semver-ish comparison, version-fact windows, the declaration overlay, the option."""

from __future__ import annotations

from types import MappingProxyType, SimpleNamespace
from typing import Any

import pytest

from agent_control_plane_core import AGENT_IDS, adapter_for
from agent_control_plane_core.adapters._base import HostAdapter
from agent_control_plane_core.contract import version_key, window_holds
from agent_control_plane_core.runtime import entry_adapter
from codegen.driver import _version_problems


@pytest.mark.parametrize(
    ("lower", "higher"),
    [
        ("0.171.0", "1.0.102"),
        ("1.0.70", "1.0.102"),  # numeric, not text, order
        ("0.9.0", "0.10.0"),
        ("2.1.197", "2.1.332"),
        ("0.172.0-alpha.1", "0.172.0"),  # a pre-release sorts before its release
        ("0.172.0-alpha.1", "0.172.0-alpha.2"),
        ("0.172.0-alpha.9", "0.172.0-alpha.10"),
        ("0.172.0-1", "0.172.0-alpha"),  # numeric ids before text ids
        ("0.172.0-alpha", "0.172.0-alpha.1"),  # fewer ids first when the rest is equal
        ("0.171.0", "0.172.0-alpha.1"),
    ],
)
def test_version_key_orders_by_semver_precedence(lower: str, higher: str) -> None:
    low, high = version_key(lower), version_key(higher)
    assert low is not None and high is not None
    assert low < high


@pytest.mark.parametrize(
    ("text", "same_as"),
    [
        ("v1.2", "1.2.0"),
        ("codex-cli 0.171.0", "0.171.0"),
        ("1", "1.0.0"),
        ("0.171.0+b5", "0.171.0"),
    ],
)
def test_version_key_coerces_like_parse_version(text: str, same_as: str) -> None:
    assert version_key(text) == version_key(same_as)


@pytest.mark.parametrize("text", ["garbage", "", None, 171, ["0.171.0"]])
def test_version_key_without_digits_is_none(text: Any) -> None:
    assert version_key(text) is None


RANGE = ("0.128.0", "0.171.0")


@pytest.mark.parametrize(
    ("since", "until", "version", "holds"),
    [
        ("0.129.0", None, "0.129.0", True),  # since is inclusive
        ("0.129.0", None, "0.128.9", False),
        (None, "1.0.70", "1.0.70", False),  # until is exclusive
        (None, "1.0.70", "1.0.69", True),
        ("0.129.0", "0.131.0", "0.130.5", True),
        ("0.129.0", None, "9.0.0", True),  # above the range a fact applies by its window
        ("0.129.0", None, "0.129.0-alpha.1", False),
    ],
)
def test_a_fact_holds_on_the_versions_of_its_window(
    since: str | None, until: str | None, version: str, holds: bool
) -> None:
    assert window_holds(since, until, version_key(version), RANGE) is holds


@pytest.mark.parametrize(
    ("since", "until", "holds"),
    [
        ("0.129.0", None, False),  # not on 0.128.0
        ("0.128.0", None, True),
        ("0.0.396", None, True),
        (None, "0.171.0", False),  # not on 0.171.0
        (None, "0.171.1", True),
        ("0.100.0", "0.200.0", True),
    ],
)
def test_without_a_version_only_facts_on_every_supported_version_hold(
    since: str | None, until: str | None, holds: bool
) -> None:
    assert window_holds(since, until, None, RANGE) is holds
    # No supported range: nothing is known to hold everywhere.
    assert window_holds(since, until, None, None) is False


def _declaration(**changes: Any) -> SimpleNamespace:
    base: dict[str, Any] = {
        "AGENT": "demo",
        "INTEGRATION_MODE": "external_hook",
        "PRIMARY_GATE_PRESENT": True,
        "COVERAGE": MappingProxyType(
            {"builtin": "covered", "mcp": "unknown", "subagent": "unknown", "resumed": "unknown"}
        ),
        "GATED_KINDS": frozenset({"pre_tool"}),
        "COVERAGE_KINDS": frozenset({"pre_tool"}),
        "NATIVE_ASK_TIER": False,
        "UNRENDERED_FIELDS": MappingProxyType(
            {
                kind: frozenset({"additional_context", "mutated_input", "mutated_output"})
                for kind in ("pre_tool", "post_tool", "prompt_submit", "session_start", "unknown")
            }
        ),
        "NATIVE_EVENTS": MappingProxyType({"Pre": "pre_tool"}),
        "NATIVE_EVENT_FOR": MappingProxyType({"pre_tool": "Pre"}),
        "TOOL_ALIASES": MappingProxyType({}),
        "INPUT_KEY_RENAMES": MappingProxyType({}),
        "DEFAULT_BLOCK_REASON": "blocked",
        "FAILURE_EXIT_CODE": 0,
        "FAILURE_STDOUT": None,
        "EXIT_ZERO_BLOCK": False,
        "FEATURES": MappingProxyType({"exit_2_denies": False}),
        "SUPPORTED_VERSIONS": ("1.0.0", "1.0.102"),
        "LAB_VERSIONS": ("1.0.102",),
        "VERSION_PAYLOAD_FIELD": "host_version",
        "VERSION_FACTS": (
            MappingProxyType(
                {
                    "id": "exit-two",
                    "since": "1.0.70",
                    "until": None,
                    "set": MappingProxyType(
                        {
                            "features": MappingProxyType({"exit_2_denies": True}),
                            "coverage": MappingProxyType({"mcp": "covered"}),
                            "failure_response": MappingProxyType(
                                {"exit_code": 2, "stdout": MappingProxyType({"x": 1})}
                            ),
                        }
                    ),
                }
            ),
            MappingProxyType(
                {
                    "id": "context",
                    "since": "1.0.24",
                    "until": None,
                    "set": MappingProxyType(
                        {
                            "rendered_fields": MappingProxyType(
                                {"pre_tool": ("additional_context",)}
                            ),
                            "gated_kinds": ("pre_tool", "post_tool"),
                            "native_ask_tier": True,
                            "exit_zero_block": True,
                        }
                    ),
                }
            ),
            MappingProxyType(
                {
                    "id": "old-observe",
                    "since": None,
                    "until": "1.0.10",
                    "set": MappingProxyType(
                        {
                            "integration_mode": "observe_only",
                            "unrendered_fields": MappingProxyType({"post_tool": ("reason",)}),
                        }
                    ),
                }
            ),
        ),
    }
    base.update(changes)
    return SimpleNamespace(**base)


def _adapter(decl: SimpleNamespace | None = None, **options: Any) -> HostAdapter:
    class Demo(HostAdapter):
        DECLARATION = decl or _declaration()  # type: ignore[assignment]

    return Demo(**options)


def test_without_a_version_the_declaration_applies_only_facts_on_every_version() -> None:
    demo = _adapter()
    assert demo.VERSION_FACTS == ()
    assert demo.FEATURES == {"exit_2_denies": False}
    assert demo.COVERAGE["mcp"] == "unknown"
    assert "additional_context" in demo.UNRENDERED_FIELDS["pre_tool"]
    assert {"pre_tool"} == demo.GATED_KINDS
    assert (demo.NATIVE_ASK_TIER, demo.EXIT_ZERO_BLOCK, demo.FAILURE_EXIT_CODE) == (False, False, 0)
    assert demo.INTEGRATION_MODE == "external_hook"


def test_a_version_lays_every_fact_of_its_windows_over_the_declaration() -> None:
    demo = _adapter(demo_version="1.0.102")
    assert demo.VERSION_FACTS == ("exit-two", "context")
    assert demo.feature("exit_2_denies") is True
    assert demo.COVERAGE == {
        "builtin": "covered",
        "mcp": "covered",
        "subagent": "unknown",
        "resumed": "unknown",
    }
    assert demo.UNRENDERED_FIELDS["pre_tool"] == {"mutated_input", "mutated_output"}
    assert demo.UNRENDERED_FIELDS["post_tool"] == {
        "additional_context",
        "mutated_input",
        "mutated_output",
    }
    assert {"pre_tool", "post_tool"} == demo.GATED_KINDS
    assert (demo.NATIVE_ASK_TIER, demo.EXIT_ZERO_BLOCK) == (True, True)
    assert (demo.FAILURE_EXIT_CODE, demo.FAILURE_STDOUT) == (2, {"x": 1})
    # Each version gets its own view: the shared declaration is never changed.
    assert _adapter(demo_version="1.0.24").VERSION_FACTS == ("context",)
    assert _adapter().FEATURES == {"exit_2_denies": False}


def test_a_version_below_the_supported_range_claims_no_block() -> None:
    old = _adapter(demo_version="0.9.0")
    assert old.INTEGRATION_MODE == "observe_only"
    assert old.VERSION_FACTS == ("old-observe",)
    assert "reason" in old.UNRENDERED_FIELDS["post_tool"]


def test_an_unreadable_version_is_no_version() -> None:
    assert _adapter(demo_version="garbage").VERSION_FACTS == ()
    assert _adapter(demo_version="garbage").HOST_VERSION == "garbage"


def test_a_version_sent_in_the_payload_is_used_unless_one_is_configured() -> None:
    demo = _adapter()
    assert demo.versioned({"host_version": "1.0.102"}).VERSION_FACTS == ("exit-two", "context")
    assert demo.versioned({"host_version": "1.0.102"}) is demo.versioned(
        {"host_version": "1.0.102"}
    )
    assert demo.versioned({"host_version": 7}) is demo
    assert demo.versioned({"host_version": "nope"}) is demo
    pinned = _adapter(demo_version="1.0.24")
    assert pinned.versioned({"host_version": "1.0.102"}) is pinned
    silent = _adapter(_declaration(VERSION_PAYLOAD_FIELD=None))
    assert silent.versioned({"host_version": "1.0.102"}) is silent


@pytest.mark.parametrize("agent", AGENT_IDS)
def test_every_host_reads_its_version_from_its_environment_variable(agent: str) -> None:
    env = {f"ACP_{agent.upper()}_VERSION": "9.9.9"}
    assert entry_adapter(agent, env).HOST_VERSION == "9.9.9"  # type: ignore[attr-defined]
    explicit = entry_adapter(agent, env, **{f"{agent}_version": "1.0.0"})
    assert explicit.HOST_VERSION == "1.0.0"  # type: ignore[attr-defined]


def test_an_option_a_host_does_not_take_is_one_line_naming_option_and_host() -> None:
    with pytest.raises(ValueError) as raised:
        adapter_for("copilot", codex_version="0.171.0")
    assert str(raised.value) == (
        "option codex_version is not taken by the copilot adapter; it takes: copilot_version"
    )


def _host(**changes: Any) -> dict[str, Any]:
    host: dict[str, Any] = {
        "unrendered_fields": {"pre_tool": ["additional_context"]},
        "features": {"flag": False},
        "versions": {
            "supported": {"min": "1.0.0", "max": "2.0.0"},
            "lab_pinned": "2.0.0",
            "unversioned": "x",
        },
        "version_facts": [],
    }
    host.update(changes)
    return host


def _fact(fact_id: str, set_: dict[str, Any], **window: str) -> dict[str, Any]:
    return {"id": fact_id, "fact": "f", "source": "s", "lab_verified": False, "set": set_, **window}


def test_declarations_with_well_formed_versions_pass_the_lint() -> None:
    facts = [
        _fact("a", {"features": {"flag": True}}, since="1.5.0"),
        _fact("b", {"rendered_fields": {"pre_tool": ["additional_context"]}}, since="1.2.0"),
        _fact("c", {"features": {"flag": True}}, until="1.5.0"),  # adjacent, not overlapping
    ]
    assert _version_problems(_host(version_facts=facts)) == []


@pytest.mark.parametrize(
    ("host", "problem"),
    [
        (
            _host(
                versions=None,
                version_facts=[_fact("a", {"features": {"flag": True}}, since="1.0.0")],
            ),
            "needs versions",
        ),
        (
            _host(
                versions={
                    "supported": {"min": "2.0.0", "max": "1.0.0"},
                    "lab_pinned": "2.0.0",
                    "unversioned": "x",
                }
            ),
            "min 2.0.0 is above max 1.0.0",
        ),
        (
            _host(
                versions={
                    "supported": {"min": "1.0.0", "max": "2.0.0"},
                    "lab_pinned": "2.1.0",
                    "unversioned": "x",
                }
            ),
            "lab version 2.1.0 is outside",
        ),
        (
            _host(
                version_facts=[_fact("a", {"native_ask_tier": True}, since="1.5.0", until="1.5.0")]
            ),
            "is not below until",
        ),
        (
            _host(version_facts=[_fact("a", {"features": {"other": True}}, since="1.5.0")]),
            "no value in the top-level",
        ),
        (
            _host(
                version_facts=[
                    _fact("a", {"native_ask_tier": True}, since="1.5.0"),
                    _fact("a", {"exit_zero_block": True}, since="1.6.0"),
                ]
            ),
            "id repeats",
        ),
        (
            _host(
                version_facts=[
                    _fact("a", {"features": {"flag": True}}, since="1.5.0"),
                    _fact("b", {"features": {"flag": False}}, until="1.6.0"),
                ]
            ),
            "both set ['features.flag']",
        ),
        (
            _host(
                version_facts=[
                    _fact("a", {"rendered_fields": {"post_tool": ["reason"]}}, since="1.5.0")
                ]
            ),
            "already hold on every version",
        ),
    ],
)
def test_the_lint_names_each_version_problem(host: dict[str, Any], problem: str) -> None:
    if host.get("versions") is None:
        host.pop("versions")
    found = _version_problems(host)
    assert any(problem in p for p in found), found
