"""The `acp policy test | explain | replay` actions (check lives in cli/_main.py)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence

from ..adapters import adapter_for
from ..policy_tools import describe, explain_text, fixtures_dir, replay, run_tests
from ..runtime import JudgeLoadError

__all__ = ["policy_command"]

# `acp policy ACTION --help` (issue 26): what each action takes and what its exit code means.
ACTION_HELP = {
    "check": (
        "usage: acp policy check FILE...\n\n"
        "Validate rule files against policy.schema.json; each error names the rule (index and\n"
        "name) and the field. Exit 0 when every file is valid, 1 otherwise."
    ),
    "test": (
        "usage: acp policy test FILE... [--agent HOST]... [--fixtures DIR]\n\n"
        "Run each file's [[tests]] through every host's real parse (the host fixtures of a\n"
        "checkout or the wheel, or --fixtures DIR), or only the --agent hosts. Exit 0 when\n"
        "every test passed on the hosts it ran on; 1 when one failed, when a file has no tests,\n"
        "or when a test ran on no host (NOT RUN: nothing checked it)."
    ),
    "explain": (
        "usage: acp policy explain RULES PAYLOAD --agent HOST\n\n"
        "Show which rule decides one native payload (a file, or - for stdin) and why."
    ),
    "replay": (
        "usage: acp policy replay RULES AUDIT\n\n"
        "Run an audit log's recorded calls through RULES and list the calls whose decision\n"
        "would change."
    ),
}


def policy_command(
    action: str, files: Sequence[str], agents: Sequence[str], fixtures: str | None
) -> int:
    """Run one policy action; return the exit code (0 ok, 1 a test failed, 2 a usage error)."""
    try:
        if action == "test":
            return _test(files, agents, fixtures)
        if action == "explain":
            return _explain(files, agents)
        return _replay(files)
    except JudgeLoadError as exc:
        print(f"acp policy {action}: {exc}", file=sys.stderr)
        return 2
    except _Usage as exc:
        print(f"acp policy {action}: {exc}", file=sys.stderr)
        return 2


class _Usage(Exception):
    pass


def _test(files: Sequence[str], agents: Sequence[str], fixtures: str | None) -> int:
    folder = fixtures_dir(fixtures)
    if fixtures and folder is None:
        raise _Usage(f"{fixtures} holds no host fixture files (<host>.json)")
    failed = 0
    for name in files:
        runs = run_tests(name, agents, folder)
        tests: dict[str, list[str]] = {}
        skipped = 0
        for run in runs:
            tests.setdefault(run.test, [])
            if run.skipped:
                skipped += 1
                continue
            if run.problem is not None:
                detail = ""
                if run.explanation is not None:
                    why = "; ".join(run.explanation.why)
                    detail = f" (rule {run.explanation.rule or 'none'}{': ' + why if why else ''})"
                tests[run.test].append(f"{run.agent}: {run.problem}{detail}")
        bad = {test: problems for test, problems in tests.items() if problems}
        # Issue 26: a test no host ran checked nothing; it is not counted as passed.
        ran_on = {run.test for run in runs if not run.skipped}
        unrun = [test for test in tests if test not in ran_on]
        for test, problems in bad.items():
            print(f"FAIL {test}")
            for problem in problems:
                print(f"     {problem}")
        ran = len(runs) - skipped
        hosts = len({run.agent for run in runs if not run.skipped})
        for test in unrun:
            print(f"NOT RUN {test} (no host could build this call)")
        print(
            f"{name}: {len(tests) - len(bad) - len(unrun)} of {len(tests)} test(s) passed,"
            f" {ran} host run(s) on {hosts} host(s)"
            + (f", {skipped} skipped (the host has no such event)" if skipped else "")
        )
        # With --agent, a test the chosen hosts cannot build is listed, and fails only a run
        # that checked nothing at all; on every host, a test no host ran fails.
        failing = bool(unrun) and (not agents or not ran)
        failed += bool(bad) or not tests or failing
        if not tests:
            print(f"{name}: no [[tests]] to run", file=sys.stderr)
        elif failing:
            # Issue 26: a run that checked nothing is a failure, never a pass.
            what = "no test ran on any host" if not ran else f"{len(unrun)} test(s) ran on no host"
            print(
                f"{name}: {what}, so nothing checked them; give the host fixture"
                " folder with --fixtures DIR (or name hosts with --agent that have the events)",
                file=sys.stderr,
            )
    return 1 if failed else 0


def _explain(files: Sequence[str], agents: Sequence[str]) -> int:
    from ..policy import load_policy_judge

    if len(files) != 2 or len(agents) != 1:
        raise _Usage(
            "usage: acp policy explain RULES PAYLOAD --agent HOST (PAYLOAD: file, - or JSON)"
        )
    rules, source = files
    judge = load_policy_judge(rules)
    if source == "-":
        text = sys.stdin.read()
    elif source.lstrip().startswith("{"):
        text = source
    else:
        try:
            with open(source, encoding="utf-8") as payload_file:
                text = payload_file.read()
        except OSError as exc:
            raise _Usage(f"cannot read {source} ({exc.strerror or exc})") from exc
    try:
        payload = json.loads(text)
    except ValueError as exc:
        raise _Usage(f"the payload is not JSON ({exc})") from exc
    agent = agents[0]
    adapter = adapter_for(agent)
    event = adapter.parse(adapter.hook_payload(payload, os.environ))  # type: ignore[attr-defined]
    print(explain_text(judge, event))
    return 0


def _replay(files: Sequence[str]) -> int:
    from ..policy import load_policy_judge

    if len(files) != 2:
        raise _Usage("usage: acp policy replay RULES AUDIT.jsonl")
    rules, log = files
    judge = load_policy_judge(rules)
    try:
        with open(log, encoding="utf-8", errors="replace") as lines:
            total, changes, per_rule = replay(judge, lines)
    except OSError as exc:
        raise _Usage(f"cannot read {log} ({exc.strerror or exc})") from exc
    for change in changes:
        rule = change.after.rule or "no rule"
        why = "; ".join(change.after.why)
        print(
            f"line {change.line} {change.agent}: {describe(change.event)}:"
            f" {change.before} -> {change.after.verdict.decision} ({rule}{': ' + why if why else ''})"
        )
    print(f"{total} recorded call(s) re-judged with {rules}; {len(changes)} would change")
    width = max((len(rule) for rule in per_rule), default=4)
    print(f"  {'rule':{width}}  decides  changed")
    for rule, (decided, changed) in sorted(per_rule.items(), key=lambda item: -item[1][0]):
        print(f"  {rule:{width}}  {decided:7}  {changed:7}")
    return 0
