"""Demo: one policy file enforced on every host through the real hook entries, then the audit log."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from host_calls import shell_call, shell_result

from agent_control_plane_core import AGENT_IDS, adapter_for
from agent_control_plane_core._generated.constants import (
    MODELED_TOOL_INPUT_KEYS,
    AuditRecordFields,
    ToolCallEventFields,
    VerdictFields,
)

HERE = Path(__file__).resolve().parent
POLICY = HERE / "policy.toml"
BIN = Path(sys.executable).parent  # the console scripts sit beside the interpreter
# An access key id in the documented example format (AKIA + 16 upper-case letters or digits).
KEY = "AKIAIOSFODNN7EXAMPLE"
OUTPUT = f"[default]\naws_access_key_id = {KEY}\n"

CALLS: tuple[tuple[str, Callable[[str], Any]], ...] = (
    ("rm -rf", lambda agent: shell_call(agent, "rm -rf /tmp/build")),
    ("git push", lambda agent: shell_call(agent, "git push origin main")),
    ("AKIA output", lambda agent: shell_result(agent, "cat ~/.aws/credentials", OUTPUT)),
    ("ls", lambda agent: shell_call(agent, "ls -la")),
)


def _unrendered(agent: str) -> frozenset[str]:
    """The verdict fields this host has no channel for after a tool ran."""
    return frozenset(adapter_for(agent).UNRENDERED_FIELDS["post_tool"])


def _short(text: str, width: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def main() -> int:
    """Run every call through every host's hook entry and print the answers and the audit summary."""
    with tempfile.TemporaryDirectory() as tmp:
        log = str(Path(tmp) / "audit.jsonl")
        env = {
            **os.environ,
            "ACP_POLICY": str(POLICY),
            "ACP_CODEX_VERSION": "0.150.0",
            "ACP_AUDIT_LOG": log,
        }
        print(f"policy: {POLICY.relative_to(HERE.parent)}    codex version: 0.150.0\n")
        print(f"{'call':12} {'host':7} {'exit':>4}")
        for label, build in CALLS:
            for agent in AGENT_IDS:
                native = build(agent)
                if native is None:
                    print(f"{label:12} {agent:7}    -  (no post_tool shell case in its fixtures)")
                    continue
                result = subprocess.run(
                    [str(BIN / f"acp-{agent}-hook")],
                    input=json.dumps(native),
                    capture_output=True,
                    text=True,
                    env=env,
                    check=False,
                )
                print(f"{label:12} {agent:7} {result.returncode:>4}")
                for name, text in (("stdout", result.stdout), ("stderr", result.stderr)):
                    if text:
                        print(f"{'':25} {name}: {_short(text)}")
                if label == "AKIA output" and "mutated_output" in _unrendered(agent):
                    # examples/policy.toml leaves on_unrendered at deny: a redaction the host
                    # cannot carry becomes a deny, which after the tool ran cannot stop it.
                    print(
                        f"{'':25} note: {agent} cannot replace tool output, so the redaction"
                        " became a deny (on_unrendered); at exit 0 the host did not enforce it"
                    )
            print()
        summary = subprocess.run(
            [str(BIN / "acp"), "audit", log], capture_output=True, text=True, check=True
        )
        print("acp audit:\n" + summary.stdout)
        return _same_decisions(Path(log))


def _same_decisions(log: Path) -> int:
    """Print the judge decision each host's call got, read back from the audit log."""
    table: dict[tuple[str, str], dict[str, str]] = {}
    lines = log.read_text(encoding="utf-8").splitlines()
    for line in lines:
        record = json.loads(line)
        event = record[AuditRecordFields.EVENT]
        verdict = record[AuditRecordFields.VERDICT] or {}
        # The same call differs only in its host: key it by kind and the command it ran.
        command = event[ToolCallEventFields.INPUT].get(MODELED_TOOL_INPUT_KEYS["Bash"], "")
        row = table.setdefault((event[ToolCallEventFields.EVENT], command), {})
        row[record[AuditRecordFields.AGENT]] = str(verdict.get(VerdictFields.DECISION))
    print(f"judge decisions in the audit log ({len(lines)} lines):")
    print(f"  {'event':9} {'command':24} " + " ".join(f"{agent:7}" for agent in AGENT_IDS).rstrip())
    split = 0
    for (kind, command), row in table.items():
        cells = " ".join(f"{row.get(agent, '-'):7}" for agent in AGENT_IDS)
        print(f"  {kind:9} {command:24} {cells}".rstrip())
        # Only a rewrite may split: allow where it reaches the host, deny (on_unrendered) elsewhere.
        split += kind != "post_tool" and len(set(row.values())) > 1
    return 1 if split else 0


if __name__ == "__main__":
    sys.exit(main())
