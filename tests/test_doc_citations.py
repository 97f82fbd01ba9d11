"""Every document the code and the docs cite is in the repository (N26)."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import REPO

# What ships or is read by a user of the checkout; generated files repeat the schema's text.
TREES = ("python/agent_control_plane_core", "schema", "codegen", "templates", "examples", "tests")
TOP = ("README.md", "CHANGELOG.md", "pyproject.toml", "Makefile")
# Research sheets kept outside the repository: nothing may send a reader to them.
NOT_SHIPPED = ("host-protocols.md",)


def _texts() -> dict[Path, str]:
    files = [REPO / name for name in TOP]
    files += [p for tree in TREES for p in (REPO / tree).rglob("*") if p.is_file()]
    files += list((REPO / "docs").glob("*.md"))
    texts = {}
    for path in files:
        if "__pycache__" in path.parts or path.suffix in {".pyc", ".png"}:
            continue
        try:
            texts[path] = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
    return texts


def test_no_file_cites_a_research_sheet_the_repository_does_not_ship() -> None:
    # This file and test_scaffold (which asserts the scaffold does not cite it) name it on purpose.
    checkers = {Path(__file__).resolve(), (REPO / "tests/test_scaffold.py").resolve()}
    cited = sorted(
        str(path.relative_to(REPO))
        for path, text in _texts().items()
        if path.resolve() not in checkers and any(name in text for name in NOT_SHIPPED)
    )
    assert cited == []


def test_every_contract_section_cited_is_a_section_of_docs_contract_md() -> None:
    headings = set(
        re.findall(r"^## (\d+)\.", (REPO / "docs/contract.md").read_text(), re.MULTILINE)
    )
    cited = [
        (str(path.relative_to(REPO)), number)
        for path, text in _texts().items()
        for number in re.findall(r"contract\.md \\?(?:§|\\u00a7)(\d+)", text)
    ]
    missing = sorted(f"{where}: §{number}" for where, number in cited if number not in headings)
    assert len(cited) > 20  # the code does cite it: the pattern finds the citations
    assert len(headings) == 10 and missing == []


def test_every_docs_page_named_exists() -> None:
    # Host declarations cite upstream repositories' own docs/ files; those are not ours.
    ours = {p: t for p, t in _texts().items() if "control-plane" not in p.parts}
    named = {
        (str(path.relative_to(REPO)), page)
        for path, text in ours.items()
        for page in re.findall(r"(?<![\w./-])docs/([\w-]+\.md)", text)
    }
    assert named, "no docs/ page is named anywhere"
    assert (
        sorted((where, page) for where, page in named if not (REPO / "docs" / page).is_file()) == []
    )
