# DO NOT EDIT: this file is generated.
# source: schema/control-plane/v1/tool-call-event.schema.json
# template: templates/python/datamodel/dataclass.jinja2
# regenerate: make codegen (python -m codegen)

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from agent_control_plane_core._model_base import ABSENT, Absent, ContractModel

EventKind: TypeAlias = Literal["pre_tool", "post_tool", "prompt_submit", "session_start", "unknown"]
"""
The event kinds the contract models.
"""


IntegrationMode: TypeAlias = Literal["external_hook", "in_process", "observe_only"]
"""
How the guardrail is attached to the host: an external hook process, code inside the host, or a channel that can only watch.
"""


StandardMetaField: TypeAlias = Literal["session_id", "cwd", "permission_mode", "transcript_path"]
"""
Names of the optional meta fields copied from the native payload when their value is a string.
"""


@dataclass(frozen=True, kw_only=True)
class PromptInput(ContractModel):
    """The input of a prompt_submit event: the submitted prompt, folded in by every adapter (empty when the host sent no string)."""

    prompt: str
    """The prompt text the user submitted."""


@dataclass(frozen=True, kw_only=True)
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


@dataclass(frozen=True, kw_only=True)
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
