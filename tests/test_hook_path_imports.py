"""The hook path loads no validator, generator or heavy library (contract.md §1)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from agent_control_plane_core import AGENT_IDS

FORBIDDEN = ("jsonschema", "referencing", "jinja2", "datamodel_code_generator", "pydantic")

SCRIPT = """
import json, sys
from agent_control_plane_core import adapter_for
adapter = adapter_for({agent!r})
event = adapter.parse(json.loads(sys.argv[1]))
from agent_control_plane_core import Verdict
adapter.render(Verdict(decision="deny", reason="r"), event)
print(json.dumps(sorted(name for name in sys.modules if name.split(".")[0] in {forbidden!r})))
print(json.dumps(sorted(n for n in sys.modules if n.startswith("agent_control_plane_core.adapters."))))
"""


@pytest.mark.parametrize("agent", AGENT_IDS)
def test_parse_and_render_import_nothing_heavy(agent: str) -> None:
    payload = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {}})
    code = SCRIPT.format(agent=agent, forbidden=set(FORBIDDEN))
    result = subprocess.run(
        [sys.executable, "-c", code, payload], capture_output=True, text=True, check=True
    )
    loaded, adapters = (json.loads(line) for line in result.stdout.splitlines())
    assert loaded == []
    # Only the requested host's adapter module (and the shared base) is imported.
    assert adapters == sorted(
        [f"agent_control_plane_core.adapters.{agent}", "agent_control_plane_core.adapters._base"]
    )
