"""Run state, bookkeeping and the checks every rule group shares: parse, render, invariants."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any, NoReturn

from .._generated.constants import (
    Decisions,
    EventKinds,
    NativeResponseFields,
)
from .._generated.models.native_response_schema import NativeResponse
from .._generated.models.tool_call_event_schema import ToolCallEvent
from .._generated.models.verdict_schema import Verdict
from ..adapters._protocol import Adapter
from ._common import (
    ConformanceError,
    _fixture_cases,
    _Keys,
    _label,
    _show,
)


class _Checks:
    """State of one conformance run and the checks every rule group shares."""

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
