"""Codex: hooks.json in a project, or hook tables merged into config.toml with comments kept."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..runtime import (
    CODEX_VERSION_ENV,
)
from ._base import InstallError, _read, _Request
from ._command import _command, _is_ours
from ._json_nested import _json_hooks, _native_events, _no_fail_closed, _update_handler


def _codex(request: _Request) -> tuple[str, str | None, tuple[str, ...]]:
    # CX-8: codex exec skips an untrusted hook without a word, so headless runs are unguarded.
    notes: tuple[str, ...] = (
        "Codex runs a hook only once you trust it in the TUI /hooks screen, and again after it"
        " changes (shown as modified); codex exec skips untrusted hooks without a message, so"
        " a headless run is unguarded unless automation that vets the hook file passes"
        " --dangerously-bypass-hook-trust.",
    )
    if not any(word.startswith(f"{CODEX_VERSION_ENV}=") for word in request.argv):
        from .._generated.hosts import codex

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
