"""Conformance kit: checks an adapter against its golden fixture file and every rule of contract.md §8."""

# A fixture file (shape: ``fixtures/fixture.schema.json``) lists cases: a native payload, the
# ToolCallEvent it must parse to, and verdict scenarios with the NativeResponse each must render to.
# ``run_adapter_conformance`` replays the goldens and then probes the adapter itself, so a suite whose
# goldens were written from a broken adapter still fails. Every rule has a stable id (``RULES``); a
# failure raises ``ConformanceError`` naming the rule, the case and the scenario.
#
# Probing, in short (contract.md §8):
#
# * Probe adapters: the adapter as given, and one per distinct ``adapter_options`` of the cases. Each
#   parses every fixture native; kinds none of those parse to are synthesized: a fixture native whose
#   event-name field (found as the top-level string equal to the parsed ``meta.native_event``) is set
#   to ``NATIVE_EVENT_FOR[kind]``, the drift probe for ``unknown``, else an event built with
#   ``make_event`` (not vetoable) from a parsed fixture event.
# * A content field *appears* in a render when, for a decision (allow, deny, ask), ``sole_gate``
#   value and vetoability (the event as parsed and its non-vetoable variant), a distinct probe value
#   in that field is in the response (stdout keys and values, stderr; substring match) and not in the
#   same render without the field. It *reaches the host* when it appears in a render with
#   ``enforced`` false: hosts ignore an exit-2 block's stdout and read its stderr only as the block
#   reason (docs/contract.md §5; the Claude Code and Codex hooks docs). A field outside ``UNRENDERED_FIELDS[kind]`` must reach the host on every
#   probe event of that kind; a field inside must appear in no render at all, enforced or not.
# * File-level failures (the declarations, the suite as a whole, an alias no case witnesses) name
#   the case ``<file: AGENT>`` or ``<declarations: AGENT>``, AGENT being the fixture file's agent.
# * Host aliases come from the optional adapter attribute ``TOOL_ALIASES`` (native name to canonical
#   tool, host-scoped) plus the global map; each needs a witnessing fixture case.

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from ..adapters._protocol import Adapter
from ._common import (
    RULE_IDS,
    RULES,
    ConformanceError,
    ConformanceReport,
    FixtureError,
    _show,
)
from ._harness import _Run

__all__ = [
    "RULES",
    "RULE_IDS",
    "ConformanceError",
    "ConformanceReport",
    "FixtureError",
    "assert_conforms",
    "load_fixtures",
    "run_adapter_conformance",
    "validate_fixtures",
]


def load_fixtures(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a fixture file as JSON; raise FixtureError when it is not a JSON object."""
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    if not isinstance(data, dict):
        raise FixtureError(f"{os.fspath(path)}: a fixture file is a JSON object, got {_show(data)}")
    return data


def validate_fixtures(fixtures: Mapping[str, Any]) -> None:
    """Validate a parsed fixture file against the packaged fixture.schema.json (needs jsonschema)."""
    # Imported here: jsonschema is a test-time dependency of this kit, never of the hook path.
    from jsonschema.exceptions import best_match

    from ..schemas import validator_for

    error = best_match(validator_for("fixture").iter_errors(fixtures))
    if error is not None:
        where = "/".join(str(part) for part in error.absolute_path) or "(top level)"
        raise FixtureError(
            f"fixture file does not match fixture.schema.json at {where}: {error.message}"
        )


def assert_conforms(
    adapter: Adapter, fixtures: Mapping[str, Any] | str | os.PathLike[str]
) -> ConformanceReport:
    """Validate a fixture file (path or parsed dict) against its schema, then run the harness on it."""
    data = fixtures if isinstance(fixtures, Mapping) else load_fixtures(fixtures)
    validate_fixtures(data)
    return run_adapter_conformance(adapter, data)


def run_adapter_conformance(adapter: Adapter, fixtures: Mapping[str, Any]) -> ConformanceReport:
    """Check an adapter against a parsed fixture file; raise ConformanceError on the first failure."""
    return _Run(adapter, fixtures).run()
