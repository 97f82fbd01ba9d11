// Runs Qwen Code's own published hook-output functions on rendered answers (tests/test_host_static.py).
// stdin: a JSON array of {id, event, exit_code, stdout, stderr}; stdout: a JSON array of
// {id, parsed, output, blocking, decision} in the same order.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const chunks = join(process.argv[2], "@qwen-code", "qwen-code", "chunks");
// The bundle's chunk names are content hashes: find the one that defines the functions.
const chunk = readdirSync(chunks).find(
  (name) => name.endsWith(".js") && readFileSync(join(chunks, name), "utf8").includes("function createHookOutput("),
);
if (!chunk) throw new Error(`no chunk in ${chunks} defines createHookOutput`);
const qwen = await import(pathToFileURL(join(chunks, chunk)).href);

// The 0.24.4 HookRunner's reading of a finished hook (bundle chunk with `class HookRunner`,
// the close handler and convertPlainTextToHookOutput): on exit 2 only stderr is read; otherwise
// stdout, else stderr. A JSON object is the output (a JSON string is parsed once more); plain
// text becomes allow (exit 0), a warning allow (exit 1) or deny (exit 2); nothing read is no output.
// Those few lines live inside a spawn callback and cannot be called, so they are restated here.
function runnerOutput(exitCode, stdout, stderr) {
  const blockingExit = exitCode === 2;
  const text = blockingExit ? stderr.trim() : stdout.trim() || stderr.trim();
  if (!text) return { parsed: "nothing", output: undefined };
  let parsed;
  let failed = false;
  try {
    parsed = JSON.parse(text);
    if (typeof parsed === "string") parsed = JSON.parse(parsed);
  } catch {
    failed = true;
  }
  if (!failed && parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) {
    return { parsed: "json", output: parsed };
  }
  if (failed && !blockingExit && text.startsWith("{")) return { parsed: "ignored", output: undefined };
  if (exitCode === 0) return { parsed: "text", output: { decision: "allow", systemMessage: text } };
  if (exitCode === 2) return { parsed: "text", output: { decision: "deny", reason: text } };
  return { parsed: "text", output: { decision: "allow", systemMessage: `Warning: ${text}` } };
}

const items = JSON.parse(readFileSync(0, "utf8"));
const results = items.map((item) => {
  const { parsed, output } = runnerOutput(item.exit_code, item.stdout, item.stderr);
  if (output === undefined) return { id: item.id, parsed, output: null, blocking: false, decision: null };
  const hook = qwen.createHookOutput(item.event, output);
  // PermissionRequest is decided only by its class's hookSpecificOutput.decision object: the
  // bundle's firePermissionRequestHook reads getPermissionDecision() and nothing else (QW-7).
  const blocking =
    hook instanceof qwen.PermissionRequestHookOutput
      ? hook.isPermissionDenied()
      : qwen.isBlockingHookOutput(item.event, output);
  const decision =
    typeof hook.getPermissionDecision === "function" ? (hook.getPermissionDecision() ?? null) : null;
  return { id: item.id, parsed, output, blocking, decision, kind: hook.constructor.name };
});
process.stdout.write(JSON.stringify(results));
