"""The audit log read from a committed offset: bounded batches, rotation, truncation, corrupt lines."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from typing import Any, Final

from .._generated.constants import AuditRecordFields

__all__ = ["Batch", "Checkpoint", "LogReader", "offset_path"]

OFFSET_SUFFIX: Final = ".otel-offset"
# The first bytes of the log, hashed: a file rewritten in place (copytruncate, then new lines past
# the old offset) no longer starts the same way.
_HEAD: Final = 256
# audit-record.schema.json's required fields; optional ones (unrendered, newer ones) may be absent.
_REQUIRED: Final = frozenset(AuditRecordFields.REQUIRED)


def offset_path(log: str) -> str:
    """The committed-offset file beside the log."""
    return log + OFFSET_SUFFIX


class Checkpoint:
    """Where the exporter stands in the log: byte offset, line number and the file's identity."""

    __slots__ = ("device", "head", "inode", "line", "offset")

    def __init__(
        self, offset: int = 0, line: int = 0, inode: int = 0, device: int = 0, head: str = ""
    ) -> None:
        self.offset = offset
        self.line = line
        self.inode = inode
        self.device = device
        self.head = head

    def to_dict(self) -> dict[str, Any]:
        """The JSON form written to the offset file."""
        return {name: getattr(self, name) for name in self.__slots__}

    @classmethod
    def load(cls, path: str) -> Checkpoint:
        """The checkpoint in path, or the start of the log when there is none; raises ValueError."""
        try:
            with open(path, encoding="utf-8") as handle:
                doc = json.load(handle)
        except FileNotFoundError:
            return cls()
        if not isinstance(doc, dict) or not all(
            isinstance(doc.get(name), int) for name in ("offset", "line", "inode", "device")
        ):
            raise ValueError(f"{path} is not an offset file this exporter wrote")
        return cls(
            doc["offset"], doc["line"], doc["inode"], doc["device"], str(doc.get("head", ""))
        )

    def save(self, path: str) -> None:
        """Commit atomically: a crash leaves the old offset or the new one, never half of one."""
        temporary = f"{path}.tmp"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(self.to_dict(), handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)


class Batch:
    """Records read after a checkpoint, and the checkpoint to commit once they are delivered."""

    __slots__ = ("after", "records", "skipped")

    def __init__(self) -> None:
        self.records: list[tuple[dict[str, Any], bytes, int, int]] = []
        self.skipped = 0
        self.after = Checkpoint()


class LogReader:
    """Reads bounded batches of whole lines from the audit log, from a checkpoint on."""

    def __init__(
        self,
        path: str,
        checkpoint: Checkpoint,
        report: Callable[[str], None],
        *,
        max_records: int = 512,
        max_bytes: int = 4 << 20,
    ) -> None:
        self.path = path
        self.position = checkpoint
        self.report = report
        self.max_records = max_records
        self.max_bytes = max_bytes

    def size(self) -> int:
        """The log's size now (0 when it does not exist)."""
        try:
            return os.stat(self.path).st_size
        except FileNotFoundError:
            return 0

    def read(self) -> Batch:
        """The next batch after the current position (empty when nothing whole is new)."""
        batch = Batch()
        batch.after = self.position
        try:
            handle = open(self.path, "rb")  # noqa: SIM115 (closed below, after the identity check)
        except FileNotFoundError:
            return batch
        with handle:
            info = os.fstat(handle.fileno())
            start = self._resume(handle, info)
            handle.seek(start.offset)
            offset, line, used = start.offset, start.line, 0
            while len(batch.records) < self.max_records and used < self.max_bytes:
                raw = handle.readline(self.max_bytes - used + 1)
                if not raw.endswith(b"\n"):
                    if len(raw) > self.max_bytes and used == 0:
                        # One line larger than a whole batch: reported and skipped, not held.
                        rest = self._skip_long(handle)
                        if rest is None:
                            break  # still being written: wait for its end
                        line += 1
                        self.report(f"line {line}: over {self.max_bytes} bytes; skipped")
                        batch.skipped += 1
                        offset += len(raw) + rest
                        continue
                    break  # a line still being written, or the next batch's: read it later
                line += 1
                used += len(raw)
                record = self._parse(raw, line)
                if record is None:
                    batch.skipped += 1
                elif record is not _BLANK:
                    batch.records.append((record, raw.rstrip(b"\n"), line, offset))
                offset += len(raw)
            batch.after = Checkpoint(offset, line, info.st_ino, info.st_dev, _head(handle, offset))
        return batch

    def _resume(self, handle: Any, info: os.stat_result) -> Checkpoint:
        """The position to read from: the checkpoint, or 0 when the log was rotated or truncated."""
        position = self.position
        if position.offset == 0 and not position.inode:
            return Checkpoint(0, 0, info.st_ino, info.st_dev, "")
        if (position.inode, position.device) != (info.st_ino, info.st_dev):
            self.report(
                f"{self.path} was rotated (a new file since line {position.line}); reading the"
                " new file from its start (lines the old file got after the offset are not"
                " exported)"
            )
            return Checkpoint(0, 0, info.st_ino, info.st_dev, "")
        if info.st_size < position.offset:
            self.report(
                f"{self.path} was truncated ({info.st_size} bytes, the offset was"
                f" {position.offset}); reading it again from its start"
            )
            return Checkpoint(0, 0, info.st_ino, info.st_dev, "")
        if position.head and _head(handle, position.offset) != position.head:
            self.report(
                f"{self.path} was rewritten in place (its first bytes changed); reading it again"
                " from its start"
            )
            return Checkpoint(0, 0, info.st_ino, info.st_dev, "")
        return position

    def _skip_long(self, handle: Any) -> int | None:
        """The bytes left of an oversized line, or None when its end is not written yet."""
        skipped = 0
        while True:
            chunk = handle.readline(1 << 20)
            skipped += len(chunk)
            if chunk.endswith(b"\n"):
                return skipped
            if not chunk:
                return None

    def _parse(self, raw: bytes, line: int) -> dict[str, Any] | None:
        """The record on a line, _BLANK for a blank one, None (reported) for a corrupt one."""
        if not raw.strip():
            return _BLANK
        try:
            record = json.loads(raw)
        except ValueError as exc:
            self.report(f"line {line}: not JSON ({exc}); skipped")
            return None
        if not isinstance(record, dict) or not set(record) >= _REQUIRED:
            missing = sorted(_REQUIRED - set(record)) if isinstance(record, dict) else ["(object)"]
            self.report(f"line {line}: not an audit record (missing {', '.join(missing)}); skipped")
            return None
        return record


_BLANK: Final[dict[str, Any]] = {}


def _head(handle: Any, offset: int) -> str:
    """The hash of the log's first bytes up to offset (at most _HEAD of them); keeps the position."""
    here = handle.tell()
    handle.seek(0)
    data = handle.read(min(offset, _HEAD))
    handle.seek(here)
    return hashlib.sha256(data).hexdigest() if data else ""
