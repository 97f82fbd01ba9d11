"""Qwen Code adapter: Claude Code's hook protocol with Qwen Code's runtime tool ids."""

from __future__ import annotations

from .._generated.hosts import qwen as declaration
from .claude import ClaudeAdapter

__all__ = ["QwenAdapter", "qwen_adapter"]


class QwenAdapter(ClaudeAdapter):
    """Parses Qwen Code hook payloads and renders verdicts as Qwen Code enforces them."""

    # Qwen Code answers Claude Code's events and hookSpecificOutput (QwenLM/qwen-code
    # docs/users/features/hooks.md); its tool ids and the fields it lacks are in hosts/qwen.json.
    DECLARATION = declaration


qwen_adapter = QwenAdapter()
