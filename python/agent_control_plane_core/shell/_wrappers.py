"""Programs that run another program given as their arguments, and how to find it."""

from __future__ import annotations

import re

from ._model import MAX_DEPTH, State, Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

ASSIGNMENT: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")


class Wrapper:
    __slots__ = ("command", "joined", "long_values", "positionals", "scripts", "short_values")

    def __init__(
        self,
        short_values: str = "",
        long_values: frozenset[str] = frozenset(),
        positionals: int = 0,
        *,
        scripts: frozenset[str] = frozenset(),
        joined: bool = False,
        command: bool = True,
    ) -> None:
        self.short_values = short_values  # option letters that take a value
        self.long_values = long_values
        self.positionals = positionals  # words before the command (timeout's duration)
        self.scripts = scripts  # options whose value is a shell script (flock -c, script -c)
        self.joined = joined  # the words after the positionals, joined, are a script (ssh, sg)
        self.command = command  # whether the words after the options are a command at all


def _long(*names: str) -> frozenset[str]:
    return frozenset(f"--{name}" for name in names)


# Programs that run another program (docs/findings.md PN-4, RT3-M5). A wrapper missing here
# hides its command from the rules (docs/findings.md RT3-M5).
WRAPPERS: Final = {
    "sudo": Wrapper(
        "ugpCDrtTUR",
        _long(
            "user",
            "group",
            "prompt",
            "close-from",
            "chdir",
            "role",
            "type",
            "command-timeout",
            "other-user",
            "host",
            "chroot",
        ),
    ),
    "doas": Wrapper("uC"),
    "env": Wrapper("uCS", _long("unset", "chdir", "split-string")),
    "command": Wrapper(),
    "builtin": Wrapper(),
    "exec": Wrapper("a"),
    "time": Wrapper("fo", _long("format", "output")),
    "nice": Wrapper("n", _long("adjustment")),
    "ionice": Wrapper("cnpPu", _long("class", "classdata", "pid", "pgid", "uid")),
    "timeout": Wrapper("ks", _long("kill-after", "signal"), 1),
    "stdbuf": Wrapper("ioe", _long("input", "output", "error")),
    "xargs": Wrapper(
        "adEILnPs",
        _long(
            "arg-file",
            "delimiter",
            "eof",
            "replace",
            "max-lines",
            "max-args",
            "max-procs",
            "max-chars",
            "process-slot-var",
        ),
    ),
    "nohup": Wrapper(),
    "setsid": Wrapper(),
    "chronic": Wrapper(),
    "unbuffer": Wrapper(),
    "busybox": Wrapper(),
    "watch": Wrapper("nd", _long("interval", "differences")),
    # RT3-M5: util-linux, procps and tracing wrappers.
    "chroot": Wrapper("", _long("userspec", "groups"), 1),
    "flock": Wrapper(
        "wEc", _long("timeout", "conflict-exit-code"), 1, scripts=frozenset({"-c", "--command"})
    ),
    "taskset": Wrapper("", frozenset(), 1),
    "chrt": Wrapper("TPD", _long("sched-runtime", "sched-period", "sched-deadline"), 1),
    "strace": Wrapper(
        "abeEIoOpPsSuXU",
        _long("output", "attach", "signal", "trace", "user", "env", "trace-path", "string-limit"),
    ),
    "ltrace": Wrapper("aAeFlnopsuwxX", _long("output", "library")),
    "valgrind": Wrapper(),
    "script": Wrapper(
        "cIOBTEm",
        _long(
            "command",
            "log-in",
            "log-out",
            "log-io",
            "log-timing",
            "echo",
            "logging-format",
            "output-limit",
        ),
        scripts=frozenset({"-c", "--command"}),
        command=False,
    ),
    "unshare": Wrapper(
        "SGRw",
        _long(
            "setuid",
            "setgid",
            "root",
            "wd",
            "propagation",
            "map-user",
            "map-group",
            "map-users",
            "map-groups",
            "setgroups",
            "monotonic",
            "boottime",
        ),
    ),
    "setpriv": Wrapper(
        "",
        _long(
            "reuid",
            "regid",
            "euid",
            "egid",
            "ruid",
            "rgid",
            "groups",
            "inh-caps",
            "ambient-caps",
            "bounding-set",
            "securebits",
            "pdeathsig",
            "selinux-label",
            "apparmor-profile",
            "landlock-access",
            "landlock-rule",
            "seccomp-filter",
        ),
    ),
    "runuser": Wrapper(
        "ugGsw",
        _long("user", "group", "supp-group", "shell", "whitelist-environment"),
        scripts=frozenset({"-c", "--command"}),
    ),
    "sg": Wrapper("", frozenset(), 1, scripts=frozenset({"-c"}), joined=True),
    "pkexec": Wrapper("", _long("user")),
    "ssh": Wrapper("BbcDEeFIiJLlmOopQRSWw", frozenset(), 1, joined=True),
    "firejail": Wrapper(),
    "systemd-run": Wrapper(
        "upEMH",
        _long(
            "unit",
            "property",
            "setenv",
            "machine",
            "host",
            "slice",
            "description",
            "uid",
            "gid",
            "nice",
            "working-directory",
            "on-active",
            "on-boot",
            "on-calendar",
            "service-type",
        ),
    ),
    "faketime": Wrapper("", frozenset(), 1),
    "proot": Wrapper(
        "rbwqkm", _long("rootfs", "bind", "mount", "cwd", "pwd", "qemu", "kernel-release")
    ),
    "cpulimit": Wrapper("lpe", _long("limit", "pid", "exe")),
    "nsenter": Wrapper("tSG", _long("target", "setuid", "setgid")),
    "fakeroot": Wrapper("lsi", _long("lib", "faked")),
    "torsocks": Wrapper("uap", _long("user", "pass", "address", "port")),
    "proxychains": Wrapper("f"),
    "proxychains4": Wrapper("f"),
    "dbus-run-session": Wrapper("", _long("config-file", "dbus-daemon")),
    "xvfb-run": Wrapper(
        "nsfep", _long("server-num", "server-args", "auth-file", "error-file", "xauth-protocol")
    ),
    "catchsegv": Wrapper(),
    "numactl": Wrapper(
        "CNmpi", _long("physcpubind", "cpunodebind", "membind", "preferred", "interleave")
    ),
    "prlimit": Wrapper("p", _long("pid")),
    "caffeinate": Wrapper("tw"),
    "nocache": Wrapper(),
    "setuidgid": Wrapper("", frozenset(), 1),
    "s6-setuidgid": Wrapper("", frozenset(), 1),
    "envdir": Wrapper("", frozenset(), 1),
    "schroot": Wrapper("cud", _long("chroot", "user", "directory")),
    # zsh's precommand modifiers and `repeat N` (RT3-H6), bash's coproc is in the grammar.
    "noglob": Wrapper(),
    "nocorrect": Wrapper(),
    "-": Wrapper(),
    "repeat": Wrapper("", frozenset(), 1),
    "parallel": Wrapper(
        "jSPn", _long("jobs", "sshlogin", "max-args", "delay", "joblog", "results")
    ),
}

# `TOOL run COMMAND`: project runners whose subcommand runs a program (RT3-M5).
SUBCOMMAND_WRAPPERS: Final = {
    ("uv", "run"): Wrapper(
        "p",
        _long(
            "with",
            "python",
            "package",
            "directory",
            "project",
            "env-file",
            "index",
            "extra",
            "group",
            "with-requirements",
            "with-editable",
        ),
    ),
    ("poetry", "run"): Wrapper("C", _long("directory", "project")),
    ("pipenv", "run"): Wrapper(),
    ("pdm", "run"): Wrapper("p", _long("project")),
    ("hatch", "run"): Wrapper(),
    ("rye", "run"): Wrapper(),
    ("bundle", "exec"): Wrapper(),
    ("npm", "exec"): Wrapper("c", _long("package", "call")),
    ("pnpm", "exec"): Wrapper(),
    ("yarn", "exec"): Wrapper(),
    ("mise", "exec"): Wrapper(),
    ("direnv", "exec"): Wrapper("", frozenset(), 1),
}


def script_words(spec: Wrapper, words: list[Word]) -> list[Word]:
    """The values of the wrapper's script options (flock -c SCRIPT), wherever they stand."""
    found = []
    for index, word in enumerate(words):
        text = word.text
        for option in spec.scripts:
            if text == option and index + 1 < len(words):
                found.append(words[index + 1])
            elif option.startswith("--") and text.startswith(option + "="):
                found.append(Word(text.partition("=")[2], word.unresolved))
            elif not option.startswith("--") and text.startswith("-") and not text.startswith("--"):
                letters = text[1:]
                at = letters.find(option[1])
                if len(text) > 2 and at >= 0 and text != option:
                    attached = letters[at + 1 :]
                    if attached:
                        found.append(Word(attached, word.unresolved))
                    elif index + 1 < len(words):
                        found.append(words[index + 1])
    return found


def unwrap(
    name: str, words: list[Word], state: State, spec: Wrapper | None = None
) -> list[list[Word]]:
    """The commands a wrapper may run: its arguments after its own options (and assignments).

    An option the table does not know may take a value: both readings are returned (RT3-M5).
    """
    spec = spec or WRAPPERS[name]
    found: list[list[Word]] = []
    _scan(name, spec, words, 0, spec.positionals, state, found, [3])
    return found


def _scan(
    name: str,
    spec: Wrapper,
    words: list[Word],
    index: int,
    positionals: int,
    state: State,
    found: list[list[Word]],
    budget: list[int],
) -> None:
    while index < len(words):
        word = words[index]
        text = word.text
        if word.unresolved:
            found.append(words[index:])
            return
        if text == "--":
            index += 1
            if positionals:
                index += positionals
            break
        if name == "env" and ASSIGNMENT.match(text):
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
                found.append(split_string(split, state) + words[index + (1 if has_value else 2) :])
                return
            index += 1
            if option in spec.long_values and not has_value:
                index += 1
            elif not has_value and budget[0] > 0 and name != "busybox":
                budget[0] -= 1  # --unknown VALUE: read it both ways
                _scan(name, spec, words, index + 1, positionals, state, found, budget)
            continue
        if text.startswith("-") and len(text) > 1 and name not in ("busybox", "-"):
            if name == "nice" and text[1:].isdigit():
                index += 1
                continue
            index += 1
            for offset, letter in enumerate(text[1:], start=2):
                if letter in spec.short_values:
                    attached = text[offset:]
                    if name == "env" and letter == "S":
                        split = attached or (words[index].text if index < len(words) else "")
                        found.append(
                            split_string(split, state) + words[index + (0 if attached else 1) :]
                        )
                        return
                    if not attached:
                        index += 1
                    break
            continue
        if positionals:
            positionals -= 1
            index += 1
            continue
        break
    if spec.command and index < len(words):
        found.append(words[index:])


def split_string(text: str, state: State) -> list[Word]:
    """env -S: the string split into words the way the shell would."""
    from ._lexer import Lexer

    lexer = Lexer(text, state, MAX_DEPTH)
    return [token for token in lexer.tokens() if isinstance(token, Word)]
