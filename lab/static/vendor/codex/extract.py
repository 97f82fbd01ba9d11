"""Re-extract Codex's hook schemas from a release binary and compare them with the vendored copies.

Usage: python3 extract.py <path to bin/codex from @openai/codex@<version>-linux-x64> [--write]
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def embedded_schemas(binary: bytes) -> dict[str, bytes]:
    """Each JSON Schema the binary embeds verbatim, keyed <title>.schema.json."""
    decoder = json.JSONDecoder()
    found: dict[str, bytes] = {}
    for match in re.finditer(rb'\{\s*"\$schema"', binary):
        text = binary[match.start() : match.start() + 200_000].decode("utf-8", errors="replace")
        try:
            schema, end = decoder.raw_decode(text)
        except ValueError:
            continue
        if isinstance(schema, dict) and isinstance(schema.get("title"), str):
            found[f"{schema['title']}.schema.json"] = text[:end].encode("utf-8") + b"\n"
    return found


def main(argv: list[str]) -> int:
    """Compare (or with --write, rewrite) the vendored schemas against the binary's."""
    found = embedded_schemas(Path(argv[0]).read_bytes())
    if "--write" in argv:
        for name, data in found.items():
            (HERE / name).write_bytes(data)
    vendored = {p.name: p.read_bytes() for p in HERE.glob("*.schema.json")}
    differ = sorted(n for n in found.keys() | vendored.keys() if found.get(n) != vendored.get(n))
    print(f"{len(found)} embedded, {len(vendored)} vendored, differing: {differ or 'none'}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
