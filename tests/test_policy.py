"""The policy judge: one rule file, the same decision for the same call on every host."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from agent_control_plane_core import AGENT_IDS, ToolCallEvent, Verdict, adapter_for
from agent_control_plane_core._model_base import ABSENT
from agent_control_plane_core.cli import main
from agent_control_plane_core.policy import (
    MATCH_LIMIT_BYTES,
    PolicyJudge,
    check_policy_file,
    load_policy_judge,
)
from agent_control_plane_core.runtime import JudgeLoadError, render_escalated
from agent_control_plane_core.schemas import validator_for

from conftest import REPO
from hook_runner import BIN, BLOCK_EXIT, FAILURE_EXIT, run_hook, shell_call

EXAMPLE = REPO / "examples" / "policy.toml"
KEY = "AKIAIOSFODNN7EXAMPLE"
REDACTED = "[REDACTED CREDENTIAL]"
# amp's delegate runs before a tool only; kiro's postToolUse cannot block, so a deny there is a warning.
POST_TOOL_HOSTS = ("claude", "codex", "gemini", "factory", "qwen")
# Hosts whose native tool-call form pre_tool spells out below; a shell call on any host (a new
# one included) comes from its golden fixture file instead.
HAND_FORMS = ("amp", "claude", "codex", "copilot", "cursor", "factory", "gemini", "kiro", "qwen")
# The shell tool's native name on hosts that do not call it Bash (hosts/<agent>.json tool_aliases).
SHELL_TOOL = {"factory": "Execute", "qwen": "run_shell_command", "kiro": "execute_bash"}
FORBIDDEN = ("jsonschema", "referencing", "jinja2", "datamodel_code_generator", "pydantic")


def _adapter(agent: str) -> Any:
    return adapter_for(agent, codex_version="0.150.0") if agent == "codex" else adapter_for(agent)


def pre_tool(agent: str, tool: str, tool_input: dict[str, Any]) -> Any:
    """One call before it runs, as each host sends it; a shell call uses the host's own names."""
    if tool == "Bash" and set(tool_input) == {"command"}:
        return shell_call(agent, tool_input["command"])
    if agent == "amp":
        if tool == "Bash":
            tool_input = {"cmd": tool_input["command"]}
        return {"tool": tool, "input": tool_input, "session_id": "T-1"}
    if agent == "gemini":
        tool = {"Bash": "run_shell_command"}.get(tool, tool.replace("__", "_"))
        return {"hook_event_name": "BeforeTool", "tool_name": tool, "tool_input": tool_input}
    if agent in SHELL_TOOL and tool == "Bash":
        tool = SHELL_TOOL[agent]
    if agent == "kiro":
        return {"hook_event_name": "preToolUse", "tool_name": tool, "tool_input": tool_input}
    if agent == "cursor":
        tool = {"Bash": "Shell"}.get(tool, tool)
        return {"hook_event_name": "preToolUse", "tool_name": tool, "tool_input": tool_input}
    if agent == "opencode":
        tool = {"Bash": "bash"}.get(tool, tool)
        return {"event": "tool.execute.before", "tool": tool, "args": tool_input}
    return {"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": tool_input}


def post_tool(agent: str, command: str, output: str) -> Any:
    """A shell call after it ran, with the output in each host's own result shape."""
    if agent == "claude":
        response: Any = {"stdout": output, "stderr": "", "interrupted": False, "isImage": False}
        return {
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_response": response,
        }
    if agent in ("factory", "qwen"):
        return {
            "hook_event_name": "PostToolUse",
            "tool_name": SHELL_TOOL[agent],
            "tool_input": {"command": command},
            "tool_response": {"output": output},
        }
    if agent == "codex":
        return {
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_response": output,
        }
    return {
        "hook_event_name": "AfterTool",
        "tool_name": "run_shell_command",
        "tool_input": {"command": command},
        "tool_response": {"llmContent": output, "returnDisplay": output, "error": None},
    }


def event_for(agent: str, native: Any) -> ToolCallEvent:
    return _adapter(agent).parse(native)


def judge_from(tmp_path: Path, text: str) -> PolicyJudge:
    path = tmp_path / "policy.toml"
    path.write_text(text, encoding="utf-8")
    return load_policy_judge(str(path))


def example() -> PolicyJudge:
    return load_policy_judge(str(EXAMPLE))


# ---- the same semantic call, the same decision on every host ----------------------------------


@pytest.mark.parametrize("agent", AGENT_IDS)
@pytest.mark.parametrize(
    ("command", "decision"),
    [
        ("rm -rf /tmp/build", "deny"),
        ("sudo rm -fr ~", "deny"),
        ("git push origin main", "ask"),
        ("git status", "allow"),
        ("ls -la", "allow"),
    ],
)
def test_example_policy_gives_one_decision_per_shell_call_on_every_host(
    agent: str, command: str, decision: str
) -> None:
    event = event_for(agent, pre_tool(agent, "Bash", {"command": command}))
    assert example()(event).decision == decision


@pytest.mark.parametrize("agent", AGENT_IDS)
def test_deny_blocks_and_ask_asks_where_the_host_has_an_ask_tier(agent: str) -> None:
    adapter = _adapter(agent)
    deny_event = event_for(agent, pre_tool(agent, "Bash", {"command": "rm -rf /"}))
    denied = render_escalated(adapter, example()(deny_event), deny_event)
    assert denied.enforced and denied.exit_code == BLOCK_EXIT[agent]
    ask_event = event_for(agent, pre_tool(agent, "Bash", {"command": "git push"}))
    asked = render_escalated(adapter, example()(ask_event), ask_event)
    # contract.md §6: an ask stays an ask where the host can ask, and blocks elsewhere.
    assert asked.enforced is not adapter.NATIVE_ASK_TIER


@pytest.mark.parametrize("agent", HAND_FORMS)
def test_one_mcp_rule_in_the_double_underscore_form_matches_every_host(
    agent: str, tmp_path: Path
) -> None:
    judge = judge_from(
        tmp_path,
        """
[[rules]]
name = "no-issues"
tools = ["mcp__github__create_*"]
decision = "deny"
reason = "no issue creation"
""",
    )
    native = pre_tool(agent, "mcp__github__create_issue", {"title": "t"})
    event = event_for(agent, native)
    # Gemini sends the single-underscore form; the other hosts the double-underscore one.
    expected_native = (
        "mcp_github_create_issue" if agent == "gemini" else "mcp__github__create_issue"
    )
    assert event.meta.native_tool == expected_native
    assert judge(event) == Verdict(decision="deny", reason="no issue creation")
    other = event_for(agent, pre_tool(agent, "mcp__gitlab__create_issue", {"title": "t"}))
    assert judge(other).decision == "allow"


def test_the_single_underscore_reading_applies_only_to_mcp_patterns(tmp_path: Path) -> None:
    judge = judge_from(
        tmp_path,
        """
[[rules]]
tools = ["my__tool"]
decision = "deny"
""",
    )
    assert judge(event_for("gemini", pre_tool("gemini", "my_tool", {}))).decision == "allow"
    assert judge(event_for("claude", pre_tool("claude", "my__tool", {}))).decision == "deny"


def test_tools_match_the_canonical_name_or_a_glob_on_the_native_name(tmp_path: Path) -> None:
    judge = judge_from(
        tmp_path,
        """
[[rules]]
name = "native"
tools = ["run_shell_*"]
decision = "ask"

[[rules]]
name = "canonical"
tools = ["Bash"]
decision = "deny"
""",
    )
    gemini = event_for("gemini", pre_tool("gemini", "Bash", {"command": "ls"}))
    claude = event_for("claude", pre_tool("claude", "Bash", {"command": "ls"}))
    assert gemini.tool == "Bash"
    assert judge(gemini).decision == "ask"  # the first matching rule decides
    assert judge(claude).decision == "deny"


def test_no_matching_rule_allows_and_events_limit_a_rule(tmp_path: Path) -> None:
    judge = judge_from(
        tmp_path,
        """
[[rules]]
tools = ["Bash"]
events = ["post_tool"]
match = "ls"
decision = "deny"
""",
    )
    assert judge(event_for("claude", pre_tool("claude", "Bash", {"command": "ls"}))) == Verdict(
        decision="allow"
    )
    after = event_for("claude", post_tool("claude", "ls", "a b"))
    assert judge(after).decision == "deny"


def test_context_becomes_additional_context_and_an_absent_reason_stays_absent(
    tmp_path: Path,
) -> None:
    judge = judge_from(
        tmp_path,
        """
[[rules]]
tools = ["Read"]
decision = "allow"
context = "this repository keeps secrets in .env: do not print them"
""",
    )
    verdict = judge(event_for("claude", pre_tool("claude", "Read", {"file_path": "/x"})))
    assert verdict.additional_context == "this repository keeps secrets in .env: do not print them"
    assert verdict.reason is ABSENT


def test_match_reads_the_published_input_key_or_the_explicit_field(tmp_path: Path) -> None:
    judge = judge_from(
        tmp_path,
        """
[[rules]]
name = "secret-files"
tools = ["Read"]
match = '\\.env$'
decision = "deny"

[[rules]]
name = "grep-for-keys"
tools = ["Grep"]
field = "pattern"
match = "AKIA"
decision = "ask"

[[rules]]
name = "no-key-for-this-tool"
tools = ["Glob"]
match = "."
decision = "deny"
""",
    )
    gemini_read = event_for("gemini", pre_tool("gemini", "read_file", {"absolute_path": "/a/.env"}))
    assert gemini_read.tool == "Read"  # absolute_path was renamed to the published file_path
    assert judge(gemini_read).decision == "deny"
    grep = event_for("claude", pre_tool("claude", "Grep", {"pattern": "AKIA[0-9A-Z]{16}"}))
    assert judge(grep).decision == "ask"
    # Glob has no published key and the rule names no field: its match never holds.
    glob = event_for("claude", pre_tool("claude", "Glob", {"pattern": "**"}))
    assert judge(glob).decision == "allow"


def test_a_list_value_is_matched_joined_with_spaces() -> None:
    event = event_for("codex", pre_tool("codex", "Bash", {"command": ["rm", "-rf", "/"]}))
    assert example()(event).decision == "deny"


def test_past_64_kib_a_deny_rule_counts_the_unsearched_tail_as_a_match(tmp_path: Path) -> None:
    rule = '[[rules]]\ntools = ["Bash"]\nmatch = "NEEDLE"\ndecision = "deny"\n'
    judge = judge_from(tmp_path, rule)
    (tmp_path / "lenient").mkdir()
    lenient = judge_from(tmp_path / "lenient", rule + 'on_unparsed = "no_match"\n')
    fits = "x" * (MATCH_LIMIT_BYTES - len("NEEDLE")) + "NEEDLE"
    beyond = "x" * MATCH_LIMIT_BYTES + "NEEDLE"
    # Multi-byte characters count by their UTF-8 bytes: 2 bytes each here.
    wide = "é" * (MATCH_LIMIT_BYTES // 2) + "NEEDLE"
    wide_fits = "é" * (MATCH_LIMIT_BYTES // 2 - 3) + "NEEDLE"

    def decide(text: str, which: PolicyJudge = judge) -> str:
        return which(event_for("claude", pre_tool("claude", "Bash", {"command": text}))).decision

    assert decide(fits) == "deny"
    assert decide(wide_fits) == "deny"
    # No unscanned tail: what the pattern could not search counts as a match (issue 16) ...
    assert decide(beyond) == "deny"
    assert decide(wide) == "deny"
    why = judge.explain(event_for("claude", pre_tool("claude", "Bash", {"command": wide}))).why
    assert any("not searched" in line for line in why)
    # ... unless the rule says otherwise, and an allow rule never matches text it did not search.
    assert decide(beyond, lenient) == "allow"
    assert decide(wide_fits, lenient) == "deny"
    allow = judge_from(
        tmp_path,
        '[[rules]]\ntools = ["Bash"]\nmatch = "NEEDLE"\ndecision = "allow"\n[[rules]]\ndecision = "ask"\n',
    )
    assert decide(beyond, allow) == "ask"


# ---- rewrites: redaction on post_tool, input rewrites on pre_tool ------------------------------


@pytest.mark.parametrize("agent", POST_TOOL_HOSTS)
def test_redaction_reaches_claude_and_is_denied_where_output_cannot_be_replaced(
    agent: str,
) -> None:
    event = event_for(agent, post_tool(agent, "cat creds", f"key = {KEY}\n"))
    verdict = example()(event)
    response = render_escalated(_adapter(agent), verdict, event)
    text = json.dumps(response.to_dict())
    if agent == "claude":
        assert verdict.decision == "allow"
        assert verdict.mutated_output == {
            "stdout": f"key = {REDACTED}\n",
            "stderr": "",
            "interrupted": False,
            "isImage": False,
        }
        assert response.stdout["hookSpecificOutput"]["updatedToolOutput"] == verdict.mutated_output
    elif agent == "gemini":
        # GM-6: the AfterTool deny body replaces the result with the redacted output (unenforced).
        assert verdict.decision == "allow" and REDACTED in json.dumps(verdict.mutated_output)
        assert response.stdout["decision"] == "deny" and REDACTED in response.stdout["reason"]
        assert not response.enforced and response.exit_code == 0
    else:
        assert verdict.decision == "deny"
        # M9: the redacted form stays on the verdict, so the audit log never stores the key.
        assert REDACTED in json.dumps(verdict.mutated_output)
        assert agent in str(verdict.reason) and "mutated_output" in str(verdict.reason)
        # Where the host cannot block after the tool (CC-1, FD-5, QW-4) the deny is feedback.
        assert response.enforced is event.this_call_vetoable
        assert response.exit_code == (2 if event.this_call_vetoable else 0)
    assert KEY not in text  # never a silent pass of the unredacted value in our answer


def test_redaction_follows_the_configured_host_version(monkeypatch: pytest.MonkeyPatch) -> None:
    # Codex replaces the output with a PostToolUse block's reason from 0.150.0 (lab scenario
    # redact): the policy judge reads the version the hook entry is configured with.
    event = event_for("codex", post_tool("codex", "cat creds", f"key = {KEY}\n"))
    monkeypatch.setenv("ACP_CODEX_VERSION", "0.171.0")
    verdict = example()(event)
    assert verdict.decision == "allow" and REDACTED in json.dumps(verdict.mutated_output)
    response = render_escalated(adapter_for("codex", codex_version="0.171.0"), verdict, event)
    assert (response.exit_code, response.enforced) == (0, False)
    assert response.stdout["decision"] == "block" and REDACTED in response.stdout["reason"]
    assert KEY not in json.dumps(response.to_dict())
    monkeypatch.setenv("ACP_CODEX_VERSION", "0.141.0")
    assert example()(event).decision == "deny"


@pytest.mark.parametrize("agent", POST_TOOL_HOSTS)
def test_on_unrendered_allow_lets_the_rule_decision_stand_without_the_rewrite(
    agent: str, tmp_path: Path
) -> None:
    judge = judge_from(
        tmp_path,
        """
[[rules]]
name = "soft-redact"
events = ["post_tool"]
decision = "allow"
reason = "redacted"
rewrite = { pattern = 'AKIA[0-9A-Z]{16}', replacement = "X" }
on_unrendered = "allow"
""",
    )
    verdict = judge(event_for(agent, post_tool(agent, "cat", KEY)))
    assert verdict.decision == "allow"
    assert verdict.reason == "redacted"
    # Hosts with a post-tool output channel carry the redaction; the others drop it.
    carried = "mutated_output" not in adapter_for(agent).UNRENDERED_FIELDS["post_tool"]
    assert (verdict.mutated_output is ABSENT) is (not carried)


def test_a_rewrite_that_changes_nothing_does_not_match(tmp_path: Path) -> None:
    judge = judge_from(
        tmp_path,
        """
[[rules]]
events = ["post_tool"]
decision = "allow"
rewrite = { pattern = 'AKIA[0-9A-Z]{16}', replacement = "X" }

[[rules]]
events = ["post_tool"]
decision = "ask"
reason = "fallthrough"
""",
    )
    for agent in POST_TOOL_HOSTS:
        verdict = judge(event_for(agent, post_tool(agent, "ls", "README.md\n")))
        assert verdict == Verdict(decision="ask", reason="fallthrough"), agent


def test_redaction_walks_nested_json_and_keeps_its_shape(tmp_path: Path) -> None:
    judge = judge_from(
        tmp_path,
        """
[[rules]]
events = ["post_tool"]
decision = "allow"
rewrite = { pattern = '(AKIA)[0-9A-Z]{16}', replacement = '\\1****' }
""",
    )
    native = post_tool("claude", "x", "")
    native["tool_response"] = {"a": [KEY, 3, None, {"b": f"k={KEY}"}], KEY: True}
    verdict = judge(event_for("claude", native))
    # Keys are names, not content: only string values are rewritten.
    assert verdict.mutated_output == {"a": ["AKIA****", 3, None, {"b": "k=AKIA****"}], KEY: True}


def test_redaction_drops_text_past_the_scan_limit_instead_of_passing_it(tmp_path: Path) -> None:
    judge = judge_from(
        tmp_path,
        """
[[rules]]
events = ["post_tool"]
decision = "allow"
rewrite = { pattern = 'AKIA[0-9A-Z]{16}', replacement = "X" }
""",
    )
    output = "a" * MATCH_LIMIT_BYTES + KEY
    verdict = judge(event_for("claude", post_tool("claude", "x", output)))
    stdout = verdict.mutated_output["stdout"]
    assert stdout.startswith("a" * MATCH_LIMIT_BYTES)
    assert stdout[MATCH_LIMIT_BYTES:].startswith(" [cut by policy:")
    assert KEY not in json.dumps(verdict.to_dict())
    # Where output cannot be replaced, the unscanned tail means a deny that says why.
    host = next(
        a
        for a in POST_TOOL_HOSTS
        if "mutated_output" in adapter_for(a).UNRENDERED_FIELDS["post_tool"]
    )
    dropped = judge(event_for(host, post_tool(host, "x", output)))
    assert dropped.decision == "deny" and "scan limit was cut" in str(dropped.reason)


def test_post_tool_without_a_response_is_not_rewritten(tmp_path: Path) -> None:
    native = post_tool("claude", "x", "")
    del native["tool_response"]
    verdict = example()(event_for("claude", native))
    assert verdict == Verdict(decision="allow")


@pytest.mark.parametrize("agent", AGENT_IDS)
def test_pre_tool_rewrite_becomes_mutated_input_or_a_deny_where_it_cannot_reach(
    agent: str, tmp_path: Path
) -> None:
    judge = judge_from(
        tmp_path,
        """
[[rules]]
name = "no-force-push"
tools = ["Bash"]
events = ["pre_tool"]
decision = "allow"
rewrite = { pattern = '\\s--force\\b', replacement = "" }
""",
    )
    event = event_for(agent, pre_tool(agent, "Bash", {"command": "git push --force origin"}))
    verdict = judge(event)
    # A host without a pre_tool input channel (amp's delegate, kiro: exit codes only) gets a deny.
    # The judge cannot know the host's version: it reads the unversioned declaration.
    if "mutated_input" in adapter_for(agent).UNRENDERED_FIELDS["pre_tool"]:
        assert verdict.decision == "deny"
        assert "no-force-push" in str(verdict.reason)
    else:
        assert verdict.decision == "allow"
        assert verdict.mutated_input == {**event.input, "command": "git push origin"}


def test_a_host_without_a_declaration_never_gets_a_rewrite(tmp_path: Path) -> None:
    event = event_for("claude", post_tool("claude", "x", KEY))
    stranger = ToolCallEvent.from_dict(
        {**event.to_dict(), "meta": {**event.meta.to_dict(), "agent": "my-agent"}}
    )
    assert example()(stranger).decision == "deny"


# ---- every policy-file error ------------------------------------------------------------------

GOOD_RULE = '[[rules]]\nname = "first"\ndecision = "allow"\n'
# name -> (TOML of the second rule, or of the whole file when it starts with "!", the field named)
BAD_FILES: dict[str, tuple[str, str]] = {
    "decision missing": ('name = "second"\ntools = ["Bash"]\n', "decision"),
    "decision not modelled": ('name = "second"\ndecision = "block"\n', "decision"),
    "unknown field": ('name = "second"\ndecision = "deny"\ntool = ["Bash"]\n', "tool"),
    "tools a string": ('name = "second"\ndecision = "deny"\ntools = "Bash"\n', "tools"),
    "tools empty": ('name = "second"\ndecision = "deny"\ntools = []\n', "tools"),
    "tools empty pattern": ('name = "second"\ndecision = "deny"\ntools = [""]\n', "tools"),
    "events unknown kind": (
        'name = "second"\ndecision = "deny"\nevents = ["PreToolUse"]\n',
        "events",
    ),
    "events repeated": (
        'name = "second"\ndecision = "deny"\nevents = ["pre_tool", "pre_tool"]\n',
        "events",
    ),
    "events a string": ('name = "second"\ndecision = "deny"\nevents = "pre_tool"\n', "events"),
    "match bad regex": ('name = "second"\ndecision = "deny"\nmatch = "rm (-rf"\n', "match"),
    "match a number": ('name = "second"\ndecision = "deny"\nmatch = 3\n', "match"),
    "field empty": ('name = "second"\ndecision = "deny"\nfield = ""\n', "field"),
    "reason a number": ('name = "second"\ndecision = "deny"\nreason = 1\n', "reason"),
    "context a table": ('name = "second"\ndecision = "deny"\ncontext = { a = 1 }\n', "context"),
    "name a number": ('name = 2\ndecision = "allow"\nreason = false\n', "reason"),
    "rewrite a string": ('name = "second"\ndecision = "allow"\nrewrite = "AKIA"\n', "rewrite"),
    "rewrite no replacement": (
        'name = "second"\ndecision = "allow"\nrewrite = { pattern = "A" }\n',
        "rewrite.replacement",
    ),
    "rewrite bad pattern": (
        'name = "second"\ndecision = "allow"\nrewrite = { pattern = "(", replacement = "" }\n',
        "rewrite.pattern",
    ),
    "rewrite unknown key": (
        'name = "second"\ndecision = "allow"\nrewrite = { pattern = "A", replacement = "", flags = "i" }\n',
        "rewrite.flags",
    ),
    "rewrite bad group": (
        'name = "second"\ndecision = "allow"\nrewrite = { pattern = "(A)", replacement = "\\\\2" }\n',
        "rewrite.replacement",
    ),
    "on_unrendered ask": (
        'name = "second"\ndecision = "allow"\non_unrendered = "ask"\n',
        "on_unrendered",
    ),
    "not TOML": ("!rules = [[", "TOML"),
    "rules missing": ("!rule = []\n", "rules"),
    "rules not an array": ('!rules = "x"\n', "rules"),
    "rule not a table": ("!rules = [1]\n", "rules[0]"),
}
# The schema cannot see a group reference the pattern lacks; the loader (and check) can.
LOADER_ONLY = {"rewrite bad group"}


def _bad_file(tmp_path: Path, name: str) -> tuple[Path, str]:
    text, field = BAD_FILES[name]
    body = text[1:] if text.startswith("!") else f"{GOOD_RULE}\n[[rules]]\n{text}"
    path = tmp_path / "bad.toml"
    path.write_text(body, encoding="utf-8")
    return path, field


def _where(name: str) -> str:
    """The location an error must name: the rule (index and name) and the field."""
    text, field = BAD_FILES[name]
    if text.startswith("!"):
        return field  # a whole-file error names the field (or the decoder) alone
    rule = "rules[1]" if name == "name a number" else "rules[1] ('second')"
    return f"{rule}, field {field}"


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_a_bad_policy_file_raises_naming_the_file_rule_field_and_fix(
    name: str, tmp_path: Path
) -> None:
    path, _ = _bad_file(tmp_path, name)
    with pytest.raises(JudgeLoadError) as raised:
        load_policy_judge(str(path))
    message = str(raised.value)
    assert message.startswith(f"policy {path}: ")
    assert _where(name) in message
    assert "acp policy check" in message or "TOML" in message


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_policy_check_names_the_rule_and_field_of_every_error(name: str, tmp_path: Path) -> None:
    path, _ = _bad_file(tmp_path, name)
    problems = check_policy_file(str(path))
    assert any(_where(name) in problem for problem in problems), problems


@pytest.mark.parametrize("name", sorted(set(BAD_FILES) - LOADER_ONLY))
def test_the_schema_refuses_every_file_the_loader_refuses(name: str, tmp_path: Path) -> None:
    path, _ = _bad_file(tmp_path, name)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError:
        return  # not TOML at all: there is no instance to validate
    assert not validator_for("policy").is_valid(data)


def test_check_lists_every_error_of_a_file_not_just_the_first(tmp_path: Path) -> None:
    path = tmp_path / "many.toml"
    path.write_text(
        '[[rules]]\nname = "a"\ndecision = "nope"\n[[rules]]\nname = "b"\nmatch = "("\n'
        'decision = "deny"\n',
        encoding="utf-8",
    )
    problems = check_policy_file(str(path))
    assert any("rules[0] ('a'), field decision" in p for p in problems)
    assert any("rules[1] ('b'), field match" in p for p in problems)
    with pytest.raises(JudgeLoadError, match=r"rules\[0\].*rules\[1\]"):
        load_policy_judge(str(path))


def test_policy_check_and_the_hook_word_a_bad_pattern_the_same_way(tmp_path: Path) -> None:
    # N45: the schema's format error ("is not a 'regex'") is replaced by the loader's wording.
    path = tmp_path / "bad.toml"
    path.write_text(
        'rules = [{ name = "bad", match = \'(unclosed\', decision = "deny" }]\n',
        encoding="utf-8",
    )
    (checked,) = check_policy_file(str(path))
    with pytest.raises(JudgeLoadError) as raised:
        load_policy_judge(str(path))
    assert checked.startswith("rules[0] ('bad'), field match: '(unclosed' is not a valid regular")
    assert "missing ), unterminated subpattern" in checked
    assert checked in str(raised.value)


def test_a_missing_policy_file_is_a_load_error_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.toml"
    with pytest.raises(JudgeLoadError, match=r"nowhere\.toml: cannot read"):
        load_policy_judge(str(missing))
    assert check_policy_file(str(missing))[0].startswith("cannot read")


@pytest.mark.parametrize(
    "text",
    [
        "rules = []\n",
        EXAMPLE.read_text(encoding="utf-8"),
        '[[rules]]\ndecision = "ask"\nevents = ["prompt_submit"]\nfield = "prompt"\nmatch = "(?i)ssh key"\n',
        '[[rules]]\ndecision = "allow"\non_unrendered = "allow"\nrewrite = { pattern = "(?P<k>A)", replacement = "\\\\g<k>" }\n',
    ],
    ids=["empty", "example", "prompt-field", "named-group"],
)
def test_valid_files_load_and_pass_the_schema(text: str, tmp_path: Path) -> None:
    path = tmp_path / "ok.toml"
    path.write_text(text, encoding="utf-8")
    assert isinstance(load_policy_judge(str(path)), PolicyJudge)
    assert validator_for("policy").is_valid(tomllib.loads(text))
    assert check_policy_file(str(path)) == []


# ---- the command line and the hook entries ----------------------------------------------------


def test_acp_policy_check_exits_0_on_a_good_file_and_1_naming_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["policy", "check", str(EXAMPLE)]) == 0
    assert capsys.readouterr().out == f"{EXAMPLE}: ok\n"
    path, _ = _bad_file(tmp_path, "match bad regex")
    assert main(["policy", "check", str(EXAMPLE), str(path)]) == 1
    err = capsys.readouterr().err
    assert f"{path}: rules[1] ('second'), field match:" in err


def test_acp_hook_policy_option_loads_the_rule_file(tmp_path: Path) -> None:
    payload = pre_tool("claude", "Bash", {"command": "git push"})
    run = run_hook(
        "claude", payload, argv=[str(BIN / "acp"), "hook", "claude", "--policy", str(EXAMPLE)]
    )
    assert run.code == 0
    assert run.body()["hookSpecificOutput"]["permissionDecision"] == "ask"
    # An explicit --judge wins over an inherited ACP_POLICY.
    run = run_hook(
        "claude",
        payload,
        argv=[str(BIN / "acp"), "hook", "claude", "--judge", "hook_judges:denies"],
        ACP_POLICY=str(EXAMPLE),
    )
    assert run.code == 2
    assert run.body()["hookSpecificOutput"]["permissionDecision"] == "deny"
    both = subprocess.run(
        [str(BIN / "acp"), "hook", "claude", "--judge", "a:b", "--policy", "p"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert both.returncode == 2 and "not allowed with" in both.stderr


@pytest.mark.parametrize("agent", AGENT_IDS)
def test_a_policy_that_does_not_load_blocks_or_gets_the_failure_posture_or_exit_2(
    agent: str, tmp_path: Path
) -> None:
    path, _ = _bad_file(tmp_path, "decision not modelled")
    payload = pre_tool(agent, "Bash", {"command": "ls"})
    # Issue 26: a configuration error blocks the call (copilot: its deny body at exit 0).
    run = run_hook(agent, payload, ACP_POLICY=str(path))
    if agent == "copilot":
        assert (run.code, run.body()["permissionDecision"]) == (0, "deny")
    else:
        assert run.code == BLOCK_EXIT[agent]
    assert str(path) in run.stderr and "rules[1] ('second')" in run.stderr
    run = run_hook(agent, payload, ACP_POLICY=str(path), ACP_ON_CONFIG_ERROR="host")
    assert run.code == FAILURE_EXIT[agent]
    assert str(path) in run.stderr and "rules[1] ('second')" in run.stderr
    closed = run_hook(agent, payload, ACP_POLICY=str(path), ACP_FAIL_CLOSED="1")
    assert closed.code == BLOCK_EXIT[agent] and str(path) in closed.stderr


@pytest.mark.parametrize("agent", AGENT_IDS)
def test_done_when_every_host_gets_its_native_signal_and_one_audit_line_per_call(
    agent: str, tmp_path: Path
) -> None:
    log = tmp_path / "audit.jsonl"
    env = {"ACP_POLICY": str(EXAMPLE), "ACP_AUDIT_LOG": str(log)}
    deny = run_hook(agent, pre_tool(agent, "Bash", {"command": "rm -rf /"}), **env)
    ask = run_hook(agent, pre_tool(agent, "Bash", {"command": "git push"}), **env)
    allow = run_hook(agent, pre_tool(agent, "Bash", {"command": "ls"}), **env)
    assert deny.code == BLOCK_EXIT[agent] and deny.stderr == "policy: rm -rf is blocked"
    assert allow.code == 0 and allow.stderr == ""
    # The entry answers what the library renders: an ask where the host asks (amp by exit 1),
    # the host's block where it has no ask tier.
    ask_event = event_for(agent, pre_tool(agent, "Bash", {"command": "git push"}))
    expected_ask = render_escalated(_adapter(agent), Verdict(decision="ask"), ask_event)
    assert ask.code == expected_ask.exit_code
    if not _adapter(agent).NATIVE_ASK_TIER:
        assert ask.code == BLOCK_EXIT[agent]
    decisions = ["deny", "ask", "allow"]
    if agent in POST_TOOL_HOSTS:
        redact = run_hook(agent, post_tool(agent, "cat creds", f"id={KEY}"), **env)
        assert KEY.encode() not in redact.stdout and KEY not in redact.stderr
        if agent == "claude":
            assert redact.code == 0
            output = redact.body()["hookSpecificOutput"]["updatedToolOutput"]
            assert output["stdout"] == f"id={REDACTED}"
            decisions.append("allow")
        elif agent in ("factory", "qwen"):
            # The tool already ran and nothing replaces its output: the deny is feedback at exit 0
            # (FD-5, QW-4).
            assert redact.code == 0 and b"mutated_output" in redact.stdout
            decisions.append("deny")
        elif agent == "gemini":
            # GM-6: the AfterTool deny body replaces the result with the redacted output.
            assert redact.code == 0 and redact.body()["decision"] == "deny"
            assert REDACTED in redact.body()["reason"]
            decisions.append("allow")
        elif agent == "codex":
            # From 0.150.0 a PostToolUse block's reason replaces the output (lab scenario redact).
            assert redact.code == 0 and redact.body()["decision"] == "block"
            assert REDACTED in redact.body()["reason"]
            decisions.append("allow")
        else:
            assert redact.code == 2 and "mutated_output" in redact.stderr
            decisions.append("deny")
    records = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert [record["verdict"]["decision"] for record in records] == decisions
    assert {record["agent"] for record in records} == {agent}


def test_the_policy_demo_shows_one_decision_per_call_and_what_the_replay_changes() -> None:
    result = subprocess.run(
        [sys.executable, str(REPO / "examples" / "policy_demo.py")],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    # N32: timings are of warm calls; the warm-up calls are not in the log (the count below).
    assert "ran once first, unlogged" in result.stdout
    rows = {}
    for line in result.stdout.splitlines():
        if line.startswith(("  pre_tool", "  post_tool")):
            words = line.split()
            command = " ".join(words[1 : -len(AGENT_IDS)])
            rows[command] = dict(zip(AGENT_IDS, words[-len(AGENT_IDS) :], strict=True))
    for command in ("rm -rf /tmp/build", "rm -r -f /tmp/build", "git push --force origin main"):
        assert set(rows[command].values()) == {"deny"}, command
    assert set(rows["git push origin main"].values()) == {"ask"}
    post = rows["cat ~/.aws/credentials"]
    # A host with a post_tool channel for the output allows the redaction; the rest deny it.
    carries = {
        a for a in AGENT_IDS if "mutated_output" not in _adapter(a).UNRENDERED_FIELDS["post_tool"]
    }
    assert {a for a, d in post.items() if d == "allow"} == carries
    assert (post["amp"], post["claude"], post["gemini"], post["opencode"]) == ("-",) + (
        "allow",
    ) * 3
    assert set(post.values()) - {"-"} <= {"allow", "deny"}
    missing = sum(cell == "-" for cell in post.values())
    calls = 6 * len(AGENT_IDS) - missing
    assert f"{calls} call(s)" in result.stdout
    # Replaying the calls recorded under the regex rules: form 1 (rm -r -f) and the force push
    # change on every host, and nothing else does.
    replayed = result.stdout.split("acp policy replay", 1)[1]
    assert f"{calls} recorded call(s) re-judged" in replayed
    assert f"; {2 * len(AGENT_IDS)} would change" in replayed
    changes = [line for line in replayed.splitlines() if line.startswith("line ")]
    assert len([c for c in changes if "rm -r -f /tmp/build: allow -> deny" in c]) == len(AGENT_IDS)
    assert len([c for c in changes if "--force origin main: ask -> deny" in c]) == len(AGENT_IDS)


def test_the_hook_path_with_a_policy_loads_no_validator_or_generator() -> None:
    script = f"""
import json, os, sys
from agent_control_plane_core.runtime import entry_adapter, judge_from_env, render_hook_response
env = {{"ACP_POLICY": {str(EXAMPLE)!r}}}
adapter = entry_adapter("claude", env)
payload = json.dumps({{"hook_event_name": "PostToolUse", "tool_name": "Bash",
    "tool_input": {{"command": "cat"}}, "tool_response": "{KEY}"}})
response = render_hook_response(adapter, payload, judge_from_env(env))
print(json.dumps(response.to_dict()))
print(json.dumps(sorted(n for n in sys.modules if n.split(".")[0] in {set(FORBIDDEN)!r})))
print(json.dumps("agent_control_plane_core.policy" in sys.modules))
"""
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        env={k: v for k, v in os.environ.items() if not k.startswith("ACP_")},
    )
    response, loaded, policy_loaded = (json.loads(line) for line in result.stdout.splitlines())
    assert response["stdout"]["hookSpecificOutput"]["updatedToolOutput"] == REDACTED
    assert loaded == []
    assert policy_loaded is True
