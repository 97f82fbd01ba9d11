"""The auggie adapter passes the conformance kit on its golden fixtures."""

from __future__ import annotations

from agent_control_plane_core import adapter_for, assert_conforms

from conftest import FIXTURES_DIR


def test_auggie_adapter_conforms_to_its_fixtures() -> None:
    report = assert_conforms(adapter_for("auggie"), FIXTURES_DIR / "auggie.json")
    assert report.scenarios > 0
