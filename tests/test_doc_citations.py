"""Every document the code and the docs cite is in the repository (N26, issue 25)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from conftest import REPO

# What ships or is read by a user of the checkout; generated files repeat the schema's text.
TREES = ("python/agent_control_plane_core", "schema", "codegen", "templates", "examples", "tests")
TOP = ("README.md", "CHANGELOG.md", "pyproject.toml", "Makefile")
# Research sheets kept outside the repository: nothing may send a reader to them.
NOT_SHIPPED = ("host-protocols.md", "hostaudit-3.md", "redteam-3.md")
# The folder beside a clone that once held research notes and test data, and the notes' names: no
# file of the repository may cite them. Built from pieces so that this file does not match either.
OUTSIDE = re.compile(
    "|".join(
        (
            r"\.\./" + "shared",
            "host-" + "findings",
            "hardening-" + "findings",
            "ACP_" + "SHARED_DIR",
            "shared/" + "reference",
        )
    )
)
# Where a citation of a finding may appear: what ships, and the lab, bench, fixtures and docs.
CITING_TREES = (*TREES, "lab", "bench", "fixtures", "docs", *TOP)
# The id families of docs/findings.md: one host or topic prefix and a number or an upper-case
# tag (CC-2, CX-OK, TN-FD, LAB-PASS, HELD-DRIFT), or a hardening letter and a number (H4, L12, N13);
# the third red team's ids carry their own prefix (RT3-H1, RT3-M5, RT3-FP).
FAMILIES = (
    "CC", "CX", "GM", "AMP", "CUR", "CP", "FD", "QW", "KR", "XH", "LIB",
    "TN", "LAB", "SRC", "AG", "PF", "PN", "HELD",
)  # fmt: skip
CITATION = re.compile(
    rf"(?<![\w-])((?:{'|'.join(FAMILIES)})-(?:[0-9]+|[A-Z]{{2,}})|RT3-(?:[HML][0-9]{{1,2}}|[A-Z]{{2,}})"
    rf"|[HMLRN][0-9]{{1,2}})(?![\w-])"
)
# docs/findings.md: every entry is a heading `### ID: title`.
FINDING_HEADING = re.compile(r"^#{2,4} ([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)?): ", re.MULTILINE)
# A section sign is a citation of docs/contract.md (or of semver); any other one named a section
# of a document outside the repository.
SECTION = re.compile(r"(?:§|\\u00a7)\d")
SECTION_OF_OURS = re.compile(
    r"(?:contract\.md`? \\?|semver )(?:§|\\u00a7)\d+(?:\.\d+)*"
    r"(?:(?:, | and | or )(?:§|\\u00a7)\d+)*"
)


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
    # Host declarations cite upstream repositories' own docs/ files, and the packaged copy of the
    # golden fixtures holds host payloads (patches that add docs files): neither names our pages.
    packaged = REPO / "python" / "agent_control_plane_core" / "fixtures"
    ours = {
        p: t
        for p, t in _texts().items()
        if "control-plane" not in p.parts and not p.is_relative_to(packaged)
    }
    named = {
        (str(path.relative_to(REPO)), page)
        for path, text in ours.items()
        for page in re.findall(r"(?<![\w./-])docs/([\w-]+\.md)", text)
    }
    assert named, "no docs/ page is named anywhere"
    assert (
        sorted((where, page) for where, page in named if not (REPO / "docs" / page).is_file()) == []
    )


def _files(*trees: str) -> list[Path]:
    """The repository's files under trees (all when none): tracked or new, never git-ignored."""
    argv = ["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others", "--exclude-standard"]
    try:
        listed = subprocess.run([*argv, "--", *trees], capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):  # not a git checkout: walk the trees
        roots = [REPO / tree for tree in trees] or [REPO]
        paths = [p for root in roots for p in (root.rglob("*") if root.is_dir() else [root])]
    else:
        paths = [REPO / name for name in listed.decode().split("\0") if name]
    return sorted(p for p in set(paths) if p.is_file() and "__pycache__" not in p.parts)


def _read(paths: list[Path]) -> dict[str, str]:
    texts = {}
    for path in paths:
        try:
            texts[str(path.relative_to(REPO))] = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
    return texts


def test_no_file_cites_the_folder_beside_the_clone_or_its_notes() -> None:
    texts = _read(_files())
    assert len(texts) > 200  # the whole repository was read
    cited = sorted(
        f"{where}:{text.count(chr(10), 0, match.start()) + 1}: {match.group()}"
        for where, text in texts.items()
        for match in OUTSIDE.finditer(text)
    )
    assert cited == []


def _finding_ids() -> set[str]:
    return set(FINDING_HEADING.findall((REPO / "docs/findings.md").read_text(encoding="utf-8")))


def test_every_cited_finding_is_a_heading_of_docs_findings_md() -> None:
    ids = _finding_ids()
    cited = [
        (where, text.count("\n", 0, match.start()) + 1, match.group(1))
        for where, text in _read(_files(*CITING_TREES)).items()
        for match in CITATION.finditer(text)
    ]
    missing = sorted(f"{where}:{line}: {ident}" for where, line, ident in cited if ident not in ids)
    # The pattern does find the citations: hundreds of them, in code, schemas, fixtures and docs.
    assert len(cited) > 500 and len({ident for _, _, ident in cited}) > 150
    assert {"python", "schema", "fixtures", "docs", "tests"} <= {
        w.split("/")[0] for w, _, _ in cited
    }
    assert missing == []


def test_findings_headings_are_unique_and_every_family_has_entries() -> None:
    text = (REPO / "docs/findings.md").read_text(encoding="utf-8")
    headings = FINDING_HEADING.findall(text)
    assert len(headings) == len(set(headings)) and len(headings) > 200
    families = {re.match(r"[A-Z]+", ident).group() for ident in headings}  # type: ignore[union-attr]
    assert set(FAMILIES) | {"H", "M", "L", "R", "N"} <= families
    # Every entry heading is in the one format the citation check reads.
    assert all(
        FINDING_HEADING.match(line + " ") or not line.startswith("### ")
        for line in text.splitlines()
    )


def test_every_section_sign_cites_docs_contract_md() -> None:
    stray = sorted(
        f"{where}:{text.count(chr(10), 0, match.start()) + 1}"
        for where, text in _read(_files(*CITING_TREES)).items()
        for match in SECTION.finditer(SECTION_OF_OURS.sub("", text))
    )
    assert stray == []
