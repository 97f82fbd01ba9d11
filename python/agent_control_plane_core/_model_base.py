"""Base class of the generated contract dataclasses: JSON round trip with absent kept apart from null."""

from __future__ import annotations

import _thread
import enum
import sys
from collections.abc import Mapping

from ._lazy_typing import LITERAL_ALIASES, materialize

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Final, TypeVar

    _M = TypeVar("_M", bound="ContractModel")
    _T = TypeVar("_T", bound=type)

__all__ = ["ABSENT", "Absent", "ContractModel", "deferred_dataclass"]

# Issue 13: `import dataclasses` loads inspect, ast, dis and tokenize, about half the cost of a
# hook process above the floor. The generated classes carry their own __init__, __repr__, __eq__
# and __hash__, so a hook call never needs the dataclass machinery; @dataclass is applied to
# each class (the same class object, with the same arguments) the first time anything asks for
# its dataclass metadata: dataclasses.fields/replace/asdict/is_dataclass, from_dict, an
# attribute assignment (FrozenInstanceError) or a subclass built on it.
_PENDING: dict[type, dict[str, Any]] = {}
# Re-entrant: completing a class reads its bases' metadata, which completes them first. Held
# while decorating, so no thread sees a class that another thread has begun but not finished.
_COMPLETING: Final = _thread.RLock()
# What dataclasses.dataclass adds that the generated class does not define itself.
_DATACLASS_ATTRIBUTES: Final = frozenset(
    {"__dataclass_fields__", "__dataclass_params__", "__match_args__"}
)


def deferred_dataclass(**params: Any) -> Callable[[_T], _T]:
    """dataclasses.dataclass(**params), applied to the class on first use of its metadata."""

    def record(cls: _T) -> _T:
        _PENDING[cls] = params
        return cls

    return record


def _complete(cls: type) -> bool:
    """Apply the deferred @dataclass to cls and its bases; whether any was pending."""
    with _COMPLETING:
        pending = [klass for klass in reversed(cls.__mro__) if klass in _PENDING]
        if not pending:
            return False
        import dataclasses

        for klass in pending:  # bases first: a dataclass reads its bases' fields
            params = _PENDING.pop(klass, None)
            if params is not None:
                dataclasses.dataclass(**params)(klass)
        return True


# Filled lazily per class: field name -> nested model class, resolved once from annotations. A
# module global, not a class attribute: get_type_hints reads ContractModel's own annotations too.
_NESTED: dict[type, dict[str, type[ContractModel]]] = {}


# Filled lazily per class, for to_dict: the fields that may be ABSENT (annotated with Absent, or
# not read here), and the fields whose value may be a model. A field annotated with JSON types
# only (str, bool, int, dict[...], list[...], a Literal or a generated Literal alias) never
# holds one; a model class, Any or a name not known here may.
_SHAPES: dict[type, tuple[tuple[str, ...], tuple[str, ...]]] = {}
_JSON_LEAVES: Final = frozenset({"str", "int", "float", "bool", "None", "Absent"})
_JSON_CONTAINERS: Final = ("dict[", "list[", "Literal[")


def _shape(cls: type) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The fields of cls that may be absent, and those that may hold a model (see _SHAPES)."""
    hints: dict[str, object] = {}
    for klass in reversed(cls.__mro__):
        hints.update(dict.items(klass.__dict__.get("__annotations__", {})))  # noqa: RUF063
    parts = {name: _top_level(hint) for name, hint in hints.items()}
    optional = tuple(name for name, part in parts.items() if part is None or "Absent" in part)
    models = tuple(name for name, part in parts.items() if part is None or not _json_only(part))
    _SHAPES[cls] = found = (optional, models)
    return found


def _top_level(hint: object) -> list[str] | None:
    """The members of an annotation string's top-level union; None for one not read as a string."""
    if not isinstance(hint, str):
        return None
    parts, depth, start = [], 0, 0
    for index, char in enumerate(hint):
        depth += char == "["
        depth -= char == "]"
        if char == "|" and depth == 0:
            parts.append(hint[start:index].strip())
            start = index + 1
    parts.append(hint[start:].strip())
    return parts


def _json_only(parts: list[str]) -> bool:
    """Whether every member of a union names a JSON type."""
    for name in parts:
        if name.startswith(_JSON_CONTAINERS) or name in _JSON_LEAVES:
            continue
        if name.rpartition(".")[2] not in LITERAL_ALIASES:  # mod.Alias names another module's
            return False
    return True


class _Annotations(dict):  # type: ignore[type-arg]
    """A generated class's annotations: its module's typing names are built before they are read."""

    # typing.get_type_hints and dataclasses read items(), inspect.get_annotations iterates; the
    # names the annotation strings use (the Literal aliases, Any) exist from then on (_lazy_typing).
    __slots__ = ("module",)

    def __init__(self, annotations: Mapping[str, Any], module: str) -> None:
        super().__init__(annotations)
        self.module = module

    def items(self) -> Any:
        materialize(self.module)
        return super().items()

    def __iter__(self) -> Any:
        materialize(self.module)
        return super().__iter__()


class _ModelType(type):
    """Metaclass of ContractModel: completes a deferred dataclass when its metadata is read."""

    if not TYPE_CHECKING:  # runtime only: type checkers see the generated @dataclass

        def __getattr__(cls, name: str) -> Any:
            if name in _DATACLASS_ATTRIBUTES:
                _complete(cls)  # or wait for the thread completing it
                try:
                    return type.__getattribute__(cls, name)
                except AttributeError:
                    pass
            raise AttributeError(f"type object {cls.__name__!r} has no attribute {name!r}")


class Absent(enum.Enum):
    """Type of the ABSENT sentinel that marks an optional field the payload did not carry."""

    ABSENT = "ABSENT"

    def __repr__(self) -> str:
        return "ABSENT"

    def __bool__(self) -> bool:
        return False


ABSENT: Final = Absent.ABSENT


class ContractModel(metaclass=_ModelType):
    """Gives a generated dataclass to_dict() and from_dict() in the contract's JSON shape."""

    __slots__ = ()

    if not TYPE_CHECKING:  # runtime only: a type checker must still refuse an unknown attribute

        def __init_subclass__(cls, **kwargs: Any) -> None:
            # A class built on a generated one (a user's @dataclass subclass) reads its bases'
            # dataclass fields while it is being made: they must be complete by then.
            _complete(cls)
            annotations = cls.__dict__.get("__annotations__")  # noqa: RUF063 (inspect is heavy)
            if annotations:
                cls.__annotations__ = _Annotations(annotations, cls.__module__)
            super().__init_subclass__(**kwargs)

        def __getattr__(self, name: str) -> Any:
            if name in _DATACLASS_ATTRIBUTES:
                _complete(type(self))
                try:
                    return object.__getattribute__(self, name)
                except AttributeError:
                    pass
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

        def __setattr__(self, name: str, value: Any) -> None:
            # frozen=True: the completed dataclass's own __setattr__ raises FrozenInstanceError.
            _complete(type(self))
            setter = type(self).__setattr__
            if setter is ContractModel.__setattr__:
                object.__setattr__(self, name, value)
            else:
                setter(self, name, value)

        def __delattr__(self, name: str) -> None:
            _complete(type(self))
            deleter = type(self).__delattr__
            if deleter is ContractModel.__delattr__:
                object.__delattr__(self, name)
            else:
                deleter(self, name)

    def _replace(self: _M, **changes: Any) -> _M:
        """dataclasses.replace without the dataclass machinery: the same class, fields changed."""
        return self.__class__(**{**self.__dict__, **changes})

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON object for this value, fields in schema order, absent optionals omitted."""
        # The generated __init__ fills __dict__ in one call, in schema order; reading it directly
        # skips a getattr per field, and to_dict runs for every event the bridge answers.
        # A copy, then the absent optionals deleted: a comprehension over every field costs
        # four times as much, and to_dict runs for every event the bridge or an audit log writes.
        out = self.__dict__.copy()
        cls = self.__class__
        shape = _SHAPES.get(cls)
        if shape is None:
            shape = _shape(cls)
        optional, models = shape
        for name in optional:
            if out.get(name, None) is ABSENT:
                del out[name]
        for name in models:  # only the fields whose annotation lets them hold a model
            value = out.get(name)
            # isinstance on the value's class: against ContractModel itself it goes through the
            # metaclass's __instancecheck__ lookup, twice the cost.
            if value is not None and isinstance(value.__class__, _ModelType):
                out[name] = value.to_dict()
        return out

    @classmethod
    def from_dict(cls: type[_M], data: Mapping[str, Any]) -> _M:
        """Build an instance from its JSON object; raise ValueError naming a missing or unknown key."""
        import dataclasses

        name = cls.__name__
        if not isinstance(data, Mapping):
            raise TypeError(f"{name}.from_dict expects a JSON object, got {type(data).__name__}")
        _complete(cls)
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
        cached = _NESTED.get(cls)
        if cached is None:
            # The generated modules postpone annotations: a nested model's field is annotated with
            # its class's name, looked up where the class was defined. Reading the names, not
            # evaluating them (typing.get_type_hints), keeps typing unloaded (issue 13).
            cached = {}
            for klass in reversed(cls.__mro__):
                module = sys.modules.get(klass.__module__)
                names = vars(module) if module is not None else {}
                annotations = klass.__dict__.get("__annotations__", {})  # noqa: RUF063
                for key, hint in dict.items(annotations):  # not _Annotations.items: no typing
                    found = names.get(hint) if isinstance(hint, str) else hint
                    if isinstance(found, type) and issubclass(found, ContractModel):
                        cached[key] = found
                    else:
                        cached.pop(key, None)  # a subclass may re-annotate a field
            _NESTED[cls] = cached
        return cached
