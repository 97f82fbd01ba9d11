"""Command lines generated over shell grammar (hypothesis), for the shell lab to find the next form.

Quoting, expansions, braces, globs, redirections, here-strings and here-documents, pipelines and
lists, compound commands and keywords, functions, wrappers, and nested scripts (sh -c, eval,
bash <<<, a pipe into sh, trap). Loops never run forever (`while false`), and a function's body
never calls the function, so no generated line forks without bound; the sandbox's time limit
per line stands behind that.
"""

from __future__ import annotations

from typing import Any

PROGRAMS = (
    "rm", "ls", "cat", "git", "echo", "printf", "true", ":", "touch", "cp", "curl", "grep",
    "env", "sudo", "nice", "timeout 1", "command", "exec", "builtin", "xargs", "find .", "time",
    "nohup", "noglob", "nocorrect", "repeat 1", "coproc", "chroot /", "flock /tmp/l", "ssh h",
    "taskset 1", "strace -f", "/bin/rm", "/usr/bin/ls", "=rm", "\\rm", "r''m", '"rm"', "./x",
)  # fmt: skip
WORDS = (
    "-rf", "-r", "-f", "/", "/tmp/x", "a", "b", "x.txt", "*", "*.py", "?", "[ab]", "-c", "--",
    "{a,b}", "{1..2}", "{rm,-rf}", "~", "~/x", "a=b", "push", "-", "''", '""', "@(rm)", "+(a)",
    "*(N)", "x(e:true:)", "{}", "%", "!", "=ls", "a[1]", "'a[$(rm -rf /)]'", "-C", "-e",
)  # fmt: skip
EXPANSIONS = (
    "$x", "${x}", "$1", "$@", '"$@"', "$*", "$?", "$$", "${x:-a}", "${x:-$(rm a)}", "${#x}",
    "$((1+2))", "$((x))", "${x@P}", "${(e)x}", "$'\\x72m'", '$"a"', "${x/a/b}",
)  # fmt: skip
ASSIGNMENTS = ("x=rm ", "x='rm -rf /' ", "IFS=, ", "y=$(ls) ", "PS4='$(rm p)' ", "a[0]=1 ")
REDIRECTIONS = (
    ">/tmp/o", "2>&1", "</dev/null", ">>/tmp/f", "{fd}>/tmp/f", "&>/dev/null", "<x.txt",
    "2>/dev/null", "<<<a", "<<<'rm -rf h'", '<<<"$x"', "3<>/tmp/g", ">|/tmp/h",
)  # fmt: skip


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def line_strategy() -> Any:
    """A strategy for whole command lines."""
    from hypothesis import strategies as st

    plain = st.sampled_from(WORDS)

    def quoted(word: str) -> Any:
        return st.sampled_from(
            [word, _quote(word), '"' + word.replace('"', '\\"') + '"', "\\" + word, word + "''"]
        )

    def words(script: Any) -> Any:
        substitution = script.map(lambda s: f"$({s})") | script.map(
            lambda s: "`" + s.replace("`", "") + "`"
        )
        process = script.map(lambda s: f"<({s})")
        return st.one_of(
            plain.flatmap(quoted),
            st.sampled_from(EXPANSIONS),
            substitution,
            process,
            st.tuples(plain, st.sampled_from(EXPANSIONS)).map("".join),
            st.tuples(st.sampled_from(("a", "-", "/x/")), substitution).map("".join),
        )

    def simple(script: Any) -> Any:
        return st.tuples(
            st.sampled_from(("", *ASSIGNMENTS)),
            st.sampled_from(PROGRAMS) | words(script),
            st.lists(words(script), max_size=4),
            st.lists(st.sampled_from(REDIRECTIONS), max_size=2),
        ).map(lambda t: t[0] + " ".join([t[1], *t[2], *t[3]]))

    def compound(script: Any) -> Any:
        return st.one_of(
            script.map(lambda s: f"{{ {s}; }}"),
            script.map(lambda s: f"( {s} )"),
            st.tuples(script, script).map(lambda t: f"if {t[0]}; then {t[1]}; fi"),
            script.map(lambda s: f"if [[ -n a ]] {{ {s} }}"),
            script.map(lambda s: f"while false; do {s}; done"),
            script.map(lambda s: f"for i in a b; do {s}; done"),
            script.map(lambda s: f"case a in a) {s};; esac"),
            script.map(lambda s: f"echo $(case a in a) {s};; esac)"),
            script.map(lambda s: f"f() {{ {s}; }}; f"),
            script.map(lambda s: f"function g {{ {s}; }}; g"),
            script.map(lambda s: f"coproc {{ {s}; }}; wait"),
            script.map(lambda s: f"sh -c {_quote(s)}"),
            script.map(lambda s: f"bash -c {_quote(s)}"),
            script.map(lambda s: f"eval {_quote(s)}"),
            script.map(lambda s: f"bash <<< {_quote(s)}"),
            script.map(lambda s: f"echo {_quote(s)} | sh"),
            script.map(lambda s: f"trap {_quote(s)} EXIT"),
            script.map(lambda s: f"source /dev/stdin <<< {_quote(s)}"),
            script.filter(lambda s: "EOF" not in s).map(lambda s: f"sh <<EOF\n{s}\nEOF"),
            script.filter(lambda s: "EOF" not in s).map(lambda s: f"cat <<EOF\n$({s})\nEOF"),
            script.map(lambda s: f'x={_quote(s)}; eval "$x"'),
        )

    def pipeline(script: Any) -> Any:
        return st.lists(simple(script) | compound(script), min_size=1, max_size=3).map(" | ".join)

    def script(inner: Any) -> Any:
        return st.tuples(
            pipeline(inner),
            st.lists(
                st.tuples(st.sampled_from(("; ", " && ", " || ", " & ", "\n")), pipeline(inner)),
                max_size=2,
            ),
        ).map(lambda t: t[0] + "".join(op + p for op, p in t[1]))

    base = st.tuples(st.sampled_from(PROGRAMS), st.lists(plain, max_size=3)).map(
        lambda t: " ".join([t[0], *t[1]])
    )
    return st.recursive(base, script, max_leaves=6)


def generated_lines(count: int, *, seed: int = 0) -> list[str]:
    """count lines (fewer if hypothesis repeats itself), the same lines for the same seed."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as with_seed

    found: list[str] = []

    @with_seed(seed)
    @settings(
        max_examples=count,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        deadline=None,
    )
    @given(line_strategy())
    def collect(line: str) -> None:
        found.append(line)

    collect()
    return list(dict.fromkeys(line for line in found if len(line) < 2000))
