"""The shell lab's sandbox side: runs inside `unshare --user --map-root-user --mount --net --pid`.

Standard library only, run as a script (python3 -I inside.py) by lab/shell/sandbox.py, never
imported by the package. It reads one JSON job from stdin: the shells to copy in, the libraries
they load, the program names to stub, and the corpus lines. Then, in its own mount namespace, it

1. mounts a tmpfs as the new root and fills it: the real shells (bash, dash as sh, zsh with its
   modules) and their libraries, and a logging stub under every other program name, in every
   program directory (/bin, /usr/bin, /usr/local/bin, /sbin, /usr/sbin, /usr/lib/git-core);
2. remounts that root read-only, with fresh tmpfs mounts only at /tmp, /work, /home, /.trace;
3. pivot_roots into it and detaches the old root: nothing of the real file system is reachable,
   the repository and home folders included; the network namespace has no interface but lo;
4. runs each line under each shell (`SHELL -c LINE`, cwd /work, a time limit per line), kills
   every process left in the PID namespace after it, and reports what the stubs logged.

Nothing here runs a corpus line before step 3; the lines are passed as argv entries, never
pasted into a command text.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time

MS_RDONLY = 1
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
MNT_DETACH = 2
SYS_PIVOT_ROOT = 155  # x86_64
RECORD_END = "\x1e"
FIELD_END = "\x1f"
PROGRAM_DIRS = ("bin", "usr/bin", "usr/local/bin", "sbin", "usr/sbin", "usr/lib/git-core")
WRITABLE = ("tmp", "work", "home", ".trace")
TRACE = "/.trace/log"
# The stub: one printf per call, so background calls do not interleave within a record.
STUB = (
    "#!/bin/dash\n"
    f"printf '%s\\{oct(ord(FIELD_END))[2:]}' \"$0\" \"$@\" '{RECORD_END}' >> {TRACE}\n"
    "exit 0\n"
)

_libc = ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"{what}: {os.strerror(number)}")


def _mount(source: str, target: str, fstype: str | None, flags: int, data: str = "") -> None:
    _check(
        _libc.mount(
            source.encode(),
            target.encode(),
            fstype.encode() if fstype else None,
            ctypes.c_ulong(flags),
            data.encode() if data else None,
        ),
        f"mount {target}",
    )


def _build(root: str, job: dict) -> None:  # type: ignore[type-arg]
    _mount("none", "/", None, MS_REC | MS_PRIVATE)
    _mount("lab", root, "tmpfs", 0, "size=64m,mode=0755")
    for folder in (*PROGRAM_DIRS, "lib", "lib64", "etc", "dev", "proc", ".lab", *WRITABLE):
        os.makedirs(os.path.join(root, folder), exist_ok=True)
    for source, target in job["copies"]:  # shells, their libraries, zsh's modules
        destination = os.path.join(root, target.lstrip("/"))
        os.makedirs(os.path.dirname(destination), exist_ok=True)
        if os.path.isdir(source):
            shutil.copytree(source, destination, dirs_exist_ok=True)
        else:
            shutil.copy2(source, destination)
    stub = os.path.join(root, ".lab/stub")
    with open(stub, "w", encoding="utf-8") as handle:
        handle.write(STUB)
    os.chmod(stub, 0o755)
    real = set(job["real"])  # names that are real shells, not stubs
    for folder in PROGRAM_DIRS:
        for name in job["stubs"].get(folder, job["stubs"]["*"]):
            path = os.path.join(root, folder, name)
            if name in real or os.path.lexists(path) or "/" in name:
                continue
            os.symlink("/.lab/stub", path)
    for name in ("null", "zero", "urandom"):
        path = os.path.join(root, "dev", name)
        open(path, "w").close()
        _mount(f"/dev/{name}", path, None, MS_BIND)
    for name, target in (("stdin", 0), ("stdout", 1), ("stderr", 2)):
        os.symlink(f"/proc/self/fd/{target}", os.path.join(root, "dev", name))
    os.symlink("/proc/self/fd", os.path.join(root, "dev/fd"))
    with open(os.path.join(root, "etc/passwd"), "w", encoding="utf-8") as handle:
        handle.write("root:x:0:0:root:/home/lab:/bin/sh\n")
    _mount("proc", os.path.join(root, "proc"), "proc", 0)
    _mount(root, root, None, MS_BIND | MS_REC)
    _mount("none", root, None, MS_REMOUNT | MS_BIND | MS_RDONLY)
    for folder in WRITABLE:
        _mount("lab", os.path.join(root, folder), "tmpfs", 0, "size=16m,mode=0777")
    os.makedirs(os.path.join(root, "home/lab"), exist_ok=True)
    os.chdir(root)
    os.mkdir("tmp/old")
    _check(_libc.syscall(SYS_PIVOT_ROOT, b".", b"tmp/old"), "pivot_root")
    os.chroot(".")
    os.chdir("/")
    _check(_libc.umount2(b"/tmp/old", MNT_DETACH), "umount old root")
    os.rmdir("/tmp/old")


def _others() -> list[int]:
    """PIDs in the namespace other than this process (pid 1)."""
    return [int(name) for name in os.listdir("/proc") if name.isdigit() and name != "1"]


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _settle(grace: float) -> None:
    """Let background commands finish (and log), then kill whatever is left."""
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        _reap()
        if not _others():
            return
        time.sleep(0.003)
    try:
        os.kill(-1, signal.SIGKILL)  # every process of the namespace but this one
    except OSError as exc:
        if exc.errno != errno.ESRCH:
            raise
    for _ in range(200):
        _reap()
        if not _others():
            return
        time.sleep(0.002)


def _clear(folder: str) -> None:
    for name in os.listdir(folder):
        path = os.path.join(folder, name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                os.unlink(path)


def _records() -> list[list[str]]:
    try:
        with open(TRACE, encoding="utf-8", errors="replace") as handle:
            raw = handle.read()
    except FileNotFoundError:
        return []
    records = []
    for chunk in raw.split(RECORD_END + FIELD_END):
        if chunk.endswith(FIELD_END):
            records.append(chunk[:-1].split(FIELD_END))
    return records


def _run(shell: str, line: str, seconds: float) -> dict:  # type: ignore[type-arg]
    for folder in ("/work", "/tmp", "/.trace", "/home/lab"):
        _clear(folder)
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", "HOME": "/home/lab"}
    env.update({"LANG": "C.UTF-8", "TERM": "dumb", "USER": "lab"})
    timed_out = False
    started = time.monotonic()
    process = subprocess.Popen(
        [shell, "-c", line],
        cwd="/work",
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        _, err = process.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        timed_out = True
        os.kill(-1, signal.SIGKILL)
        _, err = process.communicate()
    _settle(0.3 if not timed_out else 0.0)
    return {
        "exec": _records(),
        "status": process.returncode,
        "stderr": err[-600:].decode("utf-8", "replace"),
        "timed_out": timed_out,
        "seconds": round(time.monotonic() - started, 4),
    }


def main() -> int:
    job = json.loads(sys.stdin.read())
    out = sys.stdout
    root = job["root"]  # an empty folder the caller made and removes: only a mount point
    _build(root, job)
    if job.get("probe"):
        probe = {
            "old_root_gone": not os.path.exists("/tmp/old") and not os.path.exists("/work/rt3"),
            "listing": sorted(os.listdir("/")),
        }
        out.write(json.dumps({"probe": probe}) + "\n")
    for index, line in enumerate(job["lines"]):
        for shell in job["shells"]:
            result = _run(f"/bin/{shell}", line, job["seconds"])
            result.update({"index": index, "shell": shell})
            out.write(json.dumps(result) + "\n")
            out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
