"""acp serve: the resident hook server answers as the hook entry does, and reloads on change."""

from __future__ import annotations

import http.client
import json
import os
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_control_plane_core import _serve, policy
from agent_control_plane_core._serve import HookServer, JudgeSource, listen, serve_main
from agent_control_plane_core.cli import main

RULE = '[[rules]]\nname = "no-rm"\ndecision = "deny"\ntools = ["Bash"]\nmatch = "rm -rf"\nreason = "{}"\n'


def _payload(command: str) -> bytes:
    call = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "session_id": "s", "cwd": "/w"}
    return json.dumps({**call, "tool_input": {"command": command}}).encode()


@pytest.fixture
def rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A rule file, with the per-user cache under tmp_path (as test_policy_cache sets it up)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(policy, "_agent_writable", lambda environ: [str(tmp_path / "project")])
    path = tmp_path / "rules.toml"
    path.write_text(RULE.format("first"), encoding="utf-8")
    return path


class Running:
    """A HookServer on a free 127.0.0.1 port, in a thread."""

    def __init__(self, environ: dict[str, str]) -> None:
        self.server = HookServer(JudgeSource(environ), listen(0))
        self.port = self.server.listener.getsockname()[1]
        self.thread = threading.Thread(target=self.server.serve, daemon=True)
        self.thread.start()

    def post(
        self, body: bytes, path: str = "/hook/claude", method: str = "POST"
    ) -> tuple[int, bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        connection.request(method, path, body=body)
        response = connection.getresponse()
        answer = response.status, response.read()
        connection.close()
        return answer

    def raw(self, data: bytes) -> bytes:
        with socket.create_connection(("127.0.0.1", self.port), timeout=10) as sock:
            sock.sendall(data)
            out = b""
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    return out
                out += chunk

    def close(self) -> None:
        self.server.stop()
        self.thread.join(timeout=5)
        self.server.listener.close()


@pytest.fixture
def served(rules: Path) -> Iterator[Running]:
    running = Running({"ACP_POLICY": str(rules)})
    yield running
    running.close()


def _reason(body: bytes) -> str:
    return str(json.loads(body)["hookSpecificOutput"].get("permissionDecisionReason", ""))


def _touch(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    stamp = time.time_ns() + 10_000_000_000
    os.utime(path, ns=(stamp, stamp))


def test_a_deny_and_an_allow_as_the_hook_entry_answers(served: Running) -> None:
    status, body = served.post(_payload("rm -rf /"))
    assert status == 200
    assert json.loads(body)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert _reason(body) == "first"
    status, body = served.post(_payload("ls"))
    assert (status, json.loads(body)) == (
        200,
        {"hookSpecificOutput": {"hookEventName": "PreToolUse"}},
    )
    assert served.post(b"", "/health", "GET") == (200, b"ok")


def test_only_a_declared_host_is_answered(served: Running) -> None:
    assert served.post(_payload("ls"), "/hook/nobody")[0] == 404
    assert served.post(_payload("ls"), "/hook/../../bin/sh")[0] == 404
    assert served.post(b"", "/hook/claude", "GET")[0] == 405


def test_a_changed_rule_file_is_picked_up_without_a_restart(served: Running, rules: Path) -> None:
    assert _reason(served.post(_payload("rm -rf /"))[1]) == "first"
    _touch(rules, RULE.format("second"))
    assert _reason(served.post(_payload("rm -rf /"))[1]) == "second"
    _touch(rules, "[[rules]]\ndecision = 'maybe'\n")
    status, body = served.post(_payload("rm -rf /"))
    assert status == 503 and b"does not load" in body  # a failure: onFailure block blocks
    _touch(rules, RULE.format("third"))
    assert _reason(served.post(_payload("rm -rf /"))[1]) == "third"


def test_a_judge_module_is_reloaded_when_its_file_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "judges"
    folder.mkdir()
    module = folder / "resident_judge_mod.py"
    judge = "from agent_control_plane_core import Verdict\n\ndef judge(event):\n    return Verdict(decision='deny', reason={!r})\n"
    module.write_text(judge.format("v1"), encoding="utf-8")
    monkeypatch.syspath_prepend(str(folder))
    running = Running({"ACP_JUDGE": "resident_judge_mod:judge"})
    try:
        assert _reason(running.post(_payload("ls"))[1]) == "v1"
        _touch(module, judge.format("v2"))
        assert _reason(running.post(_payload("ls"))[1]) == "v2"
        _touch(module, "this is not python(")
        assert running.post(_payload("ls"))[0] == 503
    finally:
        running.close()
        sys.modules.pop("resident_judge_mod", None)


def test_a_block_without_a_body_is_a_failure_status(rules: Path) -> None:
    running = Running({"ACP_POLICY": str(rules), "ACP_FAIL_CLOSED": "1"})
    try:
        status, _ = running.post(b"not json")
        assert status != 200  # a non-2xx answer: a blocking failure under onFailure block
    finally:
        running.close()


def test_keep_alive_and_pipelined_requests(served: Running) -> None:
    one = (
        f"POST /hook/claude HTTP/1.1\r\nHost: x\r\nContent-Length: {len(_payload('rm -rf /'))}\r\n\r\n"
    ).encode() + _payload("rm -rf /")
    last = one.replace(b"HTTP/1.1\r\n", b"HTTP/1.1\r\nConnection: close\r\n")
    out = served.raw(one + one + last)
    assert out.count(b"HTTP/1.1 200 OK") == 3
    assert out.count(b'"permissionDecision":"deny"') == 3


def test_malformed_and_oversized_requests_are_refused(
    served: Running, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert served.raw(b"HELLO\r\n\r\n").startswith(b"HTTP/1.1 400")
    chunked = b"POST /hook/claude HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
    assert served.raw(chunked).startswith(b"HTTP/1.1 411")
    huge = f"POST /hook/claude HTTP/1.1\r\nContent-Length: {_serve.MAX_BODY_BYTES + 1}\r\n\r\n"
    assert served.raw(huge.encode()).startswith(b"HTTP/1.1 413")
    assert served.raw(b"POST / HTTP/1.1\r\nContent-Length: x\r\n\r\n").startswith(b"HTTP/1.1 413")
    assert served.raw(b"GET / HTTP/1.1\r\nX: " + b"a" * (_serve.MAX_HEAD_BYTES + 10)).startswith(
        b"HTTP/1.1 431"
    )
    long_head = b"GET / HTTP/1.1\r\nX: " + b"a" * (_serve.MAX_HEAD_BYTES + 10) + b"\r\n\r\n"
    assert served.raw(long_head).startswith(b"HTTP/1.1 431")
    old = b"GET /health HTTP/1.0\r\n\r\n"
    assert served.raw(old).startswith(b"HTTP/1.1 200")  # HTTP/1.0 without keep-alive: closed


def test_expect_continue_is_answered(served: Running) -> None:
    body = _payload("ls")
    with socket.create_connection(("127.0.0.1", served.port), timeout=10) as sock:
        sock.sendall(
            f"POST /hook/claude HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: {len(body)}\r\n"
            "Connection: close\r\n\r\n".encode()
        )
        assert sock.recv(100).startswith(b"HTTP/1.1 100 Continue")
        sock.sendall(body)
        rest = b""
        while chunk := sock.recv(65536):
            rest += chunk
    assert b"200 OK" in rest


def test_concurrent_callers_each_get_their_own_answer(served: Running) -> None:
    results: list[Any] = []

    def caller(index: int) -> None:
        for _ in range(10):
            command = "rm -rf /" if index % 2 else "ls"
            status, body = served.post(_payload(command))
            results.append((index % 2, status, b"deny" in body))

    threads = [threading.Thread(target=caller, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 80
    assert all(status == 200 and denied == bool(odd) for odd, status, denied in results)


def test_connections_are_bounded_and_idle_ones_closed(
    rules: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_serve, "MAX_CONNECTIONS", 1)
    server = HookServer(JudgeSource({"ACP_POLICY": str(rules)}), listen(0))
    port = server.listener.getsockname()[1]
    first = socket.create_connection(("127.0.0.1", port))
    second = socket.create_connection(("127.0.0.1", port))
    server.serve(rounds=2)
    assert len(server.connections) == 1
    second.settimeout(5)
    assert second.recv(10) == b""  # refused: over the connection limit
    monkeypatch.setattr(_serve, "IDLE_SECONDS", -1.0)
    server.serve(rounds=1)
    assert server.connections == {}
    first.close()
    second.close()
    server.listener.close()


def test_a_unix_socket_is_the_users_alone(rules: Path, tmp_path: Path) -> None:
    path = str(tmp_path / "acp.sock")
    Path(path).write_text("stale")
    listener = listen(unix=path)
    assert os.stat(path).st_mode & 0o777 == 0o600
    server = HookServer(JudgeSource({"ACP_POLICY": str(rules)}), listener)
    client = socket.socket(socket.AF_UNIX)
    client.connect(path)
    body = _payload("rm -rf /")
    client.sendall(
        f"POST /hook/claude HTTP/1.1\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body
    )
    server.serve(rounds=3)
    assert b'"permissionDecision":"deny"' in client.recv(65536)
    client.close()
    server.serve(rounds=1)
    listener.close()


def test_serve_main_refuses_a_broken_policy_and_a_taken_port(
    rules: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[[rules]]\ndecision = 'maybe'\n", encoding="utf-8")
    assert serve_main(port=0, unix=None, policy=str(bad), judge=None, fail_closed=False) == 2
    taken = listen(0)
    port = taken.getsockname()[1]
    assert serve_main(port=port, unix=None, policy=str(rules), judge=None, fail_closed=True) == 2
    taken.close()
    monkeypatch.setattr(HookServer, "serve", lambda self, rounds=None: None)
    path = str(tmp_path / "s.sock")
    assert (
        main(["serve", "--unix", path, "--judge", "agent_control_plane_core._judges:demo_judge"])
        == 0
    )
    assert not os.path.exists(path)
    monkeypatch.setattr(
        HookServer, "serve", lambda self, rounds=None: (_ for _ in ()).throw(KeyboardInterrupt)
    )
    assert serve_main(port=0, unix=None, policy=str(rules), judge=None, fail_closed=False) == 0
    assert "listening on http://127.0.0.1:" in capsys.readouterr().err


# ---- acp install --resident -------------------------------------------------------------------


def test_install_resident_writes_the_http_transport_in_place_of_the_command_hook(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    mine = {"type": "command", "command": "/usr/bin/acp-claude-hook"}
    other = {"type": "command", "command": "their-own-hook"}
    settings.write_text(
        json.dumps({"hooks": {"PreToolUse": [{"hooks": [mine]}, {"hooks": [other]}]}})
    )
    assert main(["install", "claude", "--resident", "--root", str(tmp_path)]) == 0
    written = json.loads(settings.read_text())
    groups = written["hooks"]["PreToolUse"]
    assert groups[0] == {"hooks": [other]}  # the user's own hook stays
    assert groups[1]["hooks"] == [
        {
            "type": "http",
            "url": "http://127.0.0.1:47300/hook/claude",
            "timeout": 10,
            "onFailure": "block",
        }
    ]
    assert (
        main(["install", "claude", "--resident", "5000", "--timeout", "3", "--root", str(tmp_path)])
        == 0
    )
    again = json.loads(settings.read_text())["hooks"]["PreToolUse"]
    assert len(again) == 2 and again[1]["hooks"][0]["url"].endswith(":5000/hook/claude")
    assert again[1]["hooks"][0]["timeout"] == 3
    before = settings.read_text()
    assert main(["install", "claude", "--resident", "--dry-run", "--root", str(tmp_path)]) == 0
    assert settings.read_text() == before
    assert '"url": "http://127.0.0.1:47300/hook/claude"' in capsys.readouterr().out


def test_install_resident_where_a_host_has_no_such_transport(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["install", "gemini", "--resident", "--root", str(tmp_path)]) == 2
    assert "command hook" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_install_resident_refuses_a_broken_settings_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text("{broken")
    assert main(["install", "claude", "--resident", "--user", "--home", str(home)]) == 2
    assert "not JSON" in capsys.readouterr().err
    (home / ".claude" / "settings.json").write_text('{"hooks": []}')
    assert main(["install", "claude", "--resident", "--user", "--home", str(home)]) == 2
    from agent_control_plane_core.cli import _resident as _resident_cli

    monkeypatch.setitem(
        _resident_cli._RESIDENT,
        "claude",
        {**_resident_cli._RESIDENT["claude"], "blocking_failure": None},
    )
    (home / ".claude" / "settings.json").write_text("{}")
    assert main(["install", "claude", "--resident", "--user", "--home", str(home)]) == 0
    assert "no blocking failure mode" in capsys.readouterr().err
