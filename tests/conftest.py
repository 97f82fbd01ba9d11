"""Shared test fixtures: repository paths and the shared reference folder (env ACP_SHARED_DIR)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
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


def shared_dir() -> Path:
    """The shared folder with reference data: env ACP_SHARED_DIR, default ../shared."""
    return Path(os.environ.get("ACP_SHARED_DIR", REPO.parent / "shared"))


_MISSING_REFERENCE: list[str] = []


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """N10: say it in one visible line when the reference-agreement tests could not run."""
    if _MISSING_REFERENCE:
        terminalreporter.write_line(
            f"NOTE: {len(_MISSING_REFERENCE)} reference-agreement test(s) skipped: no reference"
            f" data at {_MISSING_REFERENCE[0]} (set ACP_SHARED_DIR to the shared folder)",
            yellow=True,
        )


def reference_dir() -> Path:
    """The reference folder, or skip the test with the reason when it is absent."""
    path = shared_dir() / "reference"
    if not path.is_dir():
        _MISSING_REFERENCE.append(str(path))
        pytest.skip(f"reference data not found at {path}: set ACP_SHARED_DIR to the shared folder")
    return path


def load_json(path: Path) -> Any:
    """Parse a JSON file."""
    return json.loads(path.read_text(encoding="utf-8"))


def behaviour_lines() -> list[dict[str, Any]]:
    """Every line of the reference behaviour corpus."""
    path = reference_dir() / "behaviour.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def reference_fixtures() -> dict[str, Any]:
    """The reference golden fixture files, by agent id."""
    folder = reference_dir() / "fixtures"
    return {path.stem: load_json(path) for path in sorted(folder.glob("*.json"))}
