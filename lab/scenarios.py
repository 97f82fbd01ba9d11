"""Lab scenarios and the outcome each must have, derived from the host's declaration, never per host."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent_control_plane_core import Adapter, Decisions, EventKinds, IntegrationModes
from agent_control_plane_core._generated.constants import (
    CallClasses,
    ContentFields,
    DeadHooks,
    VerdictFields,
)
from agent_control_plane_core.contract import vetoable_for

# Observations the runner reads off a finished run (see run.observe).
ORIGINAL_RAN = "original_ran"
REWRITE_RAN = "rewrite_ran"
REASON_SEEN = "reason_seen"
CONTEXT_SEEN = "context_seen"
SECRET_SEEN = "secret_seen"
REPLACEMENT_SEEN = "replacement_seen"
PROMPT_SEEN = "prompt_seen"
HOOK_CALLED = "hook_called"
HOOK_IN_TIME = "hook_in_time"

# What each observation means in the matrix, by its value.
WORDS: dict[str, tuple[str, str]] = {
    ORIGINAL_RAN: ("ran", "did not run"),
    REWRITE_RAN: ("rewritten ran", "rewrite did not run"),
    REASON_SEEN: ("reason reached the model", "reason not seen by the model"),
    CONTEXT_SEEN: ("context reached the model", "context not delivered"),
    SECRET_SEEN: ("secret reached the model", "secret withheld"),
    REPLACEMENT_SEEN: ("replacement reached the model", "replacement not seen"),
    PROMPT_SEEN: ("prompt reached the model", "prompt withheld"),
    HOOK_CALLED: ("hook called", "hook never called"),
    HOOK_IN_TIME: ("hook answered by the deadline", "hook hung past the deadline"),
}

# A generous bound that tells a hook answering at its deadline (the lab's ACP_HOOK_TIMEOUT_MS, or
# the one an installer writes, e.g. Copilot's 25 s) from one that hangs on the 60 s judge.
HANG_SECONDS = 45.0


@dataclass(frozen=True)
class Markers:
    """The unique strings of one run: what the lab looks for in the model's requests."""

    nonce: str

    @property
    def reason(self) -> str:
        return f"LABREASON-{self.nonce}"

    @property
    def context(self) -> str:
        return f"LABCONTEXT-{self.nonce}"

    @property
    def secret(self) -> str:
        # The command prints it with printf, so the command text itself never holds it whole.
        return f"LABXSECRET-{self.nonce}"

    @property
    def replacement(self) -> str:
        return f"LABREDACTED-{self.nonce}"

    @property
    def prompt(self) -> str:
        return f"LABPROMPT-{self.nonce} run the tool you are given"

    def command(self, project: str) -> str:
        """The shell command the model asks for: prints the secret, leaves the original marker file."""
        return f"printf 'LAB%sSECRET-{self.nonce}\\n' X; touch {project}/lab-original"

    def rewrite_command(self, project: str) -> str:
        """The command a rewrite replaces it with: leaves the rewritten marker file."""
        return f"touch {project}/lab-rewritten"


@dataclass(frozen=True)
class Scenario:
    """One host-neutral lab case: the judge's behaviour and how the hook is installed."""

    name: str
    title: str
    kind_verdicts: tuple[tuple[str, str], ...] = ()
    crash: bool = False
    # What the judge kills: "hook", the whole hook process (the fail-closed supervisor too), so
    # only the host's own failure posture decides (CC-10); "judge", only the process the judge
    # runs in, which the fail-closed supervisor outlives and answers for.
    kill: str | None = None
    sleep_s: float = 0.0
    fail_closed: bool = False
    timeout_ms: int | None = None
    control: str | None = None
    form: str | None = None
    checks: tuple[str, ...] = field(default=())

    @property
    def rule(self) -> str:
        """The scenario whose expectation this one has: a config form's variant has its base's."""
        return self.name.removesuffix(f"_{self.form}") if self.form else self.name

    @property
    def kind(self) -> str:
        """The event kind whose hook answer this scenario is about."""
        if self.control is not None:
            return CONTROL_FIELDS[self.control][0]
        return self.kind_verdicts[0][0] if self.kind_verdicts else PRE

    def verdicts(self, markers: Markers, project: str) -> dict[str, dict[str, Any]]:
        """The verdict per event kind that the lab judge answers."""
        return {kind: _VERDICTS[shape](markers, project) for kind, shape in self.kind_verdicts}


def _deny(m: Markers, project: str) -> dict[str, Any]:
    return {VerdictFields.DECISION: Decisions.DENY, VerdictFields.REASON: m.reason}


def _deny_json(m: Markers, project: str) -> dict[str, Any]:
    # A reason that is itself valid JSON: Gemini CLI parses hook output as JSON first (GM-1).
    return {VerdictFields.DECISION: Decisions.DENY, VerdictFields.REASON: f'["{m.reason}"]'}


def _ask(m: Markers, project: str) -> dict[str, Any]:
    return {VerdictFields.DECISION: Decisions.ASK, VerdictFields.REASON: m.reason}


def _allow(m: Markers, project: str) -> dict[str, Any]:
    return {VerdictFields.DECISION: Decisions.ALLOW}


def _rewrite(m: Markers, project: str) -> dict[str, Any]:
    from agent_control_plane_core import MODELED_TOOL_INPUT_KEYS

    key = MODELED_TOOL_INPUT_KEYS[SHELL_TOOL]
    return {
        VerdictFields.DECISION: Decisions.ALLOW,
        VerdictFields.MUTATED_INPUT: {key: m.rewrite_command(project)},
    }


def _context(m: Markers, project: str) -> dict[str, Any]:
    return {VerdictFields.DECISION: Decisions.ALLOW, VerdictFields.ADDITIONAL_CONTEXT: m.context}


def _redact(m: Markers, project: str) -> dict[str, Any]:
    return {VerdictFields.DECISION: Decisions.ALLOW, VerdictFields.MUTATED_OUTPUT: m.replacement}


_VERDICTS = {
    "deny": _deny,
    "deny_json": _deny_json,
    "ask": _ask,
    "allow": _allow,
    "rewrite": _rewrite,
    "context": _context,
    "redact": _redact,
}

# The canonical shell tool: the one every profile's scripted call reaches.
SHELL_TOOL = "Bash"

PRE, POST, PROMPT = EventKinds.PRE_TOOL, EventKinds.POST_TOOL, EventKinds.PROMPT_SUBMIT

SCENARIOS: tuple[Scenario, ...] = (
    Scenario("deny", "deny before the tool", ((PRE, "deny"),)),
    Scenario("deny_json_reason", "deny whose reason is valid JSON", ((PRE, "deny_json"),)),
    Scenario("allow", "allow", ((PRE, "allow"),)),
    Scenario("ask", "ask before the tool", ((PRE, "ask"),)),
    Scenario("rewrite", "rewrite the input (mutated_input)", ((PRE, "rewrite"),)),
    Scenario("context_pre", "context before the tool", ((PRE, "context"),)),
    Scenario("context_post", "context after the tool", ((POST, "context"),)),
    Scenario("redact", "redact the output (mutated_output)", ((POST, "redact"),)),
    Scenario("prompt_block", "deny the prompt", ((PROMPT, "deny"),)),
    Scenario("crash_fail_closed", "judge crash, ACP_FAIL_CLOSED", crash=True, fail_closed=True),
    # CC-10: the judge SIGKILLs its hook, which then dies without a word; only the host's own
    # failure posture (dead_hook) decides, with and without the --fail-closed entry.
    Scenario("killed", "hook killed by a signal", kill="hook"),
    Scenario(
        "killed_fail_closed",
        "hook killed by a signal, --fail-closed",
        kill="hook",
        fail_closed=True,
    ),
    # The judge's own process dies (SIGKILL stands in for the SIGSEGV of a C-stack overflow):
    # under --fail-closed the supervised hook outlives it and blocks on every host.
    Scenario(
        "judge_killed_fail_closed",
        "judge's process killed by a signal, --fail-closed",
        kill="judge",
        fail_closed=True,
    ),
    Scenario(
        "timeout",
        "judge past ACP_HOOK_TIMEOUT_MS, fail-closed",
        sleep_s=60.0,
        fail_closed=True,
        timeout_ms=3000,
    ),
)

# A control puts a hand-written native answer (from the host's lab profile) in our hook's place,
# to show whether the host carries a channel the declaration calls unrendered.
CONTROLS: tuple[Scenario, ...] = (
    Scenario("control_context_pre", "native context before the tool", control="context_pre"),
    Scenario("control_context_post", "native context after the tool", control="context_post"),
    Scenario("control_rewrite", "native rewrite", control="rewrite"),
    Scenario("control_redact", "native output replacement", control="redact"),
)

# Which content field each control probes, and on which event kind.
CONTROL_FIELDS: dict[str, tuple[str, str]] = {
    "context_pre": (PRE, ContentFields.ADDITIONAL_CONTEXT),
    "context_post": (POST, ContentFields.ADDITIONAL_CONTEXT),
    "rewrite": (PRE, ContentFields.MUTATED_INPUT),
    "redact": (POST, ContentFields.MUTATED_OUTPUT),
}


# Scenarios run again in each other config form a host's lab profile names (profile "forms"):
# the same hook behind another native config shape, e.g. Copilot's PascalCase events (CP-16).
FORM_SCENARIOS: tuple[str, ...] = ("deny",)


def form_variants(forms: list[str]) -> list[Scenario]:
    """The FORM_SCENARIOS once per config form, named <scenario>_<form>."""
    from dataclasses import replace

    return [
        replace(scenario, name=f"{scenario.name}_{form}", form=form)
        for form in forms
        for scenario in SCENARIOS
        if scenario.name in FORM_SCENARIOS
    ]


def fact(adapter: Adapter, name: str) -> Any:
    """A declaration fact as the configured adapter holds it (version-scoped), else as declared."""
    return getattr(adapter, name, getattr(adapter.DECLARATION, name, None))  # type: ignore[attr-defined]


def _vetoable(adapter: Adapter, kind: str) -> bool:
    """Whether the declaration says a deny on this kind blocks the lab's builtin shell call."""
    if fact(adapter, "INTEGRATION_MODE") == IntegrationModes.OBSERVE_ONLY:
        return False
    return vetoable_for(
        kind,  # type: ignore[arg-type]
        CallClasses.BUILTIN,
        fact(adapter, "GATED_KINDS"),
        fact(adapter, "COVERAGE"),
        fact(adapter, "COVERAGE_KINDS"),
    )


def _rendered(adapter: Adapter, kind: str, content: str) -> bool:
    """Whether the declaration says the host carries this content field on this kind."""
    return content not in adapter.UNRENDERED_FIELDS.get(kind, frozenset())  # type: ignore[call-overload]


def expected(adapter: Adapter, scenario: Scenario) -> dict[str, bool]:
    """The observations a scenario must show on a host, read off its (version-configured) declaration."""
    pre = _vetoable(adapter, PRE)
    name = scenario.rule
    if scenario.control is not None:
        # Only run for channels declared unrendered: the host must indeed not carry them.
        return _not_carried(scenario.control)
    if name in ("deny", "deny_json_reason"):
        if not pre:
            return {ORIGINAL_RAN: True}
        # A host whose block ends the run (block_ends_run) never asks the model again.
        return {ORIGINAL_RAN: False, REASON_SEEN: not fact(adapter, "BLOCK_ENDS_RUN")}
    if name == "timeout":
        return {ORIGINAL_RAN: not pre, HOOK_IN_TIME: True}
    if name in ("ask", "crash_fail_closed", "judge_killed_fail_closed"):
        return {ORIGINAL_RAN: not pre}
    if name == "allow":
        return {ORIGINAL_RAN: True}
    if scenario.kill:
        return {ORIGINAL_RAN: not (pre and _dead_hook_blocks(adapter, scenario.fail_closed))}
    if name == "rewrite":
        if _rendered(adapter, PRE, ContentFields.MUTATED_INPUT):
            return {REWRITE_RAN: True, ORIGINAL_RAN: False}
        # A rewrite the host cannot apply must not run the original where the call can be stopped.
        return {REWRITE_RAN: False, ORIGINAL_RAN: not pre}
    if name in ("context_pre", "context_post"):
        kind = PRE if name == "context_pre" else POST
        return {
            ORIGINAL_RAN: True,
            CONTEXT_SEEN: _rendered(adapter, kind, ContentFields.ADDITIONAL_CONTEXT),
        }
    if name == "redact":
        if _rendered(adapter, POST, ContentFields.MUTATED_OUTPUT):
            return {ORIGINAL_RAN: True, SECRET_SEEN: False, REPLACEMENT_SEEN: True}
        # The tool already ran: a redaction the host cannot carry is noted, and the output goes on.
        return {ORIGINAL_RAN: True, SECRET_SEEN: True}
    if name == "prompt_block":
        return {PROMPT_SEEN: not _vetoable(adapter, PROMPT)}
    raise KeyError(f"no expectation rule for scenario {name!r}")


def _dead_hook_blocks(adapter: Adapter, fail_closed: bool) -> bool:
    """Whether the declaration says the host refuses a call whose hook died without answering."""
    posture = fact(adapter, "DEAD_HOOK")
    return posture == DeadHooks.BLOCKS or (fail_closed and posture == DeadHooks.BLOCKS_FAIL_CLOSED)


def _not_carried(control: str) -> dict[str, bool]:
    """A control for an unrendered channel passes only when the host drops the native answer too."""
    if control in ("context_pre", "context_post"):
        return {CONTEXT_SEEN: False}
    if control == "rewrite":
        return {REWRITE_RAN: False}
    return {SECRET_SEEN: True}


def controls_for(adapter: Adapter) -> list[Scenario]:
    """The controls a host needs: one per content channel its declaration calls unrendered."""
    wanted = []
    for scenario in CONTROLS:
        assert scenario.control is not None
        kind, content = CONTROL_FIELDS[scenario.control]
        if not _rendered(adapter, kind, content):
            wanted.append(scenario)
    return wanted
