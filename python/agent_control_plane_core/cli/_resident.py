"""acp serve and acp install --resident: the resident hook transport (issue 30)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable
    from typing import Any

__all__ = ["install_resident", "register", "resident_handler"]

# The hosts whose hook configuration has a transport other than a process, as their declarations'
# notes record them (schema/control-plane/v1/hosts/claude.json, the HTTP hook notes): Claude Code
# 2.1.332 posts the hook payload to a "type": "http" handler's url and, with onFailure "block",
# counts a connection failure, a timeout or a non-2xx answer as a block. No other declared host
# has a non-process transport (their declarations name only command hooks or plugins).
_RESIDENT: dict[str, dict[str, Any]] = {
    "claude": {
        "type": "http",
        "settings": ".claude/settings.json",
        "default_timeout_s": 10,
        "blocking_failure": {"onFailure": "block"},
        # The failure rule was read and lab-verified on 2.1.332 only; 2.1.294 ignored onFailure
        # on command handlers (docs/findings.md CC-10), so an older host may run calls unjudged.
        "note": "a dead or slow acp serve blocks each call only where Claude Code honours"
        " onFailure on http hooks (read and lab-verified on 2.1.332, docs/resident-lab.md);"
        " keep acp serve running (a user service) or use the command hook",
    },
}


def _facts(host: str) -> dict[str, Any] | None:
    """The host's resident transport, or None when it has none."""
    return _RESIDENT.get(host)


def register(
    command: Callable[[str, Callable[[argparse.Namespace], int], str], argparse.ArgumentParser],
) -> None:
    """Add `acp serve` to the acp parser."""
    from .._serve import DEFAULT_PORT

    sub = command(
        "serve",
        _cmd_serve,
        "Answer hook calls over HTTP on 127.0.0.1 (or a Unix socket) with the judge loaded once;"
        " rule file and judge module changes are picked up without a restart.",
    )
    sub.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"default {DEFAULT_PORT}")
    sub.add_argument("--unix", metavar="PATH", help="listen on a Unix socket instead")
    judges = sub.add_mutually_exclusive_group()
    judges.add_argument("--judge", help="module:callable (default: $ACP_JUDGE, else the demo)")
    judges.add_argument("--policy", metavar="FILE", help="a TOML rule file")
    sub.add_argument("--fail-closed", action="store_true", help="block on any failure")


def _cmd_serve(args: argparse.Namespace) -> int:
    from .._serve import serve_main

    return serve_main(
        port=args.port,
        unix=args.unix,
        policy=args.policy,
        judge=args.judge,
        fail_closed=args.fail_closed,
    )


def resident_handler(host: str, port: int, timeout_s: int | None) -> dict[str, Any]:
    """The hook handler acp install --resident writes for one host (its declared transport)."""
    from .._serve import HOOK_PATH

    facts = _facts(host)
    if facts is None:
        raise ValueError(host)
    handler: dict[str, Any] = {
        "type": facts["type"],
        "url": f"http://127.0.0.1:{port}{HOOK_PATH}{host}",
        "timeout": facts["default_timeout_s"] if timeout_s is None else timeout_s,
    }
    if facts.get("blocking_failure"):
        handler.update(facts["blocking_failure"])
    return handler


def install_resident(args: argparse.Namespace) -> int:
    """Write the host's resident transport in place of its command hook, or say why not."""
    from ..install._command import _is_ours
    from ..install._json_nested import _native_events

    host = args.host
    facts = _facts(host)
    if facts is None:
        # No transport but a process: the command hook stays, and nothing is written.
        print(
            f"acp install {host}: {host} declares no hook transport but a process, so a resident"
            " server cannot answer it; the command hook (acp install without --resident) stays"
            " the way to register it",
            file=sys.stderr,
        )
        return 2
    if facts.get("note"):
        print(f"note: {facts['note']}", file=sys.stderr)
    if not facts.get("blocking_failure"):
        print(
            f"note: {host}'s {facts['type']} hooks have no blocking failure mode: while the"
            " server is down or slow, every call runs unjudged; prefer the command hook",
            file=sys.stderr,
        )
    base = (args.home or Path.home()) if args.scope == "user" else (args.root or Path.cwd())
    path = base / facts["settings"]
    settings: dict[str, Any] = {}
    if path.exists():
        try:
            settings = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as exc:
            return _refuse(f"{path} is not JSON ({exc}); fix it by hand")
    hooks = settings.setdefault("hooks", {}) if isinstance(settings, dict) else None
    if not isinstance(hooks, dict):
        return _refuse(f"{path}: hooks is not an object; fix it by hand")
    handler = resident_handler(host, args.resident, args.timeout)
    for _kind, event in _native_events(host):
        groups = hooks.setdefault(event, [])
        for group in groups if isinstance(groups, list) else []:
            inner = group.get("hooks") if isinstance(group, dict) else None
            if isinstance(inner, list):
                # Ours, command or http: the resident entry replaces them (one verdict per call).
                inner[:] = [
                    h
                    for h in inner
                    if not (isinstance(h, dict) and _ours(h, host, handler["url"], _is_ours))
                ]
        groups[:] = [g for g in groups if not (isinstance(g, dict) and g.get("hooks") == [])]
        groups.append({"hooks": [dict(handler)]})
    text = json.dumps(settings, indent=2) + "\n"
    if args.dry_run:
        print(text, end="")
        return 0
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    print(f"{path}: {host} resident hook registered ({handler['url']}); run `acp serve`")
    return 0


def _refuse(problem: str) -> int:
    """Say why nothing was written, as acp reports a usage error (exit 2)."""
    print(f"acp install: {problem}", file=sys.stderr)
    return 2


def _ours(handler: dict[str, Any], host: str, url: str, is_ours: Callable[..., bool]) -> bool:
    if handler.get("type") == "http":
        return isinstance(handler.get("url"), str) and handler["url"].endswith(f"/hook/{host}")
    return is_ours(handler.get("command"), host)
