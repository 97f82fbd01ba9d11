"""The built-in policy judge: an ordered TOML rule list, first match decides, default allow."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from fnmatch import fnmatchcase

from ._generated.constants import (
    MODELED_TOOL_INPUT_KEYS,
    CallClasses,
    ContentFields,
    Decisions,
    EventKinds,
    PatchInputFields,
    PolicyCommandFields,
    PolicyFields,
    PolicyModes,
    PolicyRewriteFields,
    PolicyRuleFields,
    UnparsedOutcomes,
    UnrenderedDecisions,
)
from ._generated.models.tool_call_event_schema import ToolCallEvent
from ._generated.models.verdict_schema import Verdict
from ._judges import JudgeLoadError
from ._model_base import ABSENT
from .contract import call_class, present

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any, Final

    from ._generated.constants import Decision, EventKind, UnparsedOutcome, UnrenderedDecision

__all__ = [
    "MATCH_LIMIT_BYTES",
    "Explanation",
    "PolicyJudge",
    "check_policy_file",
    "load_policy_judge",
    "read_policy_file",
]

MATCH_LIMIT_BYTES: Final = 64 * 1024
"""Bytes of UTF-8 text a pattern is run over: the bound on what one search can cost."""

# policy.schema.json PolicyRule.tools: an mcp__server__tool pattern also covers Gemini's
# mcp_server_tool names (Gemini CLI versus Claude Code, Codex and Amp; hosts/*.json).
_DOUBLE_MCP: Final = "mcp__"
_TOP_LEVEL: Final = frozenset(PolicyFields.ALL)
_RULE_KEYS: Final = frozenset(PolicyRuleFields.ALL)
_REWRITE_KEYS: Final = frozenset(PolicyRewriteFields.ALL)
_COMMAND_KEYS: Final = frozenset(PolicyCommandFields.ALL)
# The compiled cache: the TOML parsed once, re-read as JSON while the file's status stays the same
# (issue 16: no tomllib import per hook call). It lives in a per-user folder outside the project,
# each entry named by the rule file's SHA-256 and trusted for its location and owner (issue 26).
_CACHE_FORMAT: Final = 2
_BLOCKING: Final = frozenset({Decisions.DENY, Decisions.ASK})
_UNPARSED_NOTE: Final = " (on_unparsed = match)"
_STRICTNESS: Final = {Decisions.ALLOW: 0, Decisions.ASK: 1, Decisions.DENY: 2}
_LIMIT_TEXT: Final = f"{MATCH_LIMIT_BYTES // 1024} KiB"
_CUT_NOTE: Final = f" [cut by policy: text past the first {_LIMIT_TEXT} is not passed on unscanned]"
_FIX: Final = "fix the rule file (`acp policy check FILE` lists every error)"


class _Lazy:
    """A pattern compiled on first use: a hook call compiles only the patterns it reaches."""

    __slots__ = ("_compiled", "_is_glob", "pattern")

    def __init__(self, pattern: str, *, glob: bool = False) -> None:
        self.pattern = pattern
        self._is_glob = glob
        self._compiled: re.Pattern[str] | None = None

    def get(self) -> re.Pattern[str]:
        """The compiled regular expression (a glob is translated first)."""
        if self._compiled is None:
            self._compiled = _glob(self.pattern) if self._is_glob else re.compile(self.pattern)
        return self._compiled


# Plain classes with __slots__ (as in _shell), not NamedTuples: a NamedTuple class compiles each
# of its string annotations when it is created, on every hook call that has ACP_POLICY set.
class _Rewrite:
    __slots__ = ("pattern", "replacement")

    def __init__(self, pattern: _Lazy, replacement: str) -> None:
        self.pattern = pattern
        self.replacement = replacement


class _Command:
    __slots__ = (
        "aliases",
        "all_flags",
        "any_flags",
        "args",
        "fold_case",
        "long_names",
        "piped_from",
        "programs",
        "subcommands",
        "value_options",
    )

    def __init__(
        self,
        *,
        programs: tuple[str, ...] | None,
        fold_case: bool,
        subcommands: tuple[str, ...] | None,
        value_options: frozenset[str],
        aliases: Mapping[str, str],
        all_flags: frozenset[str],
        any_flags: frozenset[str],
        args: tuple[_Lazy, ...] | None,
        piped_from: tuple[str, ...] | None,
        long_names: tuple[str, ...],
    ) -> None:
        self.programs = programs
        self.fold_case = fold_case
        self.subcommands = subcommands
        self.value_options = value_options
        self.aliases = aliases
        self.all_flags = all_flags
        self.any_flags = any_flags
        self.args = args
        self.piped_from = piped_from
        self.long_names = long_names  # every long option the condition names, for prefix reading


class _Rule:
    __slots__ = (
        "command",
        "context",
        "decision",
        "events",
        "field",
        "label",
        "match",
        "on_unparsed",
        "on_unrendered",
        "paths",
        "reason",
        "rewrite",
        "tools",
    )

    def __init__(
        self,
        *,
        label: str,
        tools: tuple[str, ...] | None,
        events: frozenset[EventKind] | None,
        field: str | None,
        match: _Lazy | None,
        command: _Command | None,
        paths: tuple[_PathGlob, ...] | None,
        on_unparsed: UnparsedOutcome,
        decision: Decision,
        reason: str | None,
        context: str | None,
        rewrite: _Rewrite | None,
        on_unrendered: UnrenderedDecision,
    ) -> None:
        self.label = label
        self.tools = tools
        self.events = events
        self.field = field
        self.match = match
        self.command = command
        self.paths = paths
        self.on_unparsed = on_unparsed
        self.decision = decision
        self.reason = reason
        self.context = context
        self.rewrite = rewrite
        self.on_unrendered = on_unrendered


class Explanation:
    """Which rule decided a call (None: no rule matched), the verdict, and why the rule matched."""

    # A slotted class, not a NamedTuple: the policy judge builds one per call, and a NamedTuple
    # needs typing, which a hook process does not load (issue 13). It unpacks like one.
    __slots__ = ("rule", "verdict", "why")

    def __init__(self, rule: str | None, verdict: Verdict, why: tuple[str, ...]) -> None:
        self.rule = rule
        self.verdict = verdict
        self.why = why

    def __iter__(self) -> Iterator[Any]:
        return iter((self.rule, self.verdict, self.why))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Explanation):
            return NotImplemented
        return (self.rule, self.verdict, self.why) == (other.rule, other.verdict, other.why)

    def __hash__(self) -> int:
        return hash((self.rule, self.verdict, self.why))

    def __repr__(self) -> str:
        return f"Explanation(rule={self.rule!r}, verdict={self.verdict!r}, why={self.why!r})"


class PolicyJudge:
    """A judge built from a rule file: call it with an event to get the first matching rule's verdict."""

    def __init__(self, rules: Sequence[_Rule], source: str) -> None:
        self._rules = tuple(rules)
        self.source = source
        self.last_rule: str | None = None

    def __repr__(self) -> str:
        return f"<PolicyJudge {self.source!r} with {len(self._rules)} rule(s)>"

    def __call__(self, event: ToolCallEvent) -> Verdict:
        """The verdict of the first rule that matches the event; allow when none does."""
        explanation = self.explain(event)
        # The hook entry writes it into the audit record (issue 26).
        self.last_rule = explanation.rule
        return explanation.verdict

    def explain(self, event: ToolCallEvent) -> Explanation:
        """The deciding rule, its verdict and the tokens or paths that made it match."""
        memo: dict[int, Any] = {}
        pending: Explanation | None = None
        for rule in self._rules:
            why: list[str] = []
            verdict = _apply(rule, event, why, memo)
            if verdict is None:
                continue
            unparsed = any(line.endswith(_UNPARSED_NOTE) for line in why)
            if pending is None and not unparsed:
                return Explanation(rule.label, verdict, tuple(why))
            if pending is None:
                # Matched only because part of the input is unreadable: a later rule that matches
                # what was read, with a decision at least as strict, decides instead (its reason
                # is the accurate one); none does, this rule decides.
                pending = Explanation(rule.label, verdict, tuple(why))
            elif not unparsed and _STRICTNESS.get(verdict.decision, 0) >= _STRICTNESS.get(
                pending.verdict.decision, 0
            ):
                return Explanation(rule.label, verdict, tuple(why))
        if pending is not None:
            return pending
        return Explanation(None, Verdict(decision=Decisions.ALLOW), ())

    def commands(self, event: ToolCallEvent) -> list[str]:
        """The simple commands the splitter finds in the value the first command rule reads."""
        for rule in self._rules:
            if rule.command is None:
                continue
            if rule.events is not None and event.event not in rule.events:
                continue
            if rule.tools is not None and not _tool_selected(rule.tools, event):
                continue
            key = _input_key(rule, event)
            if key is None or key not in event.input:
                continue
            lines = []
            for parsed in _parsed(event.input[key], {}):
                for command in parsed.commands:
                    via = "".join(f"{name} > " for name in command.via)
                    lines.append(via + _short(" ".join(command.argv), 120))
                lines += [f"(cannot split: {problem})" for problem in parsed.problems]
            return lines
        return []


def load_policy_judge(path: str) -> PolicyJudge:
    """Load a TOML rule file into a judge; raise JudgeLoadError naming the file, rule and field."""
    data, cached = _cached_data(path)
    if is_layered(data):
        return layered_judge(path, data)  # issue 28: layers that only tighten, observe mode
    # A cache is written only for a file that compiled: its patterns need no check again.
    rules, problems = _compile(data, checked=cached)
    if problems and cached:
        # A cache edited by hand or by another version: the TOML file is the source of truth.
        data = _parse_toml(path, _read_rule_file(path)[0])
        rules, problems = _compile(data)
    if problems:
        found = "; ".join(_with_lines(path, problems))
        raise JudgeLoadError(f"policy {path}: {found}; {_FIX}")
    return PolicyJudge(rules, path)


# ---- Layers that only tighten, and observe mode (issue 28; the _layers docstring says how) ----
#
# They live here, not in _layers, so that load_policy_judge and check_policy_file dispatch to them
# without an import cycle (_layers imports this module and re-exports them). Each layer is read
# through the per-user compiled cache, so through _read_rule_file, as a single rule file is.

OBSERVE_PREFIX: Final = "observe: would "
_MAX_LAYERS: Final = 8


class Layer:
    """One rule file of the chain: its enforcing rules, and all of them when some only observe."""

    __slots__ = ("enforcing", "everything", "observe", "source")

    def __init__(
        self,
        source: str,
        enforcing: PolicyJudge,
        everything: PolicyJudge | None,
        observe: bool,
    ) -> None:
        self.source = source
        self.enforcing = enforcing
        self.everything = everything
        self.observe = observe


def _strictness(verdict: Verdict) -> int:
    return _STRICTNESS.get(verdict.decision, 0)


class LayeredJudge(PolicyJudge):
    """The composed judge of a layer chain, outermost first; explain names the deciding layer."""

    layered = True

    def __init__(self, layers: Sequence[Layer]) -> None:
        rules = [rule for layer in layers for rule in layer.enforcing._rules]
        super().__init__(rules, layers[-1].source)
        self.layers = tuple(layers)

    def __repr__(self) -> str:
        chain = " <- ".join(layer.source for layer in self.layers)
        return f"<LayeredJudge {chain}>"

    def __call__(self, event: ToolCallEvent) -> Verdict:
        explanation = self.explain(event)
        observed = [line for line in explanation.why if line.startswith(OBSERVE_PREFIX)]
        # The audit record's rule (issue 26) says what decided, then what observed rules would.
        rule = explanation.rule
        self.last_rule = "; ".join([rule or "no rule", *observed]) if observed else rule
        return explanation.verdict

    def explain(self, event: ToolCallEvent) -> Explanation:
        """The strictest layer's explanation; observe notes for what an observed part would do."""
        best: tuple[Layer, Explanation] | None = None
        observed: list[str] = []
        for layer in self.layers:
            found = layer.enforcing.explain(event)
            if layer.everything is not None:
                would = layer.everything.explain(event)
                if would.rule is not None and _strictness(would.verdict) > _strictness(
                    found.verdict
                ):
                    observed.append(_observed(would, layer))
            if layer.observe:
                if found.rule is not None and _strictness(found.verdict) > 0:
                    observed.append(_observed(found, layer))
                continue
            if best is None or _stricter(found, best[1]):
                best = (layer, found)
        if best is None:
            return Explanation(None, Verdict(decision=Decisions.ALLOW), tuple(observed))
        layer, found = best
        rule = None if found.rule is None else f"{found.rule} in {layer.source}"
        return Explanation(rule, found.verdict, (*found.why, *observed))


def _stricter(found: Explanation, best: Explanation) -> bool:
    """Whether an inner layer's explanation replaces the outer one chosen so far."""
    if _strictness(found.verdict) != _strictness(best.verdict):
        return _strictness(found.verdict) > _strictness(best.verdict)
    return best.rule is None and found.rule is not None


def _observed(explanation: Explanation, layer: Layer) -> str:
    return f"{OBSERVE_PREFIX}{explanation.verdict.decision} by {explanation.rule} in {layer.source}"


def is_layered(data: Mapping[str, Any]) -> bool:
    """Whether a rule file's data extends a base or observes (at the top or in a rule)."""
    if PolicyFields.EXTENDS in data or PolicyFields.MODE in data:
        return True
    rules = data.get(PolicyFields.RULES)
    return isinstance(rules, list) and any(
        isinstance(rule, dict) and PolicyRuleFields.MODE in rule for rule in rules
    )


def _mode_problems(data: Mapping[str, Any]) -> list[str]:
    problems = []
    modes = ", ".join(PolicyModes.ALL)
    if data.get(PolicyFields.MODE, PolicyModes.ENFORCE) not in PolicyModes.ALL:
        problems.append(f"top level, field mode: must be one of {modes}")
    for index, rule in enumerate(data.get(PolicyFields.RULES) or []):
        if (
            isinstance(rule, dict)
            and rule.get(PolicyRuleFields.MODE, "enforce") not in PolicyModes.ALL
        ):
            problems.append(f"{_label(index, rule)}, field mode: must be one of {modes}")
    base = data.get(PolicyFields.EXTENDS)
    if base is not None and (not isinstance(base, str) or not base):
        problems.append("top level, field extends: must be a non-empty path")
    return problems


def load_layers(
    path: str, data: Mapping[str, Any] | None = None, seen: tuple[str, ...] = ()
) -> list[Layer]:
    """The chain from the outermost base to this file; JudgeLoadError names the layer at fault."""
    real = os.path.realpath(path)
    if real in seen:
        raise JudgeLoadError(
            f"policy {path}: extends itself through {' -> '.join(seen)}; remove the cycle"
        )
    if len(seen) >= _MAX_LAYERS:
        raise JudgeLoadError(f"policy {path}: more than {_MAX_LAYERS} layers; flatten the chain")
    if data is None:
        # Through _read_rule_file: a base that is a FIFO or device is refused, never waited on.
        data = _cached_data(path)[0]
    problems = _mode_problems(data)
    rules, more = _compile(data)
    problems += more
    if problems:
        raise JudgeLoadError(f"policy {path}: " + "; ".join(problems) + f"; {_FIX}")
    outer: list[Layer] = []
    base = data.get(PolicyFields.EXTENDS)
    if isinstance(base, str):
        base_path = base if os.path.isabs(base) else os.path.join(os.path.dirname(path), base)
        try:
            outer = load_layers(base_path, None, (*seen, real))
        except JudgeLoadError as exc:
            raise JudgeLoadError(
                f"policy {path} extends {base_path}, which does not load ({exc}); every call is"
                " blocked until the base is restored (or extends is removed by whoever owns it)"
            ) from exc
    raw = data.get(PolicyFields.RULES) or []
    observing = {
        index
        for index, rule in enumerate(raw)
        if isinstance(rule, dict) and rule.get(PolicyRuleFields.MODE) == PolicyModes.OBSERVE
    }
    enforcing = PolicyJudge([r for i, r in enumerate(rules) if i not in observing], path)
    everything = PolicyJudge(rules, path) if observing else None
    whole = data.get(PolicyFields.MODE) == PolicyModes.OBSERVE
    return [*outer, Layer(path, enforcing, everything, whole)]


def layered_judge(path: str, data: Mapping[str, Any] | None = None) -> LayeredJudge:
    """The composed judge of a rule file and every base it extends."""
    return LayeredJudge(load_layers(path, data))


def check_layers(path: str, data: Mapping[str, Any]) -> list[str]:
    """`acp policy check`: what stops the chain from loading (bases, cycles, modes)."""
    if not is_layered(data):
        return []
    try:
        load_layers(path, data)
    except JudgeLoadError as exc:
        return [str(exc)]
    return []


def _with_lines(path: str, problems: list[str]) -> list[str]:
    """Each rules[N] problem prefixed with the line of that rule's [[rules]] header (issue 26)."""
    try:
        text = _read_rule_file(path)[0].decode("utf-8", "replace")
    except OSError:
        return problems
    header = re.compile(rf"^\s*\[\[\s*{PolicyFields.RULES}\s*\]\]")
    lines = [number for number, line in enumerate(text.splitlines(), 1) if header.match(line)]
    found = []
    for problem in problems:
        index = re.match(rf"{PolicyFields.RULES}\[(\d+)\]", problem)
        if index is not None and int(index.group(1)) < len(lines):
            problem = f"line {lines[int(index.group(1))]}, {problem}"
        found.append(problem)
    return found


def _cached_data(path: str) -> tuple[Mapping[str, Any], bool]:
    """The rule file's data: from the per-user compiled cache when it is current, else parsed."""
    try:
        status = os.stat(path)
    except OSError as exc:
        raise JudgeLoadError(
            f"policy {path}: cannot read the rule file ({exc.strerror or exc});"
            " point ACP_POLICY or --policy at a readable TOML file"
        ) from exc
    folder = cache_dir()
    # The stat seen now (ctime too: restoring an mtime changes it) maps the path to its digest,
    # so a current call reads two small JSON files and hashes nothing.
    seen = _stat_key(status)
    index = None if folder is None else os.path.join(folder, _index_name(path))
    if index is not None:
        noted = _trusted_json(index)
        if isinstance(noted, dict) and noted.get("path") == path and noted.get("stat") == seen:
            entry = _trusted_json(os.path.join(folder, f"{noted.get('digest')}.json"))  # type: ignore[arg-type]
            if isinstance(entry, dict) and entry.get("digest") == noted.get("digest"):
                data = entry.get("policy")
                if isinstance(data, dict):
                    return data, True
    try:
        raw, status = _read_rule_file(path)
    except OSError as exc:
        raise JudgeLoadError(
            f"policy {path}: cannot read the rule file ({exc.strerror or exc});"
            " point ACP_POLICY or --policy at a readable TOML file"
        ) from exc
    data = _parse_toml(path, raw)
    # Tests are for `acp policy test`, not for the hook: the cache keeps the rules only.
    policy = {key_: value for key_, value in data.items() if key_ != PolicyFields.TESTS}
    if folder is not None and index is not None and not _compile(policy)[1]:
        import hashlib

        digest = hashlib.sha256(raw).hexdigest()
        _write_cache(os.path.join(folder, f"{digest}.json"), {"digest": digest, "policy": policy})
        _write_cache(index, {"path": path, "stat": _stat_key(status), "digest": digest})
    return policy, False


def _stat_key(status: os.stat_result) -> list[int]:
    return [_CACHE_FORMAT, status.st_mtime_ns, status.st_ctime_ns, status.st_size, status.st_ino]


_CACHE_SUBDIR: Final = ("agent-control-plane-core", "policy")


def cache_dir(environ: Mapping[str, str] | None = None, *, create: bool = True) -> str | None:
    """The per-user folder of compiled policies, or None where no safe one exists.

    $XDG_CACHE_HOME (absolute) or ~/.cache, then agent-control-plane-core/policy, created 0700
    and used only while it is a folder owned by this user that nobody else can write, and not
    inside /tmp, $TMPDIR or the working directory (the folders a sandboxed agent may write).
    """
    env = os.environ if environ is None else environ
    base = env.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        home = env.get("HOME") or os.path.expanduser("~")
        if not os.path.isabs(home):
            return None
        base = os.path.join(home, ".cache")
    folder = os.path.normpath(os.path.join(base, *_CACHE_SUBDIR))
    try:
        if os.path.islink(base):
            folder = os.path.realpath(folder)  # ~/.cache elsewhere: judge where it really is
    except (OSError, ValueError):
        return None
    for root in _agent_writable(env):
        if folder == root or folder.startswith(root.rstrip("/") + "/"):
            return None
    try:
        status = os.lstat(folder)
    except FileNotFoundError:
        if not create:
            return None
        try:
            os.makedirs(folder, mode=0o700, exist_ok=True)
            status = os.lstat(folder)
        except OSError:
            return None
    except OSError:
        return None
    import stat

    if not stat.S_ISDIR(status.st_mode) or status.st_uid != os.geteuid():
        return None
    if status.st_mode & 0o022:
        return None  # a folder others can write to is not the user's own
    return folder


def _agent_writable(environ: Mapping[str, str]) -> list[str]:
    """The folders a sandboxed agent may write: the temporary folders and the working directory."""
    roots = ["/tmp", "/var/tmp", "/dev/shm", environ.get("TMPDIR", "")]
    try:
        cwd = os.getcwd()
    except OSError:
        cwd = ""  # a deleted working directory: nothing more to exclude
    roots.append(cwd)
    # normpath, not realpath: a few microseconds instead of a hundred on every hook call; the
    # cache folder itself is checked with lstat (a link there is refused).
    return [os.path.normpath(root) for root in roots if root and os.path.isabs(root)]


def _index_name(path: str) -> str:
    """The index entry of one rule file: its path's checksum and name (the path is kept inside)."""
    from binascii import crc32

    name = os.path.basename(path)
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in name)[:64]
    return f"{crc32(path.encode('utf-8', 'surrogatepass')):08x}-{safe}.path.json"


def _trusted_json(path: str) -> object:
    """A cache file's JSON, or None when it is missing, broken, not regular or not this user's."""
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK)
    except (OSError, ValueError):
        return None
    try:
        with open(fd, "rb") as cache_file:
            status = os.fstat(fd)
            if not stat.S_ISREG(status.st_mode) or status.st_uid != os.geteuid():
                return None
            if status.st_mode & 0o022:
                return None
            return json.loads(cache_file.read())
    except (OSError, ValueError):
        return None


def _parse_toml(path: str, raw: bytes) -> dict[str, Any]:
    import tomllib

    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise JudgeLoadError(f"policy {path}: not valid TOML ({exc}); {_FIX}") from exc


def _write_cache(cache: str, content: object) -> None:
    """Write a cache file atomically, mode 0600; an unwritable folder just means no cache."""
    temporary = f"{cache}.{os.getpid()}.tmp"
    try:
        if os.path.lexists(temporary):
            os.unlink(temporary)  # left by a killed process with this pid
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        with open(os.open(temporary, flags, 0o600), "w", encoding="utf-8") as out:
            json.dump(content, out, ensure_ascii=False, separators=(",", ":"))
        os.replace(temporary, cache)
    except (OSError, TypeError, ValueError):
        from contextlib import suppress

        with suppress(OSError):
            os.unlink(temporary)


def read_policy_file(path: str) -> dict[str, Any]:
    """The whole rule file as data, tests included (for the acp policy commands)."""
    try:
        raw = _read_rule_file(path)[0]
    except OSError as exc:
        raise JudgeLoadError(f"policy {path}: cannot read ({exc.strerror or exc})") from exc
    return _parse_toml(path, raw)


def check_policy_file(path: str) -> list[str]:
    """Every error of a rule file against policy.schema.json, each naming the rule and the field."""
    import tomllib

    from .schemas import validator_for

    try:
        data = tomllib.loads(_read_rule_file(path)[0].decode("utf-8"))
    except OSError as exc:
        return [f"cannot read ({exc.strerror or exc})"]
    except UnicodeDecodeError as exc:
        # L10: one line naming the byte, not a traceback.
        return [f"not UTF-8 (byte {exc.object[exc.start : exc.start + 1]!r} at offset {exc.start})"]
    except tomllib.TOMLDecodeError as exc:
        return [f"not valid TOML ({exc})"]
    problems = []
    errors = validator_for("policy").iter_errors(data)
    for error in sorted(errors, key=lambda e: [str(part) for part in e.absolute_path]):
        at: list[str | int] = list(error.absolute_path)
        instance = error.instance if isinstance(error.instance, dict) else {}
        expected: Any = error.validator_value
        schema: Any = error.schema
        # A missing or unknown field is reported on its table: name the field in the location too.
        if error.validator == "required":
            at += [name for name in expected if name not in instance][:1]
        hint = ""
        if error.validator == "additionalProperties":
            properties = schema.get("properties", {})
            extra = sorted(set(instance) - set(properties))[:1]
            at += extra
            hint = _did_you_mean(extra[0], properties) if extra else ""
        message = error.message + hint
        if error.validator == "format" and expected == "regex" and isinstance(error.instance, str):
            try:
                re.compile(error.instance)
            except re.error as exc:
                message = _bad_regex(error.instance, exc)
        problems.append(f"{_where(data, at)}: {message}")
    if not problems:
        # The schema and the hook-path loader must agree; a disagreement is reported, not hidden.
        problems = _compile(data)[1]
    if not problems:
        problems = _runaway_patterns(data) + _tool_name_problems(data)
    if not problems:
        problems = check_layers(path, data)  # issue 28: its bases load, no cycle
    return problems


def _tool_name_problems(data: Mapping[str, Any]) -> list[str]:
    """A problem per tools glob that selects a host's native name but not its canonical tool (L9)."""
    from ._generated.constants import TOOL_ALIASES
    from .adapters import AGENT_IDS, adapter_for

    read_as: dict[str, str] = dict(TOOL_ALIASES)
    hosts: dict[str, list[str]] = {}
    for agent in AGENT_IDS:
        aliases: Mapping[str, str] = getattr(adapter_for(agent), "TOOL_ALIASES", {})
        for native, target in aliases.items():
            read_as.setdefault(native, target)
            hosts.setdefault(native, []).append(agent)
    found = []
    rules = data.get(PolicyFields.RULES)
    for index, raw in enumerate(rules if isinstance(rules, list) else []):
        tools = raw.get(PolicyRuleFields.TOOLS) if isinstance(raw, dict) else None
        for glob in tools if isinstance(tools, list) else []:
            if not isinstance(glob, str):
                continue
            natives = sorted(name for name in read_as if _fits(name, glob))
            missed = sorted(
                {read_as[name] for name in natives}
                - {target for target in read_as.values() if _fits(target, glob)}
            )
            for target in missed:
                names = [n for n in natives if read_as[n] == target]
                where = sorted({host for n in names for host in hosts.get(n, ["every host"])})
                found.append(
                    f"{_label(index, raw)}, field {PolicyRuleFields.TOOLS}: {glob!r} selects only"
                    f" the native name(s) {', '.join(names)} ({', '.join(where)}), which are read"
                    f" as {target!r}; every other host's {target} call is missed (globs are"
                    f" case-sensitive), so write {target!r}, which covers those names too"
                )
    return found


# A bounded repeat allowing more than this many rounds counts as unbounded for nesting (L7).
_MANY_ROUNDS: Final = 10


def _runaway_patterns(data: Mapping[str, Any]) -> list[str]:
    """A problem per rule pattern that nests an unbounded repeat in another (L7)."""
    found = []
    rules = data.get(PolicyFields.RULES)
    for index, raw in enumerate(rules if isinstance(rules, list) else []):
        if not isinstance(raw, dict):
            continue
        rewrite = raw.get(PolicyRuleFields.REWRITE)
        patterns = {
            PolicyRuleFields.MATCH: raw.get(PolicyRuleFields.MATCH),
            f"{PolicyRuleFields.REWRITE}.{PolicyRewriteFields.PATTERN}": (
                rewrite.get(PolicyRewriteFields.PATTERN) if isinstance(rewrite, dict) else None
            ),
        }
        for key, pattern in patterns.items():
            if isinstance(pattern, str) and _nests_repeats(pattern):
                found.append(
                    f"{_label(index, raw)}, field {key}: {pattern!r} repeats a part that itself"
                    " repeats without bound, which can take exponential time on a near-match"
                    " (only ACP_HOOK_TIMEOUT_MS stops it); make the inner part unable to"
                    " overlap, or use a possessive or atomic form (a++, (?>...))"
                )
    return found


def _nests_repeats(pattern: str) -> bool:
    """Whether a backtracking repeat holds another unbounded one, as in (a+)+."""
    from re import _constants as sre  # type: ignore[attr-defined]
    from re import _parser  # type: ignore[attr-defined]

    try:
        parsed = _parser.parse(pattern)
    except re.error:
        return False  # reported by the compile step

    def walk(items: Any, under: bool) -> bool:
        for op, arg in items:
            inside: list[Any] = []
            nested = under
            if op in (sre.MAX_REPEAT, sre.MIN_REPEAT):
                _low, high, body = arg
                if under and high == sre.MAXREPEAT:
                    return True
                inside, nested = [body], under or high == sre.MAXREPEAT or high > _MANY_ROUNDS
            elif op in (sre.POSSESSIVE_REPEAT, sre.ATOMIC_GROUP):
                # Nothing backtracks into a possessive repeat or an atomic group.
                inside, nested = [arg[2] if op == sre.POSSESSIVE_REPEAT else arg], False
            elif op == sre.SUBPATTERN:
                inside = [arg[3]]
            elif op in (sre.ASSERT, sre.ASSERT_NOT):
                inside = [arg[1]]
            elif op == sre.BRANCH:
                inside = list(arg[1])
            elif op == sre.GROUPREF_EXISTS:
                inside = [side for side in arg[1:] if side is not None]
            if any(walk(part, nested) for part in inside):
                return True
        return False

    return walk(parsed, False)


def _read_rule_file(path: str) -> tuple[bytes, os.stat_result]:
    """The rule file's bytes and status; a FIFO or device is refused rather than read (L10, R6)."""
    import stat

    # O_NONBLOCK: opening a FIFO must not wait for a writer before it can be refused.
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    with open(fd, "rb") as policy_file:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise OSError(f"{path} is not a regular file")
        return policy_file.read(), status


def _where(data: object, path: list[str | int]) -> str:
    """Name the rule or test (index and name) and the field an error path points at."""
    if len(path) >= 2 and path[0] in (PolicyFields.RULES, PolicyFields.TESTS):
        table = str(path[0])
        entries = data.get(table) if isinstance(data, dict) else None
        index = path[1]
        if isinstance(index, int):
            entry = entries[index] if isinstance(entries, list) and index < len(entries) else None
            where = _label(index, entry, table)
            if len(path) > 2:
                where += ", field " + ".".join(str(part) for part in path[2:])
            return where
    return "top level" + (", field " + ".".join(map(str, path)) if path else "")


def _label(index: int, rule: object, table: str = PolicyFields.RULES) -> str:
    name = rule.get(PolicyRuleFields.NAME) if isinstance(rule, dict) else None
    return f"{table}[{index}]" + (f" ({name!r})" if isinstance(name, str) else "")


def _compile(data: Mapping[str, Any], *, checked: bool = False) -> tuple[list[_Rule], list[str]]:
    """Build the rules without a schema validator (hook path); return them and every problem."""
    problems = [
        f"top level, field {key}: not a policy field{_did_you_mean(key, _TOP_LEVEL)}"
        f" (known: {', '.join(sorted(_TOP_LEVEL))})"
        for key in sorted(set(data) - _TOP_LEVEL)
    ]
    raw_rules = data.get(PolicyFields.RULES)
    if not isinstance(raw_rules, list):
        problems.append(
            f"top level, field {PolicyFields.RULES}: missing or not an array of tables;"
            f" write each rule as a [[{PolicyFields.RULES}]] table"
        )
        return [], problems
    rules = []
    for index, raw in enumerate(raw_rules):
        label = _label(index, raw)
        if not isinstance(raw, dict):
            problems.append(f"{label}: not a table")
            continue
        found: list[str] = []
        rule = _rule(raw, label, found, checked)
        problems += [f"{label}, {text}" for text in found]
        if rule is not None and not found:
            rules.append(rule)
    return rules, problems


def _rule(raw: Mapping[str, Any], label: str, problems: list[str], checked: bool) -> _Rule | None:
    """One rule from its table; problems get one entry per bad field."""
    fields = PolicyRuleFields
    for key in sorted(set(raw) - _RULE_KEYS):
        problems.append(
            f"field {key}: not a rule field{_did_you_mean(key, PolicyRuleFields.ALL)}"
            f" (known: {', '.join(PolicyRuleFields.ALL)})"
        )

    def text(key: str, *, non_empty: bool = False) -> str | None:
        value = raw.get(key)
        if value is None:
            return None
        if not isinstance(value, str) or (non_empty and not value):
            problems.append(f"field {key}: must be a{' non-empty' if non_empty else ''} string")
            return None
        return value

    decision: Decision = raw.get(fields.DECISION, Decisions.DENY)
    if raw.get(fields.DECISION) not in Decisions.ALL:
        problems.append(
            f"field {fields.DECISION}: {decision!r} is not one of {', '.join(Decisions.ALL)}"
            if fields.DECISION in raw
            else f"field {fields.DECISION}: missing; every rule needs one of {', '.join(Decisions.ALL)}"
        )
    tools = _strings(raw, fields.TOOLS, problems)
    if tools is not None and (not tools or not all(tools)):
        problems.append(f"field {fields.TOOLS}: must list at least one non-empty pattern")
    events = _strings(raw, fields.EVENTS, problems)
    if events is not None:
        stray = [kind for kind in events if kind not in EventKinds.ALL]
        if stray or not events or len(set(events)) != len(events):
            problems.append(
                f"field {fields.EVENTS}: must list distinct event kinds from"
                f" {', '.join(EventKinds.ALL)} (got {events!r})"
            )
    on_unrendered = raw.get(fields.ON_UNRENDERED, UnrenderedDecisions.DENY)
    if on_unrendered not in UnrenderedDecisions.ALL:
        problems.append(
            f"field {fields.ON_UNRENDERED}: {on_unrendered!r} is not one of"
            f" {', '.join(UnrenderedDecisions.ALL)}"
        )
    on_unparsed = raw.get(fields.ON_UNPARSED, UnparsedOutcomes.MATCH)
    if on_unparsed not in UnparsedOutcomes.ALL:
        problems.append(
            f"field {fields.ON_UNPARSED}: {on_unparsed!r} is not one of"
            f" {', '.join(UnparsedOutcomes.ALL)}"
        )
    field = text(fields.FIELD, non_empty=True)
    match_text = text(fields.MATCH)
    match = None if match_text is None else _regex(match_text, fields.MATCH, problems, checked)
    command = _command(raw.get(fields.COMMAND), problems)
    path_globs = _strings(raw, fields.PATHS, problems)
    if path_globs is not None and (not path_globs or not all(path_globs)):
        problems.append(f"field {fields.PATHS}: must list at least one non-empty pattern")
    for glob in path_globs or ():
        problems += [f"field {fields.PATHS}: {text}" for text in _anchor_problems(glob)]
    reason = text(fields.REASON)
    context = text(fields.CONTEXT)
    rewrite = _rewrite(raw.get(fields.REWRITE), problems, checked)
    if problems:
        return None
    return _Rule(
        label=label,
        tools=None if tools is None else tuple(tools),
        events=None if events is None else frozenset(k for k in EventKinds.ALL if k in events),
        field=field,
        match=match,
        command=command,
        paths=None if path_globs is None else tuple(_PathGlob(g) for g in path_globs),
        on_unparsed=on_unparsed,
        decision=decision,
        reason=reason,
        context=context,
        rewrite=rewrite,
        on_unrendered=on_unrendered,
    )


def _command(value: object, problems: list[str]) -> _Command | None:
    """The command condition of a rule, or None (absent or broken, with the problem noted)."""
    key = PolicyRuleFields.COMMAND
    if value is None:
        return None
    if not isinstance(value, dict):
        problems.append(f"field {key}: must be a table of {', '.join(PolicyCommandFields.ALL)}")
        return None
    fields = PolicyCommandFields
    found: list[str] = []
    for extra in sorted(set(value) - _COMMAND_KEYS):
        found.append(
            f"field {key}.{extra}: not a command field{_did_you_mean(extra, fields.ALL)}"
            f" (known: {', '.join(fields.ALL)})"
        )

    def globs(name: str, *, flag: bool = False, empty: bool = False) -> list[str] | None:
        items = _strings(value, name, found, prefix=f"{key}.")
        if items is None:
            return None
        if (not items and not empty) or not all(items):
            found.append(f"field {key}.{name}: must list at least one non-empty entry")
        elif flag and not all(item.startswith("-") for item in items):
            found.append(f"field {key}.{name}: every option starts with '-' (got {items!r})")
        return items

    fold = value.get(fields.FOLD_CASE, False)
    if not isinstance(fold, bool):
        found.append(f"field {key}.{fields.FOLD_CASE}: must be true or false")
    aliases = value.get(fields.ALIASES, {})
    if not isinstance(aliases, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and k.startswith("-") and v.startswith("-")
        for k, v in aliases.items()
    ):
        found.append(f"field {key}.{fields.ALIASES}: must be a table of option = option")
        aliases = {}
    programs = globs(fields.PROGRAM)
    subcommands = globs(fields.SUBCOMMAND)
    value_options = globs(fields.VALUE_OPTIONS, flag=True, empty=True) or []
    all_flags = globs(fields.ALL_FLAGS, flag=True) or []
    any_flags = globs(fields.ANY_FLAGS, flag=True) or []
    args = globs(fields.ARGS)
    piped_from = globs(fields.PIPED_FROM)
    problems += found
    if found:
        return None
    named = {*aliases, *aliases.values(), *all_flags, *any_flags, *value_options}
    return _Command(
        programs=None if programs is None else tuple(p.lower() if fold else p for p in programs),
        fold_case=bool(fold),
        subcommands=None if subcommands is None else tuple(subcommands),
        value_options=frozenset(value_options),
        aliases=dict(aliases),
        all_flags=frozenset(all_flags),
        any_flags=frozenset(any_flags),
        args=None if args is None else tuple(_Lazy(g, glob=True) for g in args),
        piped_from=None if piped_from is None else tuple(piped_from),
        long_names=tuple(sorted(name for name in named if name.startswith("--"))),
    )


def _strings(
    raw: Mapping[str, Any], key: str, problems: list[str], prefix: str = ""
) -> list[str] | None:
    value = raw.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        problems.append(f"field {prefix}{key}: must be an array of strings")
        return None
    return value


def _regex(pattern: str, key: str, problems: list[str], checked: bool = False) -> _Lazy | None:
    lazy = _Lazy(pattern)
    if checked:
        return lazy
    try:
        lazy.get()
        return lazy
    except re.error as exc:
        problems.append(f"field {key}: {_bad_regex(pattern, exc)}")
        return None


def _bad_regex(pattern: str, exc: re.error) -> str:
    """The one wording of a pattern that does not compile, for the hook and `acp policy check` (N45)."""
    return f"{pattern!r} is not a valid regular expression ({exc})"


def _glob(pattern: str) -> re.Pattern[str]:
    """A path glob as a regex over a normalized absolute path (policy.schema.json paths)."""
    text = pattern.replace("\\", "/")
    if not text.startswith("/"):
        text = "**/" + text  # a relative pattern matches at any depth
    out = []
    index = 0
    while index < len(text):
        if text.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
        elif text.startswith("**", index):
            out.append(".*")
            index += 2
        elif text[index] == "*":
            out.append("[^/]*")
            index += 1
        elif text[index] == "?":
            out.append("[^/]")
            index += 1
        elif text[index] == "[" and "]" in text[index + 2 :]:
            end = text.index("]", index + 2)
            body = text[index + 1 : end]
            negate = body[:1] in ("!", "^")
            body = body[1:] if negate else body
            out.append("[" + ("^" if negate else "") + body.replace("\\", "\\\\") + "]")
            index = end + 1
        else:
            out.append(re.escape(text[index]))
            index += 1
    if text.endswith("/**"):
        out[-2:] = ["(?:/.*)?"] if out[-2:] == [re.escape("/"), ".*"] else out[-2:]
    return re.compile(r"\A(?:" + "".join(out) + r")\Z", re.DOTALL)


def _rewrite(value: object, problems: list[str], checked: bool = False) -> _Rewrite | None:
    key = PolicyRuleFields.REWRITE
    if value is None:
        return None
    if not isinstance(value, dict):
        problems.append(
            f"field {key}: must be a table with {' and '.join(PolicyRewriteFields.ALL)}"
        )
        return None
    for extra in sorted(set(value) - _REWRITE_KEYS):
        problems.append(
            f"field {key}.{extra}: not a rewrite field"
            f"{_did_you_mean(extra, PolicyRewriteFields.ALL)}"
            f" (known: {', '.join(PolicyRewriteFields.ALL)})"
        )
    pattern_text = value.get(PolicyRewriteFields.PATTERN)
    replacement = value.get(PolicyRewriteFields.REPLACEMENT)
    pattern = None
    if not isinstance(pattern_text, str):
        problems.append(f"field {key}.{PolicyRewriteFields.PATTERN}: missing or not a string")
    else:
        pattern = _regex(pattern_text, f"{key}.{PolicyRewriteFields.PATTERN}", problems, checked)
    if not isinstance(replacement, str):
        problems.append(f"field {key}.{PolicyRewriteFields.REPLACEMENT}: missing or not a string")
        return None
    if pattern is None:
        return None
    if checked:
        return _Rewrite(pattern, replacement)
    # Expand the replacement once against an empty pattern with the same groups, so a bad group
    # reference (\9, \g<missing>) fails at load time rather than on some later call.
    compiled = pattern.get()
    names = {index: name for name, index in compiled.groupindex.items()}
    shape = "".join(
        f"(?P<{names[i]}>)" if i in names else "()" for i in range(1, compiled.groups + 1)
    )
    try:
        re.compile(shape).sub(replacement, "")
    except (re.error, IndexError) as exc:
        problems.append(f"field {key}.{PolicyRewriteFields.REPLACEMENT}: {exc}")
        return None
    return _Rewrite(pattern, replacement)


def _head(text: str) -> str:
    """At most MATCH_LIMIT_BYTES of UTF-8 text from the start of text (whole characters)."""
    if len(text) * 4 <= MATCH_LIMIT_BYTES:
        return text
    data = text.encode("utf-8", errors="surrogatepass")
    if len(data) <= MATCH_LIMIT_BYTES:
        return text
    return data[:MATCH_LIMIT_BYTES].decode("utf-8", errors="ignore")


def _texts(value: object) -> Iterator[str]:
    """The texts a pattern is searched in: a string, a list of strings joined, each string inside."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list) and all(isinstance(item, str) for item in value):
        yield " ".join(value)
    elif isinstance(value, list):
        for item in value:
            yield from _texts(item)
    elif isinstance(value, dict):
        # Decoded strings, never JSON text: a \n inside is a newline (docs/findings.md L11).
        for item in value.values():
            yield from _texts(item)
    else:
        yield json.dumps(value)


def _fits(name: str, pattern: str) -> bool:
    """fnmatchcase, without compiling a regex for a pattern that has no wildcard."""
    if "*" in pattern or "?" in pattern or "[" in pattern:
        return fnmatchcase(name, pattern)
    return name == pattern


def _tool_selected(patterns: tuple[str, ...], event: ToolCallEvent) -> bool:
    names = [name for name in (event.tool, event.meta.native_tool) if isinstance(name, str)]
    # The contract's MCP name rule (contract.md §3), less the double-underscore form.
    single_mcp = [
        name
        for name in names
        if not name.startswith(_DOUBLE_MCP) and call_class(name, None, None) == CallClasses.MCP
    ]
    for pattern in patterns:
        if any(_fits(name, pattern) for name in names):
            return True
        if pattern.startswith(_DOUBLE_MCP):
            single = pattern.replace("__", "_")
            if any(_fits(name, single) for name in single_mcp):
                return True
    return False


_FILE_PATH: Final = PatchInputFields.FILE_PATH
_FILE_PATHS: Final = PatchInputFields.FILE_PATHS


def _input_key(rule: _Rule, event: ToolCallEvent) -> str | None:
    if rule.field is not None:
        return rule.field
    return MODELED_TOOL_INPUT_KEYS.get(event.tool) if isinstance(event.tool, str) else None


class _Rewriter:
    """Rewrites every string in a JSON value, noting whether anything changed or was cut."""

    def __init__(self, rewrite: _Rewrite) -> None:
        self.rewrite = rewrite
        self.changed = False
        self.cut = False

    def __call__(self, value: object) -> object:
        """The value with the substitution applied to each string in it."""
        if isinstance(value, str):
            head = _head(value)
            new = self.rewrite.pattern.get().sub(self.rewrite.replacement, head)
            if len(head) < len(value):
                # Text past the scan limit is dropped, never passed on unscanned.
                self.cut = True
                new += _CUT_NOTE
            self.changed = self.changed or new != value
            return new
        if isinstance(value, list):
            return [self(item) for item in value]
        if isinstance(value, dict):
            return {key: self(item) for key, item in value.items()}  # names are not content
        return value


def _every_file(tool_input: Mapping[str, Any], key: str) -> object:
    """The key's value, or every file of a multi-file call when the key is its first file.

    An Edit or Write parsed from a patch or a path list names its first file in file_path and
    every file in file_paths (PatchInput): a rule reads them all, so a deny rule denies when any
    file matches and an allow rule needs every one (docs/findings.md HA3-13).
    """
    value = tool_input[key]
    every = tool_input.get(_FILE_PATHS) if key == _FILE_PATH else None
    if not isinstance(every, list) or not every:
        return value
    return [value, *(path for path in every if path != value)]


def _fails_closed(rule: _Rule) -> bool:
    """Whether input the judge cannot read completely counts as a match of this rule."""
    return rule.decision in _BLOCKING and rule.on_unparsed == UnparsedOutcomes.MATCH


def _matches_text(rule: _Rule, lazy: _Lazy, value: object, why: list[str]) -> bool:
    cut = 0
    pattern = lazy.get()
    for text in _texts(value):
        head = _head(text)
        found = pattern.search(head)
        if found is not None:
            why.append(f"match {pattern.pattern!r} found {_short(found.group())!r}")
            return True
        if len(head) < len(text):
            cut = max(cut, len(text.encode("utf-8", errors="surrogatepass")))
    if cut and _fails_closed(rule):
        # H1: no unscanned tail; a deny or ask rule counts what it could not search as a match,
        # and says how long the text was.
        why.append(
            f"text past the first {_LIMIT_TEXT} of a {cut}-byte value was not searched"
            + _UNPARSED_NOTE
        )
        return True
    return False


def _apply(
    rule: _Rule, event: ToolCallEvent, why: list[str], memo: dict[int, Any]
) -> Verdict | None:
    """The rule's verdict for the event, or None when the rule does not match."""
    if rule.events is not None and event.event not in rule.events:
        return None
    if rule.tools is not None and not _tool_selected(rule.tools, event):
        return None
    key = _input_key(rule, event)
    if rule.match is not None or rule.command is not None or rule.paths is not None:
        if key is None or key not in event.input:
            return None
        value = _every_file(event.input, key)
        if rule.match is not None and not _matches_text(rule, rule.match, value, why):
            return None
        if rule.command is not None and not _matches_command(rule, value, event, why, memo):
            return None
        if rule.paths is not None and not _matches_paths(rule, value, event, why):
            return None
    content: dict[str, Any] = {}
    rewriter = None if rule.rewrite is None else _Rewriter(rule.rewrite)
    if rewriter is not None:
        if event.event == EventKinds.POST_TOOL:
            if not present(event.response):
                return None
            content[ContentFields.MUTATED_OUTPUT] = rewriter(event.response)
        else:
            if key is None or key not in event.input:
                return None
            content[ContentFields.MUTATED_INPUT] = {**event.input, key: rewriter(event.input[key])}
        if not rewriter.changed:
            return None  # a rewrite rule matches only when it changes something
        why.append(f"rewrite {rule.rewrite.pattern.pattern!r} changed the text")  # type: ignore[union-attr]
    reason = rule.reason
    unparsed = [line.removesuffix(_UNPARSED_NOTE) for line in why if line.endswith(_UNPARSED_NOTE)]
    if unparsed:
        # Say why a rule fired on input it could not read, or its reason would mislead; a rule
        # without a reason is named, so the host never shows only its generic block text (H1).
        reason = reason if reason is not None else f"policy {rule.label}"
        reason += f" [{unparsed[0]}: input the policy cannot read counts as a match]"
    verdict = Verdict(
        decision=rule.decision,
        reason=ABSENT if reason is None else reason,
        additional_context=ABSENT if rule.context is None else rule.context,
        **content,
    )
    unreachable = sorted(set(content) & _unrendered(event))
    if not unreachable:
        return verdict
    cut = rewriter is not None and rewriter.cut
    if rule.on_unrendered == UnrenderedDecisions.DENY:
        why.append(
            f"{event.meta.agent} cannot carry {' or '.join(unreachable)} (on_unrendered = deny)"
        )
        # The rule's own reason describes the rewrite, not this refusal: say what happened.
        return Verdict(
            decision=Decisions.DENY,
            reason=f"policy {rule.label}: {event.meta.agent} has no channel for"
            f" {' or '.join(unreachable)} on {event.event}, so the call is denied rather than"
            " passed on unrewritten"
            + (f" (a value over the {_LIMIT_TEXT} scan limit was cut)" if cut else ""),
            # M9: the rewrite stays on the verdict, so the audit log keeps the redacted form.
            **content,
        )
    # on_unrendered = allow: the rule's decision stands without the rewrite it cannot deliver.
    return Verdict(
        decision=rule.decision,
        reason=verdict.reason,
        additional_context=verdict.additional_context,
    )


def _unrendered(event: ToolCallEvent) -> frozenset[str]:
    """The content fields the event's host cannot carry on this kind (all, for an unknown host)."""
    from .adapters import AGENT_IDS, _from_environment

    if event.meta.agent not in AGENT_IDS:
        # No declaration to prove the rewrite arrives: treat it as unrendered (never a silent pass).
        return frozenset(ContentFields.ALL)
    # Configured as the hook entry is (ACP_<HOST>_VERSION): what the host carries can depend on it.
    return frozenset(_from_environment(event.meta.agent).UNRENDERED_FIELDS[event.event])


def _short(text: str, width: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


# ---- command conditions -----------------------------------------------------------------------

_UNRESOLVED: Final = "unresolved"


def _parsed(value: object, memo: dict[int, Any]) -> list[Any]:
    """The shell splitter's result for each command text in the value (memoized per call)."""
    found = memo.get(id(value))
    if found is not None:
        return found  # type: ignore[no-any-return]
    from . import shell as _shell

    results = []
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        results.append(_shell.parse_argv(value))  # an argument vector, not a line (Codex)
    else:
        results.extend(_shell.parse_script(text) for text in _texts(value))
    memo[id(value)] = results
    return results


def _matches_command(
    rule: _Rule, value: object, event: ToolCallEvent, why: list[str], memo: dict[int, Any]
) -> bool:
    """Whether the command condition holds: any simple command (deny/ask) or every one (allow)."""
    condition = rule.command
    assert condition is not None
    every = rule.decision not in _BLOCKING
    unresolved: list[str] = []
    matched: list[str] = []
    total = 0
    for parsed in _parsed(value, memo):
        unresolved += [f"cannot split: {problem}" for problem in parsed.problems]
        for command in parsed.commands:
            total += 1
            result = _command_result(condition, command, event.meta.cwd)
            if result == _UNRESOLVED:
                unresolved.append(f"cannot read {_short(' '.join(command.argv))!r}")
            elif result is not None:
                matched.append(result)
                if not every:
                    why.append(result)
                    return True
            elif every:
                return False
    if every:
        # An allow rule never covers what the splitter could not read.
        if unresolved or not matched:
            return False
        why.append(f"every command matched ({len(matched)} of {total})")
        return True
    if unresolved and _fails_closed(rule):
        why.append(unresolved[0] + _UNPARSED_NOTE)
        return True
    return False


def _command_result(condition: _Command, command: Any, cwd: object) -> str | None:
    """Why the simple command meets the condition, None if it does not, or _UNRESOLVED."""
    from .shell import UNKNOWN_PROGRAM, basename

    argv: tuple[str, ...] = command.argv
    if 0 in command.unresolved:
        return _UNRESOLVED
    name = basename(argv[0])
    if condition.fold_case:
        name = name.lower()
    parts = [f"{' '.join(command.via) + ' > ' if command.via else ''}{name}"]
    if condition.programs is not None and not any(
        _fits(name, pattern) for pattern in condition.programs
    ):
        return None
    if condition.piped_from is not None:
        if UNKNOWN_PROGRAM in command.piped_from:
            return _UNRESOLVED
        upstream = [p for p in command.piped_from if any(_fits(p, g) for g in condition.piped_from)]
        if not upstream:
            return None
        parts.append(f"piped from {upstream[0]}")
    words = list(argv[1:])
    unresolved = {index - 1 for index in command.unresolved}
    if condition.subcommands is not None:
        position = _first_positional(condition, words, unresolved)
        if position is None:
            return None
        if position == -1:
            return _UNRESOLVED
        if not any(_fits(words[position], g) for g in condition.subcommands):
            return None
        parts.append(f"subcommand {words[position]}")
        words = words[position + 1 :]
        unresolved = {index - position - 1 for index in unresolved if index > position}
    offset = len(argv) - 1 - len(words)  # words dropped before them (program, subcommand)
    one_word = {i - 1 - offset: prefix for i, prefix in command.one_word.items()}
    flags, positionals, dynamic, unknown = _options(condition, words, unresolved, one_word)
    missing = condition.all_flags - flags
    if missing or (condition.any_flags and not condition.any_flags & flags):
        return _UNRESOLVED if dynamic else None
    if condition.all_flags:
        parts.append("flags " + ", ".join(sorted(condition.all_flags)))
    if condition.any_flags:
        parts.append("flag " + ", ".join(sorted(condition.any_flags & flags)))
    if condition.args is not None:
        # A file an input redirection reads is read as an operand is (cat < .env: RT3-M8).
        hit = _positional_hit(condition.args, [*positionals, *command.reads], cwd)
        if hit is None:
            return _UNRESOLVED if dynamic or unknown else None
        parts.append(hit)
    return "command " + "; ".join(parts)


def _first_positional(condition: _Command, words: list[str], unresolved: set[int]) -> int | None:
    """Index of the first positional word (the subcommand), -1 if unknowable, None if absent."""
    index = 0
    while index < len(words):
        if index in unresolved:
            return -1
        word = words[index]
        if word == "--":
            return index + 1 if index + 1 < len(words) else None
        if word.startswith("-") and len(word) > 1:
            option = word.partition("=")[0]
            takes_value = option in condition.value_options and "=" not in word
            if not word.startswith("--") and len(word) > 2 and word[:2] in condition.value_options:
                takes_value = False  # -C/repo: the value is attached
            index += 2 if takes_value else 1
            continue
        return index
    return None


def _options(
    condition: _Command, words: list[str], unresolved: set[int], one_word: Mapping[int, str]
) -> tuple[set[str], list[str], bool, bool]:
    """The flags (aliases applied), the positional words, and whether an unresolved word could
    be an option (dynamic) or is a positional argument of unknown text (unknown)."""
    flags: set[str] = set()
    positionals: list[str] = []
    dynamic = unknown = False
    index = 0
    aliases = condition.aliases
    options_end = False
    while index < len(words):
        word = words[index]
        if index in unresolved:
            prefix = one_word.get(index)
            if options_end or (prefix and not prefix.startswith("-")):
                unknown = True  # "./$d": one positional word of unknown text
            else:
                dynamic = True  # `rm $FLAGS /` or "$f": the word could be any option
            index += 1
            continue
        index += 1
        if options_end or word == "-" or not word.startswith("-"):
            positionals.append(word)
            continue
        if word == "--":
            options_end = True
            continue
        if word.startswith("--"):
            option, has_value, _ = word.partition("=")
            names = [option]
            if option not in aliases and option not in condition.long_names:
                # getopt_long takes a unique prefix (--rec for --recursive): read every candidate.
                names = [n for n in condition.long_names if n.startswith(option)] or names
            for name in names:
                flags.add(aliases.get(name, name))
            if option in condition.value_options and not has_value:
                index += 1
            continue
        for offset, letter in enumerate(word[1:], start=2):
            flag = "-" + letter
            flags.add(aliases.get(flag, flag))
            if flag in condition.value_options:
                if offset == len(word):
                    index += 1  # the value is the next word
                break
    return flags, positionals, dynamic, unknown


def _positional_hit(globs: tuple[_Lazy, ...], words: list[str], cwd: object) -> str | None:
    for word in words:
        forms = [word, _absolute(word, cwd)]
        for glob in globs:
            pattern = glob.get()
            if any(pattern.match(form) for form in forms):
                return f"argument {_short(word)!r} matched {glob.pattern!r}"
    return None


# ---- path conditions --------------------------------------------------------------------------


def _absolute(path: str, cwd: object) -> str:
    """The path made absolute against the cwd, with `.` and `..` folded and / as the separator."""
    import posixpath

    text = path.replace("\\", "/")
    if len(text) >= 2 and text[1] == ":" and text[0].isalpha():
        text = "/" + text  # a Windows drive path: C:/x -> /C:/x
    elif not text.startswith("/"):
        base = cwd.replace("\\", "/") if isinstance(cwd, str) and cwd else "/"
        text = base.rstrip("/") + "/" + text
    normal = posixpath.normpath(text)
    return "/" + normal.lstrip("/")


def _resolved(absolute: str) -> str:
    """The path with symbolic links resolved, as this machine sees it (the path if it cannot)."""
    import os.path

    try:
        return os.path.realpath(absolute)
    except (OSError, ValueError):
        return absolute


def _matches_paths(rule: _Rule, value: object, event: ToolCallEvent, why: list[str]) -> bool:
    assert rule.paths is not None
    paths = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    paths = [path for path in paths if isinstance(path, str) and path]
    if not paths:
        return False
    every = rule.decision not in _BLOCKING
    hits = 0
    for path in paths:
        absolute = _absolute(path, event.meta.cwd)
        glob = None
        # A path rule that denies or asks also matches the path with links resolved (RT3-M8).
        forms = [absolute] if every else list(dict.fromkeys((absolute, _resolved(absolute))))
        for candidate in rule.paths:
            hits_of = [candidate.matches(form, event) for form in forms]
            if any(hits_of):
                glob = candidate.pattern
                break
            if None in hits_of:
                # An anchor with no value (no cwd in the event): unreadable, never a silent pass.
                if every or not _fails_closed(rule):
                    continue
                why.append(
                    f"{candidate.pattern!r} names an anchor this call has no value for"
                    + _UNPARSED_NOTE
                )
                return True
        if glob is not None:
            hits += 1
            if not every:
                why.append(f"path {_short(absolute)!r} matched {glob!r}")
                return True
        elif every:
            return False
    if every and hits:
        why.append(f"every path matched ({hits})")
        return True
    return False


# ---- path anchors (issue 26) ------------------------------------------------------------------

# {project}: ACP_PROJECT_DIR where the hook runs (absolute), else the event's cwd; {cwd}: the
# event's cwd; {home}: HOME. A leading ! matches the paths the rest of the pattern does not.
_PROJECT_ENV: Final = "ACP_PROJECT_DIR"
_ANCHORS: Final = ("{project}", "{cwd}", "{home}")
_NOT: Final = "!"


def _did_you_mean(name: str, known: Iterable[str]) -> str:
    """'; did you mean X?' for the closest known name, or nothing (issue 26; errors only)."""
    from difflib import get_close_matches

    close = get_close_matches(name, sorted(known), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def _anchor_problems(pattern: str) -> list[str]:
    """A problem per {name} in a path pattern that is not a known anchor (with a suggestion)."""
    found = []
    for name in re.findall(r"\{[^{}/]*\}", pattern):
        if name in _ANCHORS:
            continue
        from difflib import get_close_matches

        close = get_close_matches(name, _ANCHORS, n=1)
        hint = f"; did you mean {close[0]}?" if close else ""
        found.append(
            f"{pattern!r} names {name}, which is not an anchor (known: {', '.join(_ANCHORS)}){hint}"
        )
    return found


def _anchor_value(anchor: str, event: ToolCallEvent) -> str | None:
    cwd = event.meta.cwd if isinstance(event.meta.cwd, str) and event.meta.cwd else None
    if cwd is None:
        # A host that sends no cwd starts its hooks in the project folder.
        try:
            cwd = os.getcwd()
        except OSError:
            cwd = None
    if anchor == "{home}":
        value: str | None = os.environ.get("HOME") or None
    elif anchor == "{project}":
        value = os.environ.get(_PROJECT_ENV) or cwd
    else:
        value = cwd
    if value is None or not (value.startswith(("/", "\\")) or value[1:2] == ":"):
        return None  # unknown, or relative: nothing to anchor on
    return _absolute(value, "/").rstrip("/")


class _PathGlob:
    """A paths pattern: a glob, perhaps anchored ({project}/**) and perhaps negated (!...)."""

    __slots__ = ("_compiled", "_plain", "_template", "negated", "pattern")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.negated = pattern.startswith(_NOT)
        text = pattern[1:] if self.negated else pattern
        anchored = any(anchor in text for anchor in _ANCHORS)
        self._plain = None if anchored else _Lazy(text, glob=True)
        self._template = ""
        if anchored:
            # Each anchor becomes a marker the glob translation escapes like any character; the
            # folder replaces it in the regular expression, as literal text (re.escape).
            for number, anchor in enumerate(_ANCHORS):
                text = text.replace(anchor, _marker(number))
            if text.startswith("\x00"):
                text = "/" + text  # an anchored pattern is absolute
            self._template = _glob(text).pattern
        self._compiled: dict[tuple[str, ...], re.Pattern[str]] = {}

    def matches(self, path: str, event: ToolCallEvent) -> bool | None:
        """Whether the normalized path matches; None when an anchor has no value for this call."""
        if self._plain is not None:
            return (self._plain.get().match(path) is not None) != self.negated
        values = []
        for number, anchor in enumerate(_ANCHORS):
            value = ""
            if re.escape(_marker(number)) in self._template:
                found = _anchor_value(anchor, event)
                if found is None:
                    return None
                value = found
            values.append(value)
        key = tuple(values)
        compiled = self._compiled.get(key)
        if compiled is None:
            if len(self._compiled) > 16:
                self._compiled.clear()  # bounded: one entry per project the process sees
            source = self._template
            for number, value in enumerate(values):
                marker = re.escape(_marker(number))
                # After the leading / the template added, the folder's own leading / is dropped.
                source = source.replace(re.escape("/") + marker, re.escape(value))
                source = source.replace(marker, re.escape(value))
            compiled = self._compiled[key] = re.compile(source, re.DOTALL)
        return (compiled.match(path) is not None) != self.negated


def _marker(number: int) -> str:
    return f"\x00{number}\x00"
