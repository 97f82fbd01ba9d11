"""The shell lab's corpus: the red team's forms and their neighbours, the shipped policy's tests,
the ordinary developer commands, and lines generated over shell grammar (lab/shell/generate.py).

Lines are data: read from Python files and TOML, handed to the sandbox as JSON.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from .forms import HELD_FORMS, SHELL_FORMS

REPO = Path(__file__).resolve().parents[2]
ORDINARY = REPO / "tests" / "data" / "ordinary-commands.txt"
POLICY = REPO / "examples" / "policy.toml"
TARGET = "rm -rf /"


def _neighbours(line: str) -> list[str]:
    """The same form around other targets, after other commands, and inside compounds."""
    out = [line]
    if TARGET in line:
        out.append(line.replace(TARGET, "rm -rf /tmp/victim"))
        out.append(line.replace(TARGET, "rm -r -f /work/x"))
    if "\n" not in line:
        out += [f"true; {line}", f"( {line} )", f"{{ {line}; }}", f"if true; then {line}; fi"]
        out.append(f"echo start && {line}")
    return out


def red_team_lines() -> list[str]:
    lines: list[str] = []
    for forms in SHELL_FORMS.values():
        for line, _ in forms:
            lines += _neighbours(line)
    for line in HELD_FORMS:
        lines += _neighbours(line)
    return list(dict.fromkeys(lines))


def policy_test_lines() -> list[str]:
    data = tomllib.loads(POLICY.read_text(encoding="utf-8"))
    lines = []
    for test in data.get("tests", []):
        command = test.get("input", {}).get("command")
        if test.get("tool") == "Bash" and isinstance(command, str) and "expand" not in test:
            lines.append(command)
    return list(dict.fromkeys(lines))


def ordinary_lines() -> list[str]:
    text = ORDINARY.read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]


def fixed_corpus() -> list[str]:
    """Every hand-written line: red team forms and neighbours, policy tests, ordinary commands."""
    return list(dict.fromkeys(red_team_lines() + policy_test_lines() + ordinary_lines()))
