"""A new host is one declaration, one adapter module and one fixture file (issue 17, N4, N7).

In a copy of the checkout: `acp new-adapter myagent`, fill in what it prints for an imaginary
host whose block is exit 3 with a JSON body, then run that host's tests and both demos against
an install of the copy. Only the scaffold's files change.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from conftest import REPO

NAME = "myagent"
PIP = (sys.executable, "-m", "pip", "--disable-pip-version-check")
# The per-host tests, selected by the new host's id, and the adapter's own conformance test.
SUBSET = (
    f"tests/test_adapter_{NAME}.py",
    "tests/test_hooks.py",
    "tests/test_policy.py",
    "tests/test_runtime.py",
    "tests/test_audit.py",
    "tests/test_hook_path_imports.py",
)
PINNED = (
    "tests/test_public_api.py",
    "tests/test_adapters.py::test_agent_ids_are_the_declared_hosts",
)
FIELDS = ["additional_context", "mutated_input", "mutated_output"]
ADAPTER = '''"""Myagent adapter: exit 3 with a block body stops before_tool; an allow may rewrite args."""

from __future__ import annotations

from .._generated.constants import Decisions, EventKinds
from .._generated.hosts import myagent as declaration
from .._generated.models.native_response_schema import NativeResponse
from .._generated.models.tool_call_event_schema import ToolCallEvent
from .._generated.models.verdict_schema import Verdict
from ._base import HostAdapter, payload_fields

__all__ = ["MyagentAdapter", "myagent_adapter"]


class MyagentAdapter(HostAdapter):
    """Parses Myagent hook payloads and renders verdicts as Myagent enforces them."""

    DECLARATION = declaration

    def parse(self, native: object) -> ToolCallEvent:
        """Turn a Myagent hook payload into a ToolCallEvent; never raises."""
        fields = payload_fields(native)
        native_event = fields.string("event") or ""
        kind = self.kind_of(native_event)
        tool = fields.string("tool") if kind != EventKinds.UNKNOWN else None
        return self.build_event(
            fields,
            kind=kind,
            native_event=native_event,
            native_tool=tool,
            tool_input=fields.object("args") if tool is not None else {},
            call_keys=("mcp_context", "agent_type"),
            response_key="output",
        )

    def render_checked(
        self, verdict: Verdict, event: ToolCallEvent, *, sole_gate: bool
    ) -> NativeResponse:
        """Render a verdict as Myagent's stdout body, stderr reason and exit code."""
        if verdict.decision == Decisions.DENY and event.this_call_vetoable:
            reason = self.block_reason(verdict)
            body = {"block": True, "reason": reason}
            return self.response(exit_code=3, enforced=True, stdout=body, stderr=reason)
        if verdict.decision == Decisions.ALLOW:
            if event.event == EventKinds.PRE_TOOL and isinstance(verdict.mutated_input, dict):
                return self.response(stdout={"args": verdict.mutated_input})
            return self.response()
        return self.response(stderr=self.block_reason(verdict))


myagent_adapter = MyagentAdapter()
'''
# Step 3 of the printed steps: golden cases, recorded from the adapter once it is written.
RECORD = """
import json, sys
from agent_control_plane_core import Verdict, adapter_for
adapter = adapter_for("myagent")
natives = [
    ("shell before it runs is Bash", "builtin",
     {"event": "before_tool", "tool": "shell", "args": {"cmd": "rm -rf /"}}),
    ("shell after it ran", "builtin",
     {"event": "after_tool", "tool": "shell", "args": {"cmd": "env"}, "output": "a b c"}),
    ("the global shell alias", "builtin",
     {"event": "before_tool", "tool": "run_shell_command", "args": {"command": "ls"}}),
    ("an mcp tool", "mcp", {"event": "before_tool", "tool": "mcp__gh__create_issue", "args": {}}),
]
verdicts = {
    "allow": {"decision": "allow"},
    "deny": {"decision": "deny", "reason": "no"},
    "ask": {"decision": "ask", "reason": "sure?"},
    "rewrite": {"decision": "allow", "mutated_input": {"command": "rm -ri /"}},
}
cases = []
for name, call_class, native in natives:
    event = adapter.parse(native)
    render = {
        label: {"verdict": v, "native": adapter.render(Verdict.from_dict(v), event).to_dict()}
        for label, v in verdicts.items()
    }
    cases.append({"name": name, "call_class": call_class, "native": native,
                  "event": event.to_dict(), "render": render})
path = sys.argv[1]
fixture = json.load(open(path))
fixture["cases"] = cases
open(path, "w").write(json.dumps(fixture, indent=2) + "\\n")
"""


def _fill_declaration(path: Path) -> None:
    declaration = json.loads(path.read_text())
    declaration.update(
        coverage={
            "builtin": "covered",
            "mcp": "unknown",
            "subagent": "unknown",
            "resumed": "unknown",
        },
        gated_kinds=["pre_tool"],
        unrendered_fields={
            kind: [f for f in FIELDS if (kind, f) != ("pre_tool", "mutated_input")]
            for kind in declaration["unrendered_fields"]
        },
        native_events={"before_tool": "pre_tool", "after_tool": "post_tool"},
        native_event_for={"pre_tool": "before_tool", "post_tool": "after_tool"},
        tool_aliases={"shell": "Bash"},
        input_key_renames={"shell": {"cmd": "command"}},
        block_response={"exit_code": 3, "stdout": {"block": True, "reason": "hook failed"}},
        notes=[{"fact": "Imaginary: exit 3 with a block body blocks.", "source": "this test"}],
    )
    path.write_text(json.dumps(declaration, indent=2) + "\n")


def _venv_for(root: Path, home: Path) -> Path:
    """An environment with the copy installed (editable) and the dev tools of this one."""
    venv = home / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    # A plain path line, not a site dir: this environment's editable install stays out.
    (Path(purelib) / "dev-tools.pth").write_text(sysconfig.get_path("purelib") + "\n")
    subprocess.run(
        [
            *PIP,
            "--python",
            str(python),
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "-e",
            str(root),
        ],
        check=True,
        capture_output=True,
    )
    return python


def test_a_new_host_needs_only_what_new_adapter_prints(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    shutil.copytree(
        REPO,
        root,
        ignore=shutil.ignore_patterns(".*", "build", "*.egg-info", "__pycache__", "coverage.json"),
    )
    before = {p.relative_to(root) for p in root.rglob("*") if p.is_file()}
    acp = Path(sys.executable).parent / "acp"
    made = subprocess.run(
        [str(acp), "new-adapter", NAME, "--root", str(root)], capture_output=True, text=True
    )
    assert made.returncode == 0, made.stderr
    assert "docs/adapter-authoring.md" in made.stdout and "make codegen" in made.stdout
    # Step 1 and 2: the declaration and the adapter, then the generator.
    _fill_declaration(root / f"schema/control-plane/v1/hosts/{NAME}.json")
    (root / f"python/agent_control_plane_core/adapters/{NAME}.py").write_text(ADAPTER)
    subprocess.run([sys.executable, "-m", "codegen"], cwd=root, check=True, capture_output=True)
    python = _venv_for(root, tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ACP_", "COVERAGE"))}
    subprocess.run(
        [str(python), "-c", RECORD, str(root / f"fixtures/{NAME}.json")], env=env, check=True
    )
    after = {
        p.relative_to(root)
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and not p.name.endswith(".pth")
    }
    # Outside generated output: the scaffold's four files are new, its pyproject line the only
    # edit of an existing file (make codegen regenerates _generated/, the schema and fixture
    # copies and the TypeScript and Go bindings' data).
    generated = (
        "python/agent_control_plane_core/_generated/",
        "python/agent_control_plane_core/schema/",
        "python/agent_control_plane_core/fixtures/",
        "bindings/",
    )
    new = {
        str(p)
        for p in after - before
        if not str(p).startswith(generated) and ".egg-info" not in str(p)
    }
    assert new == {
        f"schema/control-plane/v1/hosts/{NAME}.json",
        f"python/agent_control_plane_core/adapters/{NAME}.py",
        f"fixtures/{NAME}.json",
        f"tests/test_adapter_{NAME}.py",
    }
    edited = {
        str(p)
        for p in before
        if not str(p).startswith(generated) and (root / p).read_bytes() != (REPO / p).read_bytes()
    }
    assert edited == {"pyproject.toml"}
    tests = subprocess.run(
        [
            str(python),
            "-m",
            "pytest",
            "-o",
            "addopts=",
            "-q",
            "-p",
            "no:cacheprovider",
            "-k",
            NAME,
            *SUBSET,
        ],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-2000:]
    # Every per-host test ran for the new host, none skipped or deselected to green.
    summary = tests.stdout.strip().splitlines()[-1]
    assert "skipped" not in summary and int(summary.split(" passed")[0].split()[-1]) >= 40, summary
    # Tests that pin the host list: the new id joins without an edit.
    pinned = subprocess.run(
        [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", *PINNED],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert pinned.returncode == 0, pinned.stdout[-3000:]
    shown = {}
    for demo in ("examples/demo.py", "examples/policy_demo.py"):
        run = subprocess.run(
            [str(python), demo], cwd=root, env=env, capture_output=True, text=True, timeout=600
        )
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
        shown[demo] = run.stdout.splitlines()
    # The imaginary host blocks rm -rf with its own signal, exit 3 and its body, in the demo.
    deny = next(line for line in shown["examples/demo.py"] if line.split()[:2] == [NAME, "deny"])
    assert deny.split()[5:7] == ["3", "yes"] and '"block":true' in deny
    assert any(line.split()[2:3] == [NAME] for line in shown["examples/policy_demo.py"])
