"""Base class of the generated contract dataclasses: JSON round trip with absent kept apart from null."""

from __future__ import annotations

import dataclasses
import enum
import typing
from collections.abc import Mapping
from typing import Any, ClassVar, Final, TypeVar

__all__ = ["ABSENT", "Absent", "ContractModel"]

_M = TypeVar("_M", bound="ContractModel")


class Absent(enum.Enum):
    """Type of the ABSENT sentinel that marks an optional field the payload did not carry."""

    ABSENT = "ABSENT"

    def __repr__(self) -> str:
        return "ABSENT"

    def __bool__(self) -> bool:
        return False


ABSENT: Final = Absent.ABSENT


class ContractModel:
    """Gives a generated dataclass to_dict() and from_dict() in the contract's JSON shape."""

    __slots__ = ()
    # Filled lazily per class: field name -> nested model class, resolved once from annotations.
    _nested_cache: ClassVar[dict[type, dict[str, type[ContractModel]]]] = {}

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON object for this value, fields in schema order, absent optionals omitted."""
        # The generated __init__ fills __dict__ in one call, in schema order; reading it directly
        # skips a getattr per field, and to_dict runs for every event the bridge answers.
        out: dict[str, Any] = {}
        for name, value in self.__dict__.items():
            if value is ABSENT:
                continue
            out[name] = value.to_dict() if isinstance(value, ContractModel) else value
        return out

    @classmethod
    def from_dict(cls: type[_M], data: Mapping[str, Any]) -> _M:
        """Build an instance from its JSON object; raise ValueError naming a missing or unknown key."""
        name = cls.__name__
        if not isinstance(data, Mapping):
            raise TypeError(f"{name}.from_dict expects a JSON object, got {type(data).__name__}")
        fields = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
        unknown = sorted(set(data) - set(fields))
        if unknown:
            raise ValueError(
                f"{name}.from_dict: unknown key(s) {unknown}; the contract allows {sorted(fields)}"
            )
        missing = [
            f.name
            for f in fields.values()
            if f.name not in data and f.default is dataclasses.MISSING
        ]
        if missing:
            raise ValueError(f"{name}.from_dict: missing required key(s) {missing}")
        nested = cls._nested_models()
        kwargs: dict[str, Any] = {}
        for key, value in data.items():
            sub = nested.get(key)
            kwargs[key] = sub.from_dict(value) if sub is not None else value
        return cls(**kwargs)

    @classmethod
    def _nested_models(cls) -> dict[str, type[ContractModel]]:
        cached = ContractModel._nested_cache.get(cls)
        if cached is None:
            hints = typing.get_type_hints(cls)
            cached = {
                key: hint
                for key, hint in hints.items()
                if isinstance(hint, type) and issubclass(hint, ContractModel)
            }
            ContractModel._nested_cache[cls] = cached
        return cached
