"""`acp bridge`: JSON Lines in, one native answer per line out, for adapters in any language."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import IO, TYPE_CHECKING, Any, Final

from .._generated.constants import (
    VerdictFields,
)
from .._generated.models.verdict_schema import Verdict
from ..adapters import AGENT_IDS, Adapter
from ..contract import json_bytes, normalize_verdict
from ..runtime import (
    _unrendered_fields,
    entry_adapter,
    escalate,
)

if TYPE_CHECKING:
    import argparse
from ._common import _AGENT_SET, _NO_OPTIONS, _VERDICT_FIELD_SET, UsageError, _known_agent

# Per-line options of `acp bridge`: sole_gate, each host's <agent>_version (codex_version is
# Codex's) and <agent>_form; everything else on a line is refused by name.
# A host with integration forms also takes <agent>_form (amp_form: hosts/amp.json forms).
_BRIDGE_OPTIONS: Final = (
    "sole_gate",
    *(f"{agent}_version" for agent in AGENT_IDS),
    *(f"{agent}_form" for agent in AGENT_IDS),
)


_BRIDGE_OPTION_SET: Final = frozenset(_BRIDGE_OPTIONS)


_BRIDGE_KEYS: Final = frozenset({"agent", "native", "verdict", "options"})


# The keys of a bridge answer, in the order bridge_line builds them.
_ANSWER_KEYS: Final = ("event", "render", "escalated", "unrendered")


@lru_cache(maxsize=64)
def _bridge_adapter(agent: str, versions: tuple[tuple[str, str], ...]) -> Adapter:
    # Bounded: a stream naming many versions must not grow memory without limit.
    # The bridge never reads the environment: each line carries its own options.
    return entry_adapter(agent, {}, **dict(versions))


def bridge_line(line: str) -> dict[str, Any]:
    """Answer one `acp bridge` input line: {event, render, escalated, unrendered}, errors named."""
    try:
        request = _bridge_request(line)
    except UsageError as exc:
        return _bridge_error(str(exc))
    agent, native, options = request["agent"], request["native"], request["options"]
    try:
        versions = (
            tuple(sorted((k, v) for k, v in options.items() if k.endswith(("_version", "_form"))))
            if options
            else ()
        )
        adapter = _bridge_adapter(agent, versions)
    except TypeError as exc:  # an option this host does not take, e.g. codex_version on claude
        return _bridge_error(f"options: {exc}")
    event = adapter.parse(native)
    answer: dict[str, Any] = dict.fromkeys(_ANSWER_KEYS)
    answer["event"] = event.to_dict()
    if "verdict" not in request:
        return answer
    sole_gate = bool(options.get("sole_gate", False))
    try:
        verdict = _verdict(request["verdict"])
    except (TypeError, ValueError) as exc:
        error = {"error": f"verdict: {exc}"}
        answer["render"] = answer["escalated"] = error
        return answer
    response = adapter.render(verdict, event, sole_gate=sole_gate)
    escalated = escalate(adapter, verdict, event, response, sole_gate=sole_gate)
    answer["render"] = rendered = response.to_dict()
    # Most answers need no escalation: share the one dict rather than render and convert twice.
    answer["escalated"] = rendered if escalated is response else escalated.to_dict()
    # Issue 17: the verdict's fields this host cannot carry on the event, never dropped silently.
    answer["unrendered"] = list(_unrendered_fields(adapter, verdict, event, escalated))
    return answer


def _verdict(raw: object) -> Verdict:
    """normalize_verdict, refusing a field the verdict does not have (mutated_ouput) by name."""
    if isinstance(raw, dict) and not _VERDICT_FIELD_SET.issuperset(raw):
        unknown = sorted(str(key) for key in raw if key not in _VERDICT_FIELD_SET)
        if unknown:
            raise ValueError(
                f"unknown verdict field(s) {', '.join(unknown)}; known: {', '.join(VerdictFields.ALL)}"
            )
    return normalize_verdict(raw)  # type: ignore[arg-type]  # it raises TypeError on a non-mapping


def _bridge_error(text: str) -> dict[str, Any]:
    answer: dict[str, Any] = dict.fromkeys(_ANSWER_KEYS)
    answer["event"] = {"error": text}
    return answer


def _bridge_bytes(line: str) -> bytes:
    """The answer line's JSON; an answer JSON cannot carry (NaN, 1e400) is an error answer."""
    try:
        return json_bytes(bridge_line(line))
    except ValueError as exc:  # L1: never write NaN or Infinity, which strict parsers reject
        return json_bytes(_bridge_error(f"line holds a number JSON cannot carry ({exc})"))


def _bridge_request(line: str) -> dict[str, Any]:
    """The checked fields of one bridge line, or a UsageError naming what is wrong."""
    try:
        request = json.loads(line)
    except (ValueError, RecursionError) as exc:  # RecursionError: nesting deeper than the parser
        raise UsageError(f"line is not JSON ({exc})") from exc
    if not isinstance(request, dict):
        raise UsageError(
            f"line is a JSON {type(request).__name__}; send an object"
            ' {"agent", "native", "verdict"?, "options"?}'
        )
    if not _BRIDGE_KEYS.issuperset(request):
        unknown = sorted(set(request) - _BRIDGE_KEYS)
        raise UsageError(
            f"unknown field(s) {', '.join(unknown)}; known: {', '.join(sorted(_BRIDGE_KEYS))}"
        )
    agent = request.get("agent")
    if not isinstance(agent, str) or (agent not in _AGENT_SET and not _known_agent(agent)):
        raise UsageError(
            f"agent {agent!r} is not one of {', '.join(AGENT_IDS)} or a registered adapter"
        )
    if "native" not in request:
        raise UsageError("line has no native payload; add the host's raw hook payload as native")
    options = request.get("options", _NO_OPTIONS)
    if not isinstance(options, dict):
        raise UsageError(f"options must be an object {{sole_gate?, {agent}_version?}}")
    if options:  # most lines carry none: nothing to check
        _check_bridge_options(options)
    request["options"] = options  # the decoded line is this call's own object
    return request


def _check_bridge_options(options: dict[str, Any]) -> None:
    """Raise a UsageError naming an unknown or mistyped per-line option."""
    if not _BRIDGE_OPTION_SET.issuperset(options):
        bad = sorted(set(options) - _BRIDGE_OPTION_SET)
        raise UsageError(f"unknown option(s) {', '.join(bad)}; known: {', '.join(_BRIDGE_OPTIONS)}")
    if not isinstance(options.get("sole_gate", False), bool):
        raise UsageError("options.sole_gate must be true or false")
    for name, version in options.items():
        if name.endswith("_version") and not isinstance(version, str):
            raise UsageError(f'options.{name} must be a version string such as "0.150.0"')
        if name.endswith("_form") and not isinstance(version, str):
            raise UsageError(f'options.{name} must be a form name such as "plugin"')


def run_bridge(lines: Iterable[str], out: IO[str]) -> int:
    """Answer every input line with exactly one output line, in order; return the line count."""
    count = 0
    for line in lines:
        out.write(_bridge_bytes(line).decode("utf-8") + "\n")
        out.flush()  # a caller driving the bridge line by line waits for each answer
        count += 1
    return count


def _batches(fd: int) -> Iterator[list[bytes]]:
    """The complete lines of stdin, grouped as they arrive (a batch per read)."""
    parts: list[bytes] = []
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            if parts:
                yield [b"".join(parts)]  # a last line without its newline is still a line
            return
        if b"\n" not in chunk:
            parts.append(chunk)  # a long line: join once, when it ends
            continue
        head, *middle, tail = chunk.split(b"\n")
        yield [b"".join([*parts, head]), *middle]
        parts = [tail] if tail else []


def _cmd_bridge(args: argparse.Namespace) -> int:
    from ..runtime import _write_all

    # Every line that has arrived is answered before the next read, in one write: a caller
    # sending one line at a time gets each answer at once, a file is answered in large writes.
    # Bytes split at "\n" only, undecodable bytes replaced (as a hook entry reads stdin): a bad
    # byte must not end the stream, and the locale must not decide how a line is decoded.
    for batch in _batches(sys.stdin.fileno()):
        answers = [_bridge_bytes(raw.decode("utf-8", errors="replace")) for raw in batch]
        _write_all(sys.stdout.fileno(), b"\n".join(answers) + b"\n")
    return 0
