"""The peer libraries a hook is compared with, each in its own venv under .bench-peers/ (untracked)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from _common import ROOT

FOLDER = ROOT / ".bench-peers"
SCRIPTS = ROOT / "bench" / "peers"
# name -> (pinned version, the minimal deny-rm-rf hook written with its documented API).
PEERS: dict[str, tuple[str, str]] = {
    "cchooks": ("0.1.5", "cchooks_hook.py"),
    "agentseam": ("0.3.5", "agentseam_hook.py"),
    "claude-hook-utils": ("0.4.0", "claude_hook_utils_hook.py"),
}


def _python(name: str) -> Path:
    return FOLDER / name / "bin" / "python"


def ensure() -> list[dict[str, Any]]:
    """Create each peer's venv with its pinned release (once) and return a timed row per peer."""
    rows = []
    for name, (version, script) in PEERS.items():
        venv = FOLDER / name
        stamp = venv / f".installed-{version}"
        if not stamp.is_file():
            print(
                f"peers: installing {name}=={version} into {venv.relative_to(ROOT)}",
                file=sys.stderr,
            )
            # The same CPython as the package's venv, so only the libraries differ.
            subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
            pip = [str(_python(name)), "-m", "pip", "install", "--quiet"]
            subprocess.run([*pip, "--disable-pip-version-check", f"{name}=={version}"], check=True)
            stamp.touch()
        rows.append(
            {
                "name": f"{name} {version}",
                "argv": [str(_python(name)), str(SCRIPTS / script)],
                "role": "peer",
            }
        )
    return rows
