// @i-know-the-amp-plugin-api-is-wip-and-very-experimental-right-now
// DO NOT EDIT: this file is generated.
// source: schema/control-plane/v1/hosts/amp.json
// template: templates/amp/agent-control-plane.ts.j2
// regenerate: make codegen (python -m codegen)

// `acp install amp --plugin` copies this file into .amp/plugins/ (or ~/.config/amp/plugins/)
// and writes the hook command on the CONFIG line; run it again to update the copy. The first line
// is the marker Amp's Plugin API docs ask a plugin to carry; the file is plain JavaScript, which
// Amp loads as TypeScript.
//
// Amp runs plugins in-process (ampcode.com/manual/plugin-api). This one hands every tool call to
// the agent-control-plane hook entry, a separate process, and carries out its answer: exit 2
// rejects the call with the reason as the message the model reads; a JSON body on stdout asks the
// user to confirm, replaces the tool's output, or adds notes for the model.
// It imports only a node built-in and never throws from a handler (hosts/amp.json notes).
import { spawn } from "node:child_process";

// acp install rewrites the next line: the hook command, and what to do when it fails.
const CONFIG = {"command": ["acp-amp-hook"], "failClosed": false, "timeoutMs": 30000};

const CALL = "tool.call";
const RESULT = "tool.result";
// The hook entry reads this call as the plugin form (hosts/amp.json forms).
const FORM = {"ACP_AMP_FORM": "plugin"};
// Set by Amp for its delegate program; inherited here they would describe no call of this plugin.
const DELEGATE_ENV = ["AGENT_TOOL_NAME", "AMP_THREAD_ID"];
// The hook entry's block (hosts/amp.json notes): exit 2, the reason on stderr.
const BLOCK_EXIT = 2;
const DEFAULT_REASON = "blocked by monitor";
const PREFIX = "agent-control-plane";

function environment() {
  const env = { ...process.env, ...FORM };
  for (const name of DELEGATE_ENV) delete env[name];
  return env;
}

function run(payload, cwd) {
  // Serialized before anything starts: a payload JSON cannot carry starts no process.
  const text = JSON.stringify(payload);
  return new Promise((resolve) => {
    const out = [];
    const err = [];
    let settled = false;
    let timer;
    const finish = (result) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    let child;
    try {
      child = spawn(CONFIG.command[0], CONFIG.command.slice(1), {
        cwd,
        env: environment(),
        stdio: ["pipe", "pipe", "pipe"],
      });
    } catch (error) {
      finish({ error: `cannot start ${CONFIG.command[0]}: ${error.message}` });
      return;
    }
    timer = setTimeout(() => {
      child.kill("SIGKILL");
      finish({ error: `no answer within ${CONFIG.timeoutMs} ms` });
    }, CONFIG.timeoutMs);
    child.on("error", (error) => finish({ error: `cannot start ${CONFIG.command[0]}: ${error.message}` }));
    child.stdout.on("data", (chunk) => out.push(chunk));
    child.stderr.on("data", (chunk) => err.push(chunk));
    child.on("close", (code, signal) =>
      finish({
        code,
        signal,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8").trim(),
      }),
    );
    // A hook that exits without reading its stdin must not crash Amp with EPIPE.
    child.stdin.on("error", () => {});
    child.stdin.end(text);
  });
}

function notes(body) {
  return [body.warning, body.context].filter((text) => typeof text === "string" && text);
}

function isObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

// One of {block: reason}, {body: {...}} or {failed: why}; never throws.
async function decide(payload, cwd, log) {
  let result;
  try {
    result = await run(payload, cwd);
  } catch (error) {
    // A payload that cannot be sent (JSON.stringify throws) is a failure, never a thrown handler.
    return { failed: `cannot send the call to the hook (${error?.message ?? error})` };
  }
  let why = result.error;
  if (why === undefined && result.code === BLOCK_EXIT) return { block: result.stderr || DEFAULT_REASON };
  if (why === undefined && result.code === 0) {
    // A failed hook entry that lets the call run says why on stderr.
    if (result.stderr) log(result.stderr);
    const text = result.stdout.trim();
    if (!text) return { body: {} };
    try {
      const body = JSON.parse(text);
      if (isObject(body)) return { body };
    } catch {}
    why = "the hook's answer is not a JSON object";
  }
  if (why === undefined) {
    why = `the hook ended with ${result.signal ?? `exit ${result.code}`}`;
    if (result.stderr) why += `: ${result.stderr}`;
  }
  return { failed: why };
}

// The tool's output with notes for the model after it, in the shape the output already has.
function withNotes(output, texts) {
  if (!texts.length) return output;
  if (Array.isArray(output)) return [...output, ...texts.map((text) => ({ type: "text", text }))];
  const shown = output === undefined || output === null || output === "" ? [] : [output];
  return [...shown.map((part) => (typeof part === "string" ? part : JSON.stringify(part))), ...texts].join("\n\n");
}

function workspace(amp, ctx) {
  try {
    const root = ctx?.system?.workspaceRoot;
    if (root !== undefined && typeof amp.helpers?.filePathFromURI === "function") {
      const path = amp.helpers.filePathFromURI(root);
      if (typeof path === "string" && path) return path;
    }
  } catch {}
  return process.cwd();
}

export default function (amp) {
  // toolUseID -> notes from tool.call, delivered with the same call's tool.result.
  const held = new Map();
  // toolUseIDs this plugin rejected: Amp still emits their tool.result, which has nothing to judge.
  const rejected = new Set();

  const logger = (ctx) => (text) => {
    const sink = ctx?.logger?.log ?? amp.logger?.log;
    if (typeof sink === "function") sink(text);
    else console.error(text);
  };

  const reject = (event, message) => {
    held.delete(event.toolUseID);
    rejected.add(event.toolUseID);
    return { action: "reject-and-continue", message };
  };

  const confirmed = async (event, ctx, message, log) => {
    try {
      if (typeof ctx?.ui?.confirm !== "function") return false;
      return (await ctx.ui.confirm({ title: `Allow ${event.tool}?`, message, confirmButtonText: "Allow" })) === true;
    } catch (error) {
      // An ask nobody can answer must not run the call.
      log(`${PREFIX}: cannot ask for confirmation (${error?.message ?? error}); the call is rejected`);
      return false;
    }
  };

  amp.on(CALL, async (event, ctx) => {
    const log = logger(ctx);
    const cwd = workspace(amp, ctx);
    const answer = await decide(
      {
        event: CALL,
        tool: event.tool,
        toolUseID: event.toolUseID,
        input: event.input,
        threadID: event.thread?.id ?? ctx?.thread?.id,
        cwd,
      },
      cwd,
      log,
    );
    if (answer.block !== undefined) return reject(event, answer.block);
    if (answer.failed !== undefined) {
      if (CONFIG.failClosed) {
        return reject(event, `${PREFIX}: ${answer.failed}; blocked because the plugin was installed with --fail-closed`);
      }
      log(`${PREFIX}: ${answer.failed}; the call runs`);
      return { action: "allow" };
    }
    const body = answer.body;
    if (typeof body.ask === "string" && !(await confirmed(event, ctx, body.ask, log))) {
      return reject(event, body.ask);
    }
    const texts = notes(body);
    if (texts.length) held.set(event.toolUseID, texts);
    // The entry sends no input while the amp declaration keeps mutated_input unrendered (the
    // plugin types name no action that applies one); a later declaration that renders it lands here.
    if (isObject(body.input)) return { action: "modify", input: body.input };
    // Amp needs an answer from every tool.call handler.
    return { action: "allow" };
  });

  amp.on(RESULT, async (event, ctx) => {
    const before = held.get(event.toolUseID) ?? [];
    held.delete(event.toolUseID);
    if (rejected.delete(event.toolUseID)) return undefined;
    const log = logger(ctx);
    const cwd = workspace(amp, ctx);
    const payload = {
      event: RESULT,
      tool: event.tool,
      toolUseID: event.toolUseID,
      input: event.input,
      threadID: event.thread?.id ?? ctx?.thread?.id,
      status: event.status,
      output: event.output,
      cwd,
    };
    if (event.error !== undefined) payload.error = event.error;
    const answer = await decide(payload, cwd, log);
    let output = event.output;
    let texts = before;
    if (answer.body !== undefined) {
      if (typeof answer.body.output === "string") output = answer.body.output;
      texts = [...before, ...notes(answer.body)];
    } else {
      const why = answer.block ?? answer.failed;
      if (CONFIG.failClosed) {
        // The tool ran; what is left to withhold is its output, which may need redacting.
        output = `${PREFIX}: ${why}; the output is withheld because the plugin was installed with --fail-closed`;
        texts = [];
      } else {
        log(`${PREFIX}: ${why}; the output is passed on`);
      }
    }
    if (output === event.output && !texts.length) return undefined;
    const result = { status: event.status, output: withNotes(output, texts) };
    if (event.error !== undefined) result.error = event.error;
    return result;
  });
}
