// DO NOT EDIT: this file is generated.
// source: schema/control-plane/v1/hosts/opencode.json
// template: templates/opencode/agent-control-plane.js.j2
// regenerate: make codegen (python -m codegen)

// `acp install opencode` copies this file into .opencode/plugin/ (or ~/.config/opencode/plugin/)
// and writes the hook command on the CONFIG line; run it again to update the copy.
//
// opencode runs plugins in-process (https://opencode.ai/docs/plugins). This one hands every tool
// call to the agent-control-plane hook entry, a separate process, and carries out its answer:
// exit 2 throws (the message is the tool result the model sees), a JSON body on stdout rewrites
// the arguments in place, replaces the output, or adds notes for the model. It imports only a
// node built-in: offline, a plugin folder with dependencies makes opencode stall installing them.
import { spawn } from "node:child_process";

// acp install rewrites the next line: the hook command, and what to do when it fails.
const CONFIG = {"command": ["acp-opencode-hook"], "failClosed": false, "timeoutMs": 30000};

const BEFORE = "tool.execute.before";
const AFTER = "tool.execute.after";
// The hook entry's block (hosts/opencode.json notes): exit 2, the reason on stderr.
const BLOCK_EXIT = 2;
const DEFAULT_REASON = "blocked by monitor";
const PREFIX = "agent-control-plane";

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
        env: process.env,
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
    // A hook that exits without reading its stdin must not crash opencode with EPIPE.
    child.stdin.on("error", () => {});
    child.stdin.end(text);
  });
}

function notes(body) {
  return [body.warning, body.context].filter((text) => typeof text === "string" && text);
}

async function answer(payload, cwd) {
  const result = await run(payload, cwd);
  let why = result.error;
  if (why === undefined && result.code === BLOCK_EXIT) {
    throw new Error(result.stderr || DEFAULT_REASON);
  }
  if (why === undefined && result.code === 0) {
    // A failed hook entry that lets the call run says why on stderr.
    if (result.stderr) console.error(result.stderr);
    const text = result.stdout.trim();
    if (!text) return {};
    try {
      const body = JSON.parse(text);
      if (body !== null && typeof body === "object" && !Array.isArray(body)) return body;
    } catch {}
    why = "the hook's answer is not a JSON object";
  }
  if (why === undefined) {
    why = `the hook ended with ${result.signal ?? `exit ${result.code}`}`;
    if (result.stderr) why += `: ${result.stderr}`;
  }
  if (CONFIG.failClosed) {
    throw new Error(`${PREFIX}: ${why}; blocked because the plugin was installed with --fail-closed`);
  }
  console.error(`${PREFIX}: ${why}; the call runs`);
  return {};
}

export const AgentControlPlane = async ({ directory }) => {
  // Notes from tool.execute.before reach the model with the same call's output (callID -> texts).
  const held = new Map();
  return {
    [BEFORE]: async (input, output) => {
      const body = await answer(
        {
          event: BEFORE,
          tool: input.tool,
          sessionID: input.sessionID,
          callID: input.callID,
          args: output.args,
          cwd: directory,
        },
        directory,
      );
      if (body.args !== null && typeof body.args === "object" && !Array.isArray(body.args)) {
        // The tool runs with this very object: a new output.args would be ignored.
        for (const key of Object.keys(output.args)) delete output.args[key];
        Object.assign(output.args, body.args);
      }
      const texts = notes(body);
      if (texts.length) held.set(input.callID, texts);
    },
    [AFTER]: async (input, output) => {
      const before = held.get(input.callID) ?? [];
      held.delete(input.callID);
      const body = await answer(
        {
          event: AFTER,
          tool: input.tool,
          sessionID: input.sessionID,
          callID: input.callID,
          args: input.args,
          output: output.output,
          title: output.title,
          cwd: directory,
        },
        directory,
      );
      if (typeof body.output === "string") output.output = body.output;
      const texts = [...before, ...notes(body)];
      if (texts.length) {
        const shown = typeof output.output === "string" && output.output ? [output.output] : [];
        output.output = [...shown, ...texts].join("\n\n");
      }
    },
  };
};
