"""What the splitter produces and carries: commands, the parse result, words, limits."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

PARSE_LIMIT_CHARS: Final = 4 * 1024 * 1024
"""Characters of one command line that are split; the rest counts as unparsed (never as allowed)."""

UNKNOWN_PROGRAM: Final = "$"
"""How a program whose name comes from an expansion is listed in Command.piped_from."""

MAX_COMMANDS: Final = 5_000
MAX_TOKENS: Final = 50_000
MAX_DEPTH: Final = 24  # nested $(...), sh -c, eval: deeper is unparsed, not skipped

# A stdin text the splitter cannot know (a here-string built from an expansion).
UNKNOWN_STDIN: Final = "\0unknown stdin"


# Plain classes with __slots__, not NamedTuples: creating a NamedTuple class costs about a
# millisecond at import, and this module loads on hook calls that have ACP_POLICY set.
class Command:
    """One simple command: its words after quote removal, and what the splitter could not resolve."""

    __slots__ = ("argv", "many", "one_word", "piped_from", "reads", "unresolved", "via")

    def __init__(
        self,
        argv: tuple[str, ...],
        unresolved: frozenset[int],
        piped_from: tuple[str, ...],
        via: tuple[str, ...],
        one_word: dict[int, str] | None = None,
        many: frozenset[int] = frozenset(),
        reads: tuple[str, ...] = (),
    ) -> None:
        self.argv = argv
        # Indexes of words whose value comes from an expansion the splitter does not run.
        self.unresolved = unresolved
        # Of those, the quoted ones that stay one word, with their literal prefix: "./$d" cannot
        # be an option, "$d" can.
        self.one_word = one_word or {}
        # Programs earlier in the same pipeline (their basenames), for pipe-to-shell rules.
        self.piped_from = piped_from
        # Wrappers and shells it was found behind, outermost first (for explanations).
        self.via = via
        # Indexes of words the shell may turn into any number of words (globs, braces, $x).
        self.many = many
        # Files its input redirections read (`cat < .env`): argument-like for path rules.
        self.reads = reads

    def __repr__(self) -> str:
        return f"Command({self.argv!r}, unresolved={sorted(self.unresolved)}, via={self.via!r})"


class Parsed:
    """Every simple command of a command line, and why part of it could not be split (if so)."""

    __slots__ = ("commands", "problems")

    def __init__(self, commands: tuple[Command, ...], problems: tuple[str, ...]) -> None:
        self.commands = commands
        self.problems = problems

    @property
    def readable(self) -> bool:
        """Whether the line was read completely: no problem and every program known."""
        return not self.problems and not any(0 in c.unresolved for c in self.commands)


class Word:
    __slots__ = (
        "assign",
        "brace",
        "glob",
        "heredoc",
        "known",
        "quoted",
        "splits",
        "text",
        "unresolved",
    )

    def __init__(
        self,
        text: str,
        unresolved: bool,
        heredoc: int = -1,
        *,
        glob: bool = False,
        splits: bool = False,
        known: tuple[str, str] = ("", ""),
        brace: bool = False,
        quoted: bool = False,
        assign: bool = False,
    ) -> None:
        self.text = text
        self.unresolved = unresolved  # part of the text comes from an expansion
        self.heredoc = heredoc  # index of the here-document this redirection reads, or -1
        self.glob = glob  # an unquoted * ? or [: as a command word it could name any program
        self.splits = splits  # an unquoted expansion: it may become several words, or none
        self.known = known  # the literal text before the first and after the last expansion
        self.brace = brace  # an unquoted brace expansion: several words sharing the prefix
        self.quoted = quoted  # some of it was quoted or escaped (a here-document delimiter)
        self.assign = assign  # NAME= unquoted at its start: an assignment before a command


class Stop(Exception):
    """A limit was reached: the parse ends with what it has and a problem saying so."""


class State:
    """What one parse collects across nested scripts."""

    def __init__(self, budget: int) -> None:
        self.commands: list[Command] = []
        self.problems: list[str] = []
        self.budget = budget
        self.words = 0
        self.braces = 0

    def token(self) -> None:
        self.words += 1
        if self.words > MAX_TOKENS:
            self.problem(f"more than {MAX_TOKENS} words and operators; the rest was not split")
            raise Stop

    def problem(self, text: str) -> None:
        if text not in self.problems:
            self.problems.append(text)

    def add(self, command: Command) -> None:
        if len(self.commands) >= MAX_COMMANDS:
            self.problem(f"more than {MAX_COMMANDS} simple commands; the rest was not split")
            raise Stop
        self.commands.append(command)


def basename(word: str) -> str:
    """The program name of a command word: the text after its last slash (or backslash)."""
    return word.rsplit("/", 1)[-1].rsplit("\\", 1)[-1]
