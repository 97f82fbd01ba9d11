# DO NOT EDIT: this file is generated.
# source: schema/control-plane/v1/hosts/copilot.json
# template: templates/python/host.py.j2
# regenerate: make codegen (python -m codegen)

"""Declaration of the copilot host: what it can carry and enforce."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from ..constants import CallClass, ContentField, CoverageStatus, DeadHook, EventKind, IntegrationMode

AGENT: Final = "copilot"
INTEGRATION_MODE: Final[IntegrationMode] = "external_hook"
PRIMARY_GATE_PRESENT: Final = True
COVERAGE: Final[Mapping[CallClass, CoverageStatus]] = MappingProxyType({"builtin": "covered", "mcp": "covered", "resumed": "unknown", "subagent": "unknown"})
GATED_KINDS: Final[frozenset[EventKind]] = frozenset({"pre_tool"})
COVERAGE_KINDS: Final[frozenset[EventKind]] = frozenset({"pre_tool"})
NATIVE_ASK_TIER: Final = False
UNRENDERED_FIELDS: Final[Mapping[EventKind, frozenset[ContentField]]] = MappingProxyType(
    {
        "post_tool": frozenset({"additional_context", "mutated_input", "mutated_output"}),
        "pre_tool": frozenset({"mutated_output"}),
        "prompt_submit": frozenset({"additional_context", "mutated_input", "mutated_output"}),
        "session_start": frozenset({"mutated_input", "mutated_output"}),
        "unknown": frozenset({"additional_context", "mutated_input", "mutated_output"}),
    }
)
NATIVE_EVENTS: Final[Mapping[str, EventKind]] = MappingProxyType({"PostToolUse": "post_tool", "PreToolUse": "pre_tool", "SessionStart": "session_start", "UserPromptSubmit": "prompt_submit", "postToolUse": "post_tool", "preToolUse": "pre_tool", "sessionStart": "session_start", "userPromptSubmitted": "prompt_submit"})
NATIVE_EVENT_FOR: Final[Mapping[EventKind, str]] = MappingProxyType({"post_tool": "postToolUse", "pre_tool": "preToolUse", "prompt_submit": "userPromptSubmitted", "session_start": "sessionStart"})
TOOL_ALIASES: Final[Mapping[str, str]] = MappingProxyType({"bash": "Bash", "create": "Write", "edit": "Edit", "powershell": "Bash", "view": "Read", "web_fetch": "WebFetch"})
INPUT_KEY_RENAMES: Final[Mapping[str, Mapping[str, str]]] = MappingProxyType(
    {
        "create": MappingProxyType({"path": "file_path"}),
        "edit": MappingProxyType({"path": "file_path"}),
        "view": MappingProxyType({"path": "file_path"}),
    }
)
# Per native tool, the input key naming every file it changes and its form (host.schema.json derived_paths).
DERIVED_PATHS: Final[Mapping[str, tuple[str, str]]] = MappingProxyType({
})
# How the declaration's gating facts are known: (level, where) (host.schema.json evidence).
EVIDENCE: Final[tuple[str, str] | None] = None
DEFAULT_BLOCK_REASON: Final = "blocked by monitor"
FAILURE_EXIT_CODE: Final = 0
FAILURE_STDOUT: Final[Mapping[str, object] | None] = MappingProxyType({"permissionDecision": "deny", "permissionDecisionReason": "the guardrail hook failed, so the call is denied (see the hook's stderr)"})
# ACP_FAIL_CLOSED=1: the host's own block signal (block_response; absent: exit 2, failure body).
BLOCK_EXIT_CODE: Final = 0
BLOCK_STDOUT: Final[Mapping[str, object] | None] = MappingProxyType({"permissionDecision": "deny", "permissionDecisionReason": "the guardrail hook failed, so the call is denied (see the hook's stderr)"})
EXIT_ZERO_BLOCK: Final = True
BLOCK_ENDS_RUN: Final = False
# What the host does with a call whose hook died without answering (dead_hook; absent: runs).
DEAD_HOOK: Final[DeadHook] = "runs"
# The admin layer acp install --managed writes (host.schema.json ManagedLayer; None: none known).
MANAGED: Final[Mapping[str, object] | None] = None
FEATURES: Final[Mapping[str, bool]] = MappingProxyType({"exit_2_denies": False})
SUPPORTED_VERSIONS: Final[tuple[str, str] | None] = ("1.0.24", "1.0.102")
LAB_VERSIONS: Final[tuple[str, ...]] = ("1.0.102", "1.0.65")
VERSION_PAYLOAD_FIELD: Final[str | None] = None
# Each fact: {id, since?, until?, set}; since inclusive, until exclusive (host.schema.json VersionFact).
VERSION_FACTS: Final[tuple[Mapping[str, object], ...]] = (
    MappingProxyType({"id": "exit-2-denies", "set": MappingProxyType({"features": MappingProxyType({"exit_2_denies": True})}), "since": "1.0.70", "until": None}),
    MappingProxyType({"id": "post-tool-context-and-result", "set": MappingProxyType({"rendered_fields": MappingProxyType({"post_tool": ("additional_context", "mutated_output")})}), "since": "1.0.51", "until": None}),
    MappingProxyType({"id": "subagent-hooks", "set": MappingProxyType({"coverage": MappingProxyType({"subagent": "covered"})}), "since": "1.0.49", "until": None}),
    MappingProxyType({"id": "errored-hook-denies", "set": MappingProxyType({"dead_hook": "blocks"}), "since": "1.0.57", "until": None}),
)
# Integration forms beside the top-level one, by name: the overlay <agent>_form lays (host.schema.json Form).
FORMS: Final[Mapping[str, Mapping[str, object]]] = MappingProxyType({
})
