"""`acp record`: golden fixture cases from native payloads, as a working adapter answers them."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final

from ._generated.constants import Decisions, ToolCallEventFields, VerdictFields
from .contract import normalize_verdict

if TYPE_CHECKING:
    from .adapters import Adapter

# The scenarios every recorded case gets (N34): the three decisions, with a reason, so the file
# pins the allow, the block and the ask (or its escalation) of each payload.
DEFAULT_SCENARIOS: Final[Mapping[str, Mapping[str, Any]]] = {
    Decisions.ALLOW: {VerdictFields.DECISION: Decisions.ALLOW},
    Decisions.DENY: {VerdictFields.DECISION: Decisions.DENY, VerdictFields.REASON: "recorded deny"},
    Decisions.ASK: {VerdictFields.DECISION: Decisions.ASK, VerdictFields.REASON: "recorded ask"},
}


class RecordError(Exception):
    """An input that cannot become a case; the message names the line and what is wrong."""


def read_natives(lines: Iterable[str]) -> list[tuple[int, Any]]:
    """(line number, payload) for every non-blank JSON Lines line."""
    natives = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            natives.append((number, json.loads(line)))
        except ValueError as exc:
            raise RecordError(f"line {number} is not JSON ({exc})") from exc
    if not natives:
        raise RecordError("no native payload to record (one JSON payload per line)")
    return natives


def record_cases(
    adapter: Adapter,
    natives: Iterable[tuple[int, Any]],
    scenarios: Mapping[str, Mapping[str, Any]],
    *,
    adapter_options: Mapping[str, Any] | None = None,
    taken: Iterable[str] = (),
) -> list[dict[str, Any]]:
    """One fixture case per payload: the event the adapter parses and each scenario's render."""
    verdicts = {name: normalize_verdict(verdict) for name, verdict in scenarios.items()}
    names = set(taken)
    cases = []
    for number, native in natives:
        event = adapter.parse(native)
        parsed = event.to_dict()
        label = " ".join(
            str(part)
            for part in (event.meta.native_event or "?", parsed.get(ToolCallEventFields.TOOL))
            if part
        )
        name = f"recorded line {number}: {label}"
        suffix = 2
        while name in names:
            name = f"recorded line {number}: {label} ({suffix})"
            suffix += 1
        names.add(name)
        case: dict[str, Any] = {"name": name}
        if adapter_options:
            case["adapter_options"] = dict(adapter_options)
        case["native"] = native
        case["event"] = parsed
        case["render"] = {
            scenario: {
                "verdict": verdict.to_dict(),
                "native": adapter.render(verdict, event).to_dict(),
            }
            for scenario, verdict in verdicts.items()
        }
        cases.append(case)
    return cases


def refresh_cases(adapter: Adapter, cases: list[Any]) -> int:
    """Re-derive every case's event and scenario renders in place; return how many changed."""
    # After a contract change (a renamed field, a schema_version bump) the goldens follow the
    # adapter again; names, natives, options and verdicts stay as written.
    changed = 0
    for case in cases:
        if not isinstance(case, dict):
            raise RecordError(f"a case is not an object: {json.dumps(case)[:80]}")
        options = case.get("adapter_options") or {}
        configured = adapter.configure(**options) if options else adapter
        event = configured.parse(case.get("native"))
        before = json.dumps(case, sort_keys=True)
        case["event"] = event.to_dict()
        for scenario in (case.get("render") or {}).values():
            verdict = normalize_verdict(scenario["verdict"])
            sole_gate = bool(scenario.get("sole_gate", False))
            scenario["verdict"] = verdict.to_dict()
            scenario["native"] = configured.render(verdict, event, sole_gate=sole_gate).to_dict()
        changed += json.dumps(case, sort_keys=True) != before
    return changed
