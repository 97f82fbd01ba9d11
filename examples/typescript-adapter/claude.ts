// A Claude Code adapter in TypeScript, built on the generated contract types, speaking the JSON
// Lines protocol of `acp conformance --exec` (docs/adapter-authoring.md). Copy it for your host:
// parse() and render() are the adapter; main() at the bottom is the protocol loop.
import { createInterface } from "node:readline";
import {
  ContentFields,
  Decisions,
  EventKinds,
  HOSTS,
  MODELED_TOOL_INPUT_KEYS,
  SCHEMA_VERSION,
  TOOL_ALIASES,
  type CallClass,
  type ContentField,
  type EventKind,
  type EventMeta,
  type HostDeclaration,
  type ModeledTool,
  type NativeResponse,
  type ToolCallEvent,
  type Verdict,
} from "@agent-control-plane-core/contract";

type Json = { [key: string]: unknown };
const HOST: Readonly<HostDeclaration> = HOSTS.claude;
const STANDARD_META = ["session_id", "cwd", "permission_mode", "transcript_path"] as const;
const PERMISSION_REQUEST = "PermissionRequest";
// A prefix for a block text that would itself parse as JSON (docs/findings.md QW-1).
const JSON_GUARD = "blocked: ";
const REFUSAL =
  "the guardrail rewrote this call's input, which this hook answer cannot carry," +
  " so the call was refused rather than run unchanged";

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The payload's top-level fields, recording which ones the parse consumed. */
class Fields {
  readonly payload: Json;
  readonly consumed = new Set<string>();
  constructor(native: unknown) {
    this.payload = isObject(native) ? native : {};
  }
  string(key: string): string | null {
    const value = this.payload[key];
    if (typeof value !== "string") return null;
    this.consumed.add(key);
    return value;
  }
  object(key: string): Json {
    const value = this.payload[key];
    if (!isObject(value)) return {};
    this.consumed.add(key);
    return { ...value };
  }
}

function callClass(tool: string | null, mcpContext: unknown, agentType: unknown): CallClass {
  const rest = tool === null ? "" : tool.startsWith("mcp__") ? tool.slice(5) : tool.startsWith("mcp_") ? tool.slice(4) : "";
  if ((rest !== "" && rest[0] !== "_") || isObject(mcpContext)) return "mcp";
  if (typeof agentType === "string" && agentType !== "") return "subagent";
  return "builtin";
}

function canonicalTool(tool: string | null, input: Json, calls: CallClass): string | null {
  if (tool === null) return null;
  const global = TOOL_ALIASES[tool];
  if (global !== undefined) return global;
  // A host alias applies to the host's own tool, and only when the input has the target's key.
  const target = calls === "builtin" ? HOST.tool_aliases[tool] : undefined;
  if (target === undefined) return tool;
  const key = MODELED_TOOL_INPUT_KEYS[target as ModeledTool];
  return key !== undefined && key in input ? target : tool;
}

function vetoable(kind: EventKind, calls: CallClass): boolean {
  if (kind === "unknown" || !HOST.gated_kinds.includes(kind)) return false;
  if (HOST.integration_mode === "observe_only") return false;
  if (HOST.coverage_kinds !== undefined && !HOST.coverage_kinds.includes(kind)) return true;
  const status = HOST.coverage[calls];
  return status === "covered" || status === "partial";
}

export function parse(native: unknown): ToolCallEvent {
  const fields = new Fields(native);
  const nativeEvent = fields.string("hook_event_name") ?? "";
  const kind: EventKind = Object.hasOwn(HOST.native_events, nativeEvent) ? HOST.native_events[nativeEvent]! : "unknown";
  const toolless = kind === "prompt_submit" || kind === "session_start";
  const nativeTool = toolless ? null : fields.string("tool_name");
  let input: Json;
  if (kind === EventKinds.PROMPT_SUBMIT) input = { prompt: fields.string("prompt") ?? "" };
  else if (kind === EventKinds.SESSION_START) input = {};
  else input = fields.object("tool_input");
  const payload = fields.payload;
  let response: { response?: unknown } = {};
  if (kind === "post_tool" && Object.hasOwn(payload, "tool_response")) {
    response = { response: payload.tool_response };
    fields.consumed.add("tool_response");
  }
  const calls = callClass(nativeTool, payload.mcp_context, payload.agent_type);
  if (nativeTool !== null && calls !== "mcp") {
    // The declared renames, never overwriting a key the input already has.
    for (const [from, to] of Object.entries(HOST.input_key_renames[nativeTool] ?? {})) {
      if (from in input && !(to in input)) {
        input[to] = input[from];
        delete input[from];
      }
    }
  }
  const meta: EventMeta = {
    agent: HOST.agent,
    native_event: nativeEvent,
    integration_mode: HOST.integration_mode,
    primary_gate_present: HOST.primary_gate_present,
    passthrough: {},
  };
  for (const [key, value] of Object.entries(payload)) {
    if (fields.consumed.has(key)) continue;
    if ((STANDARD_META as readonly string[]).includes(key) && typeof value === "string") {
      meta[key as (typeof STANDARD_META)[number]] = value;
    } else {
      meta.passthrough[key] = value;
    }
  }
  if (nativeTool !== null) meta.native_tool = nativeTool;
  return {
    schema_version: SCHEMA_VERSION,
    event: kind,
    tool: canonicalTool(nativeTool, input, calls === "mcp" ? "mcp" : "builtin"),
    input,
    this_call_vetoable: vetoable(kind, calls),
    meta,
    ...response,
  };
}

function carries(kind: EventKind, field: ContentField): boolean {
  return !(HOST.unrendered_fields[kind] ?? []).includes(field);
}

function has<K extends keyof Verdict>(verdict: Verdict, key: K): verdict is Verdict & Required<Pick<Verdict, K>> {
  // Null means absent in a verdict (docs/contract.md §2).
  return verdict[key] !== undefined && verdict[key] !== null;
}

function statedReason(verdict: Verdict): string {
  const reason = typeof verdict.reason === "string" && verdict.reason.trim() !== "" ? verdict.reason : HOST.default_block_reason;
  const trimmed = reason.trim();
  // Python's json.loads also reads NaN and Infinity, so the Python adapter guards them too.
  if (["NaN", "Infinity", "-Infinity"].includes(trimmed)) return JSON_GUARD + reason;
  try {
    JSON.parse(reason);
    return JSON_GUARD + reason;
  } catch {
    return reason;
  }
}

function preToolBody(verdict: Verdict, event: ToolCallEvent, reason: string | null, soleGate: boolean): Json {
  const out: Json = { hookEventName: event.meta.native_event };
  const rewrite = has(verdict, "mutated_input");
  const carried = rewrite && carries("pre_tool", ContentFields.MUTATED_INPUT);
  if (verdict.decision === Decisions.ALLOW) {
    if (rewrite && !carried) {
      out.permissionDecision = "deny";
      out.permissionDecisionReason = REFUSAL;
    } else if (soleGate) {
      out.permissionDecision = "allow";
    }
  } else {
    out.permissionDecision = verdict.decision === "ask" && !HOST.native_ask_tier ? "deny" : verdict.decision;
    if (reason !== null) out.permissionDecisionReason = reason;
  }
  if (carried) out.updatedInput = verdict.mutated_input;
  if (has(verdict, "additional_context") && carries("pre_tool", ContentFields.ADDITIONAL_CONTEXT)) {
    out.additionalContext = verdict.additional_context;
  }
  return { hookSpecificOutput: out };
}

function permissionRequestBody(verdict: Verdict, reason: string | null, soleGate: boolean): Json {
  const rewrite = has(verdict, "mutated_input");
  const carried = rewrite && carries("pre_tool", ContentFields.MUTATED_INPUT);
  let decision: Json;
  if (verdict.decision === Decisions.ALLOW) {
    if (rewrite && !(soleGate && carried)) decision = { behavior: "deny", message: REFUSAL };
    else if (soleGate) decision = carried ? { behavior: "allow", updatedInput: verdict.mutated_input } : { behavior: "allow" };
    else return {};
  } else {
    const parts = [reason ? reason : HOST.default_block_reason];
    if (has(verdict, "additional_context") && carries("pre_tool", ContentFields.ADDITIONAL_CONTEXT)) {
      parts.push(verdict.additional_context);
    }
    decision = { behavior: "deny", message: parts.join("\n\n") };
  }
  return { hookSpecificOutput: { hookEventName: PERMISSION_REQUEST, decision } };
}

/** A text replacing a shell result keeps the result's shape, which Claude Code checks (CC-9). */
function replacementOutput(replacement: unknown, response: unknown): unknown {
  if (typeof replacement === "string" && isObject(response) && typeof response.stdout === "string") {
    return { ...response, stdout: replacement, stderr: "" };
  }
  return replacement;
}

function otherBody(verdict: Verdict, event: ToolCallEvent, reason: string | null): Json {
  const out: Json = { hookEventName: event.meta.native_event };
  const kind = event.event;
  if (kind === "post_tool" && has(verdict, "mutated_output") && carries(kind, ContentFields.MUTATED_OUTPUT)) {
    out.updatedToolOutput = replacementOutput(verdict.mutated_output, event.response);
  }
  if (has(verdict, "additional_context") && carries(kind, ContentFields.ADDITIONAL_CONTEXT)) {
    out.additionalContext = verdict.additional_context;
  }
  const body: Json = { hookSpecificOutput: out };
  if (verdict.decision !== Decisions.ALLOW) {
    body.decision = "block";
    if (reason !== null) body.reason = reason;
  }
  return body;
}

export function render(verdict: Verdict, event: ToolCallEvent, soleGate = false): NativeResponse {
  const enforced = verdict.decision === Decisions.DENY && event.this_call_vetoable;
  const reason = enforced ? statedReason(verdict) : typeof verdict.reason === "string" ? verdict.reason : null;
  const native = event.meta.native_event;
  let body: Json | null;
  if (!native) body = null;
  else if (event.event === "unknown") body = {};
  else if (native === PERMISSION_REQUEST) body = permissionRequestBody(verdict, reason, soleGate);
  else if (event.event === "pre_tool") body = preToolBody(verdict, event, reason, soleGate);
  else body = otherBody(verdict, event, reason);
  const response: NativeResponse = { transport: HOST.integration_mode, exit_code: enforced ? 2 : 0, enforced };
  if (body !== null) response.stdout = body;
  if (enforced) response.stderr = reason!;
  return response;
}

function declaration(): Json {
  return {
    agent: HOST.agent,
    integration_mode: HOST.integration_mode,
    coverage: HOST.coverage,
    unrendered_fields: HOST.unrendered_fields,
    native_ask_tier: HOST.native_ask_tier,
    native_event_for: HOST.native_event_for,
    default_block_reason: HOST.default_block_reason,
    failure_exit_code: HOST.failure_response.exit_code,
    tool_aliases: HOST.tool_aliases,
    exit_zero_block: HOST.exit_zero_block ?? false,
  };
}

function answer(request: Json): Json {
  const options = isObject(request.options) ? request.options : {};
  const unknown = Object.keys(options).filter((name) => name !== "claude_version");
  if (unknown.length > 0) throw new Error(`option ${unknown.join(", ")} is not taken; it takes: claude_version`);
  switch (request.op) {
    case "declare":
      return { declaration: declaration() };
    case "parse":
      return { event: parse(request.native) };
    case "render":
      return { response: render(request.verdict as Verdict, request.event as ToolCallEvent, request.sole_gate === true) };
    default:
      throw new Error(`unknown op ${JSON.stringify(request.op)}`);
  }
}

function main(): void {
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on("line", (line) => {
    let request: Json = {};
    let reply: Json;
    try {
      request = JSON.parse(line) as Json;
      reply = { id: request.id, ...answer(request) };
    } catch (error) {
      reply = { id: request.id, error: error instanceof Error ? error.message : String(error) };
    }
    process.stdout.write(JSON.stringify(reply) + "\n");
  });
}

main();
