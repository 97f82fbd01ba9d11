"""Adapter registry: one module per host, looked up by agent id."""

from __future__ import annotations

import importlib
from typing import Any, Final

from .._generated.hosts import HOST_IDS
from ._base import Adapter

__all__ = ["AGENT_IDS", "Adapter", "adapter_for", "create_codex_adapter"]

AGENT_IDS: Final[tuple[str, ...]] = HOST_IDS
"""Ids of every shipped adapter, sorted."""


def adapter_for(agent: str, **options: Any) -> Adapter:
    """Return the adapter for an agent id, configured with options; never reads the environment."""
    if agent not in AGENT_IDS:
        raise ValueError(f"unknown agent {agent!r}: known agent ids are {', '.join(AGENT_IDS)}")
    # Import only the host asked for: the hook path loads one adapter module.
    module = importlib.import_module(f"{__name__}.{agent}")
    adapter: Adapter = getattr(module, f"{agent}_adapter")
    return adapter.configure(**options) if options else adapter


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
