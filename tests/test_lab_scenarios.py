"""The lab's expectations come from the declarations: a changed declaration changes what the lab demands."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from agent_control_plane_core import AGENT_IDS, adapter_for
from lab import run
from lab import scenarios as sc

REPO = Path(__file__).resolve().parent.parent


def _fake(base: Any, **facts: Any) -> Any:
    """An adapter stand-in whose declaration facts are the real host's, with some replaced."""
    names = ("GATED_KINDS", "COVERAGE", "COVERAGE_KINDS", "UNRENDERED_FIELDS", "INTEGRATION_MODE")
    values = {name: sc.fact(base, name) for name in names}
    values.update(facts)
    return SimpleNamespace(DECLARATION=base.DECLARATION, **values)


def _scenario(name: str) -> sc.Scenario:
    return next(s for s in (*sc.SCENARIOS, *sc.CONTROLS) if s.name == name)


@pytest.mark.parametrize("host", sorted(AGENT_IDS))
def test_every_scenario_has_an_expectation_on_every_host(host: str) -> None:
    adapter = adapter_for(host)
    for scenario in (*sc.SCENARIOS, *sc.controls_for(adapter)):
        expected = sc.expected(adapter, scenario)
        assert expected, scenario.name
        assert set(expected) <= set(sc.WORDS)


def test_claiming_context_before_the_tool_makes_the_lab_expect_delivery() -> None:
    base = adapter_for("claude")
    carried = dict(sc.fact(base, "UNRENDERED_FIELDS"))
    dropped = _fake(base, UNRENDERED_FIELDS={**carried, sc.PRE: frozenset({"additional_context"})})
    assert sc.expected(base, _scenario("context_pre"))[sc.CONTEXT_SEEN] is True
    assert sc.expected(dropped, _scenario("context_pre"))[sc.CONTEXT_SEEN] is False
    # Declaring a channel unrendered adds the control that proves the host lacks it.
    assert "control_context_pre" in [s.name for s in sc.controls_for(dropped)]
    assert "control_context_pre" not in [s.name for s in sc.controls_for(base)]


def test_an_ungated_kind_expects_the_call_to_run() -> None:
    base = adapter_for("claude")
    ungated = _fake(base, GATED_KINDS=frozenset())
    assert sc.expected(base, _scenario("deny")) == {sc.ORIGINAL_RAN: False, sc.REASON_SEEN: True}
    assert sc.expected(ungated, _scenario("deny")) == {sc.ORIGINAL_RAN: True}
    assert sc.expected(ungated, _scenario("crash_fail_closed")) == {sc.ORIGINAL_RAN: True}
    assert sc.expected(ungated, _scenario("prompt_block")) == {sc.PROMPT_SEEN: True}


def test_a_block_that_ends_the_run_expects_no_reason_at_the_model() -> None:
    base = adapter_for("claude")
    ending = _fake(base, BLOCK_ENDS_RUN=True)
    assert sc.expected(ending, _scenario("deny")) == {sc.ORIGINAL_RAN: False, sc.REASON_SEEN: False}
    assert sc.expected(ending, _scenario("deny_json_reason"))[sc.REASON_SEEN] is False
    # Only the reason changes: a fail-closed crash must still stop the call.
    assert sc.expected(ending, _scenario("crash_fail_closed")) == {sc.ORIGINAL_RAN: False}
    assert sc.expected(adapter_for("cline"), _scenario("deny"))[sc.REASON_SEEN] is False


def test_an_unrendered_rewrite_expects_neither_command_where_the_call_can_be_stopped() -> None:
    base = adapter_for("claude")
    carried = dict(sc.fact(base, "UNRENDERED_FIELDS"))
    no_rewrite = _fake(base, UNRENDERED_FIELDS={**carried, sc.PRE: frozenset({"mutated_input"})})
    assert sc.expected(base, _scenario("rewrite")) == {sc.REWRITE_RAN: True, sc.ORIGINAL_RAN: False}
    assert sc.expected(no_rewrite, _scenario("rewrite")) == {
        sc.REWRITE_RAN: False,
        sc.ORIGINAL_RAN: False,
    }


def test_observe_only_expects_nothing_blocked() -> None:
    base = adapter_for("claude")
    observing = _fake(base, INTEGRATION_MODE="observe_only")
    assert sc.expected(observing, _scenario("ask")) == {sc.ORIGINAL_RAN: True}


def test_markers_keep_the_secret_out_of_the_command_text() -> None:
    markers = sc.Markers("abcd1234")
    command = markers.command("/p")
    assert markers.secret not in command
    done = subprocess.run(
        ["sh", "-c", command.replace("/p/", "/dev/null-")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert markers.secret in done.stdout


def test_fill_and_merge_profiles() -> None:
    filled = run._fill({"{home}/x": ["a{home}", {"k": "{port}"}], "n": 3}, {"home": "/h"})
    assert filled == {"/h/x": ["a/h", {"k": "{port}"}], "n": 3}
    into: dict[str, Any] = {"permissions": {"allow": ["Read"]}, "hooks": {"A": 1}}
    run._merge(into, {"permissions": {"allow": ["Bash", "Read"]}, "x": True})
    assert into == {"permissions": {"allow": ["Read", "Bash"]}, "hooks": {"A": 1}, "x": True}


def test_drift_compares_rows_by_host_and_scenario(capsys: pytest.CaptureFixture[str]) -> None:
    old = "| host | version | scenario | observed | matches |\n| claude | 1 | deny | did not run | yes |\n"
    new = "| claude | 2 | deny | ran | NO |\n"
    run._print_drift(old, new)
    out = capsys.readouterr().out
    assert "DRIFT claude deny: 1 'did not run' -> 2 'ran'" in out
    assert "1 row(s) differ" in out


def test_every_profile_names_a_declared_host_and_its_shell_tool() -> None:
    for host in run.profiled_hosts():
        assert host in AGENT_IDS
        profile = run.load_profile(host)
        assert "{prompt}" in profile["argv"] and profile["argv"][0] == "{bin}"
        assert "{command}" in json.dumps(profile["shell_tool"]["arguments"])
        assert set(profile["controls"]) == set(sc.CONTROL_FIELDS)


def test_tap_records_the_call_and_replays_the_real_answer(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.write_text("#!/bin/sh\ncat >/dev/null; echo body; echo why >&2; exit 2\n")
    real.chmod(0o755)
    evidence = tmp_path / "hooks"
    done = subprocess.run(
        [sys.executable, "-m", "lab.tap", str(evidence), str(real), "hook"],
        input=b'{"hook_event_name":"PreToolUse"}',
        capture_output=True,
        cwd=REPO,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (2, b"body\n", b"why\n")
    (record,) = [json.loads(p.read_text()) for p in evidence.glob("hook-*.json")]
    assert record["source"] == "hook" and record["stdin"] == '{"hook_event_name":"PreToolUse"}'


def test_tap_answers_a_control_in_place_of_the_hook(tmp_path: Path) -> None:
    (tmp_path / "control.json").write_text(
        json.dumps(
            {"when": "PreToolUse", "unless": "tool_response", "stdout": "{}", "exit_code": 0}
        )
    )
    evidence = tmp_path / "hooks"
    args = [sys.executable, "-m", "lab.tap", str(evidence), "/nonexistent/acp"]
    done = subprocess.run(args, input=b'"PreToolUse"', capture_output=True, cwd=REPO, check=False)
    assert (done.returncode, done.stdout) == (0, b"{}")
    # "unless" matched: the real (here missing) program runs instead of the control.
    other = subprocess.run(
        args, input=b'"PreToolUse tool_response"', capture_output=True, cwd=REPO, check=False
    )
    assert other.returncode != 0 and b"FileNotFoundError" in other.stderr


def test_every_host_is_lab_run_or_says_what_it_was_built_from() -> None:
    # docs/hosts.md has a row for every declared host: its lab versions, or where its facts come from.
    from agent_control_plane_core import AGENT_IDS
    from agent_control_plane_core._generated.constants import HostDeclarationFields
    from lab.run import declaration, profiled_hosts

    lab_hosts = set(profiled_hosts())
    for agent in AGENT_IDS:
        built = HostDeclarationFields.BUILT_FROM in declaration(agent)
        assert built != (agent in lab_hosts), agent


def test_the_matrix_has_a_row_for_every_host() -> None:
    from agent_control_plane_core import AGENT_IDS
    from lab.run import matrix, profiled_hosts

    text = matrix([])
    for agent in AGENT_IDS:
        assert f"\n| {agent} | " in text, agent
        if agent not in profiled_hosts():
            assert f"\n| {agent} | unknown |" not in text
            assert "not lab-verified: rests on the sources" in text.split(f"\n| {agent} | ")[1]


def test_a_killed_hook_blocks_only_where_the_declaration_says_the_host_refuses_it() -> None:
    from agent_control_plane_core._generated.constants import DeadHooks

    base = adapter_for("claude", claude_version="2.1.332")
    killed, closed = _scenario("killed"), _scenario("killed_fail_closed")
    # Claude Code refuses the call only with the handler's onFailure block, which --fail-closed
    # writes, and only from 2.1.295 (HA3-11): 2.1.197 runs it whatever the entry says.
    assert sc.fact(base, "DEAD_HOOK") == DeadHooks.BLOCKS_FAIL_CLOSED
    old = adapter_for("claude", claude_version="2.1.197")
    assert sc.expected(old, closed) == {sc.ORIGINAL_RAN: True}
    assert sc.expected(base, killed) == {sc.ORIGINAL_RAN: True}
    assert sc.expected(base, closed) == {sc.ORIGINAL_RAN: False}
    runs = _fake(base, DEAD_HOOK=DeadHooks.RUNS)
    assert sc.expected(runs, closed) == {sc.ORIGINAL_RAN: True}
    blocks = _fake(base, DEAD_HOOK=DeadHooks.BLOCKS)
    assert sc.expected(blocks, killed) == {sc.ORIGINAL_RAN: False}
    # An ungated pre_tool cannot be refused whatever the host does with a dead hook.
    assert sc.expected(_fake(blocks, GATED_KINDS=frozenset()), killed) == {sc.ORIGINAL_RAN: True}


def test_copilot_refuses_a_dead_hook_from_the_version_that_made_errors_deny() -> None:
    from agent_control_plane_core._generated.constants import DeadHooks
    from agent_control_plane_core.runtime import entry_adapter

    def at(version: str) -> Any:
        return entry_adapter("copilot", {"ACP_COPILOT_VERSION": version})

    assert sc.fact(at("1.0.56"), "DEAD_HOOK") == DeadHooks.RUNS
    assert sc.fact(at("1.0.57"), "DEAD_HOOK") == DeadHooks.BLOCKS
    assert sc.expected(at("1.0.56"), _scenario("killed")) == {sc.ORIGINAL_RAN: True}
    assert sc.expected(at("1.0.65"), _scenario("killed")) == {sc.ORIGINAL_RAN: False}


def test_a_killed_judge_under_fail_closed_is_expected_blocked_wherever_pre_tool_is_gated() -> None:
    scenario = _scenario("judge_killed_fail_closed")
    assert (scenario.kill, scenario.fail_closed) == ("judge", True)
    from agent_control_plane_core._generated.constants import DeadHooks

    runs = _fake(adapter_for("claude"), DEAD_HOOK=DeadHooks.RUNS)
    # The supervised hook answers for its judge: the host's dead-hook posture does not matter.
    assert sc.expected(runs, scenario) == {sc.ORIGINAL_RAN: False}
    assert sc.expected(_fake(runs, GATED_KINDS=frozenset()), scenario) == {sc.ORIGINAL_RAN: True}


# A stand-in hook: forks like the fail-closed supervisor (or not), and the child runs the lab
# judge's kill of the whole hook; the parent reports whether it survived.
KILL_HOOK = """
import os, sys, time
sys.path.insert(0, {repo!r})
from lab import judge
if {fork!r}:
    pid = os.fork()
    if pid == 0:
        judge._kill_supervisor()
        os._exit(0)
    os.waitpid(pid, 0)
else:
    judge._kill_supervisor()
print("survived")
"""


@pytest.mark.parametrize("fork", [True, False])
def test_the_lab_judge_kills_its_supervising_hook_but_never_another_parent(fork: bool) -> None:
    import signal

    code = KILL_HOOK.format(repo=str(REPO), fork=fork)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    if fork:  # the forked child's parent has its command line: the supervisor, killed
        assert done.returncode == -signal.SIGKILL, done.stderr
    else:  # this process's parent is pytest: left alone
        assert (done.returncode, done.stdout.strip()) == (0, "survived"), done.stderr


def test_tap_dies_by_the_signal_that_killed_the_hook(tmp_path: Path) -> None:
    import signal

    real = tmp_path / "real"
    real.write_text("#!/bin/sh\ncat >/dev/null; kill -KILL $$\n")
    real.chmod(0o755)
    args = [sys.executable, "-m", "lab.tap", str(tmp_path / "hooks"), str(real)]
    done = subprocess.run(args, input=b"{}", capture_output=True, cwd=REPO, check=False)
    # The host must see the death itself, not an exit code the tap made of it.
    assert done.returncode == -signal.SIGKILL
    (record,) = [json.loads(p.read_text()) for p in (tmp_path / "hooks").glob("hook-*.json")]
    assert record["exit_code"] == -signal.SIGKILL


def test_a_config_form_reruns_the_deny_with_the_same_expectation() -> None:
    base = adapter_for("copilot")
    (variant,) = sc.form_variants(["pascal_case"])
    assert (variant.name, variant.form, variant.rule) == ("deny_pascal_case", "pascal_case", "deny")
    assert sc.expected(base, variant) == sc.expected(base, _scenario("deny"))
    # Only hosts whose profile names a form get the variant.
    assert "deny_pascal_case" in [s.name for s in run.scenarios_for("copilot", "1.0.102")]
    assert not [s for s in run.scenarios_for("claude", "2.1.332") if s.form]


def test_reshape_renames_the_installed_event_keys_and_refuses_a_config_without_them(
    tmp_path: Path,
) -> None:
    hooks = tmp_path / ".github" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "a.json").write_text(json.dumps({"version": 1, "hooks": {"preToolUse": [{"x": 1}]}}))
    (hooks / "broken.json").write_text("{")
    form = {"event_renames": {"preToolUse": "PreToolUse"}}
    run._reshape(form, tmp_path)
    assert json.loads((hooks / "a.json").read_text())["hooks"] == {"PreToolUse": [{"x": 1}]}
    with pytest.raises(RuntimeError, match="preToolUse"):
        run._reshape(form, tmp_path)
