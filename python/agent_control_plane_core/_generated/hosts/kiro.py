# DO NOT EDIT: this file is generated.
# source: schema/control-plane/v1/hosts/kiro.json
# template: templates/python/host.py.j2
# regenerate: make codegen (python -m codegen)

"""Declaration of the kiro host: what it can carry and enforce."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from ..constants import CallClass, ContentField, CoverageStatus, DeadHook, EventKind, IntegrationMode

AGENT: Final = "kiro"
INTEGRATION_MODE: Final[IntegrationMode] = "external_hook"
PRIMARY_GATE_PRESENT: Final = True
COVERAGE: Final[Mapping[CallClass, CoverageStatus]] = MappingProxyType({"builtin": "covered", "mcp": "covered", "resumed": "unknown", "subagent": "unknown"})
GATED_KINDS: Final[frozenset[EventKind]] = frozenset({"pre_tool", "prompt_submit"})
COVERAGE_KINDS: Final[frozenset[EventKind]] = frozenset({"pre_tool", "prompt_submit"})
NATIVE_ASK_TIER: Final = False
UNRENDERED_FIELDS: Final[Mapping[EventKind, frozenset[ContentField]]] = MappingProxyType(
    {
        "post_tool": frozenset({"additional_context", "mutated_input", "mutated_output"}),
        "pre_tool": frozenset({"additional_context", "mutated_input", "mutated_output"}),
        "prompt_submit": frozenset({"additional_context", "mutated_input", "mutated_output"}),
        "session_start": frozenset({"additional_context", "mutated_input", "mutated_output"}),
        "unknown": frozenset({"additional_context", "mutated_input", "mutated_output"}),
    }
)
NATIVE_EVENTS: Final[Mapping[str, EventKind]] = MappingProxyType({"AgentSpawn": "session_start", "PostToolUse": "post_tool", "PreToolUse": "pre_tool", "SessionStart": "session_start", "UserPromptSubmit": "prompt_submit", "agentSpawn": "session_start", "postToolUse": "post_tool", "preToolUse": "pre_tool", "userPromptSubmit": "prompt_submit"})
NATIVE_EVENT_FOR: Final[Mapping[EventKind, str]] = MappingProxyType({"post_tool": "PostToolUse", "pre_tool": "PreToolUse", "prompt_submit": "UserPromptSubmit", "session_start": "SessionStart"})
TOOL_ALIASES: Final[Mapping[str, str]] = MappingProxyType({"execute_bash": "Bash", "execute_cmd": "Bash", "fs_read": "Read", "fs_write": "Write", "read": "Read", "shell": "Bash", "write": "Write"})
INPUT_KEY_RENAMES: Final[Mapping[str, Mapping[str, str]]] = MappingProxyType(
    {
        "fs_write": MappingProxyType({"path": "file_path"}),
        "write": MappingProxyType({"path": "file_path"}),
    }
)
# Per native tool, the input key naming every file it changes and its form (host.schema.json derived_paths).
DERIVED_PATHS: Final[Mapping[str, tuple[str, str]]] = MappingProxyType({
})
# How the declaration's gating facts are known: (level, where) (host.schema.json evidence).
EVIDENCE: Final[tuple[str, str] | None] = ("source_read", "aws/amazon-q-developer-cli @ 15cc8f3cd18c4272925ce1c7053268eedff1ea0a; kiro.dev/docs/cli/v3/hooks (CLI 2.13)")
DEFAULT_BLOCK_REASON: Final = "blocked by monitor"
FAILURE_EXIT_CODE: Final = 0
FAILURE_STDOUT: Final[Mapping[str, object] | None] = None
# ACP_FAIL_CLOSED=1: the host's own block signal (block_response; absent: exit 2, failure body).
BLOCK_EXIT_CODE: Final = 2
BLOCK_STDOUT: Final[Mapping[str, object] | None] = None
EXIT_ZERO_BLOCK: Final = False
BLOCK_ENDS_RUN: Final = False
# What the host does with a call whose hook died without answering (dead_hook; absent: runs).
DEAD_HOOK: Final[DeadHook] = "runs"
# The admin layer acp install --managed writes (host.schema.json ManagedLayer; None: none known).
MANAGED: Final[Mapping[str, object] | None] = None
FEATURES: Final[Mapping[str, bool]] = MappingProxyType({})
SUPPORTED_VERSIONS: Final[tuple[str, str] | None] = None
LAB_VERSIONS: Final[tuple[str, ...]] = ()
VERSION_PAYLOAD_FIELD: Final[str | None] = None
# Each fact: {id, since?, until?, set}; since inclusive, until exclusive (host.schema.json VersionFact).
VERSION_FACTS: Final[tuple[Mapping[str, object], ...]] = (
)
# Integration forms beside the top-level one, by name: the overlay <agent>_form lays (host.schema.json Form).
FORMS: Final[Mapping[str, Mapping[str, object]]] = MappingProxyType({
})
