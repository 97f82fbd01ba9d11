"""`acp install`: register a hook entry in a host's own configuration, merged and idempotent."""

from __future__ import annotations

import difflib
import json
import os
import shlex
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final, Literal

from ._generated.constants import EventKinds, UnrenderedPostures
from .adapters import AGENT_IDS
from .runtime import (
    AUDIT_ENV,
    CODEX_VERSION_ENV,
    FAIL_CLOSED_ENV,
    JUDGE_ENV,
    JUDGE_PATH_ENV,
    ON_UNRENDERED_ENV,
    POLICY_DIGEST_ENV,
    POLICY_ENV,
    SOLE_GATE_ENV,
    TIMEOUT_ENV,
)

__all__ = ["INSTALLABLE", "SCOPES", "InstallError", "InstallPlan", "hook_command", "plan_install"]

Scope = Literal["project", "user"]
SCOPES: Final[tuple[Scope, ...]] = ("project", "user")
# Event kinds where exit 2 stops a tool call; elsewhere (a Stop event) it means something else.
_TOOL_KINDS: Final = frozenset({EventKinds.PRE_TOOL, EventKinds.POST_TOOL})
# POSIX env(1) at its usual absolute path: no PATH lookup or shim sits in front of the hook.
_ENV_PROGRAM: Final = "/usr/bin/env"


class InstallError(Exception):
    """A configuration that cannot be merged safely; the message names the file and the fix."""


@dataclass(frozen=True)
class InstallPlan:
    """What installing would do to one configuration file."""

    host: str
    path: Path
    before: str | None
    after: str
    notes: tuple[str, ...] = ()
    # Permission bits for a file the host executes itself (Cline runs one per event); None keeps.
    mode: int | None = None
    # Further files the same install writes: Cline's program for each other event it registers.
    also: tuple[InstallPlan, ...] = ()

    @property
    def changed(self) -> bool:
        """Whether applying the plan would change a file."""
        return self.before != self.after or any(plan.changed for plan in self.also)

    def diff(self) -> str:
        """A unified diff from the current files to the planned ones."""
        lines = difflib.unified_diff(
            (self.before or "").splitlines(keepends=True),
            self.after.splitlines(keepends=True),
            fromfile=str(self.path) if self.before is not None else "/dev/null",
            tofile=str(self.path),
        )
        return "".join(lines) + "".join(plan.diff() for plan in self.also)

    def apply(self) -> bool:
        """Write the planned files atomically, each one; return whether anything changed."""
        wrote = self._apply_one()
        for plan in self.also:
            wrote = plan.apply() or wrote
        return wrote

    def _apply_one(self) -> bool:
        """Write this plan's own file (not its also plans); return whether anything changed."""
        if self.before == self.after:
            if self.mode is not None and self.path.stat().st_mode & 0o7777 != self.mode:
                os.chmod(self.path, self.mode)
                return True
            return False
        # M10: a symlinked config (dotfiles) is written through the link, in the target's folder.
        target = Path(os.path.realpath(self.path))
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            _check_writable(target)
            # Write beside the target and rename, so a crash never leaves half a settings file.
            fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
        except OSError as exc:
            raise InstallError(f"{target}: cannot write ({exc.strerror or exc})") from exc
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(self.after)
            # L5: the replaced file's mode, or for a new file the usual umask default (not 0600);
            # a program the host executes (Cline's hook) is made executable.
            mode = target.stat().st_mode & 0o7777 if target.exists() else 0o666 & ~_umask()
            os.chmod(tmp, self.mode if self.mode is not None else mode)
            os.replace(tmp, target)
        except BaseException as exc:
            Path(tmp).unlink(missing_ok=True)
            if isinstance(exc, OSError):
                raise InstallError(f"{target}: cannot write ({exc.strerror or exc})") from exc
            raise
        return True


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _check_writable(path: Path) -> None:
    """Refuse a config the user made read-only (M10): its mode says not to change it."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return
    if not mode & 0o222 or not os.access(path, os.W_OK):
        raise InstallError(
            f"{path} is read-only (mode {mode & 0o777:o}); make it writable to install, or add"
            " the entry by hand (`acp install --dry-run` prints it)"
        )


def hook_command(
    host: str,
    *,
    judge: str | None = None,
    policy: str | None = None,
    fail_closed: bool = False,
    codex_version: str | None = None,
    bin_dir: Path | None = None,
    on_unrendered: str | None = None,
    sole_gate: bool = False,
    judge_path: tuple[str, ...] = (),
    audit_log: str | None = None,
    version_env: tuple[str, str] | None = None,
) -> list[str]:
    """The argv a host runs: the venv's absolute acp-<host>-hook, options set in its environment."""
    folder = (bin_dir or Path(sys.executable).parent).absolute()
    script = str(folder / f"acp-{host}-hook")
    # N13: options go in front of the fast entry as environment assignments, through env(1), so
    # the command works whether the host runs it through a shell or splits it into an argv;
    # `acp hook` would load the argument parser and every subcommand on each call.
    unset: list[str] = []
    assignments: list[str] = []
    if codex_version is not None:
        assignments.append(f"{CODEX_VERSION_ENV}={codex_version}")
    if version_env is not None:
        # The installed host's version (--host-version), so its version facts apply (HA3-15).
        assignments.append(f"{version_env[0]}={version_env[1]}")
    if judge is not None:
        unset += ["-u", POLICY_ENV]  # the registered judge wins over an inherited ACP_POLICY
        assignments.append(f"{JUDGE_ENV}={judge}")
    if judge is not None and judge_path:
        assignments.append(f"{JUDGE_PATH_ENV}={os.pathsep.join(judge_path)}")
    if policy is not None:
        assignments.append(f"{POLICY_ENV}={Path(policy).absolute()}")
        from contextlib import suppress

        from ._pin import file_digest

        # Issue 28: the rule file is pinned, the hook refuses it once it changes; one that cannot
        # be read is refused with the reason once the entry is planned (_registered).
        with suppress(OSError):
            assignments.append(f"{POLICY_DIGEST_ENV}={file_digest(str(Path(policy).absolute()))}")
    if on_unrendered is not None:
        assignments.append(f"{ON_UNRENDERED_ENV}={on_unrendered}")
    if fail_closed:
        assignments.append(f"{FAIL_CLOSED_ENV}=1")
    if sole_gate:
        assignments.append(f"{SOLE_GATE_ENV}=1")
    if audit_log is not None:
        assignments.append(f"{AUDIT_ENV}={Path(audit_log).absolute()}")
    if not unset and not assignments:
        return [script]
    if "=" in script:
        # env(1) would read the path as one more assignment and run nothing.
        raise InstallError(
            f"{script}: a console-script folder with '=' in its path cannot carry options; set"
            " ACP_JUDGE/ACP_POLICY where the host runs, or install into another folder"
        )
    return [_ENV_PROGRAM, *unset, *assignments, script]


def _is_ours(command: object, host: str) -> bool:
    """Whether a configured command is an entry this installer wrote for this host."""
    if not isinstance(command, str):
        return False
    if Path(command).name == f"acp-{host}-hook":
        # L3: a bare program path (Amp's delegate `to`) is compared whole, never shell-split,
        # so a venv path with a space or a quote is still recognised on reinstall.
        return True
    try:
        argv = shlex.split(command)
    except ValueError:
        return False
    if not argv:
        return False
    if Path(argv[0]).name == "env":
        # N13: env [-u NAME]... [NAME=VALUE]... acp-<host>-hook
        rest = argv[1:]
        while rest and (rest[0] == "-u" or "=" in rest[0]):
            rest = rest[2:] if rest[0] == "-u" else rest[1:]
        argv = rest or [""]
    program = Path(argv[0]).name
    # `acp hook <host> ...` is the form earlier releases wrote: a reinstall replaces it.
    return program == f"acp-{host}-hook" or (program == "acp" and argv[1:3] == ["hook", host])


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InstallError(f"{path}: cannot read ({exc.strerror})") from exc


def _load_json(path: Path, text: str | None) -> dict[str, Any]:
    if text is None or not text.strip():
        return {}
    try:
        loaded = json.loads(
            text,
            object_pairs_hook=_no_duplicates,
            parse_constant=_no_constant,
            parse_float=_finite_float,
        )
    except _Unsafe as exc:
        raise InstallError(f"{path}: {exc}; fix it by hand so nothing of yours is lost") from exc
    except ValueError as exc:
        raise InstallError(
            f"{path} is not valid JSON ({exc}); fix or move it, then run acp install again"
        ) from exc
    if not isinstance(loaded, dict):
        raise InstallError(f"{path} holds a JSON {type(loaded).__name__}, not an object")
    return loaded


class _Unsafe(Exception):
    """Valid JSON that a rewrite would change: a duplicate key, a number JSON cannot carry."""


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # L5: json.loads keeps only the last of duplicate keys; a rewrite would drop the others.
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise _Unsafe(f"key {key!r} appears twice in one object")
        seen[key] = value
    return seen


def _no_constant(name: str) -> Any:
    raise _Unsafe(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    # L1: 1e400 reads as infinity, which json.dumps would write back as Infinity (not JSON).
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise _Unsafe(f"the number {text} is too large to keep as written")
    return value


def _dump_json(path: Path, settings: dict[str, Any], before: str | None = None) -> str:
    text = json.dumps(settings, indent=_indent_of(before), ensure_ascii=False, allow_nan=False)
    text += "\n"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        # L5: a "\\ud800" escape decodes to a lone surrogate, which has no UTF-8 form.
        raise InstallError(
            f"{path} holds a lone surrogate escape (\\u{ord(exc.object[exc.start]):04x});"
            " fix it by hand"
        ) from exc
    return text


def _child(parent: dict[str, Any], key: str, kind: type, path: Path) -> Any:
    """parent[key], created empty when absent; refuse to overwrite a value of another type."""
    value = parent.setdefault(key, kind())
    if not isinstance(value, kind):
        raise InstallError(
            f"{path}: {key!r} is a {type(value).__name__}, expected a {kind.__name__};"
            " fix it by hand so nothing of yours is overwritten"
        )
    return value


# Keys of our handler the installer owns; a reinstall sets (or, when absent, removes) them.
_OWNED: Final = frozenset({"type", "command", "bash", "onFailure", "failClosed"})
# Keys the installer sets on a new handler but keeps when the user tuned them (L4).
_TUNABLE: Final = frozenset({"timeout", "timeoutSec"})


def _update_handler(existing: Any, handler: Mapping[str, Any], timeout_set: bool) -> None:
    """Update our earlier handler in place: owned keys rewritten, the user's own keys kept."""
    for key in _OWNED - set(handler):
        if key in existing:
            del existing[key]
    for key, value in handler.items():
        if key in _TUNABLE and key in existing and not timeout_set:
            continue
        existing[key] = value


def _merge_handler(
    groups: list[Any],
    handler: dict[str, Any],
    host: str,
    timeout_set: bool,
    matcher: str | None = None,
) -> None:
    """Update this installer's earlier handler in place, or append a new matcher group."""
    for group in groups:
        handlers = group.get("hooks") if isinstance(group, Mapping) else None
        if not isinstance(handlers, list):
            continue
        for existing in handlers:
            if isinstance(existing, dict) and _is_ours(existing.get("command"), host):
                _update_handler(existing, handler, timeout_set)
                if group.get("matcher") == matcher:
                    return
                if len(handlers) == 1:
                    # N15: the group is ours alone, so its matcher is ours to set or remove.
                    if matcher is None:
                        del group["matcher"]
                    else:
                        group["matcher"] = matcher
                    return
                # The user's handlers keep their group and its matcher; ours moves out.
                handlers.remove(existing)
                groups.append(_group(existing, matcher))
                return
    groups.append(_group(handler, matcher))


def _group(handler: dict[str, Any], matcher: str | None) -> dict[str, Any]:
    """A Claude-shaped matcher group holding one handler; no matcher means every tool."""
    return {"hooks": [handler]} if matcher is None else {"matcher": matcher, "hooks": [handler]}


def _native_events(host: str, also: frozenset[str] = frozenset()) -> list[tuple[str, str]]:
    """(kind, native event name) for every kind the host gates (plus also), in kind order."""
    import importlib

    declaration = importlib.import_module(f"{__package__}._generated.hosts.{host}")
    wanted: frozenset[str] = declaration.GATED_KINDS | also
    events: Mapping[str, str] = declaration.NATIVE_EVENT_FOR
    return [(kind, events[kind]) for kind in EventKinds.ALL if kind in wanted and kind in events]


@dataclass(frozen=True)
class _Request:
    host: str
    path: Path
    argv: list[str]
    plain_argv: list[str]
    fail_closed: bool
    timeout_s: int
    timeout_set: bool = True
    matcher: str | None = None
    # Windows: the line is written for the shell the host runs it through there (HA3-10).
    windows: bool = False


def _command(request: _Request, kind: str) -> tuple[str, bool]:
    """The command line registered for one event kind, and whether it fails closed."""
    # contract.md §7: fail closed only where exit 2 stops a tool call.
    closed = request.fail_closed and kind in _TOOL_KINDS
    argv = request.argv if closed else request.plain_argv
    line = _WINDOWS_LINES.get(request.host) if request.windows else None
    if line is not None:
        from . import _host_shells

        try:
            return getattr(_host_shells, line)(argv), closed
        except _host_shells.WindowsQuotingError as exc:
            raise InstallError(str(exc)) from None
    return shlex.join(argv), closed


# The shell a host runs its hook line through on Windows (docs/findings.md HA3-10): Cascade's
# powershell -Command, Kiro's cmd /C; a host not named here runs an argv or a POSIX shell.
_WINDOWS_LINES: Final[Mapping[str, str]] = {"windsurf": "powershell_line", "kiro": "cmd_line"}


def _indent_of(before: str | None) -> int | str:
    """The indentation the file already had (N36: a small diff), else 2."""
    indent: int | str = 2
    if before:
        first = next((line for line in before.splitlines()[1:] if line.strip()), "")
        lead = first[: len(first) - len(first.lstrip())]
        if lead == "\t" or (lead and set(lead) == {" "}):
            indent = "\t" if lead == "\t" else len(lead)
    return indent


def _no_fail_closed(request: _Request, host_name: str) -> tuple[str, ...]:
    """The note for a host without a fail-closed option, when --fail-closed was asked."""
    if not request.fail_closed:
        return ()
    return (f"{host_name} has no fail-closed option: a hook that never starts lets the call run.",)


def _json_hooks(
    request: _Request,
    *,
    timeout_ms: bool,
    on_failure: bool,
    also: frozenset[str] = frozenset(),
    closed_fields: Mapping[str, str] | None = None,
    top_level: bool = False,
) -> tuple[str, str | None]:
    """Claude-shaped hooks: {"hooks": {Event: [{"hooks": [{type, command, timeout}]}]}}.

    top_level: the file is keyed by event name itself, without the "hooks" key.
    """
    before = _read(request.path)
    settings = _load_json(request.path, before)
    hooks = settings if top_level else _child(settings, "hooks", dict, request.path)
    for kind, event in _native_events(request.host, also):
        command, closed = _command(request, kind)
        handler: dict[str, Any] = {
            "type": "command",
            "command": command,
            "timeout": request.timeout_s * 1000 if timeout_ms else request.timeout_s,
        }
        if closed and on_failure:
            # A hook that never starts still blocks (Claude Code hooks docs, onFailure, v2.1.295+).
            handler["onFailure"] = "block"
        if closed and closed_fields:
            handler.update(closed_fields)
        groups = _child(hooks, event, list, request.path)
        # A tool-name matcher applies to tool events only; a prompt names no tool.
        matcher = request.matcher if kind in _TOOL_KINDS else None
        _merge_handler(groups, handler, request.host, request.timeout_set, matcher)
    return _dump_json(request.path, settings, before), before


# Kinds the Claude family cannot block but whose answer still reaches the model: PostToolUse
# feedback, context and updatedToolOutput (hosts/claude.json, factory.json, qwen.json; CC-1).
_FEEDBACK_KINDS: Final = frozenset({EventKinds.POST_TOOL, EventKinds.PROMPT_SUBMIT})


def _claude(request: _Request) -> tuple[str, str | None, tuple[str, ...]]:
    # onFailure sits on each command handler: there 2.1.332 blocks a killed hook, on the matcher
    # group it does not (CC-10; lab scenario killed_fail_closed).
    after, before = _json_hooks(request, timeout_ms=False, on_failure=True, also=_FEEDBACK_KINDS)
    notes: tuple[str, ...] = ()
    if request.fail_closed:
        # hosts/claude.json version fact on-failure-block (docs/findings.md HA3-11).
        notes = (
            "Claude Code honours onFailure from 2.1.295: on 2.1.197 to 2.1.294 a hook that is"
            " killed, never starts or times out lets the call run whatever --fail-closed says.",
        )
    return after, before, notes


def _gemini(request: _Request) -> tuple[str, str | None, tuple[str, ...]]:
    # Gemini CLI's handler timeout is in milliseconds (Gemini CLI docs/hooks; hosts/gemini.json notes).
    after, before = _json_hooks(request, timeout_ms=True, on_failure=False)
    return after, before, _no_fail_closed(request, "Gemini CLI")


def _factory(request: _Request) -> tuple[str, str | None, tuple[str, ...]]:
    # .factory/hooks.json is canonical; settings.json's hooks key is read only while it is absent,
    # and Droid's /hooks manager writes hooks.json on its next save (docs.factory.ai/harness/hooks;
    # FD-6), so the entry merges into hooks.json.
    after, before = _json_hooks(
        request, timeout_ms=False, on_failure=False, also=_FEEDBACK_KINDS, top_level=True
    )
    notes = (
        "Droid may ask you to review hooks edited outside /hooks before they run, and an"
        " organisation with allowManagedHooksOnly ignores project and user hooks.",
        "droid exec never calls UserPromptSubmit: prompts are not judged there.",
    )
    return after, before, notes + _no_fail_closed(request, "Droid")


def _qwen(request: _Request) -> tuple[str, str | None, tuple[str, ...]]:
    # Milliseconds: newer releases read seconds but keep values >= 1000 as milliseconds, older
    # ones read only milliseconds (hook-timeout.ts; QW-8). failMode closed makes a crash, timeout
    # or bad exit deny (types.ts, hookRunner.ts @ 01ed106f; QW-6).
    after, before = _json_hooks(
        request,
        timeout_ms=True,
        on_failure=False,
        also=_FEEDBACK_KINDS,
        closed_fields={"failMode": "closed"},
    )
    notes = [
        "Qwen Code runs the hooks of a project's .qwen/settings.json only in a trusted folder."
    ]
    if request.fail_closed:
        notes.append(
            "failMode closed is honoured only by Qwen Code releases newer than 0.24.4; older ones"
            " ignore it, and a hook that never starts lets the call run."
        )
    return after, before, tuple(notes)


def _codex(request: _Request) -> tuple[str, str | None, tuple[str, ...]]:
    # CX-8: codex exec skips an untrusted hook without a word, so headless runs are unguarded.
    notes: tuple[str, ...] = (
        "Codex runs a hook only once you trust it in the TUI /hooks screen, and again after it"
        " changes (shown as modified); codex exec skips untrusted hooks without a message, so"
        " a headless run is unguarded unless automation that vets the hook file passes"
        " --dangerously-bypass-hook-trust.",
    )
    if not any(word.startswith(f"{CODEX_VERSION_ENV}=") for word in request.argv):
        from ._generated.hosts import codex

        # CX-9: payloads carry no version; without one the hook renders what holds on every
        # supported version: denies block, the channels older releases reject are not used.
        low, high = codex.SUPPORTED_VERSIONS or ("?", "?")
        notes += (
            f"No --codex-version: unless ACP_CODEX_VERSION is set where Codex runs, the hook"
            f" answers in the form every Codex from {low} to {high} accepts: denies block, but"
            " PreToolUse context and rewrites are not sent (a rewrite is refused).",
        )
    notes += _no_fail_closed(request, "Codex")
    if request.path.suffix == ".json":
        after, before = _json_hooks(request, timeout_ms=False, on_failure=False)
        return after, before, notes
    after, before, rewritten = _codex_toml(request)
    return after, before, notes + rewritten


def _codex_toml(request: _Request) -> tuple[str, str | None, tuple[str, ...]]:
    """~/.codex/config.toml: [[hooks.<Event>]] with [[hooks.<Event>.hooks]], comments kept."""
    import tomllib

    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    before = _read(request.path)
    try:
        document = tomlkit.parse(before or "")
    except TOMLKitError as exc:
        raise InstallError(f"{request.path} is not valid TOML ({exc}); fix it first") from exc
    plain = document.unwrap()
    hooks_plain = plain.get("hooks", {})
    if not isinstance(hooks_plain, dict):
        raise InstallError(f"{request.path}: 'hooks' is not a table; fix it by hand")
    notes: tuple[str, ...] = ()
    if "hooks" not in document:
        document["hooks"] = tomlkit.table(is_super_table=True)
    elif not _canonical_toml_hooks(document["hooks"]):
        # H3: inline tables, inline arrays and dotted keys cannot take [[hooks.<Event>]] tables;
        # the same data is rewritten in that form (checked below before anything is written).
        document.remove("hooks")
        document["hooks"] = _toml_hooks_table(request.path, hooks_plain)
        notes = ("hooks were rewritten as [[hooks.<Event>]] tables (same content).",)
    hooks: Any = document["hooks"]
    expected = {event: list(groups) for event, groups in hooks_plain.items()}
    for kind, event in _native_events(request.host):
        command, _ = _command(request, kind)
        handler = {"type": "command", "command": command, "timeout": request.timeout_s}
        if event not in hooks or not isinstance(hooks[event], tomlkit.items.AoT):
            hooks[event] = tomlkit.aot()
        groups: Any = hooks[event]
        if not _replace_toml_handler(groups, handler, request.host, request.timeout_set):
            group = tomlkit.table()
            inner = tomlkit.aot()
            inner.append(tomlkit.item(handler))
            group["hooks"] = inner
            groups.append(group)
        expected[event] = groups.unwrap()
    after = tomlkit.dumps(document)
    # H3: re-read what would be written; a merge that is not valid TOML, or that changed
    # anything but our handlers, is refused with the file untouched.
    try:
        reread = tomllib.loads(after)
    except tomllib.TOMLDecodeError as exc:
        raise InstallError(
            f"{request.path}: cannot merge into this form of hooks ({exc}); rewrite it as"
            " [[hooks.<Event>]] tables and run acp install again"
        ) from exc
    others = {key: value for key, value in plain.items() if key != "hooks"}
    if (
        reread.get("hooks") != expected
        or {key: value for key, value in reread.items() if key != "hooks"} != others
    ):
        raise InstallError(
            f"{request.path}: merging would change more than our hook entries; rewrite hooks"
            " as [[hooks.<Event>]] tables and run acp install again"
        )
    return after, before, notes


def _canonical_toml_hooks(hooks: Any) -> bool:
    """Whether hooks is a [hooks] table of [[hooks.<Event>]] arrays of [[…hooks]] tables."""
    import tomlkit

    if not isinstance(hooks, tomlkit.items.Table):
        return False
    for value in hooks.values():
        if not isinstance(value, tomlkit.items.AoT):
            return False
        for group in value:
            inner = group.get("hooks")
            if inner is not None and not isinstance(inner, tomlkit.items.AoT):
                return False
    return True


def _toml_hooks_table(path: Path, hooks: Mapping[str, Any]) -> Any:
    """The hooks data as [[hooks.<Event>]] tables, or InstallError naming what does not fit."""
    import tomlkit

    table = tomlkit.table(is_super_table=True)
    for event, groups in hooks.items():
        if not isinstance(groups, list) or not all(isinstance(g, dict) for g in groups):
            raise InstallError(f"{path}: hooks.{event} is not an array of tables; fix it by hand")
        if not groups:
            table[event] = tomlkit.array()
            continue
        aot = tomlkit.aot()
        for group in groups:
            entry = tomlkit.table()
            for key, value in group.items():
                if (
                    key == "hooks"
                    and isinstance(value, list)
                    and all(isinstance(h, dict) for h in value)
                ):
                    inner = tomlkit.aot()
                    for handler in value:
                        inner.append(tomlkit.item(handler))
                    entry[key] = inner
                else:
                    entry[key] = value
            aot.append(entry)
        table[event] = aot
    return table


def _replace_toml_handler(
    groups: Any, handler: dict[str, Any], host: str, timeout_set: bool
) -> bool:
    for group in groups:
        handlers = group.get("hooks") if hasattr(group, "get") else None
        if handlers is None:
            continue
        for existing in handlers:
            if hasattr(existing, "get") and _is_ours(existing.get("command"), host):
                _update_handler(existing, handler, timeout_set)
                return True
    return False


def _amp(request: _Request) -> tuple[str, str | None, tuple[str, ...]]:
    """amp.permissions: a delegate rule for every tool, after the user's ask and reject rules."""
    if len(request.argv) > 1:
        raise InstallError(
            "amp runs its delegate program without arguments: drop --judge/--policy/--fail-closed"
            " and set ACP_JUDGE, ACP_POLICY or ACP_FAIL_CLOSED in the environment amp runs in"
        )
    before = _read(request.path)
    settings = _load_json(request.path, before)
    rules = _child(settings, "amp.permissions", list, request.path)
    rule = {"tool": "*", "action": "delegate", "to": request.argv[0]}
    mine = [r for r in rules if isinstance(r, Mapping) and _is_ours(r.get("to"), request.host)]
    for old in mine:
        rules.remove(old)
    # H2: Amp takes the first matching rule, and the guard's exit 0 allows the call. The user's
    # stricter rules (ask, reject, another delegate) must stay ahead of ours, so they still win;
    # only their allow rules may follow it, since the guard is stricter than an allow.
    stricter = [
        index
        for index, r in enumerate(rules)
        if not (isinstance(r, Mapping) and r.get("action") == "allow")
    ]
    position = stricter[-1] + 1 if stricter else 0
    for r in rules[:position]:
        if isinstance(r, Mapping) and r.get("tool") == "*" and r.get("action") != "allow":
            raise InstallError(
                f"{request.path}: your rule {json.dumps(r)} matches every tool before the guard"
                " could see it, so a delegate rule would never run; remove it or put the"
                f" delegate {json.dumps(rule)} where you want it by hand"
            )
    rules.insert(position, rule)
    order = ", ".join(
        f"{r.get('tool')} {r.get('action')}{' (acp)' if r is rule else ''}"
        for r in rules
        if isinstance(r, Mapping)
    )
    notes = (
        f"amp.permissions order (first match wins): {order}. The guard sees only calls no rule"
        " ahead of it matched; its allow (exit 0) allows the call.",
    )
    return _dump_json(request.path, settings, before), before, notes


def _flat_hooks(
    request: _Request,
    command_key: str,
    handler_for: Callable[[str, bool], dict[str, Any]],
    also: frozenset[str] = frozenset(),
) -> tuple[str, str | None]:
    """{"version": 1, "hooks": {event: [handler, ...]}}: one handler list per event, no matchers."""
    before = _read(request.path)
    settings = _load_json(request.path, before)
    settings.setdefault("version", 1)
    hooks = _child(settings, "hooks", dict, request.path)
    for kind, event in _native_events(request.host, also):
        handler = handler_for(*_command(request, kind))
        handlers = _child(hooks, event, list, request.path)
        for existing in handlers:
            if isinstance(existing, dict) and _is_ours(existing.get(command_key), request.host):
                _update_handler(existing, handler, request.timeout_set)
                break
        else:
            handlers.append(handler)
    return _dump_json(request.path, settings, before), before


def _cursor(request: _Request) -> tuple[str, str | None, tuple[str, ...]]:
    """.cursor/hooks.json: {"command", "failClosed"?} per event (cursor.com/docs/hooks)."""

    def handler(command: str, closed: bool) -> dict[str, Any]:
        # The per-script timeout is in seconds (cursor.com/docs/hooks, CUR-6).
        entry: dict[str, Any] = {"command": command, "timeout": request.timeout_s}
        if closed:
            # A crash, a timeout or empty output then blocks too (cursor.com/docs/hooks, failClosed).
            entry["failClosed"] = True
        return entry

    _check_cursor_file(request.path)
    after, before = _flat_hooks(request, "command", handler)
    notes = (
        "Cursor runs a project's .cursor/hooks.json only in a trusted workspace; enterprise"
        " (/etc/cursor/hooks.json) and team hooks run beside it.",
        # hosts/cursor.json (docs/findings.md HA3-6): the prompt hook is not run everywhere.
        "beforeSubmitPrompt does not run under cursor-agent -p (print mode) or for cloud agents,"
        " so prompts are not judged there; tool calls are.",
    )
    return after, before, notes


# Every event name Cursor's hooks.json takes (cursor.com/docs/hooks; cursor/cookbook
# hooks/README.md @ 26a68e50): one unknown name voids the whole file silently (HA3-7).
_CURSOR_EVENTS: Final = frozenset(
    {
        "sessionStart",
        "sessionEnd",
        "preToolUse",
        "postToolUse",
        "postToolUseFailure",
        "subagentStart",
        "subagentStop",
        "beforeShellExecution",
        "afterShellExecution",
        "beforeMCPExecution",
        "afterMCPExecution",
        "beforeReadFile",
        "afterFileEdit",
        "beforeSubmitPrompt",
        "preCompact",
        "stop",
        "afterAgentResponse",
        "afterAgentThought",
        "beforeTabFileRead",
        "afterTabFileEdit",
    }
)


def _check_cursor_file(path: Path) -> None:
    """Refuse to merge into a hooks.json Cursor would ignore, which would void our entry too."""
    settings = _load_json(path, _read(path))
    hooks = settings.get("hooks", {})
    version = settings.get("version", 1)
    if not isinstance(hooks, dict) or version != 1:
        raise InstallError(
            f"{path}: Cursor reads a hooks.json of version 1 with a hooks object; this one is"
            " not, and Cursor would ignore it with the entry merged in: fix or move it first"
        )
    unknown = sorted(set(hooks) - _CURSOR_EVENTS)
    if unknown:
        raise InstallError(
            f"{path}: {', '.join(unknown)} is no Cursor hook event, and one unknown event name"
            " makes Cursor silently ignore the whole file, with the entry merged in: rename or"
            " remove it first"
        )


def _copilot(request: _Request) -> tuple[str, str | None, tuple[str, ...]]:
    """.github/hooks/<file>.json: {"type": "command", "bash", "timeoutSec"} per event."""

    # CP-1: Copilot lets the call run when a hook times out, so the hook gets its own deadline a
    # little earlier and answers with its failure body, a deny, before Copilot gives up.
    limit_ms = request.timeout_s * 1000
    deadline_ms = limit_ms - min(5000, limit_ms // 3)

    def handler(command: str, closed: bool) -> dict[str, Any]:
        return {
            "type": "command",
            "bash": command,
            "timeoutSec": request.timeout_s,
            "env": {TIMEOUT_ENV: str(deadline_ms)},
        }

    # postToolUse carries context and a replaced result from 1.0.51 (CP-9), though it cannot block.
    after, before = _flat_hooks(request, "bash", handler, also=frozenset({EventKinds.POST_TOOL}))
    notes = (
        f"Copilot CLI lets a call run when its hook times out (and, before 1.0.57, when it"
        f" crashes): the entry sets"
        f" {TIMEOUT_ENV}={deadline_ms} so the hook denies by itself before the"
        f" {request.timeout_s} s timeoutSec.",
        "Copilot CLI loads repository hooks only in a trusted folder: in CI trust the folder,"
        " set COPILOT_ALLOW_ALL=true, or install at user scope (acp install copilot --user).",
    )
    return after, before, notes


def _auggie(request: _Request) -> tuple[str, str | None, tuple[str, ...]]:
    # Auggie's hook timeout is in milliseconds (default 6e4 in the 0.36.0 bundle; hosts/auggie.json).
    after, before = _json_hooks(request, timeout_ms=True, on_failure=False)
    return after, before, _no_fail_closed(request, "Auggie")


def _crush(request: _Request) -> tuple[str, str | None, tuple[str, ...]]:
    """crush.json: {"hooks": {"PreToolUse": [{"command", "timeout"}]}}, no matcher (every tool)."""
    before = _read(request.path)
    settings = _load_json(request.path, before)
    hooks = _child(settings, "hooks", dict, request.path)
    for kind, event in _native_events(request.host):
        command, _ = _command(request, kind)
        # Crush's hook timeout is in seconds (charmbracelet/crush docs/hooks/README.md).
        handler = {"command": command, "timeout": request.timeout_s}
        handlers = _child(hooks, event, list, request.path)
        for index, existing in enumerate(handlers):
            if isinstance(existing, Mapping) and _is_ours(existing.get("command"), request.host):
                handlers[index] = handler
                break
        else:
            handlers.append(handler)
    after = json.dumps(settings, indent=2, ensure_ascii=False) + "\n"
    # A hook that times out or exits non-zero (not 2) is "no opinion" in Crush: the call runs.
    return after, before, _no_fail_closed(request, "Crush")


def _cline(request: _Request) -> tuple[str, str | None, tuple[str, ...]]:
    """.clinerules/hooks/<Event>: Cline runs the executable named after the event."""
    from ._generated.hosts import cline

    before = _read(request.path)
    if before is not None and not any(
        _is_ours(line.removeprefix("exec "), request.host) for line in before.splitlines()
    ):
        raise InstallError(
            f"{request.path} already holds a hook that is not ours: Cline runs one executable per"
            " event, so call the command of `acp install cline --dry-run` from it by hand"
        )
    command, _ = _command(request, cline.NATIVE_EVENTS[request.path.name])
    after = f"#!/bin/sh\n# Written by acp install cline.\nexec {command}\n"
    notes = (
        # hosts/cline.json: 3.0.65 runs these detached and ignores what they print.
        "Cline runs UserPromptSubmit and TaskStart programs without reading their answer, so"
        " prompts are not judged; PreToolUse and PostToolUse are registered.",
        *_no_fail_closed(request, "Cline"),
    )
    return after, before, notes


def _windsurf(request: _Request) -> tuple[str, str | None, tuple[str, ...]]:
    """hooks.json: {"hooks": {action: [{"command", "show_output"}]}} for every blocking pre-hook."""
    import importlib

    declaration = importlib.import_module(f"{__package__}._generated.hosts.{request.host}")
    gated: frozenset[str] = declaration.GATED_KINDS
    # Every action is its own event (pre_run_command, pre_read_code, ...): register each one
    # whose kind blocks, not only the NATIVE_EVENT_FOR probe name.
    actions = sorted(name for name, kind in declaration.NATIVE_EVENTS.items() if kind in gated)
    before = _read(request.path)
    settings = _load_json(request.path, before)
    hooks = _child(settings, "hooks", dict, request.path)
    for action in actions:
        command, _ = _command(request, declaration.NATIVE_EVENTS[action])
        # show_output lets the user see the block reason in Cascade (hosts/windsurf.json).
        handler = {"command": command, "show_output": True}
        handlers = _child(hooks, action, list, request.path)
        for index, existing in enumerate(handlers):
            if isinstance(existing, Mapping) and _is_ours(existing.get("command"), request.host):
                handlers[index] = handler
                break
        else:
            handlers.append(handler)
    after = json.dumps(settings, indent=2, ensure_ascii=False) + "\n"
    notes = (
        # hosts/windsurf.json (docs/findings.md HA3-8): Devin Desktop's new local agent.
        "Windsurf is now Devin Desktop: its Devin Local sessions read Devin CLI hooks"
        " (.devin/hooks.v1.json, Claude-compatible) and import .claude/ hooks, not this file,"
        " so they run unguarded by it; run acp install claude for them as well.",
        *_no_fail_closed(request, "Windsurf"),
    )
    return after, before, notes


def _kiro(request: _Request) -> tuple[str, str | None, tuple[str, ...]]:
    """.kiro/hooks/<file>.json, a V3 hook file: {"version": "v1", "hooks": [{name, trigger, ...}]}."""
    before = _read(request.path)
    settings = _load_json(request.path, before)
    version = settings.setdefault("version", "v1")
    if version != "v1":
        raise InstallError(f"{request.path}: version {version!r} is not the V3 hook format v1")
    hooks = _child(settings, "hooks", list, request.path)
    for kind, trigger in _native_events(request.host):
        command, _ = _command(request, kind)
        # kiro.dev/docs/cli/v3/hooks: timeout in seconds; never cache_ttl_seconds, which replays
        # one allow for every later call (docs/findings.md KR-2).
        entry: dict[str, Any] = {"name": f"agent-control-plane-{trigger}", "trigger": trigger}
        if kind in _TOOL_KINDS:
            entry["matcher"] = request.matcher or ".*"  # a tool-name regex (.*: every tool)
        entry |= {
            "action": {"type": "command", "command": command},
            "timeout": request.timeout_s,
            "enabled": True,
        }
        for index, existing in enumerate(hooks):
            action = existing.get("action") if isinstance(existing, Mapping) else None
            ours = isinstance(action, Mapping) and _is_ours(action.get("command"), request.host)
            if ours and existing.get("trigger") == trigger:
                hooks[index] = entry
                break
        else:
            hooks.append(entry)
    notes = (
        "Kiro CLI reads .kiro/hooks/ files from its V3 hooks (CLI 2.13); the 2.x engine runs only"
        f" hooks embedded in the active agent, so {_KIRO_AGENT_FILE} carries the same guard:"
        f" run kiro-cli chat --agent {_KIRO_AGENT} (or kiro-cli settings chat.defaultAgent"
        f" {_KIRO_AGENT}); the built-in default agent carries no hooks.",
        "Never add cache_ttl_seconds to these hooks: Kiro would replay one allow for every later"
        " matching call.",
        *_no_fail_closed(request, "Kiro CLI"),
    )
    return _dump_json(request.path, settings), before, notes


# The agent the 2.x engine runs the guard in (HA3-9): hooks embedded in an agent file, V2 shape
# {hooks: {preToolUse: [{command, matcher, timeout_ms}]}} (aws/amazon-q-developer-cli
# crates/chat-cli/src/cli/agent/hook.rs @ 15cc8f3c), tools "*" as the default agent has them.
_KIRO_AGENT: Final = "agent-control-plane"
_KIRO_AGENT_FILE: Final = f".kiro/agents/{_KIRO_AGENT}.json"


def _kiro_agent(request: _Request) -> tuple[str, str | None]:
    """.kiro/agents/agent-control-plane.json: the guard as the 2.x engine runs it, V2 hooks."""
    before = _read(request.path)
    agent = _load_json(request.path, before)
    agent.setdefault("name", _KIRO_AGENT)
    agent.setdefault(
        "description", "The default tools with the agent-control-plane guard on every call"
    )
    agent.setdefault("tools", ["*"])
    hooks = _child(agent, "hooks", dict, request.path)
    command, _ = _command(request, EventKinds.PRE_TOOL)
    # V2 matchers are globs: * is every tool (KR-2 on the matcher); only preToolUse blocks on V2.
    entry = {"command": command, "matcher": "*", "timeout_ms": request.timeout_s * 1000}
    handlers = _child(hooks, "preToolUse", list, request.path)
    for index, existing in enumerate(handlers):
        if isinstance(existing, Mapping) and _is_ours(existing.get("command"), request.host):
            handlers[index] = entry
            break
    else:
        handlers.append(entry)
    return _dump_json(request.path, agent, before), before


# The plugins acp install copies (generated from templates/<host>/), and the one line of each that
# carries the hook command (hosts/opencode.json, hosts/amp.json notes).
_PLUGINS: Final = Path(__file__).parent / "_generated" / "plugins"
_OPENCODE_PLUGIN: Final = _PLUGINS / "opencode.js"
_AMP_PLUGIN: Final = _PLUGINS / "amp.ts"
_PLUGIN_CONFIG: Final = "const CONFIG = "
_PLUGIN_MARK: Final = "// DO NOT EDIT: this file is generated."
# The mark is the plugin's first line, or its second after Amp's opt-in marker line.
_PLUGIN_MARK_LINES: Final = 2


def _plugin_copy(request: _Request, template: Path) -> tuple[str, str | None]:
    """The packaged plugin with this hook command on its CONFIG line, and the file it replaces."""
    before = _read(request.path)
    head = [] if before is None else before.splitlines()[:_PLUGIN_MARK_LINES]
    if before is not None and not any(line.startswith(_PLUGIN_MARK) for line in head):
        raise InstallError(
            f"{request.path} exists and was not written by acp install; move it, then run"
            f" acp install {request.host} again"
        )
    config = {
        "command": request.argv,
        "failClosed": request.fail_closed,
        "timeoutMs": request.timeout_s * 1000,
    }
    lines = template.read_text(encoding="utf-8").splitlines(keepends=True)
    found = [i for i, line in enumerate(lines) if line.startswith(_PLUGIN_CONFIG)]
    if len(found) != 1:
        raise InstallError(f"{template} has no single CONFIG line; reinstall the package")
    lines[found[0]] = f"{_PLUGIN_CONFIG}{json.dumps(config, sort_keys=True)};\n"
    return "".join(lines), before


def _opencode(request: _Request) -> tuple[str, str | None, tuple[str, ...]]:
    """.opencode/plugin/agent-control-plane.js: the packaged plugin with this hook command in it."""
    after, before = _plugin_copy(request, _OPENCODE_PLUGIN)
    notes = (
        "opencode loads the plugin at its next start. On first run it installs @opencode-ai/plugin"
        " into its config folders from the package registry; the plugin needs none of it, but"
        " offline opencode waits for that install (docs/findings.md LAB-OC).",
    )
    return after, before, notes


def _amp_plugin(request: _Request) -> tuple[str, str | None, tuple[str, ...]]:
    """.amp/plugins/agent-control-plane.ts: the Plugin API form, with this hook command in it."""
    after, before = _plugin_copy(request, _AMP_PLUGIN)
    notes = (
        # ampcode.com/manual/plugin-api: the CLI loads plugins (only with PLUGINS=all on the
        # builds that document it) and reloads them from the command palette.
        "Amp loads the plugin at its next start (or on `plugins: reload`); builds that document"
        " PLUGINS=all load plugins only when Amp runs with it. The Plugin API is experimental"
        " and this form is not lab-verified (hosts/amp.json forms.plugin).",
        "A delegate rule from `acp install amp` (without --plugin) would judge each call a second"
        " time: remove it from amp.permissions once the plugin runs.",
    )
    return after, before, notes


# host -> (project-relative path, home-relative path, installer entry)
_HOSTS: Final[
    Mapping[str, tuple[str, str, Callable[[_Request], tuple[str, str | None, tuple[str, ...]]]]]
] = {
    "claude": (".claude/settings.json", ".claude/settings.json", _claude),
    "codex": (".codex/hooks.json", ".codex/config.toml", _codex),
    "gemini": (".gemini/settings.json", ".gemini/settings.json", _gemini),
    "factory": (".factory/hooks.json", ".factory/hooks.json", _factory),
    "qwen": (".qwen/settings.json", ".qwen/settings.json", _qwen),
    # V3 standalone hook files apply to every agent of the workspace (hosts/kiro.json).
    "kiro": (
        ".kiro/hooks/agent-control-plane.json",
        ".kiro/hooks/agent-control-plane.json",
        _kiro,
    ),
    # The workspace settings path is unverified (?); the user one is documented.
    "amp": (".amp/settings.json", ".config/amp/settings.json", _amp),
    "cursor": (".cursor/hooks.json", ".cursor/hooks.json", _cursor),
    "auggie": (".augment/settings.json", ".augment/settings.json", _auggie),
    # Crush reads crush.json (or .crush.json) in the project and ~/.config/crush/crush.json.
    "crush": ("crush.json", ".config/crush/crush.json", _crush),
    # Cline: one executable per event, .clinerules/hooks/ or ~/Documents/Cline/Hooks/ (hosts/cline.json).
    "cline": (".clinerules/hooks/PreToolUse", "Documents/Cline/Hooks/PreToolUse", _cline),
    "windsurf": (".windsurf/hooks.json", ".codeium/windsurf/hooks.json", _windsurf),
    # Copilot CLI loads every .github/hooks/*.json of the repository and ~/.copilot/hooks/*.json.
    "copilot": (
        ".github/hooks/agent-control-plane.json",
        ".copilot/hooks/agent-control-plane.json",
        _copilot,
    ),
    # opencode auto-loads every *.js in these plugin folders (opencode.ai/docs/plugins).
    "opencode": (
        ".opencode/plugin/agent-control-plane.js",
        ".config/opencode/plugin/agent-control-plane.js",
        _opencode,
    ),
}


# Hosts whose installed file is the hook program itself, so it must be executable, one program
# per event named after it: beside the gated kinds, the ungated kinds whose answer still counts
# (Cline reads PostToolUse context; hosts/cline.json).
_EXECUTED: Final[Mapping[str, frozenset[str]]] = {"cline": frozenset({EventKinds.POST_TOOL})}
_EXECUTABLE: Final = 0o755

# Hosts whose plugin form --plugin installs instead of the entry above: Amp loads plugins from
# .amp/plugins/ and ~/.config/amp/plugins/ (ampcode.com/manual/plugin-api; rulesync#1938).
_PLUGIN_HOSTS: Final[
    Mapping[str, tuple[str, str, Callable[[_Request], tuple[str, str | None, tuple[str, ...]]]]]
] = {
    "amp": (
        ".amp/plugins/agent-control-plane.ts",
        ".config/amp/plugins/agent-control-plane.ts",
        _amp_plugin,
    ),
}

INSTALLABLE: Final[tuple[str, ...]] = tuple(sorted(_HOSTS))
"""Hosts acp install has a configuration entry for."""

# Hosts that also run the hooks of Claude Code's settings (docs/findings.md XH-1): Cursor reads
# .claude/settings*.json, Copilot CLI reads .claude/settings.json, Droid imports Claude hooks.
_RUN_CLAUDE_HOOKS: Final[Mapping[str, str]] = {
    "cursor": "Cursor",
    "copilot": "Copilot CLI",
    "factory": "Droid",
}


def _claude_entry_in(path: Path) -> bool:
    """Whether a Claude settings file holds an entry this installer wrote for claude."""
    try:
        loaded: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    stack = [loaded]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
        elif _is_ours(node, "claude"):
            return True
    return False


def _shared_hook_notes(host: str, scope: Scope, base: Path) -> tuple[str, ...]:
    """Warn when another host in this scope would also run the Claude entry (XH-1)."""

    def config(of: str) -> Path:
        project, user, _ = _HOSTS[of]
        return base.absolute() / (project if scope == "project" else user)

    claude = config("claude")
    if host == "claude":
        present = [
            name for other, name in _RUN_CLAUDE_HOOKS.items() if config(other).parent.is_dir()
        ]
        if not present:
            return ()
        return (
            f"{', '.join(present)} also run the hooks in {claude}, judging their calls through"
            " the Claude adapter: give each its own entry (acp install <host>) and keep this one"
            " only if Claude Code runs here too.",
        )
    name = _RUN_CLAUDE_HOOKS.get(host)
    if name is None or not _claude_entry_in(claude):
        return ()
    return (
        f"{name} also runs the acp-claude-hook entry in {claude}: each {name} call is then judged"
        " twice, once through the Claude adapter; remove that entry if Claude Code does not run"
        " here.",
    )


def plan_install(
    host: str,
    *,
    scope: Scope = "project",
    root: Path | None = None,
    home: Path | None = None,
    judge: str | None = None,
    policy: str | None = None,
    fail_closed: bool = False,
    timeout_s: int | None = None,
    codex_version: str | None = None,
    bin_dir: Path | None = None,
    on_unrendered: str | None = None,
    sole_gate: bool = False,
    matcher: str | None = None,
    local: bool = False,
    plugin: bool = False,
    audit_log: str | None = None,
    windows: bool | None = None,
    host_version: str | None = None,
) -> InstallPlan:
    """Plan the configuration change that registers this host's hook entry; nothing is written."""
    if host not in _HOSTS:
        known = ", ".join(sorted(_HOSTS))
        raise InstallError(f"no installer for {host!r}: known hosts are {known}")
    if host not in AGENT_IDS:
        raise InstallError(f"{host!r} has an installer entry but no adapter")
    if scope not in SCOPES:
        raise InstallError(f"scope {scope!r} is not one of {', '.join(SCOPES)}")
    if timeout_s is not None and timeout_s <= 0:
        raise InstallError(f"timeout {timeout_s} must be a positive number of seconds")
    if codex_version is not None and host != "codex":
        raise InstallError(f"--codex-version is a Codex option; {host} takes none")
    if on_unrendered is not None and on_unrendered not in UnrenderedPostures.ALL:
        raise InstallError(
            f"--on-unrendered {on_unrendered!r} is not one of {', '.join(UnrenderedPostures.ALL)}"
        )
    _check_matcher(host, matcher)
    version_env, version_notes = _host_version(host, host_version, codex_version)
    if plugin and host not in _PLUGIN_HOSTS:
        raise InstallError(
            f"--plugin installs a host's plugin form; only {', '.join(sorted(_PLUGIN_HOSTS))}"
            f" has one besides its hook entry, {host} has none"
        )
    project_path, user_path, entry = (_PLUGIN_HOSTS if plugin else _HOSTS)[host]
    if local:
        if host not in _LOCAL or scope != "project":
            where = "project scope" if host in _LOCAL else ", ".join(sorted(_LOCAL))
            raise InstallError(f"--local: a per-machine project file exists only for {where}")
        project_path = _LOCAL[host]
    base = (root or Path.cwd()) if scope == "project" else (home or Path.home())
    path = base.absolute() / (project_path if scope == "project" else user_path)
    if host == "cline" and scope == "user":
        from ._host_shells import documents_dir

        # The extension reads <Documents>/Cline/Hooks, XDG's documents folder on Linux (HA3-12).
        path = documents_dir(base.absolute()) / Path(user_path).relative_to("Documents")
    folder = bin_dir or Path(sys.executable).parent
    script = folder / f"acp-{host}-hook"
    if not script.exists():
        raise InstallError(
            f"{script} does not exist: install agent-control-plane-core in this environment"
            " (or pass the folder of its console scripts)"
        )

    judge_path = _judge_path(judge)

    def argv(closed: bool) -> list[str]:
        return hook_command(
            host,
            judge=judge,
            policy=policy,
            fail_closed=closed,
            codex_version=codex_version,
            bin_dir=folder,
            version_env=version_env,
            on_unrendered=on_unrendered,
            sole_gate=sole_gate,
            judge_path=judge_path,
            audit_log=audit_log,
        )

    request = _Request(
        host=host,
        path=path,
        argv=argv(fail_closed),
        plain_argv=argv(False),
        fail_closed=fail_closed,
        timeout_s=30 if timeout_s is None else timeout_s,
        timeout_set=timeout_s is not None,
        matcher=matcher,
        windows=os.name == "nt" if windows is None else windows,
    )
    after, before, notes = entry(request)
    notes = (*version_notes, *notes)
    if after != before:
        _check_writable(Path(os.path.realpath(path)))
    also: list[InstallPlan] = []
    if host in _EXECUTED:
        for _, event in _native_events(host, _EXECUTED[host]):
            if event == path.name:
                continue
            sibling = replace(request, path=path.with_name(event))
            more, earlier, _ = entry(sibling)
            if more != earlier:
                _check_writable(Path(os.path.realpath(sibling.path)))
            also.append(InstallPlan(host, sibling.path, earlier, more, mode=_EXECUTABLE))
    if host == "kiro" and not plugin:
        agent = replace(request, path=base.absolute() / _KIRO_AGENT_FILE)
        more, earlier = _kiro_agent(agent)
        if more != earlier:
            _check_writable(Path(os.path.realpath(agent.path)))
        also.append(InstallPlan(host, agent.path, earlier, more))
    return InstallPlan(
        host=host,
        path=path,
        before=before,
        after=after,
        notes=(
            *notes,
            *_shared_hook_notes(host, scope, base),
            *_machine_path_notes(host, scope, local, path, folder),
            _registered(host, judge, policy),
            *_reach_notes(host, base if scope == "project" else None, judge, policy),
            *_dead_hook_notes(host, fail_closed),
        ),
        mode=_EXECUTABLE if host in _EXECUTED else None,
        also=tuple(also),
    )


def _host_version(
    host: str, given: str | None, codex_version: str | None
) -> tuple[tuple[str, str] | None, tuple[str, ...]]:
    """ACP_<HOST>_VERSION for the hook command, from --host-version VERSION or detect (HA3-15)."""
    import importlib

    from .contract import version_key

    declaration = importlib.import_module(f"{__package__}._generated.hosts.{host}")
    supported = declaration.SUPPORTED_VERSIONS
    if given is None:
        return None, ()
    if supported is None:
        raise InstallError(f"--host-version: {host} declares no versions, so none is written")
    if host == "codex" and codex_version is not None:
        raise InstallError("--host-version and --codex-version both name Codex's version; give one")
    version = given
    if given == "detect":
        from ._host_shells import VERSION_COMMANDS, detect_version

        found = detect_version(host)
        if found is None:
            raise InstallError(
                f"--host-version detect: {' '.join(VERSION_COMMANDS[host])} gave no version;"
                f" pass it (--host-version {supported[1]})"
            )
        version = found
    key = version_key(version)
    if key is None:
        raise InstallError(f"--host-version {version!r} is not a version such as {supported[1]}")
    notes: tuple[str, ...] = (f"{host} {version}: the hook renders that version's facts.",)
    low, high = version_key(supported[0]), version_key(supported[1])
    assert low is not None and high is not None  # the declaration is validated
    if key < low:
        notes = (
            f"{host} {version} is older than the supported {supported[0]}: the hook claims no"
            " block there (observe only).",
        )
    elif key > high:
        notes += (f"{host} {version} is newer than {supported[1]}, the newest release examined.",)
    return (f"ACP_{host.upper()}_VERSION", version), notes


# Per-machine project settings beside the committed file: Claude Code also reads
# .claude/settings.local.json, its settings file kept out of git (code.claude.com/docs/en/settings;
# N14).
_LOCAL: Final[Mapping[str, str]] = {"claude": ".claude/settings.local.json"}


def _machine_path_notes(
    host: str, scope: Scope, local: bool, path: Path, folder: Path
) -> tuple[str, ...]:
    """Say that a project file now names this machine's console-script folder (N14)."""
    if scope != "project":
        return ()
    if local:
        return (
            f"{path} is for this machine only: keep it out of git (add it to .gitignore if"
            " Claude Code has not).",
        )
    text = (
        f"{path} now names this machine's {folder.absolute()}; if the file is committed, every"
        " other machine needs its own acp install (or the same path)"
    )
    if host in _LOCAL:
        text += f"; --local writes {_LOCAL[host]} instead, which stays on this machine"
    return (text + ".",)


# Hosts whose hook entry takes a tool-name regular expression (N15): the Claude-shaped matcher
# group (hosts/claude.json, factory.json, qwen.json, gemini.json) and Kiro's matcher (KR-5).
_MATCHER_HOSTS: Final = frozenset({"claude", "factory", "gemini", "kiro", "qwen"})


def _check_matcher(host: str, matcher: str | None) -> None:
    """Refuse a matcher the host cannot take, or one that is not a regular expression."""
    if matcher is None:
        return
    if host not in _MATCHER_HOSTS:
        raise InstallError(
            f"--matcher: {host} has no tool matcher in its hook configuration (its hook runs on"
            f" every tool); hosts with one: {', '.join(sorted(_MATCHER_HOSTS))}"
        )
    import re

    try:
        re.compile(matcher)
    except re.error as exc:
        raise InstallError(f"--matcher {matcher!r} is not a regular expression ({exc})") from exc
    if not matcher:
        raise InstallError("--matcher is empty; leave it out to run the hook on every tool")


def _registered(host: str, judge: str | None, policy: str | None) -> str:
    """What the entry runs, checked now (N2): the judge imports, the rule file loads."""
    from ._judges import JudgeLoadError, load_judge

    try:
        if policy is not None:
            from .policy import load_policy_judge

            loaded = load_policy_judge(str(Path(policy).absolute()))
            return f"acp-{host}-hook runs the policy {loaded.source}."
        if judge is not None:
            load_judge(judge)
            return f"acp-{host}-hook runs the judge {judge}."
    except JudgeLoadError as exc:
        raise InstallError(f"not registered: {exc}") from exc
    return (
        f"acp-{host}-hook runs the demo judge, which blocks only rm -rf, unless ACP_POLICY or"
        " ACP_JUDGE is set where the host runs it; pass --policy or --judge to register your own."
    )


def _judge_path(judge: str | None) -> tuple[str, ...]:
    """The folder the judge's module imports from when only PYTHONPATH provides it (issue 26).

    The hook runs with the host's environment, not this shell's: a judge found through PYTHONPATH
    would not import there, so its folder is recorded in the command (ACP_JUDGE_PATH).
    """
    if judge is None:
        return ()
    from ._judges import JudgeLoadError, load_judge

    try:
        load_judge(judge)
    except JudgeLoadError:
        return ()  # refused with the reason once the entry is planned (_registered)
    top = judge.partition(":")[0].split(".")[0]
    origin = getattr(sys.modules.get(top), "__file__", None)
    if not isinstance(origin, str):
        return ()  # a built-in or namespace module: nothing to record
    # The sys.path entry it came from: the module file's folder, or a package's parent folder.
    root = os.path.dirname(os.path.realpath(origin))
    if os.path.basename(origin).startswith("__init__."):
        root = os.path.dirname(root)
    extra = os.environ.get("PYTHONPATH", "")
    if any(os.path.realpath(entry or os.curdir) == root for entry in extra.split(os.pathsep)):
        return (root,)
    return ()


def _temporary_folders() -> tuple[str, ...]:
    """The temporary folders, which sandboxes let the agent write (Codex's workspace-write)."""
    return (tempfile.gettempdir(), "/tmp", "/var/tmp", "/dev/shm")


def _inside(path: Path, folder: Path) -> bool:
    try:
        Path(os.path.realpath(path)).relative_to(os.path.realpath(folder))
    except ValueError:
        return False
    return True


def _reach_notes(
    host: str, project: Path | None, judge: str | None, policy: str | None
) -> tuple[str, ...]:
    """A warning per rule file or judge inside a folder the agent may write (issue 26)."""
    places = [Path(folder) for folder in _temporary_folders()]
    if project is not None:
        places.insert(0, project)
    what: list[tuple[str, Path]] = []
    if policy is not None:
        what.append((f"the policy {Path(policy).absolute()}", Path(policy).absolute()))
    if judge is not None:
        origin = getattr(sys.modules.get(judge.partition(":")[0]), "__file__", None)
        if isinstance(origin, str):
            what.append((f"the judge {judge} ({origin})", Path(origin)))
    notes = []
    for label, path in what:
        where = next((place for place in places if _inside(path, place)), None)
        if where is not None:
            notes.append(
                f"warning: {label} is inside {where}, a folder the agent may write to: it could"
                " change its own guard. Keep it outside (for example in"
                f" ~/.config/agent-control-plane-core/) and run acp install {host} again with"
                " that path."
            )
    return tuple(notes)


def _dead_hook_notes(host: str, fail_closed: bool) -> tuple[str, ...]:
    """What stays open when the hook process dies or cannot start (exit 127), from DEAD_HOOK."""
    import importlib

    from ._generated.constants import DeadHooks

    declaration = importlib.import_module(f"{__package__}._generated.hosts.{host}")
    dead = getattr(declaration, "DEAD_HOOK", DeadHooks.RUNS)
    if dead == DeadHooks.BLOCKS or (dead == DeadHooks.BLOCKS_FAIL_CLOSED and fail_closed):
        return ()
    cause = (
        "if the hook process dies or cannot start (the project moved, .venv recreated, the"
        " package uninstalled: exit 127)"
    )
    if dead == DeadHooks.BLOCKS_FAIL_CLOSED:
        return (
            f"{cause}, {host} runs the call; --fail-closed registers its own block for that"
            " case as well.",
        )
    # A version fact can give the host a blocking failure mode from some release on.
    later = [
        (str(fact.get("since")), fact["set"]["dead_hook"])
        for fact in getattr(declaration, "VERSION_FACTS", ())
        if "dead_hook" in fact.get("set", {}) and fact.get("since")
    ]
    for since, mode in later:
        if mode == DeadHooks.BLOCKS:
            return (f"{cause}, {host} runs the call before {since}; from {since} it blocks it.",)
        if mode == DeadHooks.BLOCKS_FAIL_CLOSED:
            how = "is registered" if fail_closed else "would be registered with --fail-closed"
            return (
                f"{cause}, {host} runs the call; from {since} on, the block for that case that"
                f" {how} is honoured.",
            )
    return (
        f"{cause}, {host} runs the call and no audit line is written: it has no blocking"
        " failure mode, so run acp install again after moving or recreating the environment.",
    )
