# DO NOT EDIT: this file is generated.
# source: schema/control-plane/v1/*.schema.json
# source: schema/control-plane/v1/tool-input-keys.json
# source: schema/control-plane/v1/tool-aliases.json
# template: templates/python/constants.py.j2
# regenerate: make codegen (python -m codegen)

"""Contract constants: versions, enumerations, tool input keys and tool aliases."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from .._lazy_typing import lazy_aliases

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, Literal, TypeAlias

SCHEMA_VERSION: Final = 1
"""Wire version of the contract (ToolCallEvent.schema_version)."""

CONTROL_PLANE_SCHEMA: Final = "control-plane/v1"
"""Name of the schema folder this package implements."""


if TYPE_CHECKING:
    UnrenderedPosture: TypeAlias = Literal["deny", "note", "allow"]
    """What a hook entry does when a verdict asks for content the host cannot carry on that event (ACP_ON_UNRENDERED): deny the call where it can still be stopped, note it on stderr, or allow it silently."""


class UnrenderedPostures:
    """Values of UnrenderedPosture, defined in audit-record.schema.json."""

    ALL: Final[tuple[UnrenderedPosture, ...]] = ("deny", "note", "allow")
    DENY: Final = "deny"
    NOTE: Final = "note"
    ALLOW: Final = "allow"


if TYPE_CHECKING:
    CallClass: TypeAlias = Literal["builtin", "mcp", "subagent", "resumed"]
    """Where a tool call comes from: a host builtin, an MCP server, a subagent, or a resumed session."""


class CallClasses:
    """Values of CallClass, defined in host.schema.json."""

    ALL: Final[tuple[CallClass, ...]] = ("builtin", "mcp", "subagent", "resumed")
    BUILTIN: Final = "builtin"
    MCP: Final = "mcp"
    SUBAGENT: Final = "subagent"
    RESUMED: Final = "resumed"


if TYPE_CHECKING:
    CoverageStatus: TypeAlias = Literal["covered", "partial", "uncovered", "unknown"]
    """Whether the hook fires and can block for a class of call: fully, for some tools only, not at all, or not known."""


class CoverageStatuses:
    """Values of CoverageStatus, defined in host.schema.json."""

    ALL: Final[tuple[CoverageStatus, ...]] = ("covered", "partial", "uncovered", "unknown")
    COVERED: Final = "covered"
    PARTIAL: Final = "partial"
    UNCOVERED: Final = "uncovered"
    UNKNOWN: Final = "unknown"


if TYPE_CHECKING:
    DeadHook: TypeAlias = Literal["runs", "blocks", "blocks_fail_closed"]
    """A host's answer to a hook that dies without answering: the call runs, the host blocks it, or it blocks only with the failure option the installer's --fail-closed entry sets."""


class DeadHooks:
    """Values of DeadHook, defined in host.schema.json."""

    ALL: Final[tuple[DeadHook, ...]] = ("runs", "blocks", "blocks_fail_closed")
    RUNS: Final = "runs"
    BLOCKS: Final = "blocks"
    BLOCKS_FAIL_CLOSED: Final = "blocks_fail_closed"


if TYPE_CHECKING:
    EvidenceLevel: TypeAlias = Literal["lab_verified", "source_read", "host_docs", "third_party"]
    """How a host fact is known, strongest first: seen on the real host in the lab, read in the host's own source or shipped bundle, read in the host's own documentation, or only reported by a third party. A third-party report never makes a render claim a block."""


class EvidenceLevels:
    """Values of EvidenceLevel, defined in host.schema.json."""

    ALL: Final[tuple[EvidenceLevel, ...]] = ("lab_verified", "source_read", "host_docs", "third_party")
    LAB_VERIFIED: Final = "lab_verified"
    SOURCE_READ: Final = "source_read"
    HOST_DOCS: Final = "host_docs"
    THIRD_PARTY: Final = "third_party"


if TYPE_CHECKING:
    VetoingCoverage: TypeAlias = Literal["covered", "partial"]
    """Coverage statuses under which a block on a gated kind is honoured."""


class VetoingCoverages:
    """Values of VetoingCoverage, defined in host.schema.json."""

    ALL: Final[tuple[VetoingCoverage, ...]] = ("covered", "partial")
    COVERED: Final = "covered"
    PARTIAL: Final = "partial"


if TYPE_CHECKING:
    PolicyMode: TypeAlias = Literal["enforce", "observe"]
    """Whether a policy or rule decides (enforce) or only records what it would have decided (observe)."""


class PolicyModes:
    """Values of PolicyMode, defined in policy.schema.json."""

    ALL: Final[tuple[PolicyMode, ...]] = ("enforce", "observe")
    ENFORCE: Final = "enforce"
    OBSERVE: Final = "observe"


if TYPE_CHECKING:
    UnparsedOutcome: TypeAlias = Literal["match", "no_match"]
    """Whether input the judge cannot read completely counts as a match of a deny or ask rule."""


class UnparsedOutcomes:
    """Values of UnparsedOutcome, defined in policy.schema.json."""

    ALL: Final[tuple[UnparsedOutcome, ...]] = ("match", "no_match")
    MATCH: Final = "match"
    NO_MATCH: Final = "no_match"


if TYPE_CHECKING:
    UnrenderedDecision: TypeAlias = Literal["deny", "allow"]
    """What a rule does when its rewrite cannot reach the host: deny, or allow the rule's own decision without the rewrite."""


class UnrenderedDecisions:
    """Values of UnrenderedDecision, defined in policy.schema.json."""

    ALL: Final[tuple[UnrenderedDecision, ...]] = ("deny", "allow")
    DENY: Final = "deny"
    ALLOW: Final = "allow"


if TYPE_CHECKING:
    EventKind: TypeAlias = Literal["pre_tool", "post_tool", "prompt_submit", "session_start", "unknown"]
    """The event kinds the contract models."""


class EventKinds:
    """Values of EventKind, defined in tool-call-event.schema.json."""

    ALL: Final[tuple[EventKind, ...]] = ("pre_tool", "post_tool", "prompt_submit", "session_start", "unknown")
    PRE_TOOL: Final = "pre_tool"
    POST_TOOL: Final = "post_tool"
    PROMPT_SUBMIT: Final = "prompt_submit"
    SESSION_START: Final = "session_start"
    UNKNOWN: Final = "unknown"


if TYPE_CHECKING:
    IntegrationMode: TypeAlias = Literal["external_hook", "in_process", "observe_only"]
    """How the guardrail is attached to the host: an external hook process, code inside the host, or a channel that can only watch."""


class IntegrationModes:
    """Values of IntegrationMode, defined in tool-call-event.schema.json."""

    ALL: Final[tuple[IntegrationMode, ...]] = ("external_hook", "in_process", "observe_only")
    EXTERNAL_HOOK: Final = "external_hook"
    IN_PROCESS: Final = "in_process"
    OBSERVE_ONLY: Final = "observe_only"


if TYPE_CHECKING:
    StandardMetaField: TypeAlias = Literal["session_id", "cwd", "permission_mode", "transcript_path"]
    """Names of the optional meta fields copied from the native payload when their value is a string."""


class StandardMetaFields:
    """Values of StandardMetaField, defined in tool-call-event.schema.json."""

    ALL: Final[tuple[StandardMetaField, ...]] = ("session_id", "cwd", "permission_mode", "transcript_path")
    SESSION_ID: Final = "session_id"
    CWD: Final = "cwd"
    PERMISSION_MODE: Final = "permission_mode"
    TRANSCRIPT_PATH: Final = "transcript_path"


if TYPE_CHECKING:
    ContentField: TypeAlias = Literal["mutated_input", "mutated_output", "additional_context"]
    """Verdict fields that carry content to the host, each of which a host may have no channel for."""


class ContentFields:
    """Values of ContentField, defined in verdict.schema.json."""

    ALL: Final[tuple[ContentField, ...]] = ("mutated_input", "mutated_output", "additional_context")
    MUTATED_INPUT: Final = "mutated_input"
    MUTATED_OUTPUT: Final = "mutated_output"
    ADDITIONAL_CONTEXT: Final = "additional_context"


if TYPE_CHECKING:
    Decision: TypeAlias = Literal["allow", "deny", "ask"]
    """The three decisions a guardrail can make."""


class Decisions:
    """Values of Decision, defined in verdict.schema.json."""

    ALL: Final[tuple[Decision, ...]] = ("allow", "deny", "ask")
    ALLOW: Final = "allow"
    DENY: Final = "deny"
    ASK: Final = "ask"


class AuditRecordFields:
    """Field names of AuditRecord, in audit-record.schema.json order."""

    ALL: Final[tuple[str, ...]] = ("time", "agent", "event", "verdict", "exit_code", "enforced", "duration_ms", "unrendered", "rule", "failure")
    REQUIRED: Final[tuple[str, ...]] = ("time", "agent", "event", "verdict", "exit_code", "enforced", "duration_ms")
    TIME: Final = "time"
    AGENT: Final = "agent"
    EVENT: Final = "event"
    VERDICT: Final = "verdict"
    EXIT_CODE: Final = "exit_code"
    ENFORCED: Final = "enforced"
    DURATION_MS: Final = "duration_ms"
    UNRENDERED: Final = "unrendered"
    RULE: Final = "rule"
    FAILURE: Final = "failure"


class HostDeclarationFields:
    """Field names of HostDeclaration, in host.schema.json order."""

    ALL: Final[tuple[str, ...]] = ("agent", "integration_mode", "primary_gate_present", "coverage", "gated_kinds", "coverage_kinds", "native_ask_tier", "unrendered_fields", "native_events", "native_event_for", "tool_aliases", "input_key_renames", "derived_paths", "default_block_reason", "failure_response", "exit_zero_block", "block_ends_run", "sender_markers", "dead_hook", "features", "versions", "built_from", "version_facts", "forms", "notes", "block_response", "evidence", "managed")
    REQUIRED: Final[tuple[str, ...]] = ("agent", "integration_mode", "primary_gate_present", "coverage", "gated_kinds", "native_ask_tier", "unrendered_fields", "native_events", "native_event_for", "tool_aliases", "input_key_renames", "default_block_reason", "failure_response", "notes")
    AGENT: Final = "agent"
    INTEGRATION_MODE: Final = "integration_mode"
    PRIMARY_GATE_PRESENT: Final = "primary_gate_present"
    COVERAGE: Final = "coverage"
    GATED_KINDS: Final = "gated_kinds"
    COVERAGE_KINDS: Final = "coverage_kinds"
    NATIVE_ASK_TIER: Final = "native_ask_tier"
    UNRENDERED_FIELDS: Final = "unrendered_fields"
    NATIVE_EVENTS: Final = "native_events"
    NATIVE_EVENT_FOR: Final = "native_event_for"
    TOOL_ALIASES: Final = "tool_aliases"
    INPUT_KEY_RENAMES: Final = "input_key_renames"
    DERIVED_PATHS: Final = "derived_paths"
    DEFAULT_BLOCK_REASON: Final = "default_block_reason"
    FAILURE_RESPONSE: Final = "failure_response"
    EXIT_ZERO_BLOCK: Final = "exit_zero_block"
    BLOCK_ENDS_RUN: Final = "block_ends_run"
    SENDER_MARKERS: Final = "sender_markers"
    DEAD_HOOK: Final = "dead_hook"
    FEATURES: Final = "features"
    VERSIONS: Final = "versions"
    BUILT_FROM: Final = "built_from"
    VERSION_FACTS: Final = "version_facts"
    FORMS: Final = "forms"
    NOTES: Final = "notes"
    BLOCK_RESPONSE: Final = "block_response"
    EVIDENCE: Final = "evidence"
    MANAGED: Final = "managed"


class BuiltFromFields:
    """Field names of BuiltFrom, in host.schema.json order."""

    ALL: Final[tuple[str, ...]] = ("version", "not_in_lab")
    REQUIRED: Final[tuple[str, ...]] = ("version", "not_in_lab")
    VERSION: Final = "version"
    NOT_IN_LAB: Final = "not_in_lab"


class DerivedPathsFields:
    """Field names of DerivedPaths, in host.schema.json order."""

    ALL: Final[tuple[str, ...]] = ("key", "form")
    REQUIRED: Final[tuple[str, ...]] = ("key", "form")
    KEY: Final = "key"
    FORM: Final = "form"


class EvidenceFields:
    """Field names of Evidence, in host.schema.json order."""

    ALL: Final[tuple[str, ...]] = ("level", "at")
    REQUIRED: Final[tuple[str, ...]] = ("level", "at")
    LEVEL: Final = "level"
    AT: Final = "at"


class FailureResponseFields:
    """Field names of FailureResponse, in host.schema.json order."""

    ALL: Final[tuple[str, ...]] = ("exit_code", "stdout")
    REQUIRED: Final[tuple[str, ...]] = ("exit_code",)
    EXIT_CODE: Final = "exit_code"
    STDOUT: Final = "stdout"


class FormFields:
    """Field names of Form, in host.schema.json order."""

    ALL: Final[tuple[str, ...]] = ("fact", "source", "lab_verified", "set", "evidence")
    REQUIRED: Final[tuple[str, ...]] = ("fact", "source", "lab_verified", "set")
    FACT: Final = "fact"
    SOURCE: Final = "source"
    LAB_VERIFIED: Final = "lab_verified"
    SET: Final = "set"
    EVIDENCE: Final = "evidence"


class ManagedLayerFields:
    """Field names of ManagedLayer, in host.schema.json order."""

    ALL: Final[tuple[str, ...]] = ("linux", "macos", "form", "precedence", "hooks_only", "evidence")
    REQUIRED: Final[tuple[str, ...]] = ("linux", "macos", "form", "precedence", "evidence")
    LINUX: Final = "linux"
    MACOS: Final = "macos"
    FORM: Final = "form"
    PRECEDENCE: Final = "precedence"
    HOOKS_ONLY: Final = "hooks_only"
    EVIDENCE: Final = "evidence"


class NoteFields:
    """Field names of Note, in host.schema.json order."""

    ALL: Final[tuple[str, ...]] = ("fact", "source", "lab_verified", "evidence")
    REQUIRED: Final[tuple[str, ...]] = ("fact", "source")
    FACT: Final = "fact"
    SOURCE: Final = "source"
    LAB_VERIFIED: Final = "lab_verified"
    EVIDENCE: Final = "evidence"


class OverlayFields:
    """Field names of Overlay, in host.schema.json order."""

    ALL: Final[tuple[str, ...]] = ("integration_mode", "coverage", "gated_kinds", "coverage_kinds", "native_ask_tier", "rendered_fields", "unrendered_fields", "failure_response", "exit_zero_block", "dead_hook", "features")
    REQUIRED: Final[tuple[str, ...]] = ()
    INTEGRATION_MODE: Final = "integration_mode"
    COVERAGE: Final = "coverage"
    GATED_KINDS: Final = "gated_kinds"
    COVERAGE_KINDS: Final = "coverage_kinds"
    NATIVE_ASK_TIER: Final = "native_ask_tier"
    RENDERED_FIELDS: Final = "rendered_fields"
    UNRENDERED_FIELDS: Final = "unrendered_fields"
    FAILURE_RESPONSE: Final = "failure_response"
    EXIT_ZERO_BLOCK: Final = "exit_zero_block"
    DEAD_HOOK: Final = "dead_hook"
    FEATURES: Final = "features"


class VersionFactFields:
    """Field names of VersionFact, in host.schema.json order."""

    ALL: Final[tuple[str, ...]] = ("id", "fact", "since", "until", "source", "lab_verified", "set", "evidence")
    REQUIRED: Final[tuple[str, ...]] = ("id", "fact", "source", "lab_verified", "set")
    ID: Final = "id"
    FACT: Final = "fact"
    SINCE: Final = "since"
    UNTIL: Final = "until"
    SOURCE: Final = "source"
    LAB_VERIFIED: Final = "lab_verified"
    SET: Final = "set"
    EVIDENCE: Final = "evidence"


class VersionRangeFields:
    """Field names of VersionRange, in host.schema.json order."""

    ALL: Final[tuple[str, ...]] = ("min", "max")
    REQUIRED: Final[tuple[str, ...]] = ("min", "max")
    MIN: Final = "min"
    MAX: Final = "max"


class VersionsFields:
    """Field names of Versions, in host.schema.json order."""

    ALL: Final[tuple[str, ...]] = ("supported", "lab_pinned", "lab_older", "payload_field", "unversioned", "notes")
    REQUIRED: Final[tuple[str, ...]] = ("supported", "lab_pinned", "unversioned")
    SUPPORTED: Final = "supported"
    LAB_PINNED: Final = "lab_pinned"
    LAB_OLDER: Final = "lab_older"
    PAYLOAD_FIELD: Final = "payload_field"
    UNVERSIONED: Final = "unversioned"
    NOTES: Final = "notes"


class NativeResponseFields:
    """Field names of NativeResponse, in native-response.schema.json order."""

    ALL: Final[tuple[str, ...]] = ("transport", "exit_code", "enforced", "stdout", "stderr")
    REQUIRED: Final[tuple[str, ...]] = ("transport", "exit_code", "enforced")
    TRANSPORT: Final = "transport"
    EXIT_CODE: Final = "exit_code"
    ENFORCED: Final = "enforced"
    STDOUT: Final = "stdout"
    STDERR: Final = "stderr"


class PolicyFields:
    """Field names of Policy, in policy.schema.json order."""

    ALL: Final[tuple[str, ...]] = ("rules", "tests", "extends", "mode")
    REQUIRED: Final[tuple[str, ...]] = ("rules",)
    RULES: Final = "rules"
    TESTS: Final = "tests"
    EXTENDS: Final = "extends"
    MODE: Final = "mode"


class PolicyCommandFields:
    """Field names of PolicyCommand, in policy.schema.json order."""

    ALL: Final[tuple[str, ...]] = ("program", "fold_case", "subcommand", "value_options", "aliases", "all_flags", "any_flags", "args", "piped_from")
    REQUIRED: Final[tuple[str, ...]] = ()
    PROGRAM: Final = "program"
    FOLD_CASE: Final = "fold_case"
    SUBCOMMAND: Final = "subcommand"
    VALUE_OPTIONS: Final = "value_options"
    ALIASES: Final = "aliases"
    ALL_FLAGS: Final = "all_flags"
    ANY_FLAGS: Final = "any_flags"
    ARGS: Final = "args"
    PIPED_FROM: Final = "piped_from"


class PolicyExpandFields:
    """Field names of PolicyExpand, in policy.schema.json order."""

    ALL: Final[tuple[str, ...]] = ("marker", "text", "times")
    REQUIRED: Final[tuple[str, ...]] = ("marker", "text", "times")
    MARKER: Final = "marker"
    TEXT: Final = "text"
    TIMES: Final = "times"


class PolicyRewriteFields:
    """Field names of PolicyRewrite, in policy.schema.json order."""

    ALL: Final[tuple[str, ...]] = ("pattern", "replacement")
    REQUIRED: Final[tuple[str, ...]] = ("pattern", "replacement")
    PATTERN: Final = "pattern"
    REPLACEMENT: Final = "replacement"


class PolicyRuleFields:
    """Field names of PolicyRule, in policy.schema.json order."""

    ALL: Final[tuple[str, ...]] = ("name", "tools", "events", "field", "match", "command", "paths", "on_unparsed", "decision", "reason", "context", "rewrite", "on_unrendered", "mode")
    REQUIRED: Final[tuple[str, ...]] = ("decision",)
    NAME: Final = "name"
    TOOLS: Final = "tools"
    EVENTS: Final = "events"
    FIELD: Final = "field"
    MATCH: Final = "match"
    COMMAND: Final = "command"
    PATHS: Final = "paths"
    ON_UNPARSED: Final = "on_unparsed"
    DECISION: Final = "decision"
    REASON: Final = "reason"
    CONTEXT: Final = "context"
    REWRITE: Final = "rewrite"
    ON_UNRENDERED: Final = "on_unrendered"
    MODE: Final = "mode"


class PolicyTestFields:
    """Field names of PolicyTest, in policy.schema.json order."""

    ALL: Final[tuple[str, ...]] = ("name", "tool", "input", "output", "event", "cwd", "payload", "expand", "agents", "expect", "rule")
    REQUIRED: Final[tuple[str, ...]] = ("expect",)
    NAME: Final = "name"
    TOOL: Final = "tool"
    INPUT: Final = "input"
    OUTPUT: Final = "output"
    EVENT: Final = "event"
    CWD: Final = "cwd"
    PAYLOAD: Final = "payload"
    EXPAND: Final = "expand"
    AGENTS: Final = "agents"
    EXPECT: Final = "expect"
    RULE: Final = "rule"


class ToolCallEventFields:
    """Field names of ToolCallEvent, in tool-call-event.schema.json order."""

    ALL: Final[tuple[str, ...]] = ("schema_version", "event", "tool", "input", "this_call_vetoable", "meta", "response")
    REQUIRED: Final[tuple[str, ...]] = ("schema_version", "event", "tool", "input", "this_call_vetoable", "meta")
    SCHEMA_VERSION: Final = "schema_version"
    EVENT: Final = "event"
    TOOL: Final = "tool"
    INPUT: Final = "input"
    THIS_CALL_VETOABLE: Final = "this_call_vetoable"
    META: Final = "meta"
    RESPONSE: Final = "response"


class EventMetaFields:
    """Field names of EventMeta, in tool-call-event.schema.json order."""

    ALL: Final[tuple[str, ...]] = ("agent", "native_event", "integration_mode", "primary_gate_present", "passthrough", "session_id", "cwd", "permission_mode", "transcript_path", "native_tool")
    REQUIRED: Final[tuple[str, ...]] = ("agent", "native_event", "integration_mode", "primary_gate_present", "passthrough")
    AGENT: Final = "agent"
    NATIVE_EVENT: Final = "native_event"
    INTEGRATION_MODE: Final = "integration_mode"
    PRIMARY_GATE_PRESENT: Final = "primary_gate_present"
    PASSTHROUGH: Final = "passthrough"
    SESSION_ID: Final = "session_id"
    CWD: Final = "cwd"
    PERMISSION_MODE: Final = "permission_mode"
    TRANSCRIPT_PATH: Final = "transcript_path"
    NATIVE_TOOL: Final = "native_tool"


class PatchInputFields:
    """Field names of PatchInput, in tool-call-event.schema.json order."""

    ALL: Final[tuple[str, ...]] = ("file_path", "file_paths")
    REQUIRED: Final[tuple[str, ...]] = ("file_path", "file_paths")
    FILE_PATH: Final = "file_path"
    FILE_PATHS: Final = "file_paths"


class PromptInputFields:
    """Field names of PromptInput, in tool-call-event.schema.json order."""

    ALL: Final[tuple[str, ...]] = ("prompt",)
    REQUIRED: Final[tuple[str, ...]] = ("prompt",)
    PROMPT: Final = "prompt"


class VerdictFields:
    """Field names of Verdict, in verdict.schema.json order."""

    ALL: Final[tuple[str, ...]] = ("decision", "mutated_input", "mutated_output", "additional_context", "reason")
    REQUIRED: Final[tuple[str, ...]] = ("decision",)
    DECISION: Final = "decision"
    MUTATED_INPUT: Final = "mutated_input"
    MUTATED_OUTPUT: Final = "mutated_output"
    ADDITIONAL_CONTEXT: Final = "additional_context"
    REASON: Final = "reason"


MODELED_TOOL_INPUT_KEYS: Final[Mapping[str, str]] = MappingProxyType({"Bash": "command", "Edit": "file_path", "Read": "file_path", "WebFetch": "url", "Write": "file_path"})
"""Canonical tool name to the input key a judge reads (tool-input-keys.json)."""

MODELED_TOOLS: Final[tuple[str, ...]] = ("Bash", "Edit", "Write", "Read", "WebFetch")
"""Canonical tools whose input the contract models, in document order."""


class ModeledTools:
    """Canonical tool names the contract models (tool-input-keys.json), for adapters that pick one."""

    BASH: Final = "Bash"
    EDIT: Final = "Edit"
    WRITE: Final = "Write"
    READ: Final = "Read"
    WEBFETCH: Final = "WebFetch"


TOOL_ALIASES: Final[Mapping[str, str]] = MappingProxyType({"run_shell_command": "Bash"})
"""Native tool name to canonical tool name for every host and every call (tool-aliases.json)."""

VERDICT_FIELD_TYPES: Final[Mapping[str, str]] = MappingProxyType({"additional_context": "string", "mutated_input": "object", "reason": "string"})
"""Verdict fields with a fixed JSON type, and that type (the typed properties of verdict.schema.json)."""

if not TYPE_CHECKING:  # the aliases above, for who reads them at run time (_lazy_typing)
    __getattr__ = lazy_aliases(
        globals(),
        {
            "UnrenderedPosture": ("deny", "note", "allow"),
            "CallClass": ("builtin", "mcp", "subagent", "resumed"),
            "CoverageStatus": ("covered", "partial", "uncovered", "unknown"),
            "DeadHook": ("runs", "blocks", "blocks_fail_closed"),
            "EvidenceLevel": ("lab_verified", "source_read", "host_docs", "third_party"),
            "VetoingCoverage": ("covered", "partial"),
            "PolicyMode": ("enforce", "observe"),
            "UnparsedOutcome": ("match", "no_match"),
            "UnrenderedDecision": ("deny", "allow"),
            "EventKind": ("pre_tool", "post_tool", "prompt_submit", "session_start", "unknown"),
            "IntegrationMode": ("external_hook", "in_process", "observe_only"),
            "StandardMetaField": ("session_id", "cwd", "permission_mode", "transcript_path"),
            "ContentField": ("mutated_input", "mutated_output", "additional_context"),
            "Decision": ("allow", "deny", "ask"),
        },
    )
