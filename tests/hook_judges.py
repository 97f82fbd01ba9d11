"""Judges the hook-entry tests name in ACP_JUDGE (tests/ is put on PYTHONPATH for the child)."""

from __future__ import annotations

import time
from typing import Any

from agent_control_plane_core import Verdict

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
