"""`acp parse`, `render`, `record`, `validate`, `keys` and `schema-path`: the contract from the command line."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final

from .._generated.constants import (
    MODELED_TOOL_INPUT_KEYS,
    TOOL_ALIASES,
)
from ..adapters import AGENT_IDS, adapter_for
from ..runtime import (
    render_escalated,
)

if TYPE_CHECKING:
    import argparse
    from pathlib import Path
from ._bridge import _bridge_adapter, _verdict
from ._common import UsageError, _cli_adapter, _print_json, _stdin_payload

# `acp validate` kinds -> schema document names (schemas.SCHEMA_NAMES).
_VALIDATE_KINDS: Final = {
    "event": "tool-call-event",
    "verdict": "verdict",
    "native-response": "native-response",
}


def _cmd_parse(args: argparse.Namespace) -> int:
    adapter = _cli_adapter(args)
    payload = _stdin_payload()
    if not isinstance(payload, dict):
        # N42: parse never raises (the contract), but a CLI user should see why it is unknown.
        kind = type(payload).__name__
        print(
            f"acp parse: the payload is a JSON {_JSON_NAMES.get(kind, kind)}, not an object",
            file=sys.stderr,
        )
    _print_json(adapter.parse(payload).to_dict())
    return 0


_JSON_NAMES = {
    "list": "array",
    "str": "string",
    "int": "number",
    "float": "number",
    "bool": "boolean",
    "NoneType": "null",
}


def _cmd_render(args: argparse.Namespace) -> int:
    try:
        raw_verdict = json.loads(args.verdict)
        verdict = _verdict(raw_verdict)
    except (ValueError, TypeError) as exc:
        raise UsageError(f"--verdict: {exc}") from exc
    adapter = _cli_adapter(args)
    event = adapter.parse(_stdin_payload())
    if args.escalate:
        response = render_escalated(adapter, verdict, event, sole_gate=args.sole_gate)
    else:
        response = adapter.render(verdict, event, sole_gate=args.sole_gate)
    _print_json(response.to_dict())
    return 0


def _cmd_record(args: argparse.Namespace) -> int:
    """N34: fixture cases from a file of native payloads, as this adapter answers them."""
    from .._record import DEFAULT_SCENARIOS, RecordError, read_natives, record_cases

    if args.refresh is not None:
        return _refresh(args)
    if args.file is None:
        raise UsageError("give FILE (native payloads, one per line) or --refresh FIXTURE")

    scenarios: dict[str, Any] = dict(DEFAULT_SCENARIOS)
    for spec in args.verdict or []:
        name, _, text = spec.partition("=")
        try:
            if not name or not text:
                raise ValueError('give NAME=JSON, e.g. \'redact={"decision": "allow", ...}\'')
            scenarios[name] = _verdict(json.loads(text)).to_dict()
        except (ValueError, TypeError) as exc:
            raise UsageError(f"--verdict {spec!r}: {exc}") from exc
    options = {"codex_version": args.codex_version} if args.codex_version else None
    adapter = _bridge_adapter(args.agent, tuple(sorted((options or {}).items())))
    into: dict[str, Any] | None = None
    if args.into is not None:
        into = _fixture_file(args.into, "--into", args.agent)
    try:
        if args.file == "-":
            natives = read_natives(sys.stdin)
        else:
            with open(args.file, encoding="utf-8") as lines:
                natives = read_natives(lines)
    except OSError as exc:
        raise UsageError(f"cannot read {args.file} ({exc.strerror or exc})") from exc
    except RecordError as exc:
        raise UsageError(f"{args.file}: {exc}") from exc
    existing = into.get("cases", []) if into is not None else []
    taken = [str(case.get("name")) for case in existing if isinstance(case, dict)]
    cases = record_cases(adapter, natives, scenarios, adapter_options=options, taken=taken)
    if into is None:
        # Indented like the shipped fixture files, so the output can be saved as one.
        print(json.dumps({"agent": args.agent, "cases": cases}, indent=2, ensure_ascii=False))
        return 0
    into["cases"] = [*existing, *cases]
    args.into.write_text(json.dumps(into, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{args.into}: {len(cases)} case(s) recorded; review each before committing it")
    return 0


def _fixture_file(path: Path, option: str, agent: str) -> dict[str, Any]:
    """The fixture file an acp record option names, refused unless it is one of agent's."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"{option} {path}: not a readable fixture file ({exc})") from exc
    if not isinstance(data, dict) or data.get("agent") != agent:
        raise UsageError(f"{option} {path}: not a fixture file of agent {agent!r}")
    return data


def _refresh(args: argparse.Namespace) -> int:
    """N11: a fixture file's goldens re-derived from the adapter after a contract change."""
    from .._record import RecordError, refresh_cases

    if args.file is not None or args.verdict or args.into is not None:
        raise UsageError("--refresh takes the fixture file alone")
    data = _fixture_file(args.refresh, "--refresh", args.agent)
    try:
        versions = (("codex_version", args.codex_version),) if args.codex_version else ()
        changed = refresh_cases(_bridge_adapter(args.agent, versions), data["cases"])
    except (RecordError, KeyError, TypeError, ValueError) as exc:
        raise UsageError(f"--refresh {args.refresh}: {exc}") from exc
    args.refresh.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(
        f"{args.refresh}: {changed} of {len(data['cases'])} case(s) changed; review the diff:"
        " each golden now pins what the adapter does"
    )
    return 0


def _cmd_validate(args: argparse.Namespace) -> int:
    from ..schemas import validator_for

    validator = validator_for(_VALIDATE_KINDS[args.kind])
    failed = 0
    for name in args.files:
        problems = _validation_problems(validator.iter_errors, name)
        if problems:
            failed += 1
            for problem in problems:
                print(f"{name}: {problem}", file=sys.stderr)
        else:
            print(f"{name}: ok")
    if failed:
        print(
            f"{failed} of {len(args.files)} file(s) are not valid {args.kind} documents",
            file=sys.stderr,
        )
    return 1 if failed else 0


def _validation_problems(iter_errors: Callable[[Any], Iterable[Any]], name: str) -> list[str]:
    try:
        from pathlib import Path

        text = sys.stdin.read() if name == "-" else Path(name).read_text(encoding="utf-8")
    except OSError as exc:
        return [f"cannot read ({exc.strerror})"]
    try:
        instance = json.loads(text)
    except ValueError as exc:
        return [f"not JSON ({exc})"]
    problems = []
    for error in sorted(iter_errors(instance), key=lambda e: list(map(str, e.absolute_path))):
        where = "/".join(map(str, error.absolute_path)) or "(root)"
        problems.append(f"{where}: {error.message}")
    return problems


def _tool_names(agent: str | None) -> dict[str, str]:
    """Every name a judge may ask about -> its canonical tool, as the adapters resolve it."""
    names = {tool: tool for tool in MODELED_TOOL_INPUT_KEYS}
    names.update(TOOL_ALIASES)
    hosts = AGENT_IDS if agent is None else (agent,)
    seen: dict[str, set[str]] = {}
    for host in hosts:
        aliases: Mapping[str, str] = getattr(adapter_for(host), "TOOL_ALIASES", {})
        for native, canonical in aliases.items():
            seen.setdefault(native, set()).add(canonical)
    # Without --agent a host-scoped name counts only where every host that uses it agrees.
    names.update({native: targets.pop() for native, targets in seen.items() if len(targets) == 1})
    return names


def _cmd_keys(args: argparse.Namespace) -> int:
    names = _tool_names(args.agent)
    if args.tool is None:
        if args.agent is None:
            print(json.dumps(dict(MODELED_TOOL_INPUT_KEYS), indent=2, sort_keys=True))
        else:
            keys = {name: MODELED_TOOL_INPUT_KEYS[tool] for name, tool in names.items()}
            print(json.dumps(keys, indent=2, sort_keys=True))
        return 0
    tool = names.get(args.tool)
    if tool is None:
        known = ", ".join(sorted(names))
        where = f" on {args.agent}" if args.agent else ""
        raise UsageError(f"no input key is published for tool {args.tool!r}{where}; known: {known}")
    print(MODELED_TOOL_INPUT_KEYS[tool])
    return 0


def _cmd_schema_path(args: argparse.Namespace) -> int:
    from ..schemas import schema_path

    try:
        print(schema_path(args.name))
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    return 0
