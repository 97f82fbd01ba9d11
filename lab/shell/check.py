"""Soundness of the splitter against a shell's trace: every program the shell ran is reported.

A line is sound when the splitter says it is not fully readable (a problem, or a command whose
program is unknown: `on_unparsed = "match"` then decides), or when every argv the shell executed
matches one simple command the splitter reported: the same program name, and the words equal,
except where the splitter marked a word as an expansion (any one word) or as one that may become
any number of words (globs, braces, unquoted $x).
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from typing import Any

from agent_control_plane_core.shell import Command, Parsed, basename, parse_script

HOME = "/home/lab"


@dataclass
class Verdict:
    line: str
    shell: str
    sound: bool
    readable: bool
    missing: list[list[str]]
    trace: dict[str, Any]
    reading: Parsed

    def explain(self) -> str:
        commands = "\n".join(
            f"    {list(c.argv)!r} unresolved={sorted(c.unresolved)} many={sorted(c.many)}"
            f" via={c.via!r}"
            for c in self.reading.commands
        )
        ran = "\n".join(f"    {argv!r}" for argv in self.trace["exec"])
        return (
            f"line {self.line!r} under {self.shell}: the shell ran programs the splitter did not"
            f" report, and the splitter called the line fully readable\n"
            f"  {self.shell} executed:\n{ran}\n  not matched:\n"
            + "\n".join(f"    {argv!r}" for argv in self.missing)
            + f"\n  splitter reported (problems {list(self.reading.problems)!r}):\n{commands}\n"
            f"  {self.shell} stderr: {self.trace['stderr'][-300:]!r}"
        )


def _word_fits(reported: str, executed: str) -> bool:
    if reported == executed:
        return True
    if reported.startswith("~"):
        expanded = HOME + reported[1:] if reported[1:2] in ("", "/") else None
        if expanded == executed:
            return True
    return False


def _fits(command: Command, argv: list[str]) -> bool:
    if basename(command.argv[0]) != basename(argv[0]) and not _word_fits(command.argv[0], argv[0]):
        return False
    words = command.argv[1:]
    unresolved = {i - 1 for i in command.unresolved if i}
    many = {i - 1 for i in command.many if i}
    executed = argv[1:]
    # positions (i, j): reported word i against executed word j
    reachable = {0}
    for i, word in enumerate(words):
        following: set[int] = set()
        for j in reachable:
            if i in many:
                literal = i not in unresolved
                for k in range(j, len(executed) + 1):
                    chunk = executed[j:k]
                    if (
                        not literal
                        or all(fnmatch.fnmatchcase(e, word) for e in chunk)
                        or (k == j + 1 and executed[j] == word)
                    ):
                        following.add(k)
            elif j < len(executed) and (i in unresolved or _word_fits(word, executed[j])):
                following.add(j + 1)
        reachable = following
        if not reachable:
            return False
    return len(executed) in reachable


def check(line: str, shell: str, trace: dict[str, Any], reading: Parsed | None = None) -> Verdict:
    """Whether the splitter's reading of line covers what the shell executed."""
    reading = reading or parse_script(line)
    readable = reading.readable
    missing: list[list[str]] = []
    if readable:
        for argv in trace["exec"]:
            if not any(_fits(command, argv) for command in reading.commands):
                missing.append(argv)
    return Verdict(line, shell, not missing, readable, missing, trace, reading)
