"""Shared test fixtures: repository paths, hypothesis profiles and the recorded real payloads."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings

REPO = Path(__file__).resolve().parent.parent

# Property tests: a bounded, reproducible run by default; `make fuzz` selects the fuzz profile.
_SLOW_DATA = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example]
settings.register_profile(
    "default",
    max_examples=200,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=_SLOW_DATA,
)
settings.register_profile(
    "fuzz",
    max_examples=10_000,
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=_SLOW_DATA,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

SCHEMA_DIR = REPO / "schema" / "control-plane" / "v1"
FIXTURES_DIR = REPO / "fixtures"


def load_json(path: Path) -> Any:
    """Parse a JSON file."""
    return json.loads(path.read_text(encoding="utf-8"))


REAL_DIR = FIXTURES_DIR / "real"


@dataclass(frozen=True)
class RealPayload:
    """One payload a real host sent to the hook, from the corpus the lab records (fixtures/real)."""

    host: str
    version: str
    scenario: str
    native_event: str
    payload: Any
    path: Path

    @property
    def name(self) -> str:
        return f"{self.host}@{self.version}/{self.path.name}"


def real_payloads(host: str, version: str | None = None) -> list[RealPayload]:
    """Every recorded payload of one host (optionally one version), in path order."""
    found = []
    for path in sorted((REAL_DIR / host).glob("*/*.json")):
        record = load_json(path)
        if version is None or record["version"] == version:
            found.append(
                RealPayload(
                    record["host"],
                    record["version"],
                    record["scenario"],
                    record["native_event"],
                    record["payload"],
                    path,
                )
            )
    assert found, f"no recorded payloads for {host} {version or ''} in {REAL_DIR}: run make lab"
    return found


def assert_nothing_lost(
    payload: dict[str, Any], event: dict[str, Any], consumed: dict[str, str]
) -> None:
    """Every payload field is in the event: where the adapter put it (consumed), else passthrough."""
    meta = event["meta"]
    for key, value in payload.items():
        where = consumed.get(key)
        if where is None:
            assert meta["passthrough"][key] == value, key
        elif where in ("input", "response"):
            assert event[where] == value, key
        else:
            assert meta[where] == value, key
