"""Latency of `acp serve` (issue 30): one caller at a time, then 16 concurrent closed-loop callers."""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from multiprocessing import Pool
from pathlib import Path
from typing import Any

from _common import BIN, ROOT, hook_env, summary

POLICY = ROOT / "examples" / "policy.toml"
# Issue 30's targets for the resident transport on these 2-core machines.
MEDIAN_MS = 2.0
P99_MS = 10.0
CALLERS = 16


def _request(payload: bytes, port: int) -> bytes:
    return (
        f"POST /hook/claude HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n\r\n"
    ).encode() + payload


def _answer(sock: socket.socket) -> bytes:
    """One whole response (head and Content-Length body) from a keep-alive connection."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("the server closed the connection")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
    while len(body) < length:
        body += sock.recv(65536)
    return head.split(b"\r\n")[0] + b"\n" + body


def caller(job: tuple[int, bytes, int, float]) -> list[float]:
    """A closed loop on one keep-alive connection: send, wait for the answer, send again."""
    port, payload, count, start_at = job
    request = _request(payload, port)
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    while time.time() < start_at:
        time.sleep(0.001)
    out = []
    for _ in range(count):
        began = time.perf_counter()
        sock.sendall(request)
        _answer(sock)
        out.append(time.perf_counter() - began)
    sock.close()
    return out


def start_server(port: int, policy: Path) -> subprocess.Popen[bytes]:
    """acp serve with the policy, waiting until it answers its health check."""
    argv = [str(BIN / "acp"), "serve", "--port", str(port), "--policy", str(policy)]
    server = subprocess.Popen(argv, env=hook_env(), stderr=subprocess.PIPE)
    for _ in range(200):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
                sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
                if _answer(sock).startswith(b"HTTP/1.1 200"):
                    return server
        except OSError:
            time.sleep(0.05)
    server.kill()
    raise SystemExit(
        f"acp serve did not start: {server.stderr.read().decode() if server.stderr else ''}"
    )


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def measure(
    payload: bytes, policy: Path = POLICY, sequential: int = 2000, each: int = 400
) -> dict[str, Any]:
    """Median and p99 in ms, one caller and CALLERS concurrent callers, against one server."""
    port = _free_port()
    server = start_server(port, policy)
    try:
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.sendall(_request(payload, port))
            answer = _answer(sock).decode()
        caller((port, payload, 200, 0.0))  # warm-up: the rules this call reaches are compiled
        alone = caller((port, payload, sequential, 0.0))
        with Pool(CALLERS) as pool:
            start_at = time.time() + 1.0
            together = [
                t
                for ts in pool.map(caller, [(port, payload, each, start_at)] * CALLERS)
                for t in ts
            ]
    finally:
        server.terminate()
        server.wait(timeout=10)
    rows = []
    for name, samples in (("1 caller", alone), (f"{CALLERS} concurrent callers", together)):
        ordered = sorted(samples)
        rows.append(
            {
                "name": name,
                "requests": len(samples),
                "median_ms": summary(samples)["median"] * 1000,
                "p99_ms": ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000,
            }
        )
    return {"answer": answer, "rows": rows, "median_target": MEDIAN_MS, "p99_target": P99_MS}


def main() -> None:
    """Print the resident latency table as JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--policy", type=Path, default=POLICY)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory():
        payload = json.dumps(
            {
                "hook_event_name": "PreToolUse",
                "tool_name": "Bash",
                "tool_input": {"command": "git status"},
                "session_id": "s",
                "cwd": os.getcwd(),
            }
        ).encode()
        json.dump(measure(payload, args.policy), sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
