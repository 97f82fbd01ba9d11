"""The packaged schema documents and ready Draft 2020-12 validators (jsonschema imported lazily)."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from typing import TYPE_CHECKING, Any

from ._generated.constants import CONTROL_PLANE_SCHEMA

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

__all__ = ["SCHEMA_NAMES", "load_schema", "schema_path", "validator_for"]

_SUFFIX = ".schema.json"


def _folder() -> Traversable:
    return resources.files(__package__).joinpath("schema", *CONTROL_PLANE_SCHEMA.split("/"))


def _documents() -> dict[str, Traversable]:
    return {
        entry.name.removesuffix(_SUFFIX): entry
        for entry in _folder().iterdir()
        if entry.name.endswith(_SUFFIX)
    }


SCHEMA_NAMES: tuple[str, ...] = tuple(sorted(_documents()))
"""Names accepted by schema_path, load_schema and validator_for (file name minus .schema.json)."""


def _data_documents() -> dict[str, Traversable]:
    """The published data maps beside the schemas (tool-input-keys, tool-aliases)."""
    return {
        entry.name.removesuffix(".json"): entry
        for entry in _folder().iterdir()
        if entry.name.endswith(".json") and not entry.name.endswith(_SUFFIX)
    }


def schema_path(name: str) -> Traversable:
    """Return the installed document for a name such as "tool-call-event" or "tool-input-keys"."""
    documents = {**_data_documents(), **_documents()}
    if name not in documents:
        raise ValueError(f"unknown schema {name!r}: choose one of {', '.join(sorted(documents))}")
    return documents[name]


@cache
def load_schema(name: str) -> dict[str, Any]:
    """Return a parsed schema document (cached; do not mutate it)."""
    documents = _documents()
    if name not in documents:
        raise ValueError(f"unknown schema {name!r}: choose one of {', '.join(sorted(documents))}")
    loaded: dict[str, Any] = json.loads(documents[name].read_text(encoding="utf-8"))
    return loaded


@cache
def validator_for(name: str) -> Validator:
    """Return a Draft 2020-12 validator for a schema, resolving references between documents."""
    # Imported here so the hook path never pays for jsonschema (contract.md §1).
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    # Each document's $id is its base URI, so its relative $refs resolve to the sibling files.
    registry: Registry[Any] = Registry().with_resources(
        (
            load_schema(doc)["$id"],
            Resource.from_contents(load_schema(doc), default_specification=DRAFT202012),
        )
        for doc in _documents()
    )
    schema = load_schema(name)
    Draft202012Validator.check_schema(schema)
    validator: Validator = Draft202012Validator(
        schema, registry=registry, format_checker=Draft202012Validator.FORMAT_CHECKER
    )
    return validator
