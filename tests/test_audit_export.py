"""`acp audit export`: real hook records reach a local OTLP receiver that decodes the real protobuf."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import zlib
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from agent_control_plane_core.export import _mapping as m

from hook_runner import BIN, NO_COVERAGE, run_hook

REPO = Path(__file__).resolve().parent.parent
SECRET = "sk-test-Zq7UNIQUEsecret42"
POLICY = """
[[rules]]
name = "redact-token-in-commands"
tools = ["Bash"]
events = ["pre_tool"]
match = 'sk-test-'
decision = "allow"
reason = "policy: a token was redacted from the command"
rewrite = { pattern = 'sk-test-[A-Za-z0-9]+', replacement = "[REDACTED]" }
on_unrendered = "deny"

[[rules]]
name = "no-listing"
tools = ["Bash"]
events = ["pre_tool"]
command = { program = ["ls", "rm"] }
decision = "deny"
reason = "policy: no ls or rm in this test"

[[rules]]
name = "redact-token-in-output"
events = ["post_tool"]
decision = "allow"
reason = "policy: a token was redacted from the output"
rewrite = { pattern = 'sk-test-[A-Za-z0-9]+', replacement = "[REDACTED]" }
on_unrendered = "deny"
"""
HOSTS = ("claude", "codex", "gemini", "cursor")
RESPONSE_KEYS = ("tool_response", "tool_output")


# ---- the receiver: OTLP/HTTP protobuf on 127.0.0.1, every request body kept as sent ---------


class _Handler(BaseHTTPRequestHandler):
    capture: Path
    refuse: bool = False

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        encoding = self.headers.get("Content-Encoding", "")
        if encoding == "gzip":
            body = gzip.decompress(body)
        elif encoding == "deflate":
            body = zlib.decompress(body)
        if self.refuse:
            self.send_response(503)
            self.end_headers()
            return
        with open(self.capture, "ab") as out:
            out.write(f"{self.path} {len(body)}\n".encode() + body)
            out.flush()
        reply = (
            ExportLogsServiceResponse()
            if self.path.endswith("logs")
            else ExportTraceServiceResponse()
        ).SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def serve(port: int, capture: Path, refuse: bool = False) -> None:
    """Run the receiver until killed (python tests/test_audit_export.py PORT CAPTURE [refuse])."""
    _Handler.capture, _Handler.refuse = capture, refuse
    ThreadingHTTPServer.allow_reuse_address = True
    server = ThreadingHTTPServer(("127.0.0.1", port), _Handler)
    print("ready", flush=True)
    server.serve_forever()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Receiver:
    """The receiver as its own process, so a test can kill it outright and start it again."""

    def __init__(self, tmp: Path) -> None:
        self.port = free_port()
        self.capture = tmp / "received.bin"
        self.process: subprocess.Popen[str] | None = None

    def start(self, refuse: bool = False) -> None:
        argv = [sys.executable, __file__, str(self.port), str(self.capture)]
        self.process = subprocess.Popen(
            [*argv, *(["refuse"] if refuse else [])],
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, **NO_COVERAGE},
        )
        assert self.process.stdout is not None and self.process.stdout.readline() == "ready\n"

    def kill(self) -> None:
        assert self.process is not None
        self.process.kill()
        self.process.wait()

    def requests(self) -> list[tuple[str, bytes]]:
        """(path, body) of every request the receiver accepted, in order."""
        if not self.capture.exists():
            return []
        data, found, at = self.capture.read_bytes(), [], 0
        while at < len(data):
            end = data.index(b"\n", at)
            path, size = data[at:end].decode().split()
            found.append((path, data[end + 1 : end + 1 + int(size)]))
            at = end + 1 + int(size)
        return found

    def logs(self) -> list[dict[str, Any]]:
        """Every log record received: its attributes, body, severity, trace and span id."""
        out = []
        for path, body in self.requests():
            if path.endswith("/v1/logs"):
                out += decode_logs(ExportLogsServiceRequest.FromString(body))
        return out

    def spans(self) -> list[dict[str, Any]]:
        out = []
        for path, body in self.requests():
            if path.endswith("/v1/traces"):
                out += decode_spans(ExportTraceServiceRequest.FromString(body))
        return out

    def env(self) -> dict[str, str]:
        return {"OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{self.port}"}


def _value(any_value: Any) -> Any:
    kind = any_value.WhichOneof("value")
    if kind == "array_value":
        return [_value(item) for item in any_value.array_value.values]
    return getattr(any_value, kind) if kind else None


def _attributes(pairs: Any) -> dict[str, Any]:
    return {pair.key: _value(pair.value) for pair in pairs}


def decode_logs(request: Any) -> list[dict[str, Any]]:
    out = []
    for resource_logs in request.resource_logs:
        resource = _attributes(resource_logs.resource.attributes)
        for scope_logs in resource_logs.scope_logs:
            for record in scope_logs.log_records:
                out.append(
                    {
                        "attributes": _attributes(record.attributes),
                        "body": _value(record.body),
                        "severity": record.severity_text,
                        "event_name": record.event_name,
                        "trace_id": record.trace_id.hex(),
                        "span_id": record.span_id.hex(),
                        "resource": resource,
                        "scope": scope_logs.scope.name,
                    }
                )
    return out


def decode_spans(request: Any) -> list[dict[str, Any]]:
    out = []
    for resource_spans in request.resource_spans:
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                out.append(
                    {
                        "name": span.name,
                        "attributes": _attributes(span.attributes),
                        "trace_id": span.trace_id.hex(),
                        "span_id": span.span_id.hex(),
                        "start": span.start_time_unix_nano,
                        "end": span.end_time_unix_nano,
                    }
                )
    return out


@pytest.fixture
def receiver(tmp_path: Path) -> Iterator[Receiver]:
    found = Receiver(tmp_path)
    found.start()
    yield found
    if found.process is not None and found.process.poll() is None:
        found.kill()


# ---- the exporter, run as the installed `acp` command -------------------------------------------


def export_env(receiver: Receiver, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "ACP_"))}
    env.update(receiver.env())
    env["OTEL_EXPORTER_OTLP_TIMEOUT"] = "1"
    env.update(extra)
    return env


def export(
    receiver: Receiver, log: Path, *options: str, **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "acp"), "audit", "export", str(log), "--once", *options],
        capture_output=True,
        text=True,
        env=export_env(receiver, **env),
        timeout=60,
    )


def wait_for(condition: Callable[[], bool], seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


# ---- records from real hook runs ---------------------------------------------------------------


def _fixture_case(host: str, kind: str) -> dict[str, Any]:
    cases = json.loads((REPO / "fixtures" / f"{host}.json").read_text(encoding="utf-8"))["cases"]
    for case in cases:
        event = case.get("event") or {}
        if event.get("event") == kind and event.get("tool") == "Bash":
            return dict(case["native"])
    raise AssertionError(f"no {kind} Bash case in fixtures/{host}.json")


@pytest.fixture(scope="module")
def hook_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The audit log of real hook runs on four hosts: a deny, a redacted command, a redacted output."""
    where = tmp_path_factory.mktemp("hooks")
    policy = where / "policy.toml"
    policy.write_text(POLICY, encoding="utf-8")
    log = where / "audit.jsonl"
    env = {"ACP_POLICY": str(policy), "ACP_AUDIT_LOG": str(log), **NO_COVERAGE}
    for host in HOSTS:
        run_hook(host, _fixture_case(host, "pre_tool"), **env)  # ls -la / rm -rf / echo hi
        after = _fixture_case(host, "post_tool")
        key = next(key for key in RESPONSE_KEYS if key in after)
        after[key] = f"export TOKEN={SECRET}\n"
        run_hook(host, after, **env)
    claude = _fixture_case("claude", "pre_tool")
    claude["tool_input"] = {"command": f"curl -H 'Authorization: Bearer {SECRET}' https://x"}
    claude["tool_use_id"] = "toolu_export_1"
    run_hook("claude", claude, **env)
    assert len(log.read_text(encoding="utf-8").splitlines()) == 2 * len(HOSTS) + 1
    return log


def test_real_hook_records_arrive_with_the_documented_attributes(
    receiver: Receiver, hook_log: Path, tmp_path: Path
) -> None:
    log = tmp_path / "audit.jsonl"
    log.write_bytes(hook_log.read_bytes())
    done = export(receiver, log, "--content", OTEL_SERVICE_NAME="guard-fleet")
    assert done.returncode == 0, done.stderr
    logs = receiver.logs()
    assert len(logs) == 2 * len(HOSTS) + 1
    assert {r["attributes"][m.HOST] for r in logs} == set(HOSTS)
    for record in logs:
        attributes = record["attributes"]
        assert record["resource"]["service.name"] == "guard-fleet"
        assert record["event_name"] == m.EVENT_NAME
        assert attributes[m.GEN_AI_OPERATION] == m.EXECUTE_TOOL
        assert attributes[m.GEN_AI_TOOL_NAME] == "Bash"
        assert attributes[m.TOOL_CANONICAL] == "Bash"
        assert attributes[m.EVENT_KIND] in ("pre_tool", "post_tool")
        for name in (m.TOOL_NATIVE, m.EVENT_NATIVE, m.DECISION, m.DECISION_ESCALATED):
            assert isinstance(attributes[name], str), name
        for name in (m.ENFORCED, m.ESCALATED, m.VETOABLE):
            assert isinstance(attributes[name], bool), name
        assert isinstance(attributes[m.EXIT_CODE], int)
        assert attributes[m.DURATION_MS] > 0
        assert len(attributes[m.RECORD_ID]) == 32
    by_host: dict[tuple[str, str], dict[str, Any]] = {}
    for record in logs:  # the first record of each host and kind (claude has a second pre_tool)
        key = (record["attributes"][m.HOST], record["attributes"][m.EVENT_KIND])
        by_host.setdefault(key, record)
    denied = by_host[("claude", "pre_tool")]["attributes"]
    assert denied[m.DECISION] == "deny" and denied[m.ENFORCED] is True
    assert denied[m.REASON] == "policy: no ls or rm in this test"
    assert denied[m.GEN_AI_CONVERSATION_ID] == "s1"
    allowed = by_host[("gemini", "pre_tool")]["attributes"]
    assert allowed[m.TOOL_NATIVE] == "run_shell_command" and allowed[m.DECISION] == "allow"
    assert m.REASON not in allowed and allowed[m.ENFORCED] is False
    dropped = by_host[("cursor", "post_tool")]["attributes"]
    assert dropped[m.UNRENDERED] == ["mutated_output"] and dropped[m.DECISION] == "deny"
    assert by_host[("cursor", "pre_tool")]["attributes"][m.HOST_VERSION] == "3.9.16"
    redacted = by_host[("codex", "post_tool")]["attributes"]
    assert redacted[m.GEN_AI_TOOL_CALL_ID] == "call_9"
    assert "mutated_output" in redacted[m.CONTENT]
    assert "[REDACTED]" in redacted[m.GEN_AI_TOOL_RESULT]
    rewritten = [r for r in logs if r["attributes"].get(m.GEN_AI_TOOL_CALL_ID) == "toolu_export_1"]
    assert "[REDACTED]" in rewritten[0]["attributes"][m.GEN_AI_TOOL_ARGUMENTS]
    # Each tool call is a span too, with the log record pointing at it.
    spans = {span["span_id"]: span for span in receiver.spans()}
    assert len(spans) == len(logs)
    for record in logs:
        span = spans[record["span_id"]]
        assert span["name"] == "execute_tool Bash" and span["trace_id"] == record["trace_id"]
        assert span["attributes"][m.DECISION] == record["attributes"][m.DECISION]
        assert span["end"] >= span["start"] > 0


def test_a_redacted_secret_is_in_no_byte_sent(
    receiver: Receiver, hook_log: Path, tmp_path: Path
) -> None:
    log = tmp_path / "audit.jsonl"
    log.write_bytes(hook_log.read_bytes())
    # The log keeps the command as the agent sent it; the exporter sends the rewrite only.
    assert SECRET.encode() in log.read_bytes()
    for options in ((), ("--signals", "logs")):
        done = export(receiver, log, "--content", *options)
        assert done.returncode == 0, done.stderr
        (tmp_path / "audit.jsonl.otel-offset").unlink()
    sent = receiver.requests()
    assert len(sent) == 3
    for _path, body in sent:
        assert SECRET.encode() not in body
        assert b"sk-test-" not in body
    assert b"[REDACTED]" in b"".join(body for _path, body in sent)


def test_a_hook_that_cannot_load_its_rule_file_is_exported_as_a_failure(
    receiver: Receiver, tmp_path: Path
) -> None:
    log = tmp_path / "audit.jsonl"
    missing = tmp_path / "missing.toml"
    env = {"ACP_POLICY": str(missing), "ACP_AUDIT_LOG": str(log), **NO_COVERAGE}
    run_hook("gemini", _fixture_case("gemini", "pre_tool"), **env)
    assert export(receiver, log).returncode == 0
    (record,) = receiver.logs()
    attributes = record["attributes"]
    assert attributes[m.FAILURE] is True and str(missing) in attributes[m.FAILURE_REASON]
    assert record["severity"] == "ERROR" and attributes[m.HOST] == "gemini"
    (span,) = receiver.spans()
    assert span["span_id"] == record["span_id"]


# Writes every import the hook process attempts (os._exit leaves no atexit to ask at the end).
SPY = """
import runpy, sys
SEEN = sys.argv[1]
class Spy:
    def find_spec(self, name, path=None, target=None):
        with open(SEEN, "a") as out:
            out.write(name + "\\n")
sys.meta_path.insert(0, Spy())
hook = sys.argv[2]
sys.argv = [hook]
runpy.run_path(hook, run_name="__main__")
"""


def test_the_hook_path_imports_no_opentelemetry(hook_log: Path, tmp_path: Path) -> None:
    payload = json.dumps(_fixture_case("claude", "pre_tool"))
    env = {
        **os.environ,
        "ACP_AUDIT_LOG": str(tmp_path / "a.jsonl"),
        "ACP_POLICY": str(hook_log.parent / "policy.toml"),
        **NO_COVERAGE,
    }
    seen = tmp_path / "imports.txt"
    done = subprocess.run(
        [str(BIN / "python"), "-c", SPY, str(seen), str(BIN / "acp-claude-hook")],
        input=payload,
        capture_output=True,
        text=True,
        env={k: v for k, v in env.items() if v},
    )
    assert done.returncode == 2, done.stderr
    assert (tmp_path / "a.jsonl").exists()
    imported = seen.read_text(encoding="utf-8").split()
    assert "agent_control_plane_core.audit" in imported
    heavy = [name for name in imported if name.split(".")[0] in ("opentelemetry", "grpc", "google")]
    assert heavy == []
    assert not any(name.startswith("agent_control_plane_core.export") for name in imported)


# ---- delivery: outage, restart, corrupt lines, rotation ------------------------------------------


def synthetic(log: Path, first: int, count: int) -> list[str]:
    """Append count records written the way the hook writes them; return their record ids."""
    from agent_control_plane_core import Verdict, adapter_for
    from agent_control_plane_core.audit import append_hook_record

    adapter = adapter_for("claude")
    for number in range(first, first + count):
        native = {**_fixture_case("claude", "pre_tool"), "session_id": f"s{number}"}
        event = adapter.parse(native)
        verdict = Verdict(decision="deny", reason=f"call {number}")
        append_hook_record(
            str(log),
            agent="claude",
            event=event,
            verdict=verdict,
            response=adapter.render(verdict, event),
            duration_ms=1.5,
        )
    lines = log.read_bytes().splitlines()[-count:]
    return [hashlib.sha256(line).digest()[:16].hex() for line in lines]


def received_ids(receiver: Receiver) -> list[str]:
    return [record["attributes"][m.RECORD_ID] for record in receiver.logs()]


def test_a_receiver_outage_loses_nothing_and_restart_resumes_from_the_offset(
    receiver: Receiver, tmp_path: Path
) -> None:
    log = tmp_path / "audit.jsonl"
    batch = 20
    sent = synthetic(log, 0, 200)
    options = ["--batch-size", str(batch), "--poll", "0.05", "--max-backoff", "0.2"]
    follower = subprocess.Popen(
        [str(BIN / "acp"), "audit", "export", str(log), *options, "--signals", "logs"],
        stderr=subprocess.PIPE,
        text=True,
        env=export_env(receiver),
    )
    try:
        wait_for(lambda: len(received_ids(receiver)) >= 60)
        receiver.kill()  # mid-stream: the follower is still catching up
        sent += synthetic(log, 200, 200)
        offsets = tmp_path / "audit.jsonl.otel-offset"
        time.sleep(1.0)
        stalled = json.loads(offsets.read_text(encoding="utf-8"))["line"]
        time.sleep(0.5)
        assert json.loads(offsets.read_text(encoding="utf-8"))["line"] == stalled < 400
        receiver.start()
        wait_for(lambda: set(received_ids(receiver)) >= set(sent))
        wait_for(lambda: json.loads(offsets.read_text(encoding="utf-8"))["line"] == 400)
    finally:
        follower.send_signal(signal.SIGTERM)
        _out, err = follower.communicate(timeout=30)
    assert follower.returncode == 0, err
    assert "not accepted by the endpoint" in err and "the offset does not move" in err
    got = received_ids(receiver)
    assert set(got) == set(sent)
    assert len(got) - len(set(got)) <= batch  # at least once: at most the batch in flight again
    # A restart resumes from the committed offset: only the new records are sent.
    more = synthetic(log, 400, 5)
    done = export(receiver, log, "--signals", "logs")
    assert done.returncode == 0, done.stderr
    assert "resuming" in done.stderr and "after line 400" in done.stderr
    assert received_ids(receiver)[len(got) :] == more


def test_a_refusing_endpoint_keeps_the_offset(tmp_path: Path) -> None:
    refusing = Receiver(tmp_path)
    refusing.start(refuse=True)
    try:
        log = tmp_path / "audit.jsonl"
        synthetic(log, 0, 3)
        done = export(refusing, log, "--max-attempts", "2", "--max-backoff", "0.05")
    finally:
        refusing.kill()
    assert done.returncode == 1
    assert "gave up after 2 attempt(s); the offset stays at line 0" in done.stderr
    assert not (tmp_path / "audit.jsonl.otel-offset").exists()


def test_corrupt_lines_are_reported_with_their_number_and_skipped(
    receiver: Receiver, tmp_path: Path
) -> None:
    log = tmp_path / "audit.jsonl"
    ids = synthetic(log, 0, 1)
    with open(log, "a", encoding="utf-8") as out:
        out.write('{"time": "torn\n\n[1, 2]\n{"agent": "claude"}\n')
    ids += synthetic(log, 5, 1)
    with open(log, "ab") as out:
        out.write(b'{"time": "still being written')  # no newline yet: left for the next run
    done = export(receiver, log, "--signals", "logs")
    assert done.returncode == 0, done.stderr
    assert "line 2: not JSON" in done.stderr
    assert "line 4: not an audit record" in done.stderr
    assert "line 5: not an audit record (missing duration_ms, enforced" in done.stderr
    assert "line 7 is not complete yet; left for the next run" in done.stderr
    assert "skipped 3 line(s); committed through line 6" in done.stderr
    assert received_ids(receiver) == ids


def test_truncation_rotation_and_rewrite_are_detected_and_reported(
    receiver: Receiver, tmp_path: Path
) -> None:
    log = tmp_path / "audit.jsonl"
    first = synthetic(log, 0, 3)
    assert export(receiver, log, "--signals", "logs").returncode == 0
    log.write_bytes(b"")  # truncated (logrotate copytruncate)
    again = synthetic(log, 10, 1)
    done = export(receiver, log, "--signals", "logs")
    assert "was truncated" in done.stderr
    log.rename(tmp_path / "audit.jsonl.1")  # rotated: a new file at the path
    rotated = synthetic(log, 20, 2)
    done = export(receiver, log, "--signals", "logs")
    assert "was rotated" in done.stderr
    log.write_bytes(b"")  # rewritten in place and grown past the offset again
    rewritten = synthetic(log, 30, 4)
    done = export(receiver, log, "--signals", "logs")
    assert "was rewritten in place" in done.stderr
    assert received_ids(receiver) == first + again + rotated + rewritten


def test_grpc_delivers_the_same_records(tmp_path: Path) -> None:
    from concurrent import futures

    import grpc
    from opentelemetry.proto.collector.logs.v1 import logs_service_pb2_grpc
    from opentelemetry.proto.collector.trace.v1 import trace_service_pb2_grpc

    got: list[Any] = []

    class Logs(logs_service_pb2_grpc.LogsServiceServicer):  # type: ignore[misc]
        def Export(self, request: Any, context: Any) -> Any:
            got.extend(decode_logs(request))
            return ExportLogsServiceResponse()

    class Traces(trace_service_pb2_grpc.TraceServiceServicer):  # type: ignore[misc]
        def Export(self, request: Any, context: Any) -> Any:
            got.extend(decode_spans(request))
            return ExportTraceServiceResponse()

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    logs_service_pb2_grpc.add_LogsServiceServicer_to_server(Logs(), server)
    trace_service_pb2_grpc.add_TraceServiceServicer_to_server(Traces(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        log = tmp_path / "audit.jsonl"
        ids = synthetic(log, 0, 3)
        done = subprocess.run(
            [str(BIN / "acp"), "audit", "export", str(log), "--once", "--protocol", "grpc"],
            capture_output=True,
            text=True,
            env={
                **{k: v for k, v in os.environ.items() if not k.startswith("OTEL_")},
                "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{port}",
                "OTEL_EXPORTER_OTLP_INSECURE": "true",
                "OTEL_EXPORTER_OTLP_TIMEOUT": "5",
            },
            timeout=60,
        )
    finally:
        server.stop(None)
    assert done.returncode == 0, done.stderr
    assert sorted(r["attributes"][m.RECORD_ID] for r in got if "body" in r) == sorted(ids)
    assert len([span for span in got if "name" in span]) == 3


if __name__ == "__main__":
    serve(int(sys.argv[1]), Path(sys.argv[2]), refuse=sys.argv[3:] == ["refuse"])
