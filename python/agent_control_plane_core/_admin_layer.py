"""The hosts' admin layers as declared: which file each host reads as admin configuration, where."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from .install import INSTALLABLE, InstallError

__all__ = ["ADMIN_ROOT_ENV", "managed_hosts", "managed_layer", "managed_path"]

ADMIN_ROOT_ENV: Final = "ACP_ADMIN_ROOT"


def managed_layer(host: str) -> Mapping[str, Any] | None:
    """The host's declared admin layer, or None when it has none this project knows of."""
    declaration = importlib.import_module(f"{__package__}._generated.hosts.{host}")
    layer: Mapping[str, Any] | None = getattr(declaration, "MANAGED", None)
    return layer


def managed_hosts() -> tuple[str, ...]:
    """The hosts acp install --managed can write."""
    return tuple(host for host in INSTALLABLE if managed_layer(host) is not None)


def managed_path(host: str, environ: Mapping[str, str] | None = None) -> Path:
    """The admin file on this system (macOS or Linux), under ACP_ADMIN_ROOT when it is set."""
    layer = managed_layer(host)
    if layer is None:
        hosts = ", ".join(managed_hosts())
        raise InstallError(
            f"{host} has no admin layer this project knows of: --managed writes {hosts};"
            f" install {host} with --user instead (a user can edit or remove that entry)"
        )
    env = os.environ if environ is None else environ
    system = str(layer["macos"] if sys.platform == "darwin" else layer["linux"])
    root = env.get(ADMIN_ROOT_ENV)
    return Path(root, system.lstrip("/")) if root else Path(system)
