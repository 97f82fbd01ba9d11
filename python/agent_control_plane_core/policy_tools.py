"""`acp policy test`, `explain` and `replay`: run a rule file's own tests, explain and re-judge calls."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Final, NamedTuple

from ._generated.constants import (
    TOOL_ALIASES,
    AuditRecordFields,
    CallClasses,
    EventKinds,
    PolicyExpandFields,
    PolicyFields,
    PolicyTestFields,
    ToolCallEventFields,
    VerdictFields,
)
from ._generated.models.tool_call_event_schema import ToolCallEvent
from .adapters import AGENT_IDS, adapter_for
from .policy import Explanation, PolicyJudge, load_policy_judge, read_policy_file

__all__ = ["Change", "HostRun", "describe", "explain_text", "fixtures_dir", "replay", "run_tests"]

# fixtures/<host>.json of a source checkout: the host's own golden payloads are the templates a
# test's canonical call is put into, so each host's real parse runs (no host names typed here).
_CHECKOUT_FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
# The golden fixtures the wheel ships (issue 31), for an install without a checkout (issue 26).
_PACKAGED_FIXTURES = Path(__file__).resolve().parent / "fixtures"


class HostRun(NamedTuple):
    """One test on one host: what was expected and what the rules gave."""

    test: str
    agent: str
    expected: str
    explanation: Explanation | None
    problem: str | None  # why the test could not run or failed, None when it passed
    skipped: bool = False


def fixtures_dir(given: str | None = None) -> Path | None:
    """The folder of host fixture files: the one given, else the checkout's, else the wheel's."""
    for folder in [Path(given)] if given else [_CHECKOUT_FIXTURES, _PACKAGED_FIXTURES]:
        if (folder / f"{AGENT_IDS[0]}.json").is_file():
            return folder
    return None


def run_tests(path: str, agents: Iterable[str] = (), fixtures: Path | None = None) -> list[HostRun]:
    """Run every [[tests]] entry of a rule file on each host it names (all when it names none)."""
    judge = load_policy_judge(path)
    data = read_policy_file(path)
    chosen = tuple(agents)
    runs: list[HostRun] = []
    templates = _Templates(fixtures)
    for index, test in enumerate(data.get(PolicyFields.TESTS) or []):
        name = test.get(PolicyTestFields.NAME) or f"tests[{index}]"
        named = test.get(PolicyTestFields.AGENTS) or list(AGENT_IDS)
        hosts = [agent for agent in named if not chosen or agent in chosen]
        expected = test.get(PolicyTestFields.EXPECT, "")
        for agent in hosts:
            runs.append(_run_one(judge, test, name, agent, expected, templates))
    return runs


def _run_one(
    judge: PolicyJudge,
    test: Mapping[str, Any],
    name: str,
    agent: str,
    expected: str,
    templates: _Templates,
) -> HostRun:
    if agent not in AGENT_IDS:
        return HostRun(name, agent, expected, None, f"unknown host {agent!r}")
    try:
        event = templates.event(agent, _expanded(test))
    except _NoTemplate as exc:
        return HostRun(name, agent, expected, None, str(exc), skipped=exc.skip)
    explanation = judge.explain(event)
    got = explanation.verdict.decision
    want_rule = test.get(PolicyTestFields.RULE)
    problem = None
    if got != expected:
        problem = f"expected {expected}, got {got}"
    elif want_rule is not None and (
        explanation.rule is None or f"({want_rule!r})" not in explanation.rule
    ):
        problem = f"expected rule {want_rule!r} to decide, got {explanation.rule or 'no rule'}"
    return HostRun(name, agent, expected, explanation, problem)


def _expanded(test: Mapping[str, Any]) -> dict[str, Any]:
    """The test with its expand marker replaced in every string of input, output and payload."""
    expand = test.get(PolicyTestFields.EXPAND)
    if not isinstance(expand, dict):
        return dict(test)
    marker = str(expand.get(PolicyExpandFields.MARKER, ""))
    filler = str(expand.get(PolicyExpandFields.TEXT, "")) * int(
        expand.get(PolicyExpandFields.TIMES, 0)
    )

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            return value.replace(marker, filler) if marker else value
        if isinstance(value, list):
            return [walk(item) for item in value]
        if isinstance(value, dict):
            return {key: walk(item) for key, item in value.items()}
        return value

    return {key: walk(value) for key, value in test.items()}


class _NoTemplate(Exception):
    def __init__(self, text: str, *, skip: bool = False) -> None:
        super().__init__(text)
        self.skip = skip


class _Templates:
    """Native payloads built from each host's fixture cases, checked by parsing them back."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self.cases: dict[str, list[Mapping[str, Any]]] = {}

    def event(self, agent: str, test: Mapping[str, Any]) -> ToolCallEvent:
        fields = PolicyTestFields
        payload = test.get(fields.PAYLOAD)
        if isinstance(payload, dict):
            adapter = adapter_for(agent)
            native = adapter.hook_payload(payload, {})  # type: ignore[attr-defined]
            return adapter.parse(native)
        tool = test.get(fields.TOOL)
        tool_input = test.get(fields.INPUT) or {}
        output = test.get(fields.OUTPUT)
        kind = test.get(fields.EVENT) or (
            EventKinds.POST_TOOL if output is not None else EventKinds.PRE_TOOL
        )
        if not isinstance(tool, str):
            raise _NoTemplate("the test names neither a tool nor a payload")
        return self.build(agent, kind, tool, tool_input, output, test.get(fields.CWD))

    def load(self, agent: str) -> list[Mapping[str, Any]]:
        if agent not in self.cases:
            cases: list[Mapping[str, Any]] = []
            if self.folder is not None:
                with open(self.folder / f"{agent}.json", encoding="utf-8") as source:
                    cases = json.load(source).get("cases", [])
            self.cases[agent] = cases
        return self.cases[agent]

    def build(
        self,
        agent: str,
        kind: str,
        tool: str,
        tool_input: Mapping[str, Any],
        output: object,
        cwd: object,
    ) -> ToolCallEvent:
        if self.folder is None:
            raise _NoTemplate(
                "no host fixtures to build native payloads from (pass --fixtures DIR)", skip=True
            )
        usable = [
            case
            for case in self.load(agent)
            if case["event"][ToolCallEventFields.EVENT] == kind
            and isinstance(case["event"].get(ToolCallEventFields.TOOL), str)
            and case.get("call_class") in (None, CallClasses.BUILTIN)
        ]
        # A vetoable case first: the template should be a call the host lets the hook decide.
        usable.sort(key=lambda case: not case["event"].get(ToolCallEventFields.THIS_CALL_VETOABLE))
        usable.sort(key=lambda case: case["event"][ToolCallEventFields.TOOL] != tool)
        if not usable:
            raise _NoTemplate(f"{agent} has no {kind} event", skip=True)
        if output is not None and not any(
            ToolCallEventFields.RESPONSE in case["event"] for case in usable
        ):
            # Windsurf's post_run_command sends no output: a test of the output cannot apply there.
            raise _NoTemplate(f"{agent} sends no tool output on {kind}", skip=True)
        for case in usable[:6]:
            event = self._fill(agent, case, tool, tool_input, output, cwd)
            if event is not None:
                return event
        raise _NoTemplate(f"cannot build a {agent} {kind} payload for {tool} from its fixtures")

    def _fill(
        self,
        agent: str,
        case: Mapping[str, Any],
        tool: str,
        tool_input: Mapping[str, Any],
        output: object,
        cwd: object,
    ) -> ToolCallEvent | None:
        adapter = adapter_for(agent, **(case.get("adapter_options") or {}))
        old = case["event"]
        meta = old[ToolCallEventFields.META]
        native = copy.deepcopy(case["native"])
        old_native_tool = meta.get("native_tool")
        if old[ToolCallEventFields.TOOL] == tool:
            native_tool = old_native_tool
        else:
            aliases = {**adapter.TOOL_ALIASES, **TOOL_ALIASES}  # type: ignore[attr-defined]
            names = sorted(name for name, target in aliases.items() if target == tool)
            native_tool = names[0] if names else tool
            if not isinstance(old_native_tool, str):
                return None
            native = _replace_value(native, old_native_tool, native_tool)
        renames = adapter.DECLARATION.INPUT_KEY_RENAMES.get(native_tool, {})  # type: ignore[attr-defined]
        inverse = {new: old_key for old_key, new in renames.items()}
        native_input = {inverse.get(key, key): value for key, value in tool_input.items()}
        if output is not None and ToolCallEventFields.RESPONSE in old:
            # First, while the template's response is still as recorded; the tool's name and its
            # input keep their places when the response object carries them (Cline's tool_result).
            keep = _Kept(native_tool, old[ToolCallEventFields.INPUT], renames)
            native, done = _replace_response(
                native, old[ToolCallEventFields.RESPONSE], str(output), keep
            )
            if not done:
                return None
        native, done = _replace_input(native, old[ToolCallEventFields.INPUT], renames, native_input)
        if not done:
            return None
        if isinstance(cwd, str) and isinstance(meta.get("cwd"), str):
            native = _replace_value(native, meta["cwd"], cwd)
        event = adapter.parse(native)
        if event.tool != tool or event.event != old[ToolCallEventFields.EVENT]:
            return None
        if isinstance(cwd, str) and event.meta.cwd != cwd:
            # No cwd in this host's payload, or one derived from a list of roots.
            raise _NoTemplate(f"{agent}'s payload cannot carry the test's cwd", skip=True)
        if any(event.input.get(key) != value for key, value in tool_input.items()):
            return None
        if output is not None and not _holds(event.response, str(output)):
            return None  # the template had no text field to carry the output
        return event


def _replace_value(native: Any, old: str, new: str) -> Any:
    """The payload with every string equal to old (two levels deep) replaced by new."""
    if isinstance(native, dict):
        return {
            key: new
            if value == old
            else _replace_value(value, old, new)
            if isinstance(value, dict)
            else value
            for key, value in native.items()
        }
    return native


def _is_input(value: object, old_input: Mapping[str, Any], renames: Mapping[str, str]) -> bool:
    """Whether a payload value is the template's tool input (natively named)."""
    if not isinstance(value, dict):
        return False
    renamed = {renames.get(key, key): item for key, item in value.items()}
    if value == old_input or renamed == old_input:
        return True
    # An adapter may add a derived key beside the native ones (Cline's run_commands script).
    return bool(renamed) and renamed.items() <= old_input.items()


class _Kept:
    """What a response rewrite leaves alone: the tool's name and its input."""

    def __init__(self, tool: object, old_input: Mapping[str, Any], renames: Mapping[str, str]):
        self.tool, self.old_input, self.renames = tool, old_input, renames

    def __contains__(self, value: object) -> bool:
        return value == self.tool or _is_input(value, self.old_input, self.renames)


def _replace_input(
    native: Any, old_input: Mapping[str, Any], renames: Mapping[str, str], new_input: dict[str, Any]
) -> tuple[Any, bool]:
    """Put the new input where the template's input sits (an object or a JSON string)."""

    def same(value: object) -> bool:
        return _is_input(value, old_input, renames)

    if not isinstance(native, dict):
        return native, False
    for key, value in native.items():
        if same(value):
            return {**native, key: new_input}, True
        if isinstance(value, str) and value.startswith("{"):
            try:
                decoded = json.loads(value)
            except ValueError:
                continue
            if same(decoded):
                return {**native, key: json.dumps(new_input)}, True
    for key, value in native.items():
        if isinstance(value, dict):
            inner, done = _replace_input(value, old_input, renames, new_input)
            if done:
                return {**native, key: inner}, True
    return native, False


def _replace_response(
    native: Any, old_response: object, output: str, keep: _Kept | None = None
) -> tuple[Any, bool]:
    """Put the output text where the template's tool response sits (its first non-empty string)."""
    if not isinstance(native, dict):
        return native, False
    for key, value in native.items():
        if value == old_response:
            return {**native, key: _with_text(value, output, keep)}, True
    for key, value in native.items():
        if isinstance(value, dict):
            inner, done = _replace_response(value, old_response, output, keep)
            if done:
                return {**native, key: inner}, True
    return native, False


def _holds(value: object, text: str) -> bool:
    if isinstance(value, str):
        return value == text
    if isinstance(value, dict):
        return any(_holds(item, text) for item in value.values())
    if isinstance(value, list):
        return any(_holds(item, text) for item in value)
    return False


def _with_text(value: Any, output: str, keep: _Kept | None) -> Any:
    """The response with the output in every non-empty string of it (the host's text fields)."""
    if keep is not None and value in keep:
        return value
    if isinstance(value, str):
        return output if value else value
    if isinstance(value, dict):
        return {key: _with_text(item, output, keep) for key, item in value.items()}
    if isinstance(value, list):
        return [_with_text(item, output, keep) for item in value]
    return value


# ---- explain ----------------------------------------------------------------------------------


def explain_text(judge: PolicyJudge, event: ToolCallEvent) -> str:
    """A report of how the rules decide one event: rule, decision, reason, why, commands seen."""
    explanation = judge.explain(event)
    verdict = explanation.verdict
    lines = [
        f"host:     {event.meta.agent}",
        f"event:    {event.event}",
        f"tool:     {event.tool} (native {event.meta.native_tool})",
        f"rule:     {explanation.rule or 'none matched (default allow)'}",
        f"decision: {verdict.decision}",
    ]
    if isinstance(verdict.reason, str):
        lines.append(f"reason:   {verdict.reason}")
    lines += [f"why:      {line}" for line in explanation.why]
    lines += [f"command:  {line}" for line in judge.commands(event)]
    return "\n".join(lines)


def _clip(text: str, width: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


# ---- replay -----------------------------------------------------------------------------------


_REDACTED_IN_LOG: Final = "(output redacted in the log: not re-judged)"
_MISSING: Final = object()


class Change(NamedTuple):
    """One recorded call whose decision the new rules would change."""

    line: int
    agent: str
    event: ToolCallEvent
    before: str
    after: Explanation


def replay(
    judge: PolicyJudge, lines: Iterable[str]
) -> tuple[int, list[Change], dict[str, list[int]]]:
    """Re-judge every recorded call: how many, those whose decision changes, per-rule counts.

    The counts map a rule label to [calls it decides, of which changed].
    """
    total = 0
    changes: list[Change] = []
    per_rule: dict[str, list[int]] = {}
    for number, record in _records(lines):
        data = record.get(AuditRecordFields.EVENT)
        if not isinstance(data, dict):
            continue
        try:
            event = ToolCallEvent.from_dict(data)
        except (TypeError, ValueError, KeyError):
            continue
        total += 1
        verdict = record.get(AuditRecordFields.VERDICT)
        before = verdict.get(VerdictFields.DECISION) if isinstance(verdict, dict) else None
        kept = (
            verdict.get(VerdictFields.MUTATED_OUTPUT, _MISSING)
            if isinstance(verdict, dict)
            else _MISSING
        )
        if kept is not _MISSING and kept == data.get(ToolCallEventFields.RESPONSE):
            # The log keeps only the redacted output (audit.hook_record), so the secret the old
            # rules saw is not there to judge again: count it, never call it a change.
            per_rule.setdefault(_REDACTED_IN_LOG, [0, 0])[0] += 1
            continue
        after = judge.explain(event)
        counts = per_rule.setdefault(after.rule or "(no rule: allow)", [0, 0])
        counts[0] += 1
        if after.verdict.decision != before:
            counts[1] += 1
            changes.append(
                Change(number, str(record.get(AuditRecordFields.AGENT)), event, str(before), after)
            )
    return total, changes, per_rule


def _records(lines: Iterable[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    for number, line in enumerate(lines, start=1):
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            yield number, record


def describe(event: ToolCallEvent) -> str:
    """A short one-line description of a call: kind, tool and its main input."""
    from ._generated.constants import MODELED_TOOL_INPUT_KEYS

    key = MODELED_TOOL_INPUT_KEYS.get(event.tool) if isinstance(event.tool, str) else None
    value = event.input.get(key) if key else None
    shown = value if isinstance(value, str) else json.dumps(value) if value is not None else ""
    return f"{event.event} {event.tool or '-'} {_clip(shown, 60)}".rstrip()
