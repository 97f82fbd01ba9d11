"""Hook process plumbing: stdin, the host's stdout and stderr kept private, guarded writes."""

from __future__ import annotations

import os
import sys
import time

from ._generated.models.native_response_schema import NativeResponse
from ._generated.models.tool_call_event_schema import ToolCallEvent
from ._generated.models.verdict_schema import Verdict
from ._model_base import ABSENT
from .contract import json_bytes, unreadable_as_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

__all__ = [
    "DIRECT",
    "HookAnswer",
    "HostPipes",
    "isolate_host_pipes",
    "put",
    "read_stdin",
    "write_all",
    "write_response",
]


class HookAnswer:
    """One hook call's outcome: the response, and the event and verdict when they got that far."""

    __slots__ = ("body", "event", "failure", "notes", "response", "rule", "unrendered", "verdict")

    def __init__(
        self,
        response: NativeResponse,
        event: ToolCallEvent | None = None,
        verdict: Verdict | None = None,
        body: bytes | None = None,
        unrendered: tuple[str, ...] = (),
        notes: tuple[str, ...] = (),
        failure: str | None = None,
        rule: str | None = None,
    ) -> None:
        self.response = response
        self.event = event
        self.verdict = verdict
        # The stdout body already serialized, when the pipeline checked it could be.
        self.body = body
        # The verdict's content fields the host has no channel for on this event.
        self.unrendered = unrendered
        # One-line diagnostics for stderr, after the response's own text.
        self.notes = notes
        # Why the entry did not answer with the judge's own verdict (the audit record says so).
        self.failure = failure
        # The policy rule that decided, when a rule file's judge said (issue 26).
        self.rule = rule


def read_stdin() -> str:
    """The whole of stdin as UTF-8 text; raises UnicodeDecodeError on bytes that are not."""
    # A payload that cannot be decoded is not an event: the hook entry gives its failure posture.
    return sys.stdin.buffer.read().decode("utf-8")


def write_all(fd: int, data: bytes) -> None:
    """Write every byte to fd, waiting out EAGAIN on a non-blocking pipe."""
    view = memoryview(data)
    while view:
        try:
            written = os.write(fd, view)
        except BlockingIOError:
            import select

            select.select([], [fd], [])
            continue
        view = view[written:]


def put(fd: int | None, data: bytes) -> bool:
    """Write data to fd when there is one; a failed write (EPIPE, a full disk) returns False."""
    if fd is None:
        return False
    try:
        write_all(fd, data)
    except (OSError, ValueError):  # M3: a write that fails must not change the exit code
        return False
    return True


# Bytes of a judge's own output (print, child processes, fd 1 writes) relayed to the host's
# stderr: a host that never reads stderr must not block the answer on a full pipe.
JUDGE_OUTPUT_LIMIT: Final = 16 * 1024


class HostPipes:
    """The host's stdout and stderr on private descriptors, and the sink the judge writes to."""

    __slots__ = ("err", "out", "sink")

    def __init__(self, out: int | None, err: int | None, sink: int | None = None) -> None:
        self.out = out
        self.err = err
        self.sink = sink

    def judge_output(self) -> bytes:
        """What the judge wrote to fds 1 and 2, cut to the relay limit."""
        for stream in (sys.stdout, sys.stderr):
            try:  # a judge may have closed or replaced them
                stream.flush()
            except Exception:
                pass
        if self.sink is None:
            return b""
        try:
            size = os.fstat(self.sink).st_size
            data = os.pread(self.sink, JUDGE_OUTPUT_LIMIT, 0)
        except OSError:
            return b""
        if size > len(data):
            data += f"\n[{size - len(data)} more bytes of judge output not shown]\n".encode()
        return data


def isolate_host_pipes() -> HostPipes:
    """Move the host's fds 1 and 2 to private close-on-exec copies; give fds 1 and 2 a sink."""
    if os.name != "posix":  # Windows: the judge shares the host's descriptors
        return HostPipes(1, 2)

    def private(fd: int) -> int | None:
        try:
            return _copy_above_two(fd)
        except OSError:  # the host closed it: nothing can be written there
            return None

    pipes = HostPipes(private(1), private(2))
    _forget_in_children(pipes)
    pipes.sink = open_sink()
    # The judge, its C extensions and its children write to the sink, never into the body the
    # host parses (M1); the hook relays the sink to the host's stderr when it answers.
    target = pipes.sink
    if target is None:
        try:
            target = os.open(os.devnull, os.O_WRONLY)
        except OSError:
            pass
    for fd in (1, 2):
        if target is not None:
            try:
                os.dup2(target, fd)
            except OSError:
                pass
    return pipes


_CURRENT: list[HostPipes] = []


def _forget_in_children(pipes: HostPipes) -> None:
    """RT3-M9: a child the judge forks without exec (os.fork, multiprocessing) closes the host's
    pipes, so they reach EOF when the hook exits; close-on-exec only covers exec."""
    if not _CURRENT:
        os.register_at_fork(after_in_child=_close_host_pipes)
    _CURRENT[:] = [pipes]


def _close_host_pipes() -> None:
    for pipes in _CURRENT:
        for fd in (pipes.out, pipes.err):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        pipes.out = pipes.err = None
    _CURRENT.clear()


def open_sink() -> int | None:
    """An unnamed file for the judge's output (close-on-exec, above fd 2), or None."""
    folder = os.environ.get("TMPDIR") or "/tmp"
    flags = os.O_RDWR | os.O_CLOEXEC
    fd = None
    unnamed = getattr(os, "O_TMPFILE", 0)
    if unnamed:
        try:
            fd = os.open(folder, flags | unnamed, 0o600)
        except OSError:
            pass
    if fd is None:
        name = os.path.join(folder, f".acp-judge-{os.getpid()}-{time.monotonic_ns()}")
        try:
            fd = os.open(name, flags | os.O_CREAT | os.O_EXCL, 0o600)
            os.unlink(name)
        except OSError:
            return None
    if fd <= 2:  # fd 0, 1 or 2 was closed: keep the sink off the descriptors it is copied onto
        moved = _copy_above_two(fd)
        os.close(fd)
        fd = moved
    return fd


def _copy_above_two(fd: int) -> int:
    """A close-on-exec copy of fd numbered above 2, as fcntl(F_DUPFD_CLOEXEC, 3) makes one."""
    # Above 2, so a closed fd 0, 1 or 2 is not reused, and close-on-exec (os.dup's copies are
    # non-inheritable, PEP 446), so no child of the judge holds the host's pipe open past this
    # process (M4). os, not fcntl: fcntl is a shared library a hook call would load for this.
    low = []
    try:
        copy = os.dup(fd)
        while copy <= 2:
            low.append(copy)
            copy = os.dup(fd)
    finally:
        for extra in low:
            os.close(extra)
    return copy


# Until run_hook_entry isolates them, the host's pipes are fds 1 and 2 (emit, tests).
DIRECT: Final = HostPipes(1, 2)


def stderr_text(response: NativeResponse) -> str:
    """The response's stderr text, kept from reading as a JSON answer where stdout is empty."""
    text = response.stderr if response.stderr is not ABSENT else ""
    if text and response.stdout is ABSENT:
        # L2: Gemini parses stdout.trim() || stderr.trim() as JSON, so a reason that is JSON
        # ('{"decision":"allow"}', '403') must never be read as the decision.
        return unreadable_as_json(text)
    return text


def write_response(
    response: NativeResponse,
    body: bytes | None = None,
    pipes: HostPipes = DIRECT,
    notes: tuple[str, ...] | list[str] = (),
    agent: str = "acp",
) -> None:
    """Write the body (serialized now unless given) to stdout, then the judge's output and stderr."""
    if body is None and response.stdout is not ABSENT:
        try:
            body = json_bytes(response.stdout)
        except (TypeError, ValueError):  # checked on the main path; a failure body is plain JSON
            body = None
    if body is not None:
        put(pipes.out, body)
    err = pipes.judge_output() + stderr_text(response).encode("utf-8", errors="replace")
    if notes:
        lines = "".join(f"acp-{agent}-hook: {' '.join(note.split())}\n" for note in notes)
        err += (b"\n" if err and not err.endswith(b"\n") else b"") + lines.encode(
            "utf-8", errors="replace"
        )
    if err:
        put(pipes.err, err)
