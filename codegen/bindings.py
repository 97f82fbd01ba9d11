"""TypeScript and Go bindings from the schema documents: one type model, two jinja2 renderings."""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TS_OUT = Path("bindings/typescript")
GO_OUT = Path("bindings/go")
# The golden fixtures inside the package, so an installed user has the test vectors (issue 31).
PACKAGED_FIXTURES = Path("python/agent_control_plane_core/fixtures")
TS_TEMPLATES = Path("templates/typescript")
GO_TEMPLATES = Path("templates/go")
# The documents a port needs to parse, judge and render; the policy and audit formats are
# Python-side tools, validated by schema where another language reads them.
BOUND_DOCUMENTS = (
    "tool-call-event.schema.json",
    "verdict.schema.json",
    "native-response.schema.json",
    "host.schema.json",
)
# Go's lint spelling of the initialisms that occur in names.
_INITIALISMS = {"id": "ID", "url": "URL", "mcp": "MCP", "json": "JSON", "ms": "MS"}


@dataclass
class Field:
    """One property of an object type, in both languages."""

    name: str
    description: str
    required: bool
    ts: str
    go: str
    go_tag: str


@dataclass
class Shape:
    """A named type: an enumeration, a scalar or map alias, or an object."""

    name: str
    description: str
    source: str
    kind: str  # "enum", "alias" or "object"
    values: list[str] = field(default_factory=list)
    ts: str = ""
    go: str = ""
    fields: list[Field] = field(default_factory=list)


def go_name(snake: str) -> str:
    """A JSON name as an exported Go identifier (exit_code -> ExitCode, session_id -> SessionID)."""
    parts = re.split(r"[_\-.]", snake)
    return "".join(_INITIALISMS.get(p, p[:1].upper() + p[1:]) for p in parts if p)


def _ref_name(ref: str) -> str:
    """The type a $ref names: a $defs entry by its name, a whole document by its title."""
    if "#" in ref:
        return ref.rsplit("/", 1)[-1]
    return {"tool-call-event.schema.json": "ToolCallEvent", "verdict.schema.json": "Verdict"}[ref]


class _Model:
    """Walks the bound documents once; an inline object becomes a named type of its own."""

    def __init__(self, documents: Mapping[str, Any]) -> None:
        self.shapes: list[Shape] = []
        for name in BOUND_DOCUMENTS:
            doc = documents[name]
            for def_name, body in doc.get("$defs", {}).items():
                self._named(def_name, body, name)
            self._named(doc["title"], doc, name)

    def _named(self, name: str, body: Mapping[str, Any], source: str) -> None:
        description = body.get("description", "")
        if "enum" in body:
            shape = Shape(name, description, source, "enum", values=list(body["enum"]))
        elif "properties" in body:
            shape = Shape(name, description, source, "object")
            required = set(body.get("required", []))
            for prop, schema in body["properties"].items():
                shape.fields.append(self._field(name, prop, schema, prop in required))
        else:
            ts, go = self._types(name, body)
            shape = Shape(name, description, source, "alias", ts=ts, go=go)
        self.shapes.append(shape)

    def _field(self, owner: str, prop: str, schema: Mapping[str, Any], required: bool) -> Field:
        ts, go = self._types(owner + go_name(prop), schema)
        tag = prop
        if not required:
            # Absent and null stay apart (issue 31): a nil pointer or RawMessage is left out, a
            # nil slice or map too (omitzero), while an empty one ([] or {}) is kept.
            if go.startswith(("[]", "map[")):
                tag += ",omitzero"
            elif go == "json.RawMessage":
                tag += ",omitempty"
            else:
                go = go if go.startswith("*") else "*" + go
                tag += ",omitempty"
        return Field(prop, schema.get("description", ""), required, ts, go, tag)

    def _types(self, inline_name: str, schema: Mapping[str, Any]) -> tuple[str, str]:
        """The TypeScript and Go type expressions of one schema node."""
        if "$ref" in schema:
            name = _ref_name(schema["$ref"])
            return name, name
        if "const" in schema:
            value = schema["const"]
            return json.dumps(value), "int" if isinstance(value, int) else "string"
        kind = schema.get("type")
        if kind == ["string", "null"]:
            return "string | null", "*string"
        scalars = {"string": ("string", "string"), "boolean": ("boolean", "bool")}
        if kind in scalars:
            return scalars[kind]
        if kind == "integer":
            return "number", "int"
        if kind == "array":
            ts, go = self._types(inline_name + "Item", schema["items"])
            return f"{ts}[]", "[]" + go
        if kind == "object" and "properties" in schema:
            self._named(inline_name, schema, "")
            return inline_name, inline_name
        if kind == "object":
            value = schema.get("additionalProperties")
            ts_value, go_value = (
                self._types(inline_name + "Value", value)
                if isinstance(value, Mapping)
                else ("unknown", "json.RawMessage")
            )
            key = schema.get("propertyNames", {}).get("$ref")
            if key is not None:
                key_name = _ref_name(key)
                return f"{{ [K in {key_name}]?: {ts_value} }}", f"map[{key_name}]{go_value}"
            return f"{{ [key: string]: {ts_value} }}", f"map[string]{go_value}"
        return "unknown", "json.RawMessage"  # any JSON value, null included


def fixture_copy(root_src: Path) -> dict[Path, bytes]:
    """The packaged golden fixtures: a byte copy of fixtures/<host>.json for every declared host."""
    hosts = sorted((root_src / "schema/control-plane/v1/hosts").glob("*.json"))
    return {
        PACKAGED_FIXTURES / f"{host.stem}.json": (
            root_src / "fixtures" / f"{host.stem}.json"
        ).read_bytes()
        for host in hosts
    }


def _plural(name: str) -> str:
    return name + ("es" if name.endswith("s") else "s")


def _go_string(text: str) -> str:
    """A Go string literal: JSON's escapes (ensure_ascii off: only quotes, backslashes, controls) are Go's."""
    return json.dumps(text, ensure_ascii=False)


def _ts_doc(text: str) -> str:
    return text.replace("*/", "*\\/")


def binding_files(
    root_src: Path,
    environment: Callable[..., Any],
    header: Callable[..., str],
    context: Mapping[str, Any],
) -> dict[Path, bytes]:
    """Every generated TypeScript and Go file, keyed by its path relative to the repository root."""
    schema_dir = root_src / "schema/control-plane/v1"
    documents = {
        name: json.loads((schema_dir / name).read_text(encoding="utf-8"))
        for name in BOUND_DOCUMENTS
    }
    model = _Model(documents)
    hosts = context["hosts"]
    project = tomllib.loads((root_src / "pyproject.toml").read_text(encoding="utf-8"))
    data = {
        **context,
        "shapes": model.shapes,
        "binding_enums": [s for s in model.shapes if s.kind == "enum"],
        "agents": [h["agent"] for h in hosts],
        "host_json": {
            h["agent"]: json.dumps(h, ensure_ascii=False, separators=(",", ":")) for h in hosts
        },
        "package_version": project["project"]["version"],
    }
    out: dict[Path, bytes] = {}
    for folder, target, names in (
        (TS_TEMPLATES, TS_OUT, ("index.d.ts", "index.js", "package.json", "README.md")),
        (GO_TEMPLATES, GO_OUT, ("go.mod", "acp.go", "data.go")),
    ):
        env = environment(root_src, folder)
        env.filters["go_name"] = go_name
        env.filters["plural"] = _plural
        env.filters["go_string"] = _go_string
        env.filters["ts_doc"] = _ts_doc
        env.filters["tojson"] = lambda value: json.dumps(value, ensure_ascii=False)
        env.globals["header"] = header
        for name in names:
            out[target / name] = env.get_template(name + ".j2").render(**data).encode("utf-8")
    return out
