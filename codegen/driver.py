"""Renders every generated file in memory; write() and check() share this one path."""

from __future__ import annotations

import ast
import difflib
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from codegen.bindings import GO_OUT, PACKAGED_FIXTURES, TS_OUT, binding_files, fixture_copy

REPO = Path(__file__).resolve().parent.parent
SCHEMA_SUBDIR = Path("schema/control-plane/v1")
PACKAGE = Path("python/agent_control_plane_core")
GENERATED = PACKAGE / "_generated"
PACKAGED_SCHEMA = PACKAGE / "schema"
TEMPLATES = Path("templates/python")
# Host-side plugins for hosts without command hooks (opencode) or with a plugin form beside them
# (Amp); acp install copies them. host -> (template under templates/<host>/, generated file name).
PLUGIN_TEMPLATES = Path("templates")
PLUGINS = GENERATED / "plugins"
PLUGIN_HOSTS: Mapping[str, tuple[str, str]] = {
    "opencode": ("agent-control-plane.js.j2", "opencode.js"),
    # Amp loads TypeScript plugins (ampcode.com/manual/plugin-api); plain JavaScript is valid TS.
    "amp": ("agent-control-plane.ts.j2", "amp.ts"),
}
# Documents datamodel-code-generator turns into dataclasses; the rest are read by templates.
MODEL_DOCUMENTS = (
    "tool-call-event.schema.json",
    "verdict.schema.json",
    "native-response.schema.json",
)
# The conformance fixture format lives beside the fixtures and ships inside the package too.
FIXTURE_SCHEMA = Path("fixtures/fixture.schema.json")
# N11: every property and enum value the contract has published at its schema_version. The
# generator only adds to it; a name that disappears without a schema_version bump is refused.
RELEASED = Path("codegen/released-fields.json")
# Every file below these folders is generated: a file the generator would not write is stale.
MANAGED = (GENERATED, PACKAGED_SCHEMA, TS_OUT, GO_OUT, PACKAGED_FIXTURES)
REGENERATE = "make codegen (python -m codegen)"


def header(sources: list[str], template: str, comment: str = "#") -> str:
    """The fixed first lines of every generated file: no timestamps, no absolute paths."""
    lines = ["DO NOT EDIT: this file is generated."]
    lines += [f"source: {src}" for src in sources]
    lines += [f"template: {template}", f"regenerate: {REGENERATE}"]
    return "".join(f"{comment} {line}\n" for line in lines)


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _datamodel_files(root_src: Path) -> dict[Path, bytes]:
    """Run datamodel-code-generator (options from pyproject) over the model documents."""
    out: dict[Path, bytes] = {}
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "in"
        dst = Path(tmp) / "models"
        src.mkdir()
        for name in MODEL_DOCUMENTS:
            shutil.copyfile(root_src / SCHEMA_SUBDIR / name, src / name)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "datamodel_code_generator",
                "--input",
                str(src),
                "--output",
                str(dst),
            ],
            cwd=root_src,
            check=True,
        )
        template = str(TEMPLATES / "datamodel/dataclass.jinja2")
        for path in sorted(dst.rglob("*.py")):
            lines = path.read_text(encoding="utf-8").split("\n")
            while lines and (lines[0].startswith("#") or not lines[0].strip()):
                lines.pop(0)  # datamodel-code-generator's own header names a temp folder
            body = "\n".join(lines)
            if path.stem == "__init__":
                sources = [str(SCHEMA_SUBDIR / n) for n in MODEL_DOCUMENTS]
                body = '"""Contract dataclasses generated from the schema documents."""\n'
            else:
                doc = path.stem.removesuffix("_schema").replace("_", "-") + ".schema.json"
                sources = [str(SCHEMA_SUBDIR / doc)]
            if path.stem != "__init__":
                body = _defer_dataclass(body, path.name)
            text = header(sources, template) + "\n" + body
            out[GENERATED / "models" / path.relative_to(dst)] = text.encode("utf-8")
    return out


# Issue 13: at run time the generated @dataclass is _model_base.deferred_dataclass, which applies
# dataclasses.dataclass on first use of the metadata, so a hook process never imports dataclasses
# (and inspect, ast, dis, tokenize); type checkers read the standard decorator. The typing names
# and Literal aliases are declared for type checkers and built on first use (_lazy_typing), so
# it never imports typing either.
_DATACLASS_IMPORT = "from dataclasses import dataclass\n"
_BASE_IMPORT = "from agent_control_plane_core._model_base import "
_TYPING_IMPORT = "from typing import "
_DEFERRED_IMPORT = (
    "TYPE_CHECKING = False\n"
    "if TYPE_CHECKING:\n"
    "    from dataclasses import dataclass\n"
    "    from typing import {names}\n"
    "else:\n"
    "    from agent_control_plane_core._model_base import deferred_dataclass as dataclass\n"
)
_ALIAS = re.compile(r"^(\w+): TypeAlias = Literal\[(.*)\]$")


def _defer_dataclass(body: str, name: str) -> str:
    """Defer datamodel-code-generator's dataclass and typing imports (see above)."""
    lines = body.replace(_DATACLASS_IMPORT, "", 1).split("\n")
    typing_at = [i for i, line in enumerate(lines) if line.startswith(_TYPING_IMPORT)]
    base_at = [i for i, line in enumerate(lines) if line.startswith(_BASE_IMPORT)]
    if body.count(_DATACLASS_IMPORT) != 1 or len(typing_at) != 1 or len(base_at) != 1:
        raise SystemExit(f"codegen: {name} has not the imports the deferred dataclass expects")
    names = lines[typing_at[0]].removeprefix(_TYPING_IMPORT)
    deferred = _DEFERRED_IMPORT.format(names=names).split("\n")
    lines[base_at[0] + 1 : base_at[0] + 1] = ["", *deferred[:-1]]
    lines.insert(base_at[0], "from agent_control_plane_core._lazy_typing import lazy_aliases")
    del lines[typing_at[0]]
    out: list[str] = []
    aliases: dict[str, tuple[Any, ...]] = {}
    in_alias = False
    for line in lines:
        alias = _ALIAS.match(line)
        if alias:
            aliases[alias[1]] = ast.literal_eval(f"({alias[2]},)")
            out += ["if TYPE_CHECKING:", "    " + line]
            in_alias = True
        elif in_alias and line and not line.startswith(("@", "class ")):
            out.append("    " + line)  # the alias's docstring
        else:
            in_alias = in_alias and not line.startswith(("@", "class "))
            out.append(line)
    if not aliases and "TypeAlias" in body:
        raise SystemExit(f"codegen: {name} has a TypeAlias that is not a Literal of values")
    text = "\n".join(out).rstrip("\n") + "\n"
    # Every model module registers, aliases or not: its annotations name typing's Any at least.
    entries = "".join(
        f"            {json.dumps(k)}: ({', '.join(json.dumps(v) for v in vs)}{',' if len(vs) == 1 else ''}),\n"
        for k, vs in aliases.items()
    )
    text += (
        "\n\nif not TYPE_CHECKING:  # the typing names above, for who reads them at run time\n"
        f"    __getattr__ = lazy_aliases(\n        globals(),\n        {{\n{entries}        }},\n    )\n"
    )
    return text


def _py(value: Any) -> str:
    """Render a JSON value as a stable Python literal (sorted keys, tuples for arrays)."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_py(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_py(k)}: {_py(value[k])}" for k in sorted(value)) + "}"
    raise TypeError(f"cannot render {type(value).__name__} as a Python literal")


def _frozen(value: Any) -> str:
    """Render a JSON value as a Python literal that cannot be mutated: mappings as MappingProxyType."""
    if isinstance(value, Mapping):
        inner = ", ".join(f"{_py(k)}: {_frozen(value[k])}" for k in sorted(value))
        return "MappingProxyType({" + inner + "})"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_frozen(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    return _py(value)


def _version_fact(fact: Mapping[str, Any]) -> dict[str, Any]:
    """What an adapter reads of a version fact: id, window (None when open) and the overlay."""
    return {
        "id": fact["id"],
        "since": fact.get("since"),
        "until": fact.get("until"),
        "set": fact["set"],
    }


def _json(value: Any) -> str:
    """Render a JSON value as one stable JSON literal (sorted keys), for JavaScript templates."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _constant_name(value: str) -> str:
    return value.upper().replace("-", "_")


def _enums(documents: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every enumeration in the schema documents' $defs, with the document that defines it."""
    found = []
    for doc_name in sorted(documents):
        for def_name, body in sorted(documents[doc_name].get("$defs", {}).items()):
            if "enum" in body:
                found.append(
                    {
                        "name": def_name,
                        "values": body["enum"],
                        "description": body["description"],
                        "source": doc_name,
                    }
                )
    return found


def _objects(documents: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every object shape (a document or a $defs entry with properties) and its field names."""
    found = []
    for doc_name in sorted(documents):
        doc = documents[doc_name]
        shapes = [(doc.get("title"), doc), *sorted(doc.get("$defs", {}).items())]
        for title, body in shapes:
            if title and "properties" in body:
                found.append(
                    {
                        "name": title,
                        "fields": list(body["properties"]),
                        "required": [
                            f for f in body["properties"] if f in body.get("required", [])
                        ],
                        "source": doc_name,
                    }
                )
    return found


def _environment(root_src: Path, *folders: Path) -> Any:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader([str(root_src / f) for f in folders or (TEMPLATES,)]),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
        autoescape=False,
    )
    env.filters["py"] = _py
    env.filters["json"] = _json
    env.filters["constant"] = _constant_name
    env.filters["frozen"] = _frozen
    env.filters["version_fact"] = _version_fact
    env.globals["header"] = header
    return env


def _template_files(root_src: Path) -> dict[Path, bytes]:
    schema_dir = root_src / SCHEMA_SUBDIR
    documents = {p.name: _load(p) for p in sorted(schema_dir.glob("*.schema.json"))}
    hosts = [_load(p) for p in sorted((schema_dir / "hosts").glob("*.json"))]
    event_doc = documents["tool-call-event.schema.json"]
    env = _environment(root_src)
    context = {
        "schema_version": event_doc["properties"]["schema_version"]["const"],
        "control_plane_schema": "/".join(SCHEMA_SUBDIR.parts[1:]),
        "enums": _enums(documents),
        "tool_input_keys": _load(schema_dir / "tool-input-keys.json"),
        "tool_aliases": _load(schema_dir / "tool-aliases.json"),
        "verdict_field_types": {
            name: prop["type"]
            for name, prop in documents["verdict.schema.json"]["properties"].items()
            if "type" in prop
        },
        "hosts": hosts,
        "objects": _objects(documents),
    }
    out: dict[Path, bytes] = {}
    renders = [
        ("constants.py.j2", GENERATED / "constants.py", context),
        ("generated_init.py.j2", GENERATED / "__init__.py", context),
        ("hosts_init.py.j2", GENERATED / "hosts" / "__init__.py", context),
    ]
    renders += [
        ("host.py.j2", GENERATED / "hosts" / f"{host['agent']}.py", {**context, "host": host})
        for host in hosts
    ]
    for template, rel, ctx in renders:
        out[rel] = env.get_template(template).render(**ctx).encode("utf-8")
    # The TypeScript and Go bindings (issue 31), from the same documents and context.
    out.update(binding_files(root_src, _environment, header, context))
    # Host-side plugins take their event names and default reason from the host's declaration.
    for host in hosts:
        plugin = PLUGIN_HOSTS.get(host["agent"])
        if plugin is not None:
            template, name = plugin
            # Each plugin's own folder, then the parts the plugins share (templates/_plugin).
            plugin_env = _environment(
                root_src, PLUGIN_TEMPLATES / host["agent"], PLUGIN_TEMPLATES / "_plugin"
            )
            rendered = plugin_env.get_template(template).render(**context, host=host)
            out[PLUGINS / name] = rendered.encode("utf-8")
    return out


def _schema_copy(root_src: Path) -> dict[Path, bytes]:
    """The packaged schema documents: a byte copy of schema/ (and the fixture format) for installs."""
    base = root_src / "schema"
    files = {
        PACKAGED_SCHEMA / path.relative_to(base): path.read_bytes()
        for path in sorted(base.rglob("*.json"))
    }
    fixture_schema = root_src / FIXTURE_SCHEMA
    if fixture_schema.exists():
        files[PACKAGED_SCHEMA / SCHEMA_SUBDIR.relative_to("schema") / FIXTURE_SCHEMA.name] = (
            fixture_schema.read_bytes()
        )
    return files


# Overlay keys a version fact overrides per entry; every other overlay key is replaced whole.
_PER_KEY_OVERLAYS = ("coverage", "features")
# Overlay keys that give or take a channel per event kind and content field.
_FIELD_OVERLAYS = ("rendered_fields", "unrendered_fields")


def _version_order(text: str) -> tuple[Any, ...]:
    """Semver precedence of a schema-valid Version: a pre-release sorts before its release."""
    core, _, pre = text.partition("-")
    numbers = tuple(int(part) for part in core.split("."))
    if not pre:
        return (*numbers, 1, ())
    ids = tuple((0, int(i), "") if i.isdigit() else (1, 0, i) for i in pre.split("."))
    return (*numbers, 0, ids)


def _overlay_keys(overlay: Mapping[str, Any]) -> set[str]:
    """The declaration entries an overlay sets: per-key overlays name each key they touch."""
    keys = set()
    for field, value in overlay.items():
        if field in _PER_KEY_OVERLAYS:
            keys |= {f"{field}.{key}" for key in value}
        elif field in _FIELD_OVERLAYS:
            keys |= {f"fields.{kind}.{name}" for kind, names in value.items() for name in names}
        else:
            keys.add(field)
    return keys


def _version_problems(host: Mapping[str, Any]) -> list[str]:
    """Rules the schema cannot state: ranges in order, lab versions inside, facts not in conflict."""
    problems: list[str] = []
    versions = host.get("versions")
    facts = host.get("version_facts", [])
    if versions is None:
        return ["version_facts needs versions (the supported range)"] if facts else []
    low, high = versions["supported"]["min"], versions["supported"]["max"]
    if _version_order(low) > _version_order(high):
        problems.append(f"versions.supported: min {low} is above max {high}")
    for lab in [versions["lab_pinned"], *versions.get("lab_older", [])]:
        if not _version_order(low) <= _version_order(lab) <= _version_order(high):
            problems.append(f"versions: lab version {lab} is outside the supported range")
    features = set(host.get("features", {}))
    seen: dict[str, int] = {}
    windows = []
    for index, fact in enumerate(facts):
        name = f"version_facts[{index}] {fact['id']!r}"
        if fact["id"] in seen:
            problems.append(f"{name}: id repeats version_facts[{seen[fact['id']]}]")
        seen.setdefault(fact["id"], index)
        since, until = fact.get("since"), fact.get("until")
        if since and until and _version_order(since) >= _version_order(until):
            problems.append(f"{name}: since {since} is not below until {until}")
        unknown = sorted(set(fact["set"].get("features", {})) - features)
        if unknown:
            problems.append(f"{name}: features {unknown} have no value in the top-level features")
        base = host.get("unrendered_fields", {})
        for overlay, unrendered in (("rendered_fields", True), ("unrendered_fields", False)):
            for kind, fields in fact["set"].get(overlay, {}).items():
                # A fact states a difference: giving a channel the range already has is no fact.
                same = sorted(f for f in fields if (f in base.get(kind, [])) != unrendered)
                if same:
                    problems.append(
                        f"{name}: {overlay}.{kind} {same} already hold on every version"
                    )
        windows.append((name, since, until, _overlay_keys(fact["set"])))
    # Two facts holding on one version must not set the same entry, so fact order never matters.
    for i, (name, since, until, keys) in enumerate(windows):
        for other, since2, until2, keys2 in windows[i + 1 :]:
            starts = [_version_order(v) for v in (since, since2) if v]
            ends = [_version_order(v) for v in (until, until2) if v]
            overlap = not starts or not ends or max(starts) < min(ends)
            if overlap and keys & keys2:
                problems.append(
                    f"{name} and {other} both set {sorted(keys & keys2)} on one version"
                )
    return problems


def _form_problems(host: Mapping[str, Any]) -> list[str]:
    """A form states a difference from the top-level fields, as a version fact does."""
    problems: list[str] = []
    base = host.get("unrendered_fields", {})
    features = set(host.get("features", {}))
    for name, form in sorted(host.get("forms", {}).items()):
        overlay = form["set"]
        unknown = sorted(set(overlay.get("features", {})) - features)
        if unknown:
            problems.append(
                f"forms.{name}: features {unknown} have no value in the top-level features"
            )
        for key, unrendered in (("rendered_fields", True), ("unrendered_fields", False)):
            for kind, fields in overlay.get(key, {}).items():
                same = sorted(f for f in fields if (f in base.get(kind, [])) != unrendered)
                if same:
                    problems.append(f"forms.{name}: {key}.{kind} {same} already hold without it")
    return problems


# What an overlay may set when its fact rests on a third-party report only: it may take claims
# away, never add one (host.schema.json EvidenceLevel; docs/findings.md HA3).
_CLAIMING_COVERAGE = frozenset({"covered", "partial"})


def _claims(overlay: Mapping[str, Any]) -> list[str]:
    """The overlay entries that would make a render claim more than the top-level fields."""
    found = []
    if overlay.get("gated_kinds") or overlay.get("coverage_kinds"):
        found.append("gated_kinds/coverage_kinds")
    if overlay.get("rendered_fields"):
        found.append("rendered_fields")
    if overlay.get("native_ask_tier") is True:
        found.append("native_ask_tier true")
    if overlay.get("exit_zero_block") is True:
        found.append("exit_zero_block true")
    if overlay.get("dead_hook", "runs") != "runs":
        found.append(f"dead_hook {overlay['dead_hook']}")
    if overlay.get("integration_mode", "observe_only") != "observe_only":
        found.append(f"integration_mode {overlay['integration_mode']}")
    found += [
        f"coverage.{name} {status}"
        for name, status in sorted(overlay.get("coverage", {}).items())
        if status in _CLAIMING_COVERAGE
    ]
    return found


def _evidence_problems(host: Mapping[str, Any]) -> list[str]:
    """A version fact or form backed only by a third-party report never makes a render claim more."""
    problems = []
    entries = [(f"version_facts {f['id']!r}", f) for f in host.get("version_facts", [])]
    entries += [(f"forms.{name}", form) for name, form in sorted(host.get("forms", {}).items())]
    for name, entry in entries:
        if (entry.get("evidence") or {}).get("level") != "third_party":
            continue
        claims = _claims(entry["set"])
        if claims:
            problems.append(
                f"{name}: rests on a third-party report only, so it may not set {', '.join(claims)}"
                " (a render would claim what no primary source shows)"
            )
    return problems


class SchemaLintError(ValueError):
    """A schema document or host declaration breaks a modelling rule; nothing is generated."""


def lint(root_src: Path = REPO) -> None:
    """Check the sources before generating: valid 2020-12 documents, host declarations complete."""
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    schema_dir = root_src / SCHEMA_SUBDIR
    documents = {p.name: _load(p) for p in sorted(schema_dir.glob("*.schema.json"))}
    problems = []
    for name, document in documents.items():
        for error in Draft202012Validator(Draft202012Validator.META_SCHEMA).iter_errors(document):
            problems.append(f"{name}: not a valid 2020-12 schema: {error.message}")
        # Any language loads these from the installed files: the $id names the file it is in.
        if not str(document.get("$id", "")).endswith("/" + name):
            problems.append(f"{name}: $id must be an absolute URI ending in /{name}")
        for def_name in document.get("$defs", {}):
            if not def_name[:1].isupper():
                problems.append(f"{name}: $defs name {def_name!r} is not PascalCase")
            # Off-the-shelf generators name a type from its title (issue 31): the title is the name.
            body = document["$defs"][def_name]
            if body.get("title") != def_name or not body.get("description"):
                problems.append(
                    f"{name}: $defs/{def_name} needs title {def_name!r} and a description"
                )
    registry: Registry[Any] = Registry().with_resources(
        (doc.get("$id", name), Resource.from_contents(doc, default_specification=DRAFT202012))
        for name, doc in documents.items()
    )
    host_validator = Draft202012Validator(documents["host.schema.json"], registry=registry)
    enums = {e["name"]: set(e["values"]) for e in _enums(documents)}
    for path in sorted((schema_dir / "hosts").glob("*.json")):
        host = _load(path)
        where = f"hosts/{path.name}"
        for error in host_validator.iter_errors(host):
            problems.append(f"{where}: {error.json_path}: {error.message}")
        if host.get("agent") != path.stem:
            problems.append(f"{where}: agent must be {path.stem!r}, the file name")
        # A row per event kind and a status per call class: the enums, not a count, decide.
        if set(host.get("unrendered_fields", {})) != enums["EventKind"]:
            problems.append(f"{where}: unrendered_fields needs exactly one row per EventKind")
        if set(host.get("coverage", {})) != enums["CallClass"]:
            problems.append(f"{where}: coverage needs exactly one status per CallClass")
        problems += [f"{where}: {problem}" for problem in _version_problems(host)]
        problems += [f"{where}: {problem}" for problem in _form_problems(host)]
        problems += [f"{where}: {problem}" for problem in _evidence_problems(host)]
    problems += _meta_problems(documents)
    if problems:
        raise SchemaLintError(
            "schema sources break the modelling rules; fix them, then run `make codegen`:\n  "
            + "\n  ".join(problems)
        )


def _schema_version(documents: Mapping[str, Any]) -> int:
    version: int = documents["tool-call-event.schema.json"]["properties"]["schema_version"]["const"]
    return version


def _published_names(node: Any, at: str, out: set[str]) -> None:
    """Every property path and enum value under node, as JSON-pointer-like strings."""
    if isinstance(node, dict):
        for name in node.get("properties", {}) if isinstance(node.get("properties"), dict) else ():
            out.add(f"{at}/properties/{name}")
        if isinstance(node.get("enum"), list):
            out.update(f"{at}/enum/{json.dumps(value)}" for value in node["enum"])
        for key, child in node.items():
            if key not in ("description", "examples", "enum"):
                _published_names(child, f"{at}/{key}", out)
    elif isinstance(node, list):
        for index, child in enumerate(node):
            _published_names(child, f"{at}/{index}", out)


def _released(root_src: Path) -> tuple[dict[str, Any], list[str]]:
    """The released-fields lock to write, and the breaking removals that refuse it."""
    schema_dir = root_src / SCHEMA_SUBDIR
    documents = {p.name: _load(p) for p in sorted(schema_dir.glob("*.schema.json"))}
    version = _schema_version(documents)
    current: dict[str, set[str]] = {}
    for name, document in documents.items():
        names: set[str] = set()
        _published_names(document, "#", names)
        current[name] = names
    lock_path = root_src / RELEASED
    lock: dict[str, Any] = (
        _load(lock_path) if lock_path.exists() else {"schema_version": version, "fields": {}}
    )
    problems = []
    if lock["schema_version"] == version:
        for name, released in sorted(lock["fields"].items()):
            gone = sorted(set(released) - current.get(name, set()))
            if gone:
                problems.append(
                    f"{name}: {', '.join(gone)} published at schema_version {version} would be"
                    " removed or renamed"
                )
        merged = {
            name: sorted(set(lock["fields"].get(name, [])) | current.get(name, set()))
            for name in sorted(set(lock["fields"]) | set(current))
        }
    elif version > lock["schema_version"]:
        # A bump starts the new version's record from what it publishes.
        merged = {name: sorted(names) for name, names in sorted(current.items())}
    else:
        problems.append(
            f"schema_version {version} is older than the released {lock['schema_version']}"
        )
        merged = dict(lock["fields"])
    return {"schema_version": version, "fields": merged}, problems


def _meta_problems(documents: Mapping[str, Any]) -> list[str]:
    """An optional string meta field no adapter would fill (N11: StandardMetaField)."""
    defs = documents["tool-call-event.schema.json"]["$defs"]
    meta = defs["EventMeta"]
    standard = set(defs["StandardMetaField"]["enum"])
    optional = set(meta["properties"]) - set(meta.get("required", []))
    # native_tool is the one optional field build_event sets itself (from the tool it read).
    filled_by_build_event = {"native_tool"}
    return [
        f"tool-call-event.schema.json: EventMeta.{name} is optional and no adapter fills it;"
        " add it to $defs/StandardMetaField (copied from the payload when it is a string)"
        for name in sorted(optional - standard - filled_by_build_event)
        if meta["properties"][name].get("type") == "string"
    ]


def render_all(root_src: Path = REPO) -> dict[Path, bytes]:
    """Every generated file, keyed by its path relative to the repository root."""
    lint(root_src)
    lock, breaking = _released(root_src)
    if breaking:
        raise SchemaLintError(
            "breaking contract change without a schema_version bump:\n  "
            + "\n  ".join(breaking)
            + "\nrestore the names, or bump schema_version (tool-call-event.schema.json"
            " properties.schema_version.const) and migrate the fixtures (`acp record --refresh"
            " FIXTURE`); see the README, Changing the contract"
        )
    files = _datamodel_files(root_src)
    files[RELEASED] = (json.dumps(lock, indent=2) + "\n").encode("utf-8")
    files.update(_template_files(root_src))
    files.update(_schema_copy(root_src))
    files.update(fixture_copy(root_src))
    return files


def _existing(root: Path) -> dict[Path, bytes]:
    found: dict[Path, bytes] = {}
    if (root / RELEASED).is_file():
        found[RELEASED] = (root / RELEASED).read_bytes()
    for managed in MANAGED:
        base = root / managed
        if base.exists():
            for path in sorted(base.rglob("*")):
                if path.is_file() and "__pycache__" not in path.parts:
                    found[path.relative_to(root)] = path.read_bytes()
    return found


def write(root: Path) -> int:
    """Write every generated file under root and delete managed files the generator no longer makes."""
    files = render_all()
    for rel in set(_existing(root)) - set(files):
        (root / rel).unlink()
    for rel, data in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists() or target.read_bytes() != data:
            target.write_bytes(data)
    return len(files)


def check(root: Path) -> list[str]:
    """Compare the files under root with a fresh render; return one message per difference."""
    want = render_all()
    have = _existing(root)
    problems = [f"missing generated file: {rel}" for rel in sorted(set(want) - set(have))]
    problems += [
        f"stray file in a generated folder: {rel}" for rel in sorted(set(have) - set(want))
    ]
    for rel in sorted(set(want) & set(have)):
        if want[rel] != have[rel]:
            diff = difflib.unified_diff(
                have[rel].decode("utf-8", "replace").splitlines(keepends=True),
                want[rel].decode("utf-8", "replace").splitlines(keepends=True),
                fromfile=f"{rel} (on disk)",
                tofile=f"{rel} (generated)",
            )
            problems.append(f"differs: {rel}\n" + "".join(diff))
    return problems
