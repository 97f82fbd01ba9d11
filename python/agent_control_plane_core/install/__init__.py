"""`acp install`: register a hook entry in a host's own configuration, merged and idempotent."""

from __future__ import annotations

from ._base import SCOPES, InstallError, InstallPlan
from ._command import hook_command
from ._plan import INSTALLABLE, plan_install

__all__ = ["INSTALLABLE", "SCOPES", "InstallError", "InstallPlan", "hook_command", "plan_install"]
