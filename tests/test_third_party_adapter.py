"""An adapter shipped outside this package: registered, found by acp and the hooks, conformance-checked (N21)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_control_plane_core import ConformanceError, adapter_for, adapters, assert_conforms
from agent_control_plane_core.adapters import ENTRY_POINT_GROUP, register_adapter

from conftest import REPO
from hook_runner import BIN, PRE_TOOL, hook_env

# What a third party writes: a host that speaks Claude Code's protocol under its own id.
ACME = textwrap.dedent(
    '''\
    """Acme: Claude Code's hook protocol under its own agent id."""

    from dataclasses import replace

    from agent_control_plane_core import adapter_for


    class AcmeAdapter:
        """The Adapter protocol by delegation, without the package's generated declarations."""

        def __init__(self, inner=None, drop_denies=False):
            self._inner = inner or adapter_for("claude")
            self._drop_denies = drop_denies
            self.AGENT = "acme"
            for name in (
                "INTEGRATION_MODE", "COVERAGE", "UNRENDERED_FIELDS", "NATIVE_ASK_TIER",
                "NATIVE_EVENT_FOR", "DEFAULT_BLOCK_REASON", "FAILURE_EXIT_CODE", "TOOL_ALIASES",
            ):
                setattr(self, name, getattr(self._inner, name))

        def parse(self, native):
            event = self._inner.parse(native)
            return replace(event, meta=replace(event.meta, agent=self.AGENT))

        def render(self, verdict, event, *, sole_gate=False):
            if self._drop_denies and verdict.decision == "deny":
                verdict = replace(verdict, decision="allow")
            inner = replace(event, meta=replace(event.meta, agent=self._inner.AGENT))
            return self._inner.render(verdict, inner, sole_gate=sole_gate)

        def configure(self, **options):
            return AcmeAdapter(self._inner.configure(**options), self._drop_denies)


    acme_adapter = AcmeAdapter()
    broken_adapter = AcmeAdapter(drop_denies=True)
    '''
)


def _acme_fixtures() -> dict[str, Any]:
    """Claude's golden file, as the Acme package would ship it for its own id."""
    data = json.loads((REPO / "fixtures" / "claude.json").read_text(encoding="utf-8"))
    data["agent"] = "acme"
    for case in data["cases"]:
        case["event"]["meta"]["agent"] = "acme"
    return data


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A site folder holding the Acme module and its distribution's entry point."""
    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "acme_host.py").write_text(ACME, encoding="utf-8")
    info = folder / "acme_host-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-host\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        f"[{ENTRY_POINT_GROUP}]\nacme = acme_host:acme_adapter\n"
    )
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.setattr(adapters, "_REGISTERED", {})
    yield folder
    sys.modules.pop("acme_host", None)


def test_a_registered_adapter_is_found_and_passes_conformance(site: Path) -> None:
    import acme_host

    register_adapter(acme_host.acme_adapter)
    assert adapter_for("acme") is acme_host.acme_adapter
    assert_conforms(adapter_for("acme"), _acme_fixtures())
    # The kit really checks a third-party adapter: one that drops denies fails.
    with pytest.raises(ConformanceError):
        assert_conforms(acme_host.broken_adapter, _acme_fixtures())
    with pytest.raises(ValueError, match="shipped adapter"):
        register_adapter(adapter_for("claude"))


def test_the_entry_point_group_is_read_only_for_an_id_nothing_shipped_has(site: Path) -> None:
    adapter = adapter_for("acme")
    assert adapter.AGENT == "acme" and adapter is adapter_for("acme")
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        adapter_for("nobody")


def test_acp_and_the_hook_entry_run_an_entry_point_adapter(site: Path) -> None:
    env = hook_env("claude", PYTHONPATH=f"{site}:{hook_env('claude')['PYTHONPATH']}")
    payload = json.dumps(PRE_TOOL["claude"])
    parsed = subprocess.run(
        [str(BIN / "acp"), "parse", "--agent", "acme"],
        input=payload,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert parsed.returncode == 0, parsed.stderr
    assert json.loads(parsed.stdout)["meta"]["agent"] == "acme"
    # `acp hook acme` is the hook entry; the demo judge blocks the rm -rf call.
    hook = subprocess.run(
        [str(BIN / "acp"), "hook", "acme"],
        input=payload,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert hook.returncode == 2, hook.stderr
    assert json.loads(hook.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    unknown = subprocess.run(
        [str(BIN / "acp"), "parse", "--agent", "nobody"],
        input=payload,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert unknown.returncode == 2 and "unknown agent 'nobody'" in unknown.stderr
