"""Policy layers that only tighten, and observe mode (issue 28).

A rule file may name the base it extends (`extends = "/etc/.../baseline.toml"`): an organisation
baseline, then a user layer, then a project layer, each extending the one outside it. Every layer
is judged on its own (first match decides, default allow) and the call gets the strictest verdict
of all of them (deny, then ask, then allow; of equal ones, the outermost layer's that matched), so
an inner layer can add denies and asks but never turn an outer deny or ask into an allow. A base
that cannot be read (or a cycle) is a configuration error: the hook blocks, naming it.

`mode = "observe"` (on a policy or on one rule) decides nothing: the call gets what the enforcing
layers and rules decide, and the audit record's rule says what the observed one would have
decided ("observe: would deny by rules[0] ('x') in /path"). `acp audit` lists those.

The layered judge and its loader live in policy (load_policy_judge and check_policy_file dispatch
to them, and this module imports policy, never the reverse: no import cycle); this module is the
hook entry's cheap check and the audit summary, and re-exports the rest under its old names.
"""

from __future__ import annotations

import re

from .policy import (
    OBSERVE_PREFIX,
    Layer,
    LayeredJudge,
    _read_rule_file,
    check_layers,
    is_layered,
    layered_judge,
    load_layers,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any, Final

__all__ = [
    "OBSERVE_PREFIX",
    "Layer",
    "LayeredJudge",
    "check_layers",
    "hook_judge",
    "is_layered",
    "layered_judge",
    "load_layers",
    "observed_summary",
]

# A key at the start of a line: how a rule file says it extends a base or observes (the hook
# reads the bytes for it before choosing the loader, so a plain file costs no extra parse).
_LAYER_KEYS: Final = re.compile(rb"""^[ \t]*["']?(extends|mode)["']?[ \t]*=""", re.MULTILINE)


def hook_judge(path: str) -> LayeredJudge | None:
    """For the hook entry: the layered judge when the file's text has extends or mode, else None."""
    try:
        # As the loader reads it (R6): a FIFO or device is refused at once, never waited on.
        text = _read_rule_file(path)[0]
    except OSError:
        return None  # the plain loader reports it, naming the fix
    if _LAYER_KEYS.search(text) is None:
        return None
    return layered_judge(path)


def observed_summary(records: Sequence[Mapping[str, Any]]) -> list[str]:
    """`acp audit`: the would-be decisions of observed policies and rules, counted, then listed."""
    from collections import Counter

    found: list[tuple[Mapping[str, Any], str]] = []
    for record in records:
        rule = record.get("rule")
        if isinstance(rule, str):
            found += [
                (record, part.removeprefix(OBSERVE_PREFIX))
                for part in rule.split("; ")
                if part.startswith(OBSERVE_PREFIX)
            ]
    if not found:
        return []
    out = [f"observe mode: {len(found)} would-be decision(s) not enforced (the calls ran):"]
    for what, count in Counter(what for _, what in found).most_common():
        out.append(f"  {count:6}  would {what}")
    for record, what in found[-10:]:
        event = record.get("event")
        tool = event.get("tool") if isinstance(event, dict) else None
        out.append(f"  {record.get('time')}  {record.get('agent')} {tool}: would {what}")
    return out
