"""acp conformance --exec: the kit over JSON Lines, the TypeScript reference adapter, its mutants."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from test_conformance_mutants import MUTANTS, Mutant, _suite_for
from toolchains import REPO, typescript_build

from agent_control_plane_core import AGENT_IDS
from agent_control_plane_core.cli import main
from agent_control_plane_core.cli._ports import fixture_path
from agent_control_plane_core.conformance import (
    ConformanceError,
    load_fixtures,
    run_adapter_conformance,
)
from agent_control_plane_core.conformance._external import (
    ExecAdapter,
    ExecFailure,
    run_exec_conformance,
    serve_adapter,
)

EXAMPLE = REPO / "examples" / "typescript-adapter"
PYTHON_SERVER = [
    sys.executable,
    "-c",
    "import sys; from agent_control_plane_core import adapter_for;"
    " from agent_control_plane_core.conformance._external import serve_adapter;"
    " serve_adapter(adapter_for(sys.argv[1]), sys.stdin, sys.stdout)",
]
CLAUDE_MUTANTS = [m for m in MUTANTS if m.agent == "claude"]


@pytest.fixture(scope="module")
def reference_adapter() -> list[str]:
    """examples/typescript-adapter compiled with tsc --strict (toolchains.typescript_build)."""
    project, problems = typescript_build()
    assert problems == ""
    return ["node", str(project / "out" / "claude.js")]


def acp(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("agent", AGENT_IDS)
def test_fixtures_path_prints_the_installed_byte_copy(
    capsys: pytest.CaptureFixture[str], agent: str
) -> None:
    code, out, _ = acp(capsys, "fixtures-path", agent)
    assert code == 0
    assert Path(out.strip()).read_bytes() == (REPO / "fixtures" / f"{agent}.json").read_bytes()
    assert str(fixture_path(agent)) == out.strip()


def test_fixtures_path_names_the_hosts_for_an_unknown_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = acp(capsys, "fixtures-path", "nohost")
    assert code == 2
    assert "no fixture file for agent 'nohost': choose one of amp," in err


def test_the_typescript_reference_adapter_passes_the_whole_kit(
    capsys: pytest.CaptureFixture[str], reference_adapter: list[str]
) -> None:
    code, out, err = acp(capsys, "conformance", "--agent", "claude", "--exec", *reference_adapter)
    assert code == 0, err
    summary = json.loads(out)
    assert summary["conforms"] and summary["agent"] == "claude"
    assert summary["cases"] == len(load_fixtures(REPO / "fixtures" / "claude.json")["cases"])


def test_a_python_adapter_served_over_the_protocol_conforms(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = acp(
        capsys, "conformance", "--agent", "gemini", "--exec", *PYTHON_SERVER, "gemini"
    )
    assert code == 0, err
    assert json.loads(out)["agent"] == "gemini"
    code, out, err = acp(capsys, "conformance", "--agent", "gemini")  # the built-in adapter
    assert code == 0, err


def test_the_wrong_adapter_fails_by_rule_name(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = acp(capsys, "conformance", "--agent", "claude", "--exec", *PYTHON_SERVER, "qwen")
    assert code == 1
    assert "conformance rule 'fixture-agent' failed in case '<file: claude>'" in err


def _child(tmp_path: Path, body: str) -> list[str]:
    """A small Python adapter program: it declares claude, then does what body says."""
    script = tmp_path / "child.py"
    script.write_text(
        "import json, sys, time\n"
        "from agent_control_plane_core import adapter_for\n"
        "from agent_control_plane_core.conformance._external import declaration_of\n"
        "DECL = declaration_of(adapter_for('claude'))\n"
        "for n, line in enumerate(sys.stdin):\n"
        "    request = json.loads(line)\n"
        "    def reply(**answer):\n"
        "        print(json.dumps({'id': request['id'], **answer}), flush=True)\n"
        f"{body}"
    )
    return [sys.executable, str(script)]


CHILDREN = {
    "exec-crashed": "    if request['op'] == 'declare': reply(declaration=DECL)\n    else: sys.exit(3)\n",
    "exec-timeout": "    if request['op'] == 'declare': reply(declaration=DECL)\n    else: time.sleep(3600)\n",
    "exec-garbage": "    if request['op'] == 'declare': reply(declaration=DECL)\n    else: print('hello', flush=True)\n",
    "exec-answer-shape": "    if request['op'] == 'declare': reply(declaration=DECL)\n    else: reply(event={'tool': 1})\n",
}


@pytest.mark.parametrize("rule", sorted(CHILDREN))
def test_a_child_that_crashes_hangs_or_prints_garbage_fails_by_name(
    tmp_path: Path, rule: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    fixtures = load_fixtures(fixture_path("claude"))  # type: ignore[arg-type]
    # Only the child that never answers may reach the timeout: the others answer, or end, at
    # once, but a loaded machine (and coverage saving its data at exit) can take seconds to.
    timeout = 1 if rule == "exec-timeout" else 60
    if rule == "exec-timeout":
        start = ExecAdapter.start.__func__  # type: ignore[attr-defined]

        def declared_then_short(cls: type[ExecAdapter], command: Any, timeout: float) -> Any:
            # The child's start-up (the declaration) has time; only the parse request is timed.
            adapter = start(cls, command, 60)
            adapter.channel.timeout = timeout
            return adapter

        monkeypatch.setattr(ExecAdapter, "start", classmethod(declared_then_short))
    with pytest.raises(ExecFailure) as raised:
        run_exec_conformance(_child(tmp_path, CHILDREN[rule]), fixtures, timeout=timeout)
    assert raised.value.rule == rule
    assert f"conformance protocol rule {rule!r} failed: request parse #2" in str(raised.value)
    if rule == "exec-crashed":
        assert "exit code 3" in str(raised.value)


@pytest.mark.parametrize(
    ("body", "rule", "text"),
    [
        ("    reply(declaration={'agent': 'claude'})\n", "exec-answer-shape", "needs at least"),
        ("    print(json.dumps({'id': 99}), flush=True)\n", "exec-garbage", "with id 1"),
        ("    reply(nothing=1)\n", "exec-garbage", "has neither 'declaration'"),
        ("    sys.exit(0)\n", "exec-crashed", "ended without answering"),
    ],
)
def test_a_child_that_cannot_declare_fails_at_start(
    tmp_path: Path, body: str, rule: str, text: str
) -> None:
    with pytest.raises(ExecFailure) as raised:
        ExecAdapter.start(_child(tmp_path, body), timeout=3)
    assert raised.value.rule == rule and text in str(raised.value)


def test_a_command_that_does_not_start_fails_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = acp(capsys, "conformance", "--agent", "claude", "--exec", "/nonexistent/adapter")
    assert code == 1
    assert "conformance protocol rule 'exec-start' failed" in err


def test_an_option_the_child_refuses_is_a_type_error(reference_adapter: list[str]) -> None:
    adapter = ExecAdapter.start(reference_adapter)
    try:
        assert adapter.configure(claude_version="2.1.332").AGENT == "claude"
        with pytest.raises(TypeError, match="option codex_version is not taken"):
            adapter.configure(codex_version="1")
    finally:
        adapter.close()


@pytest.mark.parametrize("mutant", CLAUDE_MUTANTS, ids=[m.id for m in CLAUDE_MUTANTS])
def test_each_mutant_of_the_reference_adapter_fails_by_rule_name(
    reference_adapter: list[str], mutant: Mutant
) -> None:
    """The kit's own mutant set, each wrapping the TypeScript adapter answering over the protocol."""
    inner = ExecAdapter.start(reference_adapter)
    try:
        adapter: Any = mutant.wrap(inner) if mutant.wrap else inner  # type: ignore[arg-type]
        suite = _suite_for(mutant, adapter)
        with pytest.raises(ConformanceError) as raised:
            run_adapter_conformance(adapter, suite)
        assert raised.value.rule == mutant.rule, str(raised.value)
        assert raised.value.case == mutant.case, str(raised.value)
    finally:
        inner.close()


@pytest.mark.parametrize("mutant_id", ["ask-tier-not-bool", "foreign-agent", "no-resumed-class"])
def test_mutants_served_as_their_own_process_fail_through_acp_conformance(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, reference_adapter: list[str], mutant_id: str
) -> None:
    """Out of process end to end: acp conformance -> mutant proxy -> node adapter.

    (mutable-rows cannot go this way: every mapping that crosses the wire arrives read-only.)
    """
    mutant = next(m for m in MUTANTS if m.id == mutant_id)
    inner = ExecAdapter.start(reference_adapter)
    try:
        suite = _suite_for(mutant, mutant.wrap(inner) if mutant.wrap else inner)  # type: ignore[arg-type]
    finally:
        inner.close()
    (tmp_path / "suite.json").write_text(json.dumps(suite))
    proxy = [sys.executable, str(REPO / "tests" / "bindings" / "mutant_proxy.py"), mutant_id]
    code, _, err = acp(
        capsys,
        "conformance",
        "--agent",
        "claude",
        "--fixtures",
        str(tmp_path / "suite.json"),
        "--exec",
        *proxy,
        *reference_adapter,
    )
    assert code == 1
    assert f"conformance rule '{mutant.rule}' failed in case '{mutant.case}'" in err


def test_serve_adapter_answers_an_error_for_a_bad_request() -> None:
    import io

    from agent_control_plane_core import adapter_for

    out = io.StringIO()
    serve_adapter(adapter_for("claude"), io.StringIO('{"id": 1, "op": "render"}\n'), out)
    assert json.loads(out.getvalue()) == {"id": 1, "error": "KeyError: 'verdict'"}


def test_a_fixture_file_that_does_not_load_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "bad.json").write_text('{"agent": "claude"}')
    for source in (tmp_path / "missing.json", tmp_path / "bad.json"):
        code, _, err = acp(capsys, "conformance", "--agent", "claude", "--fixtures", str(source))
        assert code == 2 and err.startswith("acp conformance: ")
