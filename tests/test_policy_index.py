"""The indexed policy judge decides exactly as the linear scan: same verdict, same deciding rule."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_control_plane_core import adapter_for, policy
from agent_control_plane_core._generated.constants import (
    Decisions,
    EventKinds,
    PolicyCommandFields,
    PolicyRuleFields,
    UnparsedOutcomes,
)
from agent_control_plane_core._policy_index import (
    MAGIC,
    IndexedPolicyJudge,
    IndexReader,
    build_index,
    load_indexed_judge,
    rule_keys,
)
from agent_control_plane_core.policy import PolicyJudge, _compile, load_policy_judge
from agent_control_plane_core.runtime import JudgeLoadError

R = PolicyRuleFields
C = PolicyCommandFields
PROGRAMS = ["git", "rm", "Git", "RM", "curl", "sh", "gitk", "tool1", "tool12", "x"]
PROGRAM_GLOBS = ["g*", "gi?", "*", "[rg]m", "tool*", "tool1?", "R*", "c[!x]rl", "sh"]
TOOLS = ["Bash", "Read", "Write", "B*", "mcp__srv__do", "mcp__srv__*", "*", "run_shell_command"]
EVENTS = [EventKinds.PRE_TOOL, EventKinds.POST_TOOL, EventKinds.PROMPT_SUBMIT]
WORDS = ["-f", "-rf", "push", "--force", "/", "x", "$X", '"$Y"', "./a.txt", "/etc/passwd", "-r"]
BROKEN = ["'unclosed", "$CMD x", "`ls` -f", "rm $(echo -rf) /", "${Z}"]


def _subset(items: list[str], min_size: int = 1) -> st.SearchStrategy[list[str]]:
    return st.lists(st.sampled_from(items), min_size=min_size, max_size=3, unique=True)


@st.composite
def command_conditions(draw: st.DrawFn) -> dict[str, Any]:
    """A command table: programs (literal, glob or none) and a few word conditions."""
    table: dict[str, Any] = {}
    if draw(st.integers(0, 3)):
        table[C.PROGRAM] = draw(_subset(PROGRAMS + PROGRAM_GLOBS))
    if draw(st.booleans()):
        table[C.FOLD_CASE] = True
    if draw(st.integers(0, 3)) == 0:
        table[C.SUBCOMMAND] = draw(_subset(["push", "p*", "x"]))
    if draw(st.integers(0, 2)) == 0:
        table[C.ANY_FLAGS] = draw(_subset(["-f", "--force", "-r"]))
    if draw(st.integers(0, 3)) == 0:
        table[C.ARGS] = draw(_subset(["/", "/etc/**", "*.txt"]))
    if draw(st.integers(0, 4)) == 0:
        table[C.PIPED_FROM] = draw(_subset(["curl", "g*"]))
    return table


@st.composite
def rules(draw: st.DrawFn) -> dict[str, Any]:
    """One rule table of the policy language, drawn to hit every bucket kind of the index."""
    rule: dict[str, Any] = {R.DECISION: draw(st.sampled_from(Decisions.ALL))}
    if draw(st.booleans()):
        rule[R.TOOLS] = draw(_subset(TOOLS))
    if draw(st.integers(0, 2)) == 0:
        rule[R.EVENTS] = draw(_subset(EVENTS))
    if draw(st.integers(0, 3)) == 0:
        rule[R.FIELD] = draw(st.sampled_from(["command", "file_path"]))
    kind = draw(st.integers(0, 9))
    if kind <= 6:
        rule[R.COMMAND] = draw(command_conditions())
    elif kind == 7:
        rule[R.MATCH] = draw(st.sampled_from(["rm", "git", "^ls", "x", "passwd"]))
    elif kind == 8:
        rule[R.PATHS] = draw(_subset(["/etc/**", "*.txt", "/tmp/*"]))
    if draw(st.integers(0, 2)) == 0:
        rule[R.ON_UNPARSED] = draw(st.sampled_from(UnparsedOutcomes.ALL))
    if draw(st.integers(0, 6)) == 0:
        rule[R.REWRITE] = {"pattern": "rm", "replacement": "RM"}
    if draw(st.booleans()):
        rule[R.REASON] = "because"
    return rule


@st.composite
def commands(draw: st.DrawFn) -> str:
    """A shell line: simple commands joined, some behind wrappers, some the splitter cannot read."""
    parts = []
    for _ in range(draw(st.integers(1, 3))):
        if draw(st.integers(0, 3)) == 0:
            parts.append(draw(st.sampled_from(BROKEN)))
            continue
        program = draw(st.sampled_from([*PROGRAMS, "/usr/bin/rm", "ls"]))
        words = draw(st.lists(st.sampled_from(WORDS), max_size=3))
        wrapper = draw(st.sampled_from(["", "", "sudo ", "env A=1 "]))
        parts.append(wrapper + " ".join([program, *words]))
    joiners = draw(st.lists(st.sampled_from([" && ", " | ", "; "]), min_size=len(parts)))
    line = parts[0]
    for joiner, part in zip(joiners, parts[1:], strict=False):
        line += joiner + part
    if draw(st.integers(0, 5)) == 0:
        line = f"bash -c '{line}'"
    return line


@st.composite
def events(draw: st.DrawFn) -> Any:
    """A Claude Code or Gemini CLI call: shell, file and MCP tools, before and after they run."""
    agent = draw(st.sampled_from(["claude", "claude", "gemini"]))
    tool = draw(st.sampled_from(["Bash", "Bash", "Bash", "Read", "Write", "mcp__srv__do", "Other"]))
    tool_input: dict[str, Any] = {"command": draw(commands())}
    if tool in ("Read", "Write") or draw(st.booleans()):
        tool_input["file_path"] = draw(st.sampled_from(["/etc/passwd", "a.txt", "/tmp/x", "rm"]))
    kind = draw(st.sampled_from(["pre", "pre", "post", "prompt"]))
    if agent == "gemini":
        native = {"Bash": "run_shell_command", "mcp__srv__do": "mcp_srv_do"}.get(tool, tool)
        name = {"pre": "BeforeTool", "post": "AfterTool", "prompt": "BeforeAgent"}[kind]
        payload: dict[str, Any] = {"hook_event_name": name, "tool_name": native}
    else:
        name = {"pre": "PreToolUse", "post": "PostToolUse", "prompt": "UserPromptSubmit"}[kind]
        payload = {"hook_event_name": name, "tool_name": tool}
    payload.update(tool_input=tool_input, cwd="/work", session_id="s")
    if kind == "post":
        payload["tool_response"] = {"stdout": "rm -rf done", "stderr": ""}
    if kind == "prompt":
        payload = {"hook_event_name": name, "prompt": "rm x", "cwd": "/work", "session_id": "s"}
    return adapter_for(agent).parse(payload)


def _judges(raw: list[dict[str, Any]]) -> tuple[PolicyJudge, IndexedPolicyJudge]:
    compiled, problems = _compile({"rules": raw})
    assert not problems, problems
    reader = IndexReader(build_index(raw, compiled, "d1"))
    return PolicyJudge(compiled, "linear"), IndexedPolicyJudge(reader, "indexed")


@given(st.lists(rules(), min_size=1, max_size=12), st.lists(events(), min_size=1, max_size=4))
def test_indexed_and_linear_evaluation_agree(raw: list[dict[str, Any]], calls: list[Any]) -> None:
    linear, indexed = _judges(raw)
    for event in calls:
        expected = linear.explain(event)
        got = indexed.explain(event)
        assert (got.rule, got.verdict, got.why) == (expected.rule, expected.verdict, expected.why)


def test_each_bucket_kind_is_used() -> None:
    compiled, _ = _compile(
        {
            "rules": [
                {R.DECISION: "deny", R.COMMAND: {C.PROGRAM: ["rm"]}},
                {R.DECISION: "deny", R.COMMAND: {C.PROGRAM: ["tool*"]}},
                {R.DECISION: "allow", R.COMMAND: {C.PROGRAM: ["*"]}},
                {R.DECISION: "deny", R.TOOLS: ["mcp__a__b"]},
                {R.DECISION: "ask", R.EVENTS: [EventKinds.POST_TOOL]},
                {R.DECISION: "ask"},
                {R.DECISION: "allow", R.COMMAND: {C.PROGRAM: ["git"], C.SUBCOMMAND: ["push"]}},
            ]
        }
    )
    keys = [rule_keys(rule) for rule in compiled]
    assert keys[0] == ["p\0\0rm", "u\0"]
    assert keys[1] == ["g\0\0tool", "u\0"]
    assert keys[2] == ["*"]
    assert keys[3] == ["t\0mcp__a__b", "t\0mcp_a_b"]
    assert keys[4] == [f"e\0{EventKinds.POST_TOOL}"]
    assert keys[5] == ["*"]
    assert keys[6] == ["S\0\0git", "s\0\0git\0push"]


def test_a_broken_index_is_refused() -> None:
    compiled, _ = _compile({"rules": [{R.DECISION: "deny"}]})
    good = build_index([{R.DECISION: "deny"}], compiled, "d")
    with pytest.raises(ValueError):
        IndexReader(b"nope" + good[4:])
    with pytest.raises(ValueError):
        IndexReader(good[:20])
    with pytest.raises(ValueError):
        build_index([], compiled, "d")


def _generated_policy(path: Path, count: int) -> None:
    rule = (
        '[[rules]]\nname = "r{i}"\ntools = ["Bash"]\ndecision = "deny"\nreason = "no tool{i}"\n'
        '[rules.command]\nprogram = ["tool{i}"]\nany_flags = ["-f"]\n'
    )
    path.write_text("\n".join(rule.format(i=i) for i in range(count)), encoding="utf-8")


def _shell(command: str) -> Any:
    payload = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": "/w", "session_id": "s"}
    return adapter_for("claude").parse({**payload, "tool_input": {"command": command}})


@pytest.fixture
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A per-user cache under tmp_path (the real check refuses /tmp), as test_policy_cache does."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    monkeypatch.setattr(policy, "_agent_writable", lambda environ: [str(tmp_path / "project")])
    return home


def test_a_large_policy_loads_from_its_index(tmp_path: Path, cache_home: Path) -> None:
    path = tmp_path / "rules.toml"
    _generated_policy(path, 3000)
    first = load_indexed_judge(str(path))
    assert type(first) is PolicyJudge  # the first load parses, checks and writes the index
    started = time.perf_counter()
    judge = load_indexed_judge(str(path))
    verdict = judge.explain(_shell("tool2999 -f x && ls"))
    assert time.perf_counter() - started < 0.05  # far from the linear scan's cost
    assert isinstance(judge, IndexedPolicyJudge)
    assert verdict.rule == "rules[2999] ('r2999')"
    assert verdict == first.explain(_shell("tool2999 -f x && ls"))
    assert judge.explain(_shell("ls")).rule is None
    assert judge.explain(_shell("$T -f")).rule == "rules[0] ('r0')"  # unparsed: fails closed
    assert len(judge._rules) == 3000
    assert judge.commands(_shell("tool1 -f")) == ["tool1 -f"]


def test_a_changed_policy_is_reread(tmp_path: Path, cache_home: Path) -> None:
    path = tmp_path / "rules.toml"
    _generated_policy(path, 3)
    load_indexed_judge(str(path))
    assert load_indexed_judge(str(path)).explain(_shell("tool4 -f")).rule is None
    _generated_policy(path, 5)
    os.utime(path, ns=(time.time_ns(), time.time_ns() + 10))
    load_indexed_judge(str(path))
    assert load_indexed_judge(str(path)).explain(_shell("tool4 -f")).rule == "rules[4] ('r4')"


def test_a_tampered_index_is_rebuilt(tmp_path: Path, cache_home: Path) -> None:
    path = tmp_path / "rules.toml"
    _generated_policy(path, 3)
    load_indexed_judge(str(path))
    (index,) = (cache_home / "agent-control-plane-core" / "policy").glob("*.index")
    assert index.read_bytes().startswith(MAGIC)
    index.write_bytes(b"ACPXbroken")
    assert type(load_indexed_judge(str(path))) is PolicyJudge
    index.chmod(0o666)
    assert type(load_indexed_judge(str(path))) is PolicyJudge
    index.unlink()
    index.symlink_to(path)
    assert type(load_indexed_judge(str(path))) is PolicyJudge


def test_errors_are_the_linear_loaders(tmp_path: Path, cache_home: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('[[rules]]\ndecision = "maybe"\n', encoding="utf-8")
    with pytest.raises(JudgeLoadError) as linear:
        load_policy_judge(str(path))
    with pytest.raises(JudgeLoadError) as indexed:
        load_indexed_judge(str(path))
    assert str(indexed.value) == str(linear.value)
    with pytest.raises(JudgeLoadError):
        load_indexed_judge(str(tmp_path / "missing.toml"))


def test_no_cache_folder_still_judges(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)  # the cache folder would be inside the working directory
    path = tmp_path / "rules.toml"
    _generated_policy(path, 2)
    assert load_indexed_judge(str(path)).explain(_shell("tool1 -f")).rule == "rules[1] ('r1')"


def test_an_unreadable_word_may_be_the_subcommand() -> None:
    rule = {R.DECISION: "deny", R.COMMAND: {C.PROGRAM: ["git"], C.SUBCOMMAND: ["push"]}}
    linear, indexed = _judges([rule])
    many = "git " + "-q " * 40 + "push"
    for command in ("git $X", "git push", many, "git status"):
        expected, got = linear.explain(_shell(command)), indexed.explain(_shell(command))
        assert (got.rule, got.verdict, got.why) == (expected.rule, expected.verdict, expected.why)
    assert indexed.explain(_shell("git $X")).rule == "rules[0]"
    assert indexed.explain(_shell(many)).rule == "rules[0]"


def test_the_hook_reads_a_current_index_and_never_indexes_a_layered_file(
    tmp_path: Path, cache_home: Path
) -> None:
    from agent_control_plane_core._layers import LayeredJudge
    from agent_control_plane_core.runtime import judge_from_env

    path = tmp_path / "rules.toml"
    _generated_policy(path, 3)
    assert type(judge_from_env({"ACP_POLICY": str(path)})) is PolicyJudge  # builds the index
    assert isinstance(judge_from_env({"ACP_POLICY": str(path)}), IndexedPolicyJudge)
    _touch = time.time_ns() + 10_000_000_000
    path.write_text('mode = "observe"\n' + path.read_text(), encoding="utf-8")
    os.utime(path, ns=(_touch, _touch))
    assert isinstance(judge_from_env({"ACP_POLICY": str(path)}), LayeredJudge)
    assert isinstance(judge_from_env({"ACP_POLICY": str(path)}), LayeredJudge)
    layered = load_indexed_judge(str(path))  # called directly: judged, but not indexed
    assert not isinstance(layered, IndexedPolicyJudge)
    assert not isinstance(load_indexed_judge(str(path)), IndexedPolicyJudge)
