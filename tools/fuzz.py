"""Run the property suite under the fuzz profile, its tests spread over parallel pytest processes.

Usage: tools/fuzz.py [--jobs N] [--profile NAME]

Each property runs once per adapter configuration, and each of those runs is independent, so the
10,000-example profile finishes in about 1/N of the serial time on N cores (about 20 minutes on
two cores). Prints a progress line whenever a test finishes, then every worker's summary and the
wall time; exits non-zero when any worker fails.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SUITE = "tests/test_properties.py"
_OUTCOMES = ("PASSED", "FAILED", "ERROR", "SKIPPED", "XFAIL", "XPASS")


def node_ids() -> list[str]:
    """Every test of the property suite, one id per (property, adapter configuration)."""
    listing = subprocess.run(
        [sys.executable, "-m", "pytest", SUITE, "--collect-only", "-q", "-o", "addopts="],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    return [line for line in listing.stdout.splitlines() if line.startswith(f"{SUITE}::")]


def _finished(log: Path) -> list[str]:
    """The ids of the tests a worker's verbose log reports as done."""
    done = []
    for line in log.read_text(errors="replace").splitlines():
        head, _, outcome = line.partition(" ")
        if "::" in head and outcome.split(" ")[0] in _OUTCOMES:
            done.append(f"{head.split('::')[-1]} {outcome.split(' ')[0]}")
    return done


def _report_progress(
    workers: list[tuple[subprocess.Popen[bytes], Path, int]], total: int, started: float
) -> None:
    """Print each newly finished test with the running count until every worker has exited."""
    shown = 0
    while True:
        running = any(process.poll() is None for process, _, _ in workers)
        done = [test for _, log, _ in workers for test in _finished(log)]
        for test in done[shown:]:
            shown += 1
            minutes = (time.monotonic() - started) / 60
            print(f"  [{shown}/{total}] {minutes:5.1f} min  {test}", flush=True)
        if not running:
            return
        time.sleep(2)


def main() -> int:
    """Split the suite over the workers, run them at once and report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--profile", default="fuzz")
    args = parser.parse_args()
    ids = node_ids()
    jobs = max(1, min(args.jobs, len(ids)))
    shares = [ids[index::jobs] for index in range(jobs)]
    env = {**os.environ, "HYPOTHESIS_PROFILE": args.profile, "PYTHONUNBUFFERED": "1"}
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        workers = []
        for index, share in enumerate(shares):
            log = Path(tmp) / f"worker-{index}.log"
            with log.open("w") as handle:
                # -v: one line per finished test, which the progress lines count.
                command = [
                    sys.executable,
                    "-m",
                    "pytest",
                    "-v",
                    "-o",
                    "addopts=",
                    "-p",
                    "no:cacheprovider",
                    *share,
                ]
                process = subprocess.Popen(
                    command, cwd=REPO, env=env, stdout=handle, stderr=subprocess.STDOUT
                )
            workers.append((process, log, len(share)))
        print(
            f"fuzz: {len(ids)} property tests under profile {args.profile!r} in {jobs} processes"
            " (about 20 min on two cores); a line per finished test",
            flush=True,
        )
        _report_progress(workers, len(ids), started)
        failed = 0
        for index, (process, log, count) in enumerate(workers):
            code = process.wait()
            tail = log.read_text().strip().splitlines()[-1:] or ["(no output)"]
            print(f"worker {index}: {count} tests, exit {code}: {tail[0]}")
            if code != 0:
                failed += 1
                print(log.read_text())
    minutes = (time.monotonic() - started) / 60
    print(
        f"{len(ids)} property tests under profile {args.profile!r} in {jobs} processes:"
        f" {minutes:.1f} min wall, {failed} worker(s) failed"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
