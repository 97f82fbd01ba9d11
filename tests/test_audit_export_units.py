"""`acp audit export` in process: the mapping's edges, the reader's limits, the loop's exits."""

from __future__ import annotations

import argparse
import json
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk")

from agent_control_plane_core.export import _mapping as m
from agent_control_plane_core.export import _otel, _run
from agent_control_plane_core.export._reader import Checkpoint, LogReader

RECORD: dict[str, Any] = {
    "time": "2026-12-04T02:00:00.250Z",
    "agent": "claude",
    "event": None,
    "verdict": None,
    "exit_code": 2,
    "enforced": True,
    "duration_ms": 3,
}


def test_a_failure_record_maps_to_an_error_without_a_span() -> None:
    record = {
        **RECORD,
        "failure": "judge raised ValueError",
        "policy": {"name": "org", "layer": "managed", "nested": {"dropped": 1}},
        "rules": ["a", "b"],
        "time": "not a time",
    }
    mapped = m.map_record(record, b"line", number=3, offset=10)
    attributes = mapped.attributes
    assert mapped.span_name is None and mapped.severity == "ERROR"
    assert mapped.end_ns == 0 and mapped.start_ns == 0
    assert attributes[m.FAILURE] is True and attributes[m.DECISION_ESCALATED] == "deny"
    assert m.DECISION not in attributes and attributes[m.ESCALATED] is False
    assert attributes[m.FAILURE_REASON] == "judge raised ValueError"
    # Fields this exporter does not model arrive under acp.record.<name>, never dropped.
    assert attributes["acp.record.policy.name"] == "org"
    assert attributes["acp.record.policy.layer"] == "managed"
    assert "acp.record.policy.nested" not in attributes
    assert attributes["acp.record.rules"] == ["a", "b"]
    assert mapped.body == "claude - - -> deny (enforced)"


def test_a_failure_with_its_event_is_an_error_and_the_required_fields_are_the_schemas() -> None:
    from agent_control_plane_core.export import _reader

    event = {"event": "pre_tool", "tool": "Bash", "meta": {}}
    record = {**RECORD, "event": event, "failure": "f" * 5000, "enforced": False}
    mapped = m.map_record(record, b"l", number=1, offset=0)
    assert mapped.severity == "ERROR" and mapped.span_name == "execute_tool Bash"
    assert mapped.attributes[m.FAILURE] is True
    assert mapped.attributes[m.FAILURE_REASON].endswith("…")
    schema = Path(__file__).resolve().parent.parent / "schema/control-plane/v1"
    document = json.loads((schema / "audit-record.schema.json").read_text(encoding="utf-8"))
    assert set(document["required"]) == _reader._REQUIRED


def test_an_escalated_ask_a_long_reason_and_a_prompt() -> None:
    event = {"event": "prompt_submit", "tool": None, "meta": {"session_id": "s9"}}
    verdict = {"decision": "ask", "reason": "x" * 5000}
    mapped = m.map_record({**RECORD, "event": event, "verdict": verdict}, b"l", number=1, offset=0)
    attributes = mapped.attributes
    assert attributes[m.DECISION] == "ask" and attributes[m.DECISION_ESCALATED] == "deny"
    assert attributes[m.ESCALATED] is True and attributes[m.GEN_AI_CONVERSATION_ID] == "s9"
    assert len(attributes[m.REASON]) == 4097 and attributes[m.REASON].endswith("…")
    assert m.GEN_AI_OPERATION not in attributes and mapped.span_name is None
    assert mapped.severity == "WARN"
    assert mapped.end_ns == 1_796_349_600_250_000_000
    assert mapped.start_ns == mapped.end_ns - 3_000_000


def test_the_pipeline_marks_a_failure_span_and_survives_a_broken_exporter() -> None:
    pipeline = _otel.Pipeline(environ={"OTEL_SERVICE_NAME": "svc"})
    event = {"event": "pre_tool", "tool": "Bash", "meta": {}}
    record = {**RECORD, "event": event}
    built = pipeline.build([m.map_record(record, b"x", number=1, offset=0)])
    (span,) = built[_otel.TRACES]
    assert span.status.status_code.name == "ERROR"
    assert span.resource.attributes["service.name"] == "svc"
    (log,) = built[_otel.LOGS]
    assert log.log_record.span_id == span.context.span_id

    class Broken:
        def export(self, items: Any) -> Any:
            raise RuntimeError("boom")

        def shutdown(self) -> None:
            raise RuntimeError("never connected")

    pipeline.exporters = {_otel.LOGS: Broken(), _otel.TRACES: Broken()}
    assert pipeline.send(_otel.LOGS, [log]) is False
    assert pipeline.send(_otel.LOGS, []) is True
    assert pipeline._logs.force_flush() is True
    pipeline.shutdown()


def test_the_default_service_name_and_protocols() -> None:
    assert _otel.resource({}).attributes["service.name"] == _otel.DEFAULT_SERVICE
    env = {"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_LOGS_PROTOCOL": "http/json"}
    assert _otel.protocol_for("traces", None, env) == "grpc"
    assert _otel.protocol_for("logs", "http/protobuf", env) == "http/protobuf"
    with pytest.raises(ValueError, match="http/json"):
        _otel.protocol_for("logs", None, env)
    assert _run.main(["/x.jsonl"], {"OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}) == 2


def test_the_reader_skips_a_line_longer_than_a_batch_and_waits_for_an_unfinished_one(
    tmp_path: Path,
) -> None:
    log = tmp_path / "audit.jsonl"
    said: list[str] = []
    line = json.dumps(RECORD).encode() + b"\n"
    limit = len(line) + 8
    reader = LogReader(str(log), Checkpoint(), said.append, max_bytes=limit)
    assert reader.read().records == [] and reader.size() == 0
    log.write_bytes(b"x" * 3 * limit + b"\n" + line + b"y" * 2 * limit)
    batch = reader.read()
    assert said == [f"line 1: over {limit} bytes; skipped"] and batch.skipped == 1
    assert len(batch.records) == 1 and batch.after.offset == 3 * limit + 1 + len(line)
    reader.position = batch.after
    assert reader.read().after.offset == batch.after.offset  # the long tail is not written yet
    assert said == [f"line 1: over {limit} bytes; skipped"]


def test_an_offset_file_of_another_kind_is_refused(tmp_path: Path) -> None:
    offsets = tmp_path / "o"
    offsets.write_text('{"offset": "3"}', encoding="utf-8")
    with pytest.raises(ValueError, match="not an offset file"):
        Checkpoint.load(str(offsets))
    log = tmp_path / "audit.jsonl"
    log.write_text("", encoding="utf-8")
    args = _args(offset_file=str(offsets))
    said: list[str] = []
    assert _run.run(str(log), None, args, said.append, threading.Event()) == 2
    assert "move it away" in said[0]


def _args(**options: Any) -> argparse.Namespace:
    args = _run._parser().parse_args(["x", "--once"])
    for name, value in options.items():
        setattr(args, name, value)
    return args


class FakePipeline:
    """Accepts a batch after failing the given number of times; can stop the loop while failing."""

    def __init__(self, failures: int = 0, stop: threading.Event | None = None) -> None:
        self.failures = failures
        self.stop = stop
        self.sent: list[Any] = []

    def build(self, mapped: list[m.Mapped]) -> dict[str, list[Any]]:
        return {"logs": list(mapped)}

    def send(self, name: str, items: list[Any]) -> bool:
        if self.failures:
            self.failures -= 1
            if self.stop is not None:
                self.stop.set()
            return False
        self.sent += items
        return True


def test_the_loop_reports_progress_and_stops_without_committing(tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    log.write_text("".join(json.dumps(RECORD) + "\n" for _ in range(4)), encoding="utf-8")
    said: list[str] = []
    pipeline = FakePipeline(failures=1)
    args = _args(batch_size=1, progress=0.0, max_backoff=0.01)
    assert _run.run(str(log), pipeline, args, said.append, threading.Event()) == 0
    assert len(pipeline.sent) == 4
    assert any(text.startswith("catching up: line 1,") for text in said)
    assert any(text.startswith("caught up: 4 record(s)") for text in said)
    stop = threading.Event()
    log.write_text(json.dumps(RECORD) + "\n", encoding="utf-8")
    (tmp_path / "audit.jsonl.otel-offset").unlink()
    assert _run.run(str(log), FakePipeline(1, stop), _args(), said.append, stop) == 0
    assert not (tmp_path / "audit.jsonl.otel-offset").exists()
    assert said[-1].startswith("exported 0 record(s)")


def test_the_command_line_refuses_what_it_cannot_run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run.main([], {}) == 2
    assert "give PATH or set ACP_AUDIT_LOG" in capsys.readouterr().err
    assert _run.main(["relative.jsonl", "--signals", "metrics"], {}) == 2
    assert "--signals takes logs, traces; not metrics" in capsys.readouterr().err
    import agent_control_plane_core.export as package

    monkeypatch.delattr(package, "_otel")
    monkeypatch.setitem(sys.modules, "agent_control_plane_core.export._otel", None)
    assert _run.main(["/x.jsonl", "--once"], {}) == 2
    assert "pip install 'agent-control-plane-core[otel]'" in capsys.readouterr().err
