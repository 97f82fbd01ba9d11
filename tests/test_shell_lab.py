"""The shell lab in make test: the splitter is sound against real bash, dash and zsh (issue 27).

Every line runs only inside lab/shell/inside.py's sandbox (user, mount, PID and network
namespaces, a tmpfs root holding the shells and logging stubs). The sandbox is proven first.
"""

from __future__ import annotations

from pathlib import Path

from agent_control_plane_core.policy import load_policy_judge
from agent_control_plane_core.shell import parse_script
from lab.shell.__main__ import soundness, summary
from lab.shell.check import check
from lab.shell.corpus import fixed_corpus, ordinary_lines, red_team_lines
from lab.shell.generate import generated_lines
from lab.shell.probe import prove

from conftest import REPO
from hook_runner import shell_call

# The generated slice of make test (make fuzz runs lab.shell with far more).
GENERATED = 3000
# Where docs/findings.md (RT3-FP) reports the rate; the test keeps it under 1%.
FP_LIMIT = 0.01


def test_the_sandbox_hides_the_machine_and_its_stubs_log() -> None:
    found = prove()
    assert "work" in found["root"] and "proc" in found["root"]


def test_every_corpus_line_is_sound_under_bash_dash_and_zsh() -> None:
    lines = fixed_corpus()
    generated = generated_lines(GENERATED, seed=0)
    assert len(red_team_lines()) > 400 and len(generated) > 2000
    verdicts = soundness(lines + generated)
    bad = [v.explain() for results in verdicts.values() for v in results if not v.sound]
    assert bad == [], "\n\n".join(bad[:10]) + "\n" + summary(verdicts)
    # The trace is real: the shells ran thousands of stubbed programs, rm among them.
    ran = [v for v in verdicts["bash"] if v.trace["exec"]]
    assert len(ran) > 1500
    assert any(argv[0].endswith("/rm") for v in ran for argv in v.trace["exec"])
    assert all(len(results) == len(lines) + len(generated) for results in verdicts.values())


def test_an_unsound_reading_is_shown_beside_the_shell_trace() -> None:
    trace = {"exec": [["/usr/local/bin/rm", "-rf", "/"]], "stderr": "", "status": 0}
    verdict = check("true", "bash", trace, parse_script("true"))
    assert not verdict.sound and verdict.missing == [["/usr/local/bin/rm", "-rf", "/"]]
    text = verdict.explain()
    assert "bash executed" in text and "splitter reported" in text and "'true'" in text
    # A word the splitter marked as an expansion stands for any word; a literal must be equal.
    assert check("rm $x", "bash", {**trace, "exec": [["/bin/rm", "a", "b"]]}).sound
    assert not check("rm a", "bash", {**trace, "exec": [["/bin/rm", "b"]]}).sound
    assert check("rm ~/a", "bash", {**trace, "exec": [["/bin/rm", "/home/lab/a"]]}).sound
    assert check("$x", "bash", trace).sound  # not readable: on_unparsed decides


def test_false_positive_rate_on_ordinary_developer_commands() -> None:
    judge = load_policy_judge(str(REPO / "examples" / "policy.toml"))
    from agent_control_plane_core import adapter_for

    lines = ordinary_lines()
    assert len(lines) >= 400
    unreadable = [line for line in lines if not parse_script(line).readable]
    blocked_unread = [
        line
        for line in lines
        if "cannot read"
        in str(judge(adapter_for("claude").parse(shell_call("claude", line))).reason)
    ]
    rate = (len(unreadable) + len(blocked_unread)) / len(lines)
    assert rate < FP_LIMIT, (unreadable, blocked_unread)
    doc = (REPO / "docs" / "findings.md").read_text(encoding="utf-8")
    assert f"{len(lines)} ordinary" in doc


def test_the_corpus_files_are_data() -> None:
    text = Path(REPO / "tests" / "data" / "ordinary-commands.txt").read_text(encoding="utf-8")
    assert text.endswith("\n") and "\r" not in text
