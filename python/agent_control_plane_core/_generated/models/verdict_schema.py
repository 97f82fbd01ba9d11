# DO NOT EDIT: this file is generated.
# source: schema/control-plane/v1/verdict.schema.json
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
    Decision: TypeAlias = Literal["allow", "deny", "ask"]
    """
    The three decisions a guardrail can make.
    """


if TYPE_CHECKING:
    ContentField: TypeAlias = Literal["mutated_input", "mutated_output", "additional_context"]
    """
    Verdict fields that carry content to the host, each of which a host may have no channel for.
    """


@dataclass(frozen=True, kw_only=True, init=False, repr=False, eq=False)
class Verdict(ContractModel):
    """What a guardrail decided about one event, in the host-neutral control-plane/v1 shape. An optional field set to null is the same as the field left out."""

    decision: Decision
    """Let the call run, block it, or put it in front of a person."""

    mutated_input: dict[str, Any] | Absent = ABSENT
    """Complete replacement for the tool input (pre_tool); carried verbatim."""

    mutated_output: Any | Absent = ABSENT
    """Replacement for the tool result the model sees (post_tool); any JSON value but null: null in any optional verdict field means absent."""

    additional_context: str | Absent = ABSENT
    """Text to add to the agent's context."""

    reason: str | Absent = ABSENT
    """Why, for the model or the person; shown on deny and ask."""

    def __init__(
        self,
        *,
        decision: Decision,
        mutated_input: dict[str, Any] | Absent = ABSENT,
        mutated_output: Any | Absent = ABSENT,
        additional_context: str | Absent = ABSENT,
        reason: str | Absent = ABSENT,
    ) -> None:
        """Build the value from its fields; an optional field left out is ABSENT."""
        object.__setattr__(
            self,
            "__dict__",
            {
                "decision": decision,
                "mutated_input": mutated_input,
                "mutated_output": mutated_output,
                "additional_context": additional_context,
                "reason": reason,
            },
        )

    @recursive_repr()
    def __repr__(self) -> str:
        """The dataclass repr: class name and every field."""
        return f"{self.__class__.__qualname__}(decision={self.decision!r}, mutated_input={self.mutated_input!r}, mutated_output={self.mutated_output!r}, additional_context={self.additional_context!r}, reason={self.reason!r})"

    def __eq__(self, other: object) -> bool:
        """Equal when other is of the same class with equal fields, as a dataclass compares."""
        if other.__class__ is self.__class__ and isinstance(other, Verdict):
            return (self.decision, self.mutated_input, self.mutated_output, self.additional_context, self.reason,) == (other.decision, other.mutated_input, other.mutated_output, other.additional_context, other.reason,)
        return NotImplemented

    def __hash__(self) -> int:
        """The hash of the field values, as a frozen dataclass hashes."""
        return hash((self.decision, self.mutated_input, self.mutated_output, self.additional_context, self.reason,))


if not TYPE_CHECKING:  # the typing names above, for who reads them at run time
    __getattr__ = lazy_aliases(
        globals(),
        {
            "Decision": ("allow", "deny", "ask"),
            "ContentField": ("mutated_input", "mutated_output", "additional_context"),
        },
    )
