"""The `acp` argument parser and its entry point."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from .._generated.constants import (
    UnrenderedPostures,
)
from ..adapters import AGENT_IDS
from ..runtime import (
    CODEX_VERSION_ENV,
    FAIL_CLOSED_ENV,
    JUDGE_ENV,
    ON_UNRENDERED_ENV,
    POLICY_ENV,
    SOLE_GATE_ENV,
)

if TYPE_CHECKING:
    import argparse
from ._bridge import _cmd_bridge
from ._common import (
    _AGENT_HELP,
    _ON_UNRENDERED_ARGS,
    _ON_UNRENDERED_HELP,
    _SOLE_GATE_HELP,
    UsageError,
    _agent,
)
from ._contract import (
    _VALIDATE_KINDS,
    _cmd_keys,
    _cmd_parse,
    _cmd_record,
    _cmd_render,
    _cmd_schema_path,
    _cmd_validate,
)
from ._hook import _cmd_hook, _hook_options, _run_hook
from ._install import _cmd_gen, _cmd_install, _cmd_new_adapter


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
    from ._ports import register  # fixtures-path and conformance (issue 31)

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
    # Not choices=INSTALLABLE: importing install/ here would slow `acp hook`, which parses too.
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
    from ._fleet import register as register_fleet

    register_fleet(command)  # issue 28: uninstall, status
    from ._resident import register as register_resident

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
        from ..export import main as export_main

        return export_main(words[2:])
    if words[:1] == ["policy"] and len(words) > 2 and {"-h", "--help"} & set(words[2:]):
        from ._policy import ACTION_HELP

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
    from ..policy import check_policy_file

    if args.action != "check":
        from ._policy import policy_command

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
    from ..audit import summarize

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
