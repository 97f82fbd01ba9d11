"""Rule group: the declaration attributes an adapter exposes (contract.md §4)."""

from __future__ import annotations

from collections.abc import Mapping

from .._generated.constants import (
    CallClasses,
    CoverageStatuses,
    EventKinds,
    IntegrationModes,
)
from ..adapters._protocol import Adapter
from ._checks import _Checks
from ._common import (
    _unrendered_problem,
)


class _Declarations(_Checks):
    """The declarations-well-formed, coverage-well-formed and unrendered-rows-complete rules."""

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
