"""`acp install`, `new-adapter` and `gen`: what writes files, checked before it writes."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse
    from pathlib import Path
from ._common import UsageError


def _check_judge(args: argparse.Namespace) -> None:
    """Refuse to register a judge that cannot run: every call would get the failure posture."""
    from ..runtime import JudgeLoadError, load_judge

    try:
        if args.policy is not None:
            from ..policy import load_policy_judge

            load_policy_judge(args.policy)
        elif args.judge is not None:
            load_judge(args.judge)
    except JudgeLoadError as exc:
        # N2: the hook would only say so on its own stderr, call after call, while the call runs.
        raise UsageError(
            f"{exc}; nothing registered (the hook loads it the same way, in this environment,"
            " on every call)"
        ) from exc
    if args.policy is None and args.judge is None and args.host != "amp":
        print(
            "note: no --judge or --policy: registering the demo judge, which blocks only"
            " shell commands matching rm -rf",
            file=sys.stderr,
        )


def _cmd_install(args: argparse.Namespace) -> int:
    if args.scope == "managed":
        from .._managed import install_managed

        return install_managed(args)
    if args.resident is not None:
        from ._resident import install_resident  # issue 30

        return install_resident(args)
    from ..install import InstallError, plan_install

    _check_judge(args)
    for option, folder in (("--root", args.root), ("--home", args.home)):
        if folder is not None and not folder.is_dir():
            # N38: a mistyped folder would be created and the hook registered where no host looks.
            raise UsageError(f"{option} {folder} is not an existing folder; nothing registered")
    try:
        plan = plan_install(
            args.host,
            scope=args.scope,
            root=args.root,
            home=args.home,
            judge=args.judge,
            policy=args.policy,
            fail_closed=args.fail_closed,
            timeout_s=args.timeout,
            codex_version=args.codex_version,
            host_version=args.host_version,
            on_unrendered=args.on_unrendered,
            sole_gate=args.sole_gate,
            matcher=args.matcher,
            local=args.local,
            plugin=args.plugin,
            audit_log=args.audit_log,
        )
    except InstallError as exc:
        raise UsageError(str(exc)) from exc
    for note in plan.notes:
        print(f"note: {note}", file=sys.stderr)
    if not plan.changed:
        print(f"{plan.path}: already has the {args.host} hook; nothing to change")
        return 0
    if args.dry_run:
        print(plan.diff(), end="")
        return 0
    from .._uninstall import recorded_apply

    try:
        recorded_apply(plan)  # issue 28: what acp uninstall puts back
    except InstallError as exc:
        raise UsageError(str(exc)) from exc
    for written in (plan, *plan.also):
        print(f"{written.path}: {args.host} hook registered")
    return 0


def _cmd_new_adapter(args: argparse.Namespace) -> int:
    root = _require_checkout()
    from codegen.scaffold import ScaffoldError, write_skeleton

    try:
        written = write_skeleton(args.name, args.root or root)
    except ScaffoldError as exc:
        raise UsageError(str(exc)) from exc
    for path in written:
        print(f"wrote {path}")
    name = args.name
    print(
        f"next (docs/adapter-authoring.md explains every step):\n"
        f"  1. fill in schema/control-plane/v1/hosts/{name}.json from the host's hook docs,"
        f" then run `make codegen`\n"
        f"  2. write parse and render in python/agent_control_plane_core/adapters/{name}.py\n"
        f"  3. add golden cases to fixtures/{name}.json until"
        f" `.venv/bin/python -m pytest tests/test_adapter_{name}.py` passes; include one vetoable"
        f" pre_tool shell call (tool Bash): the demo and the hook tests send it\n"
        f"  4. `make test` and `make demo` (pyproject.toml already names acp-{name}-hook;"
        f" make reinstalls the package when it changes)"
    )
    return 0


def _require_checkout() -> Path:
    """The source checkout, on sys.path so its codegen package imports; refuse outside one."""
    root = _source_checkout()
    if root is None:
        raise UsageError(
            "the generator is not part of the installed package: it lives in the source checkout"
            " (codegen/). Clone the repository, edit schema/control-plane/v1, then run `make codegen`"
        )
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    return root


def _source_checkout() -> Path | None:
    """The repository this package runs from, when it is a source checkout with the generator."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    return root if (root / "codegen" / "driver.py").is_file() else None


def _cmd_gen(args: argparse.Namespace) -> int:
    _require_checkout()
    from codegen.__main__ import main as codegen_main

    return codegen_main(["--check"] if args.check else [])
