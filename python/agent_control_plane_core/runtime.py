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
    Decisions,
    IntegrationModes,
    VerdictFields,
)
from ._generated.models.native_response_schema import NativeResponse
from ._generated.models.tool_call_event_schema import ToolCallEvent
from ._generated.models.verdict_schema import Verdict
from ._model_base import ABSENT
from .adapters import Adapter, adapter_for
from .contract import block_reason, json_bytes, sanitize_verdict

__all__ = [
    "AUDIT_ENV",
    "CODEX_VERSION_ENV",
    "FAIL_CLOSED_ENV",
    "JUDGE_ENV",
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

Judge = Callable[[ToolCallEvent], "Verdict | Mapping[str, Any] | None"]
"""A guardrail: one normalized event in, a verdict (or a mapping with a decision) out."""

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
        # contract.md §7: ACP_FAIL_CLOSED=1 makes every failure the host's block (its declared
        # block_response, exit 2 by default) with a non-empty reason. Only a transport that can
        # veto is promised to block (native-response.schema.json).
        blocking: Mapping[str, object] | None = getattr(adapter, "BLOCK_STDOUT", declared)
        return NativeResponse(
            transport=adapter.INTEGRATION_MODE,
            exit_code=getattr(adapter, "BLOCK_EXIT_CODE", _BLOCK_EXIT),
            enforced=adapter.INTEGRATION_MODE != IntegrationModes.OBSERVE_ONLY,
            stdout=ABSENT if blocking is None else dict(blocking),
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

    __slots__ = ("body", "event", "response", "verdict")

    def __init__(
        self,
        response: NativeResponse,
        event: ToolCallEvent | None = None,
        verdict: Verdict | None = None,
        body: bytes | None = None,
    ) -> None:
        self.response = response
        self.event = event
        self.verdict = verdict
        # The stdout body already serialized, when the pipeline checked it could be.
        self.body = body


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
    problem = _unusable(answer)
    if problem is not None:
        return failed(problem, event)
    try:
        # A present but invalid decision is clamped to ask, not treated as a failure (§7).
        verdict = sanitize_verdict(answer)
        response = render_escalated(adapter, verdict, event, sole_gate=sole_gate)
        # Serialized here, once: a body that cannot be written is a failed answer.
        body = None if response.stdout is ABSENT else json_bytes(response.stdout)
    except Exception as exc:
        return failed(f"render failed ({type(exc).__name__}: {exc})", event)
    return HookAnswer(response, event, verdict, body)


def _unusable(answer: object) -> str | None:
    """Why a judge's answer carries no decision at all, or None when it has one."""
    if answer is None:
        return "judge returned None, not a verdict"
    if isinstance(answer, Verdict):
        return None
    if not isinstance(answer, Mapping):
        return f"judge returned a {type(answer).__name__}, not a verdict or mapping"
    if VerdictFields.DECISION not in answer:
        return f"judge returned a mapping without {VerdictFields.DECISION!r}"
    return None


def read_stdin() -> str:
    """The whole of stdin as text (undecodable bytes replaced, so a bad byte is not a crash)."""
    return sys.stdin.buffer.read().decode("utf-8", errors="replace")


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


def _write_response(response: NativeResponse, body: bytes | None = None) -> None:
    """Write the body (serialized now unless given) to fd 1, then the stderr text to fd 2."""
    for stream in (sys.stdout, sys.stderr):
        # Anything a judge printed goes out before the body, not after it.
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    if body is None and response.stdout is not ABSENT:
        body = json_bytes(response.stdout)
    if body is not None:
        _write_all(1, body)
    if response.stderr is not ABSENT and response.stderr:
        _write_all(2, response.stderr.encode("utf-8", errors="replace"))


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


def _timeout_seconds(environ: Mapping[str, str]) -> float | None:
    """ACP_HOOK_TIMEOUT_MS in seconds; anything but a positive integer gets a note and no deadline."""
    text = environ.get(TIMEOUT_ENV)
    if text is None:
        return None
    stripped = text.strip()
    if stripped.isascii() and stripped.isdigit() and int(stripped) > 0:
        return int(stripped) / 1000
    sys.stderr.write(
        f"acp hook: {TIMEOUT_ENV}={text!r} is not a positive integer of milliseconds;"
        " running without a deadline\n"
    )
    return None


class _Answer:
    """Lets exactly one of the main path and the deadline watchdog write the response."""

    def __init__(self) -> None:
        self._lock: Any = None

    def arm(
        self,
        seconds_left: float,
        on_expire: Callable[[], NativeResponse],
        after: Callable[[HookAnswer], None],
    ) -> None:
        """Start a watchdog that answers with on_expire() once seconds_left have passed."""
        import threading

        self._lock = threading.Lock()

        def watch() -> None:
            time.sleep(max(0.0, seconds_left))
            if self._lock.acquire(blocking=False):
                response = on_expire()
                _write_response(response)
                after(HookAnswer(response))
                # The judge may be mid-computation on the main thread: leave without waiting.
                os._exit(response.exit_code)

        threading.Thread(target=watch, name="acp-deadline", daemon=True).start()

    def send(self, outcome: HookAnswer, after: Callable[[HookAnswer], None]) -> NoReturn:
        """Write the response, then run after (the audit), and exit; unless the watchdog answered."""
        if self._lock is not None and not self._lock.acquire(blocking=False):
            while True:  # the watchdog is writing its answer and will end the process
                time.sleep(3600)
        _write_response(outcome.response, outcome.body)
        # After the response: an audit diagnostic must not run into the block reason on stderr.
        after(outcome)
        os._exit(outcome.response.exit_code)


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
    fail_closed = env.get(FAIL_CLOSED_ENV) == "1"
    answer = _Answer()

    def audit(outcome: HookAnswer) -> None:
        _audit(env, adapter, outcome, started)

    timeout = _timeout_seconds(env)
    if timeout is not None:

        def expired() -> NativeResponse:
            return failure_response(
                adapter,
                f"no answer within {TIMEOUT_ENV}={env.get(TIMEOUT_ENV)}",
                fail_closed=fail_closed,
            )

        # contract.md §7: the deadline counts from process start, not from this call.
        answer.arm(timeout - _process_age(), expired, audit)
    real_stdout = sys.stdout
    # A judge's print() must not land in the body the host parses; send it to stderr instead.
    sys.stdout = sys.stderr
    try:
        raw = read_stdin()
        if judge is None:
            judge = judge_from_env(env)
        outcome = _hook_answer(
            adapter, raw, judge, sole_gate=sole_gate, fail_closed=fail_closed, environ=env
        )
    except JudgeLoadError as exc:
        outcome = HookAnswer(failure_response(adapter, str(exc), fail_closed=fail_closed))
    except BaseException as exc:  # no fault may leave the host without its answer
        outcome = HookAnswer(
            failure_response(
                adapter, f"hook failed ({type(exc).__name__}: {exc})", fail_closed=fail_closed
            )
        )
    finally:
        sys.stdout = real_stdout
    answer.send(outcome, audit)


def judge_from_env(environ: Mapping[str, str]) -> Judge:
    """The judge a hook entry uses: ACP_POLICY's rule file, else ACP_JUDGE, else the demo judge."""
    policy = environ.get(POLICY_ENV)
    if policy:
        from .policy import load_policy_judge

        return load_policy_judge(policy)
    spec = environ.get(JUDGE_ENV)
    return load_judge(spec) if spec else demo_judge


def _audit(
    environ: Mapping[str, str], adapter: Adapter, outcome: HookAnswer, started: float
) -> None:
    """Append the call to ACP_AUDIT_LOG when set; a failed write never changes the answer."""
    path = environ.get(AUDIT_ENV)
    if not path:
        return
    try:
        from .audit import append_hook_record

        append_hook_record(
            path,
            agent=adapter.AGENT,
            event=outcome.event,
            verdict=outcome.verdict,
            response=outcome.response,
            duration_ms=(time.monotonic() - started) * 1000,
        )
    except Exception as exc:  # the audit trail is advisory; the decision stands
        # A separate line after the response's own stderr text (see _Answer.send).
        _write_all(
            2, f"\nacp-{adapter.AGENT}-hook: audit log {path!r} not written ({exc})\n".encode()
        )
