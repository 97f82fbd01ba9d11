"""Rule group: what renders must say on probe events: vetoes, the ask tier, content fields."""

from __future__ import annotations

from typing import Any

from .._generated.constants import (
    ContentFields,
    Decision,
    Decisions,
    IntegrationModes,
    NativeResponseFields,
)
from .._generated.models.tool_call_event_schema import ToolCallEvent
from .._generated.models.verdict_schema import Verdict
from ..adapters._protocol import Adapter
from ._checks import _Checks
from ._common import (
    _PROBE_VALUES,
    _difference,
    _label,
    _mentions,
    _non_vetoable,
    _Probe,
    _probe_verdict,
    _show,
    _variants,
    _verdicts,
)


class _RenderRules(_Checks):
    """non-vetoable-deny, ask-tier and content-field rules on one probe event."""

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
