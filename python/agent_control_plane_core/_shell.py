"""The shell splitter's former module name: everything lives in the shell subpackage (issue 27)."""

from __future__ import annotations

from .shell import (
    PARSE_LIMIT_CHARS,
    UNKNOWN_PROGRAM,
    Command,
    Parsed,
    basename,
    parse_argv,
    parse_script,
)

__all__ = [
    "PARSE_LIMIT_CHARS",
    "UNKNOWN_PROGRAM",
    "Command",
    "Parsed",
    "basename",
    "parse_argv",
    "parse_script",
]
