"""The README's quick start runs as written: installed for Claude Code and Gemini CLI, it blocks."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import REPO

README = REPO / "README.md"
PIP_WHEEL = (sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation")
# ```sh readme-test  runs in order;  ```python readme-test PATH  is written to PATH first.
BLOCK = re.compile(r"^```(sh|python) readme-test ?(\S*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def _blocks() -> list[tuple[str, str, str]]:
    return [(m.group(1), m.group(2), m.group(3)) for m in BLOCK.finditer(README.read_text())]


def test_the_readme_marks_its_quick_start_for_this_test() -> None:
    kinds = [(kind, path) for kind, path, _ in _blocks()]
    assert ("python", "guard/mymod.py") in kinds
    assert sum(kind == "sh" for kind, _ in kinds) >= 4
    scripts = "\n".join(text for _, _, text in _blocks())
    assert "acp install claude" in scripts and "acp install gemini" in scripts


def test_quick_start_installs_for_claude_and_gemini_and_blocks_rm_rf(tmp_path: Path) -> None:
    # The clone the reader installs from, with the wheel the Install section builds (built here
    # without build isolation, from a copy so the checkout stays clean).
    clone = tmp_path / "clone"
    shutil.copytree(
        REPO,
        clone,
        ignore=shutil.ignore_patterns(".*", "build", "*.egg-info", "__pycache__", "coverage.json"),
    )
    subprocess.run(
        [*PIP_WHEEL, "-w", str(clone / "dist"), str(clone)],
        check=True,
        capture_output=True,
    )
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    script = []
    for kind, path, text in _blocks():
        if kind == "python":
            (project / path).parent.mkdir(parents=True, exist_ok=True)
            (project / path).write_text(text)
        else:
            script.append(text)
    # A reader's shell: a Python 3.11+ first on PATH, nothing of this checkout's environment.
    python_bin = Path(sys.base_prefix) / "bin"
    env = {
        "HOME": str(home),
        "PATH": f"{python_bin}:/usr/local/bin:/usr/bin:/bin",
        "ACP_CLONE": str(clone),
        "LANG": "C.UTF-8",
    }
    for name in ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_CONFIG_FILE"):
        if name in os.environ:
            env[name] = os.environ[name]
    run = subprocess.run(
        ["bash", "-c", "\n".join(script)],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    out = run.stdout
    assert run.returncode == 0, out + run.stderr
    # Installed for both hosts, with this project's own hook commands.
    claude = json.loads((project / ".claude/settings.json").read_text())
    gemini = json.loads((project / ".gemini/settings.json").read_text())
    for settings, event, host in (
        (claude, "PreToolUse", "claude"),
        (gemini, "BeforeTool", "gemini"),
    ):
        command = settings["hooks"][event][0]["hooks"][0]["command"]
        # The fast entry with the judge in its environment (N13), not `acp hook`.
        assert command.endswith(f"ACP_JUDGE=mymod:judge {project / '.venv/bin/acp'}-{host}-hook")
    # Really blocked: both installed commands exit 2 on the rm -rf payload.
    assert "claude: exit 2" in out and "gemini: exit 2" in out
    assert "rm -rf is not allowed in this project" in run.stderr
    body = next(line for line in out.splitlines() if line.startswith('{"hookSpecificOutput"'))
    assert json.loads(body)["hookSpecificOutput"]["permissionDecision"] == "deny"
    # The audit line and its summary.
    records = [json.loads(line) for line in (project / "audit.jsonl").read_text().splitlines()]
    assert [(r["agent"], r["verdict"]["decision"], r["exit_code"]) for r in records] == [
        ("claude", "deny", 2),
        ("gemini", "deny", 2),
    ]
    assert "2 call(s)" in out


def test_the_event_example_is_what_parse_produces_and_valid() -> None:
    from agent_control_plane_core import adapter_for
    from agent_control_plane_core.schemas import validator_for

    section = README.read_text().split("## Events and verdicts", 1)[1]
    example = json.loads(section.split("```json\n", 1)[1].split("```", 1)[0])
    assert validator_for("tool-call-event").is_valid(example)
    native = {
        "hook_event_name": "PreToolUse",
        "session_id": "s1",
        "cwd": "/work",
        "tool_name": "Bash",
        "tool_input": {"command": "rm -rf /"},
    }
    assert adapter_for("claude").parse(native).to_dict() == example
