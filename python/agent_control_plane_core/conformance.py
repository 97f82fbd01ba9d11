"""Conformance kit: checks an adapter against its golden fixture file and every rule of contract.md §8."""

# A fixture file (shape: ``fixtures/fixture.schema.json``) lists cases: a native payload, the
# ToolCallEvent it must parse to, and verdict scenarios with the NativeResponse each must render to.
# ``run_adapter_conformance`` replays the goldens and then probes the adapter itself, so a suite whose
# goldens were written from a broken adapter still fails. Every rule has a stable id (``RULES``); a
# failure raises ``ConformanceError`` naming the rule, the case and the scenario.
#
# Probing, in short (contract.md §8):
#
# * Probe adapters: the adapter as given, and one per distinct ``adapter_options`` of the cases. Each
#   parses every fixture native; kinds none of those parse to are synthesized: a fixture native whose
#   event-name field (found as the top-level string equal to the parsed ``meta.native_event``) is set
#   to ``NATIVE_EVENT_FOR[kind]``, the drift probe for ``unknown``, else an event built with
#   ``make_event`` (not vetoable) from a parsed fixture event.
# * A content field *appears* in a render when, for a decision (allow, deny, ask), ``sole_gate``
#   value and vetoability (the event as parsed and its non-vetoable variant), a distinct probe value
#   in that field is in the response (stdout keys and values, stderr; substring match) and not in the
#   same render without the field. It *reaches the host* when it appears in a render with
#   ``enforced`` false: hosts ignore an exit-2 block's stdout and read its stderr only as the block
#   reason (docs/contract.md §5; the Claude Code and Codex hooks docs). A field outside ``UNRENDERED_FIELDS[kind]`` must reach the host on every
#   probe event of that kind; a field inside must appear in no render at all, enforced or not.
# * File-level failures (the declarations, the suite as a whole, an alias no case witnesses) name
#   the case ``<file: AGENT>`` or ``<declarations: AGENT>``, AGENT being the fixture file's agent.
# * Host aliases come from the optional adapter attribute ``TOOL_ALIASES`` (native name to canonical
#   tool, host-scoped) plus the global map; each needs a witnessing fixture case.

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterator, Mapping, MutableMapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final, NoReturn

from ._generated.constants import (
    MODELED_TOOL_INPUT_KEYS,
    TOOL_ALIASES,
    CallClasses,
    ContentField,
    ContentFields,
    CoverageStatuses,
    Decision,
    Decisions,
    EventKind,
    EventKinds,
    EventMetaFields,
    IntegrationModes,
    NativeResponseFields,
    VerdictFields,
)
from ._generated.models.native_response_schema import NativeResponse
from ._generated.models.tool_call_event_schema import EventMeta, ToolCallEvent
from ._generated.models.verdict_schema import Verdict
from ._model_base import ABSENT
from .adapters._base import Adapter
from .contract import coverage_allows_veto, make_event, normalize_verdict

__all__ = [
    "RULES",
    "RULE_IDS",
    "ConformanceError",
    "ConformanceReport",
    "FixtureError",
    "assert_conforms",
    "load_fixtures",
    "run_adapter_conformance",
    "validate_fixtures",
]

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


def load_fixtures(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a fixture file as JSON; raise FixtureError when it is not a JSON object."""
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    if not isinstance(data, dict):
        raise FixtureError(f"{os.fspath(path)}: a fixture file is a JSON object, got {_show(data)}")
    return data


def validate_fixtures(fixtures: Mapping[str, Any]) -> None:
    """Validate a parsed fixture file against the packaged fixture.schema.json (needs jsonschema)."""
    # Imported here: jsonschema is a test-time dependency of this kit, never of the hook path.
    from jsonschema.exceptions import best_match

    from .schemas import validator_for

    error = best_match(validator_for("fixture").iter_errors(fixtures))
    if error is not None:
        where = "/".join(str(part) for part in error.absolute_path) or "(top level)"
        raise FixtureError(
            f"fixture file does not match fixture.schema.json at {where}: {error.message}"
        )


def assert_conforms(
    adapter: Adapter, fixtures: Mapping[str, Any] | str | os.PathLike[str]
) -> ConformanceReport:
    """Validate a fixture file (path or parsed dict) against its schema, then run the harness on it."""
    data = fixtures if isinstance(fixtures, Mapping) else load_fixtures(fixtures)
    validate_fixtures(data)
    return run_adapter_conformance(adapter, data)


def run_adapter_conformance(adapter: Adapter, fixtures: Mapping[str, Any]) -> ConformanceReport:
    """Check an adapter against a parsed fixture file; raise ConformanceError on the first failure."""
    return _Run(adapter, fixtures).run()


@dataclass(frozen=True)
class _Probe:
    """One event the probes render, with where it came from for messages."""

    case: str
    origin: str
    event: ToolCallEvent


class _Run:
    """State of one conformance run: the adapters, the parsed cases and the check counts."""

    def __init__(self, adapter: Adapter, fixtures: Mapping[str, Any]) -> None:
        self.adapter = adapter
        self.cases = _fixture_cases(fixtures)
        self.fixture_agent: str = fixtures[_Keys.AGENT]
        # The case a file-level failure names: no single case is at fault.
        self.file_case = f"<file: {self.fixture_agent}>"
        self.checks: Counter[str] = Counter()
        # Distinct adapter_options (as sorted JSON) -> (options, configured adapter).
        self.adapters: dict[str, tuple[Mapping[str, Any], Adapter]] = {"{}": ({}, adapter)}
        self.parsed: list[tuple[str, ToolCallEvent]] = []
        self.rendered: set[str] = set()
        self.scenarios = 0
        self.probe_events = 0

    # -- bookkeeping ----------------------------------------------------------------------

    def count(self, rule: str) -> None:
        """Record one check of a rule."""
        self.checks[rule] += 1

    def fail(
        self, rule: str, detail: str, case: str | None = None, scenario: str | None = None
    ) -> NoReturn:
        """Raise the ConformanceError for a rule."""
        raise ConformanceError(rule, detail, case=case, scenario=scenario)

    # -- the run ----------------------------------------------------------------------------

    def run(self) -> ConformanceReport:
        """Check the file-level rules, every case, the aliases, then probe every adapter."""
        agent = getattr(self.adapter, "AGENT", None)
        self.count("fixture-agent")
        if self.fixture_agent != agent:
            self.fail(
                "fixture-agent",
                f"the fixture file is for agent {self.fixture_agent!r} but the adapter's AGENT is "
                f"{agent!r}: run each adapter against its own fixture file",
                self.file_case,
            )
        self.count("vacuous-suite")
        if not self.cases or not any(case[_Keys.RENDER] for case in self.cases):
            self.fail(
                "vacuous-suite",
                f"the fixture file has {len(self.cases)} case(s) and no rendered scenario, so it "
                "checks nothing: add cases with verdict scenarios",
                self.file_case,
            )
        self.declarations(self.adapter, "")
        for case in self.cases:
            self.case(case)
        self.coverage_decisions()
        self.aliases()
        for options, configured in self.adapters.values():
            self.probe_adapter(configured, options)
        return ConformanceReport(
            agent=str(agent),
            cases=len(self.cases),
            scenarios=self.scenarios,
            probe_events=self.probe_events,
            checks=MappingProxyType(dict(self.checks)),
        )

    def configured(self, options: Mapping[str, Any], case: str) -> Adapter:
        """The adapter configured with a case's adapter_options (cached per distinct options)."""
        key = json.dumps(options, sort_keys=True)
        if key not in self.adapters:
            try:
                adapter = self.adapter.configure(**options)
            except Exception as exc:
                raise FixtureError(
                    f"case {case!r}: adapter.configure(**{options!r}) raised "
                    f"{type(exc).__name__}: {exc}; fix the case's adapter_options"
                ) from exc
            self.adapters[key] = (options, adapter)
            self.declarations(adapter, f" configured with {options!r}")
        return self.adapters[key][1]

    # -- declarations (contract.md §4) ---------------------------------------------------------

    def declarations(self, adapter: Adapter, label: str) -> None:
        """Check the declaration attributes an adapter exposes."""
        who = f"adapter {getattr(adapter, 'AGENT', None)!r}{label}"
        case = f"<declarations: {self.fixture_agent}{label}>"
        self.count("declarations-well-formed")
        agent = getattr(adapter, "AGENT", None)
        if not isinstance(agent, str) or not agent:
            self.fail(
                "declarations-well-formed", f"{who}: AGENT is {agent!r}, not a non-empty str", case
            )
        mode = getattr(adapter, "INTEGRATION_MODE", None)
        if mode not in IntegrationModes.ALL:
            self.fail(
                "declarations-well-formed",
                f"{who}: INTEGRATION_MODE is {mode!r}, not one of {IntegrationModes.ALL}",
                case,
            )
        tier = getattr(adapter, "NATIVE_ASK_TIER", None)
        if not isinstance(tier, bool):
            self.fail(
                "declarations-well-formed", f"{who}: NATIVE_ASK_TIER is {tier!r}, not a bool", case
            )
        event_for = getattr(adapter, "NATIVE_EVENT_FOR", None)
        if not isinstance(event_for, Mapping) or not all(
            kind in EventKinds.ALL and isinstance(name, str) and name
            for kind, name in event_for.items()
        ):
            self.fail(
                "declarations-well-formed",
                f"{who}: NATIVE_EVENT_FOR is {event_for!r}; it maps event kinds to non-empty "
                "native event names",
                case,
            )
        aliases = getattr(adapter, "TOOL_ALIASES", {})
        if not isinstance(aliases, Mapping) or not all(
            isinstance(name, str) and isinstance(target, str) for name, target in aliases.items()
        ):
            self.fail(
                "declarations-well-formed",
                f"{who}: TOOL_ALIASES is {aliases!r}; it maps native tool names to canonical tools",
                case,
            )
        self.count("coverage-well-formed")
        coverage = getattr(adapter, "COVERAGE", None)
        if (
            not isinstance(coverage, Mapping)
            or sorted(coverage) != sorted(CallClasses.ALL)
            or not all(status in CoverageStatuses.ALL for status in coverage.values())
        ):
            self.fail(
                "coverage-well-formed",
                f"{who}: COVERAGE is {coverage!r}; it must name exactly {CallClasses.ALL}, each "
                f"with one of {CoverageStatuses.ALL}",
                case,
            )
        self.count("unrendered-rows-complete")
        rows = getattr(adapter, "UNRENDERED_FIELDS", None)
        problem = _unrendered_problem(rows)
        if problem:
            self.fail("unrendered-rows-complete", f"{who}: UNRENDERED_FIELDS {problem}", case)

    # -- cases -------------------------------------------------------------------------------

    def case(self, case: Mapping[str, Any]) -> None:
        """Check one case: parse rules and golden, then every scenario's invariants and golden."""
        name: str = case[_Keys.NAME]
        adapter = self.configured(case.get(_Keys.ADAPTER_OPTIONS, {}), name)
        event = self.parse(adapter, case[_Keys.NATIVE], "parse-never-raises", name)
        self.unknown_never_vetoes(event, name)
        if _Keys.CALL_CLASS in case:
            call_class = case[_Keys.CALL_CLASS]
            status = adapter.COVERAGE.get(call_class)
            self.count("call-class-coverage")
            if not coverage_allows_veto(status) and event.this_call_vetoable:
                self.fail(
                    "call-class-coverage",
                    f"call class {call_class!r} has coverage {status!r}, which forbids a veto, "
                    "but the event parsed this_call_vetoable true: parse it non-vetoable or fix "
                    "COVERAGE",
                    name,
                )
        self.count("parse-golden")
        difference = _difference(case[_Keys.EVENT], event.to_dict())
        if difference:
            self.fail(
                "parse-golden",
                f"parse(native) differs from the golden event {difference}; fix the adapter or, "
                "if the golden is wrong, the fixture",
                name,
            )
        self.parsed.append((name, event))
        for scenario, spec in case[_Keys.RENDER].items():
            verdict = _verdict(spec[_Keys.VERDICT], name, scenario)
            sole_gate = spec.get(_Keys.SOLE_GATE, False)
            out = self.render(adapter, verdict, event, sole_gate, "render-golden", name, scenario)
            self.scenarios += 1
            self.count("render-golden")
            difference = _difference(spec[_Keys.NATIVE], out)
            if difference:
                self.fail(
                    "render-golden",
                    f"render(verdict, event, sole_gate={sole_gate}) differs from the golden native "
                    f"response {difference}",
                    name,
                    scenario,
                )
            enforced = out.get(NativeResponseFields.ENFORCED) is True
            self.rendered.add(verdict.decision)
            if verdict.mutated_input is not ABSENT and self.rewrite_counts(adapter, verdict, out):
                self.rendered.add(ContentFields.MUTATED_INPUT)
            if verdict.decision == Decisions.DENY and enforced:
                self.rendered.add(_ENFORCED_DENY)

    def rewrite_counts(self, adapter: Adapter, verdict: Verdict, out: Mapping[str, Any]) -> bool:
        """Whether a scenario's mutated_input counts for coverage-decisions."""
        # contract.md §5: the host ignores an enforced render's stdout, so a rewrite counts only
        # when an unenforced render carries its value. A host with no mutated_input channel on any
        # kind (contract.md §4: amp) can only witness the drop, which content-field-declared-dropped
        # checks, so there any rendered rewrite counts.
        if not any(
            ContentFields.MUTATED_INPUT not in row for row in adapter.UNRENDERED_FIELDS.values()
        ):
            return True
        return out.get(NativeResponseFields.ENFORCED) is False and _holds(
            out, verdict.mutated_input
        )

    def coverage_decisions(self) -> None:
        """The file renders an allow, a deny, an ask, an enforced deny and a rewrite the host reads."""
        self.count("coverage-decisions")
        missing = [item for item in _REQUIRED_DECISIONS if item not in self.rendered]
        if missing:
            self.fail(
                "coverage-decisions",
                f"no scenario in the file renders {', '.join(missing)}: add scenarios so the "
                f"suite renders every one of {', '.join(_REQUIRED_DECISIONS)} (a "
                f"{ContentFields.MUTATED_INPUT} counts only when its value is in an unenforced "
                "render, where the host reads it)",
                self.file_case,
            )

    def aliases(self) -> None:
        """Every host and global alias is witnessed by a case carrying the advertised input key."""
        host: dict[str, str] = {}
        for _, configured in self.adapters.values():
            host.update(getattr(configured, "TOOL_ALIASES", {}))
        combined = {**host, **TOOL_ALIASES}
        for native, target in sorted(combined.items()):
            witnesses = [
                (case, event)
                for case, event in self.parsed
                if event.meta.native_tool == native and event.tool == target
            ]
            self.count("alias-witnessed")
            if not witnesses:
                self.fail(
                    "alias-witnessed",
                    f"alias {native!r} -> {target!r} has no witness: add a case whose native tool "
                    f"is {native!r} and whose event tool is {target!r}",
                    self.file_case,
                )
            key = MODELED_TOOL_INPUT_KEYS.get(target)
            carrying = [case for case, event in witnesses if key is not None and key in event.input]
            self.count("alias-input-key")
            if not carrying:
                self.fail(
                    "alias-input-key",
                    f"no event aliased {native!r} -> {target!r} carries the input key {key!r} "
                    f"that {target!r} advertises (tool-input-keys.json)",
                    witnesses[0][0],
                )
            if native in TOOL_ALIASES:
                continue
            # contract.md §3: a host-scoped alias applies only when the advertised key is present.
            for case, event in witnesses:
                self.count("alias-input-key")
                if key not in event.input:
                    self.fail(
                        "alias-input-key",
                        f"host alias {native!r} -> {target!r} applied to an input without "
                        f"{key!r}: a host alias needs the target's advertised input key",
                        case,
                    )

    # -- probes --------------------------------------------------------------------------------

    def probe_adapter(self, adapter: Adapter, options: Mapping[str, Any]) -> None:
        """Probe one adapter configuration: robustness, drift, synthesized kinds, every probe event."""
        suffix = f" (adapter options {dict(options)!r})" if options else ""
        natives = [(case[_Keys.NAME], case[_Keys.NATIVE]) for case in self.cases]
        self.parse_never_raises(adapter, natives, suffix)
        probes = [
            _Probe(
                name,
                f"fixture native{suffix}",
                self.parse(adapter, native, "parse-never-raises", name),
            )
            for name, native in natives
        ]
        templates = [
            (name, native, keys)
            for (name, native), probe in zip(natives, probes, strict=True)
            if isinstance(native, dict) and (keys := _name_keys(native, probe.event))
        ]
        drifted = self.drift_probe(adapter, natives, templates, suffix)
        seen = {probe.event.event for probe in probes}
        by_name = self.native_event_for(adapter, templates, suffix)
        for kind in EventKinds.ALL:
            if kind in seen:
                continue
            extra = by_name.get(kind, [])
            if not extra and kind == EventKinds.UNKNOWN:
                extra = drifted
            if not extra:
                extra = [self.built_probe(adapter, kind, probes, suffix)]
            probes += extra
        for probe in probes:
            self.probe_event(adapter, probe)

    def parse_never_raises(
        self, adapter: Adapter, natives: list[tuple[str, Any]], suffix: str
    ) -> None:
        """parse survives non-object payloads and fixture natives with fields of the wrong type."""
        for payload in _ODD_PAYLOADS:
            scenario = f"payload {_show(payload)}{suffix}"
            event = self.parse(adapter, payload, "parse-never-raises", self.file_case, scenario)
            self.unknown_never_vetoes(event, self.file_case, scenario)
        for name, native in natives:
            for label, payload in _odd_variants(native):
                event = self.parse(adapter, payload, "parse-never-raises", name, label + suffix)
                self.unknown_never_vetoes(event, name, label + suffix)

    def drift_probe(
        self,
        adapter: Adapter,
        natives: list[tuple[str, Any]],
        templates: list[tuple[str, dict[str, Any], list[str]]],
        suffix: str,
    ) -> list[_Probe]:
        """An unmodelled event name parses as unknown and cannot block; an unmodelled field is kept."""
        for name, native in natives:
            if not isinstance(native, dict):
                continue
            scenario = f"unmodelled field {_DRIFT_FIELD!r} added{suffix}"
            event = self.parse(
                adapter, {**native, _DRIFT_FIELD: dict(_DRIFT_VALUE)}, "drift-probe", name, scenario
            )
            self.count("drift-probe")
            if event.meta.passthrough.get(_DRIFT_FIELD) != dict(_DRIFT_VALUE):
                self.fail(
                    "drift-probe",
                    f"an unmodelled top-level field was not kept verbatim in meta.passthrough "
                    f"(got {_show(event.meta.passthrough)}); every field parse does not consume "
                    "stays there (contract.md §2)",
                    name,
                    scenario,
                )
        drifted: list[_Probe] = []
        for name, native, keys in templates:
            scenario = f"event name set to {_DRIFT_EVENT!r}{suffix}"
            event = self.parse(
                adapter, _renamed(native, keys, _DRIFT_EVENT), "drift-probe", name, scenario
            )
            self.count("drift-probe")
            if event.event != EventKinds.UNKNOWN or event.meta.native_event != _DRIFT_EVENT:
                self.fail(
                    "drift-probe",
                    f"an unmodelled event name parsed as kind {event.event!r} with native_event "
                    f"{event.meta.native_event!r}; it must parse as 'unknown' with the name kept "
                    "(contract.md §4)",
                    name,
                    scenario,
                )
            self.unknown_never_vetoes(event, name, scenario)
            for verdict in _verdicts(Decisions.DENY):
                out = self.render(
                    adapter, verdict, event, False, "drift-probe", name, scenario, check=False
                )
                self.count("drift-probe")
                if out.get(NativeResponseFields.ENFORCED) is True:
                    self.fail(
                        "drift-probe",
                        f"a deny on an unmodelled event rendered enforced ({_show(out)}); nothing "
                        "knows what the host does with a block there, so it must stay advisory",
                        name,
                        scenario,
                    )
                self.invariants(adapter, verdict, event, out, name, scenario)
            drifted.append(_Probe(name, f"drift probe{suffix}", event))
        return drifted

    def native_event_for(
        self,
        adapter: Adapter,
        templates: list[tuple[str, dict[str, Any], list[str]]],
        suffix: str,
    ) -> dict[str, list[_Probe]]:
        """Each NATIVE_EVENT_FOR name parses as its kind; returns those events by kind."""
        found: dict[str, list[_Probe]] = {}
        if not templates:
            return found  # the payload names no event (e.g. an exit-code delegate): nothing to set
        for kind, native_name in adapter.NATIVE_EVENT_FOR.items():
            events = []
            for name, native, keys in templates:
                scenario = f"event name set to {native_name!r}{suffix}"
                event = self.parse(
                    adapter,
                    _renamed(native, keys, native_name),
                    "native-event-for-parses",
                    name,
                    scenario,
                )
                if event.event == kind:
                    events.append(
                        _Probe(name, f"synthesized {kind} as {native_name!r}{suffix}", event)
                    )
            self.count("native-event-for-parses")
            if not events:
                self.fail(
                    "native-event-for-parses",
                    f"NATIVE_EVENT_FOR maps {kind!r} to {native_name!r}, but a fixture payload "
                    f"renamed to {native_name!r} never parses as {kind!r}: fix the declaration",
                    templates[0][0],
                )
            found[kind] = events
        return found

    def built_probe(
        self, adapter: Adapter, kind: EventKind, probes: list[_Probe], suffix: str
    ) -> _Probe:
        """A non-vetoable event of a kind parse cannot produce, built with make_event."""
        base = (
            probes[0]
            if probes
            else _Probe(
                self.file_case,
                "empty payload",
                self.parse(adapter, {}, "parse-never-raises", self.file_case, "empty payload"),
            )
        )
        tool = base.event.tool if kind in _TOOL_KINDS else None
        meta = base.event.meta.to_dict()
        meta[EventMetaFields.NATIVE_EVENT] = adapter.NATIVE_EVENT_FOR.get(kind, _DRIFT_EVENT)
        if tool is None:
            meta.pop(EventMetaFields.NATIVE_TOOL, None)
        else:
            meta.setdefault(EventMetaFields.NATIVE_TOOL, tool)
        event = make_event(
            event=kind,
            tool=tool,
            input=dict(base.event.input) if tool is not None else {},
            this_call_vetoable=False,
            meta=EventMeta.from_dict(meta),
        )
        return _Probe(base.case, f"synthesized {kind} with make_event{suffix}", event)

    def probe_event(self, adapter: Adapter, probe: _Probe) -> None:
        """Run the behaviour probes on one event."""
        self.probe_events += 1
        event = probe.event
        self.unknown_never_vetoes(event, probe.case, probe.origin)
        if event.event == EventKinds.PRE_TOOL:
            self.non_vetoable_deny(adapter, probe)
            self.ask_tier(adapter, probe)
        self.content_fields(adapter, probe)

    def non_vetoable_deny(self, adapter: Adapter, probe: _Probe) -> None:
        """On the non-vetoable variant a deny differs from the abstaining allow (not observe_only)."""
        event = _non_vetoable(probe.event)
        # contract.md §8: an observe_only transport has no pre-emption channel to differ in.
        if event.meta.integration_mode == IntegrationModes.OBSERVE_ONLY:
            return
        scenario = f"{probe.origin}, non-vetoable variant"
        allow = self.render(
            adapter,
            Verdict(decision=Decisions.ALLOW),
            event,
            False,
            "non-vetoable-deny-differs-from-allow",
            probe.case,
            scenario,
        )
        for verdict in _verdicts(Decisions.DENY):
            deny = self.render(
                adapter,
                verdict,
                event,
                False,
                "non-vetoable-deny-differs-from-allow",
                probe.case,
                scenario,
            )
            self.count("non-vetoable-deny-differs-from-allow")
            if _difference(allow, deny) is None:
                self.fail(
                    "non-vetoable-deny-differs-from-allow",
                    f"a deny the host cannot enforce renders exactly like the abstaining allow "
                    f"({_show(deny)}): render it as an ask or an advisory body so the objection "
                    "reaches someone",
                    probe.case,
                    f"{scenario}, {_label(verdict)}",
                )

    def ask_tier(self, adapter: Adapter, probe: _Probe) -> None:
        """NATIVE_ASK_TIER agrees with what render does with an ask on this pre_tool event."""
        tier = adapter.NATIVE_ASK_TIER
        rule = "ask-tier-true" if tier else "ask-tier-false"
        for event, variant in _variants(probe.event):
            scenario = f"{probe.origin}{variant}"
            for ask in _verdicts(Decisions.ASK):
                got = self.render(adapter, ask, event, False, rule, probe.case, scenario)
                self.count(rule)
                if tier:
                    allow = self.render(
                        adapter,
                        Verdict(decision=Decisions.ALLOW, reason=ask.reason),
                        event,
                        False,
                        rule,
                        probe.case,
                        scenario,
                    )
                    deny = self.render(
                        adapter,
                        Verdict(decision=Decisions.DENY, reason=ask.reason),
                        event,
                        False,
                        rule,
                        probe.case,
                        scenario,
                    )
                    if _difference(allow, got) is None:
                        self.fail(
                            rule,
                            f"NATIVE_ASK_TIER is true but {_label(ask)} renders as the abstaining "
                            f"allow ({_show(got)}): the call would run with nobody asked",
                            probe.case,
                            scenario,
                        )
                    if (
                        deny.get(NativeResponseFields.ENFORCED) is True
                        and _difference(deny, got) is None
                    ):
                        self.fail(
                            rule,
                            f"NATIVE_ASK_TIER is true but {_label(ask)} renders as the enforced "
                            f"deny ({_show(got)}): an ask must put the call before a person",
                            probe.case,
                            scenario,
                        )
                else:
                    advisory = self.render(
                        adapter,
                        Verdict(decision=Decisions.DENY, reason=ask.reason),
                        _non_vetoable(event),
                        False,
                        rule,
                        probe.case,
                        scenario,
                    )
                    difference = _difference(advisory, got, names=("the advisory deny", "the ask"))
                    if difference:
                        self.fail(
                            rule,
                            f"NATIVE_ASK_TIER is false but {_label(ask)} does not render as the "
                            f"advisory deny (a deny on the non-vetoable variant) {difference}; "
                            "declare true if the host has an ask tier",
                            probe.case,
                            scenario,
                        )

    def content_fields(self, adapter: Adapter, probe: _Probe) -> None:
        """A content field reaches the host iff UNRENDERED_FIELDS[kind] does not name it."""
        kind = probe.event.event
        dropped = adapter.UNRENDERED_FIELDS[kind]
        renders: list[tuple[str, ToolCallEvent, Decision, bool, dict[str, Any]]] = []
        for event, variant in _variants(probe.event):
            for decision in Decisions.ALL:
                for sole_gate in (False, True):
                    label = f"{decision}{variant}{', sole_gate' if sole_gate else ''}"
                    base = Verdict(decision=decision)
                    out = self.render(
                        adapter,
                        base,
                        event,
                        sole_gate,
                        "content-field-reaches-host",
                        probe.case,
                        f"{probe.origin}: baseline {label}",
                    )
                    renders.append((label, event, decision, sole_gate, out))
        for field in ContentFields.ALL:
            rule = (
                "content-field-declared-dropped"
                if field in dropped
                else "content-field-reaches-host"
            )
            needle = _PROBE_VALUES[field]
            # appeared: any render carrying the value; reached: an unenforced one, since hosts
            # ignore an exit-2 block's stdout and read stderr only as the reason (contract.md §5).
            appeared: list[str] = []
            reached: list[str] = []
            for label, event, decision, sole_gate, baseline in renders:
                verdict = _probe_verdict(decision, field, event)
                out = self.render(
                    adapter,
                    verdict,
                    event,
                    sole_gate,
                    rule,
                    probe.case,
                    f"{probe.origin}: {field} probe {label}",
                )
                if _mentions(out, needle) and not _mentions(baseline, needle):
                    appeared.append(label)
                    if out.get(NativeResponseFields.ENFORCED) is False:
                        reached.append(label)
            self.count(rule)
            if field in dropped and appeared:
                self.fail(
                    rule,
                    f"UNRENDERED_FIELDS[{kind!r}] declares {field!r} dropped, but its probe value "
                    f"appeared in the response ({appeared[0]}): remove it from the row or stop "
                    "rendering it",
                    probe.case,
                    f"{probe.origin}: {field} probe {appeared[0]}",
                )
            if field not in dropped and not reached:
                only = f" (it appeared only in enforced renders: {appeared[0]})" if appeared else ""
                self.fail(
                    rule,
                    f"{field!r} is not in UNRENDERED_FIELDS[{kind!r}], but its probe value reached "
                    "no unenforced response (any decision, sole_gate, vetoable or not)"
                    f"{only}; the host ignores an enforced block's stdout and reads its stderr "
                    "only as the reason: render it where the host reads it or declare it dropped",
                    probe.case,
                    f"{probe.origin}: {field} probe",
                )

    # -- shared checks ----------------------------------------------------------------------

    def unknown_never_vetoes(
        self, event: ToolCallEvent, case: str | None, scenario: str | None = None
    ) -> None:
        """An unknown event is never vetoable."""
        if event.event != EventKinds.UNKNOWN:
            return
        self.count("unknown-never-vetoes")
        if event.this_call_vetoable is not False:
            self.fail(
                "unknown-never-vetoes",
                f"an unknown event (native_event {event.meta.native_event!r}) parsed "
                f"this_call_vetoable {event.this_call_vetoable!r}; nothing knows what the host "
                "does with a block on an event nobody modelled, so it must be false",
                case,
                scenario,
            )

    def parse(
        self,
        adapter: Adapter,
        native: Any,
        rule: str,
        case: str | None,
        scenario: str | None = None,
    ) -> ToolCallEvent:
        """Parse, turning an exception into a failure of rule and a wrong type into parse-golden."""
        self.count(rule)
        try:
            event = adapter.parse(native)
        except Exception as exc:
            raise ConformanceError(
                rule,
                f"parse raised {type(exc).__name__}: {exc} on payload {_show(native)}; parse must "
                "never raise on untrusted input (contract.md §3): coerce and keep the rest in "
                "passthrough",
                case=case,
                scenario=scenario,
            ) from exc
        if not isinstance(event, ToolCallEvent):
            self.fail(
                "parse-golden",
                f"parse returned {type(event).__name__}, not a ToolCallEvent",
                case,
                scenario,
            )
        return event

    def render(
        self,
        adapter: Adapter,
        verdict: Verdict,
        event: ToolCallEvent,
        sole_gate: bool,
        rule: str,
        case: str | None,
        scenario: str | None,
        *,
        check: bool = True,
    ) -> dict[str, Any]:
        """Render to a JSON object, checking the response invariants unless check is false."""
        try:
            response = adapter.render(verdict, event, sole_gate=sole_gate)
        except Exception as exc:
            raise ConformanceError(
                rule,
                f"render({_label(verdict)}, sole_gate={sole_gate}) raised "
                f"{type(exc).__name__}: {exc}",
                case=case,
                scenario=scenario,
            ) from exc
        if not isinstance(response, NativeResponse):
            self.fail(
                "render-golden",
                f"render returned {type(response).__name__}, not a NativeResponse",
                case,
                scenario,
            )
        out = response.to_dict()
        if check:
            self.invariants(adapter, verdict, event, out, case, scenario)
        return out

    def invariants(
        self,
        adapter: Adapter,
        verdict: Verdict,
        event: ToolCallEvent,
        out: Mapping[str, Any],
        case: str | None,
        scenario: str | None,
    ) -> None:
        """The rules every render obeys: enforced, exit code and vetoability agree."""
        enforced = out.get(NativeResponseFields.ENFORCED) is True
        exit_code = out.get(NativeResponseFields.EXIT_CODE)
        what = f"{_label(verdict)} on a {'vetoable' if event.this_call_vetoable else 'non-vetoable'} {event.event} event rendered {_show(out)}"
        if verdict.decision == Decisions.ALLOW:
            self.count("allow-never-enforces")
            if enforced or exit_code != 0:
                self.fail(
                    "allow-never-enforces",
                    f"{what}; an allow is never enforced and exits 0",
                    case,
                    scenario,
                )
        if verdict.decision == Decisions.ASK:
            # Seed: "ask renders as enforced: false everywhere"; NATIVE_ASK_TIER describes the host.
            self.count("ask-never-enforced")
            if enforced:
                self.fail(
                    "ask-never-enforced",
                    f"{what}; an ask never claims a block: render the host's ask tier or the "
                    "advisory deny, and let render_escalated make a block (contract.md §6)",
                    case,
                    scenario,
                )
        self.count("enforced-nonzero-exit")
        # host.schema.json exit_zero_block: a host that blocks on the body at exit 0 (copilot).
        if enforced and exit_code == 0 and getattr(adapter, "EXIT_ZERO_BLOCK", False) is not True:
            self.fail(
                "enforced-nonzero-exit",
                f"{what}; a block is carried by a non-zero exit code unless the declaration's"
                " exit_zero_block says the host blocks on the body at exit 0",
                case,
                scenario,
            )
        if verdict.decision == Decisions.DENY and event.this_call_vetoable:
            self.count("vetoable-deny-enforces")
            if not enforced:
                self.fail(
                    "vetoable-deny-enforces",
                    f"{what}; a deny on a vetoable event must render the host's enforced block",
                    case,
                    scenario,
                )
        if not event.this_call_vetoable:
            self.count("non-vetoable-deny-not-enforced")
            if enforced:
                self.fail(
                    "non-vetoable-deny-not-enforced",
                    f"{what}; enforced promises a block the host will not perform on a "
                    "non-vetoable event",
                    case,
                    scenario,
                )


# -- helpers ------------------------------------------------------------------------------------


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
