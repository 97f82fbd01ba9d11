"""The `acp` command: bridge, parse, render, record, validate, keys, schema-path, fixtures-path, conformance, hook, install, uninstall, status, serve, policy, audit, gen."""

from __future__ import annotations

from ._bridge import bridge_line, run_bridge
from ._main import console_main, main

__all__ = ["bridge_line", "console_main", "main", "run_bridge"]
