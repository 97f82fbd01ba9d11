"""Hosts that run or load the installed file itself: Cline's hook programs, opencode and Amp plugins."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Final

from .._generated.constants import EventKinds
from ._base import InstallError, _read, _Request
from ._command import _command, _is_ours
from ._json_nested import _no_fail_closed


def _cline(request: _Request) -> tuple[str, str | None, tuple[str, ...]]:
    """.clinerules/hooks/<Event>: Cline runs the executable named after the event."""
    from .._generated.hosts import cline

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


# The plugins acp install copies (generated from templates/<host>/), and the one line of each that
# carries the hook command (hosts/opencode.json, hosts/amp.json notes).
_PLUGINS: Final = Path(__file__).parent.parent / "_generated" / "plugins"


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


# Hosts whose installed file is the hook program itself, so it must be executable, one program
# per event named after it: beside the gated kinds, the ungated kinds whose answer still counts
# (Cline reads PostToolUse context; hosts/cline.json).
_EXECUTED: Final[Mapping[str, frozenset[str]]] = {"cline": frozenset({EventKinds.POST_TOOL})}


_EXECUTABLE: Final = 0o755
