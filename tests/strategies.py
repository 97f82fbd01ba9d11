"""Hypothesis strategies: JSON values, mutated host payloads from the fixtures, valid verdicts."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from functools import cache
from typing import Any

from hypothesis import strategies as st

from agent_control_plane_core import AGENT_IDS, Adapter, Verdict, adapter_for
from agent_control_plane_core._generated.constants import (
    MODELED_TOOLS,
    TOOL_ALIASES,
    VERDICT_FIELD_TYPES,
    Decisions,
    VerdictFields,
)

from conftest import FIXTURES_DIR, load_json

# Adapter configurations every property runs on: codex both enforcing and without a version.
ADAPTER_CONFIGS: dict[str, tuple[str, dict[str, str]]] = {
    # Every shipped adapter; codex twice, since its version decides whether anything can block.
    **{agent: (agent, {}) for agent in AGENT_IDS if agent != "codex"},
    "codex-enforcing": ("codex", {"codex_version": "0.150.0"}),
    "codex-observe": ("codex", {"codex_version": "0.100.0"}),  # below the supported range
    "codex-unversioned": ("codex", {}),
    "copilot-1.0.102": ("copilot", {"copilot_version": "1.0.102"}),
}

# Names that mean something to an object model; to a parser they must be plain strings.
TRICKY_NAMES: tuple[str, ...] = (
    "__proto__",
    "__class__",
    "__dict__",
    "__init__",
    "constructor",
    "prototype",
    "keys",
    "items",
    "get",
    "toString",
    "hasOwnProperty",
    "",
)

_SPECIAL_TEXT: tuple[str, ...] = (
    "\ud800",  # a lone surrogate: what the JSON escape "\ud800" decodes to
    "PreToolUse\udfff",
    "\x00",
    "\u2028\u2029",
    "e\u0301",
    "\U0001f600",
    "\ufeff",
    " ",
    "rm -rf /",
)


def configured(config: str) -> Adapter:
    """The adapter of one named configuration."""
    agent, options = ADAPTER_CONFIGS[config]
    return adapter_for(agent, **options)


@cache
def texts(max_size: int = 12) -> st.SearchStrategy[str]:
    """Unicode text (lone surrogates included), tricky names and a few known-odd strings."""
    return st.one_of(
        st.text(max_size=max_size),
        st.text(
            alphabet=st.characters(codec=None, categories=["Cs", "Zl", "Zp", "Cc"]), max_size=4
        ),
        st.sampled_from(TRICKY_NAMES + _SPECIAL_TEXT),
    )


@cache
def huge_strings() -> st.SearchStrategy[str]:
    """Strings of 10k to 200k characters built from a short unicode seed."""
    return st.builds(
        lambda seed, size: (seed or "x") * (size // max(1, len(seed or "x"))),
        st.text(min_size=1, max_size=4),
        st.integers(min_value=10_000, max_value=200_000),
    )


@cache
def keys() -> st.SearchStrategy[str]:
    """Object keys: arbitrary text, tricky names and the field names hosts really use."""
    return st.one_of(texts(), st.sampled_from(sorted(_host_vocabulary())))


@cache
def json_leaves() -> st.SearchStrategy[Any]:
    """JSON scalars as json.loads returns them (no NaN: JSON has none)."""
    return st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(allow_nan=False, allow_infinity=False),
        texts(),
    )


@cache
def json_values(max_leaves: int = 12) -> st.SearchStrategy[Any]:
    """Arbitrary JSON values with nested arrays and objects."""
    return st.recursive(
        json_leaves(),
        lambda children: st.one_of(
            st.lists(children, max_size=4),
            st.dictionaries(keys(), children, max_size=4),
        ),
        max_leaves=max_leaves,
    )


def deep(value: Any, depth: int, as_object: bool) -> Any:
    """Wrap a value in depth nested arrays or objects."""
    for _ in range(depth):
        value = {"__proto__": value} if as_object else [value]
    return value


@cache
def odd_values() -> st.SearchStrategy[Any]:
    """Values a host should not send: wrong types, null, huge strings, deep nesting."""
    return st.one_of(
        json_values(),
        huge_strings(),
        st.builds(deep, json_leaves(), st.integers(50, 400), st.booleans()),
    )


@cache
def fixture_payloads(agent: str) -> tuple[dict[str, Any], ...]:
    """The object payloads of one host's golden fixture file (real payload shapes)."""
    cases = load_json(FIXTURES_DIR / f"{agent}.json")["cases"]
    return tuple(case["native"] for case in cases if isinstance(case["native"], dict))


@cache
def _host_vocabulary() -> frozenset[str]:
    names: set[str] = set()
    for agent in AGENT_IDS:
        for payload in fixture_payloads(agent):
            names.update(payload)
            tool_input = payload.get("tool_input", payload.get("input"))
            if isinstance(tool_input, dict):
                names.update(tool_input)
    return frozenset(names)


@cache
def _event_names() -> tuple[str, ...]:
    names: set[str] = {"Stop", "Notification", "PreCompact", "SubagentStop", "delegate"}
    for agent in AGENT_IDS:
        adapter = adapter_for(agent)
        names.update(adapter.NATIVE_EVENT_FOR.values())
        names.update(str(p.get("hook_event_name")) for p in fixture_payloads(agent))
    return tuple(sorted(names))


@cache
def _tool_names() -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(
            MODELED_TOOLS
            + tuple(TOOL_ALIASES)
            + ("read_file", "write_file", "web_fetch", "edit_file", "mcp__github__x", "mcp_fs_read")
        ),
        texts(),
    )


Mutation = Callable[[st.DrawFn, dict[str, Any]], None]


def _add_field(draw: st.DrawFn, payload: dict[str, Any]) -> None:
    payload[draw(keys())] = draw(json_values())


def _drop_field(draw: st.DrawFn, payload: dict[str, Any]) -> None:
    if payload:
        payload.pop(draw(st.sampled_from(sorted(payload))))


def _retype_field(draw: st.DrawFn, payload: dict[str, Any]) -> None:
    if payload:
        payload[draw(st.sampled_from(sorted(payload)))] = draw(odd_values())


def _rename_event(draw: st.DrawFn, payload: dict[str, Any]) -> None:
    payload["hook_event_name"] = draw(st.one_of(st.sampled_from(_event_names()), texts()))


def _rename_tool(draw: st.DrawFn, payload: dict[str, Any]) -> None:
    key = draw(st.sampled_from(("tool_name", "tool")))
    payload[key] = draw(_tool_names())


def _mutate_input(draw: st.DrawFn, payload: dict[str, Any]) -> None:
    key = draw(st.sampled_from(("tool_input", "input")))
    tool_input = payload.get(key)
    if not isinstance(tool_input, dict):
        tool_input = {}
    tool_input = dict(tool_input)
    tool_input[draw(keys())] = draw(odd_values())
    payload[key] = tool_input


def _call_class_field(draw: st.DrawFn, payload: dict[str, Any]) -> None:
    key = draw(st.sampled_from(("mcp_context", "agent_type")))
    payload[key] = draw(st.one_of(json_values(), st.just({}), st.just("reviewer")))


MUTATIONS: tuple[Mutation, ...] = (
    _add_field,
    _drop_field,
    _retype_field,
    _rename_event,
    _rename_tool,
    _mutate_input,
    _call_class_field,
)


_MUTATION_LISTS = st.lists(st.sampled_from(MUTATIONS), max_size=5)


@st.composite
def mutated_payloads(draw: st.DrawFn, agent: str) -> dict[str, Any]:
    """A real payload of the host's fixtures with a few additive, subtractive or retyping changes."""
    payload = copy.deepcopy(draw(st.sampled_from(fixture_payloads(agent))))
    for mutation in draw(_MUTATION_LISTS):
        mutation(draw, payload)
    return payload


@cache
def payloads(agent: str) -> st.SearchStrategy[Any]:
    """Anything a host's hook could receive: arbitrary JSON or a mutated real payload."""
    return st.one_of(json_values(), mutated_payloads(agent), mutated_payloads(agent))


@cache
def _typed_values(expected: str) -> st.SearchStrategy[Any]:
    if expected == "string":
        return texts()
    return st.dictionaries(keys(), json_values(6), max_size=4)


@st.composite
def verdicts(draw: st.DrawFn) -> Verdict:
    """A valid Verdict: any decision, each optional field absent or present with a legal value."""
    fields: dict[str, Any] = {}
    for name in VerdictFields.ALL:
        if name == VerdictFields.DECISION or not draw(st.booleans()):
            continue
        expected = VERDICT_FIELD_TYPES.get(name)
        fields[name] = draw(json_values(6) if expected is None else _typed_values(expected))
    return Verdict(decision=draw(st.sampled_from(Decisions.ALL)), **fields)


@cache
def bridge_lines() -> st.SearchStrategy[str]:
    """Lines for `acp bridge`: well-formed requests, malformed ones and arbitrary text."""
    request = st.fixed_dictionaries(
        {"agent": st.one_of(st.sampled_from(AGENT_IDS), texts())},
        optional={
            "native": st.one_of(*(mutated_payloads(a) for a in AGENT_IDS), json_values()),
            "verdict": st.one_of(verdicts().map(Verdict.to_dict), json_values()),
            "options": st.one_of(
                st.fixed_dictionaries(
                    {},
                    optional={
                        "sole_gate": st.one_of(st.booleans(), json_leaves()),
                        "codex_version": st.one_of(
                            st.sampled_from(("0.150.0", "0.134.9", "v1.2", "garbage")),
                            json_leaves(),
                        ),
                    },
                ),
                json_values(),
            ),
            "extra": json_leaves(),
        },
    )
    return st.one_of(
        request.map(lambda value: json.dumps(value, ensure_ascii=False)),
        json_values().map(json.dumps),
        texts(40),
    )
