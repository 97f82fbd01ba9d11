"""Judges: the judge signature, loading module:callable, and the demo judge."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from ._generated.constants import MODELED_TOOL_INPUT_KEYS, Decisions
from ._generated.models.tool_call_event_schema import ToolCallEvent
from ._generated.models.verdict_schema import Verdict

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

__all__ = ["Judge", "JudgeLoadError", "demo_judge", "load_judge"]

Judge = Callable[[ToolCallEvent], "Verdict | Mapping[str, Any]"]
"""A guardrail: one normalized event in, a verdict (or a mapping with a decision) out; None fails."""

# contract.md §7: the default judge denies a shell command that runs rm -rf.
_DEMO_PATTERN: Final = r"rm\s+-rf"  # re caches the compiled form; nothing compiles at import
_DEMO_REASON: Final = "demo policy: rm -rf blocked"


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
    import sys

    try:
        # __import__, not importlib.import_module: the importlib package loads warnings, which
        # a hook process does not otherwise need (issue 13). The name is absolute here.
        __import__(module_name)
        found: Any = sys.modules[module_name]
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
