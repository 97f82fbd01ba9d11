"""Rule group: probing the adapter itself: odd payloads, drift, synthesized kinds."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._generated.constants import (
    Decisions,
    EventKind,
    EventKinds,
    EventMetaFields,
    NativeResponseFields,
)
from .._generated.models.tool_call_event_schema import EventMeta
from ..adapters._protocol import Adapter
from ..contract import make_event
from ._common import (
    _DRIFT_EVENT,
    _DRIFT_FIELD,
    _DRIFT_VALUE,
    _ODD_PAYLOADS,
    _TOOL_KINDS,
    _Keys,
    _name_keys,
    _odd_variants,
    _Probe,
    _renamed,
    _show,
    _verdicts,
)
from ._render_rules import _RenderRules


class _Probes(_RenderRules):
    """Builds the probe events of an adapter and runs the render rules on each."""

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
