# DO NOT EDIT: this file is generated.
# source: schema/control-plane/v1/hosts/*.json
# template: templates/python/hosts_init.py.j2
# regenerate: make codegen (python -m codegen)

"""Frozen host declarations, one module per schema/control-plane/v1/hosts/<agent>.json."""

from __future__ import annotations

from typing import Final

HOST_IDS: Final[tuple[str, ...]] = ("amp", "auggie", "claude", "cline", "codex", "copilot", "crush", "cursor", "factory", "gemini", "kiro", "opencode", "qwen", "windsurf")
"""Every host with a declaration document, sorted."""
