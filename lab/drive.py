"""Runs inside the loopback-only namespace: the model server, then the host, both bounded in time."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any


def _loopback_up() -> None:
    """Bring up lo in this fresh network namespace; it is the only interface there is."""
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)


def main(spec_path: str) -> int:
    """Serve the scripted model, run the host command, write result.json beside the spec."""
    from lab.model_server import serve

    spec: dict[str, Any] = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    run_dir = Path(spec["run_dir"])
    if spec.get("netns", True):
        _loopback_up()
    server, _thread = serve(spec["script"], Path(spec["record_dir"]), float(spec["lifetime_s"]))
    port = server.server_address[1]
    replace = {"{port}": str(port)}

    def fill(text: str) -> str:
        for key, value in replace.items():
            text = text.replace(key, value)
        return text

    for path, text in spec.get("files", {}).items():
        target = Path(fill(path))
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(fill(text), encoding="utf-8")
    env = {key: fill(value) for key, value in spec["env"].items()}
    argv = [fill(part) for part in spec["argv"]]
    started = time.monotonic()
    timed_out = False
    with open(run_dir / "host.stdout", "wb") as out, open(run_dir / "host.stderr", "wb") as err:
        proc = subprocess.Popen(
            argv,
            cwd=spec["cwd"],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,
        )
        try:
            code = proc.wait(timeout=float(spec["timeout_s"]))
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(proc.pid, signal.SIGKILL)
            code = proc.wait()
    seconds = round(time.monotonic() - started, 2)
    server.shutdown()
    result = {"exit_code": code, "timed_out": timed_out, "seconds": seconds, "port": port}
    (run_dir / "result.json").write_text(json.dumps(result), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
