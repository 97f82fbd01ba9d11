"""The built wheel ships the schema documents byte-equal to schema/ and the typing marker."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from conftest import REPO


def test_wheel_ships_every_schema_document_byte_equal(tmp_path: Path) -> None:
    # Build from a copy: an in-tree build leaves build/ and *.egg-info in the checkout.
    source = tmp_path / "src"
    shutil.copytree(
        REPO,
        source,
        # Coverage data files come and go while other test processes run (pytest-xdist).
        ignore=shutil.ignore_patterns(
            ".git", ".venv", "build", "*.egg-info", "__pycache__", ".*cache", ".coverage*"
        ),
    )
    dist = tmp_path / "dist"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(dist),
            str(source),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = dist.glob("agent_control_plane_core-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        sources = sorted((REPO / "schema").rglob("*.json"))
        assert len(sources) >= 10
        for source in sources:
            inside = (
                "agent_control_plane_core/schema/" + source.relative_to(REPO / "schema").as_posix()
            )
            assert inside in names, inside
            assert archive.read(inside) == source.read_bytes(), inside
        assert "agent_control_plane_core/py.typed" in names
        # The golden fixtures too (issue 31): acp fixtures-path serves them from an install.
        for golden in sorted((REPO / "schema/control-plane/v1/hosts").glob("*.json")):
            inside = f"agent_control_plane_core/fixtures/{golden.name}"
            assert archive.read(inside) == (REPO / "fixtures" / golden.name).read_bytes(), inside
        assert "agent_control_plane_core/_generated/models/tool_call_event_schema.py" in names
        assert not any(name.startswith(("tests/", "codegen/")) for name in names)


def test_license_and_changelog_match_the_package_and_the_contract() -> None:
    # N28: pyproject's license has its text, and the changelog has an entry for this release.
    import tomllib

    from agent_control_plane_core import CONTROL_PLANE_SCHEMA, SCHEMA_VERSION

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert (
        (REPO / "LICENSE").read_text(encoding="utf-8").startswith(f"{project['license']} License")
    )
    headings = [
        line
        for line in (REPO / "CHANGELOG.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("## ")
    ]
    assert headings, "CHANGELOG.md has no release heading"
    assert f"package {project['version']}," in headings[0]
    assert f"contract {CONTROL_PLANE_SCHEMA}, schema_version {SCHEMA_VERSION}" in headings[0]
