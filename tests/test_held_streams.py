"""Held attacks docs/findings.md HELD-BRIDGE and HELD-AUDIT on the bridge and the audit log: huge
and many lines are answered in order, concurrent writers leave only whole records."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from hook_runner import BIN, PRE_TOOL, hook_env

ACP = str(BIN / "acp")
MB = 1024 * 1024
# Bounds that only separate a hang from an answer.
HANG = 240
# Lines at most this long are parsed whole; longer ones are checked at their two ends only.
SMALL = MB


def small_line(tag: str) -> bytes:
    """A bridge line whose answer names tag as its session id."""
    native = {**PRE_TOOL["claude"], "session_id": tag}
    return json.dumps({"agent": "claude", "native": native}).encode()


def huge_command_line(tag: str, size: int) -> Iterator[bytes]:
    """A valid bridge line whose command is size bytes of x, in pieces (never one big literal)."""
    native = {**PRE_TOOL["claude"], "session_id": tag, "tool_input": {"command": "@"}}
    head, tail = json.dumps({"agent": "claude", "native": native}).encode().split(b"@")
    yield head
    left = size
    while left:
        piece = min(left, 8 * MB)
        yield b"x" * piece
        left -= piece
    yield tail


def garbage_line(size: int) -> Iterator[bytes]:
    """size bytes that are not JSON, in pieces."""
    left = size
    while left:
        piece = min(left, 8 * MB)
        yield b"~" * piece
        left -= piece


def bridge(tmp_path: Path, lines: Iterable[Iterable[bytes]], *, last_newline: bool = True) -> Path:
    """Run acp bridge with the lines from a file on stdin; the file its answers went to."""
    source, answers = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    with source.open("wb") as out:
        first = True
        for line in lines:
            if not first:
                out.write(b"\n")
            first = False
            for piece in line:
                out.write(piece)
        if last_newline:
            out.write(b"\n")
    with source.open("rb") as stdin, answers.open("wb") as stdout:
        subprocess.run(
            [ACP, "bridge"], stdin=stdin, stdout=stdout, env=hook_env("claude"), timeout=HANG
        ).check_returncode()
    source.unlink()  # the disk space, before the next test writes its own
    return answers


def answer_lines(path: Path) -> list[tuple[int, int]]:
    """(offset, length) of every line of the file, found without holding the file in memory."""
    spans, start, offset = [], 0, 0
    with path.open("rb") as data:
        while chunk := data.read(8 * MB):
            at = chunk.find(b"\n")
            while at != -1:
                spans.append((start, offset + at - start))
                start = offset + at + 1
                at = chunk.find(b"\n", at + 1)
            offset += len(chunk)
    assert start == offset, "the last answer has no newline"
    return spans


def session_of(path: Path, span: tuple[int, int]) -> Any:
    """The session id an answer's event carries, or the error it names (an error answer)."""
    start, length = span
    with path.open("rb") as data:
        data.seek(start)
        if length <= SMALL:
            event = json.loads(data.read(length))["event"]
            return (event.get("error") and "error") or event["meta"]["session_id"]
        # The event's meta (and its session id) follows the input, near the end of the line.
        data.seek(start + length - 64 * 1024)
        end = data.read(64 * 1024)
        assert end.rstrip().endswith(b"}"), "a huge answer was cut"
        meta = end[end.rindex(b'"meta":') :]
        return json.loads(meta[meta.index(b'"session_id":') + 13 :].split(b",")[0].split(b"}")[0])


def test_held_a_200_mb_valid_line_between_two_small_ones_gets_three_answers_in_order(
    tmp_path: Path,
) -> None:
    lines = [[small_line("before")], huge_command_line("huge", 200 * MB), [small_line("after")]]
    answers = bridge(tmp_path, lines)
    spans = answer_lines(answers)
    assert [session_of(answers, span) for span in spans] == ["before", "huge", "after"]
    assert spans[1][1] > 200 * MB  # the command came back whole, not cut


def test_held_a_200_mb_garbage_line_gets_an_error_answer_in_order(tmp_path: Path) -> None:
    lines = [[small_line("before")], garbage_line(200 * MB), [small_line("after")]]
    answers = bridge(tmp_path, lines)
    spans = answer_lines(answers)
    assert [session_of(answers, span) for span in spans] == ["before", "error", "after"]


def test_held_six_rounds_of_small_25_mb_small_lines_get_18_answers_in_order(
    tmp_path: Path,
) -> None:
    lines: list[Iterable[bytes]] = []
    expected = []
    for round_ in range(6):
        lines += [
            [small_line(f"a{round_}")],
            huge_command_line(f"big{round_}", 25 * MB),
            [small_line(f"b{round_}")],
        ]
        expected += [f"a{round_}", f"big{round_}", f"b{round_}"]
    answers = bridge(tmp_path, lines)
    assert [session_of(answers, span) for span in answer_lines(answers)] == expected


def test_held_20000_small_lines_are_answered_in_order(tmp_path: Path) -> None:
    tags = [f"s{index}" for index in range(20_000)]
    answers = bridge(tmp_path, ([small_line(tag)] for tag in tags))
    with answers.open("rb") as data:
        seen = [json.loads(line)["event"]["meta"]["session_id"] for line in data]
    assert seen == tags


def test_held_a_last_line_without_a_newline_is_answered(tmp_path: Path) -> None:
    answers = bridge(tmp_path, [[small_line("one")], [small_line("last")]], last_newline=False)
    assert [session_of(answers, span) for span in answer_lines(answers)] == ["one", "last"]


# ---- Audit log: concurrent writers ------------------------------------------------------------

WRITERS = 20
APPENDS = 200
# Records from a few bytes up to 300 KB, far past PIPE_BUF: one in 40 is the largest.
LARGEST = 300 * 1024

WRITER = """
import sys
from agent_control_plane_core.audit import append_line
path, writer, count, largest = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
for n in range(count):
    size = largest if n % 40 == 0 else (n * 131 + writer * 17) % 6000
    append_line(path, {"writer": writer, "n": n, "pad": chr(0x41 + writer) * size})
"""


def test_held_20_processes_x_200_appends_up_to_300_kb_leave_4000_whole_lines(
    tmp_path: Path,
) -> None:
    log = tmp_path / "audit.jsonl"
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(log), str(w), str(APPENDS), str(LARGEST)]
        )
        for w in range(WRITERS)
    ]
    assert [writer.wait(timeout=HANG) for writer in writers] == [0] * WRITERS
    lines = log.read_bytes().split(b"\n")
    assert lines.pop() == b""  # the file ends with a newline
    assert len(lines) == WRITERS * APPENDS
    seen: dict[int, list[int]] = {}
    largest = 0
    for line in lines:
        record = json.loads(line)  # a torn or interleaved line fails to parse here
        assert set(record["pad"]) <= {chr(0x41 + record["writer"])}
        largest = max(largest, len(record["pad"]))
        seen.setdefault(record["writer"], []).append(record["n"])
    assert largest == LARGEST
    # Nothing lost: each writer's records are all there, once each, in the order it wrote them.
    assert seen == {w: list(range(APPENDS)) for w in range(WRITERS)}


HOOKS = 20
CALLS = 15

# One worker of the hook-process attack: CALLS hook processes in a row, each forked from this
# already-imported interpreter (the console script's import is paid once per worker, so 300
# calls fit the suite's time) and running the console script's own entry on the payload file.
HOOK_WORKER = """
import os, sys
import agent_control_plane_core.audit
from agent_control_plane_core.hooks import claude_main
payload, calls = sys.argv[1], int(sys.argv[2])
codes = []
for _ in range(calls):
    pid = os.fork()
    if pid == 0:
        os.dup2(os.open(payload, os.O_RDONLY), 0)
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        claude_main()
    codes.append(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
print(codes)
"""


def test_held_20_hook_processes_x_15_calls_leave_300_parseable_records(tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    env = {**hook_env("claude"), "ACP_AUDIT_LOG": str(log)}
    workers = []
    for worker in range(HOOKS):
        payload = tmp_path / f"p{worker}.json"
        payload.write_text(json.dumps({**PRE_TOOL["claude"], "session_id": f"w{worker}"}))
        command = [sys.executable, "-c", HOOK_WORKER, str(payload), str(CALLS)]
        workers.append(subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True))
    # Every call was the demo judge's block of rm -rf, answered while the others appended.
    assert [json.loads(w.communicate(timeout=HANG)[0]) for w in workers] == [[2] * CALLS] * HOOKS
    records = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert len(records) == HOOKS * CALLS
    sessions = sorted(record["event"]["meta"]["session_id"] for record in records)
    assert sessions == sorted(f"w{worker}" for worker in range(HOOKS) for _ in range(CALLS))
    assert {record["exit_code"] for record in records} == {2}
    assert os.stat(log).st_mode & 0o777 == 0o600
