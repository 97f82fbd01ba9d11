"""One conformance run: file-level rules, every case, then every probe adapter."""

from __future__ import annotations

from types import MappingProxyType

from ._cases import _Cases
from ._common import (
    ConformanceReport,
    _Keys,
)
from ._probes import _Probes


class _Run(_Cases, _Probes):
    """Checks the file-level rules, every case, the aliases, then probes every adapter."""

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
