"""The conformance kit's rule ids, errors, report, probe values and helpers."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, MutableMapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final

from .._generated.constants import (
    MODELED_TOOL_INPUT_KEYS,
    CallClasses,
    ContentField,
    ContentFields,
    Decision,
    Decisions,
    EventKinds,
    VerdictFields,
)
from .._generated.models.tool_call_event_schema import ToolCallEvent
from .._generated.models.verdict_schema import Verdict
from ..contract import make_event, normalize_verdict

RULES: Final[Mapping[str, str]] = MappingProxyType(
    {
        "fixture-agent": "The fixture file's agent is the adapter's AGENT.",
        "vacuous-suite": "The file has at least one case and renders at least one scenario.",
        "declarations-well-formed": "AGENT, INTEGRATION_MODE, NATIVE_ASK_TIER, NATIVE_EVENT_FOR and TOOL_ALIASES hold contract values.",
        "coverage-well-formed": "COVERAGE names exactly the four call classes, each with a coverage status.",
        "unrendered-rows-complete": "UNRENDERED_FIELDS is an immutable mapping with a frozenset row of content fields for every event kind.",
        "parse-never-raises": "parse returns a ToolCallEvent for any payload: fixture natives, non-objects, fields of the wrong type.",
        "unknown-never-vetoes": "Every event of kind unknown has this_call_vetoable false.",
        "call-class-coverage": "A case whose call_class has a coverage that forbids a veto parses non-vetoable.",
        "parse-golden": "parse(native) equals the case's golden event.",
        "allow-never-enforces": "An allow renders enforced false and exit code 0.",
        "ask-never-enforced": "An ask renders enforced false: it describes the host, never a block.",
        "enforced-nonzero-exit": "An enforced render exits non-zero, unless EXIT_ZERO_BLOCK says the host blocks on the body at exit 0.",
        "vetoable-deny-enforces": "A deny on a vetoable event renders enforced.",
        "non-vetoable-deny-not-enforced": "Nothing rendered for a non-vetoable event is enforced.",
        "render-golden": "render(verdict, event, sole_gate) equals the scenario's golden native response.",
        "coverage-decisions": "Across the file an allow, a deny, an ask, an enforced deny and a mutated_input reaching the host (in an unenforced render) are rendered.",
        "alias-witnessed": "Every tool alias has a fixture case whose native tool is the alias and whose tool is its target.",
        "alias-input-key": "An aliased tool's witnessing event carries the target's advertised input key.",
        "drift-probe": "An unmodelled event name parses as unknown with the name kept and its deny unenforced; an unmodelled field survives in meta.passthrough.",
        "native-event-for-parses": "Each NATIVE_EVENT_FOR name parses as its kind.",
        "non-vetoable-deny-differs-from-allow": "On a non-vetoable pre_tool event a deny renders differently from an abstaining allow (observe_only exempt).",
        "ask-tier-true": "NATIVE_ASK_TIER true: a pre_tool ask differs from the abstaining allow and from the enforced deny.",
        "ask-tier-false": "NATIVE_ASK_TIER false: a pre_tool ask equals the advisory deny (a deny on the non-vetoable variant).",
        "content-field-reaches-host": "A content field not in UNRENDERED_FIELDS[kind] reaches an unenforced response on every probe event of that kind.",
        "content-field-declared-dropped": "A content field in UNRENDERED_FIELDS[kind] appears in no response, enforced or not.",
    }
)
"""Every conformance rule id, in the order the harness checks them, with what it requires."""

RULE_IDS: Final[tuple[str, ...]] = tuple(RULES)
"""The stable rule ids a ConformanceError can name."""

# An event name and a top-level field no host models (drift discipline, seed "Drift discipline").
_DRIFT_EVENT: Final = "AcpConformanceDriftProbe"
_DRIFT_FIELD: Final = "acp_conformance_drift_probe"
_DRIFT_VALUE: Final[Mapping[str, Any]] = MappingProxyType({"added": ["by", "a", "newer host", 1]})
# Input key used for a mutated_input probe when the event's tool advertises none.
_PROBE_INPUT_KEY: Final = "acp_conformance_probe"
_PROBE_REASON: Final = "acp-conformance-probe:reason"
_PROBE_VALUES: Final[Mapping[ContentField, str]] = MappingProxyType(
    {name: f"acp-conformance-probe:{name}" for name in ContentFields.ALL}
)
# Untrusted payloads parse must survive (contract.md §3: untrusted native input never raises).
_ODD_PAYLOADS: Final[tuple[Any, ...]] = (None, True, 0, -1.5, "", "text", [], [{}])
_ODD_VALUES: Final[tuple[Any, ...]] = (None, True, 0, 2.5, "", [], {}, [None])
# The harness's own name for a deny rendered enforced (not a contract value).
_ENFORCED_DENY: Final = "enforced deny"
# What a file must render (contract.md §8); a mutated_input counts once it reaches the host.
_REQUIRED_DECISIONS: Final[tuple[str, ...]] = (
    Decisions.ALLOW,
    Decisions.DENY,
    Decisions.ASK,
    ContentFields.MUTATED_INPUT,
    _ENFORCED_DENY,
)
_TOOL_KINDS: Final[frozenset[str]] = frozenset({EventKinds.PRE_TOOL, EventKinds.POST_TOOL})
_SHOW_LIMIT: Final = 300


class _Keys:
    """Key names of the fixture-file format (fixtures/fixture.schema.json), named once."""

    AGENT: Final = "agent"
    CASES: Final = "cases"
    NAME: Final = "name"
    CALL_CLASS: Final = "call_class"
    ADAPTER_OPTIONS: Final = "adapter_options"
    NATIVE: Final = "native"
    EVENT: Final = "event"
    RENDER: Final = "render"
    VERDICT: Final = "verdict"
    SOLE_GATE: Final = "sole_gate"


class ConformanceError(AssertionError):
    """An adapter broke a conformance rule; the message names the rule id, the case and the scenario."""

    def __init__(
        self, rule: str, detail: str, *, case: str | None = None, scenario: str | None = None
    ) -> None:
        self.rule = rule
        self.case = case
        self.scenario = scenario
        self.detail = detail
        where = "" if case is None else f" in case {case!r}"
        if scenario is not None:
            where += f", scenario {scenario!r}"
        super().__init__(
            f"conformance rule {rule!r} failed{where}: {detail} (rule {rule}: {RULES[rule]})"
        )


class FixtureError(ValueError):
    """A fixture file is malformed, so no adapter can be judged against it."""


@dataclass(frozen=True)
class ConformanceReport:
    """What a passing run checked: counts of cases, scenarios, probe events and checks per rule."""

    agent: str
    cases: int
    scenarios: int
    probe_events: int
    checks: Mapping[str, int]

    @property
    def rule_ids(self) -> tuple[str, ...]:
        """The rule ids checked at least once, in RULE_IDS order."""
        return tuple(rule for rule in RULE_IDS if self.checks.get(rule, 0) > 0)


@dataclass(frozen=True)
class _Probe:
    """One event the probes render, with where it came from for messages."""

    case: str
    origin: str
    event: ToolCallEvent


def _fixture_cases(fixtures: object) -> list[Mapping[str, Any]]:
    """The cases of a fixture file, after checking the shape the harness reads."""
    if not isinstance(fixtures, Mapping):
        raise FixtureError(f"a fixture file is a JSON object, got {_show(fixtures)}")
    if not isinstance(fixtures.get(_Keys.AGENT), str):
        raise FixtureError("a fixture file needs a string 'agent'")
    cases = fixtures.get(_Keys.CASES)
    if not isinstance(cases, list):
        raise FixtureError("a fixture file needs a 'cases' array")
    names: set[str] = set()
    for index, case in enumerate(cases):
        where = f"cases[{index}]"
        if not isinstance(case, Mapping):
            raise FixtureError(f"{where} is not an object")
        name = case.get(_Keys.NAME)
        if not isinstance(name, str) or not name:
            raise FixtureError(f"{where} needs a non-empty string 'name'")
        if name in names:
            raise FixtureError(f"{where}: case name {name!r} is used twice; names must be unique")
        names.add(name)
        for key in (_Keys.NATIVE, _Keys.EVENT, _Keys.RENDER):
            if key not in case:
                raise FixtureError(f"case {name!r} has no {key!r}")
        if not isinstance(case[_Keys.EVENT], Mapping) or not isinstance(
            case[_Keys.RENDER], Mapping
        ):
            raise FixtureError(f"case {name!r}: 'event' and 'render' are objects")
        if _Keys.CALL_CLASS in case and case[_Keys.CALL_CLASS] not in CallClasses.ALL:
            raise FixtureError(f"case {name!r}: call_class is one of {CallClasses.ALL}")
        if not isinstance(case.get(_Keys.ADAPTER_OPTIONS, {}), Mapping):
            raise FixtureError(f"case {name!r}: adapter_options is an object")
        for scenario, spec in case[_Keys.RENDER].items():
            if (
                not isinstance(spec, Mapping)
                or not isinstance(spec.get(_Keys.VERDICT), Mapping)
                or not isinstance(spec.get(_Keys.NATIVE), Mapping)
                or not isinstance(spec.get(_Keys.SOLE_GATE, False), bool)
            ):
                raise FixtureError(
                    f"case {name!r}, scenario {scenario!r}: a scenario is {{verdict, sole_gate?, "
                    "native}} with object verdict and native and a boolean sole_gate"
                )
    return cases


def _verdict(spec: Mapping[str, Any], case: str, scenario: str) -> Verdict:
    """The Verdict a scenario names; a malformed one is a FixtureError."""
    unknown = sorted(set(spec) - set(VerdictFields.ALL))
    if unknown:
        raise FixtureError(
            f"case {case!r}, scenario {scenario!r}: unknown verdict key(s) {unknown}"
        )
    try:
        return normalize_verdict(spec)
    except (TypeError, ValueError) as exc:
        raise FixtureError(f"case {case!r}, scenario {scenario!r}: {exc}") from exc


def _unrendered_problem(rows: object) -> str:
    """Why an UNRENDERED_FIELDS value is malformed, or "" when it is well formed."""
    if not isinstance(rows, Mapping) or isinstance(rows, MutableMapping):
        return f"is {type(rows).__name__}; declare an immutable mapping (e.g. MappingProxyType)"
    missing = [kind for kind in EventKinds.ALL if kind not in rows]
    extra = sorted(str(kind) for kind in rows if kind not in EventKinds.ALL)
    if missing or extra:
        return f"has no row for {missing} or rows for unmodelled kinds {extra}; one row per kind"
    for kind, row in rows.items():
        if not isinstance(row, frozenset) or not row <= set(ContentFields.ALL):
            return f"row {kind!r} is {row!r}; each row is a frozenset of {ContentFields.ALL}"
    return ""


def _name_keys(native: Mapping[str, Any], event: ToolCallEvent) -> list[str]:
    """Top-level keys of a payload holding the parsed native event name (the event-name field)."""
    name = event.meta.native_event
    if not name:
        return []
    return [key for key, value in native.items() if isinstance(value, str) and value == name]


def _renamed(native: Mapping[str, Any], keys: list[str], name: str) -> dict[str, Any]:
    """A copy of a payload with its event-name field set to another name."""
    return {**native, **dict.fromkeys(keys, name)}


def _odd_variants(native: object) -> Iterator[tuple[str, Any]]:
    """A payload with each top-level field (and each field one level down) wrong-typed or removed."""
    if not isinstance(native, Mapping):
        return
    for key, value in native.items():
        yield f"field {key!r} removed", {k: v for k, v in native.items() if k != key}
        for odd in _ODD_VALUES:
            yield f"field {key!r} set to {_show(odd)}", {**native, key: odd}
        if isinstance(value, Mapping):
            for inner in value:
                for odd in (None, 0, []):
                    yield (
                        f"field {key!r}.{inner!r} set to {_show(odd)}",
                        {**native, key: {**value, inner: odd}},
                    )


def _non_vetoable(event: ToolCallEvent) -> ToolCallEvent:
    """The same event with this_call_vetoable false."""
    if not event.this_call_vetoable:
        return event
    return make_event(
        event=event.event,
        tool=event.tool,
        input=event.input,
        this_call_vetoable=False,
        meta=event.meta,
        response=event.response,
    )


def _variants(event: ToolCallEvent) -> list[tuple[ToolCallEvent, str]]:
    """The event as parsed and, when it is vetoable, its non-vetoable variant."""
    if not event.this_call_vetoable:
        return [(event, "")]
    return [(event, ""), (_non_vetoable(event), ", non-vetoable variant")]


def _verdicts(decision: Decision) -> tuple[Verdict, Verdict]:
    """A decision without a reason and with one: both must obey the same rule."""
    return Verdict(decision=decision), Verdict(decision=decision, reason=_PROBE_REASON)


def _probe_verdict(decision: Decision, field: ContentField, event: ToolCallEvent) -> Verdict:
    """A verdict carrying the field's probe value and nothing else."""
    needle = _PROBE_VALUES[field]
    if field == ContentFields.MUTATED_INPUT:
        key = MODELED_TOOL_INPUT_KEYS.get(event.tool or "", _PROBE_INPUT_KEY)
        return Verdict(decision=decision, mutated_input={**event.input, key: needle})
    if field == ContentFields.MUTATED_OUTPUT:
        return Verdict(decision=decision, mutated_output=needle)
    return Verdict(decision=decision, additional_context=needle)


def _holds(value: object, needle: object) -> bool:
    """Whether a JSON value equals needle (by JSON value) or holds it at any depth."""
    if _difference(needle, value) is None:
        return True
    if isinstance(value, Mapping):
        return any(_holds(item, needle) for item in value.values())
    if isinstance(value, list | tuple):
        return any(_holds(item, needle) for item in value)
    return False


def _mentions(value: object, needle: str) -> bool:
    """Whether a string anywhere in a JSON value (object keys included) contains needle."""
    if isinstance(value, str):
        return needle in value
    if isinstance(value, Mapping):
        return any(_mentions(k, needle) or _mentions(v, needle) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(_mentions(item, needle) for item in value)
    return False


def _difference(
    expected: object,
    actual: object,
    path: str = "$",
    names: tuple[str, str] = ("the golden", "the adapter"),
) -> str | None:
    """Where two JSON values differ (true is not 1, 1 is 1.0), or None when equal by value."""
    want_name, got_name = names
    if isinstance(expected, Mapping) and isinstance(actual, Mapping):
        for key in expected:
            if key not in actual:
                return f"at {path}: {want_name} has key {key!r} ({_show(expected[key])}), {got_name} has none"
        for key in actual:
            if key not in expected:
                return f"at {path}: {got_name} has key {key!r} ({_show(actual[key])}), {want_name} has none"
        for key in expected:
            found = _difference(expected[key], actual[key], f"{path}.{key}", names)
            if found:
                return found
        return None
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            return f"at {path}: {want_name} has {len(expected)} items, {got_name} {len(actual)}"
        for index, (want, got) in enumerate(zip(expected, actual, strict=True)):
            found = _difference(want, got, f"{path}[{index}]", names)
            if found:
                return found
        return None
    if _json_type(expected) != _json_type(actual) or expected != actual:
        return f"at {path}: {want_name} has {_show(expected)}, {got_name} has {_show(actual)}"
    return None


def _json_type(value: object) -> str:
    """The JSON type of a value: bool is not a number here."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return type(value).__name__


def _label(verdict: Verdict) -> str:
    """A short description of a verdict for messages."""
    return json.dumps(verdict.to_dict(), ensure_ascii=False, default=repr)


def _show(value: object) -> str:
    """A JSON rendering of a value for messages, cut to a readable length."""
    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= _SHOW_LIMIT else text[: _SHOW_LIMIT - 3] + "..."
