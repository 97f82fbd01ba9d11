"""Console-script entries acp-<agent>-hook: one whole hook process per host."""

from __future__ import annotations

from collections.abc import Callable

from ._generated.hosts import HOST_IDS
from .runtime import entry_adapter, run_hook_entry

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn

# One <agent>_main per declared host: a new host's console script needs no edit here.
__all__ = sorted(["main_for", *(f"{agent}_main" for agent in HOST_IDS)])


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
    """acp-cline-hook (run from the executables .clinerules/hooks/PreToolUse and PostToolUse)."""
    main_for("cline")


def windsurf_main() -> NoReturn:
    """acp-windsurf-hook (register it on the pre_* actions in .windsurf/hooks.json)."""
    main_for("windsurf")


def opencode_main() -> NoReturn:
    """acp-opencode-hook (run by the plugin acp install opencode writes, one call per process)."""
    main_for("opencode")


def __getattr__(name: str) -> Callable[[], NoReturn]:
    """acp-<agent>-hook for a declared host without a hand-written entry above."""
    agent = name.removesuffix("_main")
    if name.endswith("_main") and agent in HOST_IDS:

        def main() -> NoReturn:
            main_for(agent)

        main.__doc__ = f"acp-{agent}-hook."
        return main
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
