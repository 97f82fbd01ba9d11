"""`acp fixtures-path` and `acp conformance`: what a port in another language needs from an install."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

__all__ = ["fixture_path", "register"]


def fixture_path(agent: str) -> Traversable:
    """Return the installed golden fixture file of a host (a byte copy of fixtures/<agent>.json)."""
    folder = resources.files("agent_control_plane_core").joinpath("fixtures")
    names = sorted(
        e.name.removesuffix(".json") for e in folder.iterdir() if e.name.endswith(".json")
    )
    if agent not in names:
        raise ValueError(f"no fixture file for agent {agent!r}: choose one of {', '.join(names)}")
    return folder.joinpath(f"{agent}.json")


def register(command: Callable[[str, Callable[[argparse.Namespace], int], str], Any]) -> None:
    """Add the two sub-commands to the acp parser."""
    sub = command(
        "fixtures-path", _fixtures_path, "Print the path of a host's installed golden fixture file."
    )
    sub.add_argument("agent", metavar="AGENT", help="e.g. claude")
    sub = command(
        "conformance",
        _conformance,
        "Run the conformance kit against AGENT's adapter: the built-in one, or with --exec any"
        " program that speaks the JSON Lines protocol of docs/adapter-authoring.md.",
    )
    sub.add_argument("--agent", required=True, metavar="AGENT", help="the host the adapter is for")
    sub.add_argument(
        "--fixtures",
        type=Path,
        metavar="FILE",
        help="fixture file (default: AGENT's installed one)",
    )
    sub.add_argument(
        "--timeout", type=float, default=10.0, help="seconds per request (default: 10)"
    )
    sub.add_argument(
        "--exec",
        dest="exec_command",
        nargs=argparse.REMAINDER,
        metavar="CMD",
        help="the adapter program and its arguments (everything after --exec)",
    )


def _usage(command: str, problem: object) -> int:
    """What cli.UsageError does (exit 2, the message on stderr), without importing cli (a cycle)."""
    print(f"acp {command}: {problem}", file=sys.stderr)
    return 2


def _fixtures_path(args: argparse.Namespace) -> int:
    try:
        print(fixture_path(args.agent))
    except ValueError as exc:
        return _usage("fixtures-path", exc)
    return 0


def _conformance(args: argparse.Namespace) -> int:
    from ..adapters import adapter_for
    from ..conformance import ConformanceError, FixtureError, load_fixtures, validate_fixtures
    from ..conformance._external import ExecFailure, run_exec_conformance

    try:
        source = args.fixtures or fixture_path(args.agent)
        fixtures = load_fixtures(str(source))
        validate_fixtures(fixtures)
    except (OSError, ValueError, FixtureError) as exc:
        return _usage("conformance", exc)
    try:
        if args.exec_command:
            report = run_exec_conformance(args.exec_command, fixtures, args.timeout)
        else:
            from ..conformance import run_adapter_conformance

            report = run_adapter_conformance(adapter_for(args.agent), fixtures)
    except (ConformanceError, ExecFailure) as exc:
        print(f"acp conformance: {exc}", file=sys.stderr)
        return 1
    summary = {
        "agent": report.agent,
        "conforms": True,
        "cases": report.cases,
        "scenarios": report.scenarios,
        "probe_events": report.probe_events,
        "checks": sum(report.checks.values()),
    }
    print(json.dumps(summary))
    return 0
