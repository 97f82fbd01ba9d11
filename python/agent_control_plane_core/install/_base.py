"""What an install plan is, and reading and writing host configuration files safely."""

from __future__ import annotations

import difflib
import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

from .._generated.constants import EventKinds

Scope = Literal["project", "user"]


SCOPES: Final[tuple[Scope, ...]] = ("project", "user")


# Event kinds where exit 2 stops a tool call; elsewhere (a Stop event) it means something else.
_TOOL_KINDS: Final = frozenset({EventKinds.PRE_TOOL, EventKinds.POST_TOOL})


# POSIX env(1) at its usual absolute path: no PATH lookup or shim sits in front of the hook.
_ENV_PROGRAM: Final = "/usr/bin/env"


class InstallError(Exception):
    """A configuration that cannot be merged safely; the message names the file and the fix."""


@dataclass(frozen=True)
class InstallPlan:
    """What installing would do to one configuration file."""

    host: str
    path: Path
    before: str | None
    after: str
    notes: tuple[str, ...] = ()
    # Permission bits for a file the host executes itself (Cline runs one per event); None keeps.
    mode: int | None = None
    # Further files the same install writes: Cline's program for each other event it registers.
    also: tuple[InstallPlan, ...] = ()

    @property
    def changed(self) -> bool:
        """Whether applying the plan would change a file."""
        return self.before != self.after or any(plan.changed for plan in self.also)

    def diff(self) -> str:
        """A unified diff from the current files to the planned ones."""
        lines = difflib.unified_diff(
            (self.before or "").splitlines(keepends=True),
            self.after.splitlines(keepends=True),
            fromfile=str(self.path) if self.before is not None else "/dev/null",
            tofile=str(self.path),
        )
        return "".join(lines) + "".join(plan.diff() for plan in self.also)

    def apply(self) -> bool:
        """Write the planned files atomically, each one; return whether anything changed."""
        wrote = self._apply_one()
        for plan in self.also:
            wrote = plan.apply() or wrote
        return wrote

    def _apply_one(self) -> bool:
        """Write this plan's own file (not its also plans); return whether anything changed."""
        if self.before == self.after:
            if self.mode is not None and self.path.stat().st_mode & 0o7777 != self.mode:
                os.chmod(self.path, self.mode)
                return True
            return False
        # M10: a symlinked config (dotfiles) is written through the link, in the target's folder.
        target = Path(os.path.realpath(self.path))
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            _check_writable(target)
            # Write beside the target and rename, so a crash never leaves half a settings file.
            fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
        except OSError as exc:
            raise InstallError(f"{target}: cannot write ({exc.strerror or exc})") from exc
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(self.after)
            # L5: the replaced file's mode, or for a new file the usual umask default (not 0600);
            # a program the host executes (Cline's hook) is made executable.
            mode = target.stat().st_mode & 0o7777 if target.exists() else 0o666 & ~_umask()
            os.chmod(tmp, self.mode if self.mode is not None else mode)
            os.replace(tmp, target)
        except BaseException as exc:
            Path(tmp).unlink(missing_ok=True)
            if isinstance(exc, OSError):
                raise InstallError(f"{target}: cannot write ({exc.strerror or exc})") from exc
            raise
        return True


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _check_writable(path: Path) -> None:
    """Refuse a config the user made read-only (M10): its mode says not to change it."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return
    if not mode & 0o222 or not os.access(path, os.W_OK):
        raise InstallError(
            f"{path} is read-only (mode {mode & 0o777:o}); make it writable to install, or add"
            " the entry by hand (`acp install --dry-run` prints it)"
        )


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InstallError(f"{path}: cannot read ({exc.strerror})") from exc


def _load_json(path: Path, text: str | None) -> dict[str, Any]:
    if text is None or not text.strip():
        return {}
    try:
        loaded = json.loads(
            text,
            object_pairs_hook=_no_duplicates,
            parse_constant=_no_constant,
            parse_float=_finite_float,
        )
    except _Unsafe as exc:
        raise InstallError(f"{path}: {exc}; fix it by hand so nothing of yours is lost") from exc
    except ValueError as exc:
        raise InstallError(
            f"{path} is not valid JSON ({exc}); fix or move it, then run acp install again"
        ) from exc
    if not isinstance(loaded, dict):
        raise InstallError(f"{path} holds a JSON {type(loaded).__name__}, not an object")
    return loaded


class _Unsafe(Exception):
    """Valid JSON that a rewrite would change: a duplicate key, a number JSON cannot carry."""


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # L5: json.loads keeps only the last of duplicate keys; a rewrite would drop the others.
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise _Unsafe(f"key {key!r} appears twice in one object")
        seen[key] = value
    return seen


def _no_constant(name: str) -> Any:
    raise _Unsafe(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    # L1: 1e400 reads as infinity, which json.dumps would write back as Infinity (not JSON).
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise _Unsafe(f"the number {text} is too large to keep as written")
    return value


def _dump_json(path: Path, settings: dict[str, Any], before: str | None = None) -> str:
    text = json.dumps(settings, indent=_indent_of(before), ensure_ascii=False, allow_nan=False)
    text += "\n"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        # L5: a "\\ud800" escape decodes to a lone surrogate, which has no UTF-8 form.
        raise InstallError(
            f"{path} holds a lone surrogate escape (\\u{ord(exc.object[exc.start]):04x});"
            " fix it by hand"
        ) from exc
    return text


def _child(parent: dict[str, Any], key: str, kind: type, path: Path) -> Any:
    """parent[key], created empty when absent; refuse to overwrite a value of another type."""
    value = parent.setdefault(key, kind())
    if not isinstance(value, kind):
        raise InstallError(
            f"{path}: {key!r} is a {type(value).__name__}, expected a {kind.__name__};"
            " fix it by hand so nothing of yours is overwritten"
        )
    return value


@dataclass(frozen=True)
class _Request:
    host: str
    path: Path
    argv: list[str]
    plain_argv: list[str]
    fail_closed: bool
    timeout_s: int
    timeout_set: bool = True
    matcher: str | None = None
    # Windows: the line is written for the shell the host runs it through there (HA3-10).
    windows: bool = False


def _indent_of(before: str | None) -> int | str:
    """The indentation the file already had (N36: a small diff), else 2."""
    indent: int | str = 2
    if before:
        first = next((line for line in before.splitlines()[1:] if line.strip()), "")
        lead = first[: len(first) - len(first.lstrip())]
        if lead == "\t" or (lead and set(lead) == {" "}):
            indent = "\t" if lead == "\t" else len(lead)
    return indent


# Per-machine project settings beside the committed file: Claude Code also reads
# .claude/settings.local.json, its settings file kept out of git (code.claude.com/docs/en/settings;
# N14).
_LOCAL: Final[Mapping[str, str]] = {"claude": ".claude/settings.local.json"}


def _declaration(host: str) -> Any:
    """The generated declaration module of one host (imported only when an install needs it)."""
    import importlib

    return importlib.import_module(f"{__package__.rpartition('.')[0]}._generated.hosts.{host}")
