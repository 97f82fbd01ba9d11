"""The lexer: words (quotes removed, expansions marked) and operators; nested scripts parsed."""

from __future__ import annotations

import re

from ._model import MAX_DEPTH, State, Stop, Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

# Runs of characters with no meaning to the splitter, consumed by one regex step (bounded time
# on padding: docs/findings.md PF-16 to PF-18).
_PLAIN: Final = re.compile(r"[^\s'\"\\$`;&|()<>#*?\[]+")
_BLANK: Final = re.compile(r"[ \t\r\f\v]+")
_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_HEX: Final = {"x": re.compile("[0-9a-fA-F]{1,2}"), "u": re.compile("[0-9a-fA-F]{1,4}")}
_HEX["U"] = re.compile("[0-9a-fA-F]{1,8}")
_OCTAL: Final = re.compile("[0-7]{1,3}")
# NAME= or NAME[...]= unquoted at the start of a word: an assignment, whatever its value.
_ASSIGN: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^\]'\"]*\])?\+?=")
# An all-digit prefix right before < or > is the redirected descriptor, not an argument.
_OPERATOR: Final = re.compile(
    r"(\d*)(&>>|&>|<<<|<<-|<<|<>|<&|<|>>|>&|>\||>)|(;;&|;;|;&|&&|\|\||\|&|[;&|()\n])"
)
HEREDOCS: Final = frozenset({"<<", "<<-"})
# {a,b} and {1..3} in the unquoted skeleton of a word (quoted text replaced by a letter).
_BRACE: Final = re.compile(r"\{[^{}]*(?:,|\.\.)[^{}]*\}")
# {fd}>file: a named descriptor, part of the redirection (RT3-H4).
_FD_NAME: Final = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")
# Text an arithmetic evaluation (of a variable, a subscript, let, declare -i, printf -v, read)
# runs as a command when it is used later (RT3-H5).
_LATER_CODE: Final = ("[$(", "[`")
# Words after which the next word is at command position.
_OPENERS: Final = frozenset(
    {"then", "do", "else", "elif", "if", "while", "until", "{", "!", "time"}
)


if TYPE_CHECKING:
    from collections.abc import Callable

# The grammar's entry points for nested scripts ($(...), backticks): _grammar imports this module
# and registers them here when it loads, so the lexer never imports the grammar back (no cycle;
# tests/test_module_graph.py). Every way into the splitter goes through _grammar.
PARSERS: dict[str, Callable[..., None]] = {}


class Lexer:
    """Tokens of one script: words (quotes removed) and operators; nested scripts are parsed."""

    def __init__(self, text: str, state: State, depth: int, via: tuple[str, ...] = ()) -> None:
        self.via = via
        self.text = text
        self.pos = 0
        self.state = state
        self.depth = depth
        self.heredocs: list[str] = []
        self.pending: list[tuple[int, str, bool, bool]] = []  # (index, delimiter, tabs, quoted)

    def tokens(self, stop: str = "") -> list[Word | str]:
        """Operators as str, words as Word, until the end or an unmatched `stop` character."""
        text = self.text
        out: list[Word | str] = []
        level = 0  # open parentheses inside a $(...) being read
        heredoc_operator = ""
        cases = 0  # open `case` commands: a pattern's ) closes nothing (RT3-H3)
        pattern = False
        command_start = True
        previous = ""
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
            if stop and char == stop and level == 0 and not pattern:
                self.pos += 1
                return out
            operator = self._operator()
            if operator is not None:
                if pattern and operator in "()":
                    pattern = operator == "("
                elif stop and operator == "(":
                    level += 1
                elif stop and operator == ")":
                    level -= 1
                if cases and operator in (";;", ";&", ";;&"):
                    pattern = True
                out.append(operator)
                self.state.token()
                heredoc_operator = operator if operator in HEREDOCS else ""
                command_start = operator not in HEREDOCS and operator not in ("<", ">", ">>")
                if operator == "\n" and self.pending:
                    self._read_heredocs()
                continue
            word = self._word()
            self.state.token()
            if heredoc_operator:
                index = self.heredoc(word.text, heredoc_operator == "<<-", word.quoted)
                word.heredoc = index
                heredoc_operator = ""
            elif (
                not word.unresolved
                and self.pos < len(text)
                and text[self.pos] in "<>"
                and _FD_NAME.fullmatch(word.text)
            ):
                word.heredoc = -3  # {fd}>file: bash's descriptor name, dash's word (RT3-H4)
            if not word.unresolved and not word.quoted:
                if word.text == "case" and (command_start or previous in _OPENERS):
                    cases += 1
                elif word.text == "in" and cases and not pattern:
                    pattern = True
                elif word.text == "esac" and cases:
                    cases -= 1
                    pattern = False
            command_start = False
            previous = word.text
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

    def _word(self) -> Word:
        """One word from the current position: quotes removed, expansions marked unresolved."""
        text = self.text
        parts: list[str] = []
        skeleton: list[str] = []  # the unquoted text, quoted parts as one letter each
        size = 0  # characters of the word so far
        spans: list[tuple[int, int]] = []  # where the word's text comes from an expansion
        splits = False  # an unquoted expansion: it may become any number of words
        glob = quoted = False
        brackets: list[int] = []  # where an unquoted [ stands: a glob only if a ] follows
        start_pos = self.pos
        while self.pos < len(text):
            found = _PLAIN.match(text, self.pos)
            if found:
                parts.append(found.group())
                skeleton.append(parts[-1])
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
                    skeleton.append("x")
                    continue
                # name( is a pattern group; f() a function and arr=(a b) an array, as before.
                if (
                    char == "("
                    and parts
                    and not text.startswith("()", self.pos)
                    and not "".join(parts).endswith("=")
                ):
                    parts.append(self._group())
                    size += len(parts[-1])
                    skeleton.append("x")
                    glob = True
                    continue
                break
            piece = ""
            if char == "#":
                piece = char  # only a word-initial # starts a comment
                self.pos += 1
                skeleton.append(piece)
            elif char in "*?[":
                piece = char
                self.pos += 1
                if char == "[":
                    brackets.append(size)
                else:
                    glob = True
                skeleton.append(piece)
            elif char == "\\":
                quoted = True
                if self.pos + 1 < len(text):
                    if text[self.pos + 1] != "\n":
                        piece = text[self.pos + 1]
                    self.pos += 2
                else:
                    piece = "\\"
                    self.pos += 1
                skeleton.append("x")
            elif char == "'":
                quoted = True
                end = text.find("'", self.pos + 1)
                if end < 0:
                    self.state.problem("unbalanced single quote")
                    piece = text[self.pos + 1 :]
                    self.pos = len(text)
                else:
                    piece = text[self.pos + 1 : end]
                    self.pos = end + 1
                skeleton.append("x")
            elif char == '"':
                quoted = True
                self.pos += 1
                piece, inner, inner_splits = self._double_quoted()
                spans += [(size + start, size + end) for start, end in inner]
                splits = splits or inner_splits
                skeleton.append("x")
            elif char == "`":
                start = self.pos
                self.pos += 1
                self._backtick()
                piece = text[start : self.pos]
                spans.append((size, size + len(piece)))
                splits = True
                skeleton.append("x")
            elif char == "$":
                quoted = quoted or text.startswith(("$'", '$"'), self.pos)
                piece, dynamic, _ = self._dollar(quoted=False)
                if dynamic:
                    spans.append((size, size + len(piece)))
                    splits = True
                skeleton.append("x")
            else:  # pragma: no cover - _PLAIN covers every other character
                piece = char
                self.pos += 1
            parts.append(piece)
            size += len(piece)
        word = "".join(parts)
        # `[` alone (test's name) or without a closing ] is no pattern.
        glob = glob or any("]" in word[at + 1 :] for at in brackets)
        assign = _ASSIGN.match(text, start_pos) is not None
        if any(marker in word for marker in _LATER_CODE):
            self.state.problem(f"text that arithmetic evaluation would run as a command: {word!r}")
        brace = False
        if "{" in word and _BRACE.search("".join(skeleton)):
            brace = True  # {rm,-rf,/} or r{m,}: bash and zsh make several words (RT3-H1)
            spans.append((word.find("{"), len(word)))
        if text.startswith("=", start_pos) and _NAME.match(text, start_pos + 1):
            spans.append((1, len(word)))  # zsh: =ls is the path of ls (RT3-H6)
        if not spans:
            return Word(word, False, glob=glob, quoted=quoted, assign=assign)
        return Word(
            word,
            True,
            glob=glob,
            splits=splits,
            known=(word[: min(s for s, _ in spans)], word[max(e for _, e in spans) :]),
            brace=brace,
            quoted=quoted,
            assign=assign,
        )

    def _group(self) -> str:
        """An extglob @(...) or a zsh pattern group or glob qualifier *(e:...:): the raw text."""
        text = self.text
        start = self.pos
        level = 0
        while self.pos < len(text):
            char = text[self.pos]
            if char == "\\":
                self.pos += 2
                continue
            if char in "'\"":
                end = text.find(char, self.pos + 1)
                self.pos = len(text) if end < 0 else end + 1
                continue
            self.pos += 1
            if char == "(":
                level += 1
            elif char == ")":
                level -= 1
                if level == 0:
                    break
        self.state.problem(
            "a pattern group (bash extglob, or a zsh glob qualifier that can run code):"
            f" {text[start : self.pos]!r}"
        )
        return text[start : self.pos]

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

    def expand_body(self) -> None:
        """An unquoted here-document body: its $(...), `...` and ${...} run (RT3-H3)."""
        text = self.text
        while self.pos < len(text):
            char = text[self.pos]
            if char == "\\":
                self.pos += 2
            elif char == "`":
                self.pos += 1
                self._backtick()
            elif char == "$":
                self._dollar(quoted=True)
            else:
                self.pos += 1

    def _arithmetic(self, start: int) -> bool:
        """Whether $(( at start closes with )) (arithmetic) or is $( (...) ) (RT3-H3)."""
        text = self.text
        level = 2
        index = start + 3
        while index < len(text):
            char = text[index]
            if char == "(":
                level += 1
            elif char == ")":
                level -= 1
                if level == 1:
                    return text.startswith(")", index + 1)
            elif char in "'\"":
                end = text.find(char, index + 1)
                if end < 0:
                    break
                index = end
            elif char == "\\":
                index += 1
            index += 1
        return True

    def _dollar(self, *, quoted: bool) -> tuple[str, bool, bool]:
        """One $ form: its text, whether its value is unknown, and whether it splits in quotes."""
        text = self.text
        pos = self.pos
        following = text[pos + 1 : pos + 2]
        if following == "(":
            if text.startswith("((", pos + 1) and self._arithmetic(pos):
                self.pos = pos + 3
                self._nested(")", arithmetic=True)
                return text[pos : self.pos], True, False
            self.pos = pos + 2
            self._nested(")")
            return text[pos : self.pos], True, False
        if following == "{":
            self.pos = pos + 2
            self._braced()
            body = text[pos : self.pos]
            if body.startswith("${(") or body.endswith("@P}"):
                # zsh's (e) flag and bash's @P run the value's $(...) (RT3-H5, RT3-H6).
                self.state.problem(f"an expansion that evaluates its value as code: {body!r}")
            return body, True, text.startswith("${@", pos)
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
                # re.match at a position, not on a slice: linear in the escapes (RT3-L2).
                pattern = _HEX.get(code)
                found = (pattern or _OCTAL).match(text, self.pos + (2 if pattern else 1))
                if found:
                    parts.append(chr(min(int(found.group(), 16 if pattern else 8), 0x10FFFF)))
                    self.pos = found.end()
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
        if self.depth >= MAX_DEPTH:
            self.state.problem(f"nested deeper than {MAX_DEPTH} levels; the rest was not split")
            self.pos = len(self.text)
            return
        inner = Lexer(self.text, self.state, self.depth + 1, self.via)
        inner.pos = self.pos
        tokens = inner.tokens(stop)
        if arithmetic:
            # $(( ... )): the lexer stopped at the first ), the second closes the expansion.
            if inner.pos < len(self.text) and self.text[inner.pos] == ")":
                inner.pos += 1
        else:
            PARSERS["segments"](
                tokens, inner.heredocs, self.state, self.depth + 1, (*self.via, "$(")
            )
        self.pos = inner.pos

    def _backtick(self) -> None:
        text = self.text
        parts: list[str] = []
        while self.pos < len(text):
            char = text[self.pos]
            if char == "`":
                self.pos += 1
                if self.depth < MAX_DEPTH:
                    PARSERS["script"]("".join(parts), self.state, self.depth + 1, (*self.via, "`"))
                else:
                    self.state.problem(f"nested deeper than {MAX_DEPTH} levels")
                return
            if char == "\\" and self.pos + 1 < len(text) and text[self.pos + 1] in "`\\$":
                parts.append(text[self.pos + 1])
                self.pos += 2
                continue
            parts.append(char)
            self.pos += 1
        self.state.problem("unbalanced `: no closing `")
        PARSERS["script"]("".join(parts), self.state, self.depth + 1, (*self.via, "`"))

    def _braced(self) -> None:
        """Skip a ${...} expansion, parsing any command substitution inside it."""
        self.state.braces += 1
        if self.state.braces > MAX_DEPTH:
            self.state.problem(f"nested deeper than {MAX_DEPTH} levels; the rest was not split")
            raise Stop
        try:
            self._braced_body(1)
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

    def heredoc(self, delimiter: str, strip: bool, quoted: bool = True) -> int:
        """Register a here-document; its body is read after the next newline."""
        self.heredocs.append("")
        self.pending.append((len(self.heredocs) - 1, delimiter, strip, quoted))
        return len(self.heredocs) - 1

    def _read_heredocs(self) -> None:
        text = self.text
        for index, delimiter, strip, quoted in self.pending:
            lines = []
            while self.pos < len(text):
                end = text.find("\n", self.pos)
                line = text[self.pos : len(text) if end < 0 else end]
                self.pos = len(text) if end < 0 else end + 1
                if (line.lstrip("\t") if strip else line) == delimiter:
                    break
                lines.append(line.lstrip("\t") if strip else line)
            body = "\n".join(lines)
            self.heredocs[index] = body
            if not quoted and any(char in body for char in "$`"):
                if self.depth >= MAX_DEPTH:
                    self.state.problem(f"nested deeper than {MAX_DEPTH} levels")
                    continue
                Lexer(body, self.state, self.depth + 1, (*self.via, "<<")).expand_body()
        self.pending = []
