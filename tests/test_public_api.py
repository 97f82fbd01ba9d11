"""The public surface: an explicit, sorted __all__ pinned here."""

from __future__ import annotations

import pytest

import agent_control_plane_core as acp
from agent_control_plane_core import adapters, cli, contract, hooks, runtime, schemas

PUBLIC = [
    "ABSENT",
    "AGENT_IDS",
    "CONTROL_PLANE_SCHEMA",
    "MODELED_TOOLS",
    "MODELED_TOOL_INPUT_KEYS",
    "SCHEMA_VERSION",
    "Adapter",
    "ConformanceError",
    "ConformanceReport",
    "Decisions",
    "EventKinds",
    "EventMeta",
    "IntegrationModes",
    "NativeResponse",
    "ToolCallEvent",
    "Verdict",
    "adapter_for",
    "assert_conforms",
    "create_codex_adapter",
    "make_event",
    "normalize_verdict",
    "run_adapter_conformance",
    "sanitize_verdict",
]


def test_package_all_is_pinned() -> None:
    assert acp.__all__ == PUBLIC


RUNTIME = [
    "AUDIT_ENV",
    "CODEX_VERSION_ENV",
    "FAIL_CLOSED_ENV",
    "JUDGE_ENV",
    "ON_UNRENDERED_ENV",
    "POLICY_DIGEST_ENV",
    "POLICY_ENV",
    "SOLE_GATE_ENV",
    "TIMEOUT_ENV",
    "HookAnswer",
    "Judge",
    "JudgeLoadError",
    "demo_judge",
    "emit",
    "entry_adapter",
    "escalate",
    "failure_response",
    "judge_from_env",
    "load_judge",
    "read_stdin",
    "render_escalated",
    "render_hook_response",
    "run_hook_entry",
]


def _isort_key(name: str) -> tuple[int, str]:
    return (0 if name.isupper() else 1 if name[0].isupper() else 2, name)


def test_runtime_all_is_pinned() -> None:
    assert runtime.__all__ == RUNTIME
    # One acp-<agent>-hook entry per declared host, so a new host needs no edit in hooks.py.
    assert hooks.__all__ == sorted(["main_for", *(f"{agent}_main" for agent in adapters.AGENT_IDS)])
    assert {"claude_main", "codex_main", "amp_main", "gemini_main"} <= set(hooks.__all__)
    with pytest.raises(AttributeError):
        hooks.nohost_main  # noqa: B018


def test_a_declared_host_without_a_written_entry_still_gets_its_hook_entry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A host scaffolded from its declaration alone: hooks.py resolves <agent>_main by itself.
    monkeypatch.setattr(hooks, "HOST_IDS", (*hooks.HOST_IDS, "sample"))
    ran: list[str] = []
    monkeypatch.setattr(hooks, "main_for", ran.append)
    entry = hooks.sample_main
    assert entry.__doc__ == "acp-sample-hook."
    entry()
    assert ran == ["sample"]


def test_every_exported_name_exists() -> None:
    for module in (acp, adapters, cli, contract, hooks, runtime, schemas):
        for name in module.__all__:
            assert hasattr(module, name), f"{module.__name__}.{name}"


def test_submodule_all_lists_are_sorted() -> None:
    for module in (adapters, cli, contract, hooks, runtime, schemas):
        # isort style, as ruff keeps them: CONSTANTS, then Classes, then functions.
        assert module.__all__ == sorted(module.__all__, key=_isort_key), module.__name__


def test_versions_are_pinned() -> None:
    assert acp.SCHEMA_VERSION == 1
    assert acp.CONTROL_PLANE_SCHEMA == "control-plane/v1"
    assert acp.MODELED_TOOLS == ("Bash", "Edit", "Write", "Read", "WebFetch")
    assert acp.MODELED_TOOL_INPUT_KEYS["WebFetch"] == "url"


def test_conformance_kit_loads_lazily_from_the_top_level() -> None:
    import subprocess
    import sys

    code = (
        "import sys, agent_control_plane_core as a;"
        "print('agent_control_plane_core.conformance' in sys.modules);"
        "from agent_control_plane_core import run_adapter_conformance;"
        "print(run_adapter_conformance.__module__)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "agent_control_plane_core.conformance"]
