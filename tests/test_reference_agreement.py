"""Every reference fixture case and behaviour line agrees with our adapters outside registered divergences."""

from __future__ import annotations

import collections
import copy
from typing import Any

import pytest

from agent_control_plane_core import AGENT_IDS
from agent_control_plane_core.schemas import validator_for

from conftest import FIXTURES_DIR, behaviour_lines, load_json, reference_fixtures
from reference_runner import differs_at, matched_tags, registry, run, unexplained


def test_every_behaviour_line_agrees_outside_registered_divergences() -> None:
    failures = []
    for number, line in enumerate(behaviour_lines(), start=1):
        ours = run(line["agent"], line["native"], line["verdict"], line["options"])
        why = unexplained(
            line["agent"],
            line.get("divergence", []),
            ours,
            {"event": line["event"], "render": line["render"]},
            matched_tags(line),
        )
        if why:
            failures.append(f"line {number} ({line['agent']}): {why}")
    assert failures == [], "\n".join(failures[:20])


def test_every_registry_entry_still_excuses_a_difference_and_counts_its_lines() -> None:
    excused: collections.Counter[str] = collections.Counter()
    differing: collections.Counter[str] = collections.Counter()
    entries = registry()
    for line in behaviour_lines():
        ours = run(line["agent"], line["native"], line["verdict"], line["options"])
        theirs = {"event": line["event"], "render": line["render"]}
        for tag in {*line.get("divergence", []), *matched_tags(line)}:
            excused[tag] += 1
            entry = entries.get(tag, {})
            if entry.get("withdrawn"):
                differing[tag] += differs_at(ours, theirs, entry["paths"])
            elif ours != theirs:
                differing[tag] += 1
    for entry_id, entry in registry().items():
        if entry.get("withdrawn"):
            # Withdrawn: the lines the corpus still tags with it must now agree with the reference.
            assert differing[entry_id] == 0, f"{entry_id} is withdrawn but its lines still differ"
        else:
            assert differing[entry_id] > 0, f"{entry_id} no longer excuses anything: remove it"
        assert excused[entry_id] == entry["reference_lines"], entry_id


def test_registry_entries_carry_a_host_fact_and_a_source() -> None:
    entries = load_json(FIXTURES_DIR / "divergences.json")["entries"]
    ids = [entry["id"] for entry in entries]
    assert ids == sorted(ids) and len(ids) == len(set(ids))
    for entry in entries:
        assert entry["host_fact"].strip() and entry["source"].strip(), entry["id"]
        assert entry["part"] in {"parse", "render"}
        assert set(entry["agents"]) <= set(AGENT_IDS)
    docs = (FIXTURES_DIR.parent / "docs" / "divergences.md").read_text(encoding="utf-8")
    for entry_id in ids:
        assert entry_id in docs, f"docs/divergences.md does not explain {entry_id}"


def _reference_cases() -> list[tuple[str, dict[str, Any], str, dict[str, Any]]]:
    cases = []
    for agent, fixture in reference_fixtures().items():
        for case in fixture["cases"]:
            for scenario, body in case["render"].items():
                cases.append((agent, case, scenario, body))
    return cases


def _line_for(
    agent: str, native: Any, verdict: dict[str, Any], options: dict[str, Any]
) -> dict[str, Any]:
    for line in behaviour_lines():
        if (line["agent"], line["native"], line["verdict"], line["options"]) == (
            agent,
            native,
            verdict,
            options,
        ):
            return line
    raise AssertionError(f"no behaviour line for this {agent} fixture case")


def test_every_reference_fixture_case_agrees_outside_registered_divergences() -> None:
    checked = 0
    for agent, case, scenario, body in _reference_cases():
        native = copy.deepcopy(case["native"])
        options: dict[str, Any] = {}
        if agent == "codex":
            # The reference read the version from the payload; ours comes from configuration.
            options["codex_version"] = native.pop("version")
        if body.get("sole_gate"):
            options["sole_gate"] = True
        line = _line_for(agent, native, body["verdict"], options)
        assert line["render"] == body["native"], f"{agent} {case['name']} {scenario}"
        ours = run(agent, native, body["verdict"], options)
        theirs = {"event": case["event"], "render": body["native"]}
        why = unexplained(agent, line.get("divergence", []), ours, theirs, matched_tags(line))
        assert why is None, f"{agent} {case['name']} / {scenario}: {why}"
        checked += 1
    assert checked >= 40


@pytest.mark.parametrize("agent", AGENT_IDS)
def test_every_output_on_the_corpus_validates_against_the_published_schemas(agent: str) -> None:
    event_schema = validator_for("tool-call-event")
    verdict_schema = validator_for("verdict")
    response_schema = validator_for("native-response")
    lines = [line for line in behaviour_lines() if line["agent"] == agent]
    if not lines:
        # A host the reference never ran answers the whole corpus as itself (sole_gate kept).
        lines = [
            {**line, "options": {k: v for k, v in line["options"].items() if k == "sole_gate"}}
            for line in behaviour_lines()
        ]
    assert lines
    for line in lines:
        answer = run(agent, line["native"], line["verdict"], line["options"])
        event, response = answer["event"], answer["render"]
        for validator, instance in (
            (event_schema, event),
            (verdict_schema, line["verdict"]),
            (response_schema, response),
        ):
            errors = [e.message for e in validator.iter_errors(instance)]
            assert errors == [], f"{agent}: {errors} in {instance}"
