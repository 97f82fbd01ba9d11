"""The fail-closed hook's supervised judge (_supervise): the answer crosses from the child, and a
child that dies, exits or sends nothing readable becomes the failure answer."""

from __future__ import annotations

import os
import signal
from typing import Any, NoReturn

import pytest

from agent_control_plane_core import _supervise, adapter_for
from agent_control_plane_core._generated.models.verdict_schema import Verdict
from agent_control_plane_core._plumbing import HookAnswer, HostPipes
from agent_control_plane_core.runtime import failure_response, render_escalated

from hook_runner import PRE_TOOL

ADAPTER = adapter_for("claude")


def died(diagnostic: str) -> HookAnswer:
    return HookAnswer(failure_response(ADAPTER, diagnostic, fail_closed=True))


def run(decide: Any, *, detail: bool = True, notes: list[str] | None = None) -> HookAnswer:
    return _supervise.supervised(
        decide,
        HostPipes(None, None),
        [] if notes is None else notes,
        died,
        detail=detail,
        seconds_left=None,
    )


def deny() -> HookAnswer:
    event = ADAPTER.parse(PRE_TOOL["claude"])
    verdict = Verdict(decision="deny", reason="no \ud800")
    response = render_escalated(ADAPTER, verdict, event)
    return HookAnswer(response, event, verdict, b'{"x":"\\ud800"}', ("mutated_output",), ("n",))


def test_the_childs_answer_crosses_whole() -> None:
    notes: list[str] = []
    sent = deny()

    def decide() -> HookAnswer:
        notes.append("said in the child")
        return sent

    got = run(decide, notes=notes)
    assert got.response.exit_code == sent.response.exit_code == 2
    assert got.response.enforced and got.response.stderr == sent.response.stderr
    assert got.body == sent.body
    assert got.event == sent.event and got.verdict == sent.verdict
    assert (got.unrendered, got.notes) == (sent.unrendered, sent.notes)
    assert notes == ["said in the child"]  # the entry's notes come back to the parent


def test_without_an_audit_the_event_and_verdict_stay_in_the_child() -> None:
    got = run(deny, detail=False)
    assert (got.event, got.verdict, got.response.exit_code) == (None, None, 2)


def test_a_verdict_that_cannot_cross_keeps_the_answer() -> None:
    def decide() -> HookAnswer:
        answer = deny()
        answer.verdict = Verdict(decision="deny", mutated_input={"x": {1, 2}})  # a set
        return answer

    got = run(decide)
    assert got.response.exit_code == 2 and got.verdict is None and got.body is not None


def _killed_by_sigterm() -> None:
    # The child inherits the runner's disposition: a SIGTERM handler an earlier test (or plugin)
    # left behind would only set a flag, and decide() would run on. Default and unblocked, the
    # signal ends this single-threaded child before kill() returns.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
    os.kill(os.getpid(), signal.SIGTERM)


@pytest.mark.parametrize(
    ("end", "said"),
    [
        (_killed_by_sigterm, "was killed by SIGTERM"),
        (lambda: os._exit(3), "exited with code 3"),
    ],
)
def test_a_child_that_ends_before_answering_is_the_failure_answer(end: Any, said: str) -> None:
    parent = os.getpid()

    def decide() -> NoReturn:
        if os.getpid() == parent:  # never end the test process itself
            raise AssertionError("decide() ran in the test process, not in a forked child")
        end()
        raise AssertionError("not reached")

    got = run(decide)
    assert got.response.exit_code == 2
    assert said in str(got.response.stderr) and "before answering" in str(got.response.stderr)


def test_an_answer_the_child_cannot_encode_is_named() -> None:
    def decide() -> HookAnswer:
        answer = deny()
        answer.body = None
        answer.response = answer.response._replace(stdout={"x": {1}})  # not JSON
        return answer

    got = run(decide, detail=False)
    assert "sent an unreadable answer (TypeError" in str(got.response.stderr)


@pytest.mark.parametrize("broken", ["pipe", "fork"])
def test_without_a_pipe_or_a_process_the_judge_runs_here(
    monkeypatch: pytest.MonkeyPatch, broken: str
) -> None:
    def refuse(*_args: object) -> NoReturn:
        raise OSError("no resources")

    monkeypatch.setattr(os, broken, refuse)
    pid = os.getpid()
    got = run(lambda: HookAnswer(failure_response(ADAPTER, str(os.getpid()), fail_closed=True)))
    assert str(pid) in str(got.response.stderr)


def test_a_message_that_is_cut_or_not_framed_is_no_message() -> None:
    for data in (b"12\n{}", b"x\n{}", b""):
        read, write = os.pipe()
        os.write(write, data)
        os.close(write)
        try:
            assert _supervise._receive(read) is None
        finally:
            os.close(read)


def test_a_signal_without_a_name_is_named_by_number() -> None:
    number = signal.SIGRTMIN + 3
    assert _supervise._how_it_ended(number) == f"was killed by signal {number}"
