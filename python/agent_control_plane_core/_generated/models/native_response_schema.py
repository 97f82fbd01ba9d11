# DO NOT EDIT: this file is generated.
# source: schema/control-plane/v1/native-response.schema.json
# template: templates/python/datamodel/dataclass.jinja2
# regenerate: make codegen (python -m codegen)

from __future__ import annotations

from reprlib import recursive_repr

from agent_control_plane_core._lazy_typing import lazy_aliases
from agent_control_plane_core._model_base import ABSENT, Absent, ContractModel

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass
    from typing import Any
else:
    from agent_control_plane_core._model_base import deferred_dataclass as dataclass

from . import tool_call_event_schema


@dataclass(frozen=True, kw_only=True, init=False, repr=False, eq=False)
class NativeResponse(ContractModel):
    """Everything a hook hands back to its host for one event: the stdout body, the stderr text and the exit code."""

    transport: tool_call_event_schema.IntegrationMode
    """Integration mode the response was rendered for."""

    exit_code: int
    """Process exit code the hook must end with."""

    enforced: bool
    """True guarantees the host blocks the call on this response: through a non-zero exit code, or through the body at exit 0 on a host whose declaration sets exit_zero_block; false promises nothing either way."""

    stdout: dict[str, Any] | Absent = ABSENT
    """JSON body written to stdout; absent when the host reads nothing there."""

    stderr: str | Absent = ABSENT
    """Text written to stderr; absent when there is none."""

    def __init__(
        self,
        *,
        transport: tool_call_event_schema.IntegrationMode,
        exit_code: int,
        enforced: bool,
        stdout: dict[str, Any] | Absent = ABSENT,
        stderr: str | Absent = ABSENT,
    ) -> None:
        """Build the value from its fields; an optional field left out is ABSENT."""
        object.__setattr__(
            self,
            "__dict__",
            {
                "transport": transport,
                "exit_code": exit_code,
                "enforced": enforced,
                "stdout": stdout,
                "stderr": stderr,
            },
        )

    @recursive_repr()
    def __repr__(self) -> str:
        """The dataclass repr: class name and every field."""
        return f"{self.__class__.__qualname__}(transport={self.transport!r}, exit_code={self.exit_code!r}, enforced={self.enforced!r}, stdout={self.stdout!r}, stderr={self.stderr!r})"

    def __eq__(self, other: object) -> bool:
        """Equal when other is of the same class with equal fields, as a dataclass compares."""
        if other.__class__ is self.__class__ and isinstance(other, NativeResponse):
            return (self.transport, self.exit_code, self.enforced, self.stdout, self.stderr,) == (other.transport, other.exit_code, other.enforced, other.stdout, other.stderr,)
        return NotImplemented

    def __hash__(self) -> int:
        """The hash of the field values, as a frozen dataclass hashes."""
        return hash((self.transport, self.exit_code, self.enforced, self.stdout, self.stderr,))


if not TYPE_CHECKING:  # the typing names above, for who reads them at run time
    __getattr__ = lazy_aliases(
        globals(),
        {
        },
    )
