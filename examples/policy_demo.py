"""Demo: one policy file on every host through the real hook entries, the audit log, and a replay."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from host_calls import BIN, run_hook_entry, shell_call, shell_result

from agent_control_plane_core import AGENT_IDS, adapter_for
from agent_control_plane_core._generated.constants import (
    MODELED_TOOL_INPUT_KEYS,
    AuditRecordFields,
    ToolCallEventFields,
    VerdictFields,
)

HERE = Path(__file__).resolve().parent
POLICY = HERE / "policy.toml"
# An access key id in the documented example format (AKIA + 16 upper-case letters or digits).
KEY = "AKIAIOSFODNN7EXAMPLE"
OUTPUT = f"[default]\naws_access_key_id = {KEY}\n"

CALLS: tuple[tuple[str, Callable[[str], Any]], ...] = (
    ("rm -rf", lambda agent: shell_call(agent, "rm -rf /tmp/build")),
    ("rm -r -f", lambda agent: shell_call(agent, "rm -r -f /tmp/build")),
    ("git push", lambda agent: shell_call(agent, "git push origin main")),
    ("force push", lambda agent: shell_call(agent, "git push --force origin main")),
    ("AKIA output", lambda agent: shell_result(agent, "cat ~/.aws/credentials", OUTPUT)),
    ("ls", lambda agent: shell_call(agent, "ls -la")),
)
# The regular-expression rules this set replaced (issue 9): the demo records its calls under
# them too, then `acp policy replay` shows which recorded calls the shipped set decides otherwise.
REGEX_RULES = r"""
[[rules]]
name = "no-rm-rf"
tools = ["Bash"]
events = ["pre_tool"]
match = '\brm\s+-[a-zA-Z]*(?:[rR][a-zA-Z]*f|f[a-zA-Z]*[rR])'
decision = "deny"
reason = "policy: rm -rf is blocked"

[[rules]]
name = "ask-git-push"
tools = ["Bash"]
events = ["pre_tool"]
match = '\bgit\s+push\b'
decision = "ask"
reason = "policy: git push needs a person to confirm"

[[rules]]
name = "redact-aws-access-keys"
events = ["post_tool"]
decision = "allow"
rewrite = { pattern = 'AKIA[0-9A-Z]{16}', replacement = "[REDACTED AWS ACCESS KEY]" }
on_unrendered = "deny"
"""


def _unrendered(agent: str) -> frozenset[str]:
    """The verdict fields this host has no channel for after a tool ran."""
    return frozenset(adapter_for(agent).UNRENDERED_FIELDS["post_tool"])


def _short(text: str, width: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _run_calls(env: dict[str, str], *, show: bool) -> None:
    """Every call through every host's hook entry; print the answers when show is set."""
    if show:
        print(f"{'call':12} {'host':7} {'exit':>4}")
    for label, build in CALLS:
        for agent in AGENT_IDS:
            native = build(agent)
            if native is None:
                if show:
                    print(f"{label:12} {agent:7}    -  (no post_tool shell case in its fixtures)")
                continue
            result = run_hook_entry(agent, native, env)
            if not show:
                continue
            print(f"{label:12} {agent:7} {result.returncode:>4}")
            for name, text in (("stdout", result.stdout), ("stderr", result.stderr)):
                if text:
                    print(f"{'':25} {name}: {_short(text)}")
            if label == "AKIA output" and "mutated_output" in _unrendered(agent):
                # examples/policy.toml leaves on_unrendered at deny: a redaction the host cannot
                # carry becomes a deny, which after the tool ran cannot stop it.
                print(
                    f"{'':25} note: {agent} cannot replace tool output, so the redaction"
                    " became a deny (on_unrendered); at exit 0 the host did not enforce it"
                )
        if show:
            print()


def _warm_up(env: dict[str, str]) -> None:
    """One harmless call per host, so the timed calls after it run warm."""
    for agent in AGENT_IDS:
        native = shell_call(agent, "ls")
        if native is None:
            continue
        run_hook_entry(agent, native, env)


def main() -> int:
    """Run every call through every host's hook entry; print the answers, the audit log, a replay."""
    with tempfile.TemporaryDirectory() as tmp:
        log = str(Path(tmp) / "audit.jsonl")
        env = {
            **os.environ,
            "ACP_POLICY": str(POLICY),
            "ACP_CODEX_VERSION": "0.150.0",
            "ACP_AUDIT_LOG": log,
        }
        print(f"policy: {POLICY.relative_to(HERE.parent)}    codex version: 0.150.0\n")
        # N32: a host's first call compiles its modules' bytecode and writes the policy cache,
        # which made one first call look ten times slower than the rest in the audit summary.
        _warm_up({name: value for name, value in env.items() if name != "ACP_AUDIT_LOG"})
        print(
            "(each host's hook entry ran once first, unlogged, so the audit timings below are"
            " warm calls: no first-run bytecode compilation or policy cache write)\n"
        )
        _run_calls(env, show=True)
        summary = subprocess.run(
            [str(BIN / "acp"), "audit", log], capture_output=True, text=True, check=True
        )
        print("acp audit:\n" + summary.stdout)
        code = _same_decisions(Path(log))
        # The same calls recorded under the regex rules, then re-judged by the shipped set.
        regex_rules = Path(tmp) / "regex-rules.toml"
        regex_rules.write_text(REGEX_RULES, encoding="utf-8")
        old_log = str(Path(tmp) / "regex-audit.jsonl")
        _run_calls({**env, "ACP_POLICY": str(regex_rules), "ACP_AUDIT_LOG": old_log}, show=False)
        replayed = subprocess.run(
            [str(BIN / "acp"), "policy", "replay", str(POLICY), old_log],
            capture_output=True,
            text=True,
            check=True,
        )
        print("\nacp policy replay (calls recorded under the issue-9 regex rules):")
        print(replayed.stdout.replace(str(POLICY), str(POLICY.relative_to(HERE.parent))))
        return code


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
    print(f"  {'event':9} {'command':30} " + " ".join(f"{agent:7}" for agent in AGENT_IDS).rstrip())
    split = 0
    for (kind, command), row in table.items():
        cells = " ".join(f"{row.get(agent, '-'):7}" for agent in AGENT_IDS)
        print(f"  {kind:9} {command:30} {cells}".rstrip())
        # Only a rewrite may split: allow where it reaches the host, deny (on_unrendered) elsewhere.
        split += kind != "post_tool" and len(set(row.values())) > 1
    return 1 if split else 0


if __name__ == "__main__":
    sys.exit(main())
