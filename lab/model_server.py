"""Scripted mock model server for the real-host lab: Anthropic, OpenAI Chat/Responses and Gemini."""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import os
import signal
import sys
import threading
import time
import uuid
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import FrameType
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

__all__ = ["ModelServer", "Script", "main", "serve"]

# Loopback only: the lab runs hosts in a loopback-only namespace (docs/findings.md LAB-0).
HOST = "127.0.0.1"
DEFAULT_LIFETIME = 180.0
REDACTED = "<redacted>"
# Header names whose values are credentials; x-goog-api-key is what Gemini clients send.
_SECRET_HEADERS = frozenset({"authorization", "x-api-key", "api-key", "x-goog-api-key"})
_SECRET_QUERY = frozenset({"key", "api_key", "api-key"})

Json = dict[str, Any]
Event = tuple[str | None, Any]


@dataclass(frozen=True)
class Script:
    """What the mock model answers: at most tool_calls_max tool calls, otherwise final_text."""

    tool_name: str | None
    tool_arguments: Json
    final_text: str
    model: str
    tool_calls_max: int

    @classmethod
    def from_json(cls, raw: Json) -> Script:
        """Build a script from the SCRIPT.json object."""
        call = raw.get("tool_call")
        name: str | None = None
        arguments: Json = {}
        if call is not None:
            if not isinstance(call, dict) or not isinstance(call.get("name"), str):
                raise ValueError("tool_call must be null or an object with a string name")
            name = call["name"]
            arguments = dict(call.get("arguments") or {})
        return cls(
            tool_name=name,
            tool_arguments=arguments,
            final_text=str(raw.get("final_text", "done")),
            model=str(raw.get("model", "lab-model")),
            tool_calls_max=int(raw.get("tool_calls_max", 1)),
        )


def _new_id(prefix: str, length: int = 24) -> str:
    """Return a vendor-looking random id such as msg_0123abcd...."""
    return prefix + uuid.uuid4().hex[:length]


def _rough_tokens(value: Any) -> int:
    """Estimate a token count (about 4 characters a token) so usage fields look plausible."""
    return max(1, len(json.dumps(value, ensure_ascii=False)) // 4)


def _has_tools(tools: Any) -> bool:
    """Whether a request offers at least one tool (any API's list shape)."""
    return isinstance(tools, list) and len(tools) > 0


def _gemini_has_tools(tools: Any) -> bool:
    """Whether a Gemini request declares at least one function."""
    if not isinstance(tools, list):
        return False
    return any(isinstance(t, dict) and t.get("functionDeclarations") for t in tools)


def _dicts(value: Any) -> Iterator[Json]:
    """Yield the dict items of a list, skipping anything else."""
    if isinstance(value, list):
        for item in value:
            if isinstance(item, dict):
                yield item


def _anthropic_has_result(body: Json) -> bool:
    """Whether any message carries a tool_result content block."""
    return any(
        block.get("type") == "tool_result"
        for message in _dicts(body.get("messages"))
        for block in _dicts(message.get("content"))
    )


def _chat_has_result(body: Json) -> bool:
    """Whether any message is a tool (or legacy function) result."""
    return any(m.get("role") in ("tool", "function") for m in _dicts(body.get("messages")))


def _responses_has_result(body: Json) -> bool:
    """Whether the Responses input carries a function or custom tool call output item."""
    kinds = ("function_call_output", "custom_tool_call_output")
    return any(item.get("type") in kinds for item in _dicts(body.get("input")))


def _gemini_has_result(body: Json) -> bool:
    """Whether any content part is a functionResponse."""
    return any(
        "functionResponse" in part
        for content in _dicts(body.get("contents"))
        for part in _dicts(content.get("parts"))
    )


class ModelServer(ThreadingHTTPServer):
    """Threading HTTP server holding the script, the record folder and the tool-call budget."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, script: Script, record_dir: Path) -> None:
        """Bind 127.0.0.1 on a free port."""
        self.script = script
        self.record_dir = record_dir
        record_dir.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._numbers = itertools.count(1)
        self._tool_calls_left = script.tool_calls_max if script.tool_name is not None else 0
        self.timer: threading.Timer | None = None
        super().__init__((HOST, 0), LabHandler)

    @property
    def port(self) -> int:
        """The bound port."""
        return int(self.server_address[1])

    def next_number(self) -> int:
        """Return the next request number in arrival order."""
        with self._lock:
            return next(self._numbers)

    def take_tool_call(self, offers_tools: bool, has_result: bool) -> bool:
        """Decide whether this request gets the scripted tool call, spending the budget if so."""
        if not offers_tools or has_result:
            return False
        with self._lock:
            if self._tool_calls_left <= 0:
                return False
            self._tool_calls_left -= 1
            return True

    def record(self, number: int, entry: Json) -> None:
        """Write one request record atomically as NNNN.json."""
        final = self.record_dir / f"{number:04d}.json"
        tmp = final.with_name(f".{final.name}.tmp")
        tmp.write_text(json.dumps(entry, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        os.replace(tmp, final)

    def stop(self) -> None:
        """Stop serving and close the socket (idempotent)."""
        if self.timer is not None:
            self.timer.cancel()
        self.shutdown()
        self.server_close()


class LabHandler(BaseHTTPRequestHandler):
    """One request: parse, decide tool call or final text, record, answer in the API's shape."""

    # HTTP/1.1 so JSON answers keep the connection alive (Content-Length); SSE answers close it.
    protocol_version = "HTTP/1.1"
    server: ModelServer
    # NB: no attribute named `responses` here; it would shadow BaseHTTPRequestHandler.responses
    # and every answer would become a 500 (docs/findings.md LAB-0, mock pitfall).

    def log_message(self, format: str, *args: Any) -> None:
        """Keep the lab's stderr quiet; the records are the log."""

    # --- request plumbing -------------------------------------------------------------------

    def _read_body(self) -> bytes:
        """Read the request body (Content-Length or chunked), undoing gzip/deflate."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            data = bytearray()
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                data += self.rfile.read(size)
                self.rfile.readline()
            raw = bytes(data)
        else:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length > 0 else b""
        encoding = self.headers.get("Content-Encoding", "").lower()
        try:
            if encoding == "gzip":
                return gzip.decompress(raw)
            if encoding == "deflate":
                return zlib.decompress(raw)
        except (OSError, zlib.error):
            return raw
        return raw

    def _recorded_path(self) -> str:
        """The request path with credential query values redacted."""
        parts = urlsplit(self.path)
        if not parts.query:
            return self.path
        query = [
            (k, REDACTED if k.lower() in _SECRET_QUERY else v)
            for k, v in parse_qsl(parts.query, keep_blank_values=True)
        ]
        return urlunsplit(parts._replace(query=urlencode(query, safe="<>")))

    def _headers(self) -> dict[str, str]:
        """All request headers, with credential values redacted."""
        out: dict[str, str] = {}
        for name, value in self.headers.items():
            out[name] = REDACTED if name.lower() in _SECRET_HEADERS else value
        return out

    def _handle(self) -> None:
        """Dispatch one request of any method."""
        number = self.server.next_number()
        raw = self._read_body() if self.command not in ("GET", "HEAD") else b""
        text = raw.decode("utf-8", errors="replace")
        body: Any = text
        if raw:
            try:
                body = json.loads(text)
            except ValueError:
                body = text
        answer = self._route(body if isinstance(body, dict) else {})
        self.server.record(
            number,
            {
                "method": self.command,
                "path": self._recorded_path(),
                "headers": self._headers(),
                "body": body,
                "answered": answer.kind,
            },
        )
        answer.send(self)

    do_GET = _handle
    do_POST = _handle
    do_PUT = _handle
    do_DELETE = _handle
    do_PATCH = _handle

    def do_HEAD(self) -> None:
        """Answer HEAD with headers only (recorded like any request)."""
        number = self.server.next_number()
        self.server.record(
            number,
            {
                "method": "HEAD",
                "path": self._recorded_path(),
                "headers": self._headers(),
                "body": "",
                "answered": "list",
            },
        )
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_OPTIONS(self) -> None:
        """Answer a CORS preflight permissively (recorded like any request)."""
        number = self.server.next_number()
        self.server.record(
            number,
            {
                "method": "OPTIONS",
                "path": self._recorded_path(),
                "headers": self._headers(),
                "body": "",
                "answered": "list",
            },
        )
        self.send_response(204)
        self.send_header("Allow", "GET, POST, HEAD, OPTIONS")
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Access-Control-Allow-Methods", "GET, POST, HEAD, OPTIONS")
        self.send_header("Access-Control-Allow-Headers", "*")
        self.send_header("Content-Length", "0")
        self.end_headers()

    # --- routing ----------------------------------------------------------------------------

    def _route(self, body: Json) -> Answer:
        """Pick the API from method and path and build its answer."""
        path = urlsplit(self.path).path.rstrip("/") or "/"
        query = dict(parse_qsl(urlsplit(self.path).query))
        script = self.server.script
        if self.command == "GET":
            if path in ("/v1/models", "/models"):
                return _json_answer("list", 200, self._model_list(script.model))
            if path == "/v1beta/models":
                return _json_answer("list", 200, _gemini_models(script.model))
            if path.startswith(("/v1/models/", "/models/")):
                return _json_answer("list", 200, _openai_model(path.rsplit("/", 1)[1]))
            if path.startswith("/v1beta/models/"):
                return _json_answer("list", 200, _gemini_model(path.rsplit("/", 1)[1]))
            return _not_found(path)
        if self.command != "POST":
            return _not_found(path)
        if path == "/v1/messages/count_tokens":
            return _json_answer("final_text", 200, {"input_tokens": _rough_tokens(body)})
        if path == "/v1/messages":
            tool = self.server.take_tool_call(
                _has_tools(body.get("tools")), _anthropic_has_result(body)
            )
            return _anthropic(script, body, tool)
        if path in ("/v1/chat/completions", "/chat/completions"):
            tool = self.server.take_tool_call(_has_tools(body.get("tools")), _chat_has_result(body))
            return _chat(script, body, tool)
        if path in ("/v1/responses", "/responses"):
            tool = self.server.take_tool_call(
                _has_tools(body.get("tools")), _responses_has_result(body)
            )
            return _responses(script, body, tool)
        if path.startswith(("/v1beta/models/", "/v1/models/")) and ":" in path:
            model, method = path.rsplit("/", 1)[1].split(":", 1)
            if method == "countTokens":
                return _json_answer("final_text", 200, {"totalTokens": _rough_tokens(body)})
            if method in ("generateContent", "streamGenerateContent"):
                tool = self.server.take_tool_call(
                    _gemini_has_tools(body.get("tools")), _gemini_has_result(body)
                )
                sse = method == "streamGenerateContent" and query.get("alt") == "sse"
                array = method == "streamGenerateContent" and not sse
                return _gemini(script, body, model, tool, sse=sse, array=array)
        return _not_found(path)

    def _model_list(self, model: str) -> Json:
        """The GET /v1/models listing in the shape of the API whose client is asking."""
        # Gemini clients send their key header (or ?key=) and x-goog-api-client; google-genai
        # lists /v1/models when its api_version is v1.
        goog = self.headers.get("x-goog-api-key") or self.headers.get("x-goog-api-client")
        if goog or "key" in dict(parse_qsl(urlsplit(self.path).query)):
            return _gemini_models(model)
        # Anthropic clients send anthropic-version; OpenAI clients do not.
        if self.headers.get("anthropic-version"):
            entry = {
                "type": "model",
                "id": model,
                "display_name": model,
                "created_at": "2025-01-01T00:00:00Z",
            }
            return {"data": [entry], "has_more": False, "first_id": model, "last_id": model}
        return {"object": "list", "data": [_openai_model(model)]}


# --- answers --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    """A ready answer: JSON with Content-Length, or a list of SSE events closing the connection."""

    kind: str
    status: int
    payload: Any = None
    events: tuple[Event, ...] | None = None

    def send(self, handler: BaseHTTPRequestHandler) -> None:
        """Write the answer to the client, flushing each SSE event."""
        if self.events is None:
            data = json.dumps(self.payload, ensure_ascii=False).encode("utf-8")
            handler.send_response(self.status)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(data)))
            handler.end_headers()
            handler.wfile.write(data)
            handler.wfile.flush()
            return
        # SSE bodies end at EOF, so close the connection: readers to EOF and incremental SSE
        # parsers both see a complete stream.
        handler.close_connection = True
        handler.send_response(self.status)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Cache-Control", "no-cache")
        handler.send_header("Connection", "close")
        handler.end_headers()
        for name, data_obj in self.events:
            chunk = "" if name is None else f"event: {name}\n"
            data_text = data_obj if isinstance(data_obj, str) else json.dumps(data_obj)
            chunk += f"data: {data_text}\n\n"
            handler.wfile.write(chunk.encode("utf-8"))
            handler.wfile.flush()


def _json_answer(kind: str, status: int, payload: Any) -> Answer:
    """A JSON answer."""
    return Answer(kind=kind, status=status, payload=payload)


def _not_found(path: str) -> Answer:
    """A 404 JSON error in a shape every client can print."""
    message = f"no route for {path}"
    return _json_answer(
        "404", 404, {"type": "error", "error": {"type": "not_found_error", "message": message}}
    )


def _kind(tool: bool) -> str:
    """The record's answered value."""
    return "tool_call" if tool else "final_text"


def _openai_model(model: str) -> Json:
    """An OpenAI model object."""
    return {"id": model, "object": "model", "created": 1735689600, "owned_by": "lab"}


def _gemini_model(model: str) -> Json:
    """A Gemini model object."""
    name = model if model.startswith("models/") else f"models/{model}"
    return {
        "name": name,
        "version": "001",
        "displayName": model,
        "inputTokenLimit": 1048576,
        "outputTokenLimit": 65536,
        "supportedGenerationMethods": ["generateContent", "streamGenerateContent", "countTokens"],
    }


def _gemini_models(model: str) -> Json:
    """A Gemini model listing."""
    return {"models": [_gemini_model(model)]}


def _request_model(body: Json, script: Script) -> str:
    """Echo the model the client asked for (clients check it), else the script's id."""
    model = body.get("model")
    return model if isinstance(model, str) and model else script.model


def _anthropic(script: Script, body: Json, tool: bool) -> Answer:
    """Anthropic Messages answer (SSE when stream is true)."""
    model = _request_model(body, script)
    input_tokens = _rough_tokens(body.get("messages"))
    usage_in = {
        "input_tokens": input_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": 1,
        "service_tier": "standard",
    }
    if tool:
        assert script.tool_name is not None
        arguments = json.dumps(script.tool_arguments, ensure_ascii=False)
        tool_id = _new_id("toolu_")
        block: Json = {"type": "tool_use", "id": tool_id, "name": script.tool_name, "input": {}}
        final_block: Json = {**block, "input": script.tool_arguments}
        stop = "tool_use"
        output_tokens = _rough_tokens(script.tool_arguments)
    else:
        arguments = script.final_text
        block = {"type": "text", "text": ""}
        final_block = {"type": "text", "text": script.final_text}
        stop = "end_turn"
        output_tokens = _rough_tokens(script.final_text)
    message: Json = {
        "id": _new_id("msg_"),
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage_in,
    }
    if body.get("stream") is not True:
        done = {
            **message,
            "content": [final_block],
            "stop_reason": stop,
            "usage": {**usage_in, "output_tokens": output_tokens},
        }
        return _json_answer(_kind(tool), 200, done)
    events: list[Event] = [
        ("message_start", {"type": "message_start", "message": message}),
        (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": block},
        ),
        ("ping", {"type": "ping"}),
    ]
    for piece in _pieces(arguments):
        delta = (
            {"type": "input_json_delta", "partial_json": piece}
            if tool
            else {"type": "text_delta", "text": piece}
        )
        events.append(
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta})
        )
    events += [
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": output_tokens},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return Answer(kind=_kind(tool), status=200, events=tuple(events))


def _pieces(text: str, parts: int = 3) -> list[str]:
    """Split text into a few non-empty pieces, so clients must join streamed deltas."""
    if len(text) < parts:
        return [text]
    size = -(-len(text) // parts)
    return [text[i : i + size] for i in range(0, len(text), size)]


def _chat(script: Script, body: Json, tool: bool) -> Answer:
    """OpenAI Chat Completions answer (SSE chunks when stream is true)."""
    model = _request_model(body, script)
    completion_id = _new_id("chatcmpl-")
    created = int(time.time())
    prompt_tokens = _rough_tokens(body.get("messages"))
    if tool:
        assert script.tool_name is not None
        arguments = json.dumps(script.tool_arguments, ensure_ascii=False)
        call_id = _new_id("call_")
        completion_tokens = _rough_tokens(arguments)
        finish = "tool_calls"
    else:
        arguments = ""
        call_id = ""
        completion_tokens = _rough_tokens(script.final_text)
        finish = "stop"
    usage = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }
    if body.get("stream") is not True:
        msg: Json = {"role": "assistant", "content": None if tool else script.final_text}
        if tool:
            msg["tool_calls"] = [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": script.tool_name, "arguments": arguments},
                }
            ]
        return _json_answer(
            _kind(tool),
            200,
            {
                "id": completion_id,
                "object": "chat.completion",
                "created": created,
                "model": model,
                "choices": [
                    {"index": 0, "message": msg, "finish_reason": finish, "logprobs": None}
                ],
                "usage": usage,
            },
        )

    def chunk(delta: Json, finish_reason: str | None) -> Json:
        choice = {"index": 0, "delta": delta, "finish_reason": finish_reason, "logprobs": None}
        return {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": [choice],
        }

    events: list[Event] = []
    if tool:
        first = {
            "index": 0,
            "id": call_id,
            "type": "function",
            "function": {"name": script.tool_name, "arguments": ""},
        }
        events.append(
            (None, chunk({"role": "assistant", "content": None, "tool_calls": [first]}, None))
        )
        for piece in _pieces(arguments):
            more = {"index": 0, "function": {"arguments": piece}}
            events.append((None, chunk({"tool_calls": [more]}, None)))
    else:
        events.append((None, chunk({"role": "assistant", "content": ""}, None)))
        for piece in _pieces(script.final_text):
            events.append((None, chunk({"content": piece}, None)))
    events.append((None, chunk({}, finish)))
    options = body.get("stream_options")
    if isinstance(options, dict) and options.get("include_usage") is True:
        last = {**chunk({}, None), "choices": [], "usage": usage}
        events.append((None, last))
    events.append((None, "[DONE]"))
    return Answer(kind=_kind(tool), status=200, events=tuple(events))


def _responses(script: Script, body: Json, tool: bool) -> Answer:
    """OpenAI Responses answer (typed SSE events when stream is true)."""
    model = _request_model(body, script)
    input_tokens = _rough_tokens(body.get("input"))
    if tool:
        assert script.tool_name is not None
        arguments = json.dumps(script.tool_arguments, ensure_ascii=False)
        item_id = _new_id("fc_", 32)
        done_item: Json = {
            "type": "function_call",
            "id": item_id,
            "call_id": _new_id("call_"),
            "name": script.tool_name,
            "arguments": arguments,
            "status": "completed",
        }
        output_tokens = _rough_tokens(arguments)
    else:
        item_id = _new_id("msg_", 32)
        part = {"type": "output_text", "text": script.final_text, "annotations": []}
        done_item = {
            "type": "message",
            "id": item_id,
            "status": "completed",
            "role": "assistant",
            "content": [part],
        }
        output_tokens = _rough_tokens(script.final_text)
    usage = {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": input_tokens + output_tokens,
    }
    response: Json = {
        "id": _new_id("resp_", 32),
        "object": "response",
        "created_at": int(time.time()),
        "status": "in_progress",
        "error": None,
        "incomplete_details": None,
        "model": model,
        "output": [],
        "parallel_tool_calls": True,
        "tool_choice": body.get("tool_choice", "auto"),
        "tools": body.get("tools", []),
        "usage": None,
    }
    completed = {**response, "status": "completed", "output": [done_item], "usage": usage}
    if body.get("stream") is not True:
        return _json_answer(_kind(tool), 200, completed)

    counter = itertools.count()
    events: list[Event] = []

    def add(kind: str, **fields: Any) -> None:
        events.append((kind, {"type": kind, "sequence_number": next(counter), **fields}))

    add("response.created", response=response)
    add("response.in_progress", response=response)
    if tool:
        added = {**done_item, "arguments": "", "status": "in_progress"}
        add("response.output_item.added", output_index=0, item=added)
        for piece in _pieces(arguments):
            add(
                "response.function_call_arguments.delta",
                item_id=item_id,
                output_index=0,
                delta=piece,
            )
        add(
            "response.function_call_arguments.done",
            item_id=item_id,
            output_index=0,
            arguments=arguments,
        )
    else:
        added = {**done_item, "status": "in_progress", "content": []}
        add("response.output_item.added", output_index=0, item=added)
        where: Json = {"item_id": item_id, "output_index": 0, "content_index": 0}
        empty = {"type": "output_text", "text": "", "annotations": []}
        add("response.content_part.added", **where, part=empty)
        for piece in _pieces(script.final_text):
            add("response.output_text.delta", **where, delta=piece, logprobs=[])
        add("response.output_text.done", **where, text=script.final_text, logprobs=[])
        add("response.content_part.done", **where, part=done_item["content"][0])
    add("response.output_item.done", output_index=0, item=done_item)
    add("response.completed", response=completed)
    return Answer(kind=_kind(tool), status=200, events=tuple(events))


def _gemini(
    script: Script, body: Json, model: str, tool: bool, *, sse: bool, array: bool
) -> Answer:
    """Gemini generateContent / streamGenerateContent answer."""
    if tool:
        assert script.tool_name is not None
        part: Json = {"functionCall": {"name": script.tool_name, "args": script.tool_arguments}}
        candidates_tokens = _rough_tokens(script.tool_arguments)
    else:
        part = {"text": script.final_text}
        candidates_tokens = _rough_tokens(script.final_text)
    prompt_tokens = _rough_tokens(body.get("contents"))
    payload = {
        "candidates": [
            {
                "content": {"role": "model", "parts": [part]},
                "finishReason": "STOP",
                "index": 0,
            }
        ],
        "usageMetadata": {
            "promptTokenCount": prompt_tokens,
            "candidatesTokenCount": candidates_tokens,
            "totalTokenCount": prompt_tokens + candidates_tokens,
        },
        "modelVersion": model or script.model,
        "responseId": _new_id("", 22),
    }
    if sse:
        return Answer(kind=_kind(tool), status=200, events=((None, payload),))
    # streamGenerateContent without alt=sse answers a JSON array of chunks.
    return _json_answer(_kind(tool), 200, [payload] if array else payload)


# --- running --------------------------------------------------------------------------------


def serve(
    script: Json | Script, record_dir: Path, lifetime: float = DEFAULT_LIFETIME
) -> tuple[ModelServer, threading.Thread]:
    """Start the server in a background thread; it shuts itself down after lifetime seconds."""
    parsed = script if isinstance(script, Script) else Script.from_json(script)
    server = ModelServer(parsed, Path(record_dir))
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.1}, name="lab-model-server"
    )
    thread.daemon = True
    thread.start()
    timer = threading.Timer(lifetime, server.shutdown)
    timer.daemon = True
    timer.start()
    server.timer = timer
    return server, thread


def _write_port_file(path: Path, port: int) -> None:
    """Write the port number atomically (tmp file in the same folder, then rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(f"{port}\n", encoding="ascii")
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> int:
    """Command line: serve SCRIPT.json, record to DIR, write the port to FILE, stop after lifetime."""
    parser = argparse.ArgumentParser(prog="python -m lab.model_server", description=__doc__)
    parser.add_argument("--script", type=Path, required=True)
    parser.add_argument("--record", type=Path, required=True)
    parser.add_argument("--port-file", type=Path, required=True)
    parser.add_argument("--lifetime", type=float, default=DEFAULT_LIFETIME)
    args = parser.parse_args(argv)
    script = Script.from_json(json.loads(args.script.read_text(encoding="utf-8")))
    server, thread = serve(script, args.record, args.lifetime)
    stopping = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stopping.set()

    previous: dict[int, Callable[[int, FrameType | None], Any] | int | None] = {}
    for sig in (signal.SIGTERM, signal.SIGINT):
        previous[sig] = signal.signal(sig, on_signal)
    try:
        _write_port_file(args.port_file, server.port)
        while thread.is_alive() and not stopping.is_set():
            stopping.wait(0.2)
    finally:
        server.stop()
        thread.join(5)
        for number, handler in previous.items():
            signal.signal(number, handler)
    return 0


if __name__ == "__main__":
    sys.exit(main())
