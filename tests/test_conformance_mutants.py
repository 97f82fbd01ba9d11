"""Every conformance rule rejects an adapter (or suite) broken in exactly that rule, naming rule and case."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable
from types import MappingProxyType
from typing import Any, ClassVar

import pytest

from agent_control_plane_core import Verdict, adapter_for, make_event
from agent_control_plane_core.adapters import Adapter
from agent_control_plane_core.conformance import (
    RULE_IDS,
    ConformanceError,
    run_adapter_conformance,
)
from agent_control_plane_core.contract import present

# Small self-contained suites: natives and verdicts only; the goldens are rendered by whichever
# adapter a test names, so a mutant with goldens written from its own output meets only the
# behaviour rules (the way a suite written from a broken adapter would).
CLAUDE_CASES: list[dict[str, Any]] = [
    {
        "name": "Bash before it runs",
        "call_class": "builtin",
        "native": {
            "hook_event_name": "PreToolUse",
            "session_id": "s1",
            "tool_name": "Bash",
            "tool_input": {"command": "rm -rf build"},
        },
        "scenarios": {
            "allow": {"verdict": {"decision": "allow"}},
            "deny": {"verdict": {"decision": "deny", "reason": "destructive"}},
            "ask": {"verdict": {"decision": "ask", "reason": "sure?"}},
            "rewrite": {"verdict": {"decision": "allow", "mutated_input": {"command": "ls"}}},
        },
    },
    {
        "name": "MCP tool before it runs",
        "call_class": "mcp",
        "native": {
            "hook_event_name": "PreToolUse",
            "tool_name": "mcp__github__create_issue",
            "tool_input": {"title": "leak"},
        },
        "scenarios": {"deny": {"verdict": {"decision": "deny", "reason": "public"}}},
    },
    {
        "name": "Bash after it ran",
        "native": {
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "cat .env"},
            "tool_response": "TOKEN=1",
        },
        "scenarios": {
            "deny": {"verdict": {"decision": "deny", "reason": "secret"}},
            "redact": {"verdict": {"decision": "allow", "mutated_output": "[REDACTED]"}},
        },
    },
    {
        "name": "prompt submitted",
        "native": {"hook_event_name": "UserPromptSubmit", "prompt": "hello"},
        "scenarios": {"allow": {"verdict": {"decision": "allow"}}},
    },
    {
        "name": "session start",
        "native": {"hook_event_name": "SessionStart", "source": "startup"},
        "scenarios": {"deny": {"verdict": {"decision": "deny", "reason": "advisory"}}},
    },
    {
        "name": "Stop event",
        "native": {"hook_event_name": "Stop", "stop_hook_active": False},
        "scenarios": {"deny": {"verdict": {"decision": "deny", "reason": "keep going"}}},
    },
    {
        "name": "shell alias",
        "native": {
            "hook_event_name": "PreToolUse",
            "tool_name": "run_shell_command",
            "tool_input": {"command": "ls"},
        },
        "scenarios": {"allow": {"verdict": {"decision": "allow"}}},
    },
    {
        "name": "PowerShell",
        "call_class": "builtin",
        "native": {
            "hook_event_name": "PreToolUse",
            "tool_name": "PowerShell",
            "tool_input": {"command": "Remove-Item -Recurse build"},
        },
        "scenarios": {"deny": {"verdict": {"decision": "deny", "reason": "recursive delete"}}},
    },
    {
        "name": "MultiEdit",
        "call_class": "builtin",
        "native": {
            "hook_event_name": "PreToolUse",
            "tool_name": "MultiEdit",
            "tool_input": {"file_path": "/etc/hosts", "edits": []},
        },
        "scenarios": {"deny": {"verdict": {"decision": "deny", "reason": "outside"}}},
    },
    {
        "name": "NotebookEdit",
        "call_class": "builtin",
        "native": {
            "hook_event_name": "PreToolUse",
            "tool_name": "NotebookEdit",
            "tool_input": {"notebook_path": "/srv/n.ipynb", "new_source": ""},
        },
        "scenarios": {"deny": {"verdict": {"decision": "deny", "reason": "outside"}}},
    },
]

GEMINI_CASES: list[dict[str, Any]] = [
    {
        "name": "shell before it runs",
        "call_class": "builtin",
        "native": {
            "hook_event_name": "BeforeTool",
            "tool_name": "run_shell_command",
            "tool_input": {"command": "rm -rf build"},
        },
        "scenarios": {
            "allow": {"verdict": {"decision": "allow"}},
            "deny": {"verdict": {"decision": "deny", "reason": "destructive"}},
            "ask": {"verdict": {"decision": "ask", "reason": "sure?"}},
            "rewrite": {"verdict": {"decision": "allow", "mutated_input": {"command": "ls"}}},
        },
    },
    {
        "name": "read_file",
        "call_class": "builtin",
        "native": {
            "hook_event_name": "BeforeTool",
            "tool_name": "read_file",
            "tool_input": {"absolute_path": "/etc/hosts"},
        },
        "scenarios": {"allow": {"verdict": {"decision": "allow"}}},
    },
    {
        "name": "write_file",
        "call_class": "builtin",
        "native": {
            "hook_event_name": "BeforeTool",
            "tool_name": "write_file",
            "tool_input": {"file_path": "/tmp/a", "content": "x"},
        },
        "scenarios": {"allow": {"verdict": {"decision": "allow"}}},
    },
    {
        "name": "replace",
        "call_class": "builtin",
        "native": {
            "hook_event_name": "BeforeTool",
            "tool_name": "replace",
            "tool_input": {"file_path": "/tmp/a", "old_string": "x", "new_string": "y"},
        },
        "scenarios": {"allow": {"verdict": {"decision": "allow"}}},
    },
    {
        "name": "MCP call",
        "call_class": "mcp",
        "native": {
            "hook_event_name": "BeforeTool",
            "tool_name": "create_issue",
            "tool_input": {"title": "x"},
            "mcp_context": {"server": "github"},
        },
        "scenarios": {"deny": {"verdict": {"decision": "deny", "reason": "public"}}},
    },
    {
        "name": "shell after it ran",
        "native": {
            "hook_event_name": "AfterTool",
            "tool_name": "run_shell_command",
            "tool_input": {"command": "cat .env"},
            "tool_response": {"llmContent": "TOKEN=1"},
        },
        "scenarios": {"context": {"verdict": {"decision": "allow", "additional_context": "x"}}},
    },
    {
        "name": "prompt submitted",
        "native": {"hook_event_name": "BeforeAgent", "prompt": "hello"},
        "scenarios": {"deny": {"verdict": {"decision": "deny", "reason": "no"}}},
    },
]

SUITES = {"claude": CLAUDE_CASES, "gemini": GEMINI_CASES}


def with_goldens(adapter: Adapter, cases: list[dict[str, Any]]) -> dict[str, Any]:
    """A fixture file whose goldens are what this adapter parses and renders."""
    out = []
    for case in copy.deepcopy(cases):
        options = case.get("adapter_options")
        configured = adapter.configure(**options) if options else adapter
        event = configured.parse(copy.deepcopy(case["native"]))
        render = {}
        for name, spec in case.pop("scenarios").items():
            rendered = configured.render(
                Verdict.from_dict(spec["verdict"]), event, sole_gate=spec.get("sole_gate", False)
            )
            render[name] = {**spec, "native": rendered.to_dict()}
        out.append({**case, "event": event.to_dict(), "render": render})
    return {"agent": adapter.AGENT, "cases": out}


class Wrapper:
    """Delegates everything to a real adapter; each subclass breaks exactly one rule."""

    def __init__(self, inner: Adapter) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def configure(self, **options: Any) -> Wrapper:
        return type(self)(self.inner.configure(**options))

    def parse(self, native: object) -> Any:
        return self.inner.parse(native)

    def render(self, verdict: Verdict, event: Any, *, sole_gate: bool = False) -> Any:
        return self.inner.render(verdict, event, sole_gate=sole_gate)


def _rows(**changes: frozenset[str]) -> MappingProxyType[str, frozenset[str]]:
    rows = dict(adapter_for("claude").UNRENDERED_FIELDS)
    rows.update(changes)
    return MappingProxyType(rows)


def _vetoable(event: Any, kind: str | None = None) -> Any:
    return make_event(
        event=kind or event.event,
        tool=event.tool,
        input=event.input,
        this_call_vetoable=True,
        meta=event.meta,
        response=event.response,
    )


class ForeignAgent(Wrapper):
    AGENT = "claude-fork"


class AskTierNotABool(Wrapper):
    NATIVE_ASK_TIER = "yes"


class CoverageWithoutResumed(Wrapper):
    COVERAGE = MappingProxyType({"builtin": "covered", "mcp": "covered", "subagent": "covered"})


class RowsWithoutUnknown(Wrapper):
    UNRENDERED_FIELDS = MappingProxyType(
        {k: v for k, v in adapter_for("claude").UNRENDERED_FIELDS.items() if k != "unknown"}
    )


class RowsInAMutableDict(Wrapper):
    UNRENDERED_FIELDS: ClassVar[dict[str, frozenset[str]]] = dict(
        adapter_for("claude").UNRENDERED_FIELDS
    )


class ParseTrustsToolInput(Wrapper):
    def parse(self, native: object) -> Any:
        if isinstance(native, dict) and "tool_input" in native:
            dict(native["tool_input"])  # raises on null, 0, true: untrusted input is not checked
        return self.inner.parse(native)


class UnknownVetoes(Wrapper):
    def parse(self, native: object) -> Any:
        event = self.inner.parse(native)
        # dataclasses.replace skips make_event's own guard, as a hand-built event would.
        return (
            dataclasses.replace(event, this_call_vetoable=True)
            if event.event == "unknown"
            else event
        )


class McpDeclaredUncovered(Wrapper):
    COVERAGE = MappingProxyType(
        {"builtin": "covered", "mcp": "uncovered", "subagent": "covered", "resumed": "covered"}
    )


class DropsSessionId(Wrapper):
    def parse(self, native: object) -> Any:
        event = self.inner.parse(native)
        return dataclasses.replace(event, meta=dataclasses.replace(event.meta, session_id="other"))


class RewordsStderr(Wrapper):
    def render(self, verdict: Verdict, event: Any, *, sole_gate: bool = False) -> Any:
        out = self.inner.render(verdict, event, sole_gate=sole_gate)
        return dataclasses.replace(out, stderr="blocked") if out.enforced else out


class AllowEnforces(Wrapper):
    def render(self, verdict: Verdict, event: Any, *, sole_gate: bool = False) -> Any:
        out = self.inner.render(verdict, event, sole_gate=sole_gate)
        if verdict.decision == "allow":
            return dataclasses.replace(out, exit_code=2, enforced=True)
        return out


class AskEnforced(Wrapper):
    """Renders an ask on a vetoable call as an exit-2 block, distinct from allow and deny."""

    def render(self, verdict: Verdict, event: Any, *, sole_gate: bool = False) -> Any:
        out = self.inner.render(verdict, event, sole_gate=sole_gate)
        if verdict.decision == "ask" and event.this_call_vetoable:
            return dataclasses.replace(out, exit_code=2, enforced=True, stderr="ASK")
        return out


class EnforcedAtExitZero(Wrapper):
    def render(self, verdict: Verdict, event: Any, *, sole_gate: bool = False) -> Any:
        out = self.inner.render(verdict, event, sole_gate=sole_gate)
        return dataclasses.replace(out, exit_code=0) if out.enforced else out


class VetoableDenyAdvisory(Wrapper):
    def render(self, verdict: Verdict, event: Any, *, sole_gate: bool = False) -> Any:
        if event.this_call_vetoable:
            event = dataclasses.replace(event, this_call_vetoable=False)
        return self.inner.render(verdict, event, sole_gate=sole_gate)


class NonVetoableDenyEnforced(Wrapper):
    def render(self, verdict: Verdict, event: Any, *, sole_gate: bool = False) -> Any:
        if verdict.decision == "deny" and not event.this_call_vetoable:
            event = dataclasses.replace(event, this_call_vetoable=True)
        return self.inner.render(verdict, event, sole_gate=sole_gate)


class ExtraHostAlias(Wrapper):
    TOOL_ALIASES = MappingProxyType({"shell": "Bash"})


class AliasLosesInputKey(Wrapper):
    def parse(self, native: object) -> Any:
        event = self.inner.parse(native)
        if event.meta.native_tool == "read_file":
            kept = {k: v for k, v in event.input.items() if k != "file_path"}
            return dataclasses.replace(event, input=kept)
        return event


class UnmodelledEventIsPreTool(Wrapper):
    def parse(self, native: object) -> Any:
        event = self.inner.parse(native)
        return _vetoable(event, "pre_tool") if event.event == "unknown" else event


class PassthroughDropped(Wrapper):
    def parse(self, native: object) -> Any:
        event = self.inner.parse(native)
        return dataclasses.replace(event, meta=dataclasses.replace(event.meta, passthrough={}))


class NativeEventForTypo(Wrapper):
    NATIVE_EVENT_FOR = MappingProxyType(
        {**adapter_for("claude").NATIVE_EVENT_FOR, "session_start": "SessionBegin"}
    )


class AdvisoryDenyIsAllow(Wrapper):
    def render(self, verdict: Verdict, event: Any, *, sole_gate: bool = False) -> Any:
        if verdict.decision == "deny" and not event.this_call_vetoable:
            verdict = dataclasses.replace(verdict, decision="allow")
        return self.inner.render(verdict, event, sole_gate=sole_gate)


class AskRunsTheCall(Wrapper):
    def render(self, verdict: Verdict, event: Any, *, sole_gate: bool = False) -> Any:
        if verdict.decision == "ask":
            verdict = dataclasses.replace(verdict, decision="allow")
        return self.inner.render(verdict, event, sole_gate=sole_gate)


class ClaimsNoAskTier(Wrapper):
    NATIVE_ASK_TIER = False


class ClaimsOutputChannelBeforeTool(Wrapper):
    UNRENDERED_FIELDS = _rows(pre_tool=frozenset())


class DropsAfterToolContext(Wrapper):
    """Drops the AfterTool additionalContext, the channel Gemini reads context from (GM-4)."""

    def render(self, verdict: Verdict, event: Any, *, sole_gate: bool = False) -> Any:
        out = self.inner.render(verdict, event, sole_gate=sole_gate)
        if not isinstance(out.stdout, dict) or event.event != "post_tool":
            return out
        specific = out.stdout.get("hookSpecificOutput")
        if isinstance(specific, dict) and "additionalContext" in specific:
            kept = {k: v for k, v in specific.items() if k != "additionalContext"}
            return dataclasses.replace(out, stdout={**out.stdout, "hookSpecificOutput": kept})
        if isinstance(out.stdout.get("reason"), str) and present(verdict.additional_context):
            # A deny body carries the context in its reason: drop it there too.
            reason = out.stdout["reason"].replace(verdict.additional_context, "")
            return dataclasses.replace(out, stdout={**out.stdout, "reason": reason})
        return out


class ContextOnlyInEnforcedPreTool(Wrapper):
    """Before a tool runs, keeps additionalContext only in exit-2 stdout, which the host ignores."""

    def render(self, verdict: Verdict, event: Any, *, sole_gate: bool = False) -> Any:
        out = self.inner.render(verdict, event, sole_gate=sole_gate)
        if event.event != "pre_tool" or out.enforced or not isinstance(out.stdout, dict):
            return out
        specific = out.stdout.get("hookSpecificOutput")
        if not isinstance(specific, dict) or "additionalContext" not in specific:
            return out
        kept = {k: v for k, v in specific.items() if k != "additionalContext"}
        return dataclasses.replace(out, stdout={**out.stdout, "hookSpecificOutput": kept})


class DeclaresContextDroppedBeforeTool(Wrapper):
    UNRENDERED_FIELDS = _rows(pre_tool=frozenset({"mutated_output", "additional_context"}))


def _no_cases(suite: dict[str, Any]) -> dict[str, Any]:
    return {**suite, "cases": []}


def _no_scenarios(suite: dict[str, Any]) -> dict[str, Any]:
    return {**suite, "cases": [{**case, "render": {}} for case in suite["cases"]]}


def _no_ask(suite: dict[str, Any]) -> dict[str, Any]:
    cases = [
        {
            **case,
            "render": {
                name: spec
                for name, spec in case["render"].items()
                if spec["verdict"]["decision"] != "ask"
            },
        }
        for case in suite["cases"]
    ]
    return {**suite, "cases": cases}


def _rewrite_as(
    case_name: str, verdict: dict[str, Any]
) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The suite with every scenario carrying mutated_input moved to one verdict in one case."""

    def move(suite: dict[str, Any]) -> dict[str, Any]:
        real = adapter_for(suite["agent"])
        cases = []
        for case in copy.deepcopy(suite["cases"]):
            render = {
                name: spec
                for name, spec in case["render"].items()
                if "mutated_input" not in spec["verdict"]
            }
            if case["name"] == case_name:
                event = real.parse(copy.deepcopy(case["native"]))
                native = real.render(Verdict.from_dict(verdict), event).to_dict()
                render["moved rewrite"] = {"verdict": verdict, "native": native}
            cases.append({**case, "render": render})
        return {**suite, "cases": cases}

    return move


def _without(case_name: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def drop(suite: dict[str, Any]) -> dict[str, Any]:
        return {**suite, "cases": [c for c in suite["cases"] if c["name"] != case_name]}

    return drop


@dataclasses.dataclass(frozen=True)
class Mutant:
    """One deliberately broken adapter or suite and the rule and case the harness must name."""

    rule: str
    id: str
    agent: str
    wrap: Callable[[Adapter], Any] | None
    case: str
    goldens_from_mutant: bool = True
    suite: Callable[[dict[str, Any]], dict[str, Any]] | None = None


MUTANTS = [
    Mutant("fixture-agent", "foreign-agent", "claude", ForeignAgent, "<file: claude>"),
    Mutant("vacuous-suite", "no-cases", "claude", None, "<file: claude>", suite=_no_cases),
    Mutant("vacuous-suite", "no-scenarios", "claude", None, "<file: claude>", suite=_no_scenarios),
    Mutant(
        "declarations-well-formed",
        "ask-tier-not-bool",
        "claude",
        AskTierNotABool,
        "<declarations: claude>",
    ),
    Mutant(
        "coverage-well-formed",
        "no-resumed-class",
        "claude",
        CoverageWithoutResumed,
        "<declarations: claude>",
    ),
    Mutant(
        "unrendered-rows-complete",
        "no-unknown-row",
        "claude",
        RowsWithoutUnknown,
        "<declarations: claude>",
    ),
    Mutant(
        "unrendered-rows-complete",
        "mutable-rows",
        "claude",
        RowsInAMutableDict,
        "<declarations: claude>",
    ),
    Mutant(
        "parse-never-raises",
        "trusts-tool-input",
        "claude",
        ParseTrustsToolInput,
        "Bash before it runs",
    ),
    Mutant("unknown-never-vetoes", "unknown-vetoes", "claude", UnknownVetoes, "Stop event"),
    Mutant(
        "call-class-coverage",
        "mcp-declared-uncovered",
        "claude",
        McpDeclaredUncovered,
        "MCP tool before it runs",
    ),
    Mutant(
        "parse-golden",
        "changes-session-id",
        "claude",
        DropsSessionId,
        "Bash before it runs",
        goldens_from_mutant=False,
    ),
    Mutant(
        "render-golden",
        "rewords-stderr",
        "claude",
        RewordsStderr,
        "Bash before it runs",
        goldens_from_mutant=False,
    ),
    Mutant(
        "allow-never-enforces", "allow-enforces", "claude", AllowEnforces, "Bash before it runs"
    ),
    Mutant("ask-never-enforced", "ask-exits-2", "claude", AskEnforced, "Bash before it runs"),
    Mutant(
        "enforced-nonzero-exit",
        "enforced-exit-0",
        "claude",
        EnforcedAtExitZero,
        "Bash before it runs",
    ),
    Mutant(
        "vetoable-deny-enforces",
        "vetoable-deny-advisory",
        "claude",
        VetoableDenyAdvisory,
        "Bash before it runs",
    ),
    Mutant(
        "non-vetoable-deny-not-enforced",
        "advisory-deny-enforced",
        "claude",
        NonVetoableDenyEnforced,
        # The first non-vetoable deny of the suite: Claude's post_tool is not gated (CC-1).
        "Bash after it ran",
    ),
    Mutant(
        "coverage-decisions", "no-ask-scenario", "claude", None, "<file: claude>", suite=_no_ask
    ),
    Mutant(
        "coverage-decisions",
        "rewrite-only-on-enforced-deny",
        "claude",
        None,
        "<file: claude>",
        suite=_rewrite_as(
            "Bash before it runs",
            {"decision": "deny", "reason": "no", "mutated_input": {"command": "ls"}},
        ),
    ),
    Mutant(
        "coverage-decisions",
        "rewrite-only-where-dropped",
        "claude",
        None,
        "<file: claude>",
        suite=_rewrite_as(
            "Bash after it ran", {"decision": "allow", "mutated_input": {"command": "ls"}}
        ),
    ),
    Mutant("alias-witnessed", "unwitnessed-host-alias", "claude", ExtraHostAlias, "<file: claude>"),
    Mutant(
        "alias-witnessed",
        "alias-case-removed",
        "gemini",
        None,
        "<file: gemini>",
        suite=_without("write_file"),
    ),
    Mutant("alias-input-key", "alias-loses-key", "gemini", AliasLosesInputKey, "read_file"),
    Mutant(
        "drift-probe",
        "unmodelled-event-is-pre-tool",
        "claude",
        UnmodelledEventIsPreTool,
        "Bash before it runs",
    ),
    Mutant(
        "drift-probe", "passthrough-dropped", "claude", PassthroughDropped, "Bash before it runs"
    ),
    Mutant(
        "native-event-for-parses",
        "native-event-typo",
        "claude",
        NativeEventForTypo,
        "Bash before it runs",
    ),
    Mutant(
        "non-vetoable-deny-differs-from-allow",
        "advisory-deny-is-allow",
        "claude",
        AdvisoryDenyIsAllow,
        "Bash before it runs",
    ),
    Mutant("ask-tier-true", "ask-runs-the-call", "claude", AskRunsTheCall, "Bash before it runs"),
    Mutant(
        "ask-tier-false", "claims-no-ask-tier", "claude", ClaimsNoAskTier, "Bash before it runs"
    ),
    Mutant("ask-tier-false", "ask-runs-the-call", "gemini", AskRunsTheCall, "shell before it runs"),
    Mutant(
        "content-field-reaches-host",
        "claims-output-channel",
        "claude",
        ClaimsOutputChannelBeforeTool,
        "Bash before it runs",
    ),
    Mutant(
        "content-field-reaches-host",
        "drops-after-tool-context",
        "gemini",
        DropsAfterToolContext,
        "shell after it ran",
    ),
    Mutant(
        "content-field-reaches-host",
        "context-only-in-enforced-pre-tool",
        "claude",
        ContextOnlyInEnforcedPreTool,
        "Bash before it runs",
    ),
    Mutant(
        "content-field-declared-dropped",
        "declares-context-dropped",
        "claude",
        DeclaresContextDroppedBeforeTool,
        "Bash before it runs",
    ),
]


def _suite_for(mutant: Mutant, adapter: Any) -> dict[str, Any]:
    real = adapter_for(mutant.agent)
    suite = with_goldens(adapter if mutant.goldens_from_mutant else real, SUITES[mutant.agent])
    suite["agent"] = real.AGENT
    return mutant.suite(suite) if mutant.suite else suite


@pytest.mark.parametrize("agent", sorted(SUITES))
def test_unbroken_adapter_passes_the_mutant_suite(agent: str) -> None:
    """The suites the mutants run on pass with the real adapter, so each failure is the mutation's."""
    adapter = adapter_for(agent)
    report = run_adapter_conformance(adapter, with_goldens(adapter, SUITES[agent]))
    assert report.cases == len(SUITES[agent])


@pytest.mark.parametrize("mutant", MUTANTS, ids=[f"{m.rule}:{m.id}" for m in MUTANTS])
def test_harness_rejects_mutant_naming_its_rule_and_case(mutant: Mutant) -> None:
    """A mutant fails on its own rule, and the message names that rule id and the case (or file)."""
    real = adapter_for(mutant.agent)
    adapter = mutant.wrap(real) if mutant.wrap else real
    with pytest.raises(ConformanceError) as raised:
        run_adapter_conformance(adapter, _suite_for(mutant, adapter))
    error = raised.value
    assert error.rule == mutant.rule, str(error)
    assert f"'{mutant.rule}'" in str(error)
    assert error.case == mutant.case, str(error)
    assert f"case '{mutant.case}'" in str(error)


def test_every_rule_id_has_a_mutant() -> None:
    """The mutants cover exactly the harness's rule ids: a new rule needs a mutant that breaks it."""
    assert {mutant.rule for mutant in MUTANTS} == set(RULE_IDS)
