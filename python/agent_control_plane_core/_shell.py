"""A POSIX-ish shell splitter for the policy judge: a command line into the simple commands it runs."""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

__all__ = [
    "PARSE_LIMIT_CHARS",
    "UNKNOWN_PROGRAM",
    "Command",
    "Parsed",
    "basename",
    "parse_argv",
    "parse_script",
]

PARSE_LIMIT_CHARS: Final = 4 * 1024 * 1024
"""Characters of one command line that are split; the rest counts as unparsed (never as allowed)."""

UNKNOWN_PROGRAM: Final = "$"
"""How a program whose name comes from an expansion is listed in Command.piped_from."""

_MAX_COMMANDS: Final = 5_000
_MAX_TOKENS: Final = 50_000
_MAX_DEPTH: Final = 24  # nested $(...), sh -c, eval: deeper is unparsed, not skipped

# Runs of characters with no meaning to the splitter, consumed by one regex step (bounded time
# on padding: docs/findings.md PF-16 to PF-18).
_PLAIN: Final = re.compile(r"[^\s'\"\\$`;&|()<>#*?\[]+")
_BLANK: Final = re.compile(r"[ \t\r\f\v]+")
_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ASSIGNMENT: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")
# An all-digit prefix right before < or > is the redirected descriptor, not an argument.
_OPERATOR: Final = re.compile(
    r"(\d*)(&>>|&>|<<<|<<-|<<|<>|<&|<|>>|>&|>\||>)|(;;&|;;|;&|&&|\|\||\|&|[;&|()\n])"
)
_REDIRECTS: Final = frozenset({"&>>", "&>", "<<<", "<>", "<&", ">>", ">&", ">|", "<", ">"})
_HEREDOCS: Final = frozenset({"<<", "<<-"})
_PIPES: Final = frozenset({"|", "|&"})
# Words that open or close a compound command; at command position they are not the program.
_RESERVED_SKIP: Final = frozenset(
    {"!", "{", "}", "if", "then", "elif", "else", "fi", "while", "until", "do", "done", "esac"}
)
_HEADERS: Final = frozenset({"for", "select", "case", "function"})
_SHELLS: Final = frozenset({"sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "yash", "fish"})
_ECHOES: Final = frozenset({"echo", "printf"})


# Plain classes with __slots__, not NamedTuples: creating a NamedTuple class costs about a
# millisecond at import, and this module loads on hook calls that have ACP_POLICY set.
class _Wrapper:
    __slots__ = ("long_values", "positionals", "short_values")

    def __init__(self, short_values: str, long_values: frozenset[str], positionals: int) -> None:
        self.short_values = short_values  # option letters that take a value
        self.long_values = long_values
        self.positionals = positionals  # words before the command (timeout's duration)


# Programs that run another program given as their arguments (docs/findings.md PN-4).
_WRAPPERS: Final = {
    "sudo": _Wrapper(
        "ugpCDrtTUR",
        frozenset(
            {
                "--user",
                "--group",
                "--prompt",
                "--close-from",
                "--chdir",
                "--role",
                "--type",
                "--command-timeout",
                "--other-user",
                "--host",
                "--chroot",
            }
        ),
        0,
    ),
    "doas": _Wrapper("uC", frozenset(), 0),
    "env": _Wrapper("uCS", frozenset({"--unset", "--chdir", "--split-string"}), 0),
    "command": _Wrapper("", frozenset(), 0),
    "builtin": _Wrapper("", frozenset(), 0),
    "exec": _Wrapper("a", frozenset(), 0),
    "time": _Wrapper("fo", frozenset({"--format", "--output"}), 0),
    "nice": _Wrapper("n", frozenset({"--adjustment"}), 0),
    "ionice": _Wrapper(
        "cnpPu", frozenset({"--class", "--classdata", "--pid", "--pgid", "--uid"}), 0
    ),
    "timeout": _Wrapper("ks", frozenset({"--kill-after", "--signal"}), 1),
    "stdbuf": _Wrapper("ioe", frozenset({"--input", "--output", "--error"}), 0),
    "xargs": _Wrapper(
        "adEILnPs",
        frozenset(
            {
                "--arg-file",
                "--delimiter",
                "--eof",
                "--replace",
                "--max-lines",
                "--max-args",
                "--max-procs",
                "--max-chars",
                "--process-slot-var",
            }
        ),
        0,
    ),
    "nohup": _Wrapper("", frozenset(), 0),
    "setsid": _Wrapper("", frozenset(), 0),
    "chronic": _Wrapper("", frozenset(), 0),
    "unbuffer": _Wrapper("", frozenset(), 0),
    "busybox": _Wrapper("", frozenset(), 0),
    "watch": _Wrapper("nd", frozenset({"--interval", "--differences"}), 0),
}
_SHELL_VALUES: Final = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
_FIND_EXEC: Final = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_RUNNERS: Final = frozenset({"eval", "find", "su"})


class Command:
    """One simple command: its words after quote removal, and what the splitter could not resolve."""

    __slots__ = ("argv", "one_word", "piped_from", "unresolved", "via")

    def __init__(
        self,
        argv: tuple[str, ...],
        unresolved: frozenset[int],
        piped_from: tuple[str, ...],
        via: tuple[str, ...],
        one_word: dict[int, str] | None = None,
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

    def __repr__(self) -> str:
        return f"Command({self.argv!r}, unresolved={sorted(self.unresolved)}, via={self.via!r})"


class Parsed:
    """Every simple command of a command line, and why part of it could not be split (if so)."""

    __slots__ = ("commands", "problems")

    def __init__(self, commands: tuple[Command, ...], problems: tuple[str, ...]) -> None:
        self.commands = commands
        self.problems = problems


class _Word:
    __slots__ = ("glob", "heredoc", "known", "splits", "text", "unresolved")

    def __init__(
        self,
        text: str,
        unresolved: bool,
        heredoc: int = -1,
        *,
        glob: bool = False,
        splits: bool = False,
        known: tuple[str, str] = ("", ""),
    ) -> None:
        self.text = text
        self.unresolved = unresolved  # part of the text comes from an expansion
        self.heredoc = heredoc  # index of the here-document this redirection reads, or -1
        self.glob = glob  # an unquoted * ? or [: as a command word it could name any program
        self.splits = splits  # an unquoted expansion: it may become several words, or none
        self.known = known  # the literal text before the first and after the last expansion


class _Stop(Exception):
    """A limit was reached: the parse ends with what it has and a problem saying so."""


class _State:
    """What one parse collects across nested scripts."""

    def __init__(self, budget: int) -> None:
        self.commands: list[Command] = []
        self.problems: list[str] = []
        self.budget = budget
        self.words = 0
        self.braces = 0

    def token(self) -> None:
        self.words += 1
        if self.words > _MAX_TOKENS:
            self.problem(f"more than {_MAX_TOKENS} words and operators; the rest was not split")
            raise _Stop

    def problem(self, text: str) -> None:
        if text not in self.problems:
            self.problems.append(text)

    def add(self, command: Command) -> None:
        if len(self.commands) >= _MAX_COMMANDS:
            self.problem(f"more than {_MAX_COMMANDS} simple commands; the rest was not split")
            raise _Stop
        self.commands.append(command)


def basename(word: str) -> str:
    """The program name of a command word: the text after its last slash (or backslash)."""
    return word.rsplit("/", 1)[-1].rsplit("\\", 1)[-1]


def parse_script(text: str) -> Parsed:
    """Split a shell command line into its simple commands, nested scripts included."""
    state = _State(PARSE_LIMIT_CHARS)
    if len(text) > PARSE_LIMIT_CHARS:
        state.problem(f"longer than {PARSE_LIMIT_CHARS} characters; the rest was not split")
        text = text[:PARSE_LIMIT_CHARS]
    try:
        _script(text, state, 0, ())
    except _Stop:
        pass
    return Parsed(tuple(state.commands), tuple(state.problems))


def parse_argv(argv: list[str]) -> Parsed:
    """The simple commands of a command given as an argument vector (Codex's list form)."""
    state = _State(PARSE_LIMIT_CHARS)
    words = [_Word(word, False) for word in argv]
    try:
        _simple(words, state, 0, (), (), "", False)
    except _Stop:
        pass
    return Parsed(tuple(state.commands), tuple(state.problems))


# ---- the lexer --------------------------------------------------------------------------------


class _Lexer:
    """Tokens of one script: words (quotes removed) and operators; nested scripts are parsed."""

    def __init__(self, text: str, state: _State, depth: int, via: tuple[str, ...] = ()) -> None:
        self.via = via
        self.text = text
        self.pos = 0
        self.state = state
        self.depth = depth
        self.heredocs: list[str] = []
        self.pending: list[tuple[int, str, bool]] = []  # (index, delimiter, strip tabs)

    def tokens(self, stop: str = "") -> list[_Word | str]:
        """Operators as str, words as _Word, until the end or an unmatched `stop` character."""
        text = self.text
        out: list[_Word | str] = []
        level = 0  # open parentheses inside a $(...) being read
        heredoc_operator = ""
        while self.pos < len(text):
            found = _BLANK.match(text, self.pos)
            if found:
                self.pos = found.end()
                continue
            char = text[self.pos]
            if char == "\\" and text.startswith("\\\n", self.pos):
                self.pos += 2
                continue
            if char == "#":
                end = text.find("\n", self.pos)
                self.pos = len(text) if end < 0 else end
                continue
            if stop and char == stop and level == 0:
                self.pos += 1
                return out
            operator = self._operator()
            if operator is not None:
                if stop and operator == "(":
                    level += 1
                elif stop and operator == ")":
                    level -= 1
                out.append(operator)
                self.state.token()
                heredoc_operator = operator if operator in _HEREDOCS else ""
                if operator == "\n" and self.pending:
                    self._read_heredocs()
                continue
            word = self._word()
            self.state.token()
            if heredoc_operator:
                index = self.heredoc(word.text, heredoc_operator == "<<-")
                word.heredoc = index
                heredoc_operator = ""
            out.append(word)
        if stop:
            self.state.problem(f"unbalanced {'`' if stop == '`' else '$('}: no closing {stop}")
        return out

    def _operator(self) -> str | None:
        found = _OPERATOR.match(self.text, self.pos)
        if found is None:
            return None
        operator = found.group(2) or found.group(3)
        if operator in ("<", ">") and self.text.startswith("(", found.end()):
            return None  # process substitution: a word
        self.pos = found.end()
        return operator

    def _word(self) -> _Word:
        """One word from the current position: quotes removed, expansions marked unresolved."""
        text = self.text
        parts: list[str] = []
        size = 0  # characters of the word so far
        spans: list[tuple[int, int]] = []  # where the word's text comes from an expansion
        splits = False  # an unquoted expansion: it may become any number of words
        glob = False
        while self.pos < len(text):
            found = _PLAIN.match(text, self.pos)
            if found:
                parts.append(found.group())
                size += len(parts[-1])
                self.pos = found.end()
                continue
            char = text[self.pos]
            if char in " \t\r\f\v\n;&|()<>":
                if char in "<>" and text.startswith("(", self.pos + 1):
                    start = self.pos
                    self.pos += 2
                    self._nested(")")  # <(...) and >(...) run their commands
                    parts.append(text[start : self.pos])
                    spans.append((size, size + len(parts[-1])))
                    size += len(parts[-1])
                    continue
                break
            piece = ""
            if char == "#":
                piece = char  # only a word-initial # starts a comment
                self.pos += 1
            elif char in "*?[":
                piece = char
                self.pos += 1
                glob = True
            elif char == "\\":
                if self.pos + 1 < len(text):
                    if text[self.pos + 1] != "\n":
                        piece = text[self.pos + 1]
                    self.pos += 2
                else:
                    piece = "\\"
                    self.pos += 1
            elif char == "'":
                end = text.find("'", self.pos + 1)
                if end < 0:
                    self.state.problem("unbalanced single quote")
                    piece = text[self.pos + 1 :]
                    self.pos = len(text)
                else:
                    piece = text[self.pos + 1 : end]
                    self.pos = end + 1
            elif char == '"':
                self.pos += 1
                piece, inner, inner_splits = self._double_quoted()
                spans += [(size + start, size + end) for start, end in inner]
                splits = splits or inner_splits
            elif char == "`":
                start = self.pos
                self.pos += 1
                self._backtick()
                piece = text[start : self.pos]
                spans.append((size, size + len(piece)))
                splits = True
            elif char == "$":
                piece, dynamic, _ = self._dollar(quoted=False)
                if dynamic:
                    spans.append((size, size + len(piece)))
                    splits = True
            else:  # pragma: no cover - _PLAIN covers every other character
                piece = char
                self.pos += 1
            parts.append(piece)
            size += len(piece)
        word = "".join(parts)
        if not spans:
            return _Word(word, False, glob=glob)
        return _Word(
            word, True, glob=glob, splits=splits, known=(word[: spans[0][0]], word[spans[-1][1] :])
        )

    def _double_quoted(self) -> tuple[str, list[tuple[int, int]], bool]:
        """The text of a "..." string, where expansions sit in it, and whether one splits ("$@")."""
        text = self.text
        parts: list[str] = []
        size = 0
        spans: list[tuple[int, int]] = []
        splits = False
        while self.pos < len(text):
            end = self.pos
            while end < len(text) and text[end] not in '"\\$`':
                end += 1
            parts.append(text[self.pos : end])
            size += end - self.pos
            self.pos = end
            if end >= len(text):
                break
            char = text[end]
            if char == '"':
                self.pos += 1
                return "".join(parts), spans, splits
            if char == "\\":
                following = text[end + 1 : end + 2]
                piece = following if following in ('"', "\\", "$", "`") else ""
                if not piece and following != "\n":
                    piece = "\\" + following
                self.pos += 2
                parts.append(piece)
                size += len(piece)
                continue
            start = self.pos
            if char == "`":
                self.pos += 1
                self._backtick()
                piece, dynamic, piece_splits = text[start : self.pos], True, False
            else:
                piece, dynamic, piece_splits = self._dollar(quoted=True)
            parts.append(piece)
            if dynamic:
                spans.append((size, size + len(piece)))
                splits = splits or piece_splits
            size += len(piece)
        self.state.problem("unbalanced double quote")
        return "".join(parts), spans, splits

    def _dollar(self, *, quoted: bool) -> tuple[str, bool, bool]:
        """One $ form: its text, whether its value is unknown, and whether it splits in quotes."""
        text = self.text
        pos = self.pos
        following = text[pos + 1 : pos + 2]
        if following == "(":
            if text.startswith("((", pos + 1):
                self.pos = pos + 3
                self._nested(")", arithmetic=True)
                return text[pos : self.pos], True, False
            self.pos = pos + 2
            self._nested(")")
            return text[pos : self.pos], True, False
        if following == "{":
            self.pos = pos + 2
            self._braced()
            return text[pos : self.pos], True, text.startswith("${@", pos)
        if following == "'" and not quoted:
            return self._ansi_c(), False, False
        if following == '"' and not quoted:
            self.pos = pos + 2
            literal, spans, splits = self._double_quoted()
            return literal, bool(spans), splits
        name = _NAME.match(text, pos + 1)
        if name:
            self.pos = name.end()
            return text[pos : self.pos], True, False
        if following and (following.isdigit() or following in "@*#?-$!"):
            self.pos = pos + 2
            return text[pos : self.pos], True, following == "@"  # "$@" is one word per argument
        self.pos = pos + 1
        return "$", False, False

    def _ansi_c(self) -> str:
        text = self.text
        self.pos += 2
        parts: list[str] = []
        simple = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b"}
        simple.update({"f": "\f", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"})
        while self.pos < len(text):
            char = text[self.pos]
            if char == "'":
                self.pos += 1
                return "".join(parts)
            if char == "\\" and self.pos + 1 < len(text):
                code = text[self.pos + 1]
                if code in simple:
                    parts.append(simple[code])
                    self.pos += 2
                    continue
                for prefix, digits, base in (("x", 2, 16), ("u", 4, 16), ("U", 8, 16)):
                    if code == prefix:
                        found = re.match(f"[0-9a-fA-F]{{1,{digits}}}", text[self.pos + 2 :])
                        if found:
                            parts.append(chr(min(int(found.group(), base), 0x10FFFF)))
                            self.pos += 2 + found.end()
                            break
                else:
                    octal = re.match("[0-7]{1,3}", text[self.pos + 1 :])
                    if octal:
                        parts.append(chr(int(octal.group(), 8)))
                        self.pos += 1 + octal.end()
                    else:
                        parts.append("\\" + code)
                        self.pos += 2
                continue
            parts.append(char)
            self.pos += 1
        self.state.problem("unbalanced $'...' quote")
        return "".join(parts)

    def _nested(self, stop: str, *, arithmetic: bool = False) -> None:
        """Parse $(...), <(...) or `...` content as a script of its own (its commands run too)."""
        if self.depth >= _MAX_DEPTH:
            self.state.problem(f"nested deeper than {_MAX_DEPTH} levels; the rest was not split")
            self.pos = len(self.text)
            return
        inner = _Lexer(self.text, self.state, self.depth + 1, self.via)
        inner.pos = self.pos
        tokens = inner.tokens(stop)
        if arithmetic:
            # $(( ... )): the lexer stopped at the first ), the second closes the expansion.
            if inner.pos < len(self.text) and self.text[inner.pos] == ")":
                inner.pos += 1
        else:
            if self.depth < _MAX_DEPTH:
                _segments(tokens, inner.heredocs, self.state, self.depth + 1, (*self.via, "$("))
        self.pos = inner.pos

    def _backtick(self) -> None:
        text = self.text
        parts: list[str] = []
        while self.pos < len(text):
            char = text[self.pos]
            if char == "`":
                self.pos += 1
                if self.depth < _MAX_DEPTH:
                    _script("".join(parts), self.state, self.depth + 1, (*self.via, "`"))
                else:
                    self.state.problem(f"nested deeper than {_MAX_DEPTH} levels")
                return
            if char == "\\" and self.pos + 1 < len(text) and text[self.pos + 1] in "`\\$":
                parts.append(text[self.pos + 1])
                self.pos += 2
                continue
            parts.append(char)
            self.pos += 1
        self.state.problem("unbalanced `: no closing `")
        _script("".join(parts), self.state, self.depth + 1, (*self.via, "`"))

    def _braced(self) -> None:
        """Skip a ${...} expansion, parsing any command substitution inside it."""
        level = 1
        self.state.braces += 1
        if self.state.braces > _MAX_DEPTH:
            self.state.problem(f"nested deeper than {_MAX_DEPTH} levels; the rest was not split")
            raise _Stop
        try:
            self._braced_body(level)
        finally:
            self.state.braces -= 1

    def _braced_body(self, level: int) -> None:
        text = self.text
        while self.pos < len(text):
            char = text[self.pos]
            if char == "}":
                level -= 1
                self.pos += 1
                if level == 0:
                    return
            elif char == "{":
                level += 1
                self.pos += 1
            elif char == "\\":
                self.pos += 2
            elif char == "'":
                end = text.find("'", self.pos + 1)
                self.pos = len(text) if end < 0 else end + 1
            elif char == '"':
                self.pos += 1
                self._double_quoted()
            elif char == "`":
                self.pos += 1
                self._backtick()
            elif char == "$":
                self._dollar(quoted=True)
            else:
                self.pos += 1
        self.state.problem("unbalanced ${: no closing }")

    def heredoc(self, delimiter: str, strip: bool) -> int:
        """Register a here-document; its body is read after the next newline."""
        self.heredocs.append("")
        self.pending.append((len(self.heredocs) - 1, delimiter, strip))
        return len(self.heredocs) - 1

    def _read_heredocs(self) -> None:
        text = self.text
        for index, delimiter, strip in self.pending:
            lines = []
            while self.pos < len(text):
                end = text.find("\n", self.pos)
                line = text[self.pos : len(text) if end < 0 else end]
                self.pos = len(text) if end < 0 else end + 1
                if (line.lstrip("\t") if strip else line) == delimiter:
                    break
                lines.append(line.lstrip("\t") if strip else line)
            self.heredocs[index] = "\n".join(lines)
        self.pending = []


# ---- from tokens to simple commands -----------------------------------------------------------


def _script(text: str, state: _State, depth: int, via: tuple[str, ...]) -> None:
    """Parse one script's text and add its simple commands to the state."""
    if depth > _MAX_DEPTH:
        state.problem(f"nested deeper than {_MAX_DEPTH} levels")
        return
    lexer = _Lexer(text, state, depth, via)
    tokens = lexer.tokens()
    _segments(tokens, lexer.heredocs, state, depth, via)


def _segments(
    tokens: list[_Word | str],
    heredocs: list[str],
    state: _State,
    depth: int,
    via: tuple[str, ...],
) -> None:
    """Group tokens into pipelines of simple commands and expand each."""
    words: list[_Word] = []
    pipeline: list[tuple[list[_Word], str]] = []
    redirect = False
    case_pattern = False  # after `;;` the next word list up to `)` is a case pattern

    def finish_command() -> None:
        nonlocal words
        stdin = ""
        kept: list[_Word] = []
        for word in words:
            if word.heredoc >= 0:
                stdin = heredocs[word.heredoc]
            else:
                kept.append(word)
        pipeline.append((kept, stdin))
        words = []

    def finish_pipeline() -> bool:
        nonlocal pipeline
        finish_command()
        ran = any(command_words for command_words, _ in pipeline)
        upstream: list[str] = []
        echoed = ""
        for index, (command_words, stdin) in enumerate(pipeline):
            piped = index > 0
            if piped and not stdin:
                stdin = echoed  # echo 'rm -rf /' | sh: the literal text is the script
            upstream += _simple(command_words, state, depth, via, tuple(upstream), stdin, piped)
            echoed = _echoed(command_words)
            if not echoed and stdin and _is_bare_cat(command_words):
                echoed = stdin  # cat <<EOF | sh: the here-document is the script
        pipeline = []
        return ran

    for token in tokens:
        if isinstance(token, _Word):
            if redirect:
                redirect = False
                continue  # the redirection target is a file, not an argument
            words.append(token)
            continue
        if token in _REDIRECTS:
            redirect = True
            continue
        if token in _HEREDOCS:
            continue  # the delimiter word carries the body index
        redirect = False
        if token in _PIPES:
            finish_command()
            continue
        head = pipeline[0][0] if pipeline else words
        if token == ")" and (case_pattern or _is_case_head(head)):
            words, pipeline = [], []  # a case pattern such as `a|b)`: not a command
            case_pattern = False
            continue
        if finish_pipeline():
            case_pattern = False
        if token in (";;", ";&", ";;&"):
            case_pattern = True
    finish_pipeline()


def _is_case_head(words: list[_Word]) -> bool:
    return bool(words) and words[0].text == "case" and not words[0].unresolved


def _is_bare_cat(words: list[_Word]) -> bool:
    return len(words) == 1 and not words[0].unresolved and basename(words[0].text) == "cat"


def _echoed(words: list[_Word]) -> str:
    """The text an echo/printf with literal arguments writes, else '' (unknown or not an echo)."""
    if not words or words[0].unresolved or basename(words[0].text) not in _ECHOES:
        return ""
    if any(word.unresolved for word in words[1:]):
        return ""
    args = [word.text for word in words[1:] if not word.text.startswith("-")]
    return " ".join(args)


def _simple(
    words: list[_Word],
    state: _State,
    depth: int,
    via: tuple[str, ...],
    piped_from: tuple[str, ...],
    stdin: str,
    piped: bool,
) -> list[str]:
    """Add one simple command (and those it runs) to the state; return the programs' basenames."""
    index = 0
    # Leading reserved words of compound commands and variable assignments are not the program.
    while index < len(words):
        word = words[index]
        if word.unresolved or word.glob:
            break
        if word.text in _RESERVED_SKIP or _ASSIGNMENT.match(word.text):
            index += 1
            continue
        break
    words = words[index:]
    if not words:
        return []
    head = words[0]
    if not (head.unresolved or head.glob) and head.text in _HEADERS:
        return []  # for/select/case headers and function names carry no command
    argv = tuple(word.text for word in words)
    unresolved = {i for i, word in enumerate(words) if word.unresolved}
    # "$HOME/bin/tool" is still tool: an expansion only in the directory leaves the name known.
    if head.unresolved and not head.splits and "/" in head.known[1]:
        unresolved.discard(0)
    if head.glob:
        unresolved.add(0)  # /bin/r? could be any program
    one_word = {i: words[i].known[0] for i in unresolved if i and not words[i].splits}
    state.add(Command(argv, frozenset(unresolved), piped_from, via, one_word))
    if 0 in unresolved:
        return [UNKNOWN_PROGRAM]
    name = basename(head.text)
    names = [name]
    rest = words[1:]
    if name not in _WRAPPERS and name not in _SHELLS and name not in _RUNNERS:
        return names
    if depth >= _MAX_DEPTH:
        state.problem(f"nested deeper than {_MAX_DEPTH} levels")
        return names
    inner_via = (*via, name)
    if name == "watch" or name == "eval":
        _joined(
            _unwrap(name, rest, state) if name == "watch" else rest,
            state,
            depth + 1,
            inner_via,
            piped_from,
        )
    elif name in _WRAPPERS:
        inner = _unwrap(name, rest, state)
        if inner:
            names += _simple(inner, state, depth + 1, inner_via, piped_from, stdin, piped)
    elif name in _SHELLS:
        _shell(rest, state, depth, inner_via, piped_from, stdin, piped)
    elif name == "find":
        _find_exec(rest, state, depth, inner_via, piped_from)
    elif name == "su":
        _su(rest, state, depth, inner_via, piped_from)
    return names


def _unreadable(state: _State, what: str, piped: tuple[str, ...], via: tuple[str, ...]) -> None:
    """Record a command whose text the splitter cannot see (its program is unknown)."""
    state.add(Command((what,), frozenset({0}), piped, via))


def _joined(
    words: list[_Word], state: _State, depth: int, via: tuple[str, ...], piped: tuple[str, ...]
) -> None:
    """eval and watch: the arguments joined by spaces are a script."""
    if any(word.unresolved for word in words):
        _unreadable(state, "a script built from an expansion (eval/watch)", piped, via)
        return
    _script(" ".join(word.text for word in words), state, depth, via)


def _unwrap(name: str, words: list[_Word], state: _State) -> list[_Word]:
    """The command a wrapper runs: its arguments after its own options (and assignments)."""
    spec = _WRAPPERS[name]
    index = 0
    positionals = spec.positionals
    while index < len(words):
        word = words[index]
        text = word.text
        if word.unresolved:
            return words[index:]
        if text == "--":
            index += 1
            break
        if name == "env" and _ASSIGNMENT.match(text):
            index += 1
            continue
        if text.startswith("--") and len(text) > 2:
            option, has_value, value = text.partition("=")
            if name == "env" and option == "--split-string":
                split = (
                    value
                    if has_value
                    else (words[index + 1].text if index + 1 < len(words) else "")
                )
                return _split_string(split, state) + words[index + (1 if has_value else 2) :]
            index += 1
            if option in spec.long_values and not has_value:
                index += 1
            continue
        if text.startswith("-") and len(text) > 1 and name != "busybox":
            if name == "nice" and text[1:].isdigit():
                index += 1
                continue
            index += 1
            for offset, letter in enumerate(text[1:], start=2):
                if letter in spec.short_values:
                    attached = text[offset:]
                    if name == "env" and letter == "S":
                        split = attached or (words[index].text if index < len(words) else "")
                        return _split_string(split, state) + words[index + (0 if attached else 1) :]
                    if not attached:
                        index += 1
                    break
            continue
        if positionals:
            positionals -= 1
            index += 1
            continue
        break
    return words[index:]


def _split_string(text: str, state: _State) -> list[_Word]:
    """env -S: the string split into words the way the shell would."""
    lexer = _Lexer(text, state, _MAX_DEPTH)
    return [token for token in lexer.tokens() if isinstance(token, _Word)]


def _shell(
    words: list[_Word],
    state: _State,
    depth: int,
    via: tuple[str, ...],
    piped_from: tuple[str, ...],
    stdin: str,
    piped: bool,
) -> None:
    """sh -c SCRIPT, a shell fed a here-document or a literal echo, or one reading a pipe."""
    index = 0
    script: _Word | None = None
    command_flag = False
    while index < len(words):
        word = words[index]
        text = word.text
        if word.unresolved:
            break
        if text in ("--", "-"):
            index += 1
            break
        if text in _SHELL_VALUES:
            index += 2
            continue
        if text == "--command":
            command_flag = True
            index += 1
            continue
        if text.startswith("--"):
            index += 1
            continue
        if text[:1] in "-+" and len(text) > 1:
            command_flag = command_flag or "c" in text[1:]
            index += 1
            if "o" in text[1:] or "O" in text[1:]:
                index += 1  # -o OPTION
            continue
        break
    if command_flag:
        if index < len(words):
            script = words[index]
        if script is None:
            return
        if script.unresolved:
            _unreadable(
                state, f"the script of {via[-1]} -c comes from an expansion", piped_from, via
            )
            return
        _script(script.text, state, depth + 1, via)
        return
    if index < len(words):
        if words[index].unresolved:  # bash <(curl ...), bash "$SCRIPT"
            _unreadable(
                state, f"{via[-1]} runs a script that comes from an expansion", piped_from, via
            )
        return  # a script file: the file's commands cannot be read here
    if stdin:
        _script(stdin, state, depth + 1, via)
    elif piped:
        # A shell reading its script from a pipe runs text the policy cannot see.
        _unreadable(state, f"{via[-1]} reads its script from a pipe", piped_from, via)


def _find_exec(
    words: list[_Word], state: _State, depth: int, via: tuple[str, ...], piped: tuple[str, ...]
) -> None:
    """find ... -exec COMMAND ;  (or +): the command runs for each file."""
    index = 0
    while index < len(words):
        if not words[index].unresolved and words[index].text in _FIND_EXEC:
            end = index + 1
            while end < len(words) and words[end].text not in (";", "+"):
                end += 1
            _simple(words[index + 1 : end], state, depth + 1, via, piped, "", False)
            index = end
        index += 1


def _su(
    words: list[_Word], state: _State, depth: int, via: tuple[str, ...], piped: tuple[str, ...]
) -> None:
    """su -c SCRIPT USER: the script runs as a shell command."""
    for index, word in enumerate(words):
        if word.text in ("-c", "--command") and index + 1 < len(words):
            script = words[index + 1]
            if script.unresolved:
                _unreadable(state, "the script of su -c comes from an expansion", piped, via)
            else:
                _script(script.text, state, depth + 1, via)
        elif word.text.startswith("--command="):
            _script(word.text.partition("=")[2], state, depth + 1, via)
