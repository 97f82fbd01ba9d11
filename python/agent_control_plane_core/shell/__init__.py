"""A POSIX-ish shell splitter for the policy judge: a command line into the simple commands it runs.

Conservative by construction (issue 27): a construct it does not model exactly is reported as a
problem (Parsed.problems) or an unknown program, so `on_unparsed = "match"` decides. The shell
lab (lab/shell) runs every corpus line under real bash, dash and zsh and checks that what they
execute is among the commands reported here, or that the line is reported as not fully readable.
"""

from __future__ import annotations

from ._model import PARSE_LIMIT_CHARS, UNKNOWN_PROGRAM, Command, Parsed, State, Stop, Word, basename

__all__ = [
    "PARSE_LIMIT_CHARS",
    "UNKNOWN_PROGRAM",
    "Command",
    "Parsed",
    "basename",
    "parse_argv",
    "parse_script",
]


def parse_script(text: str) -> Parsed:
    """Split a shell command line into its simple commands, nested scripts included."""
    from ._grammar import script

    state = State(PARSE_LIMIT_CHARS)
    if len(text) > PARSE_LIMIT_CHARS:
        state.problem(f"longer than {PARSE_LIMIT_CHARS} characters; the rest was not split")
        text = text[:PARSE_LIMIT_CHARS]
    try:
        script(text, state, 0, ())
    except Stop:
        pass
    return Parsed(tuple(state.commands), tuple(state.problems))


def parse_argv(argv: list[str]) -> Parsed:
    """The simple commands of a command given as an argument vector (Codex's list form)."""
    from ._grammar import simple

    state = State(PARSE_LIMIT_CHARS)
    words = [Word(word, False) for word in argv]
    try:
        simple(words, state, 0, (), (), "", False)
    except Stop:
        pass
    return Parsed(tuple(state.commands), tuple(state.problems))
