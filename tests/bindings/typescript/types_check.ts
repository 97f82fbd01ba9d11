// What the generated types refuse (tsc --strict fails on an unused @ts-expect-error) and accept.
import {
  AGENT_IDS,
  Decisions,
  EventKinds,
  HOSTS,
  MODELED_TOOL_INPUT_KEYS,
  SCHEMA_VERSION,
  type Decision,
  type NativeResponse,
  type ToolCallEvent,
  type Verdict,
} from "@agent-control-plane-core/contract";

const meta = {
  agent: "claude",
  native_event: "PreToolUse",
  integration_mode: "external_hook",
  primary_gate_present: true,
  passthrough: {},
} as const;
export const event: ToolCallEvent = {
  schema_version: SCHEMA_VERSION,
  event: EventKinds.PRE_TOOL,
  tool: null,
  input: {},
  this_call_vetoable: false,
  meta,
};
export const plain: Verdict = { decision: Decisions.ALLOW };
export const decisions: readonly Decision[] = Decisions.ALL;
export const key: "command" = MODELED_TOOL_INPUT_KEYS.Bash;
export const mode: "external_hook" | "in_process" | "observe_only" = HOSTS.claude.integration_mode;
export const agents: readonly string[] = AGENT_IDS;

// @ts-expect-error: a decision outside the three
export const block: Verdict = { decision: "block" };
// @ts-expect-error: schema_version is the literal 1
export const v2: ToolCallEvent = { ...event, schema_version: 2 };
// @ts-expect-error: an unknown event kind
export const kind: ToolCallEvent = { ...event, event: "pre-tool" };
// @ts-expect-error: meta is required
export const nometa: ToolCallEvent = { schema_version: 1, event: "unknown", tool: null, input: {}, this_call_vetoable: false };
// @ts-expect-error: reason is a string
export const reason: Verdict = { decision: "deny", reason: 3 };
// @ts-expect-error: exit_code is required
export const response: NativeResponse = { transport: "external_hook", enforced: false };
// @ts-expect-error: not a host
export const nohost = HOSTS.nothere;
// @ts-expect-error: the declarations are read-only
HOSTS.claude.native_ask_tier = false;
