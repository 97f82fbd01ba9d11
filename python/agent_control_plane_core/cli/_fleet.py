"""The `acp uninstall` and `acp status` sub-commands (issue 28), registered by cli._parser."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse

__all__ = ["register"]


def _scope_options(sub: argparse.ArgumentParser) -> None:
    from pathlib import Path

    where = sub.add_mutually_exclusive_group()
    where.add_argument(
        "--project",
        dest="scope",
        action="store_const",
        const="project",
        help="the project (default)",
    )
    where.add_argument("--user", dest="scope", action="store_const", const="user", help="the user")
    where.add_argument(
        "--managed", dest="scope", action="store_const", const="managed", help="the admin layer"
    )
    sub.set_defaults(scope="project")
    sub.add_argument("--local", action="store_true", help="claude: .claude/settings.local.json")
    sub.add_argument("--plugin", action="store_true", help="amp: the Plugin API plugin")
    sub.add_argument("--root", type=Path, help="project folder (default: the current folder)")
    sub.add_argument("--home", type=Path, help="home folder (default: ~)")


def register(
    command: Callable[[str, Callable[[argparse.Namespace], int], str], argparse.ArgumentParser],
) -> None:
    """Add uninstall and status to the acp parser."""
    sub = command(
        "uninstall",
        _cmd_uninstall,
        "Remove the entries acp install wrote for a host; each file as it was before the install.",
    )
    sub.add_argument("host", nargs="?", help="e.g. claude")
    _scope_options(sub)
    sub.add_argument("--dry-run", action="store_true", help="print the diff, write nothing")
    sub.add_argument("--all", action="store_true", help="--managed: every host with an admin layer")
    sub = command(
        "status",
        _cmd_status,
        "List every acp hook entry per host and scope, its policy and digest, and what is broken"
        " (exit 1 when anything is).",
    )
    from pathlib import Path

    sub.add_argument("--root", type=Path, help="project folder (default: the current folder)")
    sub.add_argument("--home", type=Path, help="home folder (default: ~)")


def _cmd_uninstall(args: argparse.Namespace) -> int:
    if args.all and args.scope == "managed":
        from argparse import Namespace

        from .._managed import managed_hosts

        codes = [
            _cmd_uninstall(Namespace(**{**vars(args), "all": False, "host": host}))
            for host in managed_hosts()
        ]
        return max(codes)
    import difflib

    from .._uninstall import plan_uninstall
    from ..install import InstallError

    if args.host is None:
        return _refused(InstallError("name the host, e.g. acp uninstall claude"))

    try:
        plans = plan_uninstall(
            args.host,
            scope=args.scope,
            root=args.root,
            home=args.home,
            local=args.local,
            plugin=args.plugin,
        )
    except InstallError as exc:
        return _refused(exc)
    if not plans:
        print(f"no {args.host} entry of acp install in the {args.scope} scope; nothing to change")
        return 0
    for plan in plans:
        for note in plan.notes:
            print(f"note: {note}", file=sys.stderr)
        if args.dry_run:
            lines = difflib.unified_diff(
                plan.before.splitlines(keepends=True),
                (plan.after or "").splitlines(keepends=True),
                fromfile=str(plan.path),
                tofile=str(plan.path) if plan.after is not None else "/dev/null",
            )
            print("".join(lines), end="")
            continue
        try:
            plan.apply()
        except InstallError as exc:
            return _refused(exc)
        if plan.after is None:
            print(f"{plan.path}: removed (acp install created it)")
        elif plan.restored:
            print(f"{plan.path}: restored as it was before acp install")
        else:
            print(f"{plan.path}: {args.host} entries removed")
    return 0


def _refused(exc: Exception) -> int:
    """What cli.main does for a UsageError (this module is imported by cli, not the reverse)."""
    print(f"acp uninstall: {exc}", file=sys.stderr)
    return 2


def _cmd_status(args: argparse.Namespace) -> int:
    from .._status import installed, status_text

    findings, bare = installed(root=args.root, home=args.home)
    print(status_text(findings, bare))
    return 1 if any(finding.broken for finding in findings) else 0
