"""Stands where the installed hook command was: records each call, then runs the real entry."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path


def main(argv: list[str]) -> int:
    """tap EVIDENCE_DIR REAL_PROGRAM [ARGS...]: run REAL_PROGRAM (or the run's control answer)."""
    evidence, real, args = Path(argv[0]), argv[1], argv[2:]
    evidence.mkdir(parents=True, exist_ok=True)
    started = time.time()
    stdin = sys.stdin.buffer.read()
    control_file = evidence.parent / "control.json"
    control = json.loads(control_file.read_text()) if control_file.exists() else None
    text = stdin.decode("utf-8", "replace")
    unless = control.get("unless") if control is not None else None
    if control is not None and control.get("when", "") in text and not (unless and unless in text):
        # A control scenario: the profile's hand-written native answer takes our hook's place.
        stdout = control.get("stdout", "").encode()
        stderr = control.get("stderr", "").encode()
        code = int(control.get("exit_code", 0))
        source = "control"
    else:
        done = subprocess.run([real, *args], input=stdin, capture_output=True, check=False)
        stdout, stderr, code, source = done.stdout, done.stderr, done.returncode, "hook"
    record = {
        "argv": [real, *args],
        "source": source,
        "stdin": stdin.decode("utf-8", "replace"),
        "stdout": stdout.decode("utf-8", "replace"),
        "stderr": stderr.decode("utf-8", "replace"),
        "exit_code": code,
        "started": started,
        "seconds": round(time.time() - started, 3),
    }
    name = evidence / f"hook-{time.time_ns()}-{os.getpid()}.json"
    name.write_text(json.dumps(record, indent=1), encoding="utf-8")
    os.write(1, stdout)
    os.write(2, stderr)
    if code < 0:
        # The hook died by a signal: die by the same one, so the host sees that death, not an exit.
        import contextlib
        import signal

        with contextlib.suppress(OSError, ValueError):
            signal.signal(-code, signal.SIG_DFL)  # SIGKILL and SIGSTOP take no handler
        os.kill(os.getpid(), -code)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
