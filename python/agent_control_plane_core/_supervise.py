"""The fail-closed hook's judge in a forked child, so that a judge killed by a signal still blocks."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable

from ._generated.models.native_response_schema import NativeResponse
from ._generated.models.tool_call_event_schema import ToolCallEvent
from ._generated.models.verdict_schema import Verdict
from ._plumbing import HookAnswer, HostPipes, write_all

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

__all__ = ["supervised"]

# How long the child outlives the deadline before SIGALRM ends it: the parent answers at the
# deadline itself, and a judge still computing must not run on after the hook has answered.
_CHILD_GRACE_S: Final = 1.0
_READ_SIZE: Final = 1 << 20


def supervised(
    decide: Callable[[], HookAnswer],
    pipes: HostPipes,
    notes: list[str],
    died: Callable[[str], HookAnswer],
    *,
    detail: bool,
    seconds_left: float | None,
) -> HookAnswer:
    """decide() run in a forked child; died(diagnostic) when the child ends without an answer."""
    # A judge that lifts the recursion limit and recurses through C (json.dumps, functools.reduce)
    # overflows the C stack: SIGSEGV, which Claude, Codex and Gemini read as "run the call", even
    # under ACP_FAIL_CLOSED=1. Only a process that outlives the judge can still block.
    try:
        read_fd, write_fd = os.pipe()
    except OSError:
        return decide()
    # RT3-M1: an ignored SIGCHLD (inherited across exec) makes the kernel reap the child, and
    # waitpid then fails; the child's status must stay ours to read.
    _default_sigchld()
    try:
        pid = _fork()
    except OSError:  # no process to spare: the judge runs here, as without supervision
        os.close(read_fd)
        os.close(write_fd)
        return decide()
    if pid == 0:
        os.close(read_fd)
        _child(decide, pipes, notes, write_fd, detail=detail, seconds_left=seconds_left)
    os.close(write_fd)
    # RT3-L1: nothing the child sends (or fails to send) escapes as an exception here.
    try:
        message = _receive(read_fd)
    except Exception as exc:
        message = None
        notes.append(f"the judge's answer could not be read ({type(exc).__name__})")
    finally:
        os.close(read_fd)
    try:
        _, status = os.waitpid(pid, 0)
        ended = _how_it_ended(status)
    except ChildProcessError:
        ended = "ended (its status was reaped elsewhere)"
    if message is not None:
        try:
            return _decode(message, notes)
        except Exception as exc:
            return died(f"the judge's process sent an unreadable answer ({exc})")
    return died(f"the judge's process {ended} before answering")


def _default_sigchld() -> None:
    if TYPE_CHECKING:
        import signal as _signal
    else:
        import _signal

    try:
        if _signal.getsignal(_signal.SIGCHLD) == _signal.SIG_IGN:
            _signal.signal(_signal.SIGCHLD, _signal.SIG_DFL)
    except (ValueError, OSError):  # not the main thread: leave it
        pass


def _fork() -> int:
    """os.fork(), without Python 3.12's warning about forking with threads (the deadline's)."""
    if sys.version_info < (3, 12):  # no warning to silence, and warnings stays unloaded
        return os.fork()
    import warnings

    # Under PYTHONWARNINGS=error the warning would raise in the parent after the child exists.
    # The child only runs the judge on its main thread, which is what the warning is about.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return os.fork()


def _how_it_ended(status: int) -> str:
    """'was killed by SIGSEGV' or 'exited with code 0', from a waitpid status."""
    if os.WIFSIGNALED(status):
        import signal

        number = os.WTERMSIG(status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        return f"was killed by {name}"
    return f"exited with code {os.WEXITSTATUS(status)}"


def _child(
    decide: Callable[[], HookAnswer],
    pipes: HostPipes,
    notes: list[str],
    write_fd: int,
    *,
    detail: bool,
    seconds_left: float | None,
) -> None:
    """Run decide(), send its outcome to the parent, and end; never returns."""
    try:
        # M4: only the parent holds the host's pipes, so they reach EOF when it exits.
        for fd in (pipes.out, pipes.err):
            if fd is not None:
                os.close(fd)
        pipes.out = pipes.err = None
        # The parent's deadline handler would answer from here; timers are not inherited.
        # (_signal, the C module: `signal` builds its IntEnums on import, see _deadline.)
        if seconds_left is not None:
            if TYPE_CHECKING:  # typeshed describes the same functions under signal
                import signal as _signal
            else:
                import _signal

            _signal.signal(_signal.SIGALRM, _signal.SIG_DFL)
            _signal.setitimer(_signal.ITIMER_REAL, max(seconds_left, 0.0) + _CHILD_GRACE_S)
        before = len(notes)
        outcome = decide()
        try:
            message = _encode(outcome, notes[before:], detail=detail)
        except Exception as exc:  # the parent names it and blocks
            message = json.dumps({"error": f"{type(exc).__name__}: {exc}"}).encode()
        for stream in (sys.stdout, sys.stderr):
            # What the judge printed goes to the sink, which the parent relays.
            try:  # a judge may have closed or replaced them
                stream.flush()
            except Exception:
                pass
        write_all(write_fd, b"%d\n" % len(message) + message)
    finally:
        os._exit(0)


def _encode(outcome: HookAnswer, notes: list[str], *, detail: bool) -> bytes:
    """The outcome as JSON: response, body text, notes; event and verdict when audited."""
    response = outcome.response.to_dict()
    body = outcome.body
    if body is not None:
        # The body travels as the bytes already serialized (and checked), not a second time.
        response.pop("stdout", None)
    message: dict[str, Any] = {
        "response": response,
        "body": None if body is None else body.decode("utf-8", "surrogateescape"),
        "unrendered": list(outcome.unrendered),
        "notes": list(outcome.notes),
        "entry_notes": notes,
        "failure": outcome.failure,
        "rule": outcome.rule,
    }
    if detail:
        with_detail = {
            **message,
            "event": None if outcome.event is None else outcome.event.to_dict(),
            "verdict": None if outcome.verdict is None else outcome.verdict.to_dict(),
        }
        try:
            return json.dumps(with_detail).encode()
        except (TypeError, ValueError, RecursionError):
            pass  # the audit record goes without them; the answer is what matters
    return json.dumps(message).encode()


def _receive(fd: int) -> bytes | None:
    """The child's whole message, or None when the pipe ends before it is complete."""
    # Length-prefixed, so a grandchild of the judge that holds the pipe open delays nothing.
    data = bytearray()
    size: int | None = None
    while size is None or len(data) < size:
        chunk = os.read(fd, _READ_SIZE)
        if not chunk:
            return None
        data += chunk
        if size is None and b"\n" in data:
            head, _, rest = bytes(data).partition(b"\n")
            if not head.isdigit() or len(head) > 12:
                return None
            size = int(head)
            data = bytearray(rest)
    return bytes(data[:size])


def _decode(message: bytes, notes: list[str]) -> HookAnswer:
    """The HookAnswer the child sent, with its entry notes added to notes."""
    doc = json.loads(message)
    if "error" in doc:
        raise ValueError(doc["error"])
    fields = dict(doc["response"])
    body = doc["body"]
    if body is not None:
        fields["stdout"] = {}  # present: the body written is the bytes below
    notes.extend(str(note) for note in doc["entry_notes"])
    event, verdict = doc.get("event"), doc.get("verdict")
    return HookAnswer(
        NativeResponse(**fields),
        None if event is None else _rebuild(ToolCallEvent, event),
        None if verdict is None else _rebuild(Verdict, verdict),
        None if body is None else body.encode("utf-8", "surrogateescape"),
        tuple(doc["unrendered"]),
        tuple(doc["notes"]),
        doc.get("failure"),
        doc.get("rule"),
    )


def _rebuild(cls: type[Any], data: dict[str, Any]) -> Any:
    """A model from its to_dict() form, through its own __init__ (from_dict loads dataclasses)."""
    nested = cls._nested_models()
    fields = {}
    for key, value in data.items():
        model = nested.get(key)
        fields[key] = (
            _rebuild(model, value) if model is not None and isinstance(value, dict) else value
        )
    return cls(**fields)
