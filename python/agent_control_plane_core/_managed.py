"""`acp install HOST --managed`: the hook in the host's own admin layer (issue 28).

Where a host has an admin layer (its declaration's `managed`: the file on Linux and macOS, its
form, how it ranks, the switch that makes the host ignore user and project hooks), the entry is
merged into that file the same way the project or user file takes it. What the entry runs must be
out of the user's reach as the admin file is: the console script, the policy (every layer) and
the judge's module must be owned by root and writable by nobody else, and so must every folder
above them (a sticky folder such as /tmp excepted); anything else is refused. ACP_ADMIN_ROOT
moves the admin paths under another folder, so tests and the lab never touch the real /etc.
"""

from __future__ import annotations

import importlib
import os
import stat
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ._admin_layer import ADMIN_ROOT_ENV, managed_hosts, managed_layer, managed_path
from .install import INSTALLABLE, InstallError, InstallPlan
from .install import hook_command as _hook_command
from .install._base import _check_writable, _Request
from .install._plan import _HOSTS

__all__ = ["ADMIN_ROOT_ENV", "hooks_only", "managed_hosts", "managed_path", "plan_managed"]


def _admin_uids() -> frozenset[int]:
    """Who may own what a managed hook runs: root, and under ACP_ADMIN_ROOT that folder's owner."""
    root = os.environ.get(ADMIN_ROOT_ENV)
    # ACP_ADMIN_ROOT stands for / (a test, the lab or an image build): its owner plays root there.
    return frozenset({0, os.stat(root).st_uid}) if root else frozenset({0})


def _uid_of(item: Path, status: os.stat_result) -> int:
    """The owner of one path the check walks (a seam: tests name a foreign owner without chown)."""
    return status.st_uid


def _admin_owned(path: Path, what: str) -> None:
    """Refuse a file a user could change: not root's, or writable by group or others (or above)."""
    admins = _admin_uids()
    try:
        chain = [path.absolute(), *path.absolute().parents]
        for item in chain:
            status = item.stat()
            sticky = stat.S_ISDIR(status.st_mode) and status.st_mode & stat.S_ISVTX
            if _uid_of(item, status) not in admins:
                raise InstallError(
                    f"{what} {path}: {item} is owned by uid {status.st_uid}, not root, so that user"
                    " can change what the managed hook runs; put it in a root-owned folder"
                    " (for example /etc/agent-control-plane-core/ or /opt/...)"
                )
            if status.st_mode & 0o022 and not sticky:
                raise InstallError(
                    f"{what} {path}: {item} is writable by group or others (mode"
                    f" {status.st_mode & 0o777:o}), so a user can change what the managed hook"
                    " runs; chmod go-w it"
                )
    except OSError as exc:
        raise InstallError(f"{what} {path}: cannot check ({exc.strerror or exc})") from exc


def _policy_files(policy: str) -> list[Path]:
    """The rule file and every base it extends (as far as they load)."""
    from ._judges import JudgeLoadError
    from ._layers import load_layers

    try:
        return [Path(layer.source) for layer in load_layers(str(Path(policy).absolute()))]
    except JudgeLoadError:
        return [Path(policy)]  # refused with the reason by the install's own check


def hooks_only(host: str, environ: Mapping[str, str] | None = None) -> str | None:
    """The admin file's path when it sets the switch that makes the host ignore other hooks."""
    layer = managed_layer(host)
    switch = layer.get("hooks_only") if layer is not None else None
    if not isinstance(switch, str):
        return None
    key = switch.partition("=")[0].strip()
    path = managed_path(host, environ)
    try:
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".toml":
            import tomllib

            data: Any = tomllib.loads(text)
        else:
            import json

            data = json.loads(text)
    except (OSError, ValueError):
        return None
    return str(path) if isinstance(data, dict) and data.get(key) is True else None


def plan_managed(
    host: str,
    *,
    judge: str | None = None,
    policy: str | None = None,
    fail_closed: bool = False,
    timeout_s: int | None = None,
    bin_dir: Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> InstallPlan:
    """Plan the admin-layer entry of one host; refuse what a user could change."""
    if host not in _HOSTS:
        raise InstallError(f"no installer for {host!r}: known hosts are {', '.join(INSTALLABLE)}")
    path = managed_path(host, environ)
    layer = managed_layer(host) or {}
    folder = bin_dir or Path(sys.executable).parent
    script = folder / f"acp-{host}-hook"
    if not script.exists():
        raise InstallError(f"{script} does not exist: install agent-control-plane-core there")
    _admin_owned(script, "the hook program")
    if policy is not None:
        for rules in _policy_files(policy):
            _admin_owned(rules, "the policy")
    if judge is not None:
        module = importlib.import_module(judge.partition(":")[0])
        origin = getattr(module, "__file__", None)
        if isinstance(origin, str):
            _admin_owned(Path(origin), "the judge")
    from .install._command import _registered

    registered = _registered(host, judge, policy)

    def argv(closed: bool) -> list[str]:
        return _hook_command(host, judge=judge, policy=policy, fail_closed=closed, bin_dir=folder)

    request = _Request(
        host=host,
        path=path,
        argv=argv(fail_closed),
        plain_argv=argv(False),
        fail_closed=fail_closed,
        timeout_s=30 if timeout_s is None else timeout_s,
        timeout_set=timeout_s is not None,
    )
    after, before, notes = _HOSTS[host][2](request)
    if after != before:
        _check_writable(path)
    switch = layer.get("hooks_only")
    enforced = (
        f"{host} reads {path} as its admin layer: {layer.get('precedence')}",
        (
            f"Set {switch} in {path} (acp install does not) to make {host} ignore user and"
            " project hooks; until then they run beside this entry."
            if isinstance(switch, str)
            else f"{host} has no switch to ignore user and project hooks: they run beside this"
            " entry, and nothing here stops them from answering too."
        ),
    )
    return InstallPlan(host, path, before, after, notes=(*notes, registered, *enforced))


def install_managed(args: Any) -> int:
    """`acp install HOST --managed` (or --all): plan, print what is enforced, write."""
    hosts = managed_hosts() if getattr(args, "all", False) else (args.host,)
    plans = []
    try:
        for host in hosts:
            plans.append(
                plan_managed(
                    host,
                    judge=args.judge,
                    policy=args.policy,
                    fail_closed=args.fail_closed,
                    timeout_s=args.timeout,
                )
            )
    except InstallError as exc:
        print(f"acp install: {exc}; nothing registered", file=sys.stderr)
        return 2
    from ._uninstall import recorded_apply

    for plan in plans:
        for note in plan.notes:
            print(f"note: {note}", file=sys.stderr)
        if args.dry_run:
            print(plan.diff(), end="")
            continue
        if not plan.changed:
            print(f"{plan.path}: already has the {plan.host} hook; nothing to change")
            continue
        try:
            recorded_apply(plan)
        except InstallError as exc:
            print(f"acp install: {exc}", file=sys.stderr)
            return 2
        print(f"{plan.path}: {plan.host} hook registered in the admin layer")
    return 0
