"""Indexed policy evaluation: rules bucketed by program, tool and event, read lazily (issue 30)."""

from __future__ import annotations

import json
import os

from . import policy as _policy
from ._generated.constants import MODELED_TOOL_INPUT_KEYS, PolicyFields

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any, Final

    from ._generated.models.tool_call_event_schema import ToolCallEvent
    from .policy import Explanation, _Rule

__all__ = [
    "IndexReader",
    "IndexedPolicyJudge",
    "build_index",
    "current_judge",
    "load_indexed_judge",
    "rule_keys",
]

# The layout: MAGIC, a 4-byte header length, the JSON header, a table of (offset, length) entries
# (the bucket slots, then one per rule), then the bucket and rule JSON texts. A call reads the
# header, the slots of its keys, their buckets and the rules they name: nothing else of a
# 10,000-rule file is parsed (issue 30: a policy's cost independent of its size).
MAGIC: Final = b"ACPX"
_FORMAT: Final = 2
_ENTRY: Final = 8
# Glob program patterns are filed under at most this many characters of their literal prefix:
# a prefix of the prefix is still a necessary condition, and a lookup tries each length once.
PREFIX_CHARS: Final = 12
_WILD: Final = "*?["
# Words of a simple command looked up as its possible subcommand; a longer one reads every
# subcommand rule of its program instead (still a superset, never a missed rule).
SUBCOMMAND_WORDS: Final = 32
_ANY: Final = "*"  # rules that can match any program, tool and event: read on every call


def _literal_prefix(pattern: str) -> str:
    """The text before the first wildcard: fnmatch anchors at the start, so a match begins with it."""
    cut = min((pattern.index(c) for c in _WILD if c in pattern), default=len(pattern))
    return pattern[:cut]


def rule_keys(rule: _Rule) -> list[str]:
    """The buckets a rule is filed under: a call that reaches none of them cannot match it."""
    command = rule.command
    if command is not None and command.programs is not None:
        field = rule.field or ""
        keys: list[str] = []
        literal = not any(c in word for word in command.programs for c in _WILD)
        subcommands = command.subcommands
        if literal and subcommands and not any(c in w for w in subcommands for c in _WILD):
            # Filed by program and subcommand: a match needs the subcommand among the call's
            # words (policy._command_result); S holds them all for calls too long to list.
            keys = [f"s\0{field}\0{p}\0{sub}" for p in command.programs for sub in subcommands]
            keys += [f"S\0{field}\0{p}" for p in command.programs]
            if _policy._fails_closed(rule):
                keys.append(f"u\0{field}")
            return sorted(set(keys))
        for pattern in command.programs:
            prefix = _literal_prefix(pattern)
            if not prefix:
                keys = []
                break
            if prefix == pattern:
                keys.append(f"p\0{field}\0{pattern}")
            else:
                keys.append(f"g\0{field}\0{prefix[:PREFIX_CHARS]}")
        if keys:
            if _policy._fails_closed(rule):
                # Input the splitter cannot read (a program from $VAR, an unclosed quote) matches
                # such a rule whatever its program (policy._matches_command): its own bucket.
                keys.append(f"u\0{field}")
            return sorted(set(keys))
    if rule.tools is not None and not any(c in tool for tool in rule.tools for c in _WILD):
        keys = [f"t\0{tool}" for tool in rule.tools]
        # policy._tool_selected: an mcp__server__tool pattern also selects mcp_server_tool.
        keys += [f"t\0{t.replace('__', '_')}" for t in rule.tools if t.startswith("mcp__")]
        return sorted(set(keys))
    if rule.events is not None:
        return sorted(f"e\0{kind}" for kind in rule.events)
    return [_ANY]


def _crc(key: str) -> int:
    from binascii import crc32

    return crc32(key.encode("utf-8", "surrogatepass"))


def build_index(
    raw_rules: Sequence[Mapping[str, Any]], rules: Sequence[_Rule], digest: str
) -> bytes:
    """The index file of a policy that compiled without problems (one raw table per rule)."""
    if len(raw_rules) != len(rules):
        raise ValueError("an index is built only for a policy whose every rule compiled")
    buckets: dict[str, list[int]] = {}
    fields: set[str] = set()
    lengths: set[int] = set()
    words = False
    for number, rule in enumerate(rules):
        for key in rule_keys(rule):
            buckets.setdefault(key, []).append(number)
            kind, _, rest = key.partition("\0")
            if kind in ("p", "g", "u", "s", "S"):
                fields.add(rest.partition("\0")[0])
            if kind == "g":
                lengths.add(len(rest.partition("\0")[2]))
            words = words or kind == "s"
    slots = 1
    while slots < 2 * len(buckets) + 1:
        slots *= 2
    by_slot: dict[int, dict[str, list[int]]] = {}
    for key, numbers in buckets.items():
        by_slot.setdefault(_crc(key) % slots, {})[key] = numbers
    texts = [by_slot.get(slot) for slot in range(slots)] + list(raw_rules)
    header = {
        "format": _FORMAT,
        "digest": digest,
        "count": len(raw_rules),
        "slots": slots,
        "fields": sorted(fields),
        "lengths": sorted(lengths),
        "words": words,
    }
    head = json.dumps(header, separators=(",", ":")).encode("utf-8")
    body_at = len(MAGIC) + 4 + len(head) + _ENTRY * len(texts)
    table = bytearray()
    body = bytearray()
    for text in texts:
        data = b""
        if text is not None:
            data = json.dumps(text, separators=(",", ":")).encode("utf-8")
        table += (body_at + len(body)).to_bytes(4, "little") + len(data).to_bytes(4, "little")
        body += data
    return MAGIC + len(head).to_bytes(4, "little") + head + bytes(table) + bytes(body)


def _number(buffer: Any, at: int) -> int:
    """A little-endian 4-byte number (int.from_bytes: the hook process need not import struct)."""
    return int.from_bytes(buffer[at : at + 4], "little")


class IndexReader:
    """Lookups into an index file's bytes (bytes or an mmap): buckets, and rules by number."""

    def __init__(self, buffer: Any) -> None:
        self._buffer = buffer
        if bytes(buffer[: len(MAGIC)]) != MAGIC or len(buffer) < len(MAGIC) + 4:
            raise ValueError("not a policy index")
        length = _number(buffer, len(MAGIC))
        start = len(MAGIC) + 4
        header = json.loads(bytes(buffer[start : start + length]))
        if not isinstance(header, dict) or header.get("format") != _FORMAT:
            raise ValueError("another index format")
        self.digest: str = header["digest"]
        self.count: int = header["count"]
        self._slots: int = header["slots"]
        self.fields: list[str] = header["fields"]
        self.lengths: list[int] = header["lengths"]
        self.words: bool = header["words"]
        self._table = start + length
        self._compiled: dict[int, _Rule] = {}
        if self._table + _ENTRY * (self._slots + self.count) > len(buffer):
            raise ValueError("a truncated policy index")

    def _text(self, entry: int) -> Any:
        at = self._table + _ENTRY * entry
        offset, length = _number(self._buffer, at), _number(self._buffer, at + 4)
        if not length:
            return None
        if offset + length > len(self._buffer):
            raise ValueError("an entry past the end of the policy index")
        return json.loads(bytes(self._buffer[offset : offset + length]))

    def bucket(self, key: str) -> list[int]:
        """The rule numbers filed under one key, in file order."""
        found = self._text(_crc(key) % self._slots)
        numbers = found.get(key) if isinstance(found, dict) else None
        return numbers if isinstance(numbers, list) else []

    def rule(self, number: int) -> _Rule:
        """Rule number N, built on first use (its patterns were checked when the index was)."""
        rule = self._compiled.get(number)
        if rule is None:
            raw = self._text(self._slots + number)
            problems: list[str] = []
            built = _policy._rule(raw, _policy._label(number, raw), problems, True)
            if built is None or problems:
                raise ValueError(f"rule {number} of the policy index does not compile")
            rule = self._compiled[number] = built
        return rule


def _program_keys(reader: IndexReader, event: ToolCallEvent, keys: set[str]) -> None:
    """Add the program buckets of every field an indexed command rule reads."""
    from .shell import basename

    tool_key = MODELED_TOOL_INPUT_KEYS.get(event.tool) if isinstance(event.tool, str) else None
    for field in reader.fields:
        key = field or tool_key
        if key is None or key not in event.input:
            continue  # policy._apply: a rule whose input key is absent never matches
        # The value the rule reads: with every file of a multi-file call (policy._every_file).
        # A memo per value: _parsed keys it by id(), which a freed temporary list can repeat.
        for parsed in _policy._parsed(_policy._every_file(event.input, key), {}):
            if parsed.problems:
                keys.add(f"u\0{field}")
            for command in parsed.commands:
                if not command.argv or 0 in command.unresolved:
                    keys.add(f"u\0{field}")
                    continue
                name = basename(command.argv[0])
                for form in {name, name.lower()}:  # fold_case rules are filed lower-cased
                    keys.add(f"p\0{field}\0{form}")
                    keys.update(f"g\0{field}\0{form[:n]}" for n in reader.lengths if len(form) >= n)
                    if reader.words:
                        _subcommand_keys(command, f"{field}\0{form}", keys)


def _subcommand_keys(command: Any, program: str, keys: set[str]) -> None:
    """The subcommand buckets of one simple command: each of its words, or all (S) when it has
    too many to list or a word the splitter could not read (which could be the subcommand)."""
    words = command.argv[1:]
    if len(words) > SUBCOMMAND_WORDS or any(index > 0 for index in command.unresolved):
        keys.add(f"S\0{program}")
    else:
        keys.update(f"s\0{program}\0{word}" for word in words)


def candidates(reader: IndexReader, event: ToolCallEvent) -> list[_Rule]:
    """Every rule that can match the event, in file order: a superset of the scan's matches."""
    keys = {_ANY, f"e\0{event.event}"}
    names = (event.tool, event.meta.native_tool)
    keys.update(f"t\0{name}" for name in names if isinstance(name, str))
    if reader.fields:
        _program_keys(reader, event, keys)
    numbers = sorted({number for key in keys for number in reader.bucket(key)})
    return [reader.rule(number) for number in numbers]


class IndexedPolicyJudge(_policy.PolicyJudge):
    """A policy judge that evaluates, in order, only the rules its index says can match a call."""

    def __init__(self, reader: IndexReader, source: str) -> None:
        self._reader = reader
        self.source = source
        self.last_rule: str | None = None  # set by PolicyJudge.__call__ where it records one

    @property
    def _rules(self) -> tuple[_Rule, ...]:  # type: ignore[override]
        """Every rule (for commands() and repr, never for a verdict)."""
        return tuple(self._reader.rule(number) for number in range(self._reader.count))

    def explain(self, event: ToolCallEvent) -> Explanation:
        """The linear explanation over the candidate rules (no other rule has a verdict)."""
        return _policy.PolicyJudge(candidates(self._reader, event), self.source).explain(event)


def _open_index(path: str) -> IndexReader | None:
    """The index file mapped read-only, or None when missing, broken or not trusted."""
    import mmap
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK)
    except (OSError, ValueError):
        return None
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode) or status.st_uid != os.geteuid():
            return None
        if status.st_mode & 0o022 or not status.st_size:
            return None  # as policy._trusted_json: a file others can write is not the cache
        return IndexReader(mmap.mmap(fd, 0, access=mmap.ACCESS_READ))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    finally:
        os.close(fd)


def current_judge(path: str) -> IndexedPolicyJudge | None:
    """The indexed judge when a current index exists (the file unchanged since it was built).

    An index is written only for a plain rule file (load_indexed_judge runs after the layered
    check), so a current one also answers "not layered" without reading the file (issue 30).
    """
    folder = _policy.cache_dir()
    if folder is None:
        return None
    try:
        seen = _policy._stat_key(os.stat(path))
    except OSError:
        return None
    noted = _policy._trusted_json(os.path.join(folder, _policy._index_name(path)))
    if isinstance(noted, dict) and noted.get("path") == path:
        digest = noted.get("digest")
        if noted.get("stat") == seen and isinstance(digest, str) and digest.isalnum():
            reader = _open_index(os.path.join(folder, f"{digest}.index"))
            if reader is not None and reader.digest == digest:
                return IndexedPolicyJudge(reader, path)
    return None


def load_indexed_judge(path: str) -> _policy.PolicyJudge:
    """Load a plain (not layered) rule file as an indexed judge; errors are load_policy_judge's."""
    found = current_judge(path)
    if found is not None:
        return found
    folder = _policy.cache_dir()
    judge = _policy.load_policy_judge(path)  # parses, checks and caches the rules (or raises)
    if folder is None or getattr(judge, "layered", False):
        return judge  # issue 28: a layer chain is never indexed as one file's rules
    data, _ = _policy._cached_data(path)
    noted = _policy._trusted_json(os.path.join(folder, _policy._index_name(path)))
    digest = noted.get("digest") if isinstance(noted, dict) else None
    raw = data.get(PolicyFields.RULES)
    from ._layers import is_layered

    if is_layered(data):
        return judge  # never indexed: current_judge's answer would skip the layered judge
    if isinstance(digest, str) and digest.isalnum() and isinstance(raw, list):
        content = build_index(raw, judge._rules, digest)
        _write_bytes(os.path.join(folder, f"{digest}.index"), content)
    return judge


def _write_bytes(target: str, content: bytes) -> None:
    """Write the index atomically, mode 0600 (policy._write_cache's steps, for bytes)."""
    temporary = f"{target}.{os.getpid()}.tmp"
    try:
        if os.path.lexists(temporary):
            os.unlink(temporary)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        with open(os.open(temporary, flags, 0o600), "wb") as out:
            out.write(content)
        os.replace(temporary, target)
    except OSError:
        from contextlib import suppress

        with suppress(OSError):
            os.unlink(temporary)
