"""The hook command line an install registers, and recognising the ones it wrote."""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Final

from ..runtime import (
    AUDIT_ENV,
    CODEX_VERSION_ENV,
    FAIL_CLOSED_ENV,
    JUDGE_ENV,
    JUDGE_PATH_ENV,
    ON_UNRENDERED_ENV,
    POLICY_DIGEST_ENV,
    POLICY_ENV,
    SOLE_GATE_ENV,
)
from ._base import _ENV_PROGRAM, _TOOL_KINDS, InstallError, _Request


def hook_command(
    host: str,
    *,
    judge: str | None = None,
    policy: str | None = None,
    fail_closed: bool = False,
    codex_version: str | None = None,
    bin_dir: Path | None = None,
    on_unrendered: str | None = None,
    sole_gate: bool = False,
    judge_path: tuple[str, ...] = (),
    audit_log: str | None = None,
    version_env: tuple[str, str] | None = None,
) -> list[str]:
    """The argv a host runs: the venv's absolute acp-<host>-hook, options set in its environment."""
    folder = (bin_dir or Path(sys.executable).parent).absolute()
    script = str(folder / f"acp-{host}-hook")
    # N13: options go in front of the fast entry as environment assignments, through env(1), so
    # the command works whether the host runs it through a shell or splits it into an argv;
    # `acp hook` would load the argument parser and every subcommand on each call.
    unset: list[str] = []
    assignments: list[str] = []
    if codex_version is not None:
        assignments.append(f"{CODEX_VERSION_ENV}={codex_version}")
    if version_env is not None:
        # The installed host's version (--host-version), so its version facts apply (HA3-15).
        assignments.append(f"{version_env[0]}={version_env[1]}")
    if judge is not None:
        unset += ["-u", POLICY_ENV]  # the registered judge wins over an inherited ACP_POLICY
        assignments.append(f"{JUDGE_ENV}={judge}")
    if judge is not None and judge_path:
        assignments.append(f"{JUDGE_PATH_ENV}={os.pathsep.join(judge_path)}")
    if policy is not None:
        assignments.append(f"{POLICY_ENV}={Path(policy).absolute()}")
        from contextlib import suppress

        from .._pin import file_digest

        # Issue 28: the rule file is pinned, the hook refuses it once it changes; one that cannot
        # be read is refused with the reason once the entry is planned (_registered).
        with suppress(OSError):
            assignments.append(f"{POLICY_DIGEST_ENV}={file_digest(str(Path(policy).absolute()))}")
    if on_unrendered is not None:
        assignments.append(f"{ON_UNRENDERED_ENV}={on_unrendered}")
    if fail_closed:
        assignments.append(f"{FAIL_CLOSED_ENV}=1")
    if sole_gate:
        assignments.append(f"{SOLE_GATE_ENV}=1")
    if audit_log is not None:
        assignments.append(f"{AUDIT_ENV}={Path(audit_log).absolute()}")
    if not unset and not assignments:
        return [script]
    if "=" in script:
        # env(1) would read the path as one more assignment and run nothing.
        raise InstallError(
            f"{script}: a console-script folder with '=' in its path cannot carry options; set"
            " ACP_JUDGE/ACP_POLICY where the host runs, or install into another folder"
        )
    return [_ENV_PROGRAM, *unset, *assignments, script]


def _is_ours(command: object, host: str) -> bool:
    """Whether a configured command is an entry this installer wrote for this host."""
    if not isinstance(command, str):
        return False
    if Path(command).name == f"acp-{host}-hook":
        # L3: a bare program path (Amp's delegate `to`) is compared whole, never shell-split,
        # so a venv path with a space or a quote is still recognised on reinstall.
        return True
    try:
        argv = shlex.split(command)
    except ValueError:
        return False
    if not argv:
        return False
    if Path(argv[0]).name == "env":
        # N13: env [-u NAME]... [NAME=VALUE]... acp-<host>-hook
        rest = argv[1:]
        while rest and (rest[0] == "-u" or "=" in rest[0]):
            rest = rest[2:] if rest[0] == "-u" else rest[1:]
        argv = rest or [""]
    program = Path(argv[0]).name
    # `acp hook <host> ...` is the form earlier releases wrote: a reinstall replaces it.
    return program == f"acp-{host}-hook" or (program == "acp" and argv[1:3] == ["hook", host])


def _command(request: _Request, kind: str) -> tuple[str, bool]:
    """The command line registered for one event kind, and whether it fails closed."""
    # contract.md §7: fail closed only where exit 2 stops a tool call.
    closed = request.fail_closed and kind in _TOOL_KINDS
    argv = request.argv if closed else request.plain_argv
    line = _WINDOWS_LINES.get(request.host) if request.windows else None
    if line is not None:
        from .. import _host_shells

        try:
            return getattr(_host_shells, line)(argv), closed
        except _host_shells.WindowsQuotingError as exc:
            raise InstallError(str(exc)) from None
    return shlex.join(argv), closed


# The shell a host runs its hook line through on Windows (docs/findings.md HA3-10): Cascade's
# powershell -Command, Kiro's cmd /C; a host not named here runs an argv or a POSIX shell.
_WINDOWS_LINES: Final[Mapping[str, str]] = {"windsurf": "powershell_line", "kiro": "cmd_line"}


def _registered(host: str, judge: str | None, policy: str | None) -> str:
    """What the entry runs, checked now (N2): the judge imports, the rule file loads."""
    from .._judges import JudgeLoadError, load_judge

    try:
        if policy is not None:
            from ..policy import load_policy_judge

            loaded = load_policy_judge(str(Path(policy).absolute()))
            return f"acp-{host}-hook runs the policy {loaded.source}."
        if judge is not None:
            load_judge(judge)
            return f"acp-{host}-hook runs the judge {judge}."
    except JudgeLoadError as exc:
        raise InstallError(f"not registered: {exc}") from exc
    return (
        f"acp-{host}-hook runs the demo judge, which blocks only rm -rf, unless ACP_POLICY or"
        " ACP_JUDGE is set where the host runs it; pass --policy or --judge to register your own."
    )


def _judge_path(judge: str | None) -> tuple[str, ...]:
    """The folder the judge's module imports from when only PYTHONPATH provides it (issue 26).

    The hook runs with the host's environment, not this shell's: a judge found through PYTHONPATH
    would not import there, so its folder is recorded in the command (ACP_JUDGE_PATH).
    """
    if judge is None:
        return ()
    from .._judges import JudgeLoadError, load_judge

    try:
        load_judge(judge)
    except JudgeLoadError:
        return ()  # refused with the reason once the entry is planned (_registered)
    top = judge.partition(":")[0].split(".")[0]
    origin = getattr(sys.modules.get(top), "__file__", None)
    if not isinstance(origin, str):
        return ()  # a built-in or namespace module: nothing to record
    # The sys.path entry it came from: the module file's folder, or a package's parent folder.
    root = os.path.dirname(os.path.realpath(origin))
    if os.path.basename(origin).startswith("__init__."):
        root = os.path.dirname(root)
    extra = os.environ.get("PYTHONPATH", "")
    if any(os.path.realpath(entry or os.curdir) == root for entry in extra.split(os.pathsep)):
        return (root,)
    return ()
