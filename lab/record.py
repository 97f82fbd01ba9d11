"""The corpus of real payloads: what each pinned host sent its hook in the lab, scrubbed, in fixtures/real."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "fixtures" / "real"
# What stands for the run's own machine paths and secrets in a recorded payload (longest first
# is the caller's job: see replacements()).
HOME = "/home/dev"
PROJECT = "/home/dev/project"
NONCE = "00000000"
API_KEY = "lab-api-key"


@dataclass(frozen=True)
class Run:
    """One finished lab run, as the recorder needs it."""

    host: str
    version: str
    scenario: str
    run_dir: Path
    run_id: str
    nonce: str


def replacements(run: Run, *, api_key: str, cache: Path) -> list[tuple[str, str]]:
    """(machine text, stand-in) pairs, the longest machine text first so no prefix wins early."""
    pairs = {
        str(run.run_dir / "project"): PROJECT,
        str(run.run_dir / "home"): HOME,
        str(run.run_dir / "tmp"): "/tmp/lab",
        str(run.run_dir): f"{HOME}/.lab-run",
        str(cache): f"{HOME}/.cache/agent-control-plane-core/lab",
        str(REPO): f"{HOME}/agent-control-plane-core",
        api_key: API_KEY,
    }
    # Hosts name a project's session folder after its path: Claude Code turns every character but
    # letters and digits into a dash, Factory Droid only the slashes.
    for old, new in [(old, new) for old, new in pairs.items() if "/" in old]:
        pairs[re.sub(r"[^A-Za-z0-9]", "-", old)] = re.sub(r"[^A-Za-z0-9]", "-", new)
        pairs[old.replace("/", "-")] = new.replace("/", "-")
    if run.nonce:
        pairs[run.nonce] = NONCE
    return sorted(pairs.items(), key=lambda pair: -len(pair[0]))


def scrub(text: str, pairs: Iterable[tuple[str, str]]) -> str:
    """The text with every machine path, the API key and the run's nonce replaced."""
    for old, new in pairs:
        text = text.replace(old, new)
    return text


def shape(value: Any) -> Any:
    """What a payload's structure is, without its values: key paths and JSON types."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in sorted(value.items())}
    if isinstance(value, list):
        shapes: list[Any] = []
        for item in value:
            if shape(item) not in shapes:
                shapes.append(shape(item))
        return shapes
    if isinstance(value, bool) or value is None:
        return type(value).__name__
    if isinstance(value, int | float):
        return "number"
    return type(value).__name__


def _native_event(adapter: Any, payload: Any) -> str:
    """The host's own event name, as our adapter reads it (the payload's own field otherwise)."""
    try:
        return str(adapter.parse(json.loads(json.dumps(payload))).meta.native_event)
    except (ValueError, TypeError, AttributeError):
        found = payload.get("hook_event_name") if isinstance(payload, dict) else None
        return str(found or "unparsed")


def payloads_of(run: Run, adapter: Any, pairs: list[tuple[str, str]]) -> dict[str, dict[str, Any]]:
    """File name -> record for the first payload of each native event the host sent in the run."""
    found: dict[str, dict[str, Any]] = {}
    for path in sorted((run.run_dir / "hooks").glob("hook-*.json")):
        call = json.loads(path.read_text(encoding="utf-8"))
        try:
            payload = json.loads(scrub(call["stdin"], pairs))
        except ValueError:
            continue  # not JSON: nothing for a parse fixture (the run's own evidence keeps it)
        event = _native_event(adapter, payload)
        name = f"{run.scenario}-{event}.json"
        if name not in found:
            found[name] = {
                "host": run.host,
                "version": run.version,
                "scenario": run.scenario,
                "native_event": event,
                "recorded_by": "make lab (python -m lab.run --write)",
                "run": run.run_id,
                "payload": payload,
            }
    return found


def dump(record: Mapping[str, Any]) -> str:
    """A corpus file's text: stable key order, one trailing newline."""
    return json.dumps(record, indent=2, ensure_ascii=False) + "\n"


def sync(seen: Mapping[tuple[str, str], Mapping[str, dict[str, Any]]], *, write: bool) -> list[str]:
    """Compare (or bring) fixtures/real up to date with what this run saw; return the problems."""
    problems = []
    for (host, version), records in sorted(seen.items()):
        folder = CORPUS / host / version
        for name, record in sorted(records.items()):
            path = folder / name
            if path.exists():
                old = json.loads(path.read_text(encoding="utf-8"))
                if shape(old.get("payload")) == shape(record["payload"]):
                    continue  # same structure: keep the file and the run that recorded it
                why = f"{path.relative_to(REPO)} is stale: the host now sends another shape"
            else:
                why = f"{path.relative_to(REPO)} is missing"
            if write:
                folder.mkdir(parents=True, exist_ok=True)
                path.write_text(dump(record), encoding="utf-8")
            else:
                problems.append(why)
        for path in sorted(folder.glob("*.json")):
            if path.name not in records:
                if write:
                    path.unlink()
                else:
                    problems.append(
                        f"{path.relative_to(REPO)} is stale: the host no longer sent it"
                    )
    return problems
