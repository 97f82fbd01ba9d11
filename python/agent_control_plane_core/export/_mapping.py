"""One audit record as OpenTelemetry attributes: GenAI tool-execution names plus the acp.* namespace."""

from __future__ import annotations

import hashlib
import json
from typing import Any, Final

from .._generated.constants import (
    AuditRecordFields,
    ContentFields,
    Decisions,
    EventKinds,
    EventMetaFields,
    ToolCallEventFields,
    VerdictFields,
)
from ..contract import to_object, to_string

__all__ = ["NAMESPACE", "Mapped", "map_record"]

NAMESPACE: Final = "acp"
# OpenTelemetry GenAI semantic conventions (gen-ai-spans.md, "Execute tool span").
GEN_AI_OPERATION: Final = "gen_ai.operation.name"
GEN_AI_TOOL_NAME: Final = "gen_ai.tool.name"
GEN_AI_TOOL_CALL_ID: Final = "gen_ai.tool.call.id"
GEN_AI_CONVERSATION_ID: Final = "gen_ai.conversation.id"
GEN_AI_TOOL_ARGUMENTS: Final = "gen_ai.tool.call.arguments"
GEN_AI_TOOL_RESULT: Final = "gen_ai.tool.call.result"
EXECUTE_TOOL: Final = "execute_tool"
# The log record's event name (OTel event records): one per hook decision.
EVENT_NAME: Final = f"{NAMESPACE}.hook.decision"
# The native payload keys hosts name a tool call with; the event keeps them in meta.passthrough.
_CALL_ID_KEYS: Final = ("tool_use_id", "tool_call_id", "toolUseID", "callID", "execution_id")
# The native payload keys hosts send their own version in (Cursor, Cline, Codex).
_HOST_VERSION_KEYS: Final = ("cursor_version", "clineVersion", "version")
# A reason is a short text; one longer than this is cut (the attribute says so with an ellipsis).
_REASON_LIMIT: Final = 4096
# Record fields this mapping reads; any other top-level field (one a newer record carries) is
# sent as acp.record.<name>, never dropped.
_KNOWN: Final = frozenset(
    {
        AuditRecordFields.TIME,
        AuditRecordFields.AGENT,
        AuditRecordFields.EVENT,
        AuditRecordFields.VERDICT,
        AuditRecordFields.EXIT_CODE,
        AuditRecordFields.ENFORCED,
        AuditRecordFields.DURATION_MS,
        AuditRecordFields.UNRENDERED,
        AuditRecordFields.FAILURE,
    }
)
_TOOL_KINDS: Final = frozenset({EventKinds.PRE_TOOL, EventKinds.POST_TOOL})


def _attr(*parts: str) -> str:
    return ".".join((NAMESPACE, *parts))


# The library's own attribute names (docs/observability.md lists each with its source).
HOST: Final = _attr("host")
HOST_VERSION: Final = _attr("host", "version")
TOOL_CANONICAL: Final = _attr("tool", "canonical")
TOOL_NATIVE: Final = _attr("tool", "native")
EVENT_KIND: Final = _attr("event", "kind")
EVENT_NATIVE: Final = _attr("event", "native")
INTEGRATION_MODE: Final = _attr(EventMetaFields.INTEGRATION_MODE)
PERMISSION_MODE: Final = _attr(EventMetaFields.PERMISSION_MODE)
VETOABLE: Final = _attr(ToolCallEventFields.THIS_CALL_VETOABLE)
DECISION: Final = _attr(VerdictFields.DECISION)
DECISION_ESCALATED: Final = _attr(VerdictFields.DECISION, "escalated")
ESCALATED: Final = _attr("escalated")
FAILURE: Final = _attr("failure")
FAILURE_REASON: Final = _attr(AuditRecordFields.FAILURE, "reason")
ENFORCED: Final = _attr(AuditRecordFields.ENFORCED)
REASON: Final = _attr(VerdictFields.REASON)
CONTENT: Final = _attr("verdict", "content")
UNRENDERED: Final = _attr(AuditRecordFields.UNRENDERED)
EXIT_CODE: Final = _attr(AuditRecordFields.EXIT_CODE)
DURATION_MS: Final = _attr(AuditRecordFields.DURATION_MS)
RECORD_ID: Final = _attr("record", "id")
RECORD_LINE: Final = _attr("record", "line")
RECORD_OFFSET: Final = _attr("record", "offset")


class Mapped:
    """What one audit record becomes: attributes, body, times, ids, and whether it is a tool span."""

    __slots__ = (
        "attributes",
        "body",
        "end_ns",
        "severity",
        "span_id",
        "span_name",
        "start_ns",
        "trace_id",
    )

    def __init__(
        self,
        attributes: dict[str, Any],
        body: str,
        start_ns: int,
        end_ns: int,
        severity: str,
        trace_id: int,
        span_id: int,
        span_name: str | None,
    ) -> None:
        self.attributes = attributes
        self.body = body
        self.start_ns = start_ns
        self.end_ns = end_ns
        self.severity = severity
        self.trace_id = trace_id
        self.span_id = span_id
        self.span_name = span_name


def map_record(
    record: dict[str, Any], line: bytes, *, number: int, offset: int, content: bool = False
) -> Mapped:
    """The OTel form of one audit record (line: its bytes in the log, for a stable id)."""
    event = to_object(record.get(AuditRecordFields.EVENT))
    meta = to_object(event.get(ToolCallEventFields.META))
    passthrough = to_object(meta.get(EventMetaFields.PASSTHROUGH))
    verdict_doc = record.get(AuditRecordFields.VERDICT)
    verdict = to_object(verdict_doc)
    digest = hashlib.sha256(line).digest()
    attributes: dict[str, Any] = {}

    def put(name: str, value: object) -> None:
        if isinstance(value, (str, bool, int, float)):
            attributes[name] = value

    kind = to_string(event.get(ToolCallEventFields.EVENT))
    canonical = to_string(event.get(ToolCallEventFields.TOOL))
    native_tool = to_string(meta.get(EventMetaFields.NATIVE_TOOL))
    tool = canonical or native_tool
    is_tool_call = kind in _TOOL_KINDS and tool is not None
    if is_tool_call:
        put(GEN_AI_OPERATION, EXECUTE_TOOL)
        put(GEN_AI_TOOL_NAME, tool)
        put(GEN_AI_TOOL_CALL_ID, _first(passthrough, _CALL_ID_KEYS))
    put(GEN_AI_CONVERSATION_ID, meta.get(EventMetaFields.SESSION_ID))
    host = to_string(record.get(AuditRecordFields.AGENT)) or ""
    put(HOST, host)
    put(HOST_VERSION, _first(passthrough, _HOST_VERSION_KEYS))
    put(TOOL_CANONICAL, canonical)
    put(TOOL_NATIVE, native_tool)
    put(EVENT_KIND, kind)
    put(EVENT_NATIVE, meta.get(EventMetaFields.NATIVE_EVENT))
    put(INTEGRATION_MODE, meta.get(EventMetaFields.INTEGRATION_MODE))
    put(PERMISSION_MODE, meta.get(EventMetaFields.PERMISSION_MODE))
    put(VETOABLE, event.get(ToolCallEventFields.THIS_CALL_VETOABLE))
    enforced = record.get(AuditRecordFields.ENFORCED) is True
    decision = to_string(verdict.get(VerdictFields.DECISION))
    # The host's answer: a block wherever the response is enforced (an escalated ask, a rewrite
    # the host cannot carry denied, a failure under ACP_FAIL_CLOSED), else the verdict's decision.
    answered = Decisions.DENY if enforced else decision
    put(DECISION, decision)
    put(DECISION_ESCALATED, answered)
    put(ESCALATED, decision is not None and answered != decision)
    failure = to_string(record.get(AuditRecordFields.FAILURE))
    put(FAILURE, verdict_doc is None or failure is not None)
    if failure is not None:
        put(FAILURE_REASON, _cut(failure))
    put(ENFORCED, enforced)
    reason = to_string(verdict.get(VerdictFields.REASON))
    if reason is not None:
        put(REASON, _cut(reason))
    rewritten = [name for name in ContentFields.ALL if name in verdict]
    if rewritten:
        attributes[CONTENT] = rewritten
    unrendered = record.get(AuditRecordFields.UNRENDERED)
    if isinstance(unrendered, list):
        attributes[UNRENDERED] = [str(name) for name in unrendered]
    put(EXIT_CODE, record.get(AuditRecordFields.EXIT_CODE))
    duration = record.get(AuditRecordFields.DURATION_MS)
    duration_ms = float(duration) if isinstance(duration, (int, float)) else 0.0
    put(DURATION_MS, duration_ms)
    put(RECORD_ID, digest[:16].hex())
    put(RECORD_LINE, number)
    put(RECORD_OFFSET, offset)
    for name, value in record.items():
        if name not in _KNOWN:
            _extra(attributes, _attr("record", name), value)
    if content and is_tool_call:
        # Only what the record holds in redacted form: a rewrite replaces the original input,
        # and the logged response is already the verdict's mutated_output (audit.hook_record).
        arguments = verdict.get(VerdictFields.MUTATED_INPUT, event.get(ToolCallEventFields.INPUT))
        put(GEN_AI_TOOL_ARGUMENTS, _json(arguments))
        if ToolCallEventFields.RESPONSE in event:
            put(GEN_AI_TOOL_RESULT, _json(event[ToolCallEventFields.RESPONSE]))
    end_ns = _time_ns(to_string(record.get(AuditRecordFields.TIME)) or "")
    start_ns = max(0, end_ns - int(duration_ms * 1_000_000))
    body = f"{host} {kind or '-'} {tool or '-'} -> {answered or 'failure'}"
    if enforced:
        body += " (enforced)"
    failed = verdict_doc is None or failure is not None
    severity = "ERROR" if failed else ("WARN" if answered != Decisions.ALLOW else "INFO")
    return Mapped(
        attributes,
        body,
        start_ns,
        end_ns,
        severity,
        int.from_bytes(digest[:16], "big") or 1,
        int.from_bytes(digest[16:24], "big") or 1,
        f"{EXECUTE_TOOL} {tool}" if is_tool_call else None,
    )


def _cut(text: str) -> str:
    """A text of at most _REASON_LIMIT characters; a longer one is cut and ends in an ellipsis."""
    return text if len(text) <= _REASON_LIMIT else text[:_REASON_LIMIT] + "…"


def _first(values: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = values.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _extra(attributes: dict[str, Any], name: str, value: object) -> None:
    """A record field this mapping does not model: scalars as is, one level of objects flattened."""
    if isinstance(value, (str, bool, int, float)):
        attributes[name] = value
    elif isinstance(value, dict):
        for key, inner in value.items():
            if isinstance(inner, (str, bool, int, float)):
                attributes[f"{name}.{key}"] = inner
    elif isinstance(value, list) and all(isinstance(item, str) for item in value):
        attributes[name] = list(value)


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _time_ns(stamp: str) -> int:
    """Nanoseconds since the epoch of an audit time (2026-11-30T04:02:30.123Z); 0 when unreadable."""
    import calendar
    import time

    try:
        whole, _, fraction = stamp.rstrip("Z").partition(".")
        seconds = calendar.timegm(time.strptime(whole, "%Y-%m-%dT%H:%M:%S"))
        digits = (fraction + "000000000")[:9]
        return seconds * 1_000_000_000 + int(digits)
    except ValueError:
        return 0
