"""`acp new-adapter NAME`: a new host's declaration, adapter, fixture and test, from templates."""

from __future__ import annotations

import re
from pathlib import Path

from codegen.driver import PACKAGE, REPO, SCHEMA_SUBDIR, _enums, _environment, _load

SCAFFOLD = Path("templates/scaffold")
# (template, path of the file it becomes, relative to the repository root)
FILES = (
    ("host.json.j2", str(SCHEMA_SUBDIR / "hosts" / "{name}.json")),
    ("adapter.py.j2", str(PACKAGE / "adapters" / "{name}.py")),
    ("fixture.json.j2", "fixtures/{name}.json"),
    ("test_adapter.py.j2", "tests/test_adapter_{name}.py"),
)
# host.schema.json: the agent id pattern.
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


class ScaffoldError(ValueError):
    """A name or target the skeleton cannot be written for; the message says what to change."""


def render_skeleton(name: str, root_src: Path = REPO) -> dict[Path, str]:
    """The skeleton files for a host, by path relative to the repository root."""
    if not _NAME.match(name):
        raise ScaffoldError(
            f"host name {name!r} must match {_NAME.pattern} (lowercase, digits, underscores)"
        )
    schema_dir = root_src / SCHEMA_SUBDIR
    if not schema_dir.is_dir():
        raise ScaffoldError(f"{root_src} is not a source checkout (no {SCHEMA_SUBDIR})")
    documents = {p.name: _load(p) for p in sorted(schema_dir.glob("*.schema.json"))}
    enums = {e["name"]: e["values"] for e in _enums(documents)}
    statuses, modes = enums["CoverageStatus"], enums["IntegrationMode"]
    # The conservative reading everywhere (docs/adapter-authoring.md): nothing proven, nothing claimed.
    unknown = "unknown" if "unknown" in statuses else statuses[-1]
    context = {
        "name": name,
        "title": name.replace("_", " ").title(),
        "class_name": "".join(part.title() for part in name.split("_")) + "Adapter",
        "event_kinds": enums["EventKind"],
        "call_classes": enums["CallClass"],
        "content_fields": sorted(enums["ContentField"]),
        "unknown_status": unknown,
        "integration_mode": "external_hook" if "external_hook" in modes else modes[0],
    }
    env = _environment(root_src, SCAFFOLD)
    return {
        Path(target.format(name=name)): env.get_template(template).render(**context)
        for template, target in FILES
    }


def write_skeleton(name: str, root: Path = REPO) -> list[Path]:
    """Write the skeleton into a checkout; refuse to overwrite any file that exists."""
    files = render_skeleton(name, root)
    existing = [str(path) for path in files if (root / path).exists()]
    if existing:
        raise ScaffoldError(
            f"{name} already has {', '.join(existing)}; pick another name or remove them first"
        )
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    return [*sorted(files), *_register_console_script(name, root)]


def _register_console_script(name: str, root: Path) -> list[Path]:
    """Add acp-NAME-hook to pyproject [project.scripts], in sorted place; hooks.py needs no edit."""
    pyproject = root / "pyproject.toml"
    if not pyproject.is_file():
        return []
    lines = pyproject.read_text(encoding="utf-8").splitlines(keepends=True)
    entry = f'acp-{name}-hook = "agent_control_plane_core.hooks:{name}_main"\n'
    if entry in lines or "[project.scripts]\n" not in lines:
        return []
    start = lines.index("[project.scripts]\n") + 1
    end = start
    while end < len(lines) and lines[end].strip() and not lines[end].startswith("["):
        end += 1
    hooks = [i for i in range(start, end) if lines[i].startswith("acp-")]
    at = next((i for i in hooks if lines[i] > entry), end)
    lines.insert(at, entry)
    pyproject.write_text("".join(lines), encoding="utf-8")
    return [Path("pyproject.toml")]
