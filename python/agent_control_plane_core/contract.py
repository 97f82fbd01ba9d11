"""The host-neutral rules every adapter shares: events, verdicts, coercions, aliases, vetoability."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping

from ._generated.constants import (
    MODELED_TOOL_INPUT_KEYS,
    SCHEMA_VERSION,
    TOOL_ALIASES,
    VERDICT_FIELD_TYPES,
    CallClasses,
    Decisions,
    EventKinds,
    IntegrationModes,
    VerdictFields,
    VetoingCoverages,
)
from ._generated.models.tool_call_event_schema import EventMeta, ToolCallEvent
from ._generated.models.verdict_schema import Verdict
from ._model_base import ABSENT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final, TypeGuard

    from ._generated.constants import CallClass, CoverageStatus, Decision, EventKind

__all__ = [
    "aliased_tool",
    "block_reason",
    "call_class",
    "canonical_tool",
    "check_alias_targets",
    "coverage_allows_veto",
    "json_bytes",
    "make_event",
    "move_input_keys",
    "normalize_verdict",
    "parse_version",
    "present",
    "rename_input_keys",
    "sanitize_verdict",
    "to_object",
    "to_string",
    "tool_rule",
    "version_key",
    "vetoable_for",
    "window_holds",
]

# contract.md §3: semver-coerce, the first run of up to three dot-separated integers. Kept as
# text: re caches the compiled pattern on first use, so a hook that never reads a version
# does not compile it at import.
_VERSION: Final = r"(\d+)(?:\.(\d+))?(?:\.(\d+))?"
# The same coerced core plus a pre-release suffix (semver §9), for version_key.
_VERSION_PRE: Final = _VERSION + r"(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?"
_OPTIONAL_VERDICT_FIELDS: Final = tuple(
    name for name in VerdictFields.ALL if name != VerdictFields.DECISION
)
# JSON Schema type name -> the Python type json.loads produces for it.
_JSON_TYPES: Final[Mapping[str, type]] = {"string": str, "object": dict}


def check_alias_targets(aliases: Mapping[str, str], source: str) -> None:
    """Raise when an alias points at a tool the contract does not model (contract.md §3)."""
    stray = sorted(target for target in aliases.values() if target not in MODELED_TOOL_INPUT_KEYS)
    if stray:
        raise ValueError(
            f"{source}: alias target(s) {stray} are not modelled tools {sorted(MODELED_TOOL_INPUT_KEYS)};"
            " add the tool to tool-input-keys.json or fix the alias, then run `make codegen`"
        )


check_alias_targets(TOOL_ALIASES, "tool-aliases.json")


def to_object(value: object) -> dict[str, Any]:
    """Return value if it is a JSON object, else an empty one; never raises."""
    return value if isinstance(value, dict) else {}


def to_string(value: object, fallback: str | None = None) -> str | None:
    """Return value if it is a string, else the fallback; never raises."""
    return value if isinstance(value, str) else fallback


# A set: make_event runs for every event an adapter parses.
_EVENT_KINDS: Final = frozenset(EventKinds.ALL)


def make_event(
    *,
    event: EventKind,
    tool: str | None,
    input: dict[str, Any],
    this_call_vetoable: bool,
    meta: EventMeta,
    response: Any = ABSENT,
) -> ToolCallEvent:
    """Build a ToolCallEvent, raising on an adapter bug: a bad kind, a non-bool or impossible veto."""
    if event not in _EVENT_KINDS:
        raise ValueError(f"make_event: event kind {event!r} is not one of {EventKinds.ALL}")
    if not isinstance(this_call_vetoable, bool):
        raise TypeError(
            f"make_event: this_call_vetoable must be a bool, got {type(this_call_vetoable).__name__}"
        )
    # tool-call-event.schema.json allOf: neither an unknown event nor an observe-only one vetoes.
    if this_call_vetoable and event == EventKinds.UNKNOWN:
        raise ValueError("make_event: an unknown event cannot be vetoable")
    if this_call_vetoable and meta.integration_mode == IntegrationModes.OBSERVE_ONLY:
        raise ValueError("make_event: an observe_only event cannot be vetoable")
    return ToolCallEvent(
        schema_version=SCHEMA_VERSION,
        event=event,
        tool=tool,
        input=input,
        this_call_vetoable=this_call_vetoable,
        meta=meta,
        response=response,
    )


def normalize_verdict(verdict: Verdict | Mapping[str, Any]) -> Verdict:
    """Return a Verdict from a Verdict or mapping, keeping only modelled fields present and not null."""
    mapping: Mapping[str, Any]
    # What a judge or a bridge line mostly gives, tested first: isinstance against Verdict and
    # Mapping goes through their metaclasses' __instancecheck__.
    if verdict.__class__ is dict:
        mapping = verdict
    elif isinstance(verdict, Verdict):
        mapping = verdict.to_dict()
    elif isinstance(verdict, Mapping):
        mapping = verdict
    else:
        raise TypeError(f"normalize_verdict: expected a Verdict or mapping, got {verdict!r}")
    decision = mapping.get(VerdictFields.DECISION)
    if decision not in Decisions.ALL:
        raise ValueError(f"normalize_verdict: decision {decision!r} is not one of {Decisions.ALL}")
    # Null is absent in every optional verdict field (docs/contract.md §2): a naive binding's
    # {"decision": "allow", "mutated_output": null} is a plain allow, never a redaction.
    kept = {
        name: mapping[name]
        for name in _OPTIONAL_VERDICT_FIELDS
        if name in mapping and mapping[name] is not None
    }
    for name, value in kept.items():
        expected = VERDICT_FIELD_TYPES.get(name)
        if expected is not None and not isinstance(value, _JSON_TYPES[expected]):
            raise TypeError(
                f"normalize_verdict: {name} must be a JSON {expected}, got {type(value).__name__};"
                " fix the judge, or use sanitize_verdict to drop mistyped fields"
            )
    return Verdict(decision=decision, **kept)


def sanitize_verdict(
    untrusted: object, sanitize_text: Callable[[str], str] | None = None
) -> Verdict:
    """Turn any judge output into a valid Verdict; an invalid decision is clamped to ask."""
    if isinstance(untrusted, Verdict):
        untrusted = untrusted.to_dict()
    if isinstance(untrusted, Mapping):
        source: Mapping[str, Any] = untrusted
        decision = source.get(VerdictFields.DECISION)
    else:
        # A verdict that is not an object has no decision at all; the note names the whole value.
        source, decision = {}, None
    fields: dict[str, Any] = {}
    for name in _OPTIONAL_VERDICT_FIELDS:
        value: Any = source.get(name)
        if value is None:
            continue  # absent, or null, which means absent (docs/contract.md §2)
        expected = VERDICT_FIELD_TYPES.get(name)
        if expected is None:
            fields[name] = value  # an untyped field (mutated_output) is any JSON value, verbatim
        elif isinstance(value, str) and expected == "string":
            fields[name] = _sanitized(value, sanitize_text)
        elif isinstance(value, _JSON_TYPES[expected]):
            fields[name] = value
    if isinstance(untrusted, Mapping) and _is_decision(decision):
        return Verdict(decision=decision, **fields)
    shown = decision if isinstance(untrusted, Mapping) else untrusted
    note = f'[control-plane: invalid verdict decision {_json_text(shown)} clamped to "{Decisions.ASK}"]'
    reason = fields.get(VerdictFields.REASON)
    fields[VerdictFields.REASON] = f"{reason} {note}" if reason else note
    return Verdict(decision=Decisions.ASK, **fields)


def _sanitized(text: str, sanitize_text: Callable[[str], str] | None) -> str:
    if sanitize_text is None:
        return text
    cleaned: object = sanitize_text(text)
    if not isinstance(cleaned, str):
        raise TypeError(
            f"sanitize_verdict: sanitize_text returned {type(cleaned).__name__}, not str"
        )
    return cleaned


def _is_decision(value: object) -> TypeGuard[Decision]:
    return value in Decisions.ALL


def _json_text(value: object) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return json.dumps(repr(value), ensure_ascii=False)


# One encoder for every body and bridge line: json.dumps with options builds a new one per call.
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def json_bytes(value: object) -> bytes:
    """Compact UTF-8 JSON of a value; raises TypeError or ValueError when the value is not JSON."""
    # allow_nan=False: NaN and Infinity are not JSON, and a strict host parser rejects the body (L1).
    text = _COMPACT.encode(value)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        # A JSON "\ud800" escape decodes to a lone surrogate, which has no UTF-8 form: escape it.
        return json.dumps(value, separators=(",", ":"), allow_nan=False).encode("ascii")


def block_reason(verdict: Verdict, default: str) -> str:
    """The verdict's reason when it has visible text, else the host's default block reason."""
    reason = verdict.reason
    # Codex and Gemini trim stderr and fail open on what is left empty
    # (codex-rs/hooks/src/common.rs trimmed_non_empty; gemini hookRunner.ts stderr.trim()).
    return reason if isinstance(reason, str) and reason.strip() else default


# Put before a block text that would parse as JSON: Gemini CLI reads stdout, else stderr, as JSON
# first (GM-1) and Qwen Code reads a JSON stderr at exit 2 as the whole answer (QW-1), so "403",
# "null" or "{}" alone would let the call run.
JSON_GUARD: Final = "blocked: "


def unreadable_as_json(text: str) -> str:
    """The text, prefixed when the whole of it (trimmed) would parse as a JSON value."""
    try:
        json.loads(text)
    except ValueError:
        return text
    return JSON_GUARD + text


def rename_input_keys(tool_input: dict[str, Any], renames: Mapping[str, str]) -> dict[str, Any]:
    """Rename input keys per the host's declaration; a rename never overwrites a present key."""
    pairs = renames.items()
    if not any(old in tool_input and new not in tool_input for old, new in pairs):
        return tool_input  # nothing moves: the caller's dict, uncopied
    renamed = dict(tool_input)
    move_input_keys(renamed, pairs)
    return renamed


def move_input_keys(tool_input: dict[str, Any], pairs: Iterable[tuple[str, str]]) -> None:
    """rename_input_keys in place, for a dict that is the event's own (build_event's)."""
    for old, new in pairs:
        if old in tool_input and new not in tool_input:
            tool_input[new] = tool_input.pop(old)


def canonical_tool(
    native_tool: str | None,
    tool_input: Mapping[str, Any],
    calls: CallClass,
    host_aliases: Mapping[str, str],
) -> str | None:
    """Map a native tool name to its canonical name per the global and host alias rules."""
    if native_tool is None:
        return None
    return aliased_tool(tool_rule(native_tool, calls, host_aliases), native_tool, tool_input)


def tool_rule(
    native_tool: str, calls: CallClass, host_aliases: Mapping[str, str]
) -> str | tuple[str, str | None]:
    """How a native name maps: its canonical name, or (host alias, the input key it needs)."""
    # contract.md §3: the global aliases apply to every call of every host.
    alias = TOOL_ALIASES.get(native_tool)
    if alias is not None:
        return alias
    # A host alias applies to the host's own (builtin) tool, and only when the input has the
    # target's key.
    target = host_aliases.get(native_tool) if calls == CallClasses.BUILTIN else None
    if target is None:
        return native_tool
    return target, MODELED_TOOL_INPUT_KEYS.get(target)


def aliased_tool(
    rule: str | tuple[str, str | None], native_tool: str, tool_input: Mapping[str, Any]
) -> str:
    """The canonical name a tool_rule gives one call: a host alias only with its key in the input."""
    if isinstance(rule, str):
        return rule
    target, key = rule
    return target if key in tool_input else native_tool


def call_class(native_tool: str | None, mcp_context: object, agent_type: object) -> CallClass:
    """Classify one call as mcp, subagent or builtin from the fields the adapter read."""
    # startswith first: most tools are builtins, and this runs on every parse.
    if (
        native_tool is not None and native_tool.startswith("mcp_") and _is_mcp_name(native_tool)
    ) or isinstance(mcp_context, dict):
        return CallClasses.MCP
    if isinstance(agent_type, str) and agent_type:
        return CallClasses.SUBAGENT
    return CallClasses.BUILTIN


def _is_mcp_name(name: str) -> bool:
    """Tell whether a tool name is mcp_ or mcp__ followed by a server name (not an underscore)."""
    # contract.md §3 writes this as ^mcp__?[^_]; string tests give the same answer without a regex.
    if not name.startswith("mcp_"):
        return False
    rest = name[5:] if name.startswith("mcp__") else name[4:]
    return rest != "" and rest[0] != "_"


def coverage_allows_veto(status: CoverageStatus | None) -> bool:
    """Tell whether a coverage status lets a block be honoured (covered or partial)."""
    return status in VetoingCoverages.ALL


def vetoable_for(
    kind: EventKind,
    calls: CallClass,
    gated_kinds: frozenset[EventKind],
    coverage: Mapping[CallClass, CoverageStatus],
    coverage_kinds: frozenset[EventKind] | None = None,
) -> bool:
    """Tell whether a deny on this kind and call class is enforced by the host."""
    if kind == EventKinds.UNKNOWN or kind not in gated_kinds:
        return False
    # contract.md §3: coverage speaks only for the kinds it describes (codex: PreToolUse routing).
    if coverage_kinds is not None and kind not in coverage_kinds:
        return True
    return coverage_allows_veto(coverage.get(calls))


def parse_version(text: object) -> tuple[int, int, int] | None:
    """Read a version the way semver coerce does; None when there are no digits."""
    if not isinstance(text, str):
        return None
    found = re.search(_VERSION, text)
    if found is None:
        return None
    major, minor, patch = (int(part) if part else 0 for part in found.groups())
    return (major, minor, patch)


VersionKey = tuple[int, int, int, int, tuple[tuple[int, int, str], ...]]
"""A host version in semver precedence order (version_key)."""


def version_key(text: object) -> VersionKey | None:
    """Read a host version for semver-precedence comparison, coerced like parse_version.

    A pre-release sorts before its release (0.172.0-alpha.1 < 0.172.0); its dot-separated ids
    compare numerically when all digits, else as text, numeric first. None: no digits.
    """
    if not isinstance(text, str):
        return None
    found = re.search(_VERSION_PRE, text)
    if found is None:
        return None
    major, minor, patch = (int(part) if part else 0 for part in found.groups()[:3])
    pre = found.group(4)
    if pre is None:
        return (major, minor, patch, 1, ())
    ids = tuple((0, int(i), "") if i.isdigit() else (1, 0, i) for i in pre.split("."))
    return (major, minor, patch, 0, ids)


def window_holds(
    since: str | None,
    until: str | None,
    version: VersionKey | None,
    supported: tuple[str, str] | None,
) -> bool:
    """Tell whether a version fact's window (since inclusive, until exclusive) holds.

    With a version: whether the window holds it. Without one: whether it holds on every version
    of the supported range (the conservative intersection an unversioned adapter applies).
    """
    low = version_key(since)
    high = version_key(until)
    if version is not None:
        return (low is None or low <= version) and (high is None or version < high)
    if supported is None:
        return False
    first, last = version_key(supported[0]), version_key(supported[1])
    if first is None or last is None:
        return False
    return (low is None or low <= first) and (high is None or last < high)


def present(value: object) -> TypeGuard[Any]:
    """Tell whether an optional dataclass field holds a value (null included) rather than ABSENT."""
    return value is not ABSENT  # Absent has one member: identity is the cheaper same test
