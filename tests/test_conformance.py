"""The conformance kit: shipped adapters pass their fixture files, and the fixture format is pinned."""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_control_plane_core import AGENT_IDS, Verdict, adapter_for, schemas
from agent_control_plane_core.conformance import (
    RULE_IDS,
    RULES,
    ConformanceError,
    ConformanceReport,
    FixtureError,
    assert_conforms,
    load_fixtures,
    run_adapter_conformance,
    validate_fixtures,
)

from conftest import FIXTURES_DIR, REPO, load_json

FIXTURE_SCHEMA = FIXTURES_DIR / "fixture.schema.json"
# Files in fixtures/ that are not fixture files.
NOT_FIXTURES = {"fixture.schema.json", "divergences.json"}
FIXTURE_FILES = sorted(p for p in FIXTURES_DIR.glob("*.json") if p.name not in NOT_FIXTURES)

# A small valid file built from one claude payload; tests copy and break it.
CLAUDE_NATIVE: dict[str, Any] = {
    "hook_event_name": "PreToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "ls"},
    "extra": 1,
}


def _alias_native(adapter: Any, native: str) -> dict[str, Any]:
    """A call of one host alias with its target's input key, as the host names it (MultiEdit)."""
    from agent_control_plane_core import MODELED_TOOL_INPUT_KEYS

    key = MODELED_TOOL_INPUT_KEYS[adapter.TOOL_ALIASES[native]]
    renames = adapter.DECLARATION.INPUT_KEY_RENAMES.get(native, {})
    named = next((old for old, new in renames.items() if new == key), key)
    return {**CLAUDE_NATIVE, "tool_name": native, "tool_input": {named: "x"}}


def _claude_file() -> dict[str, Any]:
    adapter = adapter_for("claude")
    event = adapter.parse(copy.deepcopy(CLAUDE_NATIVE))
    render = {}
    verdicts = {
        "allow": {"decision": "allow"},
        "deny": {"decision": "deny", "reason": "no"},
        "ask": {"decision": "ask"},
        "rewrite": {"decision": "allow", "mutated_input": {"command": "pwd"}},
    }
    for name, verdict in verdicts.items():
        native = adapter.render(Verdict.from_dict(verdict), event).to_dict()
        render[name] = {"verdict": verdict, "native": native}
    alias = {**CLAUDE_NATIVE, "tool_name": "run_shell_command"}
    # Every host alias needs its witness too (alias-witnessed): PowerShell -> Bash (L9).
    host_aliases = [_alias_native(adapter, native) for native in adapter.TOOL_ALIASES]
    return {
        "agent": "claude",
        "cases": [
            {
                "name": "Bash",
                "call_class": "builtin",
                "native": copy.deepcopy(CLAUDE_NATIVE),
                "event": event.to_dict(),
                "render": render,
            },
            {
                "name": "shell alias",
                "native": alias,
                "event": adapter.parse(copy.deepcopy(alias)).to_dict(),
                "render": {},
            },
            *(
                {
                    "name": f"host alias {native['tool_name']}",
                    "native": native,
                    "event": adapter.parse(copy.deepcopy(native)).to_dict(),
                    "render": {},
                }
                for native in host_aliases
            ),
        ],
    }


_CLAUDE_CASES = 2 + len(adapter_for("claude").TOOL_ALIASES)


@pytest.mark.parametrize("agent", AGENT_IDS)
def test_shipped_adapter_conforms_to_its_fixture_file(agent: str) -> None:
    """Each shipped adapter passes every rule on fixtures/<agent>.json (schema-validated first)."""
    path = FIXTURES_DIR / f"{agent}.json"
    report = assert_conforms(adapter_for(agent), path)
    assert report.agent == agent
    assert report.cases == len(load_json(path)["cases"])
    assert report.scenarios > 0 and report.probe_events >= report.cases


def test_every_rule_is_exercised_by_some_shipped_fixture_file() -> None:
    """Across the four fixture files every rule runs at least once (ask-tier-true and -false too)."""
    checked: set[str] = set()
    for agent in AGENT_IDS:
        checked |= set(assert_conforms(adapter_for(agent), FIXTURES_DIR / f"{agent}.json").rule_ids)
    assert checked == set(RULE_IDS)


def test_every_fixture_file_has_one_for_each_shipped_adapter() -> None:
    """fixtures/ holds exactly one fixture file per shipped adapter."""
    assert [path.stem for path in FIXTURE_FILES] == sorted(AGENT_IDS)


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=[p.name for p in FIXTURE_FILES])
def test_fixture_file_validates_against_fixture_schema(path: Path) -> None:
    """Our golden fixture files match fixture.schema.json."""
    validate_fixtures(load_fixtures(path))


def test_fixture_schema_ships_in_the_package_byte_equal() -> None:
    """validator_for("fixture") loads the packaged copy, identical to fixtures/fixture.schema.json."""
    assert "fixture" in schemas.SCHEMA_NAMES
    assert schemas.schema_path("fixture").read_bytes() == FIXTURE_SCHEMA.read_bytes()


def _broken(change: str) -> dict[str, Any]:
    data = _claude_file()
    case = data["cases"][0]
    scenario = case["render"]["deny"]
    if change == "unknown top-level key":
        data["version"] = 1
    elif change == "case without event":
        del case["event"]
    elif change == "case with unknown key":
        case["expected"] = {}
    elif change == "scenario without native":
        del scenario["native"]
    elif change == "sole_gate not boolean":
        scenario["sole_gate"] = "yes"
    elif change == "unknown call class":
        case["call_class"] = "plugin"
    elif change == "vetoable unknown event":
        case["event"]["event"] = "unknown"
    elif change == "verdict with bad decision":
        scenario["verdict"]["decision"] = "block"
    elif change == "empty agent":
        data["agent"] = ""
    return data


BROKEN = [
    "unknown top-level key",
    "case without event",
    "case with unknown key",
    "scenario without native",
    "sole_gate not boolean",
    "unknown call class",
    "vetoable unknown event",
    "verdict with bad decision",
    "empty agent",
]


def test_fixture_schema_accepts_the_valid_sample() -> None:
    """The sample the rejection tests break is itself valid."""
    validate_fixtures(_claude_file())


@pytest.mark.parametrize("change", BROKEN)
def test_fixture_schema_rejects_a_malformed_file(change: str) -> None:
    """fixture.schema.json refuses a file with one defect, through the event/verdict/response refs too."""
    with pytest.raises(FixtureError, match=r"fixture\.schema\.json"):
        validate_fixtures(_broken(change))


def test_report_counts_cases_scenarios_and_rule_checks() -> None:
    """A passing run reports its cases, scenarios and the number of checks per rule id."""
    report = run_adapter_conformance(adapter_for("claude"), _claude_file())
    assert isinstance(report, ConformanceReport)
    assert (report.agent, report.cases, report.scenarios) == ("claude", _CLAUDE_CASES, 4)
    assert set(report.checks) <= set(RULE_IDS)
    assert report.rule_ids == tuple(r for r in RULE_IDS if report.checks.get(r))
    assert "ask-tier-false" not in report.rule_ids  # claude has an ask tier


def test_assert_conforms_takes_a_path_or_a_parsed_file(tmp_path: Path) -> None:
    """assert_conforms reads a file path or takes the parsed dict."""
    import json

    path = tmp_path / "claude.json"
    path.write_text(json.dumps(_claude_file()), encoding="utf-8")
    assert assert_conforms(adapter_for("claude"), path).cases == _CLAUDE_CASES
    assert assert_conforms(adapter_for("claude"), str(path)).cases == _CLAUDE_CASES
    assert assert_conforms(adapter_for("claude"), _claude_file()).cases == _CLAUDE_CASES


def test_assert_conforms_refuses_a_file_the_schema_refuses() -> None:
    """A schema-invalid file is a FixtureError before any rule runs."""
    with pytest.raises(FixtureError, match=r"fixture\.schema\.json"):
        assert_conforms(adapter_for("claude"), _broken("case with unknown key"))


def test_conformance_error_is_an_assertion_error_naming_rule_case_and_scenario() -> None:
    """A failure is an AssertionError for pytest, carrying the rule id, case and scenario."""
    data = _claude_file()
    data["cases"][0]["render"]["deny"]["native"]["stderr"] = "something else"
    with pytest.raises(AssertionError) as raised:
        run_adapter_conformance(adapter_for("claude"), data)
    error = raised.value
    assert isinstance(error, ConformanceError)
    assert (error.rule, error.case, error.scenario) == ("render-golden", "Bash", "deny")
    assert "'render-golden'" in str(error) and "case 'Bash'" in str(error)
    assert "scenario 'deny'" in str(error) and "$.stderr" in str(error)


def test_golden_equality_is_by_value_and_json_typed() -> None:
    """Key order does not matter, but true is not 1: the golden is compared as JSON."""
    data = _claude_file()
    event = data["cases"][0]["event"]
    data["cases"][0]["event"] = dict(reversed(list(event.items())))
    run_adapter_conformance(adapter_for("claude"), data)
    data["cases"][0]["event"]["meta"]["passthrough"]["extra"] = True
    with pytest.raises(ConformanceError, match=r"\$\.meta\.passthrough\.extra"):
        run_adapter_conformance(adapter_for("claude"), data)


def _codex_case(options: dict[str, Any] | None) -> dict[str, Any]:
    native = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "x"}}
    enforcing = adapter_for("codex", codex_version="0.135.0")
    event = enforcing.parse(copy.deepcopy(native))
    case: dict[str, Any] = {"name": "Bash on an enforcing codex", "native": native}
    if options is not None:
        case["adapter_options"] = options
    verdict = {"decision": "deny", "reason": "no"}
    native_out = enforcing.render(Verdict.from_dict(verdict), event).to_dict()
    case.update(event=event.to_dict(), render={"deny": {"verdict": verdict, "native": native_out}})
    return case


def test_harness_configures_the_adapter_with_each_cases_options() -> None:
    """adapter_options go through configure: the same golden passes with them and fails without."""
    codex = adapter_for("codex", codex_version="0.100.0")  # below the supported range: observe only
    suite = {"agent": "codex", "cases": [_codex_case({"codex_version": "0.135.0"})]}
    with pytest.raises(ConformanceError) as raised:
        run_adapter_conformance(codex, suite)
    assert raised.value.rule == "coverage-decisions"  # the goldens passed; the suite is just small
    without = {"agent": "codex", "cases": [_codex_case(None)]}
    with pytest.raises(ConformanceError) as raised:
        run_adapter_conformance(codex, without)
    assert raised.value.rule == "parse-golden"
    assert "$.this_call_vetoable" in str(raised.value)


class _CodexTierNotABoolOnceConfigured:
    """Codex, except a configured copy declares NATIVE_ASK_TIER as a string."""

    def __init__(self, inner: Any, configured: bool = False) -> None:
        self.inner = inner
        self.configured = configured

    def __getattr__(self, name: str) -> Any:
        if name == "NATIVE_ASK_TIER" and self.configured:
            return "no"
        return getattr(self.inner, name)

    def configure(self, **options: Any) -> Any:
        return _CodexTierNotABoolOnceConfigured(self.inner.configure(**options), True)


def test_a_configured_adapters_declarations_are_checked_and_named() -> None:
    """The declarations of each configured adapter are checked; the failure names its options."""
    suite = {"agent": "codex", "cases": [_codex_case({"codex_version": "0.135.0"})]}
    with pytest.raises(ConformanceError) as raised:
        run_adapter_conformance(_CodexTierNotABoolOnceConfigured(adapter_for("codex")), suite)
    assert raised.value.rule == "declarations-well-formed"
    assert raised.value.case == "<declarations: codex configured with {'codex_version': '0.135.0'}>"


def test_a_host_without_a_rewrite_channel_still_renders_a_rewrite_somewhere() -> None:
    """Amp drops mutated_input on every kind: a rendered rewrite counts, but one is still required."""
    data = load_json(FIXTURES_DIR / "amp.json")
    run_adapter_conformance(adapter_for("amp"), data)
    for case in data["cases"]:
        case["render"] = {
            name: spec
            for name, spec in case["render"].items()
            if "mutated_input" not in spec["verdict"]
        }
    with pytest.raises(ConformanceError, match="mutated_input") as raised:
        run_adapter_conformance(adapter_for("amp"), data)
    assert (raised.value.rule, raised.value.case) == ("coverage-decisions", "<file: amp>")


def test_an_option_the_adapter_refuses_is_a_fixture_error() -> None:
    """An unknown adapter option in a case names the case and the option."""
    suite = {"agent": "codex", "cases": [_codex_case({"codex_release": "0.135.0"})]}
    with pytest.raises(FixtureError, match="codex_release"):
        run_adapter_conformance(adapter_for("codex"), suite)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("duplicate names", "used twice"),
        ("no cases array", "'cases' array"),
        ("unknown verdict key", "unknown verdict key"),
        ("not an object", "JSON object"),
    ],
)
def test_run_refuses_a_file_it_cannot_read_as_a_fixture_file(change: str, message: str) -> None:
    """Without the schema, the harness still refuses a malformed file with a FixtureError."""
    data: Any = _claude_file()
    if change == "duplicate names":
        data["cases"][1]["name"] = data["cases"][0]["name"]
    elif change == "no cases array":
        data["cases"] = {}
    elif change == "unknown verdict key":
        data["cases"][0]["render"]["deny"]["verdict"]["why"] = "x"
    else:
        data = []
    with pytest.raises(FixtureError, match=message):
        run_adapter_conformance(adapter_for("claude"), data)


class _RaisingRender:
    """Claude, except render raises on an ask."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def render(self, verdict: Verdict, event: Any, *, sole_gate: bool = False) -> Any:
        if verdict.decision == "ask":
            raise KeyError("ask")
        return self.inner.render(verdict, event, sole_gate=sole_gate)


class _ParseReturnsJson(_RaisingRender):
    """Claude, except parse returns the event's JSON object instead of a ToolCallEvent."""

    def parse(self, native: object) -> Any:
        return self.inner.parse(native).to_dict()


def test_a_raising_render_fails_the_rule_being_checked() -> None:
    """An exception from render is a ConformanceError of the rule it interrupted, not a crash."""
    with pytest.raises(ConformanceError) as raised:
        run_adapter_conformance(_RaisingRender(adapter_for("claude")), _claude_file())
    assert (raised.value.rule, raised.value.scenario) == ("render-golden", "ask")
    assert "KeyError" in str(raised.value)


def test_parse_must_return_a_tool_call_event() -> None:
    """A parse returning plain JSON instead of a ToolCallEvent fails parse-golden."""
    with pytest.raises(ConformanceError, match="not a ToolCallEvent") as raised:
        run_adapter_conformance(_ParseReturnsJson(adapter_for("claude")), _claude_file())
    assert raised.value.rule == "parse-golden"


def test_rule_ids_are_unique_kebab_case_with_a_description() -> None:
    """Rule ids are stable kebab-case names, each described in one sentence."""
    assert len(set(RULE_IDS)) == len(RULE_IDS) == len(RULES)
    for rule, text in RULES.items():
        assert rule == rule.lower() and " " not in rule and "_" not in rule
        assert text.endswith(".") and "\n" not in text


def test_importing_the_kit_does_not_import_jsonschema() -> None:
    """run_adapter_conformance needs only the standard library; jsonschema loads on validation."""
    code = (
        "import sys, agent_control_plane_core.conformance as c;"
        "from agent_control_plane_core import adapter_for;"
        "assert 'jsonschema' not in sys.modules, 'imported jsonschema'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)


def test_the_kit_is_a_package_of_small_modules_one_per_rule_group() -> None:
    # Issue 17: one 1,200-line file with a 760-line class before; the public names stay put.
    import agent_control_plane_core.conformance as kit
    from agent_control_plane_core.conformance._harness import _Run

    folder = Path(kit.__file__).parent
    sizes = {p.name: len(p.read_text().splitlines()) for p in folder.glob("*.py")}
    assert len(sizes) >= 6 and max(sizes.values()) < 400, sizes
    groups = {cls.__module__.rsplit(".", 1)[1] for cls in _Run.__mro__ if cls is not object}
    assert {"_harness", "_cases", "_declarations", "_probes", "_render_rules", "_checks"} <= groups
    assert kit.__all__ == [
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
