"""The audit log: one whole JSON line per hook call (ACP_AUDIT_LOG), and its summary for `acp audit`."""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from collections.abc import Iterable

from ._generated.constants import AuditRecordFields, ToolCallEventFields, VerdictFields
from ._generated.models.native_response_schema import NativeResponse
from ._generated.models.tool_call_event_schema import ToolCallEvent
from ._generated.models.verdict_schema import Verdict
from ._model_base import ABSENT
from ._plumbing import write_all as _write_all
from .contract import json_bytes, to_object, to_string

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

__all__ = ["append_hook_record", "append_line", "hook_record", "summarize"]

# The log holds tool inputs and outputs, secrets included: only the owner may read it.
_MODE: Final = 0o600
_NONE: Final = "-"
_NO_VERDICT: Final = "(no verdict)"
# The schema's required fields (records written before the optional ones existed still count).
_REQUIRED: Final = frozenset(AuditRecordFields.REQUIRED)


def hook_record(
    *,
    agent: str,
    event: ToolCallEvent | None,
    verdict: Verdict | None,
    response: NativeResponse,
    duration_ms: float,
    unrendered: tuple[str, ...] = (),
    failure: str | None = None,
    rule: str | None = None,
) -> dict[str, Any]:
    """The audit record of one hook call, in audit-record.schema.json field order."""
    event_doc = None if event is None else event.to_dict()
    if event_doc is not None and verdict is not None and verdict.mutated_output is not ABSENT:
        # A redacting judge replaced the output: the log keeps the redacted value, so a secret
        # the guardrail kept from the model is not written to disk either.
        event_doc[ToolCallEventFields.RESPONSE] = verdict.mutated_output
    fields = AuditRecordFields
    record: dict[str, Any] = {
        fields.TIME: _utc_now(),
        fields.AGENT: agent,
        fields.EVENT: event_doc,
        fields.VERDICT: None if verdict is None else verdict.to_dict(),
        fields.EXIT_CODE: response.exit_code,
        fields.ENFORCED: response.enforced,
        fields.DURATION_MS: round(max(0.0, duration_ms), 3),
    }
    if unrendered:
        # Issue 17: the fields the host could not carry are named, never dropped silently.
        record[fields.UNRENDERED] = list(unrendered)
    if rule:
        record[fields.RULE] = rule
    if failure:
        # Issue 26: a configuration error or a failed answer is said in the record itself.
        record[fields.FAILURE] = failure
    return record


def _utc_now() -> str:
    """The current UTC time as RFC 3339 with milliseconds, e.g. 2026-11-30T04:02:30.123Z."""
    # time, not datetime: the hook path has time loaded already, and datetime costs milliseconds.
    seconds, nanoseconds = divmod(time.time_ns(), 1_000_000_000)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
    return f"{stamp}.{nanoseconds // 1_000_000:03d}Z"


# H4: how long an append waits for another process's lock before the record is skipped.
_LOCK_WAIT_S: Final = 1.0
# M7: the log is readable by its owner only; anything else may expose logged secrets.
_FOREIGN_BITS: Final = 0o077


class _Refused(OSError):
    """The log path is not a file this process may append to safely (M7)."""


def append_line(path: str, record: dict[str, Any]) -> None:
    """Append one record as one whole line: no symlink, an owner-only regular file, locked."""
    data = json_bytes(record) + b"\n"
    # O_NOFOLLOW: a link would send the record into whatever file it points at (M7).
    # O_RDWR to read the last byte (M8); O_NONBLOCK: a FIFO never holds the open (H4).
    flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC | os.O_NONBLOCK
    fd = os.open(path, flags | getattr(os, "O_NOFOLLOW", 0), _MODE)
    try:
        _check_owned(fd, path)
        _lock(fd)
        end = os.lseek(fd, 0, os.SEEK_END)
        if end and os.pread(fd, 1, end - 1) != b"\n":
            # M8: an earlier append was cut short; start on a line of our own.
            data = b"\n" + data
        try:
            # O_APPEND puts each write() at the end of the file; the lock keeps a write that comes
            # back short (a full disk, a signal) from being interleaved with another process's line.
            _write_all(fd, data)
        except BaseException:
            try:
                os.ftruncate(fd, end)  # M8: never leave a torn record for the next one to join
            except OSError:
                pass
            raise
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def _check_owned(fd: int, path: str) -> None:
    """Refuse a log that is not a regular file owned by this user with owner-only permissions."""
    import stat

    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise _Refused(f"{path} is not a regular file")
    uid = getattr(os, "geteuid", None)
    if uid is not None and info.st_uid != uid():
        raise _Refused(f"{path} belongs to another user (uid {info.st_uid})")
    if info.st_mode & _FOREIGN_BITS:
        raise _Refused(
            f"{path} is readable or writable by others (mode {info.st_mode & 0o777:o});"
            f" chmod 600 it"
        )


def _lock(fd: int) -> None:
    try:
        import fcntl
    except ImportError:  # no flock on this platform: O_APPEND alone places each line
        return
    # H4: a lock another process holds (a stuck hook) may delay the answer only briefly.
    deadline = time.monotonic() + _LOCK_WAIT_S
    pause = 0.001
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise _Refused(f"the log stayed locked for {_LOCK_WAIT_S:.0f} s") from None
            time.sleep(pause)
            pause = min(pause * 2, 0.02)


def append_hook_record(
    path: str,
    *,
    agent: str,
    event: ToolCallEvent | None,
    verdict: Verdict | None,
    response: NativeResponse,
    duration_ms: float,
    unrendered: tuple[str, ...] = (),
    failure: str | None = None,
    rule: str | None = None,
) -> None:
    """Append the record of one hook call to the audit log at path; raises OSError on failure."""
    append_line(
        path,
        hook_record(
            agent=agent,
            event=event,
            verdict=verdict,
            response=response,
            duration_ms=duration_ms,
            unrendered=unrendered,
            failure=failure,
            rule=rule,
        ),
    )


def _records(lines: Iterable[str]) -> tuple[list[dict[str, Any]], int]:
    """The records among the lines, and how many non-empty lines are not records."""
    records, bad = [], 0
    for line in lines:
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            bad += 1
            continue
        if isinstance(record, dict) and set(record) >= _REQUIRED:
            records.append(record)
        else:
            bad += 1
    return records, bad


def _text(record: dict[str, Any], part: str, name: str, fallback: str) -> str:
    """The string at record[part][name], or the fallback when there is none."""
    value = to_string(to_object(record[part]).get(name))
    return fallback if value is None else value


def _tool(record: dict[str, Any]) -> str:
    return _text(record, AuditRecordFields.EVENT, ToolCallEventFields.TOOL, _NONE)


def _decision(record: dict[str, Any]) -> str:
    return _text(record, AuditRecordFields.VERDICT, VerdictFields.DECISION, _NO_VERDICT)


def _kind(record: dict[str, Any]) -> str:
    return _text(record, AuditRecordFields.EVENT, ToolCallEventFields.EVENT, _NONE)


def _table(title: str, counts: Counter[str]) -> list[str]:
    lines = [f"{title}:"]
    width = max((len(key) for key in counts), default=0)
    lines += [f"  {key:<{width}}  {count}" for key, count in sorted(counts.items())]
    return lines


def _not_allowed(records: list[dict[str, Any]]) -> list[str]:
    """Issue 26: every call that was not a plain allow, one line each, oldest first."""
    from ._generated.constants import MODELED_TOOL_INPUT_KEYS

    lines = []
    for record in records:
        verdict = to_object(record[AuditRecordFields.VERDICT])
        decision = to_string(verdict.get(VerdictFields.DECISION))
        failure = to_string(record.get(AuditRecordFields.FAILURE))
        if decision == "allow" and failure is None:
            continue
        event = to_object(record[AuditRecordFields.EVENT])
        tool = _tool(record)
        inputs = to_object(event.get(ToolCallEventFields.INPUT))
        value = inputs.get(MODELED_TOOL_INPUT_KEYS.get(tool, ""))
        what = (
            ""
            if value is None
            else " " + _clip(value if isinstance(value, str) else json.dumps(value))
        )
        if failure is not None or decision is None:
            outcome = "failed"
        elif (
            decision == "ask"
            and record[AuditRecordFields.ENFORCED] is True
            and record[AuditRecordFields.EXIT_CODE] != 0
        ):
            outcome = "ask, escalated to a block"
        else:
            outcome = decision
        reason = failure or to_string(verdict.get(VerdictFields.REASON)) or ""
        rule = to_string(record.get(AuditRecordFields.RULE))
        lines.append(
            f"  {record[AuditRecordFields.TIME]}  {record[AuditRecordFields.AGENT]} {tool}{what}"
            f" -> {outcome}"
            + (f" by {rule}" if rule else "")
            + (f": {_clip(reason, 160)}" if reason else "")
        )
    return [f"denied, asked or failed ({len(lines)}):", *lines]


def _clip(text: str, width: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def summarize(lines: Iterable[str], *, slowest: int = 5) -> str:
    """Counts by agent, tool and decision, and the slowest calls, of an audit log's lines."""
    records, bad = _records(lines)
    out = [f"{len(records)} call(s)" + (f", {bad} line(s) not audit records" if bad else "")]
    for title, key in (
        (AuditRecordFields.AGENT, lambda r: str(r[AuditRecordFields.AGENT])),
        (ToolCallEventFields.TOOL, _tool),
        (VerdictFields.DECISION, _decision),
    ):
        out += _table(f"by {title}", Counter(key(record) for record in records))

    def duration(record: dict[str, Any]) -> float:
        value = record[AuditRecordFields.DURATION_MS]
        return float(value) if isinstance(value, (int, float)) else 0.0

    out += _not_allowed(records)
    from ._layers import observed_summary

    out += observed_summary(records)  # issue 28: observe mode's would-be decisions
    out.append(f"slowest {min(slowest, len(records))}:")
    for record in sorted(records, key=duration, reverse=True)[:slowest]:
        out.append(
            f"  {duration(record):10.1f} ms  {record[AuditRecordFields.TIME]}"
            f"  {record[AuditRecordFields.AGENT]} {_kind(record)} {_tool(record)}"
            f" -> {_decision(record)} exit {record[AuditRecordFields.EXIT_CODE]}"
        )
    return "\n".join(out)
