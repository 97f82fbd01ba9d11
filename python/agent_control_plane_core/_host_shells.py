"""Hook command lines for the shell each host really runs them through, and per-host folders.

`acp install` builds one argv per hook ([/usr/bin/env, -u NAME, NAME=VALUE, ..., script] or the
script alone). POSIX hosts get it shell-quoted; on Windows a host runs the line through its own
shell, where POSIX quotes are no quotes (docs/findings.md HA3-10):

- Windsurf (Cascade) runs `command` through `powershell -Command` when the handler names no
  `powershell` key: the line is PowerShell, `& 'path'` with environment set through `$env:`.
- Kiro CLI runs `cmd /C <command>`, handing the line as one argument of a Rust Command, which
  wraps an argument holding a space in double quotes and escapes any double quote inside with a
  backslash cmd does not read: the line holds no quote at all, `set NAME=VALUE&&` before the
  bare path, and a line cmd could not run as meant is refused.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import Final

__all__ = [
    "WindowsQuotingError",
    "cmd_line",
    "detect_version",
    "documents_dir",
    "powershell_line",
    "split_env",
]

# POSIX env(1), as install.hook_command writes it.
_ENV: Final = "/usr/bin/env"
# Characters cmd.exe reads as syntax (or, for the quote, as the start of a quoted run).
_CMD_SPECIAL: Final = frozenset('&|<>^%"()!')
# The XDG user-dirs file and its documents entry (xdg-user-dirs: user-dirs.dirs).
_USER_DIRS: Final = "user-dirs.dirs"
_DOCUMENTS: Final = re.compile(r'^\s*XDG_DOCUMENTS_DIR\s*=\s*"(.*)"\s*$', re.MULTILINE)


class WindowsQuotingError(ValueError):
    """A hook command that the host's Windows shell cannot run as meant."""


def split_env(argv: Sequence[str]) -> tuple[list[str], list[tuple[str, str]], list[str]]:
    """An install argv as (names unset, (name, value) assignments, the program and its args)."""
    if not argv or argv[0] != _ENV:
        return [], [], list(argv)
    unset: list[str] = []
    assignments: list[tuple[str, str]] = []
    rest = list(argv[1:])
    while rest:
        if rest[0] == "-u" and len(rest) > 1:
            unset.append(rest[1])
            rest = rest[2:]
        elif "=" in rest[0]:
            name, _, value = rest[0].partition("=")
            assignments.append((name, value))
            rest = rest[1:]
        else:
            break
    return unset, assignments, rest


def _ps_quote(text: str) -> str:
    """A PowerShell single-quoted string literal: nothing inside expands; ' is doubled."""
    return "'" + text.replace("'", "''") + "'"


def powershell_line(argv: Sequence[str]) -> str:
    """The argv as a PowerShell command: environment first, then the call operator on the path."""
    unset, assignments, program = split_env(argv)
    parts = [f"Remove-Item -ErrorAction SilentlyContinue Env:{name}" for name in unset]
    parts += [f"$env:{name} = {_ps_quote(value)}" for name, value in assignments]
    parts.append("& " + " ".join(_ps_quote(word) for word in program))
    return "; ".join(parts)


def cmd_line(argv: Sequence[str]) -> str:
    """The argv as the one cmd /C argument a Rust Command passes on, or WindowsQuotingError."""
    unset, assignments, program = split_env(argv)
    words = [*unset, *(f"{n}={v}" for n, v in assignments), *program]
    odd = sorted({c for word in words for c in word if c in _CMD_SPECIAL})
    if odd:
        raise WindowsQuotingError(
            f"{' '.join(program)}: the characters {''.join(odd)} cannot pass through cmd /C as"
            " Kiro runs hooks on Windows; install into a folder without them, or set the options"
            " in the environment Kiro starts from"
        )
    spaced = [word for word in program if " " in word]
    settings = [f"set {name}=&&" for name in unset] + [f"set {n}={v}&&" for n, v in assignments]
    if spaced and (settings or len(program) > 1):
        # The whole line is then quoted once and cmd strips those quotes, splitting the path.
        raise WindowsQuotingError(
            f"{spaced[0]}: a path with a space runs through cmd /C only alone; install into a"
            " folder without spaces, or set the options in the environment Kiro starts from"
        )
    return "".join(settings) + " ".join(program)


def documents_dir(home: Path, environ: Mapping[str, str] | None = None) -> Path:
    """The user's Documents folder: XDG_DOCUMENTS_DIR from user-dirs.dirs on Linux, else ~/Documents.

    Cline's VS Code extension reads its global hooks from <Documents>/Cline/Hooks, where
    <Documents> is `xdg-user-dir DOCUMENTS` on Linux (docs/findings.md HA3-12).
    """
    env = os.environ if environ is None else environ
    config = env.get("XDG_CONFIG_HOME") or str(home / ".config")
    try:
        text = (Path(config) / _USER_DIRS).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return home / "Documents"
    found = _DOCUMENTS.search(text)
    if found is None:
        return home / "Documents"
    value = found.group(1).replace("$HOME", str(home))
    path = Path(value)
    # xdg-user-dirs: an absolute path or one relative to $HOME; $HOME itself means "not set".
    if not path.is_absolute():
        path = home / path
    return home / "Documents" if path == home else path


# The command each host with version facts answers its version to (hosts/<host>.json versions):
# `acp install HOST --host-version detect` runs it from PATH.
VERSION_COMMANDS: Final[Mapping[str, tuple[str, ...]]] = {
    "claude": ("claude", "--version"),
    "codex": ("codex", "--version"),
    "copilot": ("copilot", "--version"),
    "qwen": ("qwen", "--version"),
}
_VERSION: Final = re.compile(r"(?<![\d.])(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)")


def detect_version(host: str, run: Callable[[Sequence[str]], str] | None = None) -> str | None:
    """The installed host's version from its --version output, or None when it does not answer."""
    command = VERSION_COMMANDS.get(host)
    if command is None:
        return None
    try:
        text = (run or _run)(command)
    except (OSError, ValueError):
        return None
    found = _VERSION.search(text)
    return found.group(1) if found else None


def _run(command: Sequence[str]) -> str:
    import subprocess

    done = subprocess.run(
        list(command),
        capture_output=True,
        text=True,
        timeout=20,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    return done.stdout if done.returncode == 0 else ""
