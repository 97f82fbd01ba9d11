"""Fail when any hand-written module falls below a per-file coverage floor (coverage.py has only a global one)."""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    """Check every measured file of coverage.json against the floor; print the ones below it."""
    report_path, floor = Path(argv[1]), float(argv[2])
    files = json.loads(report_path.read_text(encoding="utf-8"))["files"]
    measured = {
        name: data["summary"]["percent_covered"]
        for name, data in files.items()
        if "/_generated/" not in name.replace("\\", "/")
    }
    if not measured:
        print(f"{report_path}: no hand-written modules measured; is the coverage source right?")
        return 1
    below = {name: pct for name, pct in measured.items() if pct < floor}
    for name, pct in sorted(measured.items()):
        mark = "BELOW" if name in below else "ok"
        print(f"{pct:6.1f}%  {mark:5}  {name}")
    if below:
        print(f"{len(below)} file(s) below the {floor:.0f}% per-file floor: add tests for them")
        return 1
    print(f"all {len(measured)} hand-written modules at or above {floor:.0f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
