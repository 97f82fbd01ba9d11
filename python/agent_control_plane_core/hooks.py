"""Console-script entries acp-<agent>-hook: one whole hook process per host."""

from __future__ import annotations

from typing import NoReturn

from .runtime import entry_adapter, run_hook_entry

__all__ = [
    "amp_main",
    "auggie_main",
    "claude_main",
    "cline_main",
    "codex_main",
    "copilot_main",
    "crush_main",
    "cursor_main",
    "factory_main",
    "gemini_main",
    "kiro_main",
    "main_for",
    "opencode_main",
    "qwen_main",
    "windsurf_main",
]


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


def factory_main() -> NoReturn:
    """acp-factory-hook."""
    main_for("factory")


def qwen_main() -> NoReturn:
    """acp-qwen-hook."""
    main_for("qwen")


def kiro_main() -> NoReturn:
    """acp-kiro-hook (preToolUse answers by exit code: 2 blocks with the reason on stderr)."""
    main_for("kiro")


def cursor_main() -> NoReturn:
    """acp-cursor-hook (register it on preToolUse in .cursor/hooks.json)."""
    main_for("cursor")


def copilot_main() -> NoReturn:
    """acp-copilot-hook (register it on preToolUse in .github/hooks/*.json)."""
    main_for("copilot")


def auggie_main() -> NoReturn:
    """acp-auggie-hook (Claude Code's protocol, in .augment/settings.json)."""
    main_for("auggie")


def crush_main() -> NoReturn:
    """acp-crush-hook (register it on PreToolUse in crush.json)."""
    main_for("crush")


def cline_main() -> NoReturn:
    """acp-cline-hook (run from the executable .clinerules/hooks/PreToolUse)."""
    main_for("cline")


def windsurf_main() -> NoReturn:
    """acp-windsurf-hook (register it on the pre_* actions in .windsurf/hooks.json)."""
    main_for("windsurf")


def opencode_main() -> NoReturn:
    """acp-opencode-hook (run by the plugin acp install opencode writes, one call per process)."""
    main_for("opencode")
