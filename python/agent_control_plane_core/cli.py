"""The `acp` command: bridge, parse, render, record, validate, keys, schema-path, fixtures-path, conformance, hook, policy, audit, gen."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import lru_cache
from typing import IO, TYPE_CHECKING, Any, Final, NoReturn

from ._generated.constants import (
    MODELED_TOOL_INPUT_KEYS,
    TOOL_ALIASES,
    UnrenderedPostures,
    VerdictFields,
)
from ._generated.models.verdict_schema import Verdict
from .adapters import AGENT_IDS, Adapter, adapter_for
from .contract import json_bytes, normalize_verdict
from .runtime import (
    CODEX_VERSION_ENV,
    FAIL_CLOSED_ENV,
    JUDGE_ENV,
    ON_UNRENDERED_ENV,
    POLICY_ENV,
    SOLE_GATE_ENV,
    _unrendered_fields,
    entry_adapter,
    escalate,
    render_escalated,
    run_hook_entry,
)

if TYPE_CHECKING:
    import argparse
    from pathlib import Path

__all__ = ["main"]

# `acp validate` kinds -> schema document names (schemas.SCHEMA_NAMES).
_VALIDATE_KINDS: Final = {
    "event": "tool-call-event",
    "verdict": "verdict",
    "native-response": "native-response",
}
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
_AGENT_SET: Final = frozenset(AGENT_IDS)
_VERDICT_FIELD_SET: Final = frozenset(VerdictFields.ALL)
# A line without options: shared, never handed to a caller (bridge_line only reads it).
_NO_OPTIONS: Final[dict[str, Any]] = {}
_ON_UNRENDERED_ARGS: Final = ("--on-unrendered",)
_ON_UNRENDERED_HELP: Final = (
    "deny (default), note or allow: what the hook does when a verdict asks for content the"
    " host cannot carry on that event"
)


# N18: what --sole-gate changes, in the words a user chooses it by.
_SOLE_GATE_HELP: Final = (
    "this hook is the only gate: an allow is sent as an explicit allow, which skips the host's"
    " own permission prompt (default: an allow abstains and the host asks as usual)"
)


_AGENT_HELP: Final = (
    f"the host: {', '.join(AGENT_IDS)}, or a third-party adapter registered in the"
    " agent_control_plane_core.adapters entry-point group"
)


def _known_agent(agent: str) -> bool:
    """Whether an id names a shipped adapter or one an installed package registers (N21)."""
    if agent in AGENT_IDS:
        return True
    try:
        adapter_for(agent)
    except ValueError:
        return False
    return True


def _agent(text: str) -> str:
    """argparse type of an agent id: shipped, or registered through the entry-point group."""
    if not _known_agent(text):
        import argparse  # loaded only with the parser (the hook path reads its options by hand)

        raise argparse.ArgumentTypeError(
            f"unknown agent {text!r} (choose from {', '.join(AGENT_IDS)}, or install a package"
            " that registers it)"
        )
    return text


class UsageError(Exception):
    """A command-line input that cannot be used; the message names it and the fix."""


def _print_json(value: Any) -> None:
    """Print one compact JSON line, UTF-8 whatever the locale."""
    sys.stdout.flush()
    sys.stdout.buffer.write(json_bytes(value) + b"\n")
    sys.stdout.buffer.flush()


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
    from .runtime import _write_all

    # Every line that has arrived is answered before the next read, in one write: a caller
    # sending one line at a time gets each answer at once, a file is answered in large writes.
    # Bytes split at "\n" only, undecodable bytes replaced (as a hook entry reads stdin): a bad
    # byte must not end the stream, and the locale must not decide how a line is decoded.
    for batch in _batches(sys.stdin.fileno()):
        answers = [_bridge_bytes(raw.decode("utf-8", errors="replace")) for raw in batch]
        _write_all(sys.stdout.fileno(), b"\n".join(answers) + b"\n")
    return 0


def _stdin_payload() -> Any:
    text = sys.stdin.read()
    try:
        return json.loads(text)
    except ValueError as exc:
        raise UsageError(f"stdin is not a JSON payload ({exc})") from exc


def _cli_adapter(args: argparse.Namespace) -> Adapter:
    """The adapter acp parse/render use; an option the host does not take is a usage error."""
    try:
        return entry_adapter(args.agent, codex_version=args.codex_version)
    except TypeError as exc:
        # LIB-1: one line naming the option and the host, never a traceback.
        if args.codex_version is None:
            raise UsageError(str(exc)) from exc
        raise UsageError(f"--codex-version is a Codex option; {args.agent} takes none") from exc


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
    from ._record import DEFAULT_SCENARIOS, RecordError, read_natives, record_cases

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
    from ._record import RecordError, refresh_cases

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
    from .schemas import validator_for

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
    from .schemas import schema_path

    try:
        print(schema_path(args.name))
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    return 0


def _cmd_hook(args: argparse.Namespace) -> int:
    _run_hook({name: getattr(args, name) for name in _HOOK_OPTIONS})


# `acp hook` options: what `acp install` writes into a host's settings runs once per tool call,
# so main() reads these by hand (issue 13: argparse and every subcommand's setup cost about a
# third of a hook call); anything else, including a mistake, goes to argparse and its message.
_HOOK_FLAGS: Final = {"--sole-gate": "sole_gate", "--fail-closed": "fail_closed"}
_HOOK_VALUES: Final = {
    "--judge": "judge",
    "--policy": "policy",
    "--codex-version": "codex_version",
    "--on-unrendered": "on_unrendered",
}
_HOOK_OPTIONS: Final = ("agent", *_HOOK_FLAGS.values(), *_HOOK_VALUES.values())


def _hook_options(words: Sequence[str]) -> dict[str, Any] | None:
    """The options of `acp hook WORDS` in the plain forms argparse reads alike; None otherwise."""
    options: dict[str, Any] = dict.fromkeys(_HOOK_OPTIONS)
    options.update(dict.fromkeys(_HOOK_FLAGS.values(), False))
    rest = iter(words)
    for word in rest:
        if word in _HOOK_FLAGS:
            options[_HOOK_FLAGS[word]] = True
            continue
        name, equals, value = word.partition("=")
        if name in _HOOK_VALUES:
            found = value if equals else next(rest, None)
            if not found or found.startswith("-"):
                return None
            options[_HOOK_VALUES[name]] = found
        elif word.startswith("-") or options["agent"] is not None:
            return None
        else:
            options["agent"] = word
    if options["agent"] not in AGENT_IDS or (options["judge"] and options["policy"]):
        return None
    if options["on_unrendered"] not in (None, *UnrenderedPostures.ALL):
        return None
    return options


def _run_hook(options: Mapping[str, Any]) -> NoReturn:
    """Run the hook entry of options["agent"], the options set as their environment variables."""
    # The judge goes through the same loader as ACP_JUDGE, so a bad one gets the host's posture.
    environ = dict(os.environ)
    if options["judge"]:
        environ[JUDGE_ENV] = options["judge"]
        environ.pop(POLICY_ENV, None)  # an explicit --judge wins over an inherited ACP_POLICY
    if options["policy"]:
        # Loaded by judge_from_env like ACP_POLICY, so a bad file gets the host's posture too;
        # resolved once, here (L13), because judge_from_env refuses a relative path.
        environ[POLICY_ENV] = os.path.abspath(options["policy"])
    if options["on_unrendered"]:
        environ[ON_UNRENDERED_ENV] = options["on_unrendered"]
    if options["fail_closed"]:
        environ[FAIL_CLOSED_ENV] = "1"
    if options["codex_version"]:
        environ[CODEX_VERSION_ENV] = options["codex_version"]
    if options["sole_gate"]:
        environ[SOLE_GATE_ENV] = "1"
    adapter = entry_adapter(options["agent"], environ)
    run_hook_entry(adapter, sole_gate=options["sole_gate"], environ=environ)


def _check_judge(args: argparse.Namespace) -> None:
    """Refuse to register a judge that cannot run: every call would get the failure posture."""
    from .runtime import JudgeLoadError, load_judge

    try:
        if args.policy is not None:
            from .policy import load_policy_judge

            load_policy_judge(args.policy)
        elif args.judge is not None:
            load_judge(args.judge)
    except JudgeLoadError as exc:
        # N2: the hook would only say so on its own stderr, call after call, while the call runs.
        raise UsageError(
            f"{exc}; nothing registered (the hook loads it the same way, in this environment,"
            " on every call)"
        ) from exc
    if args.policy is None and args.judge is None and args.host != "amp":
        print(
            "note: no --judge or --policy: registering the demo judge, which blocks only"
            " shell commands matching rm -rf",
            file=sys.stderr,
        )


def _cmd_install(args: argparse.Namespace) -> int:
    if args.scope == "managed":
        from ._managed import install_managed

        return install_managed(args)
    if args.resident is not None:
        from ._resident_cli import install_resident  # issue 30

        return install_resident(args)
    from .install import InstallError, plan_install

    _check_judge(args)
    for option, folder in (("--root", args.root), ("--home", args.home)):
        if folder is not None and not folder.is_dir():
            # N38: a mistyped folder would be created and the hook registered where no host looks.
            raise UsageError(f"{option} {folder} is not an existing folder; nothing registered")
    try:
        plan = plan_install(
            args.host,
            scope=args.scope,
            root=args.root,
            home=args.home,
            judge=args.judge,
            policy=args.policy,
            fail_closed=args.fail_closed,
            timeout_s=args.timeout,
            codex_version=args.codex_version,
            host_version=args.host_version,
            on_unrendered=args.on_unrendered,
            sole_gate=args.sole_gate,
            matcher=args.matcher,
            local=args.local,
            plugin=args.plugin,
            audit_log=args.audit_log,
        )
    except InstallError as exc:
        raise UsageError(str(exc)) from exc
    for note in plan.notes:
        print(f"note: {note}", file=sys.stderr)
    if not plan.changed:
        print(f"{plan.path}: already has the {args.host} hook; nothing to change")
        return 0
    if args.dry_run:
        print(plan.diff(), end="")
        return 0
    from ._uninstall import recorded_apply

    try:
        recorded_apply(plan)  # issue 28: what acp uninstall puts back
    except InstallError as exc:
        raise UsageError(str(exc)) from exc
    for written in (plan, *plan.also):
        print(f"{written.path}: {args.host} hook registered")
    return 0


def _cmd_new_adapter(args: argparse.Namespace) -> int:
    root = _require_checkout()
    from codegen.scaffold import ScaffoldError, write_skeleton

    try:
        written = write_skeleton(args.name, args.root or root)
    except ScaffoldError as exc:
        raise UsageError(str(exc)) from exc
    for path in written:
        print(f"wrote {path}")
    name = args.name
    print(
        f"next (docs/adapter-authoring.md explains every step):\n"
        f"  1. fill in schema/control-plane/v1/hosts/{name}.json from the host's hook docs,"
        f" then run `make codegen`\n"
        f"  2. write parse and render in python/agent_control_plane_core/adapters/{name}.py\n"
        f"  3. add golden cases to fixtures/{name}.json until"
        f" `.venv/bin/python -m pytest tests/test_adapter_{name}.py` passes; include one vetoable"
        f" pre_tool shell call (tool Bash): the demo and the hook tests send it\n"
        f"  4. `make test` and `make demo` (pyproject.toml already names acp-{name}-hook;"
        f" make reinstalls the package when it changes)"
    )
    return 0


def _require_checkout() -> Path:
    """The source checkout, on sys.path so its codegen package imports; refuse outside one."""
    root = _source_checkout()
    if root is None:
        raise UsageError(
            "the generator is not part of the installed package: it lives in the source checkout"
            " (codegen/). Clone the repository, edit schema/control-plane/v1, then run `make codegen`"
        )
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    return root


def _source_checkout() -> Path | None:
    """The repository this package runs from, when it is a source checkout with the generator."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    return root if (root / "codegen" / "driver.py").is_file() else None


def _cmd_gen(args: argparse.Namespace) -> int:
    _require_checkout()
    from codegen.__main__ import main as codegen_main

    return codegen_main(["--check"] if args.check else [])


def _parser() -> argparse.ArgumentParser:
    import argparse
    from pathlib import Path

    parser = argparse.ArgumentParser(
        prog="acp",
        description="agent-control-plane-core: normalized hook events across coding agents.",
    )
    from importlib.metadata import PackageNotFoundError, version

    try:
        installed = version("agent-control-plane-core")
    except PackageNotFoundError:  # a source tree on sys.path without an install
        installed = "unknown"
    parser.add_argument("--version", action="version", version=f"acp {installed}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(
        name: str, handler: Callable[[argparse.Namespace], int], text: str
    ) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=text, description=text)
        # N44: an unknown option is reported with this sub-command's usage, not the top level's.
        sub.set_defaults(handler=handler, _parser=sub)
        return sub

    command(
        "bridge",
        _cmd_bridge,
        'JSON Lines in ({"agent", "native", "verdict"?, "options"?}), one answer line out per input'
        ' line, in order ({"event", "render", "escalated"}).',
    )
    for name, handler, text in (
        ("parse", _cmd_parse, "Parse one native payload from stdin and print the event."),
        (
            "render",
            _cmd_render,
            "Parse one native payload from stdin and print the native response.",
        ),
    ):
        sub = command(name, handler, text)
        sub.add_argument("--agent", required=True, type=_agent, metavar="AGENT", help=_AGENT_HELP)
        sub.add_argument(
            "--codex-version",
            help="the Codex version the launcher pins (default: $ACP_CODEX_VERSION)",
        )
        if name == "render":
            sub.add_argument(
                "--verdict", required=True, help='the verdict as JSON, e.g. {"decision": "deny"}'
            )
            sub.add_argument("--sole-gate", action="store_true", help="this hook is the only gate")
            sub.add_argument(
                "--escalate",
                action="store_true",
                help="apply render_escalated (what a hook entry sends)",
            )
    sub = command(
        "record",
        _cmd_record,
        "Record golden fixture cases: each native payload (JSON Lines) parsed and rendered by"
        " the adapter as it is now.",
    )
    sub.add_argument(
        "file", nargs="?", metavar="FILE", help="native payloads, one JSON per line; - reads stdin"
    )
    sub.add_argument("--agent", required=True, type=_agent, metavar="AGENT", help=_AGENT_HELP)
    sub.add_argument("--codex-version", help="recorded as the cases' adapter_options")
    sub.add_argument(
        "--verdict",
        action="append",
        metavar="NAME=JSON",
        help="another scenario beside allow, deny and ask (repeatable)",
    )
    sub.add_argument(
        "--into", type=Path, metavar="FIXTURE", help="append to this fixture file, not stdout"
    )
    sub.add_argument(
        "--refresh",
        type=Path,
        metavar="FIXTURE",
        help="re-derive this fixture file's events and renders (after a contract change)",
    )
    sub = command("validate", _cmd_validate, "Validate JSON files against a published schema.")
    sub.add_argument("kind", choices=sorted(_VALIDATE_KINDS))
    sub.add_argument("files", nargs="+", metavar="FILE", help="JSON file(s); - reads stdin")
    sub = command("keys", _cmd_keys, "Print the input key a judge reads per tool.")
    sub.add_argument(
        "tool", nargs="?", help="one tool: canonical or native name (e.g. Execute); default: all"
    )
    sub.add_argument(
        "--agent", choices=AGENT_IDS, help="resolve native names as this host's adapter does"
    )
    sub = command(
        "schema-path", _cmd_schema_path, "Print the path of an installed schema document."
    )
    sub.add_argument("name", help="e.g. tool-call-event, verdict, native-response, host")
    from ._ports_cli import register  # fixtures-path and conformance (issue 31)

    register(command)
    sub = command(
        "hook", _cmd_hook, "Run as the hook entry of one agent (stdin payload, native answer)."
    )
    sub.add_argument("agent", type=_agent, metavar="AGENT", help=_AGENT_HELP)
    judges = sub.add_mutually_exclusive_group()
    judges.add_argument(
        "--judge", help=f"module:callable (default: ${JUDGE_ENV}, else the demo judge)"
    )
    judges.add_argument("--policy", metavar="FILE", help=f"a TOML rule file (sets ${POLICY_ENV})")
    sub.add_argument(
        "--sole-gate", action="store_true", help=f"{_SOLE_GATE_HELP} (sets {SOLE_GATE_ENV}=1)"
    )
    sub.add_argument(
        "--fail-closed",
        action="store_true",
        help=f"block on any failure (sets {FAIL_CLOSED_ENV}=1)",
    )
    sub.add_argument(
        "--codex-version", help=f"the Codex version the launcher pins (sets {CODEX_VERSION_ENV})"
    )
    sub.add_argument(
        *_ON_UNRENDERED_ARGS,
        choices=UnrenderedPostures.ALL,
        help=f"{_ON_UNRENDERED_HELP} (sets {ON_UNRENDERED_ENV})",
    )
    sub = command(
        "install",
        _cmd_install,
        "Register a hook entry in a host's configuration (merged, idempotent).",
    )
    # Not choices=INSTALLABLE: importing install.py here would slow `acp hook`, which parses too.
    sub.add_argument(
        "host", nargs="?", help="e.g. claude; an unknown host is refused with the list"
    )
    where = sub.add_mutually_exclusive_group()
    where.add_argument(
        "--project",
        dest="scope",
        action="store_const",
        const="project",
        help="the project's configuration under --root (default)",
    )
    where.add_argument(
        "--user",
        dest="scope",
        action="store_const",
        const="user",
        help="the user's configuration under --home",
    )
    where.add_argument(
        "--managed",
        dest="scope",
        action="store_const",
        const="managed",
        help="the host's admin layer (e.g. /etc/claude-code/managed-settings.json; issue 28)",
    )
    sub.set_defaults(scope="project")
    sub.add_argument("--all", action="store_true", help="--managed: every host with an admin layer")
    sub.add_argument(
        "--local",
        action="store_true",
        help="claude: write .claude/settings.local.json, the per-machine file, not settings.json",
    )
    sub.add_argument(
        "--plugin",
        action="store_true",
        help="amp: write the Plugin API plugin to .amp/plugins/ (or ~/.config/amp/plugins/)"
        " instead of the amp.permissions delegate rule",
    )
    sub.add_argument("--root", type=Path, help="project folder (default: the current folder)")
    sub.add_argument("--home", type=Path, help="home folder (default: ~)")
    installed_judge = sub.add_mutually_exclusive_group()
    installed_judge.add_argument("--judge", help="module:callable the hook runs")
    installed_judge.add_argument("--policy", metavar="FILE", help="a TOML rule file the hook runs")
    sub.add_argument("--fail-closed", action="store_true", help="block when the hook fails")
    sub.add_argument("--sole-gate", action="store_true", help=_SOLE_GATE_HELP)
    sub.add_argument(
        "--matcher",
        metavar="REGEX",
        help="run the hook only for tools whose name matches, in the host's own matcher syntax"
        " (claude, factory, gemini, kiro, qwen), e.g. 'Bash|Edit|Write|mcp__.*'",
    )
    sub.add_argument("--timeout", type=int, help="the host's hook timeout in seconds (default 30)")
    sub.add_argument(*_ON_UNRENDERED_ARGS, choices=UnrenderedPostures.ALL, help=_ON_UNRENDERED_HELP)
    sub.add_argument("--codex-version", help="the Codex version your launcher pins (codex only)")
    sub.add_argument(
        "--host-version",
        metavar="VERSION",
        help="the installed host's version, written as ACP_<HOST>_VERSION so its version facts"
        " apply (claude, codex, copilot, qwen); detect runs the host's --version",
    )
    sub.add_argument(
        "--audit-log",
        metavar="PATH",
        help="register ACP_AUDIT_LOG=PATH in the hook command (made absolute; a file outside the"
        " project)",
    )
    sub.add_argument("--dry-run", action="store_true", help="print the diff, write nothing")
    sub.add_argument(
        "--resident",
        type=int,
        nargs="?",
        const=47300,
        metavar="PORT",
        help="write the host's HTTP transport to `acp serve` on 127.0.0.1:PORT (default 47300)",
    )
    sub = command(
        "policy",
        _cmd_policy,
        "Check rule files, run their tests, explain a decision, replay an audit log.",
    )
    sub.add_argument("action", choices=["check", "test", "explain", "replay"])
    sub.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="check/test: rule file(s); explain: RULES PAYLOAD (- reads stdin); replay: RULES AUDIT",
    )
    sub.add_argument("--agent", action="append", choices=AGENT_IDS, help="host(s) to run on")
    sub.add_argument("--fixtures", metavar="DIR", help="host fixture folder for test payloads")
    sub = command(
        "audit",
        _cmd_audit,
        "Summarize an audit log: counts and the slowest calls (`acp audit export`: ship it over OTLP).",
    )
    sub.add_argument("path", metavar="PATH", help="the ACP_AUDIT_LOG file; - reads stdin")
    sub.add_argument("--slowest", type=int, default=5, help="how many slow calls to list")
    sub = command(
        "new-adapter",
        _cmd_new_adapter,
        "Write a new host's declaration, adapter, fixture and test skeleton (source checkout only).",
    )
    sub.add_argument("name", help="the host id, e.g. cursor")
    sub.add_argument("--root", type=Path, help="checkout to write into (default: this one)")
    sub = command(
        "gen", _cmd_gen, "Regenerate the bindings from the schema (source checkout only)."
    )
    sub.add_argument("--check", action="store_true", help="compare instead of writing")
    from ._fleet_cli import register as register_fleet

    register_fleet(command)  # issue 28: uninstall, status
    from ._resident_cli import register as register_resident

    register_resident(command)  # issue 30: serve
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `acp` command line; return the exit code."""
    words = sys.argv[1:] if argv is None else list(argv)
    if words[:1] == ["hook"]:
        options = _hook_options(words[1:])
        if options is not None:
            _run_hook(options)
    if words[:2] == ["audit", "export"]:
        # The [otel] extra's command; a log file named export is `acp audit ./export`.
        from .export import main as export_main

        return export_main(words[2:])
    if words[:1] == ["policy"] and len(words) > 2 and {"-h", "--help"} & set(words[2:]):
        from .policy_cli import ACTION_HELP

        if words[1] in ACTION_HELP:  # issue 26: help per policy action
            print(ACTION_HELP[words[1]])
            return 0
    args, extra = _parser().parse_known_args(words)
    if extra:
        args._parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        code: int = args.handler(args)
    except UsageError as exc:
        print(f"acp {args.command}: {exc}", file=sys.stderr)
        return 2
    return code


def console_main() -> None:
    """Entry point of the `acp` console script."""
    sys.exit(main())


def _cmd_policy(args: argparse.Namespace) -> int:
    from .policy import check_policy_file

    if args.action != "check":
        from .policy_cli import policy_command

        return policy_command(args.action, args.files, args.agent or [], args.fixtures)
    failed = 0
    for name in args.files:
        problems = check_policy_file(name)
        failed += bool(problems)
        for problem in problems:
            print(f"{name}: {problem}", file=sys.stderr)
        if not problems:
            print(f"{name}: ok")
    return 1 if failed else 0


def _cmd_audit(args: argparse.Namespace) -> int:
    from .audit import summarize

    try:
        if args.path == "-":
            text = summarize(sys.stdin, slowest=args.slowest)
        else:
            with open(args.path, encoding="utf-8", errors="replace") as log:
                text = summarize(log, slowest=args.slowest)
    except OSError as exc:
        raise UsageError(f"cannot read {args.path} ({exc.strerror or exc})") from exc
    print(text)
    # N41: a file with lines but not one audit record is not an audit log.
    if text.startswith("0 call(s), "):
        print(f"acp audit: {args.path} holds no audit record", file=sys.stderr)
        return 1
    return 0
