"""What an install warns about: machine paths, folders the agent can write, what stays open when the hook cannot start."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from ._base import _LOCAL, Scope, _declaration


def _machine_path_notes(
    host: str, scope: Scope, local: bool, path: Path, folder: Path
) -> tuple[str, ...]:
    """Say that a project file now names this machine's console-script folder (N14)."""
    if scope != "project":
        return ()
    if local:
        return (
            f"{path} is for this machine only: keep it out of git (add it to .gitignore if"
            " Claude Code has not).",
        )
    text = (
        f"{path} now names this machine's {folder.absolute()}; if the file is committed, every"
        " other machine needs its own acp install (or the same path)"
    )
    if host in _LOCAL:
        text += f"; --local writes {_LOCAL[host]} instead, which stays on this machine"
    return (text + ".",)


def _temporary_folders() -> tuple[str, ...]:
    """The temporary folders, which sandboxes let the agent write (Codex's workspace-write)."""
    return (tempfile.gettempdir(), "/tmp", "/var/tmp", "/dev/shm")


def _inside(path: Path, folder: Path) -> bool:
    try:
        Path(os.path.realpath(path)).relative_to(os.path.realpath(folder))
    except ValueError:
        return False
    return True


def _reach_notes(
    host: str, project: Path | None, judge: str | None, policy: str | None
) -> tuple[str, ...]:
    """A warning per rule file or judge inside a folder the agent may write (issue 26)."""
    places = [Path(folder) for folder in _temporary_folders()]
    if project is not None:
        places.insert(0, project)
    what: list[tuple[str, Path]] = []
    if policy is not None:
        what.append((f"the policy {Path(policy).absolute()}", Path(policy).absolute()))
    if judge is not None:
        origin = getattr(sys.modules.get(judge.partition(":")[0]), "__file__", None)
        if isinstance(origin, str):
            what.append((f"the judge {judge} ({origin})", Path(origin)))
    notes = []
    for label, path in what:
        where = next((place for place in places if _inside(path, place)), None)
        if where is not None:
            notes.append(
                f"warning: {label} is inside {where}, a folder the agent may write to: it could"
                " change its own guard. Keep it outside (for example in"
                f" ~/.config/agent-control-plane-core/) and run acp install {host} again with"
                " that path."
            )
    return tuple(notes)


def _dead_hook_notes(host: str, fail_closed: bool) -> tuple[str, ...]:
    """What stays open when the hook process dies or cannot start (exit 127), from DEAD_HOOK."""
    from .._generated.constants import DeadHooks

    declaration = _declaration(host)
    dead = getattr(declaration, "DEAD_HOOK", DeadHooks.RUNS)
    if dead == DeadHooks.BLOCKS or (dead == DeadHooks.BLOCKS_FAIL_CLOSED and fail_closed):
        return ()
    cause = (
        "if the hook process dies or cannot start (the project moved, .venv recreated, the"
        " package uninstalled: exit 127)"
    )
    if dead == DeadHooks.BLOCKS_FAIL_CLOSED:
        return (
            f"{cause}, {host} runs the call; --fail-closed registers its own block for that"
            " case as well.",
        )
    # A version fact can give the host a blocking failure mode from some release on.
    later = [
        (str(fact.get("since")), fact["set"]["dead_hook"])
        for fact in getattr(declaration, "VERSION_FACTS", ())
        if "dead_hook" in fact.get("set", {}) and fact.get("since")
    ]
    for since, mode in later:
        if mode == DeadHooks.BLOCKS:
            return (f"{cause}, {host} runs the call before {since}; from {since} it blocks it.",)
        if mode == DeadHooks.BLOCKS_FAIL_CLOSED:
            how = "is registered" if fail_closed else "would be registered with --fail-closed"
            return (
                f"{cause}, {host} runs the call; from {since} on, the block for that case that"
                f" {how} is honoured.",
            )
    return (
        f"{cause}, {host} runs the call and no audit line is written: it has no blocking"
        " failure mode, so run acp install again after moving or recreating the environment.",
    )
