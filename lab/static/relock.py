"""Regenerate package-lock.json after a pin changes: `python3 lab/static/relock.py`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
LOCK = HERE / "package-lock.json"


def main() -> None:
    """Write the lock with npm, then stub the optional platform packages the registry lacks."""
    subprocess.run(
        ["npm", "install", "--package-lock-only", "--no-audit", "--no-fund", "--ignore-scripts"],
        cwd=HERE,
        check=True,
    )
    lock = json.loads(LOCK.read_text(encoding="utf-8"))
    packages = lock["packages"]
    added = []
    for key, entry in list(packages.items()):
        for name, version in entry.get("optionalDependencies", {}).items():
            # npm resolves a dependency next to its dependent first, then at the top level.
            nested = f"{key}/node_modules/{name}" if key else f"node_modules/{name}"
            top = f"node_modules/{name}"
            if nested in packages or top in packages:
                continue
            # The registry serves only some platform builds (the others 404), so npm leaves them
            # out of the lock and `npm ci` then calls the lock out of sync. A stub that no
            # platform selects keeps `npm ci` strict about everything else.
            packages[top] = {
                "version": version,
                "optional": True,
                "os": ["!linux", "!darwin", "!win32"],
            }
            added.append(name)
    LOCK.write_text(json.dumps(lock, indent=2) + "\n", encoding="utf-8")
    print(f"stubbed {len(added)} platform packages the registry does not serve")


if __name__ == "__main__":
    main()
