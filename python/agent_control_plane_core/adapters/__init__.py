"""Adapter registry: one module per host, looked up by agent id."""

from __future__ import annotations

import sys

from .._generated.hosts import HOST_IDS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

    from ._protocol import Adapter

__all__ = [
    "AGENT_IDS",
    "ENTRY_POINT_GROUP",
    "Adapter",
    "adapter_for",
    "create_codex_adapter",
    "register_adapter",
]

AGENT_IDS: Final[tuple[str, ...]] = HOST_IDS
"""Ids of every shipped adapter, sorted."""

ENTRY_POINT_GROUP: Final = "agent_control_plane_core.adapters"
"""Entry-point group a package names its adapter in: `<agent id> = "module:adapter"` (N21)."""

# Adapters shipped outside this package, by AGENT; looked up only for an id not in AGENT_IDS.
_REGISTERED: dict[str, Adapter] = {}


def register_adapter(adapter: Adapter) -> None:
    """Make an adapter shipped outside this package known to adapter_for, acp and run_hook_entry."""
    from ._protocol import Adapter

    if not isinstance(adapter, Adapter):
        raise TypeError(f"register_adapter: {adapter!r} does not provide the Adapter protocol")
    agent = adapter.AGENT
    if agent in AGENT_IDS:
        raise ValueError(f"register_adapter: {agent!r} is a shipped adapter; pick another id")
    _REGISTERED[agent] = adapter


def adapter_for(agent: str, **options: Any) -> Adapter:
    """Return the adapter for an agent id, configured with options; never reads the environment."""
    if agent not in AGENT_IDS:
        adapter = _REGISTERED.get(agent) or _from_entry_point(agent)
        if adapter is None:
            raise ValueError(
                f"unknown agent {agent!r}: known agent ids are {', '.join(AGENT_IDS)}, plus any"
                f" adapter registered with register_adapter or the {ENTRY_POINT_GROUP!r}"
                " entry-point group"
            )
        return adapter.configure(**options) if options else adapter
    # Import only the host asked for: the hook path loads one adapter module.
    # __import__, not importlib.import_module: the importlib package loads warnings (issue 13).
    name = f"{__name__}.{agent}"
    __import__(name)
    module = sys.modules[name]
    shipped: Adapter = getattr(module, f"{agent}_adapter")
    return shipped.configure(**options) if options else shipped


def _from_entry_point(agent: str) -> Adapter | None:
    """The adapter an installed distribution names for this id, registered on first use."""
    # Only for an id no shipped adapter has: the shipped hook path never scans the metadata.
    from importlib.metadata import entry_points

    for point in entry_points(group=ENTRY_POINT_GROUP, name=agent):
        loaded = point.load()
        if getattr(loaded, "AGENT", None) != agent:
            raise ValueError(
                f"entry point {point.value!r} is named {agent!r} but its adapter's AGENT is"
                f" {getattr(loaded, 'AGENT', None)!r}"
            )
        register_adapter(loaded)
        return _REGISTERED[agent]
    return None


def _from_environment(agent: str, environ: Any = None, **options: Any) -> Adapter:
    """The adapter configured by the environment (ACP_<HOST>_VERSION, ...), explicit options winning."""
    import os

    base = adapter_for(agent)
    env_names: dict[str, str] = getattr(base, "ENV_OPTIONS", {})
    env = os.environ if environ is None else environ
    from_env = {option: env[name] for option, name in env_names.items() if env.get(name)}
    merged = {**from_env, **{k: v for k, v in options.items() if v is not None}}
    return base.configure(**merged) if merged else base


def create_codex_adapter(version: str | None = None) -> Adapter:
    """Return the Codex adapter for the Codex version the launcher pins (None: every supported version)."""
    return adapter_for("codex", codex_version=version)


def __getattr__(name: str) -> Any:
    # The Adapter protocol needs typing at run time; a hook call only annotates with it.
    if name == "Adapter":
        from ._protocol import Adapter

        return Adapter
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
