"""acp serve: a resident hook server on 127.0.0.1 or a Unix socket; the judge loads once (issue 30)."""

from __future__ import annotations

import os
import selectors
import socket
import sys
import time

from ._generated.hosts import HOST_IDS
from ._judges import JudgeLoadError
from ._model_base import ABSENT
from .contract import json_bytes
from .runtime import (
    FAIL_CLOSED_ENV,
    JUDGE_ENV,
    POLICY_ENV,
    SOLE_GATE_ENV,
    _fail_closed,
    _flag,
    entry_adapter,
    judge_from_env,
    render_hook_response,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any, Final

__all__ = ["DEFAULT_PORT", "HOOK_PATH", "HookServer", "JudgeSource"]

DEFAULT_PORT: Final = 47300
HOOK_PATH: Final = "/hook/"  # POST /hook/<host>: the host's own payload, its own answer back
HEALTH_PATH: Final = "/health"
# Per-request memory is bounded: a connection holds at most one request's head and body, and
# at most MAX_CONNECTIONS are open (a host keeps one alive per session; subagents add a few).
MAX_HEAD_BYTES: Final = 16 * 1024
MAX_BODY_BYTES: Final = 4 * 1024 * 1024
MAX_CONNECTIONS: Final = 128
IDLE_SECONDS: Final = 120.0
_REASONS: Final = {
    200: "OK",
    400: "Bad Request",
    404: "Not Found",
    405: "Method Not Allowed",
    411: "Length Required",
    413: "Content Too Large",
    431: "Request Header Fields Too Large",
    500: "Internal Server Error",
    503: "Service Unavailable",
}


class JudgeSource:
    """The configured judge, loaded again when its rule file or module changes on disk."""

    def __init__(self, environ: Mapping[str, str]) -> None:
        self.environ = dict(environ)
        self._key: object = None
        self._judge: Callable[[Any], Any] | None = None
        self._error: str | None = None
        self._module: Any = None

    def _watched(self) -> str | None:
        """The file whose status decides a reload: the rule file, or the judge's module."""
        policy = self.environ.get(POLICY_ENV)
        if policy:
            return policy
        module = self._module
        return getattr(module, "__file__", None) if module is not None else None

    def _status(self) -> object:
        path = self._watched()
        if path is None:
            return None
        try:
            status = os.stat(path)
        except OSError as exc:
            return ("missing", exc.errno)
        # ctime too: a file restored with its old mtime still changes it (as policy._stat_key).
        return (status.st_mtime_ns, status.st_ctime_ns, status.st_size, status.st_ino)

    def current(self) -> Callable[[Any], Any]:
        """The judge for this request; raises JudgeLoadError while the configuration is broken."""
        key = self._status()
        if self._key is None or key != self._key:
            self._load()
            self._key = self._status()
        if self._judge is None:
            raise JudgeLoadError(self._error or "no judge")
        return self._judge

    def _load(self) -> None:
        spec = self.environ.get(JUDGE_ENV)
        try:
            if self._module is not None and spec and not self.environ.get(POLICY_ENV):
                import importlib

                self._module = importlib.reload(self._module)
                self._judge = getattr(self._module, spec.partition(":")[2])
            else:
                self._judge = judge_from_env(self.environ)
                name = spec.partition(":")[0] if spec else ""
                self._module = sys.modules.get(name) if name else None
            self._error = None
        except (JudgeLoadError, ImportError, AttributeError, SyntaxError) as exc:
            self._judge, self._error = None, f"{type(exc).__name__}: {exc}"


class _Connection:
    __slots__ = ("inbox", "last", "outbox", "sock")

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.inbox = bytearray()
        self.outbox = bytearray()
        self.last = time.monotonic()


class HookServer:
    """A single-threaded selectors loop: HTTP/1.1 keep-alive, one judged request at a time."""

    def __init__(self, source: JudgeSource, listener: socket.socket) -> None:
        self.source = source
        self.listener = listener
        self.selector = selectors.DefaultSelector()
        self.connections: dict[int, _Connection] = {}
        self._adapters: dict[str, Any] = {}
        environ = source.environ
        self._fail_closed = _fail_closed(environ)
        self._sole_gate = _flag(environ, SOLE_GATE_ENV, None, when_unclear=False)
        self._stop = False
        listener.setblocking(False)
        self.selector.register(listener, selectors.EVENT_READ, None)

    def stop(self) -> None:
        """Ask the loop to end after the current round."""
        self._stop = True

    def serve(self, rounds: int | None = None) -> None:
        """Answer requests until stop() (or for a number of select rounds, for tests)."""
        done = 0
        while not self._stop and (rounds is None or done < rounds):
            done += 1
            for key, mask in self.selector.select(timeout=1.0):
                if key.data is None:
                    self._accept()
                    continue
                connection = key.data
                if mask & selectors.EVENT_READ:
                    self._read(connection)
                if mask & selectors.EVENT_WRITE and connection.sock.fileno() >= 0:
                    self._flush(connection)
            self._close_idle()

    def _accept(self) -> None:
        while True:
            try:
                sock, _ = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                return  # out of descriptors: the waiting client is refused, and retries
            if len(self.connections) >= MAX_CONNECTIONS:
                sock.close()
                continue
            sock.setblocking(False)
            if sock.family != socket.AF_UNIX:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            connection = _Connection(sock)
            self.connections[sock.fileno()] = connection
            self.selector.register(sock, selectors.EVENT_READ, connection)

    def _close(self, connection: _Connection) -> None:
        fileno = connection.sock.fileno()
        if fileno >= 0:
            self.connections.pop(fileno, None)
            self.selector.unregister(connection.sock)
        connection.sock.close()

    def _close_idle(self) -> None:
        limit = time.monotonic() - IDLE_SECONDS
        for connection in [c for c in self.connections.values() if c.last < limit]:
            self._close(connection)

    def _read(self, connection: _Connection) -> None:
        try:
            data = connection.sock.recv(65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self._close(connection)
            return
        connection.last = time.monotonic()
        connection.inbox += data
        while connection.sock.fileno() >= 0 and self._one_request(connection):
            pass

    def _one_request(self, connection: _Connection) -> bool:
        """Answer the first complete request in the inbox; False when it is not complete yet."""
        inbox = connection.inbox
        end = inbox.find(b"\r\n\r\n")
        if end < 0:
            if len(inbox) > MAX_HEAD_BYTES:
                self._send(connection, 431, b"request head too large", close=True)
            return False
        if end > MAX_HEAD_BYTES:
            self._send(connection, 431, b"request head too large", close=True)
            return False
        lines = bytes(inbox[:end]).decode("latin-1").split("\r\n")
        parts = lines[0].split(" ")
        if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
            self._send(connection, 400, b"not an HTTP/1.x request", close=True)
            return False
        method, target, version = parts
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if "transfer-encoding" in headers:
            self._send(connection, 411, b"send a Content-Length body", close=True)
            return False
        try:
            length = int(headers.get("content-length", "0"))
        except ValueError:
            length = -1
        if length < 0 or length > MAX_BODY_BYTES:
            self._send(connection, 413, b"body over the server's limit", close=True)
            return False
        if len(inbox) < end + 4 + length:
            if headers.get("expect", "").lower() == "100-continue" and len(inbox) == end + 4:
                connection.sock.send(b"HTTP/1.1 100 Continue\r\n\r\n")
            return False
        body = bytes(inbox[end + 4 : end + 4 + length])
        del inbox[: end + 4 + length]
        close = headers.get("connection", "").lower() == "close" or (
            version == "HTTP/1.0" and headers.get("connection", "").lower() != "keep-alive"
        )
        status, answer = self.answer(method, target, body)
        self._send(connection, status, answer, close=close)
        return True

    def answer(self, method: str, target: str, body: bytes) -> tuple[int, bytes]:
        """The status and body for one request; the request only ever names a declared host."""
        path = target.partition("?")[0]
        if path == HEALTH_PATH and method in ("GET", "HEAD"):
            return 200, b"ok"
        host = path[len(HOOK_PATH) :] if path.startswith(HOOK_PATH) else None
        if host not in HOST_IDS:
            return 404, b"POST /hook/<host> with a declared host id"
        if method != "POST":
            return 405, b"POST the hook payload"
        try:
            judge = self.source.current()
        except JudgeLoadError as exc:
            # No verdict can be given: a failure, which the host blocks on when its hook entry
            # says onFailure "block" (acp install --resident writes that where the host has it).
            return 503, f"acp serve: the judge does not load ({exc})".encode()
        adapter = self._adapters.get(host)
        if adapter is None:
            adapter = self._adapters[host] = entry_adapter(host, self.source.environ)
        response = render_hook_response(
            adapter,
            body.decode("utf-8", "replace"),
            judge,
            sole_gate=self._sole_gate,
            fail_closed=self._fail_closed,
            environ=self.source.environ,
        )
        if response.stdout is not ABSENT:
            return 200, json_bytes(response.stdout)
        if response.exit_code == 0:
            return 200, b""
        # A block carried only by the exit code and stderr: HTTP has neither, so it is answered
        # as a failure (a non-2xx status), which blocks under onFailure "block".
        reason = "" if response.stderr is ABSENT else str(response.stderr)
        return 500, reason.encode("utf-8", "replace")

    def _send(self, connection: _Connection, status: int, body: bytes, *, close: bool) -> None:
        kind = b"application/json" if body[:1] == b"{" else b"text/plain; charset=utf-8"
        head = (
            f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}\r\n"
            f"Content-Length: {len(body)}\r\n"
            f"{'Connection: close' if close else 'Connection: keep-alive'}\r\n"
        ).encode("ascii")
        connection.outbox += head + b"Content-Type: " + kind + b"\r\n\r\n" + body
        self._flush(connection)
        if close:
            if connection.outbox:
                connection.inbox.clear()
            self._close(connection)

    def _flush(self, connection: _Connection) -> None:
        try:
            sent = connection.sock.send(connection.outbox)
        except (BlockingIOError, InterruptedError):
            sent = 0
        except OSError:
            self._close(connection)
            return
        del connection.outbox[:sent]
        wanted = selectors.EVENT_READ | (selectors.EVENT_WRITE if connection.outbox else 0)
        self.selector.modify(connection.sock, wanted, connection)


def listen(port: int | None = None, unix: str | None = None) -> socket.socket:
    """A listening socket on 127.0.0.1 (never another address) or on a Unix socket path."""
    if unix is not None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        if os.path.exists(unix):
            os.unlink(unix)
        old = os.umask(0o177)  # the socket file is the user's alone (0600)
        try:
            sock.bind(unix)
        finally:
            os.umask(old)
    else:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", DEFAULT_PORT if port is None else port))
    sock.listen(128)
    return sock


def serve_main(
    *,
    port: int | None,
    unix: str | None,
    policy: str | None,
    judge: str | None,
    fail_closed: bool,
    environ: Mapping[str, str] | None = None,
) -> int:
    """Run the server in the foreground until SIGINT or SIGTERM."""
    import signal

    env = dict(os.environ if environ is None else environ)
    if policy is not None:
        env[POLICY_ENV] = os.path.abspath(policy)
    if judge is not None:
        env[JUDGE_ENV] = judge
    if fail_closed:
        env[FAIL_CLOSED_ENV] = "1"
    source = JudgeSource(env)
    try:
        source.current()
    except JudgeLoadError as exc:
        print(f"acp serve: {exc}", file=sys.stderr)
        return 2
    try:
        listener = listen(port, unix)
    except OSError as exc:
        print(f"acp serve: cannot listen ({exc})", file=sys.stderr)
        return 2
    server = HookServer(source, listener)
    signal.signal(signal.SIGTERM, lambda *_: server.stop())
    where = unix if unix is not None else f"http://127.0.0.1:{listener.getsockname()[1]}"
    print(f"acp serve: listening on {where} (POST {HOOK_PATH}<host>)", file=sys.stderr, flush=True)
    try:
        server.serve()
    except KeyboardInterrupt:
        pass
    finally:
        listener.close()
        if unix is not None and os.path.exists(unix):
            os.unlink(unix)
    return 0
