# DO NOT EDIT: this file is generated.
# source: schema/control-plane/v1/native-response.schema.json
# template: templates/python/datamodel/dataclass.jinja2
# regenerate: make codegen (python -m codegen)

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent_control_plane_core._model_base import ABSENT, Absent, ContractModel

from . import tool_call_event_schema


@dataclass(frozen=True, kw_only=True)
class NativeResponse(ContractModel):
    """Everything a hook hands back to its host for one event: the stdout body, the stderr text and the exit code."""

    transport: tool_call_event_schema.IntegrationMode
    """Integration mode the response was rendered for."""

    exit_code: int
    """Process exit code the hook must end with."""

    enforced: bool
    """True guarantees the host blocks the call on this response; false promises nothing either way."""

    stdout: dict[str, Any] | Absent = ABSENT
    """JSON body written to stdout; absent when the host reads nothing there."""

    stderr: str | Absent = ABSENT
    """Text written to stderr; absent when there is none."""
