"""The conformance kit over JSON Lines: an adapter in any language, run as a child process."""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import IO, Any, Final

from .._generated.constants import HostDeclarationFields
from .._generated.models.native_response_schema import NativeResponse
from .._generated.models.tool_call_event_schema import ToolCallEvent
from .._generated.models.verdict_schema import Verdict
from ..adapters._protocol import Adapter
from ._common import ConformanceError, ConformanceReport, _show
from ._harness import _Run

__all__ = ["PROTOCOL_RULES", "ExecAdapter", "ExecFailure", "run_exec_conformance", "serve_adapter"]

PROTOCOL_RULES: Final[Mapping[str, str]] = MappingProxyType(
    {
        "exec-start": "The command starts.",
        "exec-crashed": "The adapter process stays alive until its stdin closes.",
        "exec-timeout": "Every request is answered within the timeout.",
        "exec-garbage": "Every answer is one JSON object on one line, with the request's id and the key its op names.",
        "exec-answer-shape": "A declaration, event or response answered has the contract's shape.",
    }
)
"""The rules of the external protocol itself (docs/adapter-authoring.md), beside the kit's RULES."""

# The declaration keys a child sends (hosts/<agent>.json's names; failure_exit_code is the
# protocol's flat form of failure_response.exit_code), each the adapter attribute of its name
# in capitals. The first five are required, as docs/adapter-authoring.md says.
_REQUIRED: Final = (
    HostDeclarationFields.AGENT,
    HostDeclarationFields.INTEGRATION_MODE,
    HostDeclarationFields.COVERAGE,
    HostDeclarationFields.UNRENDERED_FIELDS,
    HostDeclarationFields.NATIVE_ASK_TIER,
)
_DECLARATION: Final[Mapping[str, str]] = MappingProxyType(
    {
        key: key.upper()
        for key in (
            *_REQUIRED,
            HostDeclarationFields.NATIVE_EVENT_FOR,
            HostDeclarationFields.DEFAULT_BLOCK_REASON,
            "failure_exit_code",
            HostDeclarationFields.TOOL_ALIASES,
            HostDeclarationFields.EXIT_ZERO_BLOCK,
        )
    }
)
_ANSWER_KEY: Final[Mapping[str, str]] = MappingProxyType(
    {"declare": "declaration", "parse": "event", "render": "response"}
)
_STDERR_TAIL: Final = 2000


class ExecFailure(AssertionError):
    """The adapter process broke the protocol; the message names the protocol rule and the request."""

    def __init__(self, rule: str, detail: str) -> None:
        self.rule = rule
        self.detail = detail
        super().__init__(
            f"conformance protocol rule {rule!r} failed: {detail} (rule {rule}: {PROTOCOL_RULES[rule]})"
        )


class _Channel:
    """One child process and its JSON Lines pipes; the first failure sticks."""

    def __init__(self, command: Sequence[str], timeout: float) -> None:
        self.command = list(command)
        self.timeout = timeout
        self.failure: ExecFailure | None = None
        self.next_id = 0
        self.last = "no request"
        self.buffer = b""
        # Closed in close(): it outlives this method, so no with block (the child writes to it).
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115
        try:
            self.process = subprocess.Popen(
                self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr
            )
        except OSError as exc:
            self.stderr.close()
            raise ExecFailure("exec-start", f"cannot run {self.command!r}: {exc}") from exc

    def request(self, op: str, **fields: Any) -> Any:
        """Send one request and return the value under its answer key (raise ExecFailure, or ValueError on an error answer)."""
        if self.failure is not None:
            raise self.failure
        self.next_id += 1
        request = {"id": self.next_id, "op": op, **fields}
        what = self.last = f"request {op} #{self.next_id}"
        stdin = self.process.stdin
        assert stdin is not None
        try:
            stdin.write(json.dumps(request, ensure_ascii=False).encode("utf-8") + b"\n")
            stdin.flush()
        except OSError:
            self.fail("exec-crashed", f"{what}: the adapter closed its stdin ({self.ended()})")
        line = self.read_line(what)
        try:
            answer = json.loads(line)
        except ValueError:
            self.fail(
                "exec-garbage",
                f"{what}: answer {_show(line.decode('utf-8', 'replace'))} is not JSON",
            )
        if not isinstance(answer, dict) or answer.get("id") != self.next_id:
            self.fail(
                "exec-garbage",
                f"{what}: answer {_show(answer)} is not an object with id {self.next_id}",
            )
        if isinstance(answer.get("error"), str):
            raise ValueError(answer["error"])
        key = _ANSWER_KEY[op]
        if key not in answer:
            self.fail(
                "exec-garbage",
                f"{what}: answer {_show(answer)} has neither {key!r} nor a string 'error'",
            )
        return answer[key]

    def read_line(self, what: str) -> bytes:
        stdout = self.process.stdout
        assert stdout is not None
        deadline = time.monotonic() + self.timeout
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([stdout], [], [], max(left, 0))
            if not ready:
                if self.process.poll() is not None:
                    # Ended, but a process it started still holds stdout open: a crash all the same.
                    self.fail(
                        "exec-crashed",
                        f"{what}: the adapter ended without answering ({self.ended()})",
                    )
                self.fail("exec-timeout", f"{what}: no answer within {self.timeout:g} s")
            chunk = os.read(stdout.fileno(), 65536)
            if not chunk:
                self.fail(
                    "exec-crashed", f"{what}: the adapter ended without answering ({self.ended()})"
                )
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line

    def ended(self) -> str:
        try:
            code = self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return "still running"
        self.stderr.seek(0)
        tail = self.stderr.read().decode("utf-8", "replace")[-_STDERR_TAIL:].strip()
        return f"exit code {code}" + (f", stderr: {tail}" if tail else "")

    def fail(self, rule: str, detail: str) -> Any:
        self.failure = ExecFailure(rule, detail)
        raise self.failure

    def close(self) -> None:
        """Close stdin so the adapter ends, then make sure it has."""
        if self.process.stdin is not None:
            with contextlib.suppress(OSError):  # a child that died already closed its end
                self.process.stdin.close()
        try:
            # A hung child already had its timeout; one that answered ends as soon as stdin closes.
            self.process.wait(timeout=0 if self.failure is not None else 5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        self.stderr.close()


class ExecAdapter:
    """An Adapter whose parse, render and declarations are answered by a child process."""

    def __init__(self, channel: _Channel, options: Mapping[str, Any]) -> None:
        self.channel = channel
        self.options = dict(options)
        self.TOOL_ALIASES: Mapping[str, str] = MappingProxyType({})
        self.EXIT_ZERO_BLOCK = False
        try:
            declaration = channel.request("declare", options=self.options)
        except ValueError as exc:
            # Python adapters raise TypeError on an option they do not take; so does this one.
            raise TypeError(f"the adapter refused options {self.options!r}: {exc}") from exc
        if not isinstance(declaration, dict) or any(key not in declaration for key in _REQUIRED):
            channel.fail(
                "exec-answer-shape",
                f"{channel.last}: the declaration {_show(declaration)} needs at least"
                f" {', '.join(_REQUIRED)}",
            )
        for key, attribute in _DECLARATION.items():
            if key in declaration:
                setattr(self, attribute, _frozen(key, declaration[key]))

    @classmethod
    def start(cls, command: Sequence[str], timeout: float = 10.0) -> ExecAdapter:
        """Start the command and read its declaration (without options)."""
        channel = _Channel(command, timeout)
        try:
            return cls(channel, {})
        except BaseException:
            channel.close()
            raise

    def configure(self, **options: Any) -> ExecAdapter:
        """The same process, answering with these options on every request."""
        return ExecAdapter(self.channel, {**self.options, **options})

    def parse(self, native: object) -> ToolCallEvent:
        """Ask the child to parse a payload."""
        event = self.channel.request("parse", options=self.options, native=native)
        parsed: ToolCallEvent = self._model(ToolCallEvent, event, "event")
        return parsed

    def render(
        self, verdict: Verdict, event: ToolCallEvent, *, sole_gate: bool = False
    ) -> NativeResponse:
        """Ask the child to render a verdict for an event."""
        response = self.channel.request(
            "render",
            options=self.options,
            verdict=verdict.to_dict(),
            event=event.to_dict(),
            sole_gate=sole_gate,
        )
        rendered: NativeResponse = self._model(NativeResponse, response, "response")
        return rendered

    def _model(self, model: Any, value: object, what: str) -> Any:
        try:
            return model.from_dict(value)
        except (TypeError, ValueError) as exc:
            return self.channel.fail(
                "exec-answer-shape", f"{self.channel.last}: the {what} {_show(value)}: {exc}"
            )

    def close(self) -> None:
        """End the child process."""
        self.channel.close()


def _frozen(key: str, value: Any) -> Any:
    """A declaration value as a Python adapter holds it: read-only mappings, frozenset rows."""
    if key == "unrendered_fields" and isinstance(value, dict):
        return MappingProxyType(
            {k: frozenset(v) if isinstance(v, list) else v for k, v in value.items()}
        )
    if isinstance(value, dict):
        return MappingProxyType(value)
    return value


def run_exec_conformance(
    command: Sequence[str], fixtures: Mapping[str, Any], timeout: float = 10.0
) -> ConformanceReport:
    """Run the whole kit against an adapter process; raise ConformanceError or ExecFailure."""
    adapter = ExecAdapter.start(command, timeout)
    try:
        try:
            report = _Run(adapter, fixtures).run()  # type: ignore[arg-type]
        except (ConformanceError, TypeError, ValueError) as error:
            # The kit names what it saw (a parse that raised); the protocol failure is the cause.
            if adapter.channel.failure is not None:
                raise adapter.channel.failure from None
            raise error
        if adapter.channel.failure is not None:
            raise adapter.channel.failure
        return report
    finally:
        adapter.close()


def serve_adapter(adapter: Adapter, instream: IO[str], outstream: IO[str]) -> None:
    """Answer the protocol's requests for a Python adapter until instream ends (the reference server)."""
    configured: dict[str, Adapter] = {}
    for line in instream:
        request = json.loads(line)
        options = request.get("options") or {}
        answer: dict[str, Any] = {"id": request.get("id")}
        try:
            key = json.dumps(options, sort_keys=True)
            if key not in configured:
                configured[key] = adapter.configure(**options) if options else adapter
            target = configured[key]
            op = request["op"]
            if op == "declare":
                answer["declaration"] = declaration_of(target)
            elif op == "parse":
                answer["event"] = target.parse(request["native"]).to_dict()
            else:
                verdict = Verdict.from_dict(request["verdict"])
                event = ToolCallEvent.from_dict(request["event"])
                response = target.render(verdict, event, sole_gate=bool(request.get("sole_gate")))
                answer["response"] = response.to_dict()
        except Exception as exc:  # an adapter's own failure is an error answer, never a crash
            answer["error"] = f"{type(exc).__name__}: {exc}"
        outstream.write(json.dumps(answer, ensure_ascii=False) + "\n")
        outstream.flush()


def declaration_of(adapter: Adapter) -> dict[str, Any]:
    """The declaration answer for a Python adapter (rows as sorted lists)."""
    out: dict[str, Any] = {}
    for key, attribute in _DECLARATION.items():
        value = getattr(adapter, attribute, None)
        if isinstance(value, Mapping):
            value = {
                k: sorted(v) if isinstance(v, (set, frozenset)) else v for k, v in value.items()
            }
        if value is not None:
            out[key] = value
    return out
