"""Typing names of the generated modules, built on first use so a hook process never imports typing."""

# Issue 13: `typing` (with contextlib and warnings, which it imports) costs a hook process
# 0.13-0.23x the floor, and a hook call never evaluates an annotation. The generated modules
# declare their Literal aliases for type checkers only; at run time the aliases, and the typing
# names their annotations use, are real typing objects as soon as anything asks: reading or
# importing the name (the module __getattr__ below), typing.get_type_hints, inspect or
# dataclasses on a generated class (ContractModel's annotations call materialize first).

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

# The typing names a generated annotation or alias may use.
TYPING_NAMES = ("Any", "Final", "Literal", "TypeAlias")

_MATERIALIZERS: dict[str, Callable[[], None]] = {}
# Every registered alias name: each is a Literal of JSON values (to_dict converts no such field).
LITERAL_ALIASES: set[str] = set()


def lazy_aliases(
    namespace: dict[str, Any], aliases: Mapping[str, tuple[str, ...]]
) -> Callable[[str], Any]:
    """Register namespace's Literal aliases and return the module __getattr__ that builds them."""
    module = namespace["__name__"]

    def build() -> None:
        import typing

        for name in TYPING_NAMES:
            namespace.setdefault(name, getattr(typing, name))
        for alias, values in aliases.items():
            namespace.setdefault(alias, typing.Literal[values])

    def module_getattr(name: str) -> Any:
        if name in aliases or name in TYPING_NAMES:
            build()
            return namespace[name]
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    _MATERIALIZERS[module] = build
    LITERAL_ALIASES.update(aliases)
    return module_getattr


def materialize(module: str) -> None:
    """Build the typing names of a module registered by lazy_aliases; nothing for any other."""
    build = _MATERIALIZERS.get(module)
    if build is not None:
        build()
