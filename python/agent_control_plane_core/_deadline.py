"""The hook deadline: the process's age, ACP_HOOK_TIMEOUT_MS, and the watchdog that answers."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping

from ._generated.models.native_response_schema import NativeResponse
from ._plumbing import HookAnswer, HostPipes, put, write_response

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final, NoReturn

__all__ = ["TIMEOUT_ENV", "Answer", "process_age", "timeout_seconds"]

TIMEOUT_ENV: Final = "ACP_HOOK_TIMEOUT_MS"


def process_age() -> float:
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


def timeout_seconds(environ: Mapping[str, str], notes: list[str] | None = None) -> float | None:
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


# Without a deadline the audit still gets a bound of its own (H4).
_AUDIT_BOUND_S: Final = 2.0
# The audit after a deadline answer: the answer is due already.
_LATE_AUDIT_S: Final = 0.1
# How long the watchdog lets a main path that is already answering finish its writes (H4).
_GRACE_S: Final = 1.0


class Answer:
    """Lets exactly one of the main path and the deadline watchdog write the response."""

    def __init__(self, pipes: HostPipes, agent: str, notes: list[str]) -> None:
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
        self._arm_alarm(seconds_left, on_expire, after)

    def _arm_alarm(
        self,
        seconds_left: float,
        on_expire: Callable[[], NativeResponse],
        after: Callable[[HookAnswer], None] | None,
    ) -> None:
        """Also answer from a SIGALRM handler: it runs inside C calls the watchdog cannot reach."""
        # _signal, the C module: `signal` builds its IntEnum classes on import, about a
        # millisecond of every call (issue 13); the handler and the timer need none of them.
        if TYPE_CHECKING:  # typeshed describes the same functions under signal
            import signal as _signal
        else:
            import _signal
        import threading

        # L7: a catastrophic regular expression holds the interpreter lock, so the watchdog thread
        # never runs; the regex engine does check for signals, and a handler runs there.
        if threading.current_thread() is not threading.main_thread():
            return

        def expire(_signum: int, _frame: object) -> None:
            if self._lock.acquire(blocking=False):
                self._finish(HookAnswer(on_expire()), after, _LATE_AUDIT_S)
            # Otherwise the main path is answering already and ends the process itself.

        try:
            _signal.signal(_signal.SIGALRM, expire)
            # A zero timer would disarm it: the deadline has passed, fire at once.
            _signal.setitimer(_signal.ITIMER_REAL, max(seconds_left, 0.001))
        except (ValueError, OSError):
            pass  # no signals here (not the main interpreter): the watchdog thread still answers

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
            write_response(outcome.response, outcome.body, self.pipes, notes, self.agent)
            # After the response: an audit diagnostic must not run into the block reason.
            if after is not None and not within(bound, lambda: after(outcome)):
                put(
                    self.pipes.err,
                    f"acp-{self.agent}-hook: audit record not written: the log gave no answer"
                    f" within {bound:.2f} s\n".encode(),
                )
        finally:
            # M3: whatever could or could not be written, the exit code is the intended one.
            os._exit(code)


def within(seconds: float, task: Callable[[], None]) -> bool:
    """Run task on a daemon thread; whether it finished within seconds (H4: a blocked log)."""
    import threading

    worker = threading.Thread(target=task, name="acp-audit", daemon=True)
    worker.start()
    worker.join(seconds)
    return not worker.is_alive()
