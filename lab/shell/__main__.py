"""python -m lab.shell [--generated N] [--seed S] [--fixed]: the splitter against real shells.

Runs the corpus in the sandbox (lab/shell/inside.py), batched, and prints every unsound line
with the shell's trace beside the splitter's reading; exit 1 when any line is unsound.
make fuzz runs it with a large generated slice.
"""

from __future__ import annotations

import argparse
import sys
import time

from .check import Verdict, check
from .corpus import fixed_corpus
from .probe import prove
from .sandbox import SHELLS, run_batch

BATCH = 250
WORKERS = 2  # sandboxes at once: the lab's budget is two cores


def soundness(lines: list[str], shells: tuple[str, ...] = SHELLS) -> dict[str, list[Verdict]]:
    """Every line under every shell, in batches of BATCH lines per sandbox start."""
    from concurrent.futures import ThreadPoolExecutor

    verdicts: dict[str, list[Verdict]] = {shell: [] for shell in shells}
    chunks = [lines[start : start + BATCH] for start in range(0, len(lines), BATCH)]
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        batches = list(pool.map(lambda chunk: run_batch(chunk, shells)[0], chunks))
    for chunk, answers in zip(chunks, batches, strict=True):
        for answer in answers:
            line = chunk[answer["index"]]
            verdicts[answer["shell"]].append(check(line, answer["shell"], answer))
    return verdicts


def summary(verdicts: dict[str, list[Verdict]]) -> str:
    parts = []
    for shell, results in verdicts.items():
        unsound = sum(not v.sound for v in results)
        ran = sum(bool(v.trace["exec"]) for v in results)
        parts.append(f"{shell}: {len(results)} lines, {ran} ran programs, {unsound} unsound")
    return "; ".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lab.shell")
    parser.add_argument("--generated", type=int, default=0, help="generated lines to add")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-fixed", action="store_true", help="only generated lines")
    args = parser.parse_args(argv)
    prove()
    lines = [] if args.no_fixed else fixed_corpus()
    if args.generated:
        from .generate import generated_lines

        lines += generated_lines(args.generated, seed=args.seed)
    started = time.monotonic()
    verdicts = soundness(lines)
    bad = [v for results in verdicts.values() for v in results if not v.sound]
    for verdict in bad[:50]:
        print(verdict.explain(), "\n")
    print(f"{len(lines)} lines in {time.monotonic() - started:.0f} s: {summary(verdicts)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
