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

Each layer is read through the policy's per-user compiled cache, as a single rule file is.
"""

from __future__ import annotations

import os
import re

from . import policy as _policy
from ._generated.constants import Decisions, PolicyFields, PolicyModes, PolicyRuleFields
from ._judges import JudgeLoadError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any, Final

    from ._generated.models.tool_call_event_schema import ToolCallEvent
    from ._generated.models.verdict_schema import Verdict

__all__ = ["OBSERVE_PREFIX", "LayeredJudge", "is_layered", "layered_judge", "load_layers"]

OBSERVE_PREFIX: Final = "observe: would "
_MAX_LAYERS: Final = 8
_STRICTNESS: Final = {Decisions.ALLOW: 0, Decisions.ASK: 1, Decisions.DENY: 2}
# A key at the start of a line: how a rule file says it extends a base or observes (the hook
# reads the bytes for it before choosing the loader, so a plain file costs no extra parse).
_LAYER_KEYS: Final = re.compile(rb"""^[ \t]*["']?(extends|mode)["']?[ \t]*=""", re.MULTILINE)


class Layer:
    """One rule file of the chain: its enforcing rules, and all of them when some only observe."""

    __slots__ = ("enforcing", "everything", "observe", "source")

    def __init__(
        self,
        source: str,
        enforcing: _policy.PolicyJudge,
        everything: _policy.PolicyJudge | None,
        observe: bool,
    ) -> None:
        self.source = source
        self.enforcing = enforcing
        self.everything = everything
        self.observe = observe


def _strictness(verdict: Verdict) -> int:
    return _STRICTNESS.get(verdict.decision, 0)


class LayeredJudge(_policy.PolicyJudge):
    """The composed judge of a layer chain, outermost first; explain names the deciding layer."""

    layered = True

    def __init__(self, layers: Sequence[Layer]) -> None:
        rules = [rule for layer in layers for rule in layer.enforcing._rules]
        super().__init__(rules, layers[-1].source)
        self.layers = tuple(layers)

    def __repr__(self) -> str:
        chain = " <- ".join(layer.source for layer in self.layers)
        return f"<LayeredJudge {chain}>"

    def __call__(self, event: ToolCallEvent) -> Verdict:
        explanation = self.explain(event)
        observed = [line for line in explanation.why if line.startswith(OBSERVE_PREFIX)]
        # The audit record's rule (issue 26) says what decided, then what observed rules would.
        rule = explanation.rule
        self.last_rule = "; ".join([rule or "no rule", *observed]) if observed else rule
        return explanation.verdict

    def explain(self, event: ToolCallEvent) -> _policy.Explanation:
        """The strictest layer's explanation; observe notes for what an observed part would do."""
        best: tuple[Layer, _policy.Explanation] | None = None
        observed: list[str] = []
        for layer in self.layers:
            found = layer.enforcing.explain(event)
            if layer.everything is not None:
                would = layer.everything.explain(event)
                if would.rule is not None and _strictness(would.verdict) > _strictness(
                    found.verdict
                ):
                    observed.append(_observed(would, layer))
            if layer.observe:
                if found.rule is not None and _strictness(found.verdict) > 0:
                    observed.append(_observed(found, layer))
                continue
            if best is None or _stricter(found, best[1]):
                best = (layer, found)
        if best is None:
            allow = _policy.Explanation(None, _allow(), ())
            return _policy.Explanation(None, allow.verdict, tuple(observed))
        layer, found = best
        rule = None if found.rule is None else f"{found.rule} in {layer.source}"
        return _policy.Explanation(rule, found.verdict, (*found.why, *observed))


def _stricter(found: _policy.Explanation, best: _policy.Explanation) -> bool:
    """Whether an inner layer's explanation replaces the outer one chosen so far."""
    if _strictness(found.verdict) != _strictness(best.verdict):
        return _strictness(found.verdict) > _strictness(best.verdict)
    return best.rule is None and found.rule is not None


def _observed(explanation: _policy.Explanation, layer: Layer) -> str:
    return f"{OBSERVE_PREFIX}{explanation.verdict.decision} by {explanation.rule} in {layer.source}"


def _allow() -> Verdict:
    from ._generated.models.verdict_schema import Verdict

    return Verdict(decision=Decisions.ALLOW)


def is_layered(data: Mapping[str, Any]) -> bool:
    """Whether a rule file's data extends a base or observes (at the top or in a rule)."""
    if PolicyFields.EXTENDS in data or PolicyFields.MODE in data:
        return True
    rules = data.get(PolicyFields.RULES)
    return isinstance(rules, list) and any(
        isinstance(rule, dict) and PolicyRuleFields.MODE in rule for rule in rules
    )


def _mode_problems(data: Mapping[str, Any]) -> list[str]:
    problems = []
    modes = ", ".join(PolicyModes.ALL)
    if data.get(PolicyFields.MODE, PolicyModes.ENFORCE) not in PolicyModes.ALL:
        problems.append(f"top level, field mode: must be one of {modes}")
    for index, rule in enumerate(data.get(PolicyFields.RULES) or []):
        if (
            isinstance(rule, dict)
            and rule.get(PolicyRuleFields.MODE, "enforce") not in PolicyModes.ALL
        ):
            problems.append(f"{_policy._label(index, rule)}, field mode: must be one of {modes}")
    base = data.get(PolicyFields.EXTENDS)
    if base is not None and (not isinstance(base, str) or not base):
        problems.append("top level, field extends: must be a non-empty path")
    return problems


def load_layers(
    path: str, data: Mapping[str, Any] | None = None, seen: tuple[str, ...] = ()
) -> list[Layer]:
    """The chain from the outermost base to this file; JudgeLoadError names the layer at fault."""
    real = os.path.realpath(path)
    if real in seen:
        raise JudgeLoadError(
            f"policy {path}: extends itself through {' -> '.join(seen)}; remove the cycle"
        )
    if len(seen) >= _MAX_LAYERS:
        raise JudgeLoadError(f"policy {path}: more than {_MAX_LAYERS} layers; flatten the chain")
    if data is None:
        data = _policy._cached_data(path)[0]
    problems = _mode_problems(data)
    rules, more = _policy._compile(data)
    problems += more
    if problems:
        raise JudgeLoadError(f"policy {path}: " + "; ".join(problems) + f"; {_policy._FIX}")
    outer: list[Layer] = []
    base = data.get(PolicyFields.EXTENDS)
    if isinstance(base, str):
        base_path = base if os.path.isabs(base) else os.path.join(os.path.dirname(path), base)
        try:
            outer = load_layers(base_path, None, (*seen, real))
        except JudgeLoadError as exc:
            raise JudgeLoadError(
                f"policy {path} extends {base_path}, which does not load ({exc}); every call is"
                " blocked until the base is restored (or extends is removed by whoever owns it)"
            ) from exc
    raw = data.get(PolicyFields.RULES) or []
    observing = {
        index
        for index, rule in enumerate(raw)
        if isinstance(rule, dict) and rule.get(PolicyRuleFields.MODE) == PolicyModes.OBSERVE
    }
    enforcing = _policy.PolicyJudge([r for i, r in enumerate(rules) if i not in observing], path)
    everything = _policy.PolicyJudge(rules, path) if observing else None
    whole = data.get(PolicyFields.MODE) == PolicyModes.OBSERVE
    return [*outer, Layer(path, enforcing, everything, whole)]


def layered_judge(path: str, data: Mapping[str, Any] | None = None) -> LayeredJudge:
    """The composed judge of a rule file and every base it extends."""
    return LayeredJudge(load_layers(path, data))


def hook_judge(path: str) -> LayeredJudge | None:
    """For the hook entry: the layered judge when the file's text has extends or mode, else None."""
    try:
        with open(path, "rb") as rules:
            text = rules.read()
    except OSError:
        return None  # the plain loader reports it, naming the fix
    if _LAYER_KEYS.search(text) is None:
        return None
    return layered_judge(path)


def check_layers(path: str, data: Mapping[str, Any]) -> list[str]:
    """`acp policy check`: what stops the chain from loading (bases, cycles, modes)."""
    if not is_layered(data):
        return []
    try:
        load_layers(path, data)
    except JudgeLoadError as exc:
        return [str(exc)]
    return []


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
