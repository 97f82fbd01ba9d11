"""The lab's mock model server: each API's tool call, final text, SSE shapes, records, lifetime."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lab.model_server import ModelServer, serve

REPO = Path(__file__).resolve().parent.parent
ARGS = {"command": "echo 'hi there' > out.txt", "description": "write a file"}
SCRIPT: dict[str, Any] = {
    "tool_call": {"name": "Bash", "arguments": ARGS},
    "final_text": "all done now",
    "model": "lab-model",
}
# A bound that separates a hang from an answer; no assertion depends on speed.
HANG = 30.0

Json = dict[str, Any]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ModelServer]:
    srv, _thread = serve(SCRIPT, tmp_path / "rec", lifetime=HANG * 4)
    yield srv
    srv.stop()


def request(
    srv: ModelServer,
    path: str,
    body: Any = None,
    method: str = "POST",
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, str], bytes]:
    """Send one request on a fresh connection and read the whole answer."""
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=HANG)
    data = None if body is None else json.dumps(body).encode()
    all_headers = {"Content-Type": "application/json", **(headers or {})}
    conn.request(method, path, body=data, headers=all_headers)
    resp = conn.getresponse()
    raw = resp.read()
    conn.close()
    return resp.status, {k.lower(): v for k, v in resp.getheaders()}, raw


def sse(raw: bytes) -> list[tuple[str | None, Any]]:
    """Parse an SSE body into (event name, parsed data) pairs."""
    events: list[tuple[str | None, Any]] = []
    for block in raw.decode().split("\n\n"):
        if not block.strip():
            continue
        name = None
        data_lines = []
        for line in block.split("\n"):
            if line.startswith("event: "):
                name = line[len("event: ") :]
            elif line.startswith("data: "):
                data_lines.append(line[len("data: ") :])
        data = "\n".join(data_lines)
        events.append((name, data if data == "[DONE]" else json.loads(data)))
    return events


def stream(srv: ModelServer, path: str, body: Json) -> list[tuple[str | None, Any]]:
    status, headers, raw = request(srv, path, body)
    assert status == 200
    assert headers["content-type"] == "text/event-stream"
    return sse(raw)


def records(srv: ModelServer) -> list[Json]:
    files = sorted(srv.record_dir.glob("*.json"))
    return [json.loads(f.read_text()) for f in files]


# --- request bodies per API -----------------------------------------------------------------

ANTHROPIC_TOOLS = [{"name": "Bash", "description": "run", "input_schema": {"type": "object"}}]
CHAT_TOOLS = [{"type": "function", "function": {"name": "Bash", "parameters": {"type": "object"}}}]
RESPONSES_TOOLS = [{"type": "function", "name": "Bash", "parameters": {"type": "object"}}]
GEMINI_TOOLS = [{"functionDeclarations": [{"name": "Bash", "parameters": {"type": "OBJECT"}}]}]


def anthropic_body(*, tools: bool, result: bool, stream: bool) -> Json:
    messages: list[Json] = [{"role": "user", "content": [{"type": "text", "text": "go"}]}]
    if result:
        use = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": ARGS}
        res = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}
        messages += [{"role": "assistant", "content": [use]}, {"role": "user", "content": [res]}]
    body: Json = {"model": "claude-x", "max_tokens": 100, "messages": messages, "stream": stream}
    if tools:
        body["tools"] = ANTHROPIC_TOOLS
    return body


def chat_body(*, tools: bool, result: bool, stream: bool) -> Json:
    messages: list[Json] = [{"role": "user", "content": "go"}]
    if result:
        call = {"id": "call_1", "type": "function", "function": {"name": "Bash", "arguments": "{}"}}
        messages += [
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "call_1", "content": "ok"},
        ]
    body: Json = {"model": "lab-model", "messages": messages, "stream": stream}
    if stream:
        body["stream_options"] = {"include_usage": True}
    if tools:
        body["tools"] = CHAT_TOOLS
    return body


def responses_body(*, tools: bool, result: bool, stream: bool) -> Json:
    items: list[Json] = [{"type": "message", "role": "user", "content": "go"}]
    if result:
        items += [
            {"type": "function_call", "call_id": "call_1", "name": "Bash", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "call_1", "output": "ok"},
        ]
    body: Json = {"model": "lab-model", "input": items, "stream": stream}
    if tools:
        body["tools"] = RESPONSES_TOOLS
    return body


def gemini_body(*, tools: bool, result: bool) -> Json:
    contents: list[Json] = [{"role": "user", "parts": [{"text": "go"}]}]
    if result:
        contents += [
            {"role": "model", "parts": [{"functionCall": {"name": "Bash", "args": ARGS}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "Bash", "response": {}}}]},
        ]
    body: Json = {"contents": contents}
    if tools:
        body["tools"] = GEMINI_TOOLS
    return body


# --- Anthropic Messages ---------------------------------------------------------------------


def anthropic_stream_result(events: list[tuple[str | None, Any]]) -> tuple[Json, str, str]:
    """Check the Messages event sequence; return (content block start, joined deltas, stop)."""
    names = [name for name, _ in events]
    assert names[0] == "message_start"
    assert names[1] == "content_block_start"
    assert names[-3:] == ["content_block_stop", "message_delta", "message_stop"]
    assert all(data["type"] == name for name, data in events)
    start = events[0][1]["message"]
    assert start["id"].startswith("msg_")
    assert start["role"] == "assistant"
    assert start["model"] == "claude-x"
    assert start["usage"]["input_tokens"] > 0
    deltas = [d["delta"] for n, d in events if n == "content_block_delta"]
    assert len(deltas) > 1
    joined = "".join(d.get("partial_json", d.get("text", "")) for d in deltas)
    message_delta = events[-2][1]
    assert message_delta["usage"]["output_tokens"] > 0
    return events[1][1]["content_block"], joined, message_delta["delta"]["stop_reason"]


def test_anthropic_stream_tool_call_then_final_text(server: ModelServer) -> None:
    path = "/v1/messages?beta=true"
    block, joined, stop = anthropic_stream_result(
        stream(server, path, anthropic_body(tools=True, result=False, stream=True))
    )
    assert block["type"] == "tool_use"
    assert block["id"].startswith("toolu_")
    assert block["name"] == "Bash"
    assert json.loads(joined) == ARGS
    assert stop == "tool_use"
    events = stream(server, path, anthropic_body(tools=True, result=True, stream=True))
    block, joined, stop = anthropic_stream_result(events)
    assert block == {"type": "text", "text": ""}
    assert joined == "all done now"
    assert stop == "end_turn"
    assert [r["answered"] for r in records(server)] == ["tool_call", "final_text"]


def test_anthropic_no_tools_request_gets_text_and_keeps_the_tool_call(server: ModelServer) -> None:
    _, joined, stop = anthropic_stream_result(
        stream(server, "/v1/messages", anthropic_body(tools=False, result=False, stream=True))
    )
    assert (joined, stop) == ("all done now", "end_turn")
    # The title-style request did not spend the one tool call.
    block, _, _ = anthropic_stream_result(
        stream(server, "/v1/messages", anthropic_body(tools=True, result=False, stream=True))
    )
    assert block["name"] == "Bash"


def test_anthropic_json(server: ModelServer) -> None:
    status, headers, raw = request(
        server, "/v1/messages", anthropic_body(tools=True, result=False, stream=False)
    )
    assert status == 200
    assert headers["content-type"] == "application/json"
    assert int(headers["content-length"]) == len(raw)
    msg = json.loads(raw)
    assert msg["type"] == "message"
    assert msg["stop_reason"] == "tool_use"
    [use] = msg["content"]
    assert (use["type"], use["name"], use["input"]) == ("tool_use", "Bash", ARGS)
    body = anthropic_body(tools=True, result=True, stream=False)
    msg = json.loads(request(server, "/v1/messages", body)[2])
    assert msg["stop_reason"] == "end_turn"
    assert msg["content"] == [{"type": "text", "text": "all done now"}]
    # The budget is spent: a fresh tools request without a result now gets text.
    body = anthropic_body(tools=True, result=False, stream=False)
    msg = json.loads(request(server, "/v1/messages", body)[2])
    assert msg["content"][0]["type"] == "text"


def test_anthropic_count_tokens(server: ModelServer) -> None:
    body = anthropic_body(tools=True, result=False, stream=False)
    status, _, raw = request(server, "/v1/messages/count_tokens?beta=true", body)
    assert status == 200
    assert json.loads(raw)["input_tokens"] > 0
    # Counting tokens does not spend the tool call.
    msg = json.loads(request(server, "/v1/messages", body)[2])
    assert msg["stop_reason"] == "tool_use"


# --- OpenAI Chat Completions ----------------------------------------------------------------


def chat_stream_result(events: list[tuple[str | None, Any]]) -> tuple[list[Json], str, Json]:
    """Check the chunk sequence; return (deltas, finish_reason, usage chunk)."""
    assert events[-1] == (None, "[DONE]")
    assert all(name is None for name, _ in events)
    chunks = [data for _, data in events[:-1]]
    assert all(c["object"] == "chat.completion.chunk" for c in chunks)
    assert len({c["id"] for c in chunks}) == 1
    usage_chunk = chunks[-1]
    assert usage_chunk["choices"] == []
    assert usage_chunk["usage"]["total_tokens"] > 0
    choices = [c["choices"][0] for c in chunks[:-1]]
    assert choices[0]["delta"]["role"] == "assistant"
    assert all(c["finish_reason"] is None for c in choices[:-1])
    return [c["delta"] for c in choices], choices[-1]["finish_reason"], usage_chunk


@pytest.mark.parametrize("path", ["/v1/chat/completions", "/chat/completions"])
def test_chat_stream_tool_call_then_final_text(server: ModelServer, path: str) -> None:
    deltas, finish, _ = chat_stream_result(
        stream(server, path, chat_body(tools=True, result=False, stream=True))
    )
    assert finish == "tool_calls"
    calls = [tc for d in deltas for tc in d.get("tool_calls", [])]
    assert all(tc["index"] == 0 for tc in calls)
    assert calls[0]["id"].startswith("call_")
    assert calls[0]["type"] == "function"
    assert calls[0]["function"]["name"] == "Bash"
    assert json.loads("".join(tc["function"]["arguments"] for tc in calls)) == ARGS
    deltas, finish, _ = chat_stream_result(
        stream(server, path, chat_body(tools=True, result=True, stream=True))
    )
    assert finish == "stop"
    assert "".join(d.get("content") or "" for d in deltas) == "all done now"
    assert not any("tool_calls" in d for d in deltas)


def test_chat_stream_without_include_usage_has_no_usage_chunk(server: ModelServer) -> None:
    body = chat_body(tools=False, result=False, stream=True)
    del body["stream_options"]
    events = stream(server, "/v1/chat/completions", body)
    assert events[-1] == (None, "[DONE]")
    assert all("usage" not in data for _, data in events[:-1])
    assert events[-2][1]["choices"][0]["finish_reason"] == "stop"


def test_chat_json(server: ModelServer) -> None:
    path = "/v1/chat/completions"
    out = json.loads(request(server, path, chat_body(tools=False, result=False, stream=False))[2])
    assert out["choices"][0]["message"] == {"role": "assistant", "content": "all done now"}
    out = json.loads(request(server, path, chat_body(tools=True, result=False, stream=False))[2])
    assert out["object"] == "chat.completion"
    choice = out["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    [call] = choice["message"]["tool_calls"]
    assert call["function"]["name"] == "Bash"
    assert json.loads(call["function"]["arguments"]) == ARGS
    assert out["usage"]["total_tokens"] == (
        out["usage"]["prompt_tokens"] + out["usage"]["completion_tokens"]
    )
    out = json.loads(request(server, path, chat_body(tools=True, result=True, stream=False))[2])
    assert out["choices"][0]["finish_reason"] == "stop"


# --- OpenAI Responses -----------------------------------------------------------------------


def responses_stream_result(events: list[tuple[str | None, Any]]) -> tuple[list[str], Json]:
    """Check common Responses event rules; return (event names, completed response)."""
    names = [name for name, _ in events]
    assert all(name is not None for name in names)
    assert [data["type"] for _, data in events] == names
    assert [data["sequence_number"] for _, data in events] == list(range(len(events)))
    assert names[:3] == ["response.created", "response.in_progress", "response.output_item.added"]
    assert names[-2:] == ["response.output_item.done", "response.completed"]
    completed = events[-1][1]["response"]
    assert completed["id"] == events[0][1]["response"]["id"]
    assert completed["id"].startswith("resp_")
    assert completed["status"] == "completed"
    usage = completed["usage"]
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"]
    assert "cached_tokens" in usage["input_tokens_details"]
    assert "reasoning_tokens" in usage["output_tokens_details"]
    assert completed["output"] == [events[-2][1]["item"]]
    return [n for n in names if n is not None], completed


def test_responses_stream_tool_call_then_final_text(server: ModelServer) -> None:
    events = stream(server, "/v1/responses", responses_body(tools=True, result=False, stream=True))
    names, completed = responses_stream_result(events)
    [item] = completed["output"]
    assert item["type"] == "function_call"
    assert item["id"].startswith("fc_")
    assert item["call_id"].startswith("call_")
    assert item["name"] == "Bash"
    assert item["status"] == "completed"
    assert json.loads(item["arguments"]) == ARGS
    assert "response.output_text.delta" not in names
    events = stream(server, "/v1/responses", responses_body(tools=True, result=True, stream=True))
    names, completed = responses_stream_result(events)
    assert names[3:-2] == [
        "response.content_part.added",
        *["response.output_text.delta"] * (len(names) - 8),
        "response.output_text.done",
        "response.content_part.done",
    ]
    text = "".join(d["delta"] for n, d in events if n == "response.output_text.delta")
    assert text == "all done now"
    [item] = completed["output"]
    assert item["type"] == "message"
    assert item["content"][0] == {"type": "output_text", "text": text, "annotations": []}


def test_responses_custom_tool_output_counts_as_result(server: ModelServer) -> None:
    body = responses_body(tools=True, result=False, stream=True)
    body["input"].append({"type": "custom_tool_call_output", "call_id": "c", "output": "ok"})
    _, completed = responses_stream_result(stream(server, "/v1/responses", body))
    assert completed["output"][0]["type"] == "message"


def test_responses_json(server: ModelServer) -> None:
    body = responses_body(tools=False, result=False, stream=False)
    out = json.loads(request(server, "/v1/responses", body)[2])
    assert out["object"] == "response"
    assert out["output"][0]["content"][0]["text"] == "all done now"
    body = responses_body(tools=True, result=False, stream=False)
    out = json.loads(request(server, "/v1/responses", body)[2])
    assert out["status"] == "completed"
    assert out["output"][0]["type"] == "function_call"
    assert json.loads(out["output"][0]["arguments"]) == ARGS
    assert out["usage"]["output_tokens"] > 0


# --- Gemini ---------------------------------------------------------------------------------

GEMINI = "/v1beta/models/gemini-2.5-flash"


def gemini_parts(chunk: Json) -> list[Json]:
    [candidate] = chunk["candidates"]
    assert candidate["finishReason"] == "STOP"
    assert candidate["content"]["role"] == "model"
    assert chunk["usageMetadata"]["totalTokenCount"] > 0
    parts: list[Json] = candidate["content"]["parts"]
    return parts


def test_gemini_stream_tool_call_then_final_text(server: ModelServer) -> None:
    path = f"{GEMINI}:streamGenerateContent?alt=sse"
    events = stream(server, path, gemini_body(tools=True, result=False))
    assert all(name is None for name, _ in events)
    [part] = gemini_parts(events[-1][1])
    assert part == {"functionCall": {"name": "Bash", "args": ARGS}}
    events = stream(server, path, gemini_body(tools=True, result=True))
    text = "".join(p.get("text", "") for _, c in events for p in gemini_parts(c))
    assert text == "all done now"


def test_gemini_json_and_side_calls(server: ModelServer) -> None:
    out = json.loads(
        request(server, f"{GEMINI}:generateContent", gemini_body(tools=False, result=False))[2]
    )
    assert gemini_parts(out) == [{"text": "all done now"}]
    out = json.loads(
        request(server, f"{GEMINI}:countTokens", gemini_body(tools=True, result=False))[2]
    )
    assert out["totalTokens"] > 0
    # Tools that declare no function do not count as offering tools.
    body = {**gemini_body(tools=False, result=False), "tools": [{"googleSearch": {}}]}
    out = json.loads(request(server, f"{GEMINI}:generateContent", body)[2])
    assert "text" in gemini_parts(out)[0]
    # streamGenerateContent without alt=sse answers a JSON array.
    status, headers, raw = request(
        server, f"{GEMINI}:streamGenerateContent", gemini_body(tools=True, result=False)
    )
    assert (status, headers["content-type"]) == (200, "application/json")
    [chunk] = json.loads(raw)
    assert gemini_parts(chunk)[0]["functionCall"]["name"] == "Bash"
    out = json.loads(
        request(server, f"{GEMINI}:generateContent", gemini_body(tools=True, result=True))[2]
    )
    assert gemini_parts(out) == [{"text": "all done now"}]


# --- listings, 404, other methods, script options -------------------------------------------


def test_model_listings(server: ModelServer) -> None:
    for path in ("/v1/models", "/models"):
        status, _, raw = request(server, path, method="GET")
        assert status == 200
        out = json.loads(raw)
        assert out["object"] == "list"
        assert [m["id"] for m in out["data"]] == ["lab-model"]
    raw = request(server, "/v1/models", method="GET", headers={"anthropic-version": "2023-06-01"})[
        2
    ]
    assert [(m["type"], m["id"]) for m in json.loads(raw)["data"]] == [("model", "lab-model")]
    out = json.loads(request(server, "/v1beta/models", method="GET")[2])
    assert [m["name"] for m in out["models"]] == ["models/lab-model"]
    raw = request(server, "/v1/models", method="GET", headers={"x-goog-api-key": "k"})[2]
    assert [m["name"] for m in json.loads(raw)["models"]] == ["models/lab-model"]
    out = json.loads(request(server, "/v1/models/lab-model", method="GET")[2])
    assert (out["object"], out["id"]) == ("model", "lab-model")
    out = json.loads(request(server, "/v1beta/models/lab-model", method="GET")[2])
    assert out["name"] == "models/lab-model"
    assert [r["answered"] for r in records(server)] == ["list"] * 7


def test_unknown_route_is_404_and_recorded(server: ModelServer) -> None:
    status, headers, raw = request(server, "/v2/nothing", {"x": 1})
    assert status == 404
    assert int(headers["content-length"]) == len(raw)
    assert json.loads(raw)["error"]["type"] == "not_found_error"
    assert request(server, "/nope", method="GET")[0] == 404
    [first, second] = records(server)
    assert (first["path"], first["answered"], first["body"]) == ("/v2/nothing", "404", {"x": 1})
    assert (second["method"], second["answered"]) == ("GET", "404")


def test_head_and_options(server: ModelServer) -> None:
    status, headers, raw = request(server, "/v1/messages", method="HEAD")
    assert (status, raw, headers["content-length"]) == (200, b"", "0")
    status, headers, _ = request(server, "/v1/messages", method="OPTIONS")
    assert status == 204
    assert "POST" in headers["allow"]
    assert [r["method"] for r in records(server)] == ["HEAD", "OPTIONS"]


def test_keep_alive_connection_serves_several_json_requests(server: ModelServer) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=HANG)
    for _ in range(3):
        conn.request("GET", "/v1/models")
        resp = conn.getresponse()
        assert json.loads(resp.read())["data"][0]["id"] == "lab-model"
    conn.close()
    assert len(records(server)) == 3


def test_null_tool_call_always_answers_text(tmp_path: Path) -> None:
    srv, _ = serve({**SCRIPT, "tool_call": None}, tmp_path / "rec", lifetime=HANG)
    try:
        body = chat_body(tools=True, result=False, stream=False)
        out = json.loads(request(srv, "/v1/chat/completions", body)[2])
        assert out["choices"][0]["message"]["content"] == "all done now"
    finally:
        srv.stop()


def test_tool_calls_max(tmp_path: Path) -> None:
    srv, _ = serve({**SCRIPT, "tool_calls_max": 2}, tmp_path / "rec", lifetime=HANG)
    try:
        body = chat_body(tools=True, result=False, stream=False)
        reasons = [
            json.loads(request(srv, "/v1/chat/completions", body)[2])["choices"][0]["finish_reason"]
            for _ in range(3)
        ]
        assert reasons == ["tool_calls", "tool_calls", "stop"]
    finally:
        srv.stop()


# --- records --------------------------------------------------------------------------------


def test_records_every_request_in_order_with_keys_redacted(server: ModelServer) -> None:
    secret = "sk-lab-secret-value"
    headers = {
        "Authorization": f"Bearer {secret}",
        "x-api-key": secret,
        "api-key": secret,
        "x-goog-api-key": secret,
        "X-Trace": "kept",
    }
    request(
        server,
        "/v1/messages",
        anthropic_body(tools=True, result=False, stream=True),
        headers=headers,
    )
    request(
        server, f"{GEMINI}:generateContent?key={secret}", gemini_body(tools=False, result=False)
    )
    status, _, _ = request(
        server, "/v1/chat/completions", None, headers={"Content-Type": "text/plain"}
    )
    assert status == 200
    names = sorted(p.name for p in server.record_dir.iterdir())
    assert names == ["0001.json", "0002.json", "0003.json"]
    text = "".join((server.record_dir / n).read_text() for n in names)
    assert secret not in text
    first, second, third = records(server)
    assert first["method"] == "POST"
    assert first["path"] == "/v1/messages"
    assert first["answered"] == "tool_call"
    assert first["body"]["tools"] == ANTHROPIC_TOOLS
    lowered = {k.lower(): v for k, v in first["headers"].items()}
    for name in ("authorization", "x-api-key", "api-key", "x-goog-api-key"):
        assert lowered[name] == "<redacted>"
    assert lowered["x-trace"] == "kept"
    assert second["path"] == f"{GEMINI}:generateContent?key=<redacted>"
    assert second["answered"] == "final_text"
    assert third["body"] == ""


def test_non_json_body_is_recorded_as_text(server: ModelServer) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=HANG)
    conn.request(
        "POST", "/v1/responses", body=b"not json {", headers={"Content-Type": "text/plain"}
    )
    resp = conn.getresponse()
    resp.read()
    conn.close()
    assert resp.status == 200
    [rec] = records(server)
    assert rec["body"] == "not json {"
    assert rec["answered"] == "final_text"


def test_concurrent_requests_get_distinct_numbers(server: ModelServer) -> None:
    import threading

    body = chat_body(tools=False, result=False, stream=True)
    threads = [
        threading.Thread(target=request, args=(server, "/v1/chat/completions", body))
        for _ in range(8)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(HANG)
    names = sorted(p.name for p in server.record_dir.iterdir())
    assert names == [f"{n:04d}.json" for n in range(1, 9)]


# --- binding, lifetime, command line --------------------------------------------------------


def test_binds_loopback_only(server: ModelServer) -> None:
    assert server.server_address[0] == "127.0.0.1"
    assert server.socket.getsockname()[0] == "127.0.0.1"


def test_stops_on_its_own_after_lifetime(tmp_path: Path) -> None:
    srv, thread = serve(SCRIPT, tmp_path / "rec", lifetime=0.5)
    thread.join(HANG)
    assert not thread.is_alive()
    srv.server_close()
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", srv.port), timeout=HANG):
        pass


def start_cli(tmp_path: Path, lifetime: float) -> tuple[subprocess.Popen[bytes], Path]:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT))
    port_file = tmp_path / "ports" / "port"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "lab.model_server",
            "--script",
            str(script),
            "--record",
            str(tmp_path / "rec"),
            "--port-file",
            str(port_file),
            "--lifetime",
            str(lifetime),
        ],
        cwd=tmp_path,
        env=env,
    )
    deadline = time.monotonic() + HANG
    while not port_file.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert port_file.exists(), "port file never appeared"
    return proc, port_file


def test_cli_writes_port_file_serves_and_exits_after_lifetime(tmp_path: Path) -> None:
    proc, port_file = start_cli(tmp_path, lifetime=1.5)
    port = int(port_file.read_text())
    # Only the final file: the temporary one was renamed into place.
    assert sorted(p.name for p in port_file.parent.iterdir()) == ["port"]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=HANG)
    conn.request(
        "POST",
        "/v1/chat/completions",
        body=json.dumps(chat_body(tools=True, result=False, stream=False)),
    )
    out = json.loads(conn.getresponse().read())
    conn.close()
    assert out["choices"][0]["finish_reason"] == "tool_calls"
    assert proc.wait(HANG) == 0
    assert json.loads((tmp_path / "rec" / "0001.json").read_text())["answered"] == "tool_call"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_cli_exits_cleanly_on_signal(tmp_path: Path, signum: signal.Signals) -> None:
    proc, _ = start_cli(tmp_path, lifetime=HANG * 10)
    proc.send_signal(signum)
    assert proc.wait(HANG) == 0
