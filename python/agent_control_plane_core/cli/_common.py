"""What every `acp` subcommand shares: agent names, usage errors, reading a payload."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any, Final

from .._generated.constants import (
    VerdictFields,
)
from ..adapters import AGENT_IDS, Adapter, adapter_for
from ..contract import json_bytes
from ..runtime import (
    entry_adapter,
)

if TYPE_CHECKING:
    import argparse


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
