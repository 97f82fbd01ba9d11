"""Static layer: every body our adapters render, checked against each host's own published definitions.

Codex: its 0.171.0 hook JSON Schemas (lab/static/vendor/codex, PROVENANCE.json) plus the output
rules behind that binary's error strings. Claude Code and Factory Droid: the Claude Agent SDK's
hook types; Gemini CLI: gemini-cli-core's hook types; Copilot CLI: the Copilot SDK's hook types;
all under `tsc --strict` with excess-property checks. Qwen Code: its published bundle's own
hook-output functions, run from node. The npm side is pinned in lab/static/package-lock.json and
installed on first use into lab/static/node_modules (git-ignored; about 580 MB and two minutes on
first use, reused afterwards while the lock is unchanged). Codex needs no download: its schemas
are vendored. Pins change in lab/static/package.json, then `python3 lab/static/relock.py`.
"""

from __future__ import annotations

import fcntl
import hashlib
import itertools
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft7Validator

from agent_control_plane_core import adapter_for
from agent_control_plane_core._generated.constants import Decisions, EventKinds
from agent_control_plane_core._model_base import ABSENT
from agent_control_plane_core.contract import sanitize_verdict
from agent_control_plane_core.runtime import failure_response, render_escalated

from conftest import FIXTURES_DIR, REPO, SCHEMA_DIR, load_json, real_payloads

LAB = REPO / "lab" / "static"
NODE_MODULES = LAB / "node_modules"
CODEX_SCHEMAS = LAB / "vendor" / "codex"
WORK = NODE_MODULES / ".acp-static"  # generated .ts files sit inside node_modules: git-ignored
HOSTS = ("codex", "claude", "factory", "gemini", "copilot", "qwen")
# The Codex version the lab pins; without one the adapter renders observe-only (both are checked).
CODEX_PINNED = "0.171.0"
FAILED = "failed"  # the decision column of a failure answer: no verdict was reached


# ---------------------------------------------------------------------------------------------
# The npm side, installed once per lock


def node_modules() -> Path:
    """lab/static/node_modules for the committed lock, installed with npm ci on first use."""
    lock = (LAB / "package-lock.json").read_bytes()
    stamp = NODE_MODULES / ".acp-lock-sha256"
    want = hashlib.sha256(lock).hexdigest()
    if stamp.is_file() and stamp.read_text() == want:
        return NODE_MODULES
    npm = shutil.which("npm")
    assert npm is not None, "npm is needed for the static layer (node and npm on PATH)"
    LAB.mkdir(parents=True, exist_ok=True)
    with open(LAB / ".npm-ci.lock", "w") as guard:
        fcntl.flock(guard, fcntl.LOCK_EX)  # two test processes must not run npm ci at once
        if not (stamp.is_file() and stamp.read_text() == want):
            print("static layer: npm ci into lab/static/node_modules (first use)", file=sys.stderr)
            # --ignore-scripts: only type definitions and plain JS are needed, never a build.
            # --omit=optional: the hosts' native binaries (hundreds of MB) are not needed here.
            done = subprocess.run(
                [npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--omit=optional"],
                cwd=LAB,
                capture_output=True,
                text=True,
                timeout=1800,
            )
            assert done.returncode == 0, f"npm ci failed in {LAB}:\n{done.stdout}\n{done.stderr}"
            stamp.write_text(want)
    return NODE_MODULES


def node() -> str:
    """The node binary."""
    found = shutil.which("node")
    assert found is not None, "node is needed for the static layer"
    return found


# ---------------------------------------------------------------------------------------------
# The space of renders


@dataclass(frozen=True)
class Payload:
    """One native payload: where it came from, the host event it stands for, adapter options."""

    source: str
    native: Any
    event: str | None
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Answer:
    """One rendered native answer, as the host receives it."""

    case: str
    event: str | None
    decision: str
    enforced: bool
    exit_code: int
    body: Any  # the stdout JSON value, or ABSENT when nothing is printed
    stderr: str

    @property
    def has_body(self) -> bool:
        """Whether anything is printed on stdout."""
        return self.body is not ABSENT

    def key(self) -> str:
        """What the host sees, for dedupe (the case id aside)."""
        body = json.dumps(self.body, sort_keys=True) if self.has_body else None
        parts = [self.event, self.decision == Decisions.ALLOW, self.enforced, self.exit_code]
        return json.dumps([*parts, body, self.stderr])

    def shown(self) -> str:
        """The answer as a failure message shows it."""
        body = json.dumps(self.body) if self.has_body else "(no stdout)"
        return f"exit {self.exit_code}, enforced={self.enforced}, stdout {body}, stderr {self.stderr!r}"


@dataclass
class Distinct:
    """One distinct answer and how many cases rendered it."""

    answer: Answer
    count: int = 1


# Each content field with a value of the shape the verdict schema gives it.
CONTENT = {
    "mutated_input": {"command": "echo rewritten"},
    "mutated_output": "[REDACTED by guardrail]",
    "additional_context": "guardrail note: ctx-marker",
}
# Without a reason, a plain one, and one that parses as JSON (GM-1: hosts that JSON-parse stderr).
REASONS: dict[str, str | None] = {
    "no-reason": None,
    "reason": "policy says no",
    "json-reason": "403",
}


def verdicts() -> Iterator[tuple[str, dict[str, Any]]]:
    """Every verdict shape: each decision x each subset of content fields x each reason form."""
    fields = list(CONTENT)
    for decision in Decisions.ALL:
        for size in range(len(fields) + 1):
            for chosen in itertools.combinations(fields, size):
                for reason_id, reason in REASONS.items():
                    verdict: dict[str, Any] = {"decision": decision}
                    verdict.update({name: CONTENT[name] for name in chosen})
                    if reason is not None:
                        verdict["reason"] = reason
                    label = "+".join([decision, *chosen, reason_id])
                    yield label, verdict


def declaration(host: str) -> dict[str, Any]:
    """hosts/<host>.json."""
    found: dict[str, Any] = load_json(SCHEMA_DIR / "hosts" / f"{host}.json")
    return found


def copilot_event(native: Mapping[str, Any]) -> str | None:
    """The Copilot event a payload stands for: its name, or the documented camelCase shape."""
    name = native.get("hook_event_name")
    if isinstance(name, str):
        return name
    # camelCase payloads name no event; their shapes (docs.github.com hooks reference, CP-6/CP-7).
    if isinstance(native.get("toolName"), str):
        if "toolResult" in native:
            return "postToolUse"
        return "postToolUseFailure" if "error" in native else "preToolUse"
    for key, event in (
        ("prompt", "userPromptSubmitted"),
        ("initialPrompt", "sessionStart"),
        ("source", "sessionStart"),
        ("error", "errorOccurred"),
        ("stopReason", "agentStop"),
        ("reason", "sessionEnd"),
    ):
        if key in native:
            return event
    return None


def host_event(host: str, native: Any) -> str | None:
    """The host event a payload stands for (None: no host sends it, e.g. a bare number)."""
    if not isinstance(native, dict):
        return None
    if host == "copilot":
        return copilot_event(native)
    name = native.get("hook_event_name")
    return name if isinstance(name, str) else None


def synthesized(host: str, event: str, template: dict[str, Any]) -> dict[str, Any]:
    """A payload for a declared event no real payload or fixture covers, built from a real one."""
    kind = declaration(host)["native_events"][event]
    tool_keys = ("tool_name", "tool_input", "tool_response", "tool_use_id", "toolName", "toolArgs")
    if host == "copilot" and event[0].islower():
        base: dict[str, Any] = {
            k: template[k] for k in ("cwd", "sessionId", "timestamp") if k in template
        }
        shapes: dict[str, dict[str, Any]] = {
            EventKinds.PRE_TOOL: {"toolName": "bash", "toolArgs": {"command": "ls"}},
            EventKinds.POST_TOOL: {
                "toolName": "bash",
                "toolArgs": {"command": "ls"},
                "toolResult": {"resultType": "success", "textResultForLlm": "a b"},
            },
            EventKinds.PROMPT_SUBMIT: {"prompt": "go"},
            EventKinds.SESSION_START: {"source": "new", "initialPrompt": "go"},
        }
        return {**base, **shapes.get(kind, {})}
    # The Claude-style form: the template's common fields, then the event's own.
    native = {k: v for k, v in template.items() if k not in (*tool_keys, "sessionId")}
    native["hook_event_name"] = event
    if kind in (EventKinds.PRE_TOOL, EventKinds.POST_TOOL, EventKinds.UNKNOWN):
        native["tool_name"] = "Bash"
        native["tool_input"] = {"command": "ls"}
    if kind == EventKinds.POST_TOOL:
        native["tool_response"] = {"stdout": "a b", "stderr": ""}
    if kind == EventKinds.PROMPT_SUBMIT:
        native["prompt"] = "go"
    if kind == EventKinds.SESSION_START:
        native["source"] = "startup"
    return native


def payloads(host: str) -> list[Payload]:
    """Real payloads, golden fixture payloads, and one built payload per declared event left over."""
    option_sets: list[dict[str, Any]] = [{}]
    if host == "codex":
        option_sets = [{}, {"codex_version": CODEX_PINNED}]
    found: list[Payload] = []
    real = [found.payload for found in real_payloads(host)]
    for index, native in enumerate(real):
        for options in option_sets:
            found.append(Payload(f"real:{host}#{index}", native, host_event(host, native), options))
    for index, case in enumerate(load_json(FIXTURES_DIR / f"{host}.json")["cases"]):
        native = case["native"]
        # The fixture's own options, then the ones every payload gets, each set once.
        unique: list[dict[str, Any]] = []
        for options in [case.get("adapter_options") or {}, *option_sets]:
            if options not in unique:
                unique.append(options)
        for options in unique:
            found.append(
                Payload(f"fixture:{host}#{index}", native, host_event(host, native), options)
            )
    covered = {p.event for p in found}
    template = real[0]
    for event in declaration(host)["native_events"]:
        if event not in covered:
            native = synthesized(host, event, template)
            for options in option_sets:
                found.append(Payload(f"built:{event}", native, event, options))
    return found


def answers(host: str) -> tuple[dict[str, Distinct], int]:
    """Every distinct answer the adapter renders for the host, and the number of renders made."""
    distinct: dict[str, Distinct] = {}
    renders = 0

    def add(payload: Payload, decision: str, parts: tuple[str, ...], response: Any) -> None:
        nonlocal renders
        renders += 1
        shown_options = ",".join(f"{k}={v}" for k, v in sorted(payload.options.items()))
        answer = Answer(
            case=" | ".join(part for part in (payload.source, *parts, shown_options) if part),
            event=payload.event,
            decision=decision,
            enforced=response.enforced,
            exit_code=response.exit_code,
            body=response.stdout,
            stderr="" if response.stderr is ABSENT else response.stderr,
        )
        key = answer.key()
        if key in distinct:
            distinct[key].count += 1
        else:
            distinct[key] = Distinct(answer)

    shapes = list(verdicts())
    failed_for: set[tuple[str | None, str]] = set()
    for payload in payloads(host):
        adapter = adapter_for(host, **payload.options)
        event = adapter.parse(payload.native)
        for (label, raw), sole_gate in itertools.product(shapes, (False, True)):
            verdict = sanitize_verdict(raw)
            plain = adapter.render(verdict, event, sole_gate=sole_gate)
            escalated = render_escalated(adapter, verdict, event, sole_gate=sole_gate)
            for path, response in (("render", plain), ("escalated", escalated)):
                add(payload, verdict.decision, (label, f"sole_gate={sole_gate}", path), response)
        # What the hook entry sends when it cannot answer (a judge crash), once per host event.
        seen = (payload.event, json.dumps(dict(payload.options), sort_keys=True))
        if seen not in failed_for:
            failed_for.add(seen)
            for fail_closed in (False, True):
                response = failure_response(
                    adapter, "judge raised boom", fail_closed=fail_closed, event=event
                )
                add(payload, FAILED, (f"failure_response fail_closed={fail_closed}",), response)
    return distinct, renders


# ---------------------------------------------------------------------------------------------
# Codex: JSON Schemas and the output rules


CODEX_FILES = {
    "PreToolUse": "pre-tool-use",
    "PermissionRequest": "permission-request",
    "PostToolUse": "post-tool-use",
    "SessionStart": "session-start",
    "UserPromptSubmit": "user-prompt-submit",
    "Stop": "stop",
    "SubagentStart": "subagent-start",
    "SubagentStop": "subagent-stop",
    "PreCompact": "pre-compact",
    "PostCompact": "post-compact",
    "Interrupt": "interrupt",
}
# "<event> hook exited with code 2 but did not write ... to stderr" in the 0.171.0 binary.
CODEX_EXIT2_NEEDS_STDERR = frozenset(
    {"PreToolUse", "PermissionRequest", "PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop"}
)


def codex_validators() -> dict[str, Draft7Validator]:
    """One validator per Codex event with an output schema."""
    found = {}
    for event, stem in CODEX_FILES.items():
        schema = load_json(CODEX_SCHEMAS / f"{stem}.command.output.schema.json")
        found[event] = Draft7Validator(schema)
    return found


def _blank(value: object) -> bool:
    return not (isinstance(value, str) and value.strip())


def codex_rules(event: str, body: dict[str, Any]) -> list[str]:
    """The 0.171.0 output rules the schemas do not express, worded as that binary's errors."""
    problems: list[str] = []
    specific = body.get("hookSpecificOutput")
    out: dict[str, Any] = specific if isinstance(specific, dict) else {}
    if event in ("PreToolUse", "PermissionRequest"):
        if body.get("continue") is False:
            problems.append(f"{event} hook returned unsupported continue:false")
        if body.get("suppressOutput") is True:
            problems.append(f"{event} hook returned unsupported suppressOutput")
        if body.get("stopReason") is not None:
            problems.append(f"{event} hook returned unsupported stopReason")
    if event == "PostToolUse" and body.get("suppressOutput") is True:
        problems.append("PostToolUse hook returned unsupported suppressOutput")
    if event in ("PreToolUse", "PostToolUse") and "reason" in body and "decision" not in body:
        problems.append(f"{event} hook returned reason without decision")
    if body.get("decision") == "block" and _blank(body.get("reason")):
        problems.append(f"{event} hook returned decision:block without a non-empty reason")
    if event == "PreToolUse":
        permission = out.get("permissionDecision")
        if body.get("decision") == "approve":
            problems.append("PreToolUse hook returned unsupported decision:approve")
        if permission == "ask":
            problems.append("PreToolUse hook returned unsupported permissionDecision:ask")
        if permission == "deny" and _blank(out.get("permissionDecisionReason")):
            problems.append(
                "PreToolUse hook returned permissionDecision:deny without a non-empty"
                " permissionDecisionReason"
            )
        if "permissionDecisionReason" in out and permission is None:
            problems.append(
                "PreToolUse hook returned permissionDecisionReason without permissionDecision"
            )
        if "updatedInput" in out and permission != "allow":
            problems.append(
                "PreToolUse hook returned updatedInput without permissionDecision:allow"
            )
        if permission == "allow" and "updatedInput" not in out:
            problems.append("PreToolUse hook returned unsupported permissionDecision:allow")
    if event == "PostToolUse" and "updatedMCPToolOutput" in out:
        problems.append("PostToolUse hook returned unsupported updatedMCPToolOutput")
    if event == "PermissionRequest":
        decision = out.get("decision")
        if isinstance(decision, dict):
            if decision.get("interrupt") is True:
                problems.append("PermissionRequest hook returned unsupported interrupt:true")
            for name in ("updatedPermissions", "updatedInput"):
                if decision.get(name) is not None:
                    problems.append(f"PermissionRequest hook returned unsupported {name}")
    return problems


def check_codex(items: list[Distinct]) -> dict[str, list[str]]:
    """Codex problems per distinct answer key."""
    validators = codex_validators()
    problems: dict[str, list[str]] = {}
    for item in items:
        answer = item.answer
        found: list[str] = []
        if answer.exit_code == 2:
            # On exit 2 Codex reads only stderr (hosts/codex.json note, pre_tool_use.rs): the
            # body is not parsed, so it is not validated; an empty stderr fails the hook.
            if answer.event in CODEX_EXIT2_NEEDS_STDERR and not answer.stderr.strip():
                found.append(f"{answer.event} hook exited with code 2 but wrote nothing to stderr")
        elif answer.has_body:
            body = answer.body
            event = answer.event
            if event in validators:
                errors = sorted(validators[event].iter_errors(body), key=lambda e: list(e.path))
                found += [
                    f"schema {CODEX_FILES[event]}.command.output: {e.message}" for e in errors
                ]
                if isinstance(body, dict):
                    found += codex_rules(event, body)
            elif not any(v.is_valid(body) for v in validators.values()):
                # No event a host sends: valid for at least one event's output, or rejected.
                found.append(f"valid against no Codex output schema (payload event {event!r})")
        if found:
            problems[answer.key()] = found
    return problems


# ---------------------------------------------------------------------------------------------
# TypeScript: one tsc run per host


def ts_literal(value: Any) -> str:
    """A JSON value as a TypeScript expression (JSON is one, once line separators are escaped)."""
    return (
        json.dumps(value, ensure_ascii=False)
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def run_tsc(
    host: str, header: str, checks: list[tuple[str, str, str, Any]]
) -> dict[str, list[str]]:
    """Type-check `const bN: TYPE = VALUE;` per check (key, case, type, value); messages per key."""
    modules = node_modules()
    WORK.mkdir(exist_ok=True)
    lines = [*header.splitlines(), ""]
    line_key: dict[int, str] = {}
    for index, (key, case, type_expr, value) in enumerate(checks):
        lines.append(f"// {case}")
        lines.append(f"export const b{index}: {type_expr} = {ts_literal(value)};")
        line_key[len(lines)] = key
    source = WORK / f"{host}.ts"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    # A project file, because an empty "types" (no ambient @types from node_modules) has no flag.
    options = {
        "strict": True,
        "noEmit": True,
        "skipLibCheck": True,
        "target": "es2022",
        "module": "esnext",
        "moduleResolution": "bundler",
        "types": [],
        "pretty": False,
    }
    project = WORK / f"tsconfig.{host}.json"
    project.write_text(json.dumps({"compilerOptions": options, "files": [source.name]}))
    done = subprocess.run(
        [node(), str(modules / "typescript" / "bin" / "tsc"), "-p", str(project)],
        cwd=WORK,
        capture_output=True,
        text=True,
        timeout=600,
    )
    problems: dict[str, list[str]] = {}
    current: list[str] | None = None
    pattern = re.compile(rf"^{re.escape(source.name)}\((\d+),\d+\): (error TS\d+: .*)$")
    for raw in done.stdout.splitlines():
        match = pattern.match(raw)
        if match:
            placed = line_key.get(int(match.group(1)))
            assert placed is not None, f"tsc reported outside any case (harness bug):\n{raw}"
            current = problems.setdefault(placed, [])
            current.append(match.group(2))
        elif raw.startswith(" ") and current is not None:
            current[-1] += " " + raw.strip()
        elif raw.strip():
            raise AssertionError(f"tsc said something the harness cannot place:\n{done.stdout}")
    assert done.returncode == 0 or problems, f"tsc failed without messages:\n{done.stderr}"
    return problems


CLAUDE_HEADER = """\
import type { SyncHookJSONOutput } from "@anthropic-ai/claude-agent-sdk";
type Specific = NonNullable<SyncHookJSONOutput["hookSpecificOutput"]>;
// The answer to one event: SyncHookJSONOutput whose hookSpecificOutput is that event's member.
type Out<E extends string> = Omit<SyncHookJSONOutput, "hookSpecificOutput"> & {
  hookSpecificOutput?: Extract<Specific, { hookEventName: E }>;
};"""


def claude_events(modules: Path) -> frozenset[str]:
    """HOOK_EVENTS of the pinned Claude Agent SDK."""
    text = (modules / "@anthropic-ai" / "claude-agent-sdk" / "sdk.d.ts").read_text("utf-8")
    match = re.search(r"HOOK_EVENTS: readonly \[([^\]]*)\]", text)
    assert match is not None, "sdk.d.ts no longer declares HOOK_EVENTS"
    return frozenset(re.findall(r"'([A-Za-z]+)'", match.group(1)))


def claude_type(event: str | None, events: frozenset[str]) -> str:
    """The Claude SDK type an answer to this event must satisfy."""
    if event in events:
        return f'Out<"{event}">'
    return "SyncHookJSONOutput"  # no event Claude sends: the base answer type


GEMINI_HEADER = """\
import type * as G from "../@google/gemini-cli-core/dist/src/hooks/types.js";"""
GEMINI_TYPES = {
    "BeforeTool": "G.BeforeToolOutput",
    "AfterTool": "G.AfterToolOutput",
    "BeforeAgent": "G.BeforeAgentOutput",
    "AfterAgent": "G.AfterAgentOutput",
    "SessionStart": "G.SessionStartOutput",
    "Notification": "G.NotificationOutput",
    "PreCompress": "G.PreCompressOutput",
    "BeforeModel": "G.BeforeModelOutput",
    "AfterModel": "G.AfterModelOutput",
    "BeforeToolSelection": "G.BeforeToolSelectionOutput",
}


def gemini_reading(answer: Answer) -> tuple[str, Any]:
    """What Gemini CLI 0.61.0's HookRunner takes from a finished hook: (how, value).

    dist/src/hooks/hookRunner.js (lines 328-346): it parses `stdout.trim() || stderr.trim()` as
    JSON at any exit code (a JSON string once more); an object or array is the output, any other
    JSON value gives no output, and text that is not JSON is plain text (GM-1).
    """
    stdout = json.dumps(answer.body) if answer.has_body else ""
    text = stdout.strip() or answer.stderr.strip()
    if not text:
        return "nothing", None

    def no_constants(name: str) -> Any:
        raise ValueError(name)  # JSON.parse rejects NaN and Infinity

    try:
        value = json.loads(text, parse_constant=no_constants)
        if isinstance(value, str):
            value = json.loads(value, parse_constant=no_constants)
    except ValueError:
        return "text", text
    return "json", value


COPILOT_HEADER = """\
import type * as C from "../@github/copilot-sdk/dist/types.js";"""
COPILOT_TYPES = {
    "preToolUse": "C.PreToolUseHookOutput",
    "PreToolUse": "C.PreToolUseHookOutput",
    "postToolUse": "C.PostToolUseHookOutput",
    "PostToolUse": "C.PostToolUseHookOutput",
    "postToolUseFailure": "C.PostToolUseFailureHookOutput",
    "userPromptSubmitted": "C.UserPromptSubmittedHookOutput",
    "UserPromptSubmit": "C.UserPromptSubmittedHookOutput",
    "sessionStart": "C.SessionStartHookOutput",
    "SessionStart": "C.SessionStartHookOutput",
    "sessionEnd": "C.SessionEndHookOutput",
    "errorOccurred": "C.ErrorOccurredHookOutput",
    "agentStop": "C.AgentStopHookOutput",
}
COPILOT_ANY = " | ".join(sorted(set(COPILOT_TYPES.values())))


def check_typescript(host: str, items: list[Distinct]) -> dict[str, list[str]]:
    """Type-check each distinct answer's JSON as the host reads it, in one tsc run."""
    modules = node_modules()
    checks: list[tuple[str, str, str, Any]] = []
    problems: dict[str, list[str]] = {}
    if host in ("claude", "factory"):
        header = CLAUDE_HEADER
        events = claude_events(modules)
        for item in items:
            answer = item.answer
            # Claude Code 2.1.332 parses stdout JSON at any exit code, exit 2 included (CC-8). An
            # answer with no stdout is exit code plus plain-text stderr: no JSON to check.
            if answer.has_body:
                checks.append(
                    (answer.key(), answer.case, claude_type(answer.event, events), answer.body)
                )
    elif host == "gemini":
        header = GEMINI_HEADER
        for item in items:
            answer = item.answer
            how, value = gemini_reading(answer)
            if how == "json":
                target = GEMINI_TYPES.get(answer.event or "", "G.HookOutput")
                checks.append((answer.key(), answer.case, target, value))
            elif how == "nothing" and answer.enforced:
                problems[answer.key()] = [
                    "nothing on stdout or stderr: Gemini's runner derives no output, so nothing"
                    " blocks although the render claims enforced"
                ]
            # how == "text": plain text, which the runner turns into a decision by exit code
            # (0 allow, 1 warning, other deny); there is no JSON to check.
    else:
        header = COPILOT_HEADER
        for item in items:
            answer = item.answer
            # The body is checked at every exit code (which one Copilot reads at exit 2 is not
            # documented, CP-2); an answer with no stdout is plain-text stderr: no JSON to check.
            if answer.has_body:
                target = COPILOT_TYPES.get(answer.event or "", f"({COPILOT_ANY})")
                checks.append((answer.key(), answer.case, target, answer.body))
    for key, messages in run_tsc(host, header, checks).items():
        problems.setdefault(key, []).extend(messages)
    return problems


# ---------------------------------------------------------------------------------------------
# Qwen: the bundle's own functions


def check_qwen(items: list[Distinct]) -> dict[str, list[str]]:
    """Qwen Code 0.24.4's reading of each answer must agree with what the render claims."""
    modules = node_modules()
    request = [
        {
            "id": index,
            "event": item.answer.event or "",
            "exit_code": item.answer.exit_code,
            "stdout": json.dumps(item.answer.body) if item.answer.has_body else "",
            "stderr": item.answer.stderr,
        }
        for index, item in enumerate(items)
    ]
    done = subprocess.run(
        [node(), str(LAB / "qwen_check.mjs"), str(modules)],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"qwen_check.mjs failed:\n{done.stderr}"
    results = json.loads(done.stdout)
    unrendered_before = adapter_for("qwen").UNRENDERED_FIELDS[EventKinds.PRE_TOOL]
    problems: dict[str, list[str]] = {}
    for item, result in zip(items, results, strict=True):
        answer = item.answer
        found = []
        seen = f"the runner read {result['parsed']} -> {json.dumps(result['output'])}"
        if answer.enforced and not result["blocking"]:
            found.append(
                f"render claims enforced, but Qwen's {result.get('kind', 'runner')} does not block ({seen})"
            )
        # A rewrite Qwen cannot apply is refused rather than run as the original (QW-2): an
        # allow carrying mutated_input may block where the declaration calls it unrendered.
        refused = "mutated_input" in answer.case and "mutated_input" in unrendered_before
        if answer.decision == Decisions.ALLOW and result["blocking"] and not refused:
            found.append(f"an allow that Qwen's {result.get('kind')} reads as blocking ({seen})")
        if found:
            problems[answer.key()] = found
    return problems


# ---------------------------------------------------------------------------------------------
# Self-check: a known-good and a known-bad answer per host go through the same checks


def selfcheck(host: str) -> tuple[list[Answer], list[Answer]]:
    """(good, bad) hand-written answers for the host."""

    def ans(
        case: str,
        event: str,
        body: Any,
        *,
        exit_code: int = 0,
        stderr: str = "",
        enforced: bool = False,
        decision: str = Decisions.DENY,
    ) -> Answer:
        return Answer(f"selfcheck:{case}", event, decision, enforced, exit_code, body, stderr)

    if host == "codex":
        good = [
            ans(
                "good-pre-deny",
                "PreToolUse",
                {
                    "hookSpecificOutput": {
                        "hookEventName": "PreToolUse",
                        "permissionDecision": "deny",
                        "permissionDecisionReason": "no",
                    }
                },
            ),
            ans(
                "good-permission",
                "PermissionRequest",
                {
                    "hookSpecificOutput": {
                        "hookEventName": "PermissionRequest",
                        "decision": {"behavior": "deny", "message": "no"},
                    }
                },
            ),
        ]
        bad = [
            ans(
                "bad-schema",
                "PermissionRequest",
                {
                    "hookSpecificOutput": {
                        "hookEventName": "PermissionRequest",
                        "permissionDecision": "deny",
                    }
                },
            ),
            ans(
                "bad-rule",
                "PreToolUse",
                {
                    "hookSpecificOutput": {
                        "hookEventName": "PreToolUse",
                        "permissionDecision": "ask",
                    }
                },
            ),
            ans("bad-exit2", "PreToolUse", ABSENT, exit_code=2, enforced=True),
        ]
    elif host in ("claude", "factory"):
        good = [
            ans(
                "good-permission",
                "PermissionRequest",
                {
                    "hookSpecificOutput": {
                        "hookEventName": "PermissionRequest",
                        "decision": {"behavior": "deny", "message": "no"},
                    }
                },
            ),
            ans(
                "good-pre",
                "PreToolUse",
                {
                    "hookSpecificOutput": {
                        "hookEventName": "PreToolUse",
                        "permissionDecision": "deny",
                        "permissionDecisionReason": "no",
                    }
                },
            ),
        ]
        bad = [
            ans(
                "bad-permission",
                "PermissionRequest",
                {
                    "hookSpecificOutput": {
                        "hookEventName": "PermissionRequest",
                        "permissionDecision": "deny",
                    }
                },
            ),
            ans(
                "bad-excess",
                "PreToolUse",
                {
                    "hookSpecificOutput": {
                        "hookEventName": "PreToolUse",
                        "permissionDecision": "deny",
                        "extra": 1,
                    }
                },
            ),
        ]
    elif host == "gemini":
        good = [
            ans("good-deny", "BeforeTool", {"decision": "deny", "reason": "no"}),
            ans("good-exit2-text", "BeforeTool", ABSENT, exit_code=2, stderr="no", enforced=True),
        ]
        bad = [
            ans(
                "bad-missing-event",
                "BeforeTool",
                {"hookSpecificOutput": {"tool_input": {"command": "ls"}}},
            ),
            ans(
                "bad-exit2-json-reason",
                "BeforeTool",
                ABSENT,
                exit_code=2,
                stderr="403",
                enforced=True,
            ),
        ]
    elif host == "copilot":
        good = [
            ans(
                "good-pre",
                "preToolUse",
                {"permissionDecision": "deny", "permissionDecisionReason": "no"},
            )
        ]
        bad = [ans("bad-post", "postToolUse", {"permissionDecision": "deny"})]
    else:
        good = [
            ans("good-exit2", "PreToolUse", ABSENT, exit_code=2, stderr="no", enforced=True),
            ans(
                "good-permission",
                "PermissionRequest",
                {
                    "hookSpecificOutput": {
                        "hookEventName": "PermissionRequest",
                        "decision": {"behavior": "deny", "message": "no"},
                    }
                },
                enforced=True,
            ),
        ]
        bad = [
            ans("bad-exit2-empty", "PreToolUse", ABSENT, exit_code=2, stderr="", enforced=True),
            ans(
                "bad-permission",
                "PermissionRequest",
                {"decision": "block", "reason": "no"},
                enforced=True,
            ),
        ]
    return good, bad


CHECKS: dict[str, Callable[[list[Distinct]], dict[str, list[str]]]] = {
    "codex": check_codex,
    "claude": lambda items: check_typescript("claude", items),
    "factory": lambda items: check_typescript("factory", items),
    "gemini": lambda items: check_typescript("gemini", items),
    "copilot": lambda items: check_typescript("copilot", items),
    "qwen": check_qwen,
}


@dataclass(frozen=True)
class Rejection:
    """One distinct answer the host's definitions reject."""

    host: str
    case: str
    count: int
    shown: str
    messages: tuple[str, ...]

    def text(self) -> str:
        """The failure message for this rejection."""
        more = f" (and {self.count - 1} more cases with the same answer)" if self.count > 1 else ""
        said = "\n    ".join(self.messages)
        return f"{self.host}: {self.case}{more}\n  body: {self.shown}\n  host: {said}"


def static_layer(
    host: str, say: Callable[[str], None] = lambda _: None
) -> tuple[list[Rejection], dict[str, bool]]:
    """Every rejection for the host, and the self-check outcome per hand-written answer."""
    distinct, renders = answers(host)
    good, bad = selfcheck(host)
    # A hand-written answer equal to a rendered one is checked once, as that rendered answer.
    extra = [Distinct(a) for a in (*good, *bad) if a.key() not in distinct]
    items = list(distinct.values())
    say(f"static layer {host}: {renders} renders, {len(items)} distinct answers; checking")
    problems = CHECKS[host](items + extra)
    outcome = {a.case: a.key() in problems for a in (*good, *bad)}
    rejections = [
        Rejection(host, d.answer.case, d.count, d.answer.shown(), tuple(problems[d.answer.key()]))
        for d in items
        if d.answer.key() in problems
    ]
    say(f"static layer {host}: {len(rejections)} distinct answers rejected")
    return rejections, outcome


_LAYERS: dict[str, tuple[list[Rejection], dict[str, bool]]] = {}


def layer(host: str, capsys: pytest.CaptureFixture[str]) -> tuple[list[Rejection], dict[str, bool]]:
    """static_layer for the host, run once per session (one tsc run per host) with progress shown."""
    if host not in _LAYERS:

        def say(text: str) -> None:
            with capsys.disabled():
                print(text, file=sys.stderr)

        _LAYERS[host] = static_layer(host, say)
    return _LAYERS[host]


@pytest.mark.parametrize("host", HOSTS)
def test_harness_accepts_known_good_and_rejects_known_bad(
    host: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # The harness itself, through the same checks and the same tsc run as the rendered answers.
    _, outcome = layer(host, capsys)
    good, bad = selfcheck(host)
    assert [a.case for a in good if outcome[a.case]] == [], (
        "the harness rejects a known-good answer"
    )
    assert [a.case for a in bad if not outcome[a.case]] == [], (
        "the harness accepts a known-bad answer"
    )


@pytest.mark.parametrize("host", HOSTS)
def test_host_definitions_accept_every_rendered_answer(
    host: str, capsys: pytest.CaptureFixture[str]
) -> None:
    rejections, _ = layer(host, capsys)
    assert not rejections, (
        f"{host}: {len(rejections)} distinct answers rejected:\n\n"
        + "\n\n".join(r.text() for r in rejections)
    )
