"""Command line of the generator: `python -m codegen [--check]`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from codegen.driver import REPO, SchemaLintError, check, write


def main(argv: list[str] | None = None) -> int:
    """Regenerate every generated file, or with --check compare them and fail on any difference."""
    parser = argparse.ArgumentParser(prog="python -m codegen", description=__doc__)
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    parser.add_argument(
        "--root",
        type=Path,
        default=REPO,
        help="tree to write into or check; sources are always this repo (default: the repo)",
    )
    args = parser.parse_args(argv)
    try:
        return _run(args)
    except SchemaLintError as error:
        print(error, file=sys.stderr)
        return 2


def _run(args: argparse.Namespace) -> int:
    if args.check:
        problems = check(args.root)
        if problems:
            print("\n".join(problems), file=sys.stderr)
            print(
                "generated files are stale or hand-edited: run `make codegen` and commit the result",
                file=sys.stderr,
            )
            return 1
        print("generated files are up to date")
        return 0
    written = write(args.root)
    print(f"wrote {written} generated files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
