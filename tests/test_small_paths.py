"""Edge paths of the deadline, acp record and the conformance kit's declaration checks."""

from __future__ import annotations

import builtins
import json
import signal
import threading
from pathlib import Path
from typing import Any

import pytest

from agent_control_plane_core import _deadline, adapter_for
from agent_control_plane_core._plumbing import DIRECT
from agent_control_plane_core._record import RecordError, read_natives, record_cases, refresh_cases
from agent_control_plane_core.conformance import ConformanceError, assert_conforms

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def test_process_age_without_proc_is_zero(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: Any, **_kwargs: Any) -> Any:
        raise OSError("no /proc here")

    monkeypatch.setattr(builtins, "open", refuse)
    assert _deadline.process_age() == 0.0


def test_the_alarm_is_armed_only_from_the_main_thread() -> None:
    answer = _deadline.Answer(DIRECT, "claude", [])
    before = signal.getsignal(signal.SIGALRM)
    thread = threading.Thread(target=answer._arm_alarm, args=(5.0, lambda: None, None))
    thread.start()
    thread.join()
    assert signal.getsignal(signal.SIGALRM) is before


def test_no_signals_leaves_the_watchdog_to_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: Any) -> Any:
        raise ValueError("signal only works in main thread of the main interpreter")

    import _signal

    monkeypatch.setattr(_signal, "signal", refuse)
    _deadline.Answer(DIRECT, "claude", [])._arm_alarm(5.0, lambda: None, None)  # no raise


def test_record_refuses_an_empty_file_and_a_case_that_is_not_an_object() -> None:
    with pytest.raises(RecordError, match="no native payload"):
        read_natives(["", "  "])
    with pytest.raises(RecordError, match="a case is not an object"):
        refresh_cases(adapter_for("claude"), [42])


def test_record_names_repeated_payloads_apart_and_keeps_the_options() -> None:
    native = json.loads((FIXTURES / "codex.json").read_text(encoding="utf-8"))["cases"][0]["native"]
    cases = record_cases(
        adapter_for("codex", codex_version="0.171.0"),
        [(1, native), (1, native)],
        {"deny": {"decision": "deny", "reason": "r"}},
        adapter_options={"codex_version": "0.171.0"},
    )
    assert cases[0]["name"] != cases[1]["name"] and cases[1]["name"].endswith("(2)")
    assert cases[0]["adapter_options"] == {"codex_version": "0.171.0"}


class _Broken:
    """The Claude adapter with one declaration attribute replaced."""

    def __init__(self, name: str, value: object) -> None:
        self._inner, self._name, self._value = adapter_for("claude"), name, value

    def __getattr__(self, name: str) -> Any:
        return self._value if name == self._name else getattr(self._inner, name)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("INTEGRATION_MODE", "telepathy"),
        ("NATIVE_ASK_TIER", "yes"),
        ("NATIVE_EVENT_FOR", {"pre_tool": ""}),
        ("TOOL_ALIASES", {"PowerShell": 1}),
    ],
)
def test_the_kit_refuses_a_malformed_declaration(name: str, value: object) -> None:
    with pytest.raises(ConformanceError) as raised:
        assert_conforms(_Broken(name, value), FIXTURES / "claude.json")  # type: ignore[arg-type]
    assert raised.value.rule == "declarations-well-formed"
    assert name in str(raised.value)
