"""Continue CLI (cn) adapter: Claude Code's hook protocol, with cn's own declaration."""

from __future__ import annotations

from .._generated.hosts import continue_cli as declaration
from .claude import ClaudeAdapter

__all__ = ["ContinueCliAdapter", "continue_cli_adapter"]


class ContinueCliAdapter(ClaudeAdapter):
    """Parses cn hook payloads and renders verdicts as cn's hook runner reads them."""

    # cn's runner reads Claude Code's events and hookSpecificOutput (@continuedev/cli 1.5.47
    # src/hooks/hookRunner.ts); that 1.5.47 never fires it is data in hosts/continue_cli.json.
    DECLARATION = declaration


continue_cli_adapter = ContinueCliAdapter()
