"""Hook runtime: escalation, failure postures and the hook entry, over plumbing, deadline, judges."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Mapping

from ._deadline import TIMEOUT_ENV, Answer, process_age, timeout_seconds
from ._generated.constants import (
    ContentFields,
    Decisions,
    EventKinds,
    IntegrationModes,
    UnrenderedPostures,
    VerdictFields,
)
from ._generated.models.native_response_schema import NativeResponse
from ._generated.models.tool_call_event_schema import ToolCallEvent
from ._generated.models.verdict_schema import Verdict
from ._judges import Judge, JudgeLoadError, demo_judge, load_judge
from ._model_base import ABSENT
from ._plumbing import (
    DIRECT,
    HookAnswer,
    HostPipes,
    isolate_host_pipes,
    put,
    read_stdin,
    write_all,
    write_response,
)
from .contract import block_reason, json_bytes, sanitize_verdict, unreadable_as_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final, NoReturn

    from ._generated.constants import UnrenderedPosture
    from .adapters import Adapter

__all__ = [
    "AUDIT_ENV",
    "CODEX_VERSION_ENV",
    "FAIL_CLOSED_ENV",
    "JUDGE_ENV",
    "ON_UNRENDERED_ENV",
    "POLICY_DIGEST_ENV",
    "POLICY_ENV",
    "SOLE_GATE_ENV",
    "TIMEOUT_ENV",
    "HookAnswer",
    "Judge",
    "JudgeLoadError",
    "demo_judge",
    "emit",
    "entry_adapter",
    "escalate",
    "failure_response",
    "judge_from_env",
    "load_judge",
    "read_stdin",
    "render_escalated",
    "render_hook_response",
    "run_hook_entry",
]

# Issue 15: process plumbing (_plumbing), the deadline (_deadline) and the judges (_judges) are
# modules of their own, which audit and policy import instead of this one; runtime composes them
# and re-exports its public names. These two private names were imported from here before.
_write_all = write_all
_process_age = process_age

JUDGE_ENV: Final = "ACP_JUDGE"
# Issue 26: the folders `acp install` found the judge's module in (os.pathsep-separated), put in
# front of sys.path, so the hook imports what install checked, whatever PYTHONPATH the host has.
JUDGE_PATH_ENV: Final = "ACP_JUDGE_PATH"
FAIL_CLOSED_ENV: Final = "ACP_FAIL_CLOSED"
POLICY_ENV: Final = "ACP_POLICY"
# Issue 28: sha256:<hex> of the rule file at install; a file changed since is a configuration error.
POLICY_DIGEST_ENV: Final = "ACP_POLICY_DIGEST"
AUDIT_ENV: Final = "ACP_AUDIT_LOG"
CODEX_VERSION_ENV: Final = "ACP_CODEX_VERSION"
ON_UNRENDERED_ENV: Final = "ACP_ON_UNRENDERED"
SOLE_GATE_ENV: Final = "ACP_SOLE_GATE"
# Issue 26: what a configuration error (a rule file or judge that does not load) does: block
# (the default: every vetoable call is blocked, naming the error) or host (the host's failure
# posture, as for a runtime failure).
CONFIG_ERROR_ENV: Final = "ACP_ON_CONFIG_ERROR"
_CONFIG_BLOCK: Final = "block"
_CONFIG_HOST: Final = "host"


# contract.md §6: exit 2 is the block every external-hook host reads when render has no channel.
_BLOCK_EXIT: Final = 2


def entry_adapter(agent: str, environ: Mapping[str, str] | None = None, **options: Any) -> Adapter:
    """The adapter a hook entry or the CLI uses: options from the environment, explicit ones winning."""
    from .adapters import _from_environment

    return _from_environment(agent, environ, **options)


def render_escalated(
    adapter: Adapter, verdict: Verdict, event: ToolCallEvent, *, sole_gate: bool = False
) -> NativeResponse:
    """Render, then turn an unenforced non-allow on a vetoable call into a block (contract.md §6)."""
    response = adapter.render(verdict, event, sole_gate=sole_gate)
    return escalate(adapter, verdict, event, response, sole_gate=sole_gate)


def escalate(
    adapter: Adapter,
    verdict: Verdict,
    event: ToolCallEvent,
    response: NativeResponse,
    *,
    sole_gate: bool = False,
) -> NativeResponse:
    """render_escalated given the plain render already made; returns that same object when kept."""
    if verdict.decision == Decisions.ALLOW:
        return response
    meta = event.meta
    if meta.native_event == "" and meta.integration_mode != IntegrationModes.OBSERVE_ONLY:
        # A payload naming no event has no body channel; the exit code is the one signal left.
        return NativeResponse(
            transport=response.transport,
            exit_code=_BLOCK_EXIT,
            enforced=True,
            stderr=unreadable_as_json(block_reason(verdict, adapter.DEFAULT_BLOCK_REASON)),
        )
    if event.this_call_vetoable and not response.enforced:
        if verdict.decision == Decisions.ASK and adapter.NATIVE_ASK_TIER:
            return response  # the host does the asking
        return adapter.render(verdict._replace(decision=Decisions.DENY), event, sole_gate=sole_gate)
    return response


def failure_response(
    adapter: Adapter, diagnostic: str, *, fail_closed: bool, event: ToolCallEvent | None = None
) -> NativeResponse:
    """The response a hook entry gives when it cannot answer: the host's posture, or a block."""
    # One line on stderr: hosts show it verbatim, and a newline would split the diagnostic.
    text = " ".join(diagnostic.split())
    prefix = f"acp-{adapter.AGENT}-hook"
    if fail_closed and event is not None and event.this_call_vetoable:
        # The event is known (the judge failed after parse): block in that event's own answer
        # shape, which is what some events read (Qwen's PermissionRequest reads only its body).
        reason = f"{prefix}: {text}; blocked because {FAIL_CLOSED_ENV}=1"
        return render_escalated(adapter, Verdict(decision=Decisions.DENY, reason=reason), event)
    # A host that reads a body even from a failed hook (copilot's deny) gets the declared one.
    declared: Mapping[str, object] | None = getattr(adapter, "FAILURE_STDOUT", None)
    if event is not None and not event.this_call_vetoable:
        # The declared failure body is a tool-call answer: an event that cannot be vetoed gets
        # none, since its own output type may reject it (copilot's sessionStart, postToolUse).
        declared = None
    body = ABSENT if declared is None else dict(declared)
    if fail_closed:
        # contract.md §7: ACP_FAIL_CLOSED=1 makes every failure the host's block (its declared
        # block_response, exit 2 by default) with a non-empty reason. Only a transport that can
        # veto is promised to block (native-response.schema.json).
        blocking: Mapping[str, object] | None = getattr(adapter, "BLOCK_STDOUT", declared)
        if event is not None and not event.this_call_vetoable:
            blocking = None
        return NativeResponse(
            transport=adapter.INTEGRATION_MODE,
            exit_code=getattr(adapter, "BLOCK_EXIT_CODE", _BLOCK_EXIT),
            # An event known not to be vetoable is never claimed blocked.
            enforced=adapter.INTEGRATION_MODE != IntegrationModes.OBSERVE_ONLY and event is None,
            stdout=ABSENT if blocking is None else dict(blocking),
            stderr=f"{prefix}: {text}; blocked because {FAIL_CLOSED_ENV}=1",
        )
    code = adapter.FAILURE_EXIT_CODE
    runs = code == 0 and declared is None
    posture = "the host runs the call" if runs else f"exit {code}, the host's failure answer"
    return NativeResponse(
        transport=adapter.INTEGRATION_MODE,
        exit_code=code,
        enforced=False,
        stdout=body,
        stderr=f"{prefix}: {text}; {posture} (set {FAIL_CLOSED_ENV}=1 to block instead)",
    )


def render_hook_response(
    adapter: Adapter,
    raw_text: str,
    judge: Judge,
    *,
    sole_gate: bool = False,
    fail_closed: bool = False,
    environ: Mapping[str, str] | None = None,
) -> NativeResponse:
    """Decode, parse, judge, sanitize and escalate one hook payload; any failure gets the posture."""
    return _hook_answer(
        adapter, raw_text, judge, sole_gate=sole_gate, fail_closed=fail_closed, environ=environ
    ).response


def _hook_answer(
    adapter: Adapter,
    raw_text: str,
    judge: Judge,
    *,
    sole_gate: bool,
    fail_closed: bool,
    environ: Mapping[str, str] | None,
) -> HookAnswer:
    def failed(diagnostic: str, event: ToolCallEvent | None = None) -> HookAnswer:
        response = failure_response(adapter, diagnostic, fail_closed=fail_closed, event=event)
        return HookAnswer(response, event, failure=diagnostic)

    try:
        payload = json.loads(raw_text)
    except (ValueError, RecursionError) as exc:  # RecursionError: nesting deeper than the parser
        return failed(f"payload is not JSON ({exc})")
    if not isinstance(payload, dict):
        return failed(f"payload is a JSON {type(payload).__name__}, not an object")
    try:
        prepare = getattr(adapter, "hook_payload", None)
        if prepare is not None and environ is not None:
            payload = prepare(payload, environ)
        adapter = _sender_adapter(adapter, payload, environ)
        event = adapter.parse(payload)
        unreadable = getattr(adapter, "unreadable_input", None)
        problem = None if unreadable is None else unreadable(event)
    except Exception as exc:  # an adapter bug must still get the host's posture
        return failed(f"parse failed ({type(exc).__name__}: {exc})")
    if problem is not None:
        # L12: a call whose input cannot be decoded is the entry's failure, not an empty call.
        return failed(f"tool input cannot be read: {problem}", event)
    try:
        answer = judge(event)
    except BaseException as exc:  # even SystemExit from a judge is a failed answer
        return failed(f"judge raised {type(exc).__name__}: {exc}", event)
    try:
        problem = _unusable(answer)
    except Exception as exc:  # a Mapping whose methods raise is the judge's failure too
        problem = f"judge returned an unreadable mapping ({type(exc).__name__}: {exc})"
    if problem is not None:
        return failed(problem, event)
    notes: list[str] = []
    posture = _unrendered_posture(environ or {}, notes)
    try:
        # A present but invalid decision is clamped to ask, not a failure (contract.md §7).
        verdict = sanitize_verdict(answer)
        response = render_escalated(adapter, verdict, event, sole_gate=sole_gate)
        # After render_escalated, whose contract stays: what the host cannot carry (issue 17).
        dropped = _unrendered_fields(adapter, verdict, event, response)
        if dropped:
            response, note = _apply_unrendered(
                adapter, verdict, event, response, dropped, posture, sole_gate=sole_gate
            )
            if note is not None:
                notes.append(note)
        # Serialized here, once: a body that cannot be written (NaN, a set) is a failed answer.
        body = None if response.stdout is ABSENT else json_bytes(response.stdout)
    except Exception as exc:
        return failed(f"render failed ({type(exc).__name__}: {exc})", event)
    rule = getattr(judge, "last_rule", None)
    return HookAnswer(
        response,
        event,
        verdict,
        body,
        dropped,
        tuple(notes),
        rule=rule if isinstance(rule, str) else None,
    )


def _sender_adapter(
    adapter: Adapter, payload: dict[str, Any], environ: Mapping[str, str] | None
) -> Adapter:
    """The adapter of the host that really sent the payload (docs/findings.md XH-1), else adapter."""
    shared = getattr(adapter, "runs_for_other_hosts", None)
    if shared is None or not shared():
        return adapter
    from .adapters._foreign import foreign_host

    host = foreign_host(payload, adapter.AGENT)
    if host is None:
        return adapter
    other = entry_adapter(host, environ)
    # Droid sends the Claude protocol, which its own adapter reads with Droid's facts (an ask is a
    # no-op there, FD-1). A Claude-shaped payload the sender's adapter cannot model stays with
    # the Claude adapter, whose answer that host reads (Cursor's third-party hooks).
    return adapter if other.parse(payload).event == EventKinds.UNKNOWN else other


# An event kind a third-party adapter's declaration does not list carries no content field.
_EVERY_CONTENT_FIELD: Final = frozenset(ContentFields.ALL)


def _unrendered_fields(
    adapter: Adapter, verdict: Verdict, event: ToolCallEvent, response: NativeResponse
) -> tuple[str, ...]:
    """The verdict's content fields the host has no channel for on this event (declaration order)."""
    cannot = adapter.UNRENDERED_FIELDS.get(event.event, _EVERY_CONTENT_FIELD)
    if not cannot:
        return ()
    # A rewrite of a call that is not going to run (a deny, an escalated block) loses nothing.
    blocked = verdict.decision == Decisions.DENY or response.enforced
    fields = verdict.__dict__  # the generated class keeps every field there (no getattr per name)
    return tuple(
        name
        for name in ContentFields.ALL
        if name in cannot
        and fields.get(name, ABSENT) is not ABSENT
        and not (blocked and name == ContentFields.MUTATED_INPUT)
    )


# Fields whose loss runs something other than what the verdict allowed (the original command,
# the unredacted output): the safe default denies them where the call can still be stopped.
_CHANGES_THE_CALL: Final = frozenset({ContentFields.MUTATED_INPUT, ContentFields.MUTATED_OUTPUT})


def _unrendered_posture(environ: Mapping[str, str], notes: list[str]) -> UnrenderedPosture:
    """ACP_ON_UNRENDERED (deny, note or allow); a value not understood is noted and denies."""
    text = environ.get(ON_UNRENDERED_ENV)
    if text is None or not text.strip():
        return UnrenderedPostures.DENY
    value = text.strip().lower()
    for posture in UnrenderedPostures.ALL:
        if value == posture:
            return posture
    notes.append(
        f"{ON_UNRENDERED_ENV}={text!r} is not one of {', '.join(UnrenderedPostures.ALL)};"
        f" using {UnrenderedPostures.DENY}"
    )
    return UnrenderedPostures.DENY


def _apply_unrendered(
    adapter: Adapter,
    verdict: Verdict,
    event: ToolCallEvent,
    response: NativeResponse,
    dropped: tuple[str, ...],
    posture: UnrenderedPosture,
    *,
    sole_gate: bool,
) -> tuple[NativeResponse, str | None]:
    """The response under ACP_ON_UNRENDERED, and the one-line note for stderr (None: silent)."""
    what = f"{adapter.AGENT} has no channel for {' or '.join(dropped)} on {event.event}"
    stoppable = event.this_call_vetoable and not response.enforced
    if (
        posture == UnrenderedPostures.DENY
        and stoppable
        and verdict.decision != Decisions.DENY
        and _CHANGES_THE_CALL.intersection(dropped)
    ):
        # Running the original call instead of the rewrite, or passing the unredacted output
        # on, is a fail-open (issue 17): deny where the host can still stop it.
        refusal = Verdict(
            decision=Decisions.DENY,
            reason=f"{what}, so the call is denied rather than run without it"
            f" (set {ON_UNRENDERED_ENV}=note to let it run)",
        )
        denied = render_escalated(adapter, refusal, event, sole_gate=sole_gate)
        return denied, f"{what}: denied ({ON_UNRENDERED_ENV}={posture})"
    if posture == UnrenderedPostures.ALLOW:
        return response, None
    return response, f"{what}: dropped from the answer ({ON_UNRENDERED_ENV}={posture})"


def _unusable(answer: object) -> str | None:
    """Why a judge's answer carries no decision at all, or None when it has one."""
    if answer is None:
        return "judge returned None, not a verdict (return a verdict with a decision)"
    if isinstance(answer, Verdict):
        return None
    if not isinstance(answer, Mapping):
        return f"judge returned a {type(answer).__name__}, not a verdict or mapping"
    unknown = sorted(repr(key) for key in answer if key not in VerdictFields.ALL)
    if unknown:
        # A misspelt field (mutated_ouput) would drop the redaction it was meant to carry.
        return (
            f"judge returned unknown verdict field(s) {', '.join(unknown)}"
            f" (known: {', '.join(VerdictFields.ALL)})"
        )
    if VerdictFields.DECISION not in answer:
        return f"judge returned a mapping without {VerdictFields.DECISION!r}"
    return None


def emit(response: NativeResponse) -> NoReturn:
    """Write the whole native response (body, then stderr) and exit with its code."""
    write_response(response)
    raise SystemExit(response.exit_code)


# M5: the usual spellings, trimmed and in any case; anything else is a configuration error.
_TRUE: Final = frozenset({"1", "true", "yes", "on"})
_FALSE: Final = frozenset({"", "0", "false", "no", "off"})


def _fail_closed(environ: Mapping[str, str], notes: list[str] | None = None) -> bool:
    """ACP_FAIL_CLOSED as a posture: true spellings block, false ones not; others block, noted."""
    return _flag(environ, FAIL_CLOSED_ENV, notes, when_unclear=True)


def _flag(
    environ: Mapping[str, str], name: str, notes: list[str] | None, *, when_unclear: bool
) -> bool:
    """A boolean variable: the usual spellings; any other value is the safe side, noted."""
    text = environ.get(name)
    if text is None:
        return False
    value = text.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    if notes is not None:
        # ACP_FAIL_CLOSED fails closed, ACP_SOLE_GATE abstains: neither unclear value loosens.
        outcome = "failing closed" if when_unclear else "not the sole gate"
        notes.append(
            f"{name}={text!r} is not understood (use 1, true, yes or on; 0, false, no or off);"
            f" {outcome}"
        )
    return when_unclear


def run_hook_entry(
    adapter: Adapter,
    judge: Judge | None = None,
    *,
    sole_gate: bool = False,
    environ: Mapping[str, str] | None = None,
) -> NoReturn:
    """A whole hook process: stdin payload in, the host's native answer out, then exit."""
    env = os.environ if environ is None else environ
    started = time.monotonic()
    # Before the judge is imported: nothing it or its children write reaches the host's pipes.
    pipes = isolate_host_pipes()
    notes: list[str] = []
    fail_closed = _fail_closed(env, notes)
    # N18: the explicit allow (the host skips its own prompt) is settable per entry, like the rest.
    sole_gate = sole_gate or _flag(env, SOLE_GATE_ENV, notes, when_unclear=False)
    answer = Answer(pipes, adapter.AGENT, notes)

    def audit(outcome: HookAnswer) -> None:
        _audit(env, adapter, outcome, started, pipes)

    after = audit if env.get(AUDIT_ENV) else None
    timeout = timeout_seconds(env, notes)
    if timeout is not None:

        def expired() -> NativeResponse:
            return failure_response(
                adapter,
                f"no answer within {TIMEOUT_ENV}={env.get(TIMEOUT_ENV)}",
                fail_closed=fail_closed,
            )

        # contract.md §7: the deadline counts from process start, not from this call.
        fallback = _BLOCK_EXIT if fail_closed else adapter.FAILURE_EXIT_CODE
        answer.arm(timeout - process_age(), expired, after, fallback)

    def decide() -> HookAnswer:
        nonlocal judge
        broken: str | None = None
        real_stdout = sys.stdout
        # print() goes through sys.stderr's wrapper (its error handler never raises on encoding).
        sys.stdout = sys.stderr
        try:
            notes.extend(_unset_version_notes(adapter, env))
            raw = read_stdin()
            if judge is None:
                try:
                    judge = judge_from_env(env)
                except JudgeLoadError as exc:
                    judge = _configuration_judge(adapter, exc, env, notes)
                    broken = f"configuration error: {exc}"
                if judge is demo_judge and env.get("GITHUB_SHA"):
                    # GM-3: Gemini CLI drops ACP_* variables from a hook's environment under CI.
                    notes.append(
                        "no judge configured: running the demo judge (it blocks only rm -rf)"
                        f" while GITHUB_SHA is set; a host that strips {JUDGE_ENV}/{POLICY_ENV}"
                        " under CI needs the judge in the hook command (acp install"
                        " --judge/--policy)"
                    )
            outcome = _hook_answer(
                adapter, raw, judge, sole_gate=sole_gate, fail_closed=fail_closed, environ=env
            )
            if broken is not None:
                outcome.failure = broken
        except JudgeLoadError as exc:
            outcome = HookAnswer(
                failure_response(adapter, str(exc), fail_closed=fail_closed),
                failure=f"configuration error: {exc}",
            )
        except UnicodeDecodeError as exc:
            text = (
                f"stdin is not UTF-8 (byte {exc.object[exc.start : exc.start + 1]!r} at"
                f" offset {exc.start})"
            )
            outcome = HookAnswer(
                failure_response(adapter, text, fail_closed=fail_closed), failure=text
            )
        except BaseException as exc:  # no fault may leave the host without its answer
            text = f"hook failed ({type(exc).__name__}: {exc})"
            outcome = HookAnswer(
                failure_response(adapter, text, fail_closed=fail_closed), failure=text
            )
        finally:
            sys.stdout = real_stdout
        return outcome

    if fail_closed and hasattr(os, "fork"):
        # A judge killed by a signal (a C-stack overflow after setrecursionlimit) ends the
        # process the host reads as "run the call"; in a child, its death still blocks.
        from ._supervise import supervised

        def died(diagnostic: str) -> HookAnswer:
            response = failure_response(adapter, diagnostic, fail_closed=True)
            return HookAnswer(response, failure=diagnostic)

        left = None if timeout is None else timeout - process_age()
        outcome = supervised(
            decide, pipes, notes, died, detail=after is not None, seconds_left=left
        )
    else:
        outcome = decide()
    answer.send(outcome, after)


def _configuration_judge(
    adapter: Adapter, error: JudgeLoadError, environ: Mapping[str, str], notes: list[str]
) -> Judge:
    """The judge a hook runs while its rule file or judge does not load: it blocks every call.

    ACP_ON_CONFIG_ERROR=host re-raises the error instead, for the host's failure posture.
    """
    text = environ.get(CONFIG_ERROR_ENV, "")
    value = text.strip().lower()
    if value == _CONFIG_HOST:
        raise error
    if value not in ("", _CONFIG_BLOCK):
        notes.append(
            f"{CONFIG_ERROR_ENV}={text!r} is not one of {_CONFIG_BLOCK}, {_CONFIG_HOST}; blocking"
        )
    reason = (
        f"acp-{adapter.AGENT}-hook blocks every call until its configuration is fixed: {error}"
        f" (set {CONFIG_ERROR_ENV}={_CONFIG_HOST} to give the host's failure answer instead)"
    )
    blocked = Verdict(decision=Decisions.DENY, reason=" ".join(reason.split()))

    def configuration_error(event: ToolCallEvent) -> Verdict:
        return blocked

    return configuration_error


def _unset_version_notes(adapter: Adapter, environ: Mapping[str, str]) -> list[str]:
    """A note per version option that neither option nor environment sets, where facts depend on it."""
    names: Mapping[str, str] = getattr(adapter, "ENV_OPTIONS", {})
    options: Mapping[str, object] = getattr(adapter, "options", {})
    declaration = getattr(adapter, "DECLARATION", None)
    facts = getattr(declaration, "VERSION_FACTS", ())
    # A fact that only says what the host does with a hook that died changes no answer the hook
    # gives (Claude's onFailure window, docs/findings.md HA3-11): nothing to say for it.
    if not any(set(fact["set"]) - {"dead_hook"} for fact in facts):
        return []
    host = adapter.AGENT.capitalize()
    return [
        f"no {host} version configured ({variable}): answers use the form valid on every"
        " supported version"
        for option, variable in names.items()
        if option.endswith("_version") and not options.get(option) and not environ.get(variable)
    ]


def judge_from_env(environ: Mapping[str, str]) -> Judge:
    """The judge a hook entry uses: ACP_POLICY's rule file, else ACP_JUDGE, else the demo judge."""
    for name in (POLICY_ENV, JUDGE_ENV):
        value = environ.get(name)
        if value is not None and not value.strip():
            # L6: a launcher exporting an unset variable must not select the demo judge silently.
            raise JudgeLoadError(f"{name} is set but empty; name a judge or unset it")
    policy = environ.get(POLICY_ENV)
    if policy:
        if not os.path.isabs(policy):
            # L13: a relative path resolves in the project, a folder the agent itself writes to.
            raise JudgeLoadError(
                f"{POLICY_ENV}={policy!r} is relative; give an absolute path (acp install writes"
                " one), so a rule file the agent writes into the project is never loaded"
            )
        pinned = environ.get(POLICY_DIGEST_ENV)
        if pinned:
            from ._pin import check_pinned

            check_pinned(policy, pinned, POLICY_DIGEST_ENV)
        # Issue 30: the indexed judge reads only the buckets a call needs from the compiled cache;
        # a current index exists only for a plain file, so the layered check need not read it.
        from ._policy_index import current_judge, load_indexed_judge

        indexed = current_judge(policy)
        if indexed is not None:
            return indexed
        from ._layers import hook_judge

        layered = hook_judge(policy)  # issue 28: a file that extends a base or observes
        if layered is not None:
            return layered
        return load_indexed_judge(policy)
    spec = environ.get(JUDGE_ENV)
    if not spec:
        return demo_judge
    folders = [f for f in environ.get(JUDGE_PATH_ENV, "").split(os.pathsep) if f]
    sys.path[:0] = [folder for folder in folders if folder not in sys.path]
    try:
        return load_judge(spec)
    except JudgeLoadError as exc:
        if not folders:
            raise
        raise JudgeLoadError(
            f"{exc} (it was installed from {JUDGE_PATH_ENV}={os.pathsep.join(folders)}: restore"
            " the module there, or run acp install --judge again where it now is)"
        ) from exc


def _audit(
    environ: Mapping[str, str],
    adapter: Adapter,
    outcome: HookAnswer,
    started: float,
    pipes: HostPipes = DIRECT,
) -> None:
    """Append the call to ACP_AUDIT_LOG when set; a failed write never changes the answer."""
    path = environ.get(AUDIT_ENV)
    if not path:
        return
    try:
        if not os.path.isabs(path):
            # L13: a relative log lands in the project (secrets in the working tree).
            raise OSError(f"{AUDIT_ENV} must be an absolute path")
        from .audit import append_hook_record

        append_hook_record(
            path,
            agent=adapter.AGENT,
            event=outcome.event,
            verdict=outcome.verdict,
            response=outcome.response,
            duration_ms=(time.monotonic() - started) * 1000,
            unrendered=outcome.unrendered,
            failure=outcome.failure,
            rule=outcome.rule,
        )
    except Exception as exc:  # the audit trail is advisory; the decision stands
        # A separate line after the response's own stderr text (see _Answer.send).
        put(
            pipes.err,
            f"\nacp-{adapter.AGENT}-hook: audit log {path!r} not written ({exc})\n".encode(),
        )
