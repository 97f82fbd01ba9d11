"""Console-script entries acp-<agent>-hook: one whole hook process per host."""

from __future__ import annotations

from typing import NoReturn

from .runtime import entry_adapter, run_hook_entry

__all__ = ["amp_main", "claude_main", "codex_main", "gemini_main", "main_for"]


def main_for(agent: str) -> NoReturn:
    """Run the hook entry of one agent with the judge and options the environment names."""
    run_hook_entry(entry_adapter(agent))


def claude_main() -> NoReturn:
    """acp-claude-hook."""
    main_for("claude")


def codex_main() -> NoReturn:
    """acp-codex-hook (set ACP_CODEX_VERSION to the Codex version the launcher pins)."""
    main_for("codex")


def amp_main() -> NoReturn:
    """acp-amp-hook (the delegate form: parameters on stdin, tool name in AGENT_TOOL_NAME)."""
    main_for("amp")


def gemini_main() -> NoReturn:
    """acp-gemini-hook."""
    main_for("gemini")
