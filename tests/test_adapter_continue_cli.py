"""The continue_cli adapter passes the conformance kit on its golden fixtures."""

from __future__ import annotations

from agent_control_plane_core import adapter_for, assert_conforms

from conftest import FIXTURES_DIR


def test_continue_cli_adapter_conforms_to_its_fixtures() -> None:
    report = assert_conforms(adapter_for("continue_cli"), FIXTURES_DIR / "continue_cli.json")
    assert report.scenarios > 0
