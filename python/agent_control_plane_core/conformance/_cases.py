"""Rule group: the golden cases, file-level coverage decisions and alias witnesses."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .._generated.constants import (
    MODELED_TOOL_INPUT_KEYS,
    TOOL_ALIASES,
    ContentFields,
    Decisions,
    NativeResponseFields,
)
from .._generated.models.verdict_schema import Verdict
from .._model_base import ABSENT
from ..adapters._protocol import Adapter
from ..contract import coverage_allows_veto
from ._common import (
    _ENFORCED_DENY,
    _REQUIRED_DECISIONS,
    FixtureError,
    _difference,
    _holds,
    _Keys,
    _verdict,
)
from ._declarations import _Declarations


class _Cases(_Declarations):
    """Replays each golden case; checks what the file as a whole must witness."""

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
