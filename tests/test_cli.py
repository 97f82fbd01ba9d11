"""The `acp` command line: bridge, parse, render, validate, keys, schema-path, gen, help."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agent_control_plane_core import AGENT_IDS, MODELED_TOOL_INPUT_KEYS, Verdict, adapter_for
from agent_control_plane_core._generated.constants import TOOL_ALIASES
from agent_control_plane_core.cli import bridge_line, main

from conftest import FIXTURES_DIR, REPO, load_json
from hook_runner import BIN, PRE_TOOL, hook_env, run_hook

ACP = str(BIN / "acp")
COMMANDS = (
    "bridge",
    "parse",
    "render",
    "record",
    "validate",
    "keys",
    "schema-path",
    "hook",
    "install",
    "new-adapter",
    "gen",
)


def acp(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """Run the installed acp script."""
    return subprocess.run(
        [ACP, *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=hook_env("claude"),
        timeout=60,
    )


def _golden_requests() -> list[dict[str, Any]]:
    """One bridge request per golden case and render scenario, over every host's fixture file."""
    requests = []
    for agent in sorted(AGENT_IDS):
        for case in load_json(FIXTURES_DIR / f"{agent}.json")["cases"]:
            base = dict(case.get("adapter_options") or {})
            for scenario in case["render"].values():
                options = {**base, "sole_gate": True} if scenario.get("sole_gate") else base
                requests.append(
                    {
                        "agent": agent,
                        "native": case["native"],
                        "verdict": scenario["verdict"],
                        "options": options,
                    }
                )
    return requests


def test_bridge_answers_like_the_library_on_every_golden_case() -> None:
    requests = _golden_requests()
    for request in requests:
        answer = bridge_line(json.dumps(request))
        options = dict(request["options"])
        sole_gate = bool(options.pop("sole_gate", False))
        adapter = adapter_for(request["agent"], **options)
        event = adapter.parse(json.loads(json.dumps(request["native"])))
        rendered = adapter.render(Verdict.from_dict(request["verdict"]), event, sole_gate=sole_gate)
        assert answer["event"] == event.to_dict()
        assert answer["render"] == rendered.to_dict()
        assert answer["escalated"]["exit_code"] in (0, 1, 2)
    assert len(requests) > 700


def test_bridge_process_answers_n_lines_in_order_and_survives_bad_ones() -> None:
    good = {"agent": "claude", "native": PRE_TOOL["claude"], "verdict": {"decision": "deny"}}
    inputs = []
    for index in range(60):
        if index % 3 == 1:
            inputs.append("not json" if index % 2 else '["a list"]')
        else:
            native = {**PRE_TOOL["claude"], "session_id": f"s{index}"}
            inputs.append(json.dumps({**good, "native": native}))
    result = acp("bridge", stdin="\n".join(inputs) + "\n")
    assert result.returncode == 0
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(answers) == len(inputs)
    for index, answer in enumerate(answers):
        if index % 3 == 1:
            assert set(answer["event"]) == {"error"}
            assert answer["render"] is None
        else:
            assert answer["event"]["meta"]["session_id"] == f"s{index}"
            assert answer["escalated"]["exit_code"] == 2


def test_bridge_render_matches_what_the_hook_process_sends() -> None:
    line = {"agent": "claude", "native": PRE_TOOL["claude"], "verdict": demo_deny()}
    escalated = bridge_line(json.dumps(line))["escalated"]
    run = run_hook("claude")
    assert run.code == escalated["exit_code"]
    assert run.body() == escalated["stdout"]
    assert run.stderr == escalated["stderr"]


def demo_deny() -> dict[str, str]:
    """The demo judge's answer on rm -rf (contract.md §7)."""
    return {"decision": "deny", "reason": "demo policy: rm -rf blocked"}


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("", "not JSON"),
        ("42", "JSON int"),
        ('{"agent": "nobody", "native": {}}', "not one of"),
        ('{"agent": "claude"}', "no native payload"),
        ('{"agent": "claude", "native": {}, "extra": 1}', "unknown field(s) extra"),
        ('{"agent": "claude", "native": {}, "options": []}', "options must be an object"),
        ('{"agent": "claude", "native": {}, "options": {"x": 1}}', "unknown option(s) x"),
        ('{"agent": "claude", "native": {}, "options": {"sole_gate": 1}}', "sole_gate"),
        ('{"agent": "codex", "native": {}, "options": {"codex_version": 135}}', "codex_version"),
    ],
)
def test_bridge_bad_line_answers_an_error_naming_the_problem(line: str, message: str) -> None:
    answer = bridge_line(line)
    assert message in answer["event"]["error"]
    assert (answer["render"], answer["escalated"]) == (None, None)


def test_bridge_bad_verdict_still_answers_the_event() -> None:
    answer = bridge_line(
        json.dumps({"agent": "gemini", "native": {}, "verdict": {"decision": "x"}})
    )
    assert answer["event"]["meta"]["agent"] == "gemini"
    assert "decision" in answer["render"]["error"]
    assert answer["escalated"] == answer["render"]


def test_bridge_without_verdict_renders_nothing() -> None:
    answer = bridge_line(json.dumps({"agent": "amp", "native": PRE_TOOL["amp"]}))
    assert answer["event"]["input"] == {"command": "rm -rf /"}
    assert (answer["render"], answer["escalated"]) == (None, None)


def test_bridge_options_reach_the_adapter() -> None:
    line: dict[str, Any] = {"agent": "codex", "native": PRE_TOOL["codex"], "verdict": demo_deny()}
    line["options"] = {"codex_version": "0.100.0"}  # below the supported range: observe only
    observe = bridge_line(json.dumps(line))
    assert observe["event"]["meta"]["integration_mode"] == "observe_only"
    line["options"] = {"codex_version": "0.150.0", "sole_gate": True}
    enforcing = bridge_line(json.dumps(line))
    assert enforcing["render"]["enforced"] is True


def test_bridge_takes_each_hosts_version_option() -> None:
    # <agent>_version per line, as adapter_for takes it: Copilot blocks by exit 2 from 1.0.70.
    line: dict[str, Any] = {
        "agent": "copilot",
        "native": PRE_TOOL["copilot"],
        "verdict": demo_deny(),
    }
    codes = []
    for version in ("1.0.65", "1.0.102"):
        line["options"] = {"copilot_version": version}
        answer = bridge_line(json.dumps(line))
        assert answer["render"]["enforced"] is True
        codes.append(answer["render"]["exit_code"])
    assert codes == [0, 2]
    line["options"] = {"gemini_version": "0.61.0"}
    assert "gemini_version" in bridge_line(json.dumps(line))["event"]["error"]
    line["options"] = {"copilot_version": 1}
    assert (
        "options.copilot_version must be a version"
        in bridge_line(json.dumps(line))["event"]["error"]
    )


def test_parse_prints_the_event() -> None:
    result = acp("parse", "--agent", "gemini", stdin=json.dumps(PRE_TOOL["gemini"]))
    assert result.returncode == 0
    event = json.loads(result.stdout)
    assert (event["tool"], event["input"]) == ("Bash", {"command": "rm -rf /"})


def test_render_prints_the_response_and_escalates_on_request() -> None:
    payload = json.dumps(PRE_TOOL["gemini"])
    plain = acp("render", "--agent", "gemini", "--verdict", '{"decision": "ask"}', stdin=payload)
    assert json.loads(plain.stdout)["exit_code"] == 0
    escalated = acp(
        "render",
        "--agent",
        "gemini",
        "--verdict",
        '{"decision": "ask"}',
        "--escalate",
        stdin=payload,
    )
    assert json.loads(escalated.stdout)["exit_code"] == 2


@pytest.mark.parametrize("verdict", ["{", '{"decision": "maybe"}', "[]"])
def test_render_refuses_a_bad_verdict_by_name(verdict: str) -> None:
    result = acp("render", "--agent", "claude", "--verdict", verdict, stdin="{}")
    assert result.returncode == 2
    assert result.stderr.startswith("acp render: --verdict:")


def test_parse_refuses_a_non_json_payload() -> None:
    result = acp("parse", "--agent", "claude", stdin="nope")
    assert result.returncode == 2
    assert "stdin is not a JSON payload" in result.stderr


def test_validate_reports_each_failing_file_and_exits_non_zero(tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"decision": "allow"}))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"decision": "perhaps"}))
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    result = acp("validate", "verdict", str(good), str(bad), str(broken), str(tmp_path / "none"))
    assert result.returncode == 1
    assert f"{good}: ok" in result.stdout
    assert f"{bad}: decision:" in result.stderr
    assert f"{broken}: not JSON" in result.stderr
    assert "cannot read" in result.stderr
    assert "3 of 4 file(s)" in result.stderr


def test_validate_accepts_what_parse_produces() -> None:
    event = acp("parse", "--agent", "claude", stdin=json.dumps(PRE_TOOL["claude"])).stdout
    result = acp("validate", "event", "-", stdin=event)
    assert result.returncode == 0


def test_keys_prints_the_published_map_and_one_tool() -> None:
    assert json.loads(acp("keys").stdout) == dict(MODELED_TOOL_INPUT_KEYS)
    assert acp("keys", "Bash").stdout.strip() == MODELED_TOOL_INPUT_KEYS["Bash"]
    # A globally aliased native name resolves to its canonical tool.
    assert acp("keys", "run_shell_command").stdout.strip() == MODELED_TOOL_INPUT_KEYS["Bash"]
    unknown = acp("keys", "NoSuchTool")
    assert unknown.returncode == 2
    assert "no input key is published for tool 'NoSuchTool'; known:" in unknown.stderr
    # N16: a host-scoped native name the README names (Factory's Execute) resolves too.
    assert acp("keys", "Execute").stdout.strip() == MODELED_TOOL_INPUT_KEYS["Bash"]
    assert acp("keys", "--agent", "claude", "Execute").returncode == 2


def _keys(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["keys", *argv]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("agent", AGENT_IDS)
def test_keys_agrees_with_the_adapter_and_the_published_map_on_native_names(
    agent: str, capsys: pytest.CaptureFixture[str]
) -> None:
    adapter = (
        adapter_for(agent, codex_version="0.150.0") if agent == "codex" else adapter_for(agent)
    )
    table = json.loads(_keys(capsys, "--agent", agent))
    # Every name the adapter maps (global and host aliases) gets its canonical tool's key.
    for native, canonical in {**TOOL_ALIASES, **adapter.TOOL_ALIASES}.items():
        assert table[native] == MODELED_TOOL_INPUT_KEYS[canonical], native
        assert _keys(capsys, "--agent", agent, native).strip() == table[native]
    for canonical, key in MODELED_TOOL_INPUT_KEYS.items():
        assert table[canonical] == key
    # Through a real parse: the host's own shell tool name reads the key the event carries.
    event = adapter.parse(PRE_TOOL[agent])
    native_tool = event.meta.native_tool
    assert isinstance(native_tool, str) and isinstance(event.tool, str)
    assert (
        table.get(native_tool, MODELED_TOOL_INPUT_KEYS.get(native_tool))
        == (MODELED_TOOL_INPUT_KEYS[event.tool])
    )
    assert MODELED_TOOL_INPUT_KEYS[event.tool] in event.input


def test_schema_path_points_at_the_installed_document() -> None:
    path = Path(acp("schema-path", "tool-call-event").stdout.strip())
    assert json.loads(path.read_text())["title"] == "ToolCallEvent"
    unknown = acp("schema-path", "nope")
    assert unknown.returncode == 2
    assert "choose one of" in unknown.stderr


def test_gen_check_runs_the_generator_in_a_source_checkout(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["gen", "--check"]) == 0
    assert "up to date" in capsys.readouterr().out


def test_gen_outside_a_checkout_says_where_the_generator_lives(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import agent_control_plane_core.cli._install as cli

    monkeypatch.setattr(cli, "_source_checkout", lambda: None)
    assert main(["gen"]) == 2
    assert "make codegen" in capsys.readouterr().err
    assert cli._source_checkout() is None
    monkeypatch.undo()
    assert cli._source_checkout() == REPO


@pytest.mark.parametrize(
    "argv", [["gen"], ["keys"], ["audit", "-"], ["validate", "event", "-"]], ids=lambda a: a[0]
)
def test_an_unknown_option_gets_the_sub_command_usage(argv: list[str]) -> None:
    # N44: argparse reports leftovers on the top-level parser unless main hands them back.
    command = argv[0]
    run = acp(*argv, "--bogus")
    assert run.returncode == 2
    assert f"usage: acp {command} " in run.stderr
    assert "unrecognized arguments: --bogus" in run.stderr
    assert "usage: acp [-h] COMMAND" not in run.stderr


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(command: str) -> None:
    result = acp(command, "--help")
    assert result.returncode == 0
    assert "usage: acp" in result.stdout


def test_top_level_help_lists_every_command() -> None:
    result = acp("--help")
    for command in COMMANDS:
        assert command in result.stdout


def test_bridge_answers_each_line_before_the_next_arrives() -> None:
    import select

    process = subprocess.Popen(
        [ACP, "bridge"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=hook_env("claude")
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        for index in range(3):
            native = {**PRE_TOOL["claude"], "session_id": f"live{index}"}
            process.stdin.write(json.dumps({"agent": "claude", "native": native}).encode() + b"\n")
            process.stdin.flush()
            # The stream stays open: the answer must come without waiting for more input.
            ready, _, _ = select.select([process.stdout], [], [], 30)
            assert ready, f"no answer to line {index} while the stream is open"
            answer = json.loads(process.stdout.readline())
            assert answer["event"]["meta"]["session_id"] == f"live{index}"
    finally:
        process.stdin.close()
        process.wait(timeout=30)
    assert process.returncode == 0


def test_bridge_answers_a_last_line_without_newline_and_a_long_line() -> None:
    long_native = {**PRE_TOOL["claude"], "tool_input": {"command": "x" * 200_000}}
    lines = [
        json.dumps({"agent": "claude", "native": long_native}),
        '{"agent": "amp", "native": {}}',
    ]
    result = acp("bridge", stdin="\n".join(lines))  # no final newline
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(answers) == 2
    assert len(answers[0]["event"]["input"]["command"]) == 200_000
    assert answers[1]["event"]["meta"]["agent"] == "amp"


def test_install_refuses_a_judge_or_policy_that_cannot_run_and_names_the_demo_judge(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # N2: registering what cannot run would fail every call with the host's failure posture.
    assert main(["install", "claude", "--root", str(tmp_path), "--judge", "nomod:judge"]) == 2
    assert "cannot import 'nomod'" in capsys.readouterr().err
    missing = str(tmp_path / "missing.toml")
    assert main(["install", "claude", "--root", str(tmp_path), "--policy", missing]) == 2
    assert "nothing registered" in capsys.readouterr().err
    assert not (tmp_path / ".claude").exists()
    # N38: a mistyped root is refused, not created.
    typo = tmp_path / "typo"
    assert main(["install", "claude", "--root", str(typo)]) == 2
    assert not typo.exists()
    assert main(["install", "claude", "--root", str(tmp_path), "--dry-run"]) == 0
    assert "demo judge, which blocks only shell commands matching rm -rf" in capsys.readouterr().err


def test_parse_says_when_the_payload_is_not_an_object() -> None:
    listed = acp("parse", "--agent", "claude", stdin="[1]")
    assert listed.returncode == 0 and json.loads(listed.stdout)["event"] == "unknown"
    assert listed.stderr.strip() == "acp parse: the payload is a JSON array, not an object"
    assert acp("parse", "--agent", "claude", stdin="{}").stderr == ""


def test_audit_of_a_file_without_one_record_exits_1(tmp_path: Path) -> None:
    log = tmp_path / "x.jsonl"
    log.write_text("[1,2]\n")
    run = acp("audit", str(log))
    assert run.returncode == 1 and "holds no audit record" in run.stderr
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert acp("audit", str(empty)).returncode == 0


@pytest.mark.parametrize("agent", ["claude", "gemini", "cursor"])
def test_record_turns_native_payloads_into_cases_that_conform(agent: str, tmp_path: Path) -> None:
    # N34: the golden natives recorded again give their golden events, and the recorded cases
    # added to the file still pass conformance (nothing recorded contradicts the adapter).
    from agent_control_plane_core.conformance import assert_conforms, load_fixtures

    fixtures = load_fixtures(REPO / "fixtures" / f"{agent}.json")
    plain = [case for case in fixtures["cases"] if "adapter_options" not in case]
    natives = tmp_path / "natives.jsonl"
    natives.write_text("".join(json.dumps(case["native"]) + "\n\n" for case in plain))
    run = acp(
        "record",
        "--agent",
        agent,
        str(natives),
        "--verdict",
        'ctx={"decision": "allow", "additional_context": "recorded"}',
    )
    assert run.returncode == 0, run.stderr
    recorded = json.loads(run.stdout)
    assert recorded["agent"] == agent
    assert [case["event"] for case in recorded["cases"]] == [case["event"] for case in plain]
    assert all(
        sorted(case["render"]) == ["allow", "ask", "ctx", "deny"] for case in recorded["cases"]
    )
    into = tmp_path / "fixture.json"
    into.write_text(json.dumps(fixtures))
    appended = acp("record", "--agent", agent, str(natives), "--into", str(into))
    assert appended.returncode == 0, appended.stderr
    merged = json.loads(into.read_text())
    assert len(merged["cases"]) == len(fixtures["cases"]) + len(plain)
    assert_conforms(adapter_for(agent), merged)


def test_record_names_a_bad_line_and_a_bad_verdict(tmp_path: Path) -> None:
    natives = tmp_path / "natives.jsonl"
    natives.write_text('{"hook_event_name": "PreToolUse"}\n{oops\n')
    bad_line = acp("record", "--agent", "claude", str(natives))
    assert bad_line.returncode == 2 and "line 2 is not JSON" in bad_line.stderr
    natives.write_text('{"hook_event_name": "PreToolUse"}\n')
    bad_verdict = acp(
        "record",
        "--agent",
        "claude",
        str(natives),
        "--verdict",
        'x={"decision": "allow", "oops": 1}',
    )
    assert bad_verdict.returncode == 2 and "oops" in bad_verdict.stderr


def test_record_refresh_migrates_goldens_after_a_contract_change(tmp_path: Path) -> None:
    # N11: after a rename every event golden is stale; --refresh re-derives them from the adapter.
    from agent_control_plane_core.conformance import assert_conforms

    original = json.loads((REPO / "fixtures/gemini.json").read_text())
    stale = json.loads(json.dumps(original))
    for case in stale["cases"]:
        case["event"]["meta"]["old_name"] = case["event"]["meta"].pop("agent")
        for scenario in case["render"].values():
            scenario["native"]["exit_code"] = 99
    path = tmp_path / "gemini.json"
    path.write_text(json.dumps(stale))
    run = acp("record", "--agent", "gemini", "--refresh", str(path))
    assert run.returncode == 0, run.stderr
    count = len(original["cases"])
    assert f"{count} of {count} case(s) changed" in run.stdout
    refreshed = json.loads(path.read_text())
    assert refreshed == original  # names, natives, options and verdicts kept; goldens re-derived
    assert_conforms(adapter_for("gemini"), refreshed)
    assert acp("record", "--agent", "gemini").returncode == 2


def test_acp_hook_flags_reach_the_entry_as_its_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from agent_control_plane_core import runtime
    from agent_control_plane_core._generated.constants import UnrenderedPostures
    from agent_control_plane_core.cli import _hook

    seen: dict[str, Any] = {}

    def entry(adapter: Any, *, sole_gate: bool, environ: dict[str, str]) -> None:
        seen.update(agent=adapter.DECLARATION.AGENT, sole_gate=sole_gate, environ=environ)
        raise SystemExit(0)

    monkeypatch.setattr(_hook, "run_hook_entry", entry)
    words = ["claude", "--sole-gate", "--fail-closed", "--codex-version=0.171.0"]
    words += ["--on-unrendered", UnrenderedPostures.NOTE]
    options = _hook._hook_options(words)
    assert options is not None and options["sole_gate"] and options["fail_closed"]
    with pytest.raises(SystemExit):
        _hook._run_hook(options)
    assert seen["agent"] == "claude" and seen["sole_gate"] is True
    assert seen["environ"][runtime.FAIL_CLOSED_ENV] == "1"
    assert seen["environ"][runtime.SOLE_GATE_ENV] == "1"
    assert seen["environ"][runtime.CODEX_VERSION_ENV] == "0.171.0"
    assert seen["environ"][runtime.ON_UNRENDERED_ENV] == UnrenderedPostures.NOTE
    # Anything the hand parser cannot read alike goes to argparse and its message instead.
    assert _hook._hook_options(["claude", "--judge"]) is None
    assert _hook._hook_options(["claude", "--on-unrendered", "sometimes"]) is None
