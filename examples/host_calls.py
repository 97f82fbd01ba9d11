"""One vetoable shell call per host, taken from the host's golden fixture file (fixtures/<agent>.json)."""

from __future__ import annotations

import json
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
BIN = Path(sys.executable).parent  # the console scripts sit beside the interpreter


def run_hook_entry(
    agent: str, native: object, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """One call through the host's real acp-<agent>-hook, as the host runs it."""
    return subprocess.run(
        [str(BIN / f"acp-{agent}-hook")],
        input=json.dumps(native),
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


@cache
def _shell_case(agent: str, version: str | None = None) -> tuple[Any, str]:
    """The first golden case that parses as a vetoable pre_tool Bash call, with its command.

    With a version, the first such case recorded at that host version (its adapter options).
    """
    cases = json.loads((FIXTURES / f"{agent}.json").read_text(encoding="utf-8"))["cases"]
    for case in cases:
        event = case["event"]
        command = event.get("input", {}).get("command")
        options = case.get("adapter_options") or {}
        if (
            (version is None or options.get(f"{agent}_version") == version)
            and event["event"] == "pre_tool"
            and event.get("tool") == "Bash"
            and event["this_call_vetoable"]
            and isinstance(command, str)
            and command
        ):
            return case["native"], command
    raise LookupError(
        f"fixtures/{agent}.json has no vetoable pre_tool case with tool Bash and a command"
        + ("" if version is None else f" at {agent}_version {version}")
        + ": add one (acp new-adapter's step 3)"
    )


def _substitute(value: Any, old: str, new: str) -> Any:
    """Replace the command string wherever the host put it, also inside a JSON-encoded string."""
    if isinstance(value, dict):
        return {k: _substitute(v, old, new) for k, v in value.items()}
    if isinstance(value, list):
        return [_substitute(v, old, new) for v in value]
    if value == old:
        return new
    if isinstance(value, str) and old in value:
        try:
            inner = json.loads(value)
        except ValueError:
            return value
        return json.dumps(_substitute(inner, old, new))
    return value


def shell_call(agent: str, command: str, version: str | None = None) -> Any:
    """The host's native pre-tool payload for a shell call running this command (at a version)."""
    native, old = _shell_case(agent, version)
    return _substitute(native, old, command)


def _leaves(value: Any) -> set[str]:
    """Every non-empty string inside a JSON value."""
    if isinstance(value, dict):
        return set().union(*(_leaves(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_leaves(v) for v in value)) if value else set()
    return {value} if isinstance(value, str) and value else set()


def _replace_leaves(value: Any, old: set[str], new: str) -> Any:
    if isinstance(value, dict):
        return {k: _replace_leaves(v, old, new) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace_leaves(v, old, new) for v in value]
    return new if isinstance(value, str) and value in old else value


def shell_result(agent: str, command: str, output: str) -> Any | None:
    """The host's native post-tool payload for a shell call and its output; None without a case."""
    cases = json.loads((FIXTURES / f"{agent}.json").read_text(encoding="utf-8"))["cases"]
    for case in cases:
        event = case["event"]
        old = event.get("input", {}).get("command")
        if any(option.endswith("_form") for option in case.get("adapter_options") or {}):
            continue  # another integration form (Amp's plugin): not what the default entry reads
        if event["event"] == "post_tool" and event.get("tool") == "Bash" and isinstance(old, str):
            # The output is the longest text with a space in it; status words (success, 0) stay.
            # The tool's own name stays (Cline's tool_result response carries it).
            named = {old, event["meta"].get("native_tool")}
            outputs = sorted(
                _leaves(event.get("response")) - named, key=lambda s: (" " in s, len(s))
            )
            if outputs:
                native = _replace_leaves(case["native"], {outputs[-1]}, output)
                return _substitute(native, old, command)
    return None
