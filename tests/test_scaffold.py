"""`acp new-adapter`: the skeleton is pinned, conservative, and fails conformance until filled in."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codegen.scaffold import ScaffoldError, render_skeleton, write_skeleton

from conftest import REPO

GOLDEN = REPO / "tests" / "golden" / "new-adapter-sample"


def test_skeleton_for_sample_matches_the_golden_files() -> None:
    files = render_skeleton("sample")
    golden = {
        path.relative_to(GOLDEN).with_suffix(""): path.read_text(encoding="utf-8")
        for path in GOLDEN.rglob("*.golden")
    }
    assert {path: files[path] for path in files} == golden


def test_skeleton_declaration_has_a_row_for_every_kind_and_class_and_claims_nothing() -> None:
    declaration = json.loads(
        render_skeleton("sample")[Path("schema/control-plane/v1/hosts/sample.json")]
    )
    event_schema = json.loads(
        (REPO / "schema/control-plane/v1/tool-call-event.schema.json").read_text()
    )
    host_schema = json.loads((REPO / "schema/control-plane/v1/host.schema.json").read_text())
    assert list(declaration["unrendered_fields"]) == event_schema["$defs"]["EventKind"]["enum"]
    assert list(declaration["coverage"]) == host_schema["$defs"]["CallClass"]["enum"]
    assert declaration["gated_kinds"] == []
    assert set(declaration["coverage"].values()) == {"unknown"}
    assert declaration["native_ask_tier"] is False


@pytest.mark.parametrize("name", ["Cursor", "1host", "my-host", ""])
def test_a_name_that_is_not_a_host_id_is_refused(name: str) -> None:
    with pytest.raises(ScaffoldError, match="must match"):
        render_skeleton(name)


def test_existing_files_are_never_overwritten(tmp_path: Path) -> None:
    with pytest.raises(ScaffoldError, match="already has"):
        write_skeleton("claude")
    assert (REPO / "fixtures" / "claude.json").read_text().startswith("{")


def _checkout_copy(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    for folder in ("schema", "codegen", "templates", "python", "fixtures"):
        shutil.copytree(
            REPO / folder,
            root / folder,
            ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "golden"),
        )
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    return root


def test_untouched_skeleton_generates_and_fails_conformance_as_vacuous(tmp_path: Path) -> None:
    root = _checkout_copy(tmp_path)
    written = write_skeleton("sample", root)
    # The four files and the console script: hooks.py resolves sample_main by itself.
    assert len(written) == 5 and Path("pyproject.toml") in written
    scripts = (root / "pyproject.toml").read_text().split("[project.scripts]")[1].split("\n\n")[0]
    hooks = [line for line in scripts.splitlines() if line.startswith("acp-")]
    assert 'acp-sample-hook = "agent_control_plane_core.hooks:sample_main"' in hooks
    assert hooks == sorted(hooks)
    # The declaration passes the generator's lint and becomes a generated host module.
    subprocess.run([sys.executable, "-m", "codegen"], cwd=root, check=True, capture_output=True)
    probe = (
        "from agent_control_plane_core import AGENT_IDS, adapter_for, assert_conforms, ConformanceError\n"
        "assert 'sample' in AGENT_IDS, AGENT_IDS\n"
        "try:\n"
        "    assert_conforms(adapter_for('sample'), 'fixtures/sample.json')\n"
        "except ConformanceError as error:\n"
        "    print(error.rule)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=root,
        env={"PYTHONPATH": str(root / "python"), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.strip() == "vacuous-suite"


def test_a_directory_that_is_not_a_checkout_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(ScaffoldError, match="is not a source checkout"):
        write_skeleton("sample", tmp_path)


def test_the_scaffold_refers_only_to_files_in_the_repository() -> None:
    # N26: every docs/... path the templates and the printed steps name exists.
    import re

    texts = [p.read_text() for p in (REPO / "templates" / "scaffold").glob("*.j2")]
    texts += [p.read_text() for p in (REPO / "python/agent_control_plane_core/cli").glob("*.py")]
    texts.append((REPO / "codegen/scaffold.py").read_text())
    named = {m for text in texts for m in re.findall(r"\bdocs/[\w.-]+\.md", text)}
    assert named, "the scaffold points to the authoring guide"
    assert [name for name in sorted(named) if not (REPO / name).is_file()] == []
    assert not any("host-protocols.md" in text for text in texts)


def test_new_adapter_command_writes_the_skeleton(tmp_path: Path) -> None:
    root = _checkout_copy(tmp_path)
    acp = Path(sys.executable).parent / "acp"
    result = subprocess.run(
        [str(acp), "new-adapter", "sample", "--root", str(root)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert "fixtures/sample.json" in result.stdout
    assert (root / "python/agent_control_plane_core/adapters/sample.py").exists()
    again = subprocess.run(
        [str(acp), "new-adapter", "sample", "--root", str(root)], capture_output=True, text=True
    )
    assert again.returncode == 2
    assert "already has" in again.stderr
