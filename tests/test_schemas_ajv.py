"""Every published schema loads and validates from Node with Ajv's draft 2020-12 build, strict mode."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from agent_control_plane_core import NativeResponse, ToolCallEvent, Verdict, schemas
from agent_control_plane_core.audit import hook_record

REPO = Path(__file__).resolve().parent.parent
AJV = REPO / "tools" / "ajv"
SCHEMA_DIR = Path(str(schemas.schema_path("verdict"))).parent


def _install_ajv() -> None:
    """npm ci into the git-ignored tools/ajv/node_modules from the committed lockfile, once."""
    if (AJV / "node_modules" / "ajv" / "package.json").exists():
        return
    npm = shutil.which("npm")
    assert npm is not None, "npm is needed for the Ajv schema test (node 20 ships it)"
    print("installing Ajv from tools/ajv/package-lock.json ...", file=sys.stderr)
    subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=AJV, check=True)


def _cases() -> list[dict[str, Any]]:
    """Valid instances of every schema, each with an invalid twin so a lenient loader fails."""
    cases: list[dict[str, Any]] = []

    def add(schema: str, name: str, instance: object) -> None:
        cases.append({"schema": schema, "name": name, "instance": instance, "valid": True})

    for fixture in sorted((REPO / "fixtures").glob("*.json")):
        if fixture.name in ("fixture.schema.json", "divergences.json"):
            continue
        document = json.loads(fixture.read_text(encoding="utf-8"))
        add("fixture", fixture.name, document)
        for case in document["cases"][:3]:
            label = f"{fixture.stem}: {case['name']}"
            add("tool-call-event", label, case["event"])
            for answer, render in case["render"].items():
                add("verdict", f"{label} ({answer})", render["verdict"])
                add("native-response", f"{label} ({answer})", render["native"])
            event = ToolCallEvent.from_dict(case["event"])
            first = next(iter(case["render"].values()))
            verdict = Verdict.from_dict(first["verdict"])
            response = NativeResponse.from_dict(first["native"])
            record = hook_record(
                agent=fixture.stem, event=event, verdict=verdict, response=response, duration_ms=1.0
            )
            add("audit-record", label, record)
    for host in sorted((SCHEMA_DIR / "hosts").glob("*.json")):
        add("host", host.name, json.loads(host.read_text(encoding="utf-8")))
    policy = tomllib.loads((REPO / "examples" / "policy.toml").read_text(encoding="utf-8"))
    add("policy", "examples/policy.toml", policy)
    for schema in sorted({case["schema"] for case in cases}):
        cases.append({"schema": schema, "name": "a number", "instance": 42, "valid": False})
    return cases


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    node = shutil.which("node")
    assert node is not None, "node is needed for the Ajv schema test"
    _install_ajv()
    done = subprocess.run(
        [node, str(AJV / "check.mjs"), str(SCHEMA_DIR)],
        input=json.dumps(_cases()),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, f"Ajv refused the installed schemas: {done.stderr}"
    loaded: dict[str, Any] = json.loads(done.stdout)
    return loaded


def test_ajv_strict_compiles_every_installed_schema(report: dict[str, Any]) -> None:
    assert sorted(report["compiled"]) == sorted(schemas.SCHEMA_NAMES)


def test_ajv_agrees_with_every_instance(report: dict[str, Any]) -> None:
    wrong = [r for r in report["results"] if r["valid"] != r["expected"]]
    assert not wrong, "\n".join(
        f"{r['schema']} / {r['name']}: Ajv says valid={r['valid']} ({r['errors']})" for r in wrong
    )
    assert {r["schema"] for r in report["results"]} == set(schemas.SCHEMA_NAMES)
