"""Shared adapter machinery: the Adapter protocol, declaration-backed attributes and event building."""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import MappingProxyType, ModuleType
from typing import Any, ClassVar, Protocol, runtime_checkable

from .._generated.constants import (
    CallClass,
    CallClasses,
    ContentField,
    CoverageStatus,
    Decisions,
    EventKind,
    EventKinds,
    IntegrationMode,
    IntegrationModes,
    StandardMetaFields,
)
from .._generated.models.native_response_schema import NativeResponse
from .._generated.models.tool_call_event_schema import EventMeta, ToolCallEvent
from .._generated.models.verdict_schema import Verdict
from .._model_base import ABSENT
from ..contract import (
    block_reason,
    call_class,
    canonical_tool,
    check_alias_targets,
    make_event,
    rename_input_keys,
    to_object,
    vetoable_for,
)

__all__ = ["Adapter", "HostAdapter", "NativeFields"]


@runtime_checkable
class Adapter(Protocol):
    """What every host adapter provides (contract.md §4)."""

    AGENT: str
    INTEGRATION_MODE: IntegrationMode
    COVERAGE: Mapping[CallClass, CoverageStatus]
    UNRENDERED_FIELDS: Mapping[EventKind, frozenset[ContentField]]
    NATIVE_ASK_TIER: bool
    NATIVE_EVENT_FOR: Mapping[EventKind, str]
    DEFAULT_BLOCK_REASON: str
    FAILURE_EXIT_CODE: int

    def parse(self, native: object) -> ToolCallEvent:
        """Turn a raw hook payload into a ToolCallEvent; never raises."""
        ...

    def render(
        self, verdict: Verdict, event: ToolCallEvent, *, sole_gate: bool = False
    ) -> NativeResponse:
        """Turn a verdict into the host's whole native response."""
        ...

    def configure(self, **options: Any) -> Adapter:
        """Return a new adapter with these options; unknown options raise."""
        ...


class NativeFields:
    """The native top-level fields one parse read, so the rest can go to passthrough verbatim."""

    __slots__ = ("consumed", "payload")

    def __init__(self, payload: dict[str, Any]) -> None:
        self.payload = payload
        self.consumed: set[str] = set()

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
        try:
            decoded = json.loads(value)
        except (ValueError, RecursionError):
            return None
        if not isinstance(decoded, dict):
            return None
        self.consumed.add(key)
        return decoded

    def take(self, key: str) -> Any:
        """Consume key whatever its value (the caller checked it is present)."""
        self.consumed.add(key)
        return self.payload[key]

    def passthrough(self) -> dict[str, Any]:
        """Every field not consumed, keyed and valued exactly as sent."""
        return {k: v for k, v in self.payload.items() if k not in self.consumed}


class HostAdapter:
    """Base of the four shipped adapters: declaration constants plus the shared parse tail."""

    DECLARATION: ModuleType
    OPTIONS: ClassVar[frozenset[str]] = frozenset()
    # option -> environment variable a hook entry or the CLI reads it from (an explicit option wins)
    ENV_OPTIONS: ClassVar[Mapping[str, str]] = MappingProxyType({})

    def __init__(self, **options: Any) -> None:
        unknown = sorted(set(options) - self.OPTIONS)
        if unknown:
            known = ", ".join(sorted(self.OPTIONS)) or "none"
            raise TypeError(
                f"{self.DECLARATION.AGENT} adapter: unknown option(s) {', '.join(unknown)};"
                f" known: {known}"
            )
        decl = self.DECLARATION
        check_alias_targets(decl.TOOL_ALIASES, f"hosts/{decl.AGENT}.json")
        self.options: Mapping[str, Any] = MappingProxyType(dict(options))
        self.AGENT: str = decl.AGENT
        self.INTEGRATION_MODE: IntegrationMode = self.integration_mode(self.options)
        self.COVERAGE: Mapping[CallClass, CoverageStatus] = decl.COVERAGE
        self.UNRENDERED_FIELDS: Mapping[EventKind, frozenset[ContentField]] = decl.UNRENDERED_FIELDS
        self.NATIVE_ASK_TIER: bool = decl.NATIVE_ASK_TIER
        self.NATIVE_EVENT_FOR: Mapping[EventKind, str] = decl.NATIVE_EVENT_FOR
        # Host-scoped aliases (the global map is in constants); conformance checks each is witnessed.
        self.TOOL_ALIASES: Mapping[str, str] = decl.TOOL_ALIASES
        self.DEFAULT_BLOCK_REASON: str = decl.DEFAULT_BLOCK_REASON
        self.FAILURE_EXIT_CODE: int = decl.FAILURE_EXIT_CODE
        # The body a failed hook entry prints, for a host that reads one (hosts/<agent>.json).
        self.FAILURE_STDOUT: Mapping[str, object] | None = decl.FAILURE_STDOUT
        self._frozen = True

    def __setattr__(self, name: str, value: Any) -> None:
        # Shared adapters are certified by conformance; a later assignment would change every
        # caller's answers (seed: freeze the declarations), so only configure() makes a variant.
        if getattr(self, "_frozen", False):
            raise AttributeError(
                f"{type(self).__name__} is immutable: use configure(...) for a new adapter"
            )
        super().__setattr__(name, value)

    def __repr__(self) -> str:
        shown = "".join(f" {k}={v!r}" for k, v in sorted(self.options.items()))
        return f"<{type(self).__name__}{shown} {self.INTEGRATION_MODE}>"

    def integration_mode(self, options: Mapping[str, Any]) -> IntegrationMode:
        """The integration mode under these options (the declared one unless a host overrides)."""
        mode: IntegrationMode = self.DECLARATION.INTEGRATION_MODE
        return mode

    def configure(self, **options: Any) -> HostAdapter:
        """Return a new adapter with these options over the current ones; unknown ones raise."""
        return type(self)(**{**self.options, **options})

    def render(
        self, verdict: Verdict, event: ToolCallEvent, *, sole_gate: bool = False
    ) -> NativeResponse:
        """Render a verdict as this host's whole native response; refuse a verdict or event it cannot."""
        if verdict.decision not in Decisions.ALL:
            raise ValueError(
                f"{self.AGENT} render: decision {verdict.decision!r} is not one of {Decisions.ALL};"
                " pass the judge's output through sanitize_verdict or normalize_verdict first"
            )
        if event.meta.agent != self.AGENT:
            raise ValueError(
                f"{self.AGENT} render: the event was parsed by the {event.meta.agent!r} adapter;"
                f" render it with adapter_for({event.meta.agent!r})"
            )
        return self.render_checked(verdict, event, sole_gate=sole_gate)

    def render_checked(
        self, verdict: Verdict, event: ToolCallEvent, *, sole_gate: bool
    ) -> NativeResponse:
        """The host's render of a verdict with a valid decision for one of its own events."""
        raise NotImplementedError

    def carries(self, kind: EventKind, field: ContentField) -> bool:
        """Whether this host's declaration gives a content field a channel on this event kind."""
        return field not in self.UNRENDERED_FIELDS[kind]

    def hook_payload(self, payload: dict[str, Any], environ: Mapping[str, str]) -> dict[str, Any]:
        """The payload a hook entry parses, given what the host put on stdin and in the environment."""
        return payload

    def kind_of(self, native_event: str) -> EventKind:
        """The event kind a native event name parses as (unknown when undeclared)."""
        # A plain dict lookup: untrusted names like "__class__" are just strings here.
        events: Mapping[str, EventKind] = self.DECLARATION.NATIVE_EVENTS
        return events.get(native_event, EventKinds.UNKNOWN)

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
    ) -> ToolCallEvent:
        """Finish a parse: response, standard meta, renames, aliases, call class, veto, passthrough.

        call_keys names the host's MCP-context and agent-type fields; response_key its tool-result
        field, read on post_tool only (contract.md §2); mcp_call marks a call the host's own event
        or tool naming identifies as MCP.
        """
        decl = self.DECLARATION
        payload = fields.payload
        response = ABSENT
        if kind == EventKinds.POST_TOOL and response_key is not None and response_key in payload:
            response = fields.take(response_key)
        standard = {}
        for name in StandardMetaFields.ALL:
            value = fields.string(name)
            if value is not None:
                standard[name] = value
        mcp_key, agent_type_key = call_keys
        calls = (
            CallClasses.MCP
            if mcp_call
            else call_class(native_tool, payload.get(mcp_key), payload.get(agent_type_key))
        )
        # A subagent's or resumed session's call runs the host's own tool, so its renames and
        # alias apply (else {"tool": "Bash", "input": {"cmd": ...}, "agent_type": "x"} evades a
        # rule on command: host-findings AMP-1); an MCP server's tool is not the host's even
        # when it shares a builtin's name, so it keeps its native name for MCP rules.
        host_tool = calls != CallClasses.MCP
        if native_tool is not None and host_tool:
            renames = decl.INPUT_KEY_RENAMES.get(native_tool)
            if renames is not None:
                tool_input = rename_input_keys(tool_input, renames)
        alias_class = CallClasses.BUILTIN if host_tool else calls
        tool = canonical_tool(native_tool, tool_input, alias_class, decl.TOOL_ALIASES)
        vetoable = vetoable_for(kind, calls, decl.GATED_KINDS, decl.COVERAGE, decl.COVERAGE_KINDS)
        # tool-call-event.schema.json: nothing on an observe-only transport is vetoable.
        vetoable = vetoable and self.INTEGRATION_MODE != IntegrationModes.OBSERVE_ONLY
        meta = EventMeta(
            agent=self.AGENT,
            native_event=native_event,
            integration_mode=self.INTEGRATION_MODE,
            primary_gate_present=decl.PRIMARY_GATE_PRESENT,
            passthrough=fields.passthrough(),
            native_tool=ABSENT if native_tool is None else native_tool,
            **standard,
        )
        return make_event(
            event=kind,
            tool=tool,
            input=tool_input,
            this_call_vetoable=vetoable,
            meta=meta,
            response=response,
        )

    def response(
        self,
        *,
        exit_code: int = 0,
        enforced: bool = False,
        stdout: dict[str, Any] | None = None,
        stderr: str | None = None,
    ) -> NativeResponse:
        """A NativeResponse on this adapter's transport; None leaves stdout or stderr absent."""
        return NativeResponse(
            transport=self.INTEGRATION_MODE,
            exit_code=exit_code,
            enforced=enforced,
            stdout=ABSENT if stdout is None else stdout,
            stderr=ABSENT if stderr is None else stderr,
        )

    def block_reason(self, verdict: Verdict) -> str:
        """The verdict's reason when non-empty, else the host's default block reason."""
        return block_reason(verdict, self.DEFAULT_BLOCK_REASON)


def payload_fields(native: object) -> NativeFields:
    """Wrap a decoded payload; a non-object payload parses as an empty one (nothing to key)."""
    return NativeFields(to_object(native))
