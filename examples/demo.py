"""Demo: each host's real hook entry answers the same four calls in that host's own native signal."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from host_calls import run_hook_entry, shell_call

from agent_control_plane_core import AGENT_IDS, ToolCallEvent, adapter_for
from agent_control_plane_core.cli import bridge_line
from agent_control_plane_core.runtime import entry_adapter, render_hook_response
from agent_control_plane_core.schemas import validator_for

HERE = Path(__file__).resolve().parent
CODEX_VERSION = "0.150.0"  # Codex payloads carry no version: the launcher pins it

CALLS = (("allow", "ls -la"), ("deny", "rm -rf /"), ("ask", "git push"), ("rewrite", "npm install"))


def run_entry(agent: str, payload: dict[str, Any]) -> tuple[int, str, str]:
    """Run acp-<agent>-hook as the host would and return (exit code, stdout, stderr)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACP_")}
    env.update(
        ACP_JUDGE="demo_judge:judge",
        PYTHONPATH=os.pathsep.join(filter(None, [str(HERE), env.get("PYTHONPATH")])),
        ACP_CODEX_VERSION=CODEX_VERSION,
    )
    result = run_hook_entry(agent, payload, env)
    return result.returncode, result.stdout, result.stderr


def library_answer(agent: str, payload: dict[str, Any], judge: Any) -> dict[str, Any]:
    """The same call through acp bridge's in-process answer, judged by the same judge."""
    line: dict[str, Any] = {"agent": agent, "native": payload}
    if agent == "codex":
        line["options"] = {"codex_version": CODEX_VERSION}
    event = ToolCallEvent.from_dict(bridge_line(json.dumps(line))["event"])
    verdict = judge(event)
    line["verdict"] = verdict if isinstance(verdict, dict) else verdict.to_dict()
    return {**bridge_line(json.dumps(line)), "verdict": line["verdict"]}


def _cell(text: str, width: int) -> str:
    text = text or "-"
    return text if len(text) <= width else text[: width - 1] + "…"


def _own(agent: str, stderr: str) -> str:
    """The response's stderr without the entry's own notes (acp-<host>-hook: ...)."""
    note = f"acp-{agent}-hook: "
    return "\n".join(line for line in stderr.splitlines() if not line.startswith(note))


def main() -> int:
    """Print what each host receives for each call, then check it against the schemas."""
    sys.path.insert(0, str(HERE))
    from demo_judge import judge

    schemas = {name: validator_for(name) for name in ("tool-call-event", "native-response")}
    print(f"{'host':9}{'judge':9}{'command':13}{'exit':>4} {'blocks':7}{'stderr':34}stdout")
    problems = 0
    dropped = []
    for agent in AGENT_IDS:
        for label, command in CALLS:
            code, stdout, stderr = run_entry(agent, shell_call(agent, command))
            # Cross-check: the library's parse, judge and render_escalated give the same answer.
            expected = library_answer(agent, shell_call(agent, command), judge)
            answer = expected["escalated"]
            if expected["unrendered"]:
                # The hook entry applies ACP_ON_UNRENDERED (default deny) after render_escalated.
                environ = {"ACP_CODEX_VERSION": CODEX_VERSION}
                answer = render_hook_response(
                    entry_adapter(agent, environ),
                    json.dumps(shell_call(agent, command)),
                    judge,
                    environ=environ,
                ).to_dict()
            blocks = "yes" if answer["enforced"] else "no"
            print(
                f"{agent:9}{label:9}{command:13}{code:>4} {blocks:7}"
                f"{_cell(stderr, 32):34}{stdout or '-'}"
            )
            unrendered = adapter_for(agent).UNRENDERED_FIELDS[expected["event"]["event"]]
            lost = sorted(set(expected["verdict"]) & unrendered) if "verdict" in expected else []
            if lost:
                dropped.append(
                    f"  {agent}: {label} carried {', '.join(lost)}, which {agent} cannot receive;"
                    f" the hook says so on stderr and {'denies' if answer['enforced'] else 'notes'}"
                    " the call (ACP_ON_UNRENDERED)"
                )
            same = (
                answer["exit_code"] == code
                # A note on what the host could not carry follows the response's own text.
                and _own(agent, stderr).partition("\n")[0] == answer.get("stderr", "")
                and (json.loads(stdout) if stdout else None) == answer.get("stdout")
            )
            valid = schemas["tool-call-event"].is_valid(expected["event"]) and schemas[
                "native-response"
            ].is_valid(answer)
            if not (same and valid):
                problems += 1
                print(f"  MISMATCH or schema violation: {answer}")
    if dropped:
        print("\nDropped by the host's protocol (UNRENDERED_FIELDS), never silently claimed:")
        print("\n".join(dropped))
    total = len(AGENT_IDS) * len(CALLS)
    print(
        f"\n{total} calls through the real hook entries; {problems} disagreed with the library"
        " or broke a schema. Exit 2 is the block hosts enforce (copilot: the deny body at exit 0);"
        " amp asks by exit 1."
    )
    # The legend comes from the declarations, so a new host's row is explained too.
    no_tier = [agent for agent in AGENT_IDS if not adapter_for(agent).NATIVE_ASK_TIER]
    print(
        f"ask blocks on {', '.join(no_tier)}: those hosts have no 'ask the human' tier"
        " (NATIVE_ASK_TIER false), so render_escalated turns an ask into a deny rather than let"
        " the call through."
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
