// DO NOT EDIT: this file is generated.
// source: schema/control-plane/v1/*.schema.json
// source: schema/control-plane/v1/hosts/*.json
// source: schema/control-plane/v1/tool-input-keys.json
// source: schema/control-plane/v1/tool-aliases.json
// template: templates/typescript/index.d.ts.j2
// regenerate: make codegen (python -m codegen)

// Null in an optional Verdict field means absent (docs/contract.md §2); in a ToolCallEvent,
// response: null is the host's own null result and differs from a missing response.

/** Wire version of the contract (ToolCallEvent.schema_version). */
export declare const SCHEMA_VERSION: 1;
/** Name of the schema folder these types implement. */
export declare const CONTROL_PLANE_SCHEMA: "control-plane/v1";

/** The event kinds the contract models. (tool-call-event.schema.json) */
export type EventKind = "pre_tool" | "post_tool" | "prompt_submit" | "session_start" | "unknown";
/** Every EventKind value, as constants and in schema order (ALL). */
export declare const EventKinds: {
  readonly ALL: readonly EventKind[];
  readonly PRE_TOOL: "pre_tool";
  readonly POST_TOOL: "post_tool";
  readonly PROMPT_SUBMIT: "prompt_submit";
  readonly SESSION_START: "session_start";
  readonly UNKNOWN: "unknown";
};

/** How the guardrail is attached to the host: an external hook process, code inside the host, or a channel that can only watch. (tool-call-event.schema.json) */
export type IntegrationMode = "external_hook" | "in_process" | "observe_only";
/** Every IntegrationMode value, as constants and in schema order (ALL). */
export declare const IntegrationModes: {
  readonly ALL: readonly IntegrationMode[];
  readonly EXTERNAL_HOOK: "external_hook";
  readonly IN_PROCESS: "in_process";
  readonly OBSERVE_ONLY: "observe_only";
};

/** Names of the optional meta fields copied from the native payload when their value is a string. (tool-call-event.schema.json) */
export type StandardMetaField = "session_id" | "cwd" | "permission_mode" | "transcript_path";
/** Every StandardMetaField value, as constants and in schema order (ALL). */
export declare const StandardMetaFields: {
  readonly ALL: readonly StandardMetaField[];
  readonly SESSION_ID: "session_id";
  readonly CWD: "cwd";
  readonly PERMISSION_MODE: "permission_mode";
  readonly TRANSCRIPT_PATH: "transcript_path";
};

/** The input of a prompt_submit event: the submitted prompt, folded in by every adapter (empty when the host sent no string). (tool-call-event.schema.json) */
export interface PromptInput {
  /** The prompt text the user submitted. */
  prompt: string;
}

/** The input of a canonical Edit or Write parsed from a patch tool (Codex apply_patch): a patch may touch several files, so a judge reads every path in file_paths. (tool-call-event.schema.json) */
export interface PatchInput {
  /** The first file the patch touches, in patch order. */
  file_path: string;
  /** Every file the patch adds, updates, deletes or moves to, in patch order, each once. */
  file_paths: string[];
}

/** Provenance of an event and every native top-level field the contract does not model. (tool-call-event.schema.json) */
export interface EventMeta {
  /** Id of the host that produced the payload, such as claude or codex. */
  agent: string;
  /** The host's own event name exactly as sent; empty when the payload carries no string name. */
  native_event: string;
  /** How this guardrail is attached to the host for this event. */
  integration_mode: IntegrationMode;
  /** The host runs its own permission gate as well, so this verdict is a second opinion. */
  primary_gate_present: boolean;
  /** Native top-level fields the contract does not consume, keyed and valued exactly as sent. */
  passthrough: { [key: string]: unknown };
  /** Host session id, present only when the host sent it as a string. */
  session_id?: string;
  /** Working directory of the agent, present only when the host sent it as a string. */
  cwd?: string;
  /** The host's permission mode, present only when the host sent it as a string. */
  permission_mode?: string;
  /** Path of the host's transcript file, present only when the host sent it as a string. */
  transcript_path?: string;
  /** The tool name as the host sent it; present exactly when the event's tool is not null. */
  native_tool?: string;
}

/** One agent event (a tool about to run, a tool that ran, a submitted prompt, a session start) in the host-neutral control-plane/v1 shape. (tool-call-event.schema.json) */
export interface ToolCallEvent {
  /** Wire version of this contract; a breaking change bumps it. */
  schema_version: 1;
  /** Normalized event kind; a native event the adapter does not model is unknown. */
  event: EventKind;
  /** Canonical tool name after aliasing, or null when the event names no tool; the raw name is meta.native_tool. */
  tool: string | null;
  /** Tool arguments as the host sent them (after declared key renames); a submitted prompt is input.prompt. */
  input: { [key: string]: unknown };
  /** True only when a deny rendered for this very call is enforced by the host; false means any objection is advisory. */
  this_call_vetoable: boolean;
  /** Where the event came from and every native field the contract does not model. */
  meta: EventMeta;
  /** The tool's result on post_tool, any JSON value including null; absent when the host sent none. */
  response?: unknown;
}

/** The three decisions a guardrail can make. (verdict.schema.json) */
export type Decision = "allow" | "deny" | "ask";
/** Every Decision value, as constants and in schema order (ALL). */
export declare const Decisions: {
  readonly ALL: readonly Decision[];
  readonly ALLOW: "allow";
  readonly DENY: "deny";
  readonly ASK: "ask";
};

/** Verdict fields that carry content to the host, each of which a host may have no channel for. (verdict.schema.json) */
export type ContentField = "mutated_input" | "mutated_output" | "additional_context";
/** Every ContentField value, as constants and in schema order (ALL). */
export declare const ContentFields: {
  readonly ALL: readonly ContentField[];
  readonly MUTATED_INPUT: "mutated_input";
  readonly MUTATED_OUTPUT: "mutated_output";
  readonly ADDITIONAL_CONTEXT: "additional_context";
};

/** What a guardrail decided about one event, in the host-neutral control-plane/v1 shape. An optional field set to null is the same as the field left out. (verdict.schema.json) */
export interface Verdict {
  /** Let the call run, block it, or put it in front of a person. */
  decision: Decision;
  /** Complete replacement for the tool input (pre_tool); carried verbatim. */
  mutated_input?: { [key: string]: unknown };
  /** Replacement for the tool result the model sees (post_tool); any JSON value but null: null in any optional verdict field means absent. */
  mutated_output?: unknown;
  /** Text to add to the agent's context. */
  additional_context?: string;
  /** Why, for the model or the person; shown on deny and ask. */
  reason?: string;
}

/** Everything a hook hands back to its host for one event: the stdout body, the stderr text and the exit code. (native-response.schema.json) */
export interface NativeResponse {
  /** Integration mode the response was rendered for. */
  transport: IntegrationMode;
  /** Process exit code the hook must end with. */
  exit_code: number;
  /** True guarantees the host blocks the call on this response: through a non-zero exit code, or through the body at exit 0 on a host whose declaration sets exit_zero_block; false promises nothing either way. */
  enforced: boolean;
  /** JSON body written to stdout; absent when the host reads nothing there. */
  stdout?: { [key: string]: unknown };
  /** Text written to stderr; absent when there is none. */
  stderr?: string;
}

/** Where the facts of a host the lab does not drive come from, and why the lab cannot drive it. (host.schema.json) */
export interface BuiltFrom {
  /** The host release, or the dated documentation, the facts were read from. */
  version: string;
  /** Why the lab does not run this host, in one sentence. */
  not_in_lab: string;
}

/** Where a tool call comes from: a host builtin, an MCP server, a subagent, or a resumed session. (host.schema.json) */
export type CallClass = "builtin" | "mcp" | "subagent" | "resumed";
/** Every CallClass value, as constants and in schema order (ALL). */
export declare const CallClasses: {
  readonly ALL: readonly CallClass[];
  readonly BUILTIN: "builtin";
  readonly MCP: "mcp";
  readonly SUBAGENT: "subagent";
  readonly RESUMED: "resumed";
};

/** A host's answer to a hook that dies without answering: the call runs, the host blocks it, or it blocks only with the failure option the installer's --fail-closed entry sets. (host.schema.json) */
export type DeadHook = "runs" | "blocks" | "blocks_fail_closed";
/** Every DeadHook value, as constants and in schema order (ALL). */
export declare const DeadHooks: {
  readonly ALL: readonly DeadHook[];
  readonly RUNS: "runs";
  readonly BLOCKS: "blocks";
  readonly BLOCKS_FAIL_CLOSED: "blocks_fail_closed";
};

/** Whether the hook fires and can block for a class of call: fully, for some tools only, not at all, or not known. (host.schema.json) */
export type CoverageStatus = "covered" | "partial" | "uncovered" | "unknown";
/** Every CoverageStatus value, as constants and in schema order (ALL). */
export declare const CoverageStatuses: {
  readonly ALL: readonly CoverageStatus[];
  readonly COVERED: "covered";
  readonly PARTIAL: "partial";
  readonly UNCOVERED: "uncovered";
  readonly UNKNOWN: "unknown";
};

/** Coverage statuses under which a block on a gated kind is honoured. (host.schema.json) */
export type VetoingCoverage = "covered" | "partial";
/** Every VetoingCoverage value, as constants and in schema order (ALL). */
export declare const VetoingCoverages: {
  readonly ALL: readonly VetoingCoverage[];
  readonly COVERED: "covered";
  readonly PARTIAL: "partial";
};

/** One coverage status per call class, every class named. (host.schema.json) */
export type Coverage = { [K in CallClass]?: CoverageStatus };

/** Exit code and output of the hook entry's failure response. (host.schema.json) */
export interface FailureResponse {
  /** Exit code of the failure response. */
  exit_code: number;
  /** JSON body of the failure response, if any. */
  stdout?: { [key: string]: unknown };
}

/** One integration form of a host: what it is, where that was read, and the declaration fields it overrides. (host.schema.json) */
export interface Form {
  /** What the form is and how it attaches, in one or two sentences. */
  fact: string;
  /** Where the form's facts were read: a doc URL, a package version, an issue. */
  source: string;
  /** True when a lab run on the real host showed the form's facts. */
  lab_verified: boolean;
  /** The declaration fields this form overrides. */
  set: Overlay;
  /** How this fact is known (absent: lab_verified when lab_verified is true, else source_read). A version fact or form whose evidence is third_party may only take claims away (codegen refuses one that adds a block, a gated kind, a channel or an ask tier). */
  evidence?: Evidence;
}

/** One host fact and its source. (host.schema.json) */
export interface Note {
  /** The fact, in one or two sentences. */
  fact: string;
  /** Where the fact was read: a doc URL, a source file, an issue. */
  source: string;
  /** True when a lab run on the real host showed the fact; absent or false: source or docs only. */
  lab_verified?: boolean;
  /** How this fact is known (absent: lab_verified when lab_verified is true, else source_read). A version fact or form whose evidence is third_party may only take claims away (codegen refuses one that adds a block, a gated kind, a channel or an ask tier). */
  evidence?: Evidence;
}

/** A host release version: major.minor.patch with an optional pre-release suffix, compared by semver precedence (0.171.0, 1.0.102, 2.1.332, 0.172.0-alpha.1). (host.schema.json) */
export type Version = string;

/** An inclusive range of host versions. (host.schema.json) */
export interface VersionRange {
  /** Oldest version, inclusive. */
  min: Version;
  /** Newest version, inclusive. */
  max: Version;
}

/** Supported host versions, the versions the lab drives, and where a payload names its version. (host.schema.json) */
export interface Versions {
  /** The versions this declaration is written for. Below min the adapter claims no block (observe_only); above max each fact applies by its window. */
  supported: VersionRange;
  /** The release the lab drives; inside supported. */
  lab_pinned: Version;
  /** Older releases the lab also drives to show a version switch; inside supported. */
  lab_older?: Version[];
  /** Top-level payload field in which the host sends its own version; a configured version wins over it. Absent: payloads carry none. */
  payload_field?: string;
  /** What the adapter renders when no version is configured or sent, in one or two sentences. */
  unversioned: string;
  /** Where the range and its boundaries were read. */
  notes?: Note[];
}

/** A host fact that holds only in a window of versions, and the declaration fields it overrides there. (host.schema.json) */
export interface VersionFact {
  /** Stable id of the fact, unique in the declaration. */
  id: string;
  /** The fact, in one or two sentences. */
  fact: string;
  /** First version the fact holds on (inclusive). */
  since?: Version;
  /** First version the fact no longer holds on (exclusive). */
  until?: Version;
  /** Where the fact and its boundary were read: host source at a commit, a release tag, a changelog entry, a lab scenario. */
  source: string;
  /** True when a lab run on a version inside the window showed the fact. */
  lab_verified: boolean;
  /** The declaration fields this fact overrides on the versions it holds on. */
  set: Overlay;
  /** How this fact is known (absent: lab_verified when lab_verified is true, else source_read). A version fact or form whose evidence is third_party may only take claims away (codegen refuses one that adds a block, a gated kind, a channel or an ask tier). */
  evidence?: Evidence;
}

/** Declaration fields a version fact overrides: gated_kinds, coverage_kinds, failure_response, native_ask_tier, integration_mode, exit_zero_block and dead_hook are replaced whole; coverage and features per key; unrendered_fields per event kind and content field (rendered_fields gives a field a channel, unrendered_fields takes it away). (host.schema.json) */
export interface Overlay {
  /** Replaces integration_mode. */
  integration_mode?: IntegrationMode;
  /** Overrides the coverage of the call classes named. */
  coverage?: { [K in CallClass]?: CoverageStatus };
  /** Replaces gated_kinds. */
  gated_kinds?: EventKind[];
  /** Replaces coverage_kinds. */
  coverage_kinds?: EventKind[];
  /** Replaces native_ask_tier. */
  native_ask_tier?: boolean;
  /** Per event kind, content fields that have a channel on these versions (removed from unrendered_fields). */
  rendered_fields?: { [K in EventKind]?: ContentField[] };
  /** Per event kind, content fields that have no channel on these versions (added to unrendered_fields). */
  unrendered_fields?: { [K in EventKind]?: ContentField[] };
  /** Replaces failure_response. */
  failure_response?: FailureResponse;
  /** Replaces exit_zero_block. */
  exit_zero_block?: boolean;
  /** Replaces dead_hook. */
  dead_hook?: DeadHook;
  /** Overrides the named features. */
  features?: { [key: string]: boolean };
}

/** Where one native tool's input names the files it changes. (host.schema.json) */
export interface DerivedPaths {
  /** The input key holding the patch text or the path list; * (patch only) reads every string value of the input, for a host whose patch key is not known. */
  key: string;
  /** patch: a patch text with *** <Add|Update|Delete> File: headers; list: an array of path strings. */
  form: unknown;
}

/** How a host fact is known, strongest first: seen on the real host in the lab, read in the host's own source or shipped bundle, read in the host's own documentation, or only reported by a third party. A third-party report never makes a render claim a block. (host.schema.json) */
export type EvidenceLevel = "lab_verified" | "source_read" | "host_docs" | "third_party";
/** Every EvidenceLevel value, as constants and in schema order (ALL). */
export declare const EvidenceLevels: {
  readonly ALL: readonly EvidenceLevel[];
  readonly LAB_VERIFIED: "lab_verified";
  readonly SOURCE_READ: "source_read";
  readonly HOST_DOCS: "host_docs";
  readonly THIRD_PARTY: "third_party";
};

/** The evidence level of a fact and where it was established: the versions the lab ran, the commit or package version read, the documentation revision, or the report. (host.schema.json) */
export interface Evidence {
  /** The evidence level. */
  level: EvidenceLevel;
  /** Where: lab versions (2.1.197, 2.1.332), a repository file at a commit, a package at a version, a documentation page with its date, or a report. */
  at: string;
}

/** A host's admin configuration layer: where it is, what form it takes, how it ranks, and the switch that makes the host ignore user and project hooks. (host.schema.json) */
export interface ManagedLayer {
  /** The absolute path of the admin file on Linux (and WSL). */
  linux: string;
  /** The absolute path of the admin file on macOS. */
  macos: string;
  /** The form of the file, named after the scope whose entry it takes: `project` (the project file's form) or `user` (the user file's form). */
  form: unknown;
  /** How the host ranks the admin layer against user and project configuration, and whether their hooks still run beside it. */
  precedence: string;
  /** The setting (key = value) in the admin file that makes the host ignore user and project hooks; absent: the host has none, so their hooks run beside the admin one. */
  hooks_only?: string;
  /** Where these facts come from. */
  evidence: Evidence;
}

/** How this host's payload is recognised when it reaches another host's hook entry, because this host runs that host's hook configuration (docs/findings.md XH-1): the payload is this host's when a field of string_fields holds a string, or a field of field_values holds one of its strings. The receiving entry answers with this host's adapter. */
export interface HostDeclarationSenderMarkers {
  /** The host whose hook entry receives this host's payloads. */
  entry: string;
  /** Top-level payload fields only this host sends. */
  string_fields?: string[];
  /** Top-level payload fields and the values only this host sends in them. */
  field_values?: { [key: string]: string[] };
}

/** What one coding-agent host can carry and enforce, published as data so a guardrail in any language reads the same facts the Python adapter is generated from. (host.schema.json) */
export interface HostDeclaration {
  /** The host id used by adapter_for and carried in meta.agent. */
  agent: string;
  /** How the guardrail attaches to this host when nothing downgrades it. */
  integration_mode: IntegrationMode;
  /** The host runs its own permission gate beside the hook. */
  primary_gate_present: boolean;
  /** Whether the hook sees, and can block, each class of call. */
  coverage: Coverage;
  /** Event kinds on which the host honours a block from the hook. */
  gated_kinds: EventKind[];
  /** Gated kinds whose hook routing the coverage describes; a gated kind outside this list vetoes whatever the call class. Absent: every gated kind. */
  coverage_kinds?: EventKind[];
  /** True when a rendered ask suspends the call in front of a person; false when the host has no such tier and ask collapses onto an advisory deny. */
  native_ask_tier: boolean;
  /** For every event kind, the verdict content fields this host has no channel for. */
  unrendered_fields: { [K in EventKind]?: ContentField[] };
  /** Native event name to the event kind it parses as; any other name parses as unknown. */
  native_events: { [key: string]: EventKind };
  /** The native event name a probe of each kind is sent under; a kind absent here has no native event on this host. */
  native_event_for: { [K in EventKind]?: string };
  /** Host-scoped native tool name to canonical tool name, applied to builtin calls whose input carries the key the canonical tool advertises. */
  tool_aliases: { [key: string]: string };
  /** Per native tool name, input keys the host spells differently from the canonical tool; a rename never overwrites a key already present. */
  input_key_renames: { [key: string]: { [key: string]: string } };
  /** Per native tool, the input key that names every file the call changes: a patch text whose *** Add File / Update File / Delete File / Move to headers name them (patch), or a list of paths (list). The adapter puts the first file in file_path and every file in file_paths (PatchInput), so a rule on the canonical tool's path key judges each file, and the tool's alias then applies; a patch whose every header adds a file is a Write. Absent: none. */
  derived_paths?: { [key: string]: DerivedPaths };
  /** Reason sent when a block must carry non-empty text and the verdict has none. */
  default_block_reason: string;
  /** What the hook entry answers when the hook itself fails (bad payload, judge error), following the host's own failure posture. */
  failure_response: FailureResponse;
  /** True when the host blocks on a deny body at exit 0, so an enforced render may exit 0 (the body, not the exit code, carries the block). Absent: false. */
  exit_zero_block?: boolean;
  /** True when a block of a tool call ends the host's whole run: the call does not run and the model is not asked again, so the block reason never reaches the model. Absent: false (the model reads the reason and goes on). */
  block_ends_run?: boolean;
  /** How this host's payload is recognised when it reaches another host's hook entry, because this host runs that host's hook configuration (docs/findings.md XH-1): the payload is this host's when a field of string_fields holds a string, or a field of field_values holds one of its strings. The receiving entry answers with this host's adapter. */
  sender_markers?: HostDeclarationSenderMarkers;
  /** What the host does with a tool call whose hook process dies without answering (killed by a signal), which ACP_FAIL_CLOSED cannot turn into a block. Absent: runs. */
  dead_hook?: DeadHook;
  /** Named render switches the adapter reads, each explained in a note or a version fact; the value here holds on every version of the supported range. */
  features?: { [key: string]: boolean };
  /** The host versions this declaration describes. The top-level fields state what holds on every version of the supported range; version_facts state what differs in a window. Absent: the host's version is not modelled. */
  versions?: Versions;
  /** For a host the real-host lab does not drive: the release or documentation revision this declaration was read from, and why the lab cannot run the host. docs/hosts.md lists it as not lab-verified. */
  built_from?: BuiltFrom;
  /** Facts that hold from a version (since, inclusive) and/or until a version (until, exclusive), each overriding declaration fields. With a version the adapter applies every fact whose window holds it; without one, only the facts that hold on every version of the supported range (the conservative intersection). Needs versions. */
  version_facts?: VersionFact[];
  /** Integration forms a host offers beside the one the top-level fields describe (Amp's plugin beside its delegate program), by name. An adapter configured with <agent>_form (ACP_<AGENT>_FORM) lays that form's overlay after the version facts; without it the top-level fields hold. */
  forms?: { [key: string]: Form };
  /** Host facts behind this declaration, each with where it was read. */
  notes: Note[];
  /** How this host's hook blocks a call: the exit code and, if the host reads one, the body the hook entry sends when ACP_FAIL_CLOSED=1 turns a failure into a block. Absent: exit 2 with the failure_response body. */
  block_response?: FailureResponse;
  /** How the declaration's gating facts (block signal, gated kinds) are known, with where; docs/hosts.md shows it for every host. Absent: lab_verified where versions.lab_pinned is set, else source_read. */
  evidence?: Evidence;
  /** The host's admin layer, where `acp install --managed` writes its entry (issue 28): the system file an administrator owns, read above the user's and project's configuration. Absent: the host has no admin layer this project knows of, and --managed refuses it. */
  managed?: ManagedLayer;
}

/** Canonical tools whose input the contract models (tool-input-keys.json). */
export type ModeledTool = "Bash" | "Edit" | "Write" | "Read" | "WebFetch";
/** Canonical tool name to the input key a judge reads. */
export declare const MODELED_TOOL_INPUT_KEYS: {
  readonly Bash: "command";
  readonly Edit: "file_path";
  readonly Write: "file_path";
  readonly Read: "file_path";
  readonly WebFetch: "url";
};
/** Native tool name to canonical tool for every host and every call (tool-aliases.json). */
export declare const TOOL_ALIASES: Readonly<Record<string, ModeledTool>>;
/** Ids of the hosts with a declaration (schema/control-plane/v1/hosts/). */
export type AgentId = "amp" | "auggie" | "claude" | "cline" | "codex" | "copilot" | "crush" | "cursor" | "factory" | "gemini" | "kiro" | "opencode" | "qwen" | "windsurf";
/** Every host id, sorted. */
export declare const AGENT_IDS: readonly AgentId[];
/** Every host declaration document, deeply frozen. */
export declare const HOSTS: { readonly [A in AgentId]: Readonly<HostDeclaration> };
