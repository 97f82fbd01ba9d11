"""Policy layers that only tighten, and observe mode (issue 28)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from agent_control_plane_core import _layers, adapter_for
from agent_control_plane_core import policy as policy_module
from agent_control_plane_core._judges import JudgeLoadError
from agent_control_plane_core._policy_index import load_indexed_judge
from agent_control_plane_core.audit import summarize
from agent_control_plane_core.cli import main
from agent_control_plane_core.install import INSTALLABLE
from agent_control_plane_core.policy import check_policy_file, load_policy_judge

from hook_runner import PRE_TOOL, run_hook

BASELINE = """
[[rules]]
name = "no-rm"
tools = ["Bash"]
command = { program = ["rm"] }
decision = "deny"
reason = "the organisation forbids rm"

[[rules]]
name = "ask-curl"
tools = ["Bash"]
command = { program = ["curl"] }
decision = "ask"
reason = "network access needs a look"
"""
# A project layer that tries to allow every shell call, rm and curl included, and adds a deny.
PROJECT = """
extends = "{base}"
tests = [
  {{ name = "rm stays denied", tool = "Bash", input = {{ command = "rm -rf /" }}, expect = "deny" }},
  {{ name = "curl still asks", tool = "Bash", input = {{ command = "curl x" }}, expect = "ask" }},
  {{ name = "own deny", tool = "Bash", input = {{ command = "git push" }}, expect = "deny" }},
  {{ name = "ls allowed", tool = "Bash", input = {{ command = "ls" }}, expect = "allow" }},
]

[[rules]]
name = "no-push"
tools = ["Bash"]
command = {{ program = ["git"], subcommand = ["push"] }}
decision = "deny"
reason = "the project forbids pushes"

[[rules]]
name = "allow-all-shell"
tools = ["Bash"]
decision = "allow"
"""


def _chain(tmp_path: Path, base_text: str = BASELINE, relative: bool = False) -> Path:
    base = tmp_path / "org" / "baseline.toml"
    base.parent.mkdir(exist_ok=True)
    base.write_text(base_text)
    project = tmp_path / "project" / "policy.toml"
    project.parent.mkdir(exist_ok=True)
    named = "../org/baseline.toml" if relative else str(base)
    project.write_text(PROJECT.format(base=named))
    return project


def _event(agent: str, command: str) -> Any:
    adapter = adapter_for(agent)
    payload = json.loads(json.dumps(PRE_TOOL[agent]).replace("rm -rf /", command))
    return adapter.parse(payload)


@pytest.mark.parametrize("agent", INSTALLABLE)
def test_a_project_cannot_allow_what_the_baseline_denies_on_any_host(
    agent: str, tmp_path: Path
) -> None:
    judge = load_policy_judge(str(_chain(tmp_path)))
    assert judge(_event(agent, "rm -rf /")).decision == "deny"
    assert judge(_event(agent, "git push")).decision == "deny"
    assert judge(_event(agent, "ls")).decision == "allow"


def test_policy_test_runs_the_project_tests_on_the_composed_policy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = _chain(tmp_path, relative=True)
    assert main(["policy", "test", str(project)]) == 0
    assert "failed" not in capsys.readouterr().out.lower()
    # A test claiming the project's allow wins over the baseline fails.
    project.write_text(project.read_text().replace('expect = "deny" }', 'expect = "allow" }', 1))
    assert main(["policy", "test", str(project)]) == 1


def test_explain_names_the_layer_and_rule_that_decided(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = _chain(tmp_path)
    payload = json.dumps(PRE_TOOL["claude"])
    assert main(["policy", "explain", str(project), payload, "--agent", "claude"]) == 0
    out = capsys.readouterr().out
    assert "no-rm" in out and str(tmp_path / "org" / "baseline.toml") in out
    judge = load_policy_judge(str(project))
    assert "LayeredJudge" in repr(judge)
    explanation = judge.explain(_event("claude", "git push"))
    assert explanation.rule is not None and str(project) in explanation.rule


def test_an_outer_ask_is_not_turned_into_an_allow(tmp_path: Path) -> None:
    judge = load_policy_judge(str(_chain(tmp_path)))
    verdict = judge(_event("claude", "curl example.com"))
    assert verdict.decision == "ask"
    assert judge.last_rule is not None and "ask-curl" in judge.last_rule


def test_the_hook_enforces_the_composed_policy(tmp_path: Path) -> None:
    project = _chain(tmp_path)
    run = run_hook("claude", PRE_TOOL["claude"], ACP_POLICY=str(project))
    assert run.code == 2 and "the organisation forbids rm" in run.stderr


@pytest.mark.parametrize("damage", ["missing", "invalid", "cycle", "fifo", "device"])
def test_a_base_that_does_not_load_blocks_every_call(damage: str, tmp_path: Path) -> None:
    project = _chain(tmp_path)
    base = tmp_path / "org" / "baseline.toml"
    if damage == "missing":
        base.unlink()
    elif damage in ("fifo", "device"):
        # R6 on the layered path: refused as not a regular file, never waited on or read.
        base.unlink()
        if damage == "fifo":
            os.mkfifo(base)
        else:
            base.symlink_to("/dev/zero")
        with pytest.raises(JudgeLoadError, match="not a regular file"):
            load_policy_judge(str(project))
    elif damage == "invalid":
        base.write_text(BASELINE.replace('decision = "deny"', 'decision = "nope"'))
    else:
        base.write_text(f'extends = "{project}"\n' + BASELINE)
    with pytest.raises(JudgeLoadError, match="extends"):
        load_policy_judge(str(project))
    ls = json.loads(json.dumps(PRE_TOOL["claude"]).replace("rm -rf /", "ls"))
    run = run_hook("claude", ls, ACP_POLICY=str(project))
    assert run.code == 2 and "extends" in run.stderr
    assert any("extends" in problem for problem in check_policy_file(str(project)))


def test_bad_modes_and_bases_are_named(tmp_path: Path) -> None:
    path = tmp_path / "policy.toml"
    path.write_text('mode = "watch"\nextends = 3\n[[rules]]\ndecision = "deny"\nmode = "x"\n')
    with pytest.raises(JudgeLoadError) as caught:
        _layers.load_layers(str(path))
    text = str(caught.value)
    assert "top level, field mode" in text and "field extends" in text
    assert "rules[0], field mode" in text
    assert check_policy_file(str(path))  # the schema refuses them as well
    deep = tmp_path / "deep0.toml"
    for index in range(10):
        (tmp_path / f"deep{index}.toml").write_text(
            f'extends = "deep{index + 1}.toml"\nrules = []\n'
        )
    with pytest.raises(JudgeLoadError, match="more than 8 layers"):
        load_policy_judge(str(deep))


def test_observe_mode_allows_and_records_the_would_be_deny(tmp_path: Path) -> None:
    project = _chain(tmp_path, 'mode = "observe"\n' + BASELINE)
    log = tmp_path / "audit.jsonl"
    run = run_hook("claude", PRE_TOOL["claude"], ACP_POLICY=str(project), ACP_AUDIT_LOG=str(log))
    assert run.code == 0
    record = json.loads(log.read_text().splitlines()[-1])
    assert record["verdict"]["decision"] == "allow"
    assert "observe: would deny by rules[0] ('no-rm') in" in record["rule"]
    text = summarize(log.read_text().splitlines())
    assert "observe mode: 1 would-be decision(s)" in text
    assert "would deny by rules[0] ('no-rm')" in text


def test_an_observed_rule_leaves_the_decision_to_the_others(tmp_path: Path) -> None:
    path = tmp_path / "policy.toml"
    path.write_text(
        BASELINE.replace('name = "no-rm"', 'name = "no-rm"\nmode = "observe"')
        + '\n[[rules]]\nname = "no-rm-either"\ntools = ["Bash"]\nmatch = "^rm -rf /tmp"\n'
        'decision = "deny"\n'
    )
    judge = load_policy_judge(str(path))
    assert judge(_event("claude", "rm -rf /")).decision == "allow"
    assert judge.last_rule == f"no rule; observe: would deny by rules[0] ('no-rm') in {path}"
    assert judge(_event("claude", "rm -rf /tmp/x")).decision == "deny"
    assert judge(_event("claude", "curl x")).decision == "ask"
    assert judge(_event("claude", "ls")).decision == "allow" and judge.last_rule is None


def test_a_layer_chain_is_never_indexed_as_one_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(policy_module, "_agent_writable", lambda environ: [])
    project = _chain(tmp_path)
    for _ in range(2):  # the second load finds the compiled cache
        judge = load_indexed_judge(str(project))
        assert getattr(judge, "layered", False)
        assert judge(_event("claude", "rm -rf /")).decision == "deny"


def test_the_hook_reads_a_plain_file_as_before(tmp_path: Path) -> None:
    plain = tmp_path / "plain.toml"
    plain.write_text(BASELINE)
    assert _layers.hook_judge(str(plain)) is None
    assert _layers.hook_judge(str(tmp_path / "missing.toml")) is None
    assert _layers.check_layers(str(plain), {"rules": []}) == []
    assert _layers.observed_summary([{"rule": "rules[0]"}]) == []


def test_an_inner_layer_only_observing_decides_nothing(tmp_path: Path) -> None:
    base = tmp_path / "base.toml"
    base.write_text("rules = []\n")
    inner = tmp_path / "inner.toml"
    inner.write_text('extends = "base.toml"\nmode = "observe"\n' + BASELINE)
    judge = load_policy_judge(str(inner))
    assert judge(_event("claude", "rm -rf /")).decision == "allow"
    os.chmod(inner, 0o644)
    assert judge.last_rule is not None and judge.last_rule.startswith("no rule; observe: would")
    only = tmp_path / "only.toml"
    only.write_text('mode = "observe"\n' + BASELINE)
    explanation = load_policy_judge(str(only)).explain(_event("claude", "rm -rf /"))
    assert explanation.rule is None and explanation.verdict.decision == "allow"
