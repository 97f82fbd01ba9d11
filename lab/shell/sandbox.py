"""The shell lab's host side: the real shells, and batches of lines run in the sandbox.

bash and dash come from the machine; zsh is installed by the project itself, without root, into
~/.cache/agent-control-plane-core/shells (`apt-get download zsh zsh-common`, `dpkg -x`). Every
line runs only inside lab/shell/inside.py's namespaces (see its docstring): this module passes
the lines to it as JSON on stdin and never to a shell of its own.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

CACHE = (
    Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "agent-control-plane-core"
)
SHELLS_DIR = CACHE / "shells"
INSIDE = Path(__file__).with_name("inside.py")
SHELLS = ("bash", "dash", "zsh")
ZSH_MODULES = "usr/lib/x86_64-linux-gnu/zsh"
# Names stubbed besides the machine's own programs: what the red team's forms name.
EXTRA_PROGRAMS = (
    "rm", "curl", "wget", "ssh", "git", "sudo", "doas", "pkexec", "chroot", "flock", "taskset",
    "strace", "ltrace", "script", "unshare", "setpriv", "runuser", "chrt", "sg", "valgrind",
    "firejail", "systemd-run", "faketime", "proot", "cpulimit", "parallel", "uv", "poetry",
    "npm", "npx", "node", "python", "python3", "make", "cargo", "go", "docker", "kubectl",
)  # fmt: skip
GIT_CORE = ("git-push", "git-fetch", "git-commit", "git-status")


class LabUnavailable(RuntimeError):
    """The sandbox cannot be built here (no user namespaces, or a shell is missing)."""


def install_zsh() -> Path:
    """zsh from the package registry into the project's cache, unprivileged; its binary."""
    binary = SHELLS_DIR / "root/bin/zsh"
    if binary.exists():
        return binary
    debs = SHELLS_DIR / "debs"
    debs.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["apt-get", "download", "zsh", "zsh-common"],
        cwd=debs,
        check=True,
        capture_output=True,
        timeout=300,
    )
    for deb in sorted(debs.glob("*.deb")):
        subprocess.run(["dpkg", "-x", str(deb), str(SHELLS_DIR / "root")], check=True, timeout=300)
    if not binary.exists():
        raise LabUnavailable(f"dpkg -x left no {binary}")
    return binary


def _libraries(binaries: list[str]) -> set[str]:
    found: set[str] = set()
    for binary in binaries:
        result = subprocess.run(["ldd", binary], capture_output=True, text=True, check=False)
        for line in result.stdout.splitlines():
            parts = line.split()
            for part in parts:
                if part.startswith("/") and os.path.exists(part):
                    found.add(part)
    return found


def _copies() -> list[tuple[str, str]]:
    bash, dash = shutil.which("bash"), shutil.which("dash")
    if not bash or not dash:
        raise LabUnavailable("bash and dash must be installed")
    zsh = str(install_zsh())
    modules = sorted(str(p) for p in (SHELLS_DIR / "root" / ZSH_MODULES).rglob("*.so"))
    copies = []
    for folder in ("/bin", "/usr/bin"):
        copies += [(bash, f"{folder}/bash"), (dash, f"{folder}/dash"), (dash, f"{folder}/sh")]
        copies.append((zsh, f"{folder}/zsh"))
    copies.append((str(SHELLS_DIR / "root" / ZSH_MODULES), f"/{ZSH_MODULES}"))
    for library in sorted(_libraries([bash, dash, zsh, *modules])):
        copies.append((os.path.realpath(library), library))
    return copies


def _stub_names() -> dict[str, list[str]]:
    names = set(EXTRA_PROGRAMS)
    for folder in ("/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin"):
        try:
            names.update(os.listdir(folder))
        except OSError:
            continue
    names -= {"bash", "dash", "sh", "zsh", "rbash"}
    core = set(GIT_CORE)
    with contextlib.suppress(OSError):
        core.update(os.listdir("/usr/lib/git-core"))
    return {"*": sorted(names), "usr/lib/git-core": sorted(core)}


def run_batch(
    lines: list[str],
    shells: tuple[str, ...] = SHELLS,
    *,
    seconds: float = 2.0,
    probe: bool = False,
    budget: float | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """Run every line under every shell in one sandbox; the results in order, and the probe."""
    if shutil.which("unshare") is None:
        raise LabUnavailable("util-linux unshare is missing")
    root = tempfile.mkdtemp(prefix="acp-shell-lab-")
    job = {
        "root": root,
        "copies": _copies(),
        "stubs": _stub_names(),
        "real": ["bash", "dash", "sh", "zsh"],
        "shells": list(shells),
        "lines": lines,
        "seconds": seconds,
        "probe": probe,
    }
    command = [
        "unshare", "--user", "--map-root-user", "--mount", "--net", "--pid", "--fork",
        "--kill-child", sys.executable, "-I", str(INSIDE),
    ]  # fmt: skip
    limit = budget if budget is not None else 30 + len(lines) * len(shells) * (seconds + 0.5)
    try:
        result = subprocess.run(
            command,
            input=json.dumps(job),
            capture_output=True,
            text=True,
            timeout=limit,
            check=False,
            cwd=root,
        )
    finally:
        os.rmdir(root)
    answers = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    found_probe = None
    if answers and "probe" in answers[0]:
        found_probe = answers.pop(0)["probe"]
    if result.returncode != 0 or len(answers) != len(lines) * len(shells):
        raise LabUnavailable(
            f"the sandbox ended with {result.returncode} after {len(answers)} answers:"
            f" {result.stderr[-2000:]}"
        )
    return answers, found_probe
