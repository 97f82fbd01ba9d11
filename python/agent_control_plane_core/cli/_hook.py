"""`acp hook`: run a judge as one host's hook entry, with the entry's options as flags."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, NoReturn

from .._generated.constants import (
    UnrenderedPostures,
)
from ..adapters import AGENT_IDS
from ..runtime import (
    CODEX_VERSION_ENV,
    FAIL_CLOSED_ENV,
    JUDGE_ENV,
    ON_UNRENDERED_ENV,
    POLICY_ENV,
    SOLE_GATE_ENV,
    entry_adapter,
    run_hook_entry,
)

if TYPE_CHECKING:
    import argparse


def _cmd_hook(args: argparse.Namespace) -> int:
    _run_hook({name: getattr(args, name) for name in _HOOK_OPTIONS})


# `acp hook` options: what `acp install` writes into a host's settings runs once per tool call,
# so main() reads these by hand (issue 13: argparse and every subcommand's setup cost about a
# third of a hook call); anything else, including a mistake, goes to argparse and its message.
_HOOK_FLAGS: Final = {"--sole-gate": "sole_gate", "--fail-closed": "fail_closed"}


_HOOK_VALUES: Final = {
    "--judge": "judge",
    "--policy": "policy",
    "--codex-version": "codex_version",
    "--on-unrendered": "on_unrendered",
}


_HOOK_OPTIONS: Final = ("agent", *_HOOK_FLAGS.values(), *_HOOK_VALUES.values())


def _hook_options(words: Sequence[str]) -> dict[str, Any] | None:
    """The options of `acp hook WORDS` in the plain forms argparse reads alike; None otherwise."""
    options: dict[str, Any] = dict.fromkeys(_HOOK_OPTIONS)
    options.update(dict.fromkeys(_HOOK_FLAGS.values(), False))
    rest = iter(words)
    for word in rest:
        if word in _HOOK_FLAGS:
            options[_HOOK_FLAGS[word]] = True
            continue
        name, equals, value = word.partition("=")
        if name in _HOOK_VALUES:
            found = value if equals else next(rest, None)
            if not found or found.startswith("-"):
                return None
            options[_HOOK_VALUES[name]] = found
        elif word.startswith("-") or options["agent"] is not None:
            return None
        else:
            options["agent"] = word
    if options["agent"] not in AGENT_IDS or (options["judge"] and options["policy"]):
        return None
    if options["on_unrendered"] not in (None, *UnrenderedPostures.ALL):
        return None
    return options


def _run_hook(options: Mapping[str, Any]) -> NoReturn:
    """Run the hook entry of options["agent"], the options set as their environment variables."""
    # The judge goes through the same loader as ACP_JUDGE, so a bad one gets the host's posture.
    environ = dict(os.environ)
    if options["judge"]:
        environ[JUDGE_ENV] = options["judge"]
        environ.pop(POLICY_ENV, None)  # an explicit --judge wins over an inherited ACP_POLICY
    if options["policy"]:
        # Loaded by judge_from_env like ACP_POLICY, so a bad file gets the host's posture too;
        # resolved once, here (L13), because judge_from_env refuses a relative path.
        environ[POLICY_ENV] = os.path.abspath(options["policy"])
    if options["on_unrendered"]:
        environ[ON_UNRENDERED_ENV] = options["on_unrendered"]
    if options["fail_closed"]:
        environ[FAIL_CLOSED_ENV] = "1"
    if options["codex_version"]:
        environ[CODEX_VERSION_ENV] = options["codex_version"]
    if options["sole_gate"]:
        environ[SOLE_GATE_ENV] = "1"
    adapter = entry_adapter(options["agent"], environ)
    run_hook_entry(adapter, sole_gate=options["sole_gate"], environ=environ)
