"""The built-in policy judge: an ordered TOML rule list, first match decides, default allow."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from fnmatch import fnmatchcase
from typing import Any, Final, NamedTuple

from ._generated.constants import (
    MODELED_TOOL_INPUT_KEYS,
    CallClasses,
    ContentFields,
    Decision,
    Decisions,
    EventKind,
    EventKinds,
    PolicyFields,
    PolicyRewriteFields,
    PolicyRuleFields,
    UnrenderedDecision,
    UnrenderedDecisions,
)
from ._generated.models.tool_call_event_schema import ToolCallEvent
from ._generated.models.verdict_schema import Verdict
from ._judges import JudgeLoadError
from ._model_base import ABSENT
from .contract import call_class, present

__all__ = ["MATCH_LIMIT_BYTES", "PolicyJudge", "check_policy_file", "load_policy_judge"]

MATCH_LIMIT_BYTES: Final = 64 * 1024
"""Bytes of UTF-8 text a pattern is run over: a runaway pattern cannot be interrupted."""

# policy.schema.json PolicyRule.tools: an mcp__server__tool pattern also covers Gemini's
# mcp_server_tool names (host-protocols.md §3 versus §1, §2, §4).
_DOUBLE_MCP: Final = "mcp__"
_TOP_LEVEL: Final = frozenset(PolicyFields.ALL)
_RULE_KEYS: Final = frozenset(PolicyRuleFields.ALL)
_REWRITE_KEYS: Final = frozenset(PolicyRewriteFields.ALL)
_LIMIT_TEXT: Final = f"{MATCH_LIMIT_BYTES // 1024} KiB"
_CUT_NOTE: Final = f" [cut by policy: text past the first {_LIMIT_TEXT} is not passed on unscanned]"
_FIX: Final = "fix the rule file (`acp policy check FILE` lists every error)"


# NamedTuple, not a frozen dataclass: building a dataclass costs milliseconds at import, and
# this module loads on every hook call that has ACP_POLICY set.
class _Rewrite(NamedTuple):
    pattern: re.Pattern[str]
    replacement: str


class _Rule(NamedTuple):
    label: str
    tools: tuple[str, ...] | None
    events: frozenset[EventKind] | None
    field: str | None
    match: re.Pattern[str] | None
    decision: Decision
    reason: str | None
    context: str | None
    rewrite: _Rewrite | None
    on_unrendered: UnrenderedDecision


class PolicyJudge:
    """A judge built from a rule file: call it with an event to get the first matching rule's verdict."""

    def __init__(self, rules: Sequence[_Rule], source: str) -> None:
        self._rules = tuple(rules)
        self.source = source

    def __repr__(self) -> str:
        return f"<PolicyJudge {self.source!r} with {len(self._rules)} rule(s)>"

    def __call__(self, event: ToolCallEvent) -> Verdict:
        """The verdict of the first rule that matches the event; allow when none does."""
        for rule in self._rules:
            verdict = _apply(rule, event)
            if verdict is not None:
                return verdict
        return Verdict(decision=Decisions.ALLOW)


def load_policy_judge(path: str) -> PolicyJudge:
    """Load a TOML rule file into a judge; raise JudgeLoadError naming the file, rule and field."""
    import tomllib

    try:
        data = _read_toml(path)
    except OSError as exc:
        raise JudgeLoadError(
            f"policy {path}: cannot read the rule file ({exc.strerror or exc});"
            " point ACP_POLICY or --policy at a readable TOML file"
        ) from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise JudgeLoadError(f"policy {path}: not valid TOML ({exc}); {_FIX}") from exc
    rules, problems = _compile(data)
    if problems:
        raise JudgeLoadError(f"policy {path}: " + "; ".join(problems) + f"; {_FIX}")
    return PolicyJudge(rules, path)


def check_policy_file(path: str) -> list[str]:
    """Every error of a rule file against policy.schema.json, each naming the rule and the field."""
    import tomllib

    from .schemas import validator_for

    try:
        data = _read_toml(path)
    except OSError as exc:
        return [f"cannot read ({exc.strerror or exc})"]
    except UnicodeDecodeError as exc:
        # L10: one line naming the byte, not a traceback.
        return [f"not UTF-8 (byte {exc.object[exc.start : exc.start + 1]!r} at offset {exc.start})"]
    except tomllib.TOMLDecodeError as exc:
        return [f"not valid TOML ({exc})"]
    problems = []
    errors = validator_for("policy").iter_errors(data)
    for error in sorted(errors, key=lambda e: [str(part) for part in e.absolute_path]):
        at: list[str | int] = list(error.absolute_path)
        instance = error.instance if isinstance(error.instance, dict) else {}
        expected: Any = error.validator_value
        schema: Any = error.schema
        # A missing or unknown field is reported on its table: name the field in the location too.
        if error.validator == "required":
            at += [name for name in expected if name not in instance][:1]
        elif error.validator == "additionalProperties":
            at += sorted(set(instance) - set(schema.get("properties", {})))[:1]
        problems.append(f"{_where(data, at)}: {error.message}")
    if not problems:
        # The schema and the hook-path loader must agree; a disagreement is reported, not hidden.
        problems = _compile(data)[1]
    return problems


def _read_toml(path: str) -> dict[str, Any]:
    """The TOML document at path; a FIFO or device is refused rather than read (L10, R6)."""
    import os
    import stat
    import tomllib

    # O_NONBLOCK: opening a FIFO must not wait for a writer before it can be refused.
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    with open(fd, "rb") as policy_file:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path} is not a regular file")
        return tomllib.load(policy_file)


def _where(data: object, path: list[str | int]) -> str:
    """Name the rule (index and name) and the field an error path points at."""
    if len(path) >= 2 and path[0] == PolicyFields.RULES and isinstance(path[1], int):
        rules = data.get(PolicyFields.RULES) if isinstance(data, dict) else None
        rule = rules[path[1]] if isinstance(rules, list) and path[1] < len(rules) else None
        where = _label(path[1], rule)
        if len(path) > 2:
            where += ", field " + ".".join(str(part) for part in path[2:])
        return where
    return "top level" + (", field " + ".".join(map(str, path)) if path else "")


def _label(index: int, rule: object) -> str:
    name = rule.get(PolicyRuleFields.NAME) if isinstance(rule, dict) else None
    return f"rules[{index}]" + (f" ({name!r})" if isinstance(name, str) else "")


def _compile(data: Mapping[str, Any]) -> tuple[list[_Rule], list[str]]:
    """Build the rules without a schema validator (hook path); return them and every problem."""
    problems = [
        f"top level, field {key}: not a policy field (known: {', '.join(sorted(_TOP_LEVEL))})"
        for key in sorted(set(data) - _TOP_LEVEL)
    ]
    raw_rules = data.get(PolicyFields.RULES)
    if not isinstance(raw_rules, list):
        problems.append(
            f"top level, field {PolicyFields.RULES}: missing or not an array of tables;"
            f" write each rule as a [[{PolicyFields.RULES}]] table"
        )
        return [], problems
    rules = []
    for index, raw in enumerate(raw_rules):
        label = _label(index, raw)
        if not isinstance(raw, dict):
            problems.append(f"{label}: not a table")
            continue
        found: list[str] = []
        rule = _rule(raw, label, found)
        problems += [f"{label}, {text}" for text in found]
        if rule is not None and not found:
            rules.append(rule)
    return rules, problems


def _rule(raw: Mapping[str, Any], label: str, problems: list[str]) -> _Rule | None:
    """One rule from its table; problems get one entry per bad field."""
    fields = PolicyRuleFields
    for key in sorted(set(raw) - _RULE_KEYS):
        problems.append(f"field {key}: not a rule field (known: {', '.join(PolicyRuleFields.ALL)})")

    def text(key: str, *, non_empty: bool = False) -> str | None:
        value = raw.get(key)
        if value is None:
            return None
        if not isinstance(value, str) or (non_empty and not value):
            problems.append(f"field {key}: must be a{' non-empty' if non_empty else ''} string")
            return None
        return value

    decision: Decision = raw.get(fields.DECISION, Decisions.DENY)
    if raw.get(fields.DECISION) not in Decisions.ALL:
        problems.append(
            f"field {fields.DECISION}: {decision!r} is not one of {', '.join(Decisions.ALL)}"
            if fields.DECISION in raw
            else f"field {fields.DECISION}: missing; every rule needs one of {', '.join(Decisions.ALL)}"
        )
    tools = _strings(raw, fields.TOOLS, problems)
    if tools is not None and (not tools or not all(tools)):
        problems.append(f"field {fields.TOOLS}: must list at least one non-empty pattern")
    events = _strings(raw, fields.EVENTS, problems)
    if events is not None:
        stray = [kind for kind in events if kind not in EventKinds.ALL]
        if stray or not events or len(set(events)) != len(events):
            problems.append(
                f"field {fields.EVENTS}: must list distinct event kinds from"
                f" {', '.join(EventKinds.ALL)} (got {events!r})"
            )
    on_unrendered = raw.get(fields.ON_UNRENDERED, UnrenderedDecisions.DENY)
    if on_unrendered not in UnrenderedDecisions.ALL:
        problems.append(
            f"field {fields.ON_UNRENDERED}: {on_unrendered!r} is not one of"
            f" {', '.join(UnrenderedDecisions.ALL)}"
        )
    field = text(fields.FIELD, non_empty=True)
    match_text = text(fields.MATCH)
    match = _regex(match_text, fields.MATCH, problems) if match_text is not None else None
    reason = text(fields.REASON)
    context = text(fields.CONTEXT)
    rewrite = _rewrite(raw.get(fields.REWRITE), problems)
    if problems:
        return None
    return _Rule(
        label=label,
        tools=None if tools is None else tuple(tools),
        events=None if events is None else frozenset(k for k in EventKinds.ALL if k in events),
        field=field,
        match=match,
        decision=decision,
        reason=reason,
        context=context,
        rewrite=rewrite,
        on_unrendered=on_unrendered,
    )


def _strings(raw: Mapping[str, Any], key: str, problems: list[str]) -> list[str] | None:
    value = raw.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        problems.append(f"field {key}: must be an array of strings")
        return None
    return value


def _regex(pattern: str, key: str, problems: list[str]) -> re.Pattern[str] | None:
    try:
        return re.compile(pattern)
    except re.error as exc:
        problems.append(f"field {key}: {pattern!r} is not a valid regular expression ({exc})")
        return None


def _rewrite(value: object, problems: list[str]) -> _Rewrite | None:
    key = PolicyRuleFields.REWRITE
    if value is None:
        return None
    if not isinstance(value, dict):
        problems.append(
            f"field {key}: must be a table with {' and '.join(PolicyRewriteFields.ALL)}"
        )
        return None
    for extra in sorted(set(value) - _REWRITE_KEYS):
        problems.append(
            f"field {key}.{extra}: not a rewrite field (known: {', '.join(PolicyRewriteFields.ALL)})"
        )
    pattern_text = value.get(PolicyRewriteFields.PATTERN)
    replacement = value.get(PolicyRewriteFields.REPLACEMENT)
    pattern = None
    if not isinstance(pattern_text, str):
        problems.append(f"field {key}.{PolicyRewriteFields.PATTERN}: missing or not a string")
    else:
        pattern = _regex(pattern_text, f"{key}.{PolicyRewriteFields.PATTERN}", problems)
    if not isinstance(replacement, str):
        problems.append(f"field {key}.{PolicyRewriteFields.REPLACEMENT}: missing or not a string")
        return None
    if pattern is None:
        return None
    # Expand the replacement once against an empty pattern with the same groups, so a bad group
    # reference (\9, \g<missing>) fails at load time rather than on some later call.
    names = {index: name for name, index in pattern.groupindex.items()}
    shape = "".join(
        f"(?P<{names[i]}>)" if i in names else "()" for i in range(1, pattern.groups + 1)
    )
    try:
        re.compile(shape).sub(replacement, "")
    except (re.error, IndexError) as exc:
        problems.append(f"field {key}.{PolicyRewriteFields.REPLACEMENT}: {exc}")
        return None
    return _Rewrite(pattern, replacement)


def _head(text: str) -> str:
    """At most MATCH_LIMIT_BYTES of UTF-8 text from the start of text (whole characters)."""
    if len(text) * 4 <= MATCH_LIMIT_BYTES:
        return text
    data = text.encode("utf-8", errors="surrogatepass")
    if len(data) <= MATCH_LIMIT_BYTES:
        return text
    return data[:MATCH_LIMIT_BYTES].decode("utf-8", errors="ignore")


def _field_text(value: object) -> str:
    """The text a pattern is searched in: a string as is, a list joined with spaces, else JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return " ".join(_field_text(item) for item in value)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def _tool_selected(patterns: tuple[str, ...], event: ToolCallEvent) -> bool:
    names = [name for name in (event.tool, event.meta.native_tool) if isinstance(name, str)]
    # The contract's MCP name rule (contract.md §3), less the double-underscore form.
    single_mcp = [
        name
        for name in names
        if not name.startswith(_DOUBLE_MCP) and call_class(name, None, None) == CallClasses.MCP
    ]
    for pattern in patterns:
        if any(fnmatchcase(name, pattern) for name in names):
            return True
        if pattern.startswith(_DOUBLE_MCP):
            single = pattern.replace("__", "_")
            if any(fnmatchcase(name, single) for name in single_mcp):
                return True
    return False


def _input_key(rule: _Rule, event: ToolCallEvent) -> str | None:
    if rule.field is not None:
        return rule.field
    return MODELED_TOOL_INPUT_KEYS.get(event.tool) if isinstance(event.tool, str) else None


class _Rewriter:
    """Rewrites every string in a JSON value, noting whether anything changed or was cut."""

    def __init__(self, rewrite: _Rewrite) -> None:
        self.rewrite = rewrite
        self.changed = False
        self.cut = False

    def __call__(self, value: object) -> object:
        """The value with the substitution applied to each string in it."""
        if isinstance(value, str):
            head = _head(value)
            new = self.rewrite.pattern.sub(self.rewrite.replacement, head)
            if len(head) < len(value):
                # Text past the scan limit is dropped, never passed on unscanned.
                self.cut = True
                new += _CUT_NOTE
            self.changed = self.changed or new != value
            return new
        if isinstance(value, list):
            return [self(item) for item in value]
        if isinstance(value, dict):
            return {key: self(item) for key, item in value.items()}  # names are not content
        return value


def _apply(rule: _Rule, event: ToolCallEvent) -> Verdict | None:
    """The rule's verdict for the event, or None when the rule does not match."""
    if rule.events is not None and event.event not in rule.events:
        return None
    if rule.tools is not None and not _tool_selected(rule.tools, event):
        return None
    key = _input_key(rule, event)
    if rule.match is not None:
        if key is None or key not in event.input:
            return None
        if rule.match.search(_head(_field_text(event.input[key]))) is None:
            return None
    content: dict[str, Any] = {}
    rewriter = None if rule.rewrite is None else _Rewriter(rule.rewrite)
    if rewriter is not None:
        if event.event == EventKinds.POST_TOOL:
            if not present(event.response):
                return None
            content[ContentFields.MUTATED_OUTPUT] = rewriter(event.response)
        else:
            if key is None or key not in event.input:
                return None
            content[ContentFields.MUTATED_INPUT] = {**event.input, key: rewriter(event.input[key])}
        if not rewriter.changed:
            return None  # a rewrite rule matches only when it changes something
    verdict = Verdict(
        decision=rule.decision,
        reason=ABSENT if rule.reason is None else rule.reason,
        additional_context=ABSENT if rule.context is None else rule.context,
        **content,
    )
    unreachable = sorted(set(content) & _unrendered(event))
    if not unreachable:
        return verdict
    cut = rewriter is not None and rewriter.cut
    if rule.on_unrendered == UnrenderedDecisions.DENY:
        # The rule's own reason describes the rewrite, not this refusal: say what happened.
        return Verdict(
            decision=Decisions.DENY,
            reason=f"policy {rule.label}: {event.meta.agent} has no channel for"
            f" {' or '.join(unreachable)} on {event.event}, so the call is denied rather than"
            " passed on unrewritten"
            + (f" (a value over the {_LIMIT_TEXT} scan limit was cut)" if cut else ""),
            # M9: the rewrite stays on the verdict, so the audit log keeps the redacted form.
            **content,
        )
    # on_unrendered = allow: the rule's decision stands without the rewrite it cannot deliver.
    return Verdict(
        decision=rule.decision,
        reason=verdict.reason,
        additional_context=verdict.additional_context,
    )


def _unrendered(event: ToolCallEvent) -> frozenset[str]:
    """The content fields the event's host cannot carry on this kind (all, for an unknown host)."""
    from .adapters import AGENT_IDS, adapter_for

    if event.meta.agent not in AGENT_IDS:
        # No declaration to prove the rewrite arrives: treat it as unrendered (never a silent pass).
        return frozenset(ContentFields.ALL)
    return frozenset(adapter_for(event.meta.agent).UNRENDERED_FIELDS[event.event])
