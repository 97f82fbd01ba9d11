"""From tokens to simple commands: pipelines, compound commands, wrappers, nested scripts."""

from __future__ import annotations

from ._lexer import HEREDOCS, PARSERS, Lexer
from ._model import MAX_DEPTH, UNKNOWN_PROGRAM, UNKNOWN_STDIN, Command, State, Word, basename
from ._wrappers import ASSIGNMENT, SUBCOMMAND_WRAPPERS, WRAPPERS, script_words, unwrap

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

_REDIRECTS: Final = frozenset({"&>>", "&>", "<<<", "<>", "<&", ">>", ">&", ">|", "<", ">"})
_READS: Final = frozenset({"<", "<>"})
_PIPES: Final = frozenset({"|", "|&"})
# Words that open or close a compound command; at command position they are not the program.
_RESERVED_SKIP: Final = frozenset(
    {"!", "{", "}", "if", "then", "elif", "else", "fi", "while", "until", "do", "done", "esac"}
)
_HEADERS: Final = frozenset({"for", "select", "case", "foreach"})
_SHELLS: Final = frozenset({"sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "yash", "fish"})
_ECHOES: Final = frozenset({"echo", "printf"})
_SHELL_VALUES: Final = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
_FIND_EXEC: Final = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_RUNNERS: Final = frozenset({"eval", "find", "su", "source", ".", "trap", "emulate"})
# Paths through which a shell or `source` reads its own stdin as the script (RT3-H2).
_STDIN_PATHS: Final = ("/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "-")
# Builtins whose -C option is a command run later (RT3-H5).
_CALLBACKS: Final = frozenset({"mapfile", "readarray", "compgen", "complete"})
_DECLARERS: Final = frozenset({"export", "declare", "typeset", "local", "readonly"})
# Variables whose value a shell runs as code (RT3-H5, RT3-M6): an assignment is unreadable.
_CODE_VARIABLES: Final = frozenset(
    {
        "BASH_ENV",
        "ENV",
        "PS0",
        "PS1",
        "PS2",
        "PS3",
        "PS4",
        "PROMPT_COMMAND",
        "SHELLOPTS",
        "BASHOPTS",
        "ZDOTDIR",
        "PROMPT",
        "RPROMPT",
        "PROMPT2",
        "FPATH",
        "fpath",
        "BASH_XTRACEFD",
    }
)
# Variables whose value a program runs through sh -c: parsed as a script.
_COMMAND_VARIABLES: Final = frozenset(
    {
        "GIT_SSH_COMMAND",
        "GIT_EDITOR",
        "GIT_PAGER",
        "GIT_SEQUENCE_EDITOR",
        "GIT_EXTERNAL_DIFF",
        "GIT_ASKPASS",
        "SSH_ASKPASS",
        "EDITOR",
        "VISUAL",
        "PAGER",
        "GIT_SSH",
    }
)
# git configuration keys whose value git runs as a shell command (RT3-M7).
_GIT_COMMAND_KEYS: Final = (
    "core.sshcommand",
    "core.pager",
    "core.editor",
    "core.fsmonitor",
    "core.askpass",
    "sequence.editor",
    "diff.external",
    "credential.helper",
    "gpg.program",
    "pager.",
    "uploadpack.packobjectshook",
    ".textconv",
    ".clean",
    ".smudge",
    ".process",
    ".command",
    ".cmd",
    "merge.tool",
    "mergetool.",
    "difftool.",
)


def script(text: str, state: State, depth: int, via: tuple[str, ...]) -> None:
    """Parse one script's text and add its simple commands to the state."""
    if depth > MAX_DEPTH:
        state.problem(f"nested deeper than {MAX_DEPTH} levels")
        return
    lexer = Lexer(text, state, depth, via)
    tokens = lexer.tokens()
    segments(tokens, lexer.heredocs, state, depth, via)


def segments(
    tokens: list[Word | str],
    heredocs: list[str],
    state: State,
    depth: int,
    via: tuple[str, ...],
) -> None:
    """Group tokens into pipelines of simple commands and expand each."""
    words: list[Word] = []
    reads: list[str] = []
    pipeline: list[tuple[list[Word], str, tuple[str, ...]]] = []
    redirect = ""
    redirected = False
    case_pattern = False  # after `;;` the next word list up to `)` is a case pattern

    def finish_command() -> None:
        nonlocal words, reads, redirected
        stdin = ""
        kept: list[Word] = []
        for word in words:
            if word.heredoc >= 0:
                stdin = heredocs[word.heredoc]
            elif word.heredoc == -2:
                stdin = UNKNOWN_STDIN if word.unresolved else word.text + "\n"
            else:
                kept.append(word)
        if redirected and all(word.assign for word in kept):
            # Redirections alone: zsh runs $NULLCMD (cat) on them, bash's $(<file) reads the
            # file as cat would (RT3-M8, RT3-H6).
            state.add(Command(("cat", *reads), frozenset(), (), (*via, "<")))
        pipeline.append((kept, stdin, tuple(reads)))
        words, reads, redirected = [], [], False

    def finish_pipeline() -> bool:
        nonlocal pipeline
        finish_command()
        ran = any(command_words for command_words, _, _ in pipeline)
        upstream: list[str] = []
        echoed = ""
        for index, (command_words, stdin, read) in enumerate(pipeline):
            piped = index > 0
            if piped and not stdin:
                stdin = echoed  # echo 'rm -rf /' | sh: the literal text is the script
            upstream += simple(
                command_words, state, depth, via, tuple(upstream), stdin, piped, read
            )
            for part in _zsh_parts(command_words):
                simple(part, state, depth, via, tuple(upstream), stdin, piped, read)
            echoed = _echoed(command_words)
            if not echoed and stdin and _is_bare_cat(command_words):
                echoed = stdin  # cat <<EOF | sh: the here-document is the script
        pipeline = []
        return ran

    for token in tokens:
        if isinstance(token, Word):
            if redirect:
                if redirect == "<<<":
                    token.heredoc = -2  # a here-string: the stdin of the command
                    words.append(token)
                elif redirect in _READS and not token.unresolved:
                    reads.append(token.text)
                redirect = ""
                continue  # the redirection target is a file, not an argument
            words.append(token)
            continue
        if token in _REDIRECTS:
            redirect = token
            redirected = True
            continue
        if token in HEREDOCS:
            redirected = True
            continue  # the delimiter word carries the body index
        redirect = ""
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


def _zsh_parts(words: list[Word]) -> list[list[Word]]:
    """zsh's reading of `if [[ x ]] { cmd }` and `[[ x ]] cmd`: { } and ]] end a command there,
    where bash passes them as arguments; both readings are reported (RT3-H6)."""
    cuts = [
        index
        for index, word in enumerate(words)
        if index
        and not word.unresolved
        and not word.quoted
        and (word.text in ("{", "}") or (words[index - 1].text == "]]" and words[0].text == "[["))
    ]
    if not cuts:
        return []
    parts = []
    start = 0
    for cut in [*cuts, len(words)]:
        part = [w for w in words[start:cut] if w.quoted or w.text not in ("{", "}")]
        if part and len(part) < len(words):
            parts.append(part)
        start = cut
    return parts


def _is_case_head(words: list[Word]) -> bool:
    return bool(words) and words[0].text == "case" and not words[0].unresolved


def _is_bare_cat(words: list[Word]) -> bool:
    return len(words) == 1 and not words[0].unresolved and basename(words[0].text) == "cat"


def _echoed(words: list[Word]) -> str:
    """The text an echo/printf with literal arguments writes, else '' (unknown or not an echo)."""
    if not words or words[0].unresolved or basename(words[0].text) not in _ECHOES:
        return ""
    if any(word.unresolved for word in words[1:]):
        return UNKNOWN_STDIN
    args = [word.text for word in words[1:] if not word.text.startswith("-")]
    return " ".join(args)


def _assignment(word: Word, state: State, depth: int, via: tuple[str, ...]) -> None:
    """NAME=VALUE: a value some shell or program runs later is read as a script, or unreadable."""
    name, _, value = word.text.partition("=")
    name = name.rstrip("+")
    if name in _CODE_VARIABLES or name.startswith("BASH_FUNC_"):
        state.problem(f"{name} is set: a shell runs its value as code later")
    elif name in _COMMAND_VARIABLES:
        if word.unresolved:
            unreadable(state, f"{name} comes from an expansion", (), via)
        else:
            script(value, state, depth + 1, (*via, name))


def simple(
    words: list[Word],
    state: State,
    depth: int,
    via: tuple[str, ...],
    piped_from: tuple[str, ...],
    stdin: str,
    piped: bool,
    reads: tuple[str, ...] = (),
) -> list[str]:
    """Add one simple command (and those it runs) to the state; return the programs' basenames."""
    index = 0
    # Leading reserved words of compound commands and variable assignments are not the program.
    while index < len(words):
        word = words[index]
        if word.heredoc == -3:
            index += 1  # {fd}>file before the program: bash's reading (dash finds no `{fd}`)
            continue
        if word.assign or (not word.unresolved and ASSIGNMENT.match(word.text)):
            _assignment(word, state, depth, via)  # X=$(cmd): the $(...) was parsed already
            index += 1
            continue
        if word.unresolved or word.glob:
            break
        text = word.text
        if text in _RESERVED_SKIP:
            index += 1
            continue
        if ASSIGNMENT.match(text):
            _assignment(word, state, depth, via)
            index += 1
            continue
        if text == "function":  # function NAME { body }: the body is parsed (RT3-H4)
            index += 2
            continue
        if text == "coproc":  # coproc [NAME] { body } or coproc COMMAND (RT3-H4)
            index += 2 if index + 2 < len(words) and words[index + 2].text == "{" else 1
            continue
        break
    words = words[index:]
    if not words:
        return []
    head = words[0]
    if not (head.unresolved or head.glob) and head.text in _HEADERS:
        return []  # for/select/case headers carry no command
    if head.text.startswith("=") and head.known == ("=", "") and not head.splits:
        head = Word(head.text[1:], False)  # zsh: =rm is the path of rm (RT3-H6)
        words = [head, *words[1:]]
    argv = tuple(word.text for word in words)
    unresolved = {i for i, word in enumerate(words) if word.unresolved}
    # "$HOME/bin/tool" is still tool: an expansion only in the directory leaves the name known.
    if head.unresolved and not head.splits and not head.brace and "/" in head.known[1]:
        unresolved.discard(0)
    if head.glob:
        unresolved.add(0)  # /bin/r? could be any program
    name = basename(head.text) if 0 not in unresolved else ""
    if any(word.text.startswith("BASH_FUNC_") for word in words):
        state.problem("a BASH_FUNC_ environment word defines a function a child bash runs")
    if name == "git":
        unresolved |= _git(words, state, depth, via)
    one_word = {i: words[i].known[0] for i in unresolved if i and not words[i].splits}
    many = frozenset(
        i for i, w in enumerate(words) if w.splits or w.glob or w.brace or w.heredoc == -3
    )
    state.add(Command(argv, frozenset(unresolved), piped_from, via, one_word, many, reads))
    if 0 in unresolved:
        return [UNKNOWN_PROGRAM]
    names = [name]
    rest = words[1:]
    _builtin(name, rest, state, depth, via)
    if name.startswith("git-") and len(name) > 4:  # git's exec path: git-push is git push
        state.add(Command(("git", name[4:], *argv[1:]), frozenset(), piped_from, (*via, name)))
    sub = SUBCOMMAND_WRAPPERS.get((name, rest[0].text)) if rest else None
    if sub is None and name not in WRAPPERS and name not in _SHELLS and name not in _RUNNERS:
        return names
    if depth >= MAX_DEPTH:
        state.problem(f"nested deeper than {MAX_DEPTH} levels")
        return names
    inner_via = (*via, name)
    if sub is not None:
        for inner in unwrap(name, rest[1:], state, sub):
            names += simple(inner, state, depth + 1, inner_via, piped_from, stdin, piped)
    elif name in ("watch", "eval"):
        for inner in [rest] if name == "eval" else unwrap(name, rest, state):
            joined(inner, state, depth + 1, inner_via, piped_from)
    elif name in WRAPPERS:
        _wrapped(name, rest, state, depth, inner_via, piped_from, stdin, piped, names)
    elif name in _SHELLS:
        _shell(rest, state, depth, inner_via, piped_from, stdin, piped)
    elif name in ("source", "."):
        _source(rest, state, depth, inner_via, piped_from, stdin, piped)
    elif name == "find":
        _find_exec(rest, state, depth, inner_via, piped_from)
    elif name in ("trap", "emulate"):
        _trap(name, rest, state, depth, inner_via, piped_from)
    else:
        _su(rest, state, depth, inner_via, piped_from)
    return names


def _wrapped(
    name: str,
    rest: list[Word],
    state: State,
    depth: int,
    via: tuple[str, ...],
    piped_from: tuple[str, ...],
    stdin: str,
    piped: bool,
    names: list[str],
) -> None:
    spec = WRAPPERS[name]
    if name in ("env", "sudo", "doas"):
        for word in rest:
            if ASSIGNMENT.match(word.text):
                _assignment(word, state, depth, via)
    for value in script_words(spec, rest):
        _script_word(value, f"the script of {name} -c", state, depth, via, piped_from)
    candidates = unwrap(name, rest, state)
    if not candidates and name in ("repeat", "noglob", "nocorrect", "-"):
        state.add(Command(("cat",), frozenset(), piped_from, (*via, "zsh NULLCMD")))
    if name == "parallel":
        # parallel CMD ::: ARGS: the command gets the arguments; without ::: it reads commands.
        candidates = [[w for w in inner if not w.text.startswith(":::")] for inner in candidates]
        if not any(w.text.startswith(":::") for w in rest):
            unreadable(state, "parallel runs commands read from stdin", piped_from, via)
    for inner in candidates:
        if spec.joined:
            words = [w for w in inner if w.text != "-c"]
            joined(words, state, depth + 1, via, piped_from)
            continue
        if name == "xargs" and inner and not inner[0].unresolved:
            program = basename(inner[0].text)
            if program in _SHELLS or program in ("source", "."):
                # xargs appends words read from stdin: sh -c with no script, or with {} as
                # its script, runs text the policy cannot see (RT3-H2).
                texts = [w.text for w in inner[1:]]
                script_at = next(
                    (
                        i
                        for i, t in enumerate(texts)
                        if t[:1] == "-" and "c" in t[1:] and t[1:2] != "-"
                    ),
                    None,
                )
                if script_at is None or script_at + 1 >= len(texts) or "{}" in texts[script_at + 1]:
                    unreadable(
                        state, f"xargs runs {program} on text read from stdin", piped_from, via
                    )
        names += simple(inner, state, depth + 1, via, piped_from, stdin, piped)


def _script_word(
    word: Word, what: str, state: State, depth: int, via: tuple[str, ...], piped: tuple[str, ...]
) -> None:
    if word.unresolved:
        unreadable(state, f"{what} comes from an expansion", piped, via)
    else:
        script(word.text, state, depth + 1, via)


def _builtin(name: str, words: list[Word], state: State, depth: int, via: tuple[str, ...]) -> None:
    """Builtins that rebind names or keep code to run later (RT3-H5, RT3-M6)."""
    if name in _CALLBACKS:
        if any(word.text.startswith("-C") for word in words):
            # The callback gets words appended (mapfile: index and line; compgen: the word).
            unreadable(state, f"{name} -C runs its command with words appended", (), via)
        for index, word in enumerate(words):
            if word.text == "-C" and index + 1 < len(words):
                _script_word(words[index + 1], f"{name} -C", state, depth, (*via, name), ())
            elif word.text.startswith("-C") and len(word.text) > 2:
                _script_word(
                    Word(word.text[2:], word.unresolved), f"{name} -C", state, depth, via, ()
                )
    elif name in _DECLARERS:
        for word in words:
            if ASSIGNMENT.match(word.text):
                _assignment(word, state, depth, via)
            elif word.text in _CODE_VARIABLES:
                state.problem(f"{word.text} is exported: a shell runs its value as code later")
    elif name == "alias" and any("=" in w.text or w.unresolved for w in words):
        state.problem("alias defines a name that later commands run as other text")
    elif name == "hash" and any(w.text.startswith("-p") or "=" in w.text for w in words):
        state.problem("hash binds a program name to another program")
    elif name == "enable" and any(w.text.startswith("-f") or w.unresolved for w in words):
        state.problem("enable -f loads a builtin from a shared object")
    elif name in ("zmodload", "autoload", "bind"):
        state.problem(f"{name} adds commands the splitter cannot see")


def unreadable(state: State, what: str, piped: tuple[str, ...], via: tuple[str, ...]) -> None:
    """Record a command whose text the splitter cannot see (its program is unknown)."""
    state.add(Command((what,), frozenset({0}), piped, via))


def joined(
    words: list[Word], state: State, depth: int, via: tuple[str, ...], piped: tuple[str, ...]
) -> None:
    """eval, watch, ssh, sg: the arguments joined by spaces are a script."""
    if any(word.unresolved for word in words):
        unreadable(state, f"a script built from an expansion ({via[-1]})", piped, via)
        return
    if words:
        script(" ".join(word.text for word in words), state, depth, via)


def _git(words: list[Word], state: State, depth: int, via: tuple[str, ...]) -> set[int]:
    """git -c alias.x=... and -c help.autocorrect: the subcommand is unknown (RT3-M7)."""
    unknown = False
    index = 1
    while index < len(words):
        text = words[index].text
        if text in ("-c", "--config-env") and index + 1 < len(words):
            setting = words[index + 1]
            index += 2
        elif text.startswith(("--config-env=", "-c")) and len(text) > 2:
            setting = Word(text.partition("=")[2] if text.startswith("--") else text[2:], False)
            index += 1
        elif text.startswith("-"):
            index += 2 if text in ("-C", "--git-dir", "--work-tree", "--namespace") else 1
            continue
        else:
            break
        key, _, value = setting.text.partition("=")
        key = key.lower()
        if setting.unresolved or key.startswith(("alias.", "help.autocorrect", "include")):
            unknown = True  # the subcommand word: any git command, or a shell script
            if key.startswith("alias.") and value.startswith("!"):
                script(value[1:], state, depth + 1, (*via, "git alias"))
        elif key.endswith(".hookspath"):
            state.problem("git -c core.hooksPath runs hooks from another folder")
        elif any(part in key for part in _GIT_COMMAND_KEYS):
            script(value, state, depth + 1, (*via, "git -c"))
    return {index} if unknown and index < len(words) else set()


def _shell(
    words: list[Word],
    state: State,
    depth: int,
    via: tuple[str, ...],
    piped_from: tuple[str, ...],
    stdin: str,
    piped: bool,
) -> None:
    """sh -c SCRIPT, a shell fed a here-document or a literal echo, or one reading a pipe."""
    index = 0
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
            _script_word(words[index], f"the script of {via[-1]} -c", state, depth, via, piped_from)
        return
    if index < len(words) and words[index].text not in _STDIN_PATHS:
        if words[index].unresolved:  # bash <(curl ...), bash "$SCRIPT"
            unreadable(
                state, f"{via[-1]} runs a script that comes from an expansion", piped_from, via
            )
        return  # a script file: the file's commands cannot be read here
    _stdin_script(state, depth, via, piped_from, stdin, piped)


def _stdin_script(
    state: State,
    depth: int,
    via: tuple[str, ...],
    piped_from: tuple[str, ...],
    stdin: str,
    piped: bool,
) -> None:
    if stdin == UNKNOWN_STDIN:
        unreadable(state, f"{via[-1]} reads a script built from an expansion", piped_from, via)
    elif stdin:
        script(stdin, state, depth + 1, via)
    elif piped:
        # A shell reading its script from a pipe runs text the policy cannot see.
        unreadable(state, f"{via[-1]} reads its script from a pipe", piped_from, via)


def _source(
    words: list[Word],
    state: State,
    depth: int,
    via: tuple[str, ...],
    piped_from: tuple[str, ...],
    stdin: str,
    piped: bool,
) -> None:
    """source FILE / . FILE: stdin as the file is a script the policy must read (RT3-H2)."""
    if not words:
        return
    target = words[0]
    if target.unresolved:
        unreadable(state, f"{via[-1]} reads a script that comes from an expansion", piped_from, via)
    elif target.text in _STDIN_PATHS or target.text.startswith("/dev/fd/"):
        _stdin_script(state, depth, via, piped_from, stdin, piped)


def _trap(
    name: str,
    words: list[Word],
    state: State,
    depth: int,
    via: tuple[str, ...],
    piped: tuple[str, ...],
) -> None:
    """trap 'SCRIPT' SIGNAL... runs SCRIPT later; emulate ... -c SCRIPT runs it now (RT3-H5)."""
    if name == "emulate":
        for index, word in enumerate(words[:-1]):
            if word.text == "-c":
                _script_word(words[index + 1], "emulate -c", state, depth, via, piped)
        return
    rest = words[1:] if words and words[0].text == "--" else words
    if len(rest) >= 2 and not rest[0].text.startswith("-"):
        _script_word(rest[0], "the script of trap", state, depth, via, piped)


def _find_exec(
    words: list[Word], state: State, depth: int, via: tuple[str, ...], piped: tuple[str, ...]
) -> None:
    """find ... -exec COMMAND ;  (or +): the command runs for each file."""
    index = 0
    while index < len(words):
        if not words[index].unresolved and words[index].text in _FIND_EXEC:
            end = index + 1
            while end < len(words) and words[end].text not in (";", "+"):
                end += 1
            simple(words[index + 1 : end], state, depth + 1, via, piped, "", False)
            index = end
        index += 1


def _su(
    words: list[Word], state: State, depth: int, via: tuple[str, ...], piped: tuple[str, ...]
) -> None:
    """su -c SCRIPT USER: the script runs as a shell command."""
    for index, word in enumerate(words):
        if word.text in ("-c", "--command") and index + 1 < len(words):
            _script_word(words[index + 1], "the script of su -c", state, depth, via, piped)
        elif word.text.startswith("--command="):
            script(word.text.partition("=")[2], state, depth + 1, via)


PARSERS.update(script=script, segments=segments)
