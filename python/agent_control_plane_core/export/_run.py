"""`acp audit export`: follow the audit log (or read it once) and deliver it at least once over OTLP."""

from __future__ import annotations

import argparse
import os
import random
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from ._mapping import map_record
from ._reader import Batch, Checkpoint, LogReader, offset_path

__all__ = ["main", "run"]

PROG: Final = "acp audit export"
AUDIT_ENV: Final = "ACP_AUDIT_LOG"  # runtime.AUDIT_ENV; not imported, runtime is the hook's module
EXTRA_HINT: Final = "pip install 'agent-control-plane-core[otel]'"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Ship the audit log to an OTLP endpoint (OpenTelemetry Collector, vendor"
        " agent): each record a log record, each tool call a span. Endpoint, headers, TLS,"
        " timeout and service name come from the standard OTEL_EXPORTER_OTLP_* and OTEL_*"
        " variables. Delivery is at least once: the offset beside the log moves only after the"
        " endpoint accepted a batch.",
    )
    parser.add_argument(
        "path", nargs="?", help=f"the audit log (default: ${AUDIT_ENV}); must be absolute"
    )
    parser.add_argument(
        "--once", action="store_true", help="export what the log holds now, then exit"
    )
    parser.add_argument(
        "--protocol",
        choices=("http/protobuf", "grpc"),
        help="OTLP transport (default: OTEL_EXPORTER_OTLP_PROTOCOL, else http/protobuf)",
    )
    parser.add_argument(
        "--signals",
        default="logs,traces",
        help="comma-separated: logs, traces (default: both)",
    )
    parser.add_argument(
        "--content",
        action="store_true",
        help="also send the tool input and output (gen_ai.tool.call.arguments/result), in the"
        " redacted form the record holds",
    )
    parser.add_argument(
        "--offset-file", help="the committed offset (default: PATH.otel-offset beside the log)"
    )
    parser.add_argument(
        "--batch-size", type=int, default=512, help="records per export (default 512)"
    )
    parser.add_argument(
        "--batch-bytes",
        type=int,
        default=4 << 20,
        help="log bytes per export; a longer line is reported and skipped (default 4 MiB)",
    )
    parser.add_argument(
        "--poll", type=float, default=0.5, help="seconds between looks at a quiet log"
    )
    parser.add_argument(
        "--max-backoff", type=float, default=30.0, help="longest wait between retries (seconds)"
    )
    parser.add_argument(
        "--max-attempts",
        type=int,
        default=0,
        help="give up on a batch after this many failed attempts (default 0: retry forever)",
    )
    parser.add_argument(
        "--progress", type=float, default=5.0, help="seconds between progress lines on a catch-up"
    )
    return parser


class _Say:
    """One-line reports on stderr, each prefixed with the command's name."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream

    def __call__(self, text: str) -> None:
        print(f"{PROG}: {text}", file=self.stream, flush=True)


def main(argv: Sequence[str], environ: Mapping[str, str] | None = None) -> int:
    """Run the command line; return the exit code."""
    env = os.environ if environ is None else environ
    args = _parser().parse_args(list(argv))
    say = _Say(sys.stderr)
    path = args.path or env.get(AUDIT_ENV)
    if not path:
        say(f"no audit log: give PATH or set {AUDIT_ENV}")
        return 2
    if not os.path.isabs(path):
        path = os.path.abspath(path)
    signals = tuple(name.strip() for name in args.signals.split(",") if name.strip())
    try:
        from . import _otel
    except ImportError as exc:
        say(f"needs the OpenTelemetry SDK and OTLP exporters ({exc.name} is missing): {EXTRA_HINT}")
        return 2
    unknown = sorted(set(signals) - set(_otel.SIGNALS))
    if unknown or not signals:
        say(f"--signals takes {', '.join(_otel.SIGNALS)}; not {', '.join(unknown) or 'nothing'}")
        return 2
    try:
        pipeline = _otel.Pipeline(signals, args.protocol, env)
    except ValueError as exc:
        say(str(exc))
        return 2
    stop = threading.Event()

    def stopping(number: int, _frame: object) -> None:
        stop.set()

    for name in (signal.SIGTERM, signal.SIGINT):
        signal.signal(name, stopping)
    try:
        return run(path, pipeline, args, say, stop)
    finally:
        pipeline.shutdown()


def run(
    path: str,
    pipeline: Any,
    args: argparse.Namespace,
    say: Callable[[str], None],
    stop: threading.Event,
) -> int:
    """The export loop: read a batch, deliver it (retrying), commit, until --once ends or stop."""
    offsets = args.offset_file or offset_path(path)
    try:
        checkpoint = Checkpoint.load(offsets)
    except ValueError as exc:
        say(f"{exc}; move it away to export the log from its start")
        return 2
    if checkpoint.line:
        say(f"resuming {path} after line {checkpoint.line} (offset {checkpoint.offset})")
    reader = LogReader(
        path, checkpoint, say, max_records=args.batch_size, max_bytes=args.batch_bytes
    )
    progress = _Progress(say, args.progress)
    sent = skipped = 0
    while not stop.is_set():
        batch = reader.read()
        if batch.records and not _deliver(batch, pipeline, args, say, stop):
            if stop.is_set():
                break
            say(
                f"gave up after {args.max_attempts} attempt(s); the offset stays at line"
                f" {reader.position.line}"
            )
            return 1
        moved = batch.after.to_dict() != reader.position.to_dict()
        if moved:
            batch.after.save(offsets)
            reader.position = batch.after
        sent += len(batch.records)
        skipped += batch.skipped
        behind = reader.size() - reader.position.offset
        progress.update(sent, reader.position, behind)
        if moved and behind > 0:
            continue
        if args.once:
            if behind > 0:
                say(f"line {reader.position.line + 1} is not complete yet; left for the next run")
            break
        stop.wait(args.poll)
    progress.done(sent)
    say(
        f"exported {sent} record(s), skipped {skipped} line(s); committed through line"
        f" {reader.position.line} of {path}"
    )
    return 0


def _deliver(
    batch: Batch,
    pipeline: Any,
    args: argparse.Namespace,
    say: Callable[[str], None],
    stop: threading.Event,
) -> bool:
    """Send every signal of the batch, retrying with backoff; True once all were accepted."""
    mapped = [
        map_record(record, raw, number=line, offset=offset, content=args.content)
        for record, raw, line, offset in batch.records
    ]
    pending = pipeline.build(mapped)
    first, last = batch.records[0][2], batch.records[-1][2]
    attempt, wait = 0, 0.5
    while True:
        # A signal already accepted is not sent again: a retry repeats only what failed.
        for name in [name for name, items in pending.items() if pipeline.send(name, items)]:
            del pending[name]
        if not pending:
            return True
        attempt += 1
        if attempt == 1 or attempt % 10 == 0:
            say(
                f"lines {first}-{last}: {', '.join(sorted(pending))} not accepted by the endpoint"
                f" (attempt {attempt}); retrying with backoff, the offset does not move"
            )
        if args.max_attempts and attempt >= args.max_attempts:
            return False
        if stop.wait(min(wait, args.max_backoff) * random.uniform(0.8, 1.2)):
            return False
        wait *= 2


class _Progress:
    """A progress line every few seconds while the exporter is catching up, and one at the end."""

    def __init__(self, say: Callable[[str], None], every: float) -> None:
        self.say = say
        self.every = every
        self.started = time.monotonic()
        self.last = self.started
        self.shown = False

    def update(self, sent: int, position: Checkpoint, behind: int) -> None:
        now = time.monotonic()
        if behind <= 0:
            self.done(sent)
            return
        if now - self.last < self.every:
            return
        self.last, self.shown = now, True
        total = position.offset + behind
        rate = sent / max(now - self.started, 1e-9)
        self.say(
            f"catching up: line {position.line}, {position.offset >> 10} of {total >> 10} KiB"
            f" ({100 * position.offset // max(total, 1)}%), {rate:.0f} records/s"
        )

    def done(self, sent: int) -> None:
        if self.shown:
            self.shown = False
            elapsed = time.monotonic() - self.started
            self.say(f"caught up: {sent} record(s) exported in {elapsed:.1f} s")
