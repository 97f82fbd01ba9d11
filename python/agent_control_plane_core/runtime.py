"""Hook runtime: escalation, stdin and stdout plumbing, judges, the deadline and failure postures."""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, Final, NoReturn

from ._generated.constants import (
    MODELED_TOOL_INPUT_KEYS,
    ContentFields,
    Decisions,
    IntegrationModes,
    UnrenderedPosture,
    UnrenderedPostures,
    VerdictFields,
)
from ._generated.models.native_response_schema import NativeResponse
from ._generated.models.tool_call_event_schema import ToolCallEvent
from ._generated.models.verdict_schema import Verdict
from ._model_base import ABSENT
from .adapters import Adapter, adapter_for
from .contract import block_reason, json_bytes, present, sanitize_verdict

__all__ = [
    "AUDIT_ENV",
    "CODEX_VERSION_ENV",
    "FAIL_CLOSED_ENV",
    "JUDGE_ENV",
    "ON_UNRENDERED_ENV",
    "POLICY_ENV",
    "TIMEOUT_ENV",
    "HookAnswer",
    "Judge",
    "JudgeLoadError",
    "demo_judge",
    "emit",
    "entry_adapter",
    "escalate",
    "failure_response",
    "judge_from_env",
    "load_judge",
    "read_stdin",
    "render_escalated",
    "render_hook_response",
    "run_hook_entry",
]

JUDGE_ENV: Final = "ACP_JUDGE"
FAIL_CLOSED_ENV: Final = "ACP_FAIL_CLOSED"
TIMEOUT_ENV: Final = "ACP_HOOK_TIMEOUT_MS"
POLICY_ENV: Final = "ACP_POLICY"
AUDIT_ENV: Final = "ACP_AUDIT_LOG"
CODEX_VERSION_ENV: Final = "ACP_CODEX_VERSION"
ON_UNRENDERED_ENV: Final = "ACP_ON_UNRENDERED"

Judge = Callable[[ToolCallEvent], "Verdict | Mapping[str, Any]"]
"""A guardrail: one normalized event in, a verdict (or a mapping with a decision) out; None fails."""

# contract.md §7: the default judge denies a shell command that runs rm -rf.
_DEMO_PATTERN: Final = r"rm\s+-rf"  # re caches the compiled form; nothing compiles at import
_DEMO_REASON: Final = "demo policy: rm -rf blocked"
# contract.md §6: exit 2 is the block every external-hook host reads when render has no channel.
_BLOCK_EXIT: Final = 2


class JudgeLoadError(Exception):
    """ACP_JUDGE (or --judge) names no usable callable."""


def demo_judge(event: ToolCallEvent) -> Verdict:
    """Deny a shell command matching rm -rf; allow everything else."""
    # The input key comes from tool-input-keys.json, so Amp's cmd (renamed on parse) matches too.
    key = MODELED_TOOL_INPUT_KEYS.get(event.tool) if isinstance(event.tool, str) else None
    command = event.input.get(key) if key is not None else None
    if isinstance(command, str) and re.search(_DEMO_PATTERN, command):
        return Verdict(decision=Decisions.DENY, reason=_DEMO_REASON)
    return Verdict(decision=Decisions.ALLOW)


def load_judge(spec: str) -> Judge:
    """Import the judge named module:attribute (attribute may be dotted) the normal way."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise JudgeLoadError(
            f"judge {spec!r} is not module:callable; write it like mypackage.policy:judge"
        )
    import importlib

    try:
        found: Any = importlib.import_module(module_name)
    except Exception as exc:  # an import can fail in any way the judge's own code does
        raise JudgeLoadError(
            f"judge {spec!r}: cannot import {module_name!r} ({type(exc).__name__}: {exc});"
            " check PYTHONPATH or the installed packages"
        ) from exc
    for part in attr.split("."):
        try:
            found = getattr(found, part)
        except AttributeError as exc:
            raise JudgeLoadError(
                f"judge {spec!r}: {module_name} has no attribute {attr!r}"
            ) from exc
    if not callable(found):
        raise JudgeLoadError(f"judge {spec!r} is a {type(found).__name__}, not a callable")
    judge: Judge = found
    return judge


def entry_adapter(agent: str, environ: Mapping[str, str] | None = None, **options: Any) -> Adapter:
    """The adapter a hook entry or the CLI uses: options from the environment, explicit ones winning."""
    base = adapter_for(agent)
    env_names: Mapping[str, str] = getattr(base, "ENV_OPTIONS", {})
    env = os.environ if environ is None else environ
    from_env = {option: env[name] for option, name in env_names.items() if env.get(name)}
    merged = {**from_env, **{k: v for k, v in options.items() if v is not None}}
    return base.configure(**merged) if merged else base


def render_escalated(
    adapter: Adapter, verdict: Verdict, event: ToolCallEvent, *, sole_gate: bool = False
) -> NativeResponse:
    """Render, then turn an unenforced non-allow on a vetoable call into a block (contract.md §6)."""
    response = adapter.render(verdict, event, sole_gate=sole_gate)
    return escalate(adapter, verdict, event, response, sole_gate=sole_gate)


def escalate(
    adapter: Adapter,
    verdict: Verdict,
    event: ToolCallEvent,
    response: NativeResponse,
    *,
    sole_gate: bool = False,
) -> NativeResponse:
    """render_escalated given the plain render already made; returns that same object when kept."""
    if verdict.decision == Decisions.ALLOW:
        return response
    meta = event.meta
    if meta.native_event == "" and meta.integration_mode != IntegrationModes.OBSERVE_ONLY:
        # A payload naming no event has no body channel; the exit code is the one signal left.
        return NativeResponse(
            transport=response.transport,
            exit_code=_BLOCK_EXIT,
            enforced=True,
            stderr=block_reason(verdict, adapter.DEFAULT_BLOCK_REASON),
        )
    if event.this_call_vetoable and not response.enforced:
        if verdict.decision == Decisions.ASK and adapter.NATIVE_ASK_TIER:
            return response  # the host does the asking
        return adapter.render(replace(verdict, decision=Decisions.DENY), event, sole_gate=sole_gate)
    return response


def failure_response(adapter: Adapter, diagnostic: str, *, fail_closed: bool) -> NativeResponse:
    """The response a hook entry gives when it cannot answer: the host's posture, or a block."""
    # One line on stderr: hosts show it verbatim, and a newline would split the diagnostic.
    text = " ".join(diagnostic.split())
    prefix = f"acp-{adapter.AGENT}-hook"
    # A host that reads a body even from a failed hook (copilot's deny) gets the declared one.
    declared: Mapping[str, object] | None = getattr(adapter, "FAILURE_STDOUT", None)
    body = ABSENT if declared is None else dict(declared)
    if fail_closed:
        # contract.md §7: ACP_FAIL_CLOSED=1 makes every failure exit 2 with a non-empty reason.
        # Only a transport that can veto is promised to block (native-response.schema.json).
        return NativeResponse(
            transport=adapter.INTEGRATION_MODE,
            exit_code=_BLOCK_EXIT,
            enforced=adapter.INTEGRATION_MODE != IntegrationModes.OBSERVE_ONLY,
            stdout=body,
            stderr=f"{prefix}: {text}; blocked because {FAIL_CLOSED_ENV}=1",
        )
    code = adapter.FAILURE_EXIT_CODE
    runs = code == 0 and declared is None
    posture = "the host runs the call" if runs else f"exit {code}, the host's failure answer"
    return NativeResponse(
        transport=adapter.INTEGRATION_MODE,
        exit_code=code,
        enforced=False,
        stdout=body,
        stderr=f"{prefix}: {text}; {posture} (set {FAIL_CLOSED_ENV}=1 to block instead)",
    )


def render_hook_response(
    adapter: Adapter,
    raw_text: str,
    judge: Judge,
    *,
    sole_gate: bool = False,
    fail_closed: bool = False,
    environ: Mapping[str, str] | None = None,
) -> NativeResponse:
    """Decode, parse, judge, sanitize and escalate one hook payload; any failure gets the posture."""
    return _hook_answer(
        adapter, raw_text, judge, sole_gate=sole_gate, fail_closed=fail_closed, environ=environ
    ).response


class HookAnswer:
    """One hook call's outcome: the response, and the event and verdict when they got that far."""

    __slots__ = ("body", "event", "notes", "response", "unrendered", "verdict")

    def __init__(
        self,
        response: NativeResponse,
        event: ToolCallEvent | None = None,
        verdict: Verdict | None = None,
        body: bytes | None = None,
        unrendered: tuple[str, ...] = (),
        notes: tuple[str, ...] = (),
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


def _hook_answer(
    adapter: Adapter,
    raw_text: str,
    judge: Judge,
    *,
    sole_gate: bool,
    fail_closed: bool,
    environ: Mapping[str, str] | None,
) -> HookAnswer:
    def failed(diagnostic: str, event: ToolCallEvent | None = None) -> HookAnswer:
        return HookAnswer(failure_response(adapter, diagnostic, fail_closed=fail_closed), event)

    try:
        payload = json.loads(raw_text)
    except (ValueError, RecursionError) as exc:  # RecursionError: nesting deeper than the parser
        return failed(f"payload is not JSON ({exc})")
    if not isinstance(payload, dict):
        return failed(f"payload is a JSON {type(payload).__name__}, not an object")
    try:
        prepare = getattr(adapter, "hook_payload", None)
        if prepare is not None and environ is not None:
            payload = prepare(payload, environ)
        event = adapter.parse(payload)
    except Exception as exc:  # an adapter bug must still get the host's posture
        return failed(f"parse failed ({type(exc).__name__}: {exc})")
    try:
        answer = judge(event)
    except BaseException as exc:  # even SystemExit from a judge is a failed answer
        return failed(f"judge raised {type(exc).__name__}: {exc}", event)
    try:
        problem = _unusable(answer)
    except Exception as exc:  # a Mapping whose methods raise is the judge's failure too
        problem = f"judge returned an unreadable mapping ({type(exc).__name__}: {exc})"
    if problem is not None:
        return failed(problem, event)
    notes: list[str] = []
    posture = _unrendered_posture(environ or {}, notes)
    try:
        # A present but invalid decision is clamped to ask, not treated as a failure (§7).
        verdict = sanitize_verdict(answer)
        response = render_escalated(adapter, verdict, event, sole_gate=sole_gate)
        # After render_escalated, whose contract stays: what the host cannot carry (issue 17).
        dropped = _unrendered_fields(adapter, verdict, event, response)
        if dropped:
            response, note = _apply_unrendered(
                adapter, verdict, event, response, dropped, posture, sole_gate=sole_gate
            )
            if note is not None:
                notes.append(note)
        # Serialized here, once: a body that cannot be written (NaN, a set) is a failed answer.
        body = None if response.stdout is ABSENT else json_bytes(response.stdout)
    except Exception as exc:
        return failed(f"render failed ({type(exc).__name__}: {exc})", event)
    return HookAnswer(response, event, verdict, body, dropped, tuple(notes))


def _unrendered_fields(
    adapter: Adapter, verdict: Verdict, event: ToolCallEvent, response: NativeResponse
) -> tuple[str, ...]:
    """The verdict's content fields the host has no channel for on this event (declaration order)."""
    cannot = adapter.UNRENDERED_FIELDS.get(event.event, frozenset(ContentFields.ALL))
    if not cannot:
        return ()
    # A rewrite of a call that is not going to run (a deny, an escalated block) loses nothing.
    blocked = verdict.decision == Decisions.DENY or response.enforced
    return tuple(
        name
        for name in ContentFields.ALL
        if name in cannot
        and present(getattr(verdict, name))
        and not (blocked and name == ContentFields.MUTATED_INPUT)
    )


# Fields whose loss runs something other than what the verdict allowed (the original command,
# the unredacted output): the safe default denies them where the call can still be stopped.
_CHANGES_THE_CALL: Final = frozenset({ContentFields.MUTATED_INPUT, ContentFields.MUTATED_OUTPUT})


def _unrendered_posture(environ: Mapping[str, str], notes: list[str]) -> UnrenderedPosture:
    """ACP_ON_UNRENDERED (deny, note or allow); a value not understood is noted and denies."""
    text = environ.get(ON_UNRENDERED_ENV)
    if text is None or not text.strip():
        return UnrenderedPostures.DENY
    value = text.strip().lower()
    for posture in UnrenderedPostures.ALL:
        if value == posture:
            return posture
    notes.append(
        f"{ON_UNRENDERED_ENV}={text!r} is not one of {', '.join(UnrenderedPostures.ALL)};"
        f" using {UnrenderedPostures.DENY}"
    )
    return UnrenderedPostures.DENY


def _apply_unrendered(
    adapter: Adapter,
    verdict: Verdict,
    event: ToolCallEvent,
    response: NativeResponse,
    dropped: tuple[str, ...],
    posture: UnrenderedPosture,
    *,
    sole_gate: bool,
) -> tuple[NativeResponse, str | None]:
    """The response under ACP_ON_UNRENDERED, and the one-line note for stderr (None: silent)."""
    what = f"{adapter.AGENT} has no channel for {' or '.join(dropped)} on {event.event}"
    stoppable = event.this_call_vetoable and not response.enforced
    if (
        posture == UnrenderedPostures.DENY
        and stoppable
        and verdict.decision != Decisions.DENY
        and _CHANGES_THE_CALL.intersection(dropped)
    ):
        # Running the original call instead of the rewrite, or passing the unredacted output
        # on, is a fail-open (issue 17): deny where the host can still stop it.
        refusal = Verdict(
            decision=Decisions.DENY,
            reason=f"{what}, so the call is denied rather than run without it"
            f" (set {ON_UNRENDERED_ENV}=note to let it run)",
        )
        denied = render_escalated(adapter, refusal, event, sole_gate=sole_gate)
        return denied, f"{what}: denied ({ON_UNRENDERED_ENV}={posture})"
    if posture == UnrenderedPostures.ALLOW:
        return response, None
    return response, f"{what}: dropped from the answer ({ON_UNRENDERED_ENV}={posture})"


def _unusable(answer: object) -> str | None:
    """Why a judge's answer carries no decision at all, or None when it has one."""
    if answer is None:
        return "judge returned None, not a verdict (return a verdict with a decision)"
    if isinstance(answer, Verdict):
        return None
    if not isinstance(answer, Mapping):
        return f"judge returned a {type(answer).__name__}, not a verdict or mapping"
    unknown = sorted(repr(key) for key in answer if key not in VerdictFields.ALL)
    if unknown:
        # A misspelt field (mutated_ouput) would drop the redaction it was meant to carry.
        return (
            f"judge returned unknown verdict field(s) {', '.join(unknown)}"
            f" (known: {', '.join(VerdictFields.ALL)})"
        )
    if VerdictFields.DECISION not in answer:
        return f"judge returned a mapping without {VerdictFields.DECISION!r}"
    return None


def read_stdin() -> str:
    """The whole of stdin as UTF-8 text; raises UnicodeDecodeError on bytes that are not."""
    # A payload that cannot be decoded is not an event: the hook entry gives its failure posture.
    return sys.stdin.buffer.read().decode("utf-8")


def _write_all(fd: int, data: bytes) -> None:
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


def _put(fd: int | None, data: bytes) -> bool:
    """Write data to fd when there is one; a failed write (EPIPE, a full disk) returns False."""
    if fd is None:
        return False
    try:
        _write_all(fd, data)
    except (OSError, ValueError):  # M3: a write that fails must not change the exit code
        return False
    return True


# Bytes of a judge's own output (print, child processes, fd 1 writes) relayed to the host's
# stderr: a host that never reads stderr must not block the answer on a full pipe.
_JUDGE_OUTPUT_LIMIT: Final = 16 * 1024


class _HostPipes:
    """The host's stdout and stderr on private descriptors, and the sink the judge writes to."""

    __slots__ = ("err", "out", "sink")

    def __init__(self, out: int | None, err: int | None, sink: int | None = None) -> None:
        self.out = out
        self.err = err
        self.sink = sink

    def judge_output(self) -> bytes:
        """What the judge wrote to fds 1 and 2, cut to the relay limit."""
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):  # a judge may have closed or replaced them
                stream.flush()
        if self.sink is None:
            return b""
        try:
            size = os.fstat(self.sink).st_size
            data = os.pread(self.sink, _JUDGE_OUTPUT_LIMIT, 0)
        except OSError:
            return b""
        if size > len(data):
            data += f"\n[{size - len(data)} more bytes of judge output not shown]\n".encode()
        return data


def _isolate_host_pipes() -> _HostPipes:
    """Move the host's fds 1 and 2 to private close-on-exec copies; give fds 1 and 2 a sink."""
    try:
        import fcntl
    except ImportError:  # no fcntl (Windows): the judge shares the host's descriptors
        return _HostPipes(1, 2)

    def private(fd: int) -> int | None:
        try:
            # Above 2, so a closed fd 1 or 2 is not reused, and close-on-exec, so no child of
            # the judge holds the host's pipe open past this process (M4).
            return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
        except OSError:  # the host closed it: nothing can be written there
            return None

    pipes = _HostPipes(private(1), private(2))
    pipes.sink = _open_sink()
    # The judge, its C extensions and its children write to the sink, never into the body the
    # host parses (M1); the hook relays the sink to the host's stderr when it answers.
    target = pipes.sink
    if target is None:
        with contextlib.suppress(OSError):
            target = os.open(os.devnull, os.O_WRONLY)
    for fd in (1, 2):
        if target is not None:
            with contextlib.suppress(OSError):
                os.dup2(target, fd)
    return pipes


def _open_sink() -> int | None:
    """An unnamed file for the judge's output (close-on-exec, above fd 2), or None."""
    folder = os.environ.get("TMPDIR") or "/tmp"
    flags = os.O_RDWR | os.O_CLOEXEC
    fd = None
    unnamed = getattr(os, "O_TMPFILE", 0)
    if unnamed:
        with contextlib.suppress(OSError):
            fd = os.open(folder, flags | unnamed, 0o600)
    if fd is None:
        name = os.path.join(folder, f".acp-judge-{os.getpid()}-{time.monotonic_ns()}")
        try:
            fd = os.open(name, flags | os.O_CREAT | os.O_EXCL, 0o600)
            os.unlink(name)
        except OSError:
            return None
    if fd <= 2:  # fd 0, 1 or 2 was closed: keep the sink off the descriptors it is copied onto
        import fcntl

        moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
        os.close(fd)
        fd = moved
    return fd


# Until run_hook_entry isolates them, the host's pipes are fds 1 and 2 (emit, tests).
_DIRECT: Final = _HostPipes(1, 2)


def _stderr_text(response: NativeResponse) -> str:
    """The response's stderr text, kept from reading as a JSON answer where stdout is empty."""
    text = response.stderr if response.stderr is not ABSENT else ""
    if text and response.stdout is ABSENT and text.lstrip()[:1] in ("{", "["):
        # L2: Gemini parses stdout.trim() || stderr.trim() as JSON, so a reason that is JSON
        # ('{"decision":"allow"}') must never be read as the decision.
        return f"reason: {text}"
    return text


def _write_response(
    response: NativeResponse,
    body: bytes | None = None,
    pipes: _HostPipes = _DIRECT,
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
        _put(pipes.out, body)
    err = pipes.judge_output() + _stderr_text(response).encode("utf-8", errors="replace")
    if notes:
        lines = "".join(f"acp-{agent}-hook: {' '.join(note.split())}\n" for note in notes)
        err += (b"\n" if err and not err.endswith(b"\n") else b"") + lines.encode(
            "utf-8", errors="replace"
        )
    if err:
        _put(pipes.err, err)


def emit(response: NativeResponse) -> NoReturn:
    """Write the whole native response (body, then stderr) and exit with its code."""
    _write_response(response)
    raise SystemExit(response.exit_code)


def _process_age() -> float:
    """Seconds since this process started (Linux /proc), or 0 where that cannot be read."""
    try:
        with open("/proc/self/stat", "rb") as stat_file:
            stat = stat_file.read()
        # Field 22 (starttime, in clock ticks since boot) counts from after the ")" of the name.
        start_ticks = int(stat[stat.rindex(b")") + 2 :].split()[19])
        now = time.clock_gettime(time.CLOCK_BOOTTIME)
        return max(0.0, now - start_ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError, AttributeError):
        return 0.0


# L8: the longest deadline honoured; a larger value is clamped (time.sleep overflows past ~1e9 s).
_MAX_TIMEOUT_MS: Final = 24 * 60 * 60 * 1000


def _timeout_seconds(environ: Mapping[str, str], notes: list[str] | None = None) -> float | None:
    """ACP_HOOK_TIMEOUT_MS in seconds (clamped to a day); anything else is noted, no deadline."""
    text = environ.get(TIMEOUT_ENV)
    if text is None:
        return None
    said = notes if notes is not None else []
    stripped = text.strip()
    if stripped.isascii() and stripped.isdigit() and int(stripped) > 0:
        value = int(stripped)
        if value > _MAX_TIMEOUT_MS:
            said.append(f"{TIMEOUT_ENV}={text!r} is more than a day; using {_MAX_TIMEOUT_MS} ms")
            value = _MAX_TIMEOUT_MS
        return value / 1000
    said.append(
        f"{TIMEOUT_ENV}={text!r} is not a positive integer of milliseconds;"
        " running without a deadline"
    )
    return None


# M5: the usual spellings, trimmed and in any case; anything else is a configuration error.
_TRUE: Final = frozenset({"1", "true", "yes", "on"})
_FALSE: Final = frozenset({"", "0", "false", "no", "off"})


def _fail_closed(environ: Mapping[str, str], notes: list[str] | None = None) -> bool:
    """ACP_FAIL_CLOSED as a posture: true spellings block, false ones not; others block, noted."""
    text = environ.get(FAIL_CLOSED_ENV)
    if text is None:
        return False
    value = text.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    if notes is not None:
        notes.append(
            f"{FAIL_CLOSED_ENV}={text!r} is not understood (use 1, true, yes or on; 0, false, no"
            " or off); failing closed"
        )
    return True


# Without a deadline the audit still gets a bound of its own (H4).
_AUDIT_BOUND_S: Final = 2.0
# The audit after a deadline answer: the answer is due already.
_LATE_AUDIT_S: Final = 0.1
# How long the watchdog lets a main path that is already answering finish its writes (H4).
_GRACE_S: Final = 1.0


class _Answer:
    """Lets exactly one of the main path and the deadline watchdog write the response."""

    def __init__(self, pipes: _HostPipes, agent: str, notes: list[str]) -> None:
        self._lock: Any = None
        self._deadline: float | None = None
        self._code: int | None = None
        self.pipes = pipes
        self.agent = agent
        self.notes = notes

    def arm(
        self,
        seconds_left: float,
        on_expire: Callable[[], NativeResponse],
        after: Callable[[HookAnswer], None] | None,
        fallback_code: int,
    ) -> None:
        """Start a watchdog that answers with on_expire() once seconds_left have passed."""
        import threading

        self._lock = threading.Lock()
        self._deadline = time.monotonic() + max(0.0, seconds_left)

        def watch() -> None:
            try:
                time.sleep(max(0.0, seconds_left))
                if self._lock.acquire(blocking=False):
                    # The judge may be mid-computation on the main thread: leave without waiting.
                    self._finish(HookAnswer(on_expire()), after, _LATE_AUDIT_S)
                # The main path is answering: let it finish writing, then end with its code.
                time.sleep(_GRACE_S)
                os._exit(fallback_code if self._code is None else self._code)
            except BaseException:  # L8: the deadline never dies silently
                os._exit(fallback_code if self._code is None else self._code)

        threading.Thread(target=watch, name="acp-deadline", daemon=True).start()

    def send(self, outcome: HookAnswer, after: Callable[[HookAnswer], None] | None) -> NoReturn:
        """Write the response, then run after (the audit), and exit; unless the watchdog answered."""
        if self._lock is not None and not self._lock.acquire(blocking=False):
            while True:  # the watchdog is writing its answer and will end the process
                time.sleep(3600)
        left = _AUDIT_BOUND_S
        if self._deadline is not None:
            left = max(_LATE_AUDIT_S, self._deadline - time.monotonic())
        self._finish(outcome, after, left)

    def _finish(
        self, outcome: HookAnswer, after: Callable[[HookAnswer], None] | None, bound: float
    ) -> NoReturn:
        code = outcome.response.exit_code
        self._code = code
        try:
            notes = [*self.notes, *outcome.notes]
            _write_response(outcome.response, outcome.body, self.pipes, notes, self.agent)
            # After the response: an audit diagnostic must not run into the block reason.
            if after is not None and not _within(bound, lambda: after(outcome)):
                _put(
                    self.pipes.err,
                    f"acp-{self.agent}-hook: audit record not written: the log gave no answer"
                    f" within {bound:.2f} s\n".encode(),
                )
        finally:
            # M3: whatever could or could not be written, the exit code is the intended one.
            os._exit(code)


def _within(seconds: float, task: Callable[[], None]) -> bool:
    """Run task on a daemon thread; whether it finished within seconds (H4: a blocked log)."""
    import threading

    worker = threading.Thread(target=task, name="acp-audit", daemon=True)
    worker.start()
    worker.join(seconds)
    return not worker.is_alive()


def run_hook_entry(
    adapter: Adapter,
    judge: Judge | None = None,
    *,
    sole_gate: bool = False,
    environ: Mapping[str, str] | None = None,
) -> NoReturn:
    """A whole hook process: stdin payload in, the host's native answer out, then exit."""
    env = os.environ if environ is None else environ
    started = time.monotonic()
    # Before the judge is imported: nothing it or its children write reaches the host's pipes.
    pipes = _isolate_host_pipes()
    notes: list[str] = []
    fail_closed = _fail_closed(env, notes)
    answer = _Answer(pipes, adapter.AGENT, notes)

    def audit(outcome: HookAnswer) -> None:
        _audit(env, adapter, outcome, started, pipes)

    after = audit if env.get(AUDIT_ENV) else None
    timeout = _timeout_seconds(env, notes)
    if timeout is not None:

        def expired() -> NativeResponse:
            return failure_response(
                adapter,
                f"no answer within {TIMEOUT_ENV}={env.get(TIMEOUT_ENV)}",
                fail_closed=fail_closed,
            )

        # contract.md §7: the deadline counts from process start, not from this call.
        fallback = _BLOCK_EXIT if fail_closed else adapter.FAILURE_EXIT_CODE
        answer.arm(timeout - _process_age(), expired, after, fallback)
    real_stdout = sys.stdout
    # print() goes through sys.stderr's wrapper (its error handler never raises on encoding).
    sys.stdout = sys.stderr
    try:
        notes.extend(_unset_version_notes(adapter, env))
        raw = read_stdin()
        if judge is None:
            judge = judge_from_env(env)
            if judge is demo_judge and env.get("GITHUB_SHA"):
                # GM-3: Gemini CLI drops ACP_* variables from a hook's environment under CI.
                notes.append(
                    "no judge configured: running the demo judge (it blocks only rm -rf) while"
                    f" GITHUB_SHA is set; a host that strips {JUDGE_ENV}/{POLICY_ENV} under CI"
                    " needs the judge in the hook command (acp install --judge/--policy)"
                )
        outcome = _hook_answer(
            adapter, raw, judge, sole_gate=sole_gate, fail_closed=fail_closed, environ=env
        )
    except JudgeLoadError as exc:
        outcome = HookAnswer(failure_response(adapter, str(exc), fail_closed=fail_closed))
    except UnicodeDecodeError as exc:
        outcome = HookAnswer(
            failure_response(
                adapter,
                f"stdin is not UTF-8 (byte {exc.object[exc.start : exc.start + 1]!r} at offset"
                f" {exc.start})",
                fail_closed=fail_closed,
            )
        )
    except BaseException as exc:  # no fault may leave the host without its answer
        outcome = HookAnswer(
            failure_response(
                adapter, f"hook failed ({type(exc).__name__}: {exc})", fail_closed=fail_closed
            )
        )
    finally:
        sys.stdout = real_stdout
    answer.send(outcome, after)


def _unset_version_notes(adapter: Adapter, environ: Mapping[str, str]) -> list[str]:
    """A note per version option of the host (Codex) that neither option nor environment sets."""
    names: Mapping[str, str] = getattr(adapter, "ENV_OPTIONS", {})
    options: Mapping[str, object] = getattr(adapter, "options", {})
    host = adapter.AGENT.capitalize()
    return [
        f"no {host} version configured ({variable}): answers use the form valid on every"
        " supported version"
        for option, variable in names.items()
        if option.endswith("_version") and not options.get(option) and not environ.get(variable)
    ]


def judge_from_env(environ: Mapping[str, str]) -> Judge:
    """The judge a hook entry uses: ACP_POLICY's rule file, else ACP_JUDGE, else the demo judge."""
    for name in (POLICY_ENV, JUDGE_ENV):
        value = environ.get(name)
        if value is not None and not value.strip():
            # L6: a launcher exporting an unset variable must not select the demo judge silently.
            raise JudgeLoadError(f"{name} is set but empty; name a judge or unset it")
    policy = environ.get(POLICY_ENV)
    if policy:
        if not os.path.isabs(policy):
            # L13: a relative path resolves in the project, a folder the agent itself writes to.
            raise JudgeLoadError(
                f"{POLICY_ENV}={policy!r} is relative; give an absolute path (acp install writes"
                " one), so a rule file the agent writes into the project is never loaded"
            )
        from .policy import load_policy_judge

        return load_policy_judge(policy)
    spec = environ.get(JUDGE_ENV)
    return load_judge(spec) if spec else demo_judge


def _audit(
    environ: Mapping[str, str],
    adapter: Adapter,
    outcome: HookAnswer,
    started: float,
    pipes: _HostPipes = _DIRECT,
) -> None:
    """Append the call to ACP_AUDIT_LOG when set; a failed write never changes the answer."""
    path = environ.get(AUDIT_ENV)
    if not path:
        return
    try:
        if not os.path.isabs(path):
            # L13: a relative log lands in the project (secrets in the working tree).
            raise OSError(f"{AUDIT_ENV} must be an absolute path")
        from .audit import append_hook_record

        append_hook_record(
            path,
            agent=adapter.AGENT,
            event=outcome.event,
            verdict=outcome.verdict,
            response=outcome.response,
            duration_ms=(time.monotonic() - started) * 1000,
            unrendered=outcome.unrendered,
        )
    except Exception as exc:  # the audit trail is advisory; the decision stands
        # A separate line after the response's own stderr text (see _Answer.send).
        _put(
            pipes.err,
            f"\nacp-{adapter.AGENT}-hook: audit log {path!r} not written ({exc})\n".encode(),
        )
