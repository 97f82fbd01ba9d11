# DO NOT EDIT: this file is generated.
# source: schema/control-plane/v1/hosts/*.json
# template: templates/python/hosts_init.py.j2
# regenerate: make codegen (python -m codegen)

"""Frozen host declarations, one module per schema/control-plane/v1/hosts/<agent>.json."""

from __future__ import annotations

from types import MappingProxyType

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Final

HOST_IDS: Final[tuple[str, ...]] = ("amp", "auggie", "claude", "cline", "codex", "copilot", "crush", "cursor", "factory", "gemini", "kiro", "opencode", "qwen", "windsurf")
"""Every host with a declaration document, sorted."""

SENDER_MARKERS: Final[Mapping[str, tuple[tuple[str, tuple[str, ...], Mapping[str, tuple[str, ...]]], ...]]] = MappingProxyType(
    {
        "claude": (
            (
                "cursor",
                ("cursor_version", "conversation_id"),
                MappingProxyType({}),
            ),
            (
                "factory",
                (),
                MappingProxyType({"permission_mode": ("off", "spec", "auto-low", "auto-medium", "auto-high")}),
            ),
        ),
    }
)
"""Receiving host id -> (sender host id, string fields, field values) for the hosts that run its hook configuration (sender_markers, XH-1)."""
