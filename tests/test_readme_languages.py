"""The README's loader snippet for other languages runs as written against the installed documents."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from toolchains import REPO, npm_ci

from agent_control_plane_core import schemas

SNIPPET = re.compile(r"^```js readme-ajv (\S+)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
FOLDER = Path(str(schemas.schema_path("verdict"))).parent


@pytest.fixture(scope="module")
def script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    found = SNIPPET.search((REPO / "README.md").read_text(encoding="utf-8"))
    assert found is not None, "README.md lost its ```js readme-ajv block"
    where = tmp_path_factory.mktemp("ajv")
    (where / "node_modules").symlink_to(npm_ci("ajv"))
    path = where / found[1]
    path.write_text(found[2], encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("name", "instance", "printed"),
    [
        ("verdict", {"decision": "allow", "mutated_output": None}, "valid"),
        ("verdict", {"decision": "maybe"}, "data/decision must be equal to one of"),
        ("host", json.loads((FOLDER / "hosts" / "claude.json").read_text()), "valid"),
        ("tool-call-event", {"schema_version": 1}, "must have required property"),
    ],
)
def test_the_ajv_snippet_loads_every_document_once_and_validates(
    script: Path, tmp_path: Path, name: str, instance: object, printed: str
) -> None:
    node = shutil.which("node")
    assert node is not None
    data = tmp_path / "instance.json"
    data.write_text(json.dumps(instance), encoding="utf-8")
    done = subprocess.run(
        [node, str(script), str(FOLDER), name, str(data)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert printed in done.stdout, done.stderr
    assert done.returncode == (0 if printed == "valid" else 1)
