"""Shared adapter machinery: declaration-backed attributes and event building."""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import MappingProxyType, ModuleType

from .._generated.constants import (
    CallClasses,
    DeadHooks,
    Decisions,
    EventKinds,
    EventMetaFields,
    IntegrationModes,
    ModeledTools,
    NativeResponseFields,
    StandardMetaFields,
    ToolCallEventFields,
)
from .._generated.models.native_response_schema import NativeResponse
from .._generated.models.tool_call_event_schema import EventMeta, ToolCallEvent
from .._generated.models.verdict_schema import Verdict
from .._model_base import ABSENT
from ..contract import (
    VersionKey,
    aliased_tool,
    block_reason,
    call_class,
    canonical_tool,
    check_alias_targets,
    make_event,
    move_input_keys,
    normalize_verdict,
    present,
    rename_input_keys,
    tool_rule,
    version_key,
    vetoable_for,
    window_holds,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar, Final

    from .._generated.constants import (
        CallClass,
        ContentField,
        CoverageStatus,
        DeadHook,
        EventKind,
        IntegrationMode,
    )

__all__ = ["HostAdapter", "NativeFields"]

_STANDARD_META: Final = frozenset(StandardMetaFields.ALL)
_DECISIONS: Final = frozenset(Decisions.ALL)
_NATIVE_EVENT: Final = EventMetaFields.NATIVE_EVENT
_PASSTHROUGH: Final = EventMetaFields.PASSTHROUGH
_NATIVE_TOOL: Final = EventMetaFields.NATIVE_TOOL
_TOOL: Final = ToolCallEventFields.TOOL
_INPUT: Final = ToolCallEventFields.INPUT
_META: Final = ToolCallEventFields.META
_RESPONSE: Final = ToolCallEventFields.RESPONSE
_EXIT_CODE: Final = NativeResponseFields.EXIT_CODE
_ENFORCED: Final = NativeResponseFields.ENFORCED
_STDOUT: Final = NativeResponseFields.STDOUT
_STDERR: Final = NativeResponseFields.STDERR
_new: Final = object.__new__
_POST_TOOL: Final = EventKinds.POST_TOOL
_UNKNOWN: Final = EventKinds.UNKNOWN
_MCP: Final = CallClasses.MCP
_BUILTIN: Final = CallClasses.BUILTIN
_EDIT: Final = ModeledTools.EDIT
# RFC 8259 whitespace, and a scanner of json's default decoder settings (NaN accepted, as json.loads).
_JSON_SPACE: Final = " \t\n\r"
_scan_json: Final = json.JSONDecoder().scan_once  # type: ignore[attr-defined]  # set in __init__


class NativeFields:
    """The native top-level fields one parse read, so the rest can go to passthrough verbatim."""

    __slots__ = ("consumed", "meta", "payload")

    def __init__(self, payload: object) -> None:
        # A non-object payload parses as an empty one: nothing to key (to_object, inlined).
        self.payload: dict[str, Any] = payload if isinstance(payload, dict) else {}
        self.consumed: set[str] = set()
        # Standard meta fields the host spells its own way (sessionId), read by standard_meta.
        self.meta: dict[str, str] | None = None

    def standard_meta(self, key: str, name: str) -> None:
        """Consume key as the standard meta field name when it holds a string and name is not sent."""
        value = self.payload.get(key)
        if isinstance(value, str) and name not in self.payload:
            self.consumed.add(key)
            if self.meta is None:
                self.meta = {}
            self.meta[name] = value

    def string(self, key: str) -> str | None:
        """Consume key when its value is a string and return it; otherwise leave it in passthrough."""
        value = self.payload.get(key)
        if isinstance(value, str):
            self.consumed.add(key)
            return value
        return None

    def object(self, key: str) -> dict[str, Any]:
        """Consume key when its value is an object and return it; otherwise return {}."""
        value = self.payload.get(key)
        if isinstance(value, dict):
            self.consumed.add(key)
            # A shallow copy: a judge editing event.input must not edit the caller's payload.
            return dict(value)
        return {}

    def json_object(self, key: str) -> dict[str, Any] | None:
        """Consume key when it holds an object, or a JSON string of one, and return that object.

        Some hosts send a tool's input as a JSON string (copilot toolArgs, cursor MCP input); a
        string that does not decode to an object stays in passthrough verbatim. None: neither.
        """
        value = self.payload.get(key)
        if isinstance(value, dict):
            return self.object(key)
        if not isinstance(value, str):
            return None
        # json.loads's own checks, around its scanner called directly (a third of its cost on a
        # short argument string, issue 13): JSON's whitespace either side, and nothing after.
        text = value.strip(_JSON_SPACE)
        if not text.startswith("{"):
            return None  # only an object is an input; no need to decode anything else
        try:
            decoded, end = _scan_json(text, 0)
        except (StopIteration, ValueError, RecursionError):  # StopIteration: no value at an index
            return None
        if end != len(text):
            return None  # trailing data, as json.loads refuses it
        self.consumed.add(key)
        return decoded  # type: ignore[no-any-return]  # "{" scans as a dict

    def take(self, key: str) -> Any:
        """Consume key whatever its value (the caller checked it is present)."""
        self.consumed.add(key)
        return self.payload[key]

    def passthrough(self) -> dict[str, Any]:
        """Every field not consumed, keyed and valued exactly as sent."""
        return {k: v for k, v in self.payload.items() if k not in self.consumed}


class UnknownOptionError(ValueError, TypeError):
    """An option the host does not take; a ValueError (also a TypeError, as it was before)."""


class HostAdapter:
    """Base of the shipped adapters: declaration constants at the host's version, the parse tail."""

    DECLARATION: ModuleType
    # Host-specific options besides the version option every adapter takes (<agent>_version).
    OPTIONS: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, **options: Any) -> None:
        decl = self.DECLARATION
        # Every host takes its version as <agent>_version, from ACP_<AGENT>_VERSION in a hook entry.
        version_option = f"{decl.AGENT}_version"
        # A host with integration forms (hosts/<agent>.json forms) also takes <agent>_form.
        forms: Mapping[str, Mapping[str, Any]] = getattr(decl, "FORMS", {})
        form_option = f"{decl.AGENT}_form"
        env_options = {version_option: f"ACP_{decl.AGENT.upper()}_VERSION"}
        if forms:
            env_options[form_option] = f"ACP_{decl.AGENT.upper()}_FORM"
        accepted = self.OPTIONS | set(env_options)
        unknown = sorted(set(options) - accepted)
        if unknown:
            raise UnknownOptionError(
                f"option {', '.join(unknown)} is not taken by the {decl.AGENT} adapter;"
                f" it takes: {', '.join(sorted(accepted))}"
            )
        form = options.get(form_option)
        if form is not None and form not in forms:
            raise UnknownOptionError(
                f"{form_option} {form!r} is not one of the {decl.AGENT} forms:"
                f" {', '.join(sorted(forms))}"
            )
        check_alias_targets(decl.TOOL_ALIASES, f"hosts/{decl.AGENT}.json")
        self.options: Mapping[str, Any] = MappingProxyType(dict(options))
        self.VERSION_OPTION: str = version_option
        # option -> environment variable a hook entry or the CLI reads it from (an option wins).
        self.ENV_OPTIONS: Mapping[str, str] = MappingProxyType(env_options)
        found = options.get(version_option)
        self.HOST_VERSION: str | None = found if isinstance(found, str) else None
        # The integration form configured (None: the one the top-level declaration describes).
        self.FORM: str | None = form
        view = _DeclarationView(
            decl, version_key(self.HOST_VERSION), None if form is None else forms[form]
        )
        # Ids of the version facts applied (host.schema.json version_facts), in declaration order.
        self.VERSION_FACTS: tuple[str, ...] = view.applied
        self.AGENT: str = decl.AGENT
        self.INTEGRATION_MODE: IntegrationMode = self.integration_mode(view.integration_mode)
        self.COVERAGE: Mapping[CallClass, CoverageStatus] = MappingProxyType(view.coverage)
        self.GATED_KINDS: frozenset[EventKind] = view.gated_kinds
        self.COVERAGE_KINDS: frozenset[EventKind] = view.coverage_kinds
        self.UNRENDERED_FIELDS: Mapping[EventKind, frozenset[ContentField]] = MappingProxyType(
            view.unrendered
        )
        self.NATIVE_ASK_TIER: bool = view.native_ask_tier
        self.NATIVE_EVENT_FOR: Mapping[EventKind, str] = decl.NATIVE_EVENT_FOR
        # Host-scoped aliases (the global map is in constants); conformance checks each is witnessed.
        self.TOOL_ALIASES: Mapping[str, str] = decl.TOOL_ALIASES
        self.DEFAULT_BLOCK_REASON: str = decl.DEFAULT_BLOCK_REASON
        self.FAILURE_EXIT_CODE: int = view.failure_exit_code
        # The body a failed hook entry prints, for a host that reads one (hosts/<agent>.json).
        self.FAILURE_STDOUT: Mapping[str, object] | None = view.failure_stdout
        # The host blocks on a deny body at exit 0: an enforced render may exit 0.
        self.EXIT_ZERO_BLOCK: bool = view.exit_zero_block
        # What the host does with a call whose hook died without answering (dead_hook).
        self.DEAD_HOOK: DeadHook = view.dead_hook
        self.FEATURES: Mapping[str, bool] = MappingProxyType(view.features)
        # ACP_FAIL_CLOSED=1 sends the host's own block signal (hosts/<agent>.json block_response).
        # (A declaration generated before block_response existed blocks with exit 2.)
        self.BLOCK_EXIT_CODE: int = getattr(decl, "BLOCK_EXIT_CODE", 2)
        self.BLOCK_STDOUT: Mapping[str, object] | None = getattr(
            decl, "BLOCK_STDOUT", self.FAILURE_STDOUT
        )
        # (kind, call class) -> the event's fields that follow from them (its kind and veto), filled
        # by build_event: a pure function of the declaration at this version, worked out once.
        self._event_plans: dict[tuple[str, str], dict[str, Any]] = {}
        # EventMeta's fields with this adapter's constants set, in schema order; build_event
        # copies it. Built by the class itself, so its keys are the class's own fields.
        self._meta_plan: dict[str, Any] = EventMeta(
            agent=self.AGENT,
            native_event="",
            integration_mode=self.INTEGRATION_MODE,
            primary_gate_present=decl.PRIMARY_GATE_PRESENT,
            passthrough={},
        ).__dict__
        # NativeResponse's fields on this transport, in schema order; response() copies it.
        self._response_plan: dict[str, Any] = NativeResponse(
            transport=self.INTEGRATION_MODE, exit_code=0, enforced=False
        ).__dict__
        # The declared input-key renames per native tool, as (old, new) pairs.
        self._renames: dict[str, tuple[tuple[str, str], ...]] = {
            tool: tuple(renames.items()) for tool, renames in decl.INPUT_KEY_RENAMES.items()
        }
        # Native tool -> (input key, form) naming every file it changes (derived_paths); a
        # declaration generated before the field existed names none.
        self._derived: dict[str, tuple[str, str]] = dict(getattr(decl, "DERIVED_PATHS", {}))
        # (native tool, host's own tool) -> tool_rule: the canonical name, or the (alias, input
        # key) pair where the call's input decides it.
        self._tools: dict[tuple[str, bool], str | tuple[str, str | None]] = {}
        # Native tool -> its call class when the payload names no MCP context nor agent type.
        self._name_classes: dict[str, CallClass] = {}
        # Bodiless responses by (exit code, enforced): immutable, so one object serves every call.
        self._bare_responses: dict[tuple[int, bool], NativeResponse] = {}
        # The declared native event names, as a dict (a mapping proxy's get costs more per parse).
        self._kinds: dict[str, EventKind] = dict(decl.NATIVE_EVENTS)
        self._frozen = True

    def __setattr__(self, name: str, value: Any) -> None:
        # Shared adapters are certified by conformance; a later assignment would change every
        # caller's answers, so only configure() makes a variant.
        if getattr(self, "_frozen", False):
            raise AttributeError(
                f"{type(self).__name__} is immutable: use configure(...) for a new adapter"
            )
        super().__setattr__(name, value)

    def __repr__(self) -> str:
        shown = "".join(f" {k}={v!r}" for k, v in sorted(self.options.items()))
        return f"<{type(self).__name__}{shown} {self.INTEGRATION_MODE}>"

    def integration_mode(self, declared: IntegrationMode) -> IntegrationMode:
        """The integration mode at this adapter's version (the declared one unless a host overrides)."""
        return declared

    def feature(self, name: str) -> bool:
        """A named render switch of the declaration at this adapter's version."""
        return self.FEATURES[name]

    def configure(self, **options: Any) -> HostAdapter:
        """Return a new adapter with these options over the current ones; unknown ones raise."""
        return type(self)(**{**self.options, **options})

    def versioned(self, payload: Mapping[str, Any]) -> HostAdapter:
        """This adapter at the version a payload names, when none is configured (versions.payload_field)."""
        field = self.DECLARATION.VERSION_PAYLOAD_FIELD
        if field is None or self.HOST_VERSION is not None:
            return self
        sent = payload.get(field)
        if not isinstance(sent, str) or version_key(sent) is None:
            return self
        return _at_version(
            type(self), tuple(sorted(self.options.items())), self.VERSION_OPTION, sent
        )

    def render(
        self, verdict: Verdict, event: ToolCallEvent, *, sole_gate: bool = False
    ) -> NativeResponse:
        """Render a verdict as this host's whole native response; refuse a verdict or event it cannot."""
        if verdict.decision not in _DECISIONS:
            raise ValueError(
                f"{self.AGENT} render: decision {verdict.decision!r} is not one of {Decisions.ALL};"
                " pass the judge's output through sanitize_verdict or normalize_verdict first"
            )
        if (
            verdict.mutated_output is None
            or verdict.mutated_input is None
            or verdict.additional_context is None
            or verdict.reason is None
        ):
            # Null is absent in a verdict (docs/contract.md §2), however the Verdict was built.
            verdict = normalize_verdict(verdict)
        meta = event.meta
        if meta.agent != self.AGENT:
            raise ValueError(
                f"{self.AGENT} render: the event was parsed by the {meta.agent!r} adapter;"
                f" render it with adapter_for({meta.agent!r})"
            )
        if self.DECLARATION.VERSION_PAYLOAD_FIELD is None:
            return self.render_checked(verdict, event, sole_gate=sole_gate)
        # A version the host sent in the payload stays in passthrough; render at that version.
        adapter = self.versioned(meta.passthrough)
        return adapter.render_checked(verdict, event, sole_gate=sole_gate)

    def render_checked(
        self, verdict: Verdict, event: ToolCallEvent, *, sole_gate: bool
    ) -> NativeResponse:
        """The host's render of a verdict with a valid decision for one of its own events."""
        raise NotImplementedError

    def carries(self, kind: EventKind, field: ContentField) -> bool:
        """Whether this host's declaration gives a content field a channel on this event kind."""
        return field not in self.UNRENDERED_FIELDS[kind]

    def native_input(self, event: ToolCallEvent, mutated: object) -> object:
        """A rewrite in the host's own input keys: the declared renames of the tool, undone."""
        renames = self.DECLARATION.INPUT_KEY_RENAMES.get(event.meta.native_tool)
        if renames is None or not isinstance(mutated, dict):
            return mutated
        # A judge writes canonical keys (file_path); the host's tool reads its own (path).
        return rename_input_keys(mutated, {new: old for old, new in renames.items()})

    def hook_payload(self, payload: dict[str, Any], environ: Mapping[str, str]) -> dict[str, Any]:
        """The payload a hook entry parses, given what the host put on stdin and in the environment."""
        return payload

    def unreadable_input(self, event: ToolCallEvent) -> str | None:
        """Why a tool call's input could not be read in the host's documented shape, else None."""
        # L12: parse never raises, so an undecodable input parses as an empty call; a hook entry
        # asks this and gives its failure posture rather than judging a call it cannot see.
        return None

    def kind_of(self, native_event: str) -> EventKind:
        """The event kind a native event name parses as (unknown when undeclared)."""
        # A plain dict lookup: untrusted names like "__class__" are just strings here.
        return self._kinds.get(native_event, _UNKNOWN)

    def build_event(
        self,
        fields: NativeFields,
        *,
        kind: EventKind,
        native_event: str,
        native_tool: str | None,
        tool_input: dict[str, Any],
        call_keys: tuple[str, str],
        response_key: str | None = None,
        mcp_call: bool = False,
        tool_aliases: Mapping[str, str] | None = None,
    ) -> ToolCallEvent:
        """Finish a parse: response, standard meta, renames, aliases, call class, veto, passthrough.

        call_keys names the host's MCP-context and agent-type fields; response_key its tool-result
        field, read on post_tool only (contract.md §2); mcp_call marks a call the host's own event
        or tool naming identifies as MCP; tool_aliases replaces the declared host aliases for a call
        whose canonical tool depends on its input (a patch that only adds files is a Write).
        tool_input becomes the event's input, its keys renamed in place: pass a dict of the
        event's own (NativeFields.object returns a copy), never one the caller keeps.
        """
        decl = self.DECLARATION
        payload = fields.payload
        # The version a payload names matters only to a host that sends one (versions.payload_field).
        at = self if decl.VERSION_PAYLOAD_FIELD is None else self.versioned(payload)
        response = ABSENT
        consumed = fields.consumed
        if kind == _POST_TOOL and response_key is not None and response_key in payload:
            response = payload[response_key]
            consumed.add(response_key)
        # One pass splits what is left into the standard meta (a string under a standard name) and
        # passthrough, in the payload's order: this runs for every event a hook or the bridge parses.
        standard: dict[str, str] = {}
        passthrough = {}
        for key, value in payload.items():
            if key in consumed:
                continue
            if key in _STANDARD_META and isinstance(value, str):
                standard[key] = value
            else:
                passthrough[key] = value
        if fields.meta:
            standard.update(fields.meta)  # their names are not in the payload: nothing collides
        mcp_key, agent_type_key = call_keys
        mcp_context = payload.get(mcp_key)
        agent_type = payload.get(agent_type_key)
        calls: CallClass
        if mcp_call:
            calls = _MCP
        elif mcp_context is None and agent_type is None and native_tool is not None:
            # Most calls: the class follows from the name alone, remembered per name (bounded).
            calls = self._name_classes.get(native_tool) or _remember(
                self._name_classes, native_tool, call_class(native_tool, None, None)
            )
        else:
            calls = call_class(native_tool, mcp_context, agent_type)
        # A subagent's or resumed session's call runs the host's own tool, so its renames and
        # alias apply (else {"tool": "Bash", "input": {"cmd": ...}, "agent_type": "x"} evades a
        # rule on command: docs/findings.md AMP-1); an MCP server's tool is not the host's even
        # when it shares a builtin's name, so it keeps its native name for MCP rules.
        host_tool = calls != _MCP
        if native_tool is not None and host_tool:
            renames = at._renames.get(native_tool)
            if renames is not None:
                move_input_keys(tool_input, renames)  # in place: the event's own dict (docstring)
        written = None
        if native_tool is not None and host_tool and self._derived:
            derived = self._derived.get(native_tool)
            if derived is not None:
                # Every file the call changes, from the declared key (a patch, a path list).
                from ._paths import derive_paths

                written = derive_paths(tool_input, *derived)
        tool: str | None
        alias_class = _BUILTIN if host_tool else calls
        if tool_aliases is None and native_tool is not None:
            # A name's rule is looked up once per (name, host's own tool), in a bounded cache
            # (names come from payloads); a host alias that reads the input (Copilot's bash is
            # Bash with a command) is then decided per call, from the rule's (alias, key) pair.
            rule = self._tools.get((native_tool, host_tool))
            if rule is None:
                rule = _remember(
                    self._tools,
                    (native_tool, host_tool),
                    tool_rule(native_tool, alias_class, decl.TOOL_ALIASES),
                )
            tool = rule if isinstance(rule, str) else aliased_tool(rule, native_tool, tool_input)
        else:
            aliases = decl.TOOL_ALIASES if tool_aliases is None else tool_aliases
            tool = canonical_tool(native_tool, tool_input, alias_class, aliases)
        if written is not None and tool == _EDIT:
            tool = written  # a patch that only adds files is a Write
        plan = at._event_plans.get((kind, calls))
        if plan is None:
            plan = at._event_plan(kind, calls)
        # The two objects are filled from the plans, not built through their constructors: a
        # call with keyword arguments was half of a parse (issue 13). The plans come from the
        # constructors, so every field is there, in schema order (test_model_base).
        meta = _new(EventMeta)
        meta_fields = meta.__dict__  # filled in place: cheaper than putting a copy in its place
        meta_fields.update(at._meta_plan)
        meta_fields[_NATIVE_EVENT] = native_event
        meta_fields[_PASSTHROUGH] = passthrough
        if native_tool is not None:
            meta_fields[_NATIVE_TOOL] = native_tool
        if standard:
            meta_fields.update(standard)
        event = _new(ToolCallEvent)
        event_fields = event.__dict__
        event_fields.update(plan)
        event_fields[_TOOL] = tool
        event_fields[_INPUT] = tool_input
        event_fields[_META] = meta
        if response is not ABSENT:
            event_fields[_RESPONSE] = response
        return event

    def _event_plan(self, kind: EventKind, calls: CallClass) -> dict[str, Any]:
        """The fields of every event of this kind and call class, placeholders for the rest."""
        vetoable = vetoable_for(kind, calls, self.GATED_KINDS, self.COVERAGE, self.COVERAGE_KINDS)
        # tool-call-event.schema.json: nothing on an observe-only transport is vetoable.
        vetoable = vetoable and self.INTEGRATION_MODE != IntegrationModes.OBSERVE_ONLY
        # make_event's checks, and its construction, once per pair: nothing else decides them.
        plan = make_event(
            event=kind,
            tool=None,
            input={},
            this_call_vetoable=vetoable,
            meta=EventMeta(**self._meta_plan),
        ).__dict__
        self._event_plans[(kind, calls)] = plan  # per adapter: its declaration never changes
        return plan

    def response(
        self,
        *,
        exit_code: int = 0,
        enforced: bool = False,
        stdout: dict[str, Any] | None = None,
        stderr: str | None = None,
    ) -> NativeResponse:
        """A NativeResponse on this adapter's transport; None leaves stdout or stderr absent."""
        bare = stdout is None and stderr is None
        if bare:
            found = self._bare_responses.get((exit_code, enforced))
            if found is not None:
                return found
        # Filled from the plan, as build_event builds an event (a render runs per call).
        response = _new(NativeResponse)
        fields = response.__dict__
        fields.update(self._response_plan)
        fields[_EXIT_CODE] = exit_code
        fields[_ENFORCED] = enforced
        if stdout is not None:
            fields[_STDOUT] = stdout
        if stderr is not None:
            fields[_STDERR] = stderr
        if bare:
            self._bare_responses[(exit_code, enforced)] = response
        return response

    def block_reason(self, verdict: Verdict) -> str:
        """The verdict's reason when non-empty, else the host's default block reason."""
        return block_reason(verdict, self.DEFAULT_BLOCK_REASON)


# Entries of a per-adapter cache keyed by tool name, at most: payloads name tools.
_TOOLS_MAX: Final = 256


def _remember(cache: dict[Any, Any], key: object, value: Any) -> Any:
    """Store value in a bounded per-name cache (emptied when full) and return it."""
    if len(cache) >= _TOOLS_MAX:
        cache.clear()
    cache[key] = value
    return value


# Adapters at a version a payload named, so each distinct version is built once.
_VERSIONED: dict[tuple[object, ...], HostAdapter] = {}
_VERSIONED_MAX: Final = 32


def _at_version(
    cls: type[HostAdapter], options: tuple[tuple[str, Any], ...], option: str, version: str
) -> HostAdapter:
    key = (cls, options, version)
    found = _VERSIONED.get(key)
    if found is None:
        if len(_VERSIONED) >= _VERSIONED_MAX:
            _VERSIONED.clear()  # bounded: payloads naming many versions must not grow memory
        found = _VERSIONED[key] = cls(**{**dict(options), option: version})
    return found


class _DeclarationView:
    """A host declaration at one version: the top-level fields with the holding facts laid over."""

    def __init__(
        self,
        decl: ModuleType,
        version: VersionKey | None,
        form: Mapping[str, Any] | None = None,
    ) -> None:
        supported: tuple[str, str] | None = decl.SUPPORTED_VERSIONS
        self.integration_mode: IntegrationMode = decl.INTEGRATION_MODE
        self.coverage: dict[CallClass, CoverageStatus] = dict(decl.COVERAGE)
        self.gated_kinds: frozenset[EventKind] = decl.GATED_KINDS
        self.coverage_kinds: frozenset[EventKind] = decl.COVERAGE_KINDS
        self.unrendered: dict[EventKind, frozenset[ContentField]] = dict(decl.UNRENDERED_FIELDS)
        self.native_ask_tier: bool = decl.NATIVE_ASK_TIER
        self.failure_exit_code: int = decl.FAILURE_EXIT_CODE
        self.failure_stdout: Mapping[str, object] | None = decl.FAILURE_STDOUT
        self.exit_zero_block: bool = decl.EXIT_ZERO_BLOCK
        # (A declaration generated before dead_hook existed says nothing: the call runs.)
        self.dead_hook: DeadHook = getattr(decl, "DEAD_HOOK", DeadHooks.RUNS)
        self.features: dict[str, bool] = dict(decl.FEATURES)
        applied = []
        for fact in decl.VERSION_FACTS:
            if window_holds(fact["since"], fact["until"], version, supported):
                self.lay(fact["set"])
                applied.append(fact["id"])
        self.applied = tuple(applied)
        if form is not None:
            # A form describes another transport of the same host: it wins over the facts.
            self.lay(form)
        first = None if supported is None else version_key(supported[0])
        if version is not None and first is not None and version < first:
            # host.schema.json versions.supported: nothing is known below min, so claim no block.
            self.integration_mode = IntegrationModes.OBSERVE_ONLY

    def lay(self, overlay: Mapping[str, Any]) -> None:
        """Override the fields one fact sets: coverage and features per key, channels per field."""
        if "integration_mode" in overlay:
            self.integration_mode = overlay["integration_mode"]
        self.coverage.update(overlay.get("coverage", {}))
        if "gated_kinds" in overlay:
            self.gated_kinds = frozenset(overlay["gated_kinds"])
        if "coverage_kinds" in overlay:
            self.coverage_kinds = frozenset(overlay["coverage_kinds"])
        for kind, fields in overlay.get("rendered_fields", {}).items():
            self.unrendered[kind] = self.unrendered[kind] - frozenset(fields)
        for kind, fields in overlay.get("unrendered_fields", {}).items():
            self.unrendered[kind] = self.unrendered[kind] | frozenset(fields)
        if "native_ask_tier" in overlay:
            self.native_ask_tier = overlay["native_ask_tier"]
        if "failure_response" in overlay:
            failure = overlay["failure_response"]
            self.failure_exit_code = failure["exit_code"]
            self.failure_stdout = failure.get("stdout")
        if "exit_zero_block" in overlay:
            self.exit_zero_block = overlay["exit_zero_block"]
        if "dead_hook" in overlay:
            self.dead_hook = overlay["dead_hook"]
        self.features.update(overlay.get("features", {}))


def output_text(replacement: object) -> str:
    """A replacement tool output as the text a model reads: a string as is, other JSON as JSON."""
    return (
        replacement if isinstance(replacement, str) else json.dumps(replacement, ensure_ascii=False)
    )


def model_text(verdict: Verdict, *, output: bool, context: bool) -> str:
    """Text the model reads instead of a tool's result: reason, the replacement output, context.

    Gemini's AfterTool deny reason and Codex's PostToolUse block reason both replace the output
    (GM-6; Codex lab scenario redact), so a redaction and its context ride there, blank-joined.
    """
    parts = [verdict.reason] if present(verdict.reason) and verdict.reason else []
    if output and present(verdict.mutated_output):
        parts.append(output_text(verdict.mutated_output))
    if context and present(verdict.additional_context) and verdict.additional_context:
        parts.append(verdict.additional_context)
    return "\n\n".join(parts)


# Wrap a decoded payload; a non-object payload parses as an empty one (the class itself: a
# function around it was one more call on every parse).
payload_fields: Final = NativeFields
