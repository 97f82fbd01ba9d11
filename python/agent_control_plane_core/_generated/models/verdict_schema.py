# DO NOT EDIT: this file is generated.
# source: schema/control-plane/v1/verdict.schema.json
# template: templates/python/datamodel/dataclass.jinja2
# regenerate: make codegen (python -m codegen)

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from agent_control_plane_core._model_base import ABSENT, Absent, ContractModel

Decision: TypeAlias = Literal["allow", "deny", "ask"]
"""
The three decisions a guardrail can make.
"""


ContentField: TypeAlias = Literal["mutated_input", "mutated_output", "additional_context"]
"""
Verdict fields that carry content to the host, each of which a host may have no channel for.
"""


@dataclass(frozen=True, kw_only=True)
class Verdict(ContractModel):
    """What a guardrail decided about one event, in the host-neutral control-plane/v1 shape."""

    decision: Decision
    """Let the call run, block it, or put it in front of a person."""

    mutated_input: dict[str, Any] | Absent = ABSENT
    """Complete replacement for the tool input (pre_tool); carried verbatim."""

    mutated_output: Any | Absent = ABSENT
    """Replacement for the tool result the model sees (post_tool); any JSON value including null."""

    additional_context: str | Absent = ABSENT
    """Text to add to the agent's context."""

    reason: str | Absent = ABSENT
    """Why, for the model or the person; shown on deny and ask."""
