# DO NOT EDIT: this file is generated.
# source: schema/control-plane/v1/tool-call-event.schema.json
# template: templates/python/datamodel/dataclass.jinja2
# regenerate: make codegen (python -m codegen)

from __future__ import annotations

from reprlib import recursive_repr

from agent_control_plane_core._lazy_typing import lazy_aliases
from agent_control_plane_core._model_base import ABSENT, Absent, ContractModel

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass
    from typing import Any, Literal, TypeAlias
else:
    from agent_control_plane_core._model_base import deferred_dataclass as dataclass

if TYPE_CHECKING:
    EventKind: TypeAlias = Literal["pre_tool", "post_tool", "prompt_submit", "session_start", "unknown"]
    """
    The event kinds the contract models.
    """


if TYPE_CHECKING:
    IntegrationMode: TypeAlias = Literal["external_hook", "in_process", "observe_only"]
    """
    How the guardrail is attached to the host: an external hook process, code inside the host, or a channel that can only watch.
    """


if TYPE_CHECKING:
    StandardMetaField: TypeAlias = Literal["session_id", "cwd", "permission_mode", "transcript_path"]
    """
    Names of the optional meta fields copied from the native payload when their value is a string.
    """


@dataclass(frozen=True, kw_only=True, init=False, repr=False, eq=False)
class PromptInput(ContractModel):
    """The input of a prompt_submit event: the submitted prompt, folded in by every adapter (empty when the host sent no string)."""

    prompt: str
    """The prompt text the user submitted."""

    def __init__(
        self,
        *,
        prompt: str,
    ) -> None:
        """Build the value from its fields; an optional field left out is ABSENT."""
        object.__setattr__(
            self,
            "__dict__",
            {
                "prompt": prompt,
            },
        )

    @recursive_repr()
    def __repr__(self) -> str:
        """The dataclass repr: class name and every field."""
        return f"{self.__class__.__qualname__}(prompt={self.prompt!r})"

    def __eq__(self, other: object) -> bool:
        """Equal when other is of the same class with equal fields, as a dataclass compares."""
        if other.__class__ is self.__class__ and isinstance(other, PromptInput):
            return (self.prompt,) == (other.prompt,)
        return NotImplemented

    def __hash__(self) -> int:
        """The hash of the field values, as a frozen dataclass hashes."""
        return hash((self.prompt,))


@dataclass(frozen=True, kw_only=True, init=False, repr=False, eq=False)
class PatchInput(ContractModel):
    """The input of a canonical Edit or Write parsed from a patch tool (Codex apply_patch): a patch may touch several files, so a judge reads every path in file_paths."""

    file_path: str
    """The first file the patch touches, in patch order."""

    file_paths: list[str]
    """Every file the patch adds, updates, deletes or moves to, in patch order, each once."""

    def __init__(
        self,
        *,
        file_path: str,
        file_paths: list[str],
    ) -> None:
        """Build the value from its fields; an optional field left out is ABSENT."""
        object.__setattr__(
            self,
            "__dict__",
            {
                "file_path": file_path,
                "file_paths": file_paths,
            },
        )

    @recursive_repr()
    def __repr__(self) -> str:
        """The dataclass repr: class name and every field."""
        return f"{self.__class__.__qualname__}(file_path={self.file_path!r}, file_paths={self.file_paths!r})"

    def __eq__(self, other: object) -> bool:
        """Equal when other is of the same class with equal fields, as a dataclass compares."""
        if other.__class__ is self.__class__ and isinstance(other, PatchInput):
            return (self.file_path, self.file_paths,) == (other.file_path, other.file_paths,)
        return NotImplemented

    def __hash__(self) -> int:
        """The hash of the field values, as a frozen dataclass hashes."""
        return hash((self.file_path, self.file_paths,))


@dataclass(frozen=True, kw_only=True, init=False, repr=False, eq=False)
class EventMeta(ContractModel):
    """Provenance of an event and every native top-level field the contract does not model."""

    agent: str
    """Id of the host that produced the payload, such as claude or codex."""

    native_event: str
    """The host's own event name exactly as sent; empty when the payload carries no string name."""

    integration_mode: IntegrationMode
    """How this guardrail is attached to the host for this event."""

    primary_gate_present: bool
    """The host runs its own permission gate as well, so this verdict is a second opinion."""

    passthrough: dict[str, Any]
    """Native top-level fields the contract does not consume, keyed and valued exactly as sent."""

    session_id: str | Absent = ABSENT
    """Host session id, present only when the host sent it as a string."""

    cwd: str | Absent = ABSENT
    """Working directory of the agent, present only when the host sent it as a string."""

    permission_mode: str | Absent = ABSENT
    """The host's permission mode, present only when the host sent it as a string."""

    transcript_path: str | Absent = ABSENT
    """Path of the host's transcript file, present only when the host sent it as a string."""

    native_tool: str | Absent = ABSENT
    """The tool name as the host sent it; present exactly when the event's tool is not null."""

    def __init__(
        self,
        *,
        agent: str,
        native_event: str,
        integration_mode: IntegrationMode,
        primary_gate_present: bool,
        passthrough: dict[str, Any],
        session_id: str | Absent = ABSENT,
        cwd: str | Absent = ABSENT,
        permission_mode: str | Absent = ABSENT,
        transcript_path: str | Absent = ABSENT,
        native_tool: str | Absent = ABSENT,
    ) -> None:
        """Build the value from its fields; an optional field left out is ABSENT."""
        object.__setattr__(
            self,
            "__dict__",
            {
                "agent": agent,
                "native_event": native_event,
                "integration_mode": integration_mode,
                "primary_gate_present": primary_gate_present,
                "passthrough": passthrough,
                "session_id": session_id,
                "cwd": cwd,
                "permission_mode": permission_mode,
                "transcript_path": transcript_path,
                "native_tool": native_tool,
            },
        )

    @recursive_repr()
    def __repr__(self) -> str:
        """The dataclass repr: class name and every field."""
        return f"{self.__class__.__qualname__}(agent={self.agent!r}, native_event={self.native_event!r}, integration_mode={self.integration_mode!r}, primary_gate_present={self.primary_gate_present!r}, passthrough={self.passthrough!r}, session_id={self.session_id!r}, cwd={self.cwd!r}, permission_mode={self.permission_mode!r}, transcript_path={self.transcript_path!r}, native_tool={self.native_tool!r})"

    def __eq__(self, other: object) -> bool:
        """Equal when other is of the same class with equal fields, as a dataclass compares."""
        if other.__class__ is self.__class__ and isinstance(other, EventMeta):
            return (self.agent, self.native_event, self.integration_mode, self.primary_gate_present, self.passthrough, self.session_id, self.cwd, self.permission_mode, self.transcript_path, self.native_tool,) == (other.agent, other.native_event, other.integration_mode, other.primary_gate_present, other.passthrough, other.session_id, other.cwd, other.permission_mode, other.transcript_path, other.native_tool,)
        return NotImplemented

    def __hash__(self) -> int:
        """The hash of the field values, as a frozen dataclass hashes."""
        return hash((self.agent, self.native_event, self.integration_mode, self.primary_gate_present, self.passthrough, self.session_id, self.cwd, self.permission_mode, self.transcript_path, self.native_tool,))


@dataclass(frozen=True, kw_only=True, init=False, repr=False, eq=False)
class ToolCallEvent(ContractModel):
    """One agent event (a tool about to run, a tool that ran, a submitted prompt, a session start) in the host-neutral control-plane/v1 shape."""

    schema_version: Literal[1]
    """Wire version of this contract; a breaking change bumps it."""

    event: EventKind
    """Normalized event kind; a native event the adapter does not model is unknown."""

    tool: str | None
    """Canonical tool name after aliasing, or null when the event names no tool; the raw name is meta.native_tool."""

    input: dict[str, Any]
    """Tool arguments as the host sent them (after declared key renames); a submitted prompt is input.prompt."""

    this_call_vetoable: bool
    """True only when a deny rendered for this very call is enforced by the host; false means any objection is advisory."""

    meta: EventMeta
    """Where the event came from and every native field the contract does not model."""

    response: Any | Absent = ABSENT
    """The tool's result on post_tool, any JSON value including null; absent when the host sent none."""

    def __init__(
        self,
        *,
        schema_version: Literal[1],
        event: EventKind,
        tool: str | None,
        input: dict[str, Any],
        this_call_vetoable: bool,
        meta: EventMeta,
        response: Any | Absent = ABSENT,
    ) -> None:
        """Build the value from its fields; an optional field left out is ABSENT."""
        object.__setattr__(
            self,
            "__dict__",
            {
                "schema_version": schema_version,
                "event": event,
                "tool": tool,
                "input": input,
                "this_call_vetoable": this_call_vetoable,
                "meta": meta,
                "response": response,
            },
        )

    @recursive_repr()
    def __repr__(self) -> str:
        """The dataclass repr: class name and every field."""
        return f"{self.__class__.__qualname__}(schema_version={self.schema_version!r}, event={self.event!r}, tool={self.tool!r}, input={self.input!r}, this_call_vetoable={self.this_call_vetoable!r}, meta={self.meta!r}, response={self.response!r})"

    def __eq__(self, other: object) -> bool:
        """Equal when other is of the same class with equal fields, as a dataclass compares."""
        if other.__class__ is self.__class__ and isinstance(other, ToolCallEvent):
            return (self.schema_version, self.event, self.tool, self.input, self.this_call_vetoable, self.meta, self.response,) == (other.schema_version, other.event, other.tool, other.input, other.this_call_vetoable, other.meta, other.response,)
        return NotImplemented

    def __hash__(self) -> int:
        """The hash of the field values, as a frozen dataclass hashes."""
        return hash((self.schema_version, self.event, self.tool, self.input, self.this_call_vetoable, self.meta, self.response,))


if not TYPE_CHECKING:  # the typing names above, for who reads them at run time
    __getattr__ = lazy_aliases(
        globals(),
        {
            "EventKind": ("pre_tool", "post_tool", "prompt_submit", "session_start", "unknown"),
            "IntegrationMode": ("external_hook", "in_process", "observe_only"),
            "StandardMetaField": ("session_id", "cwd", "permission_mode", "transcript_path"),
        },
    )
