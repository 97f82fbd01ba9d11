"""Run the property suite under the fuzz profile, its tests spread over parallel pytest processes.

Usage: tools/fuzz.py [--jobs N] [--profile NAME]

Each property runs once per adapter configuration, and each of those runs is independent, so the
10,000-example profile finishes in about 1/N of the serial time on N cores. Prints every worker's
summary and the wall time; exits non-zero when any worker fails.
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


def main() -> int:
    """Split the suite over the workers, run them at once and report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--profile", default="fuzz")
    args = parser.parse_args()
    ids = node_ids()
    jobs = max(1, min(args.jobs, len(ids)))
    shares = [ids[index::jobs] for index in range(jobs)]
    env = {**os.environ, "HYPOTHESIS_PROFILE": args.profile}
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        workers = []
        for index, share in enumerate(shares):
            log = Path(tmp) / f"worker-{index}.log"
            with log.open("w") as handle:
                command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *share]
                process = subprocess.Popen(
                    command, cwd=REPO, env=env, stdout=handle, stderr=subprocess.STDOUT
                )
            workers.append((process, log, len(share)))
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
