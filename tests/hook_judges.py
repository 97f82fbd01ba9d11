"""Judges the hook-entry tests name in ACP_JUDGE (tests/ is put on PYTHONPATH for the child)."""

from __future__ import annotations

import os
import time

from agent_control_plane_core import Verdict

# A judge module as cheap as the entry: the hook-path import tests count what it loads too.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Size of the rewritten command the huge-body judge returns: a 10 MB body must arrive whole.
HUGE = 10 * 1024 * 1024


def raises(event: Any) -> Any:
    """A judge with a bug."""
    raise RuntimeError("judge bug")


def exits(event: Any) -> Any:
    """A judge that calls sys.exit(0), which must not become an allow under ACP_FAIL_CLOSED."""
    raise SystemExit(0)


def returns_none(event: Any) -> Any:
    """A judge that forgets to return."""
    return None


def returns_list(event: Any) -> Any:
    """A judge that returns something that is not a verdict."""
    return ["deny"]


def returns_nameless(event: Any) -> Any:
    """A mapping without a decision."""
    return {"reason": "forgot the decision"}


def returns_bad_decision(event: Any) -> Any:
    """A present but invalid decision, which is clamped to ask."""
    return {"decision": "block", "reason": "typo"}


def denies(event: Any) -> Any:
    """Deny everything with a reason."""
    return Verdict(decision="deny", reason="denied by test")


def asks(event: Any) -> Any:
    """Ask on everything."""
    return {"decision": "ask", "reason": "confirm please"}


def prints_then_allows(event: Any) -> Any:
    """A judge that prints; the host must still get a clean body."""
    print("judge chatter on stdout")
    return {"decision": "allow"}


def rewrites_huge(event: Any) -> Any:
    """Allow with a 10 MB rewritten command."""
    return {"decision": "allow", "mutated_input": {**event.input, "command": "x" * HUGE}}


def spins(event: Any) -> Any:
    """Busy in pure Python for 5 s."""
    end = time.monotonic() + 5
    while time.monotonic() < end:
        pass
    return {"decision": "allow"}


def sleeps(event: Any) -> Any:
    """Blocked in a sleep for 5 s."""
    time.sleep(5)
    return {"decision": "allow"}


NOT_CALLABLE = 42


def echo_session(event: Any) -> Any:
    """Deny with the event's session id as the reason, so a test can see what was parsed."""
    return {"decision": "deny", "reason": f"session={event.meta.session_id}"}


def redacts(event: Any) -> Any:
    """Allow, replacing the tool's output (a secret redactor)."""
    return {"decision": "allow", "mutated_output": "[redacted]"}


# ---- the fixture judges of docs/findings.md HELD-JUDGES (tests/test_hardening.py) ---------------


def sys_echo_ask(event: Any) -> Any:
    """A child process writes to the inherited fd 1 (M1)."""
    import os

    os.system("echo hi")
    return {"decision": "ask", "reason": "confirm"}


def fd1_ask(event: Any) -> Any:
    """A write to fd 1 below sys.stdout (M1)."""
    import os

    os.write(1, b"debug\n")
    return {"decision": "ask", "reason": "confirm"}


def child_rewrite(event: Any) -> Any:
    """An uncaptured child, then an allow with a rewrite (M1)."""
    import subprocess

    subprocess.run(["echo", "child"], check=False)
    return {"decision": "allow", "mutated_input": {"command": "ls -1"}}


def child_sleep(event: Any) -> Any:
    """A child inheriting the stdio that outlives the deadline (M4)."""
    import subprocess

    subprocess.run(["sleep", "30"], check=False)
    return {"decision": "allow"}


def bg_child_deny(event: Any) -> Any:
    """Deny at once, leaving a child that holds the inherited pipes (M4)."""
    import subprocess

    subprocess.Popen(["sleep", "30"])
    return {"decision": "deny", "reason": "fixture deny"}


def nan_rewrite(event: Any) -> Any:
    """A rewrite holding a number JSON cannot carry (L1)."""
    return {"decision": "allow", "mutated_input": {"command": "ls", "timeout": float("nan")}}


def json_reason(event: Any) -> Any:
    """A deny whose reason is itself a JSON answer (L2)."""
    return {"decision": "deny", "reason": '{"decision":"allow"}'}


def close_fd1(event: Any) -> Any:
    """Close fd 1, then deny (M3)."""
    import os

    os.close(1)
    return {"decision": "deny", "reason": "fixture deny"}


def stderr_none(event: Any) -> Any:
    """Set sys.stderr to None, then deny (M3)."""
    import sys

    sys.stderr = None  # type: ignore[assignment]
    return {"decision": "deny", "reason": "fixture deny"}


def typo_redact(event: Any) -> Any:
    """A misspelt verdict field (issue 17)."""
    return {"decision": "allow", "mutated_ouput": "[REDACTED]"}


def context(event: Any) -> Any:
    """Allow with context for the model."""
    return {"decision": "allow", "additional_context": "remember the lockfile"}


def rewrites(event: Any) -> Any:
    """Allow with a rewritten command."""
    return {"decision": "allow", "mutated_input": {**event.input, "command": "ls -1"}}


def exits_via_base_exception(event: Any) -> Any:
    """A BaseException that is not an Exception."""
    raise BaseException("odd")


def keyboard_interrupt(event: Any) -> Any:
    raise KeyboardInterrupt


def generator_exit(event: Any) -> Any:
    raise GeneratorExit


def recurses(event: Any) -> Any:
    return recurses(event)


def unserialisable_deny(event: Any) -> Any:
    return {"decision": "deny", "reason": "r", "mutated_input": {"x": {1, 2}}}


def unserialisable_allow(event: Any) -> Any:
    return {"decision": "allow", "mutated_input": {"x": {1, 2}}}


def thread_then_deny(event: Any) -> Any:
    """Deny, leaving a non-daemon thread asleep."""
    import threading

    threading.Thread(target=time.sleep, args=(30,)).start()
    return {"decision": "deny", "reason": "fixture deny"}


def devnull_fd1_deny(event: Any) -> Any:
    import os

    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    return {"decision": "deny", "reason": "fixture deny"}


class _RaisingMapping(dict):  # type: ignore[type-arg]
    def __iter__(self) -> Any:
        raise RuntimeError("no keys for you")

    def __contains__(self, key: object) -> bool:
        raise RuntimeError("no keys for you")


def raising_mapping(event: Any) -> Any:
    return _RaisingMapping(decision="allow")


def prints_5mb_then_denies(event: Any) -> Any:
    print("x" * (5 * 1024 * 1024))
    return {"decision": "deny", "reason": "fixture deny"}


class _Anything(str):
    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = str.__hash__


def sly_decision(event: Any) -> Any:
    return {"decision": _Anything("allow-ish"), "reason": "sly"}


def non_ascii_output_deny(event: Any) -> Any:
    print("é ☃ 日本")
    return {"decision": "deny", "reason": "fixture deny"}


def redos_then_allow(event: Any) -> Any:
    """A catastrophic regular expression: one C call holding the interpreter lock (R4, L7)."""
    import re

    re.search(r"^(a+)+$", "a" * 40 + "b")
    return {"decision": "allow"}


def devnull_child_sleep(event: Any) -> Any:
    """Wait on a child whose output goes to /dev/null, past the deadline (HELD-DEADLINE)."""
    import subprocess

    subprocess.run(
        ["sleep", "30"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False
    )
    return {"decision": "allow"}


def sqlite_spins(event: Any) -> Any:
    """A long SQLite query, which releases the interpreter lock (HELD-DEADLINE)."""
    import sqlite3

    query = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
    sqlite3.connect(":memory:").execute(query).fetchone()  # never ends: no LIMIT
    return {"decision": "allow"}


# How far deep_recursion lifts the limit. HELD-JUDGE used 10**7 (exit 2 after 58 s): the unwinding of
# that many frames never checks for signals or thread switches, so no deadline answers sooner
# (about 28 s here); a million frames is the same attack, answered in about 3 s.
RECURSION_LIMIT = 10**6


def deep_recursion(event: Any) -> Any:
    """Recurse in Python until RecursionError after lifting the recursion limit (HELD-JUDGE)."""
    import sys

    sys.setrecursionlimit(RECURSION_LIMIT)

    def down(n: int) -> int:
        return down(n + 1) + 1

    return {"decision": "allow", "depth": down(0)}


def exhausts_memory(event: Any) -> Any:
    """Allocate until MemoryError under an address-space limit (HELD-JUDGE, ulimit -v)."""
    import resource

    soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        # Never eat the machine: without the test's limit this answers allow, and the test fails.
        return {"decision": "allow"}
    chunks = []
    while True:
        chunks.append(bytearray(64 * 1024 * 1024))


# A deny reason far beyond any host's reason field (HELD-JUDGE, 50 MB).
HUGE_REASON = 50 * 1024 * 1024


def huge_reason_deny(event: Any) -> Any:
    """Deny with a 50 MB reason."""
    return {"decision": "deny", "reason": "r" * HUGE_REASON}


def overflows_c_stack(event: Any) -> Any:
    """Lift the recursion limit, then recurse through a builtin until the C stack overflows."""
    import functools
    import sys

    sys.setrecursionlimit(10**7)

    def down(n: int) -> int:
        # reduce is C code calling back into Python: every level costs C stack, so the process
        # dies by SIGSEGV long before the lifted limit raises RecursionError.
        return functools.reduce(lambda _a, _b: down(n + 1), [0, 1])

    return {"decision": "allow", "depth": down(0)}


def dumps_too_deep(event: Any) -> Any:
    """Lift the recursion limit, then json.dumps a structure nested deeper than the C stack."""
    import json
    import sys

    sys.setrecursionlimit(10**7)
    nested: list[Any] = []
    for _ in range(1_000_000):
        nested = [nested]
    return {"decision": "allow", "reason": json.dumps(nested)}


def kills_itself(event: Any) -> Any:
    """Send SIGKILL to the judge's own process (docs/findings.md R2)."""
    import os
    import signal

    os.kill(os.getpid(), signal.SIGKILL)


def exits_at_once(event: Any) -> Any:
    """End the judge's process with os._exit(0) before any answer (docs/findings.md R1)."""
    import os

    os._exit(0)


def deep_recursion_10m(event: Any) -> Any:
    """deep_recursion with HELD-JUDGE's limit of 10**7 (exit 2, but after 58 s, without supervision)."""
    import sys

    sys.setrecursionlimit(10**7)

    def down(n: int) -> int:
        return down(n + 1) + 1

    return {"decision": "allow", "depth": down(0)}


def sleeps_ten(event: Any) -> Any:
    """Blocked in a sleep for 10 s (HELD-DEFAULT's judge against a 300 ms deadline)."""
    time.sleep(10)
    return {"decision": "allow"}


def sums_in_c(event: Any) -> Any:
    """One C call that holds the interpreter lock and never checks for signals (R4), for minutes."""
    sum(range(3 * 10**9))
    return {"decision": "allow"}


def forks_and_sleeps_then_denies(event: Any) -> Any:
    """RT3-M9: a child forked without exec keeps running after the hook has answered."""
    if os.fork() == 0:
        time.sleep(6)
        os._exit(0)
    return {"decision": "deny", "reason": "forked"}
