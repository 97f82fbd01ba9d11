"""The hook path loads no validator, generator or heavy library (contract.md §1)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_control_plane_core import AGENT_IDS

from hook_runner import BLOCK_EXIT, NO_COVERAGE, PRE_TOOL

FORBIDDEN = ("jsonschema", "referencing", "jinja2", "datamodel_code_generator", "pydantic")
# Adapter modules a host's adapter subclasses (hosts speaking another host's protocol).
DERIVES_FROM = {
    "auggie": ("claude",),
    "factory": ("claude",),
    "qwen": ("claude",),
    "kiro": ("gemini",),
}

SCRIPT = """
import json, sys
from agent_control_plane_core import adapter_for
adapter = adapter_for({agent!r})
event = adapter.parse(json.loads(sys.argv[1]))
from agent_control_plane_core import Verdict
adapter.render(Verdict(decision="deny", reason="r"), event)
print(json.dumps(sorted(name for name in sys.modules if name.split(".")[0] in {forbidden!r})))
print(json.dumps(sorted(n for n in sys.modules if n.startswith("agent_control_plane_core.adapters."))))
"""


@pytest.mark.parametrize("agent", AGENT_IDS)
def test_parse_and_render_import_nothing_heavy(agent: str) -> None:
    payload = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {}})
    code = SCRIPT.format(agent=agent, forbidden=set(FORBIDDEN))
    result = subprocess.run(
        [sys.executable, "-c", code, payload], capture_output=True, text=True, check=True
    )
    loaded, adapters = (json.loads(line) for line in result.stdout.splitlines())
    assert loaded == []
    # Only the requested host's adapter module, the shared base and the adapter it derives
    # from (Claude-compatible hosts reuse the Claude adapter, Kiro the Gemini parse) are imported.
    modules = [agent, "_base", *DERIVES_FROM.get(agent, ())]
    assert adapters == sorted(f"agent_control_plane_core.adapters.{name}" for name in modules)


def _hook_entry_points() -> dict[str, str]:
    """acp-<agent>-hook console scripts of the installed package -> module:function."""
    from importlib.metadata import entry_points

    found = {
        ep.name: ep.value
        for ep in entry_points(group="console_scripts")
        if ep.name.startswith("acp-") and ep.name.endswith("-hook")
    }
    assert sorted(found) == sorted(f"acp-{agent}-hook" for agent in AGENT_IDS)
    return found


# Imports each entry in a fresh interpreter and answers one payload the way the entry does,
# short of its final os._exit (which would end the process before we can look).
ENTRY_SCRIPT = """
import importlib, json, sys
module_name, _, function = {entry!r}.partition(":")
entry = getattr(importlib.import_module(module_name), function)
assert callable(entry)
from agent_control_plane_core.runtime import entry_adapter, judge_from_env, render_hook_response
environ = {{"ACP_CODEX_VERSION": "0.150.0", "ACP_COPILOT_VERSION": "1.0.102", "AGENT_TOOL_NAME": "Bash"}}
adapter = entry_adapter({agent!r}, environ)
response = render_hook_response(adapter, sys.argv[1], judge_from_env(environ), environ=environ)
assert response.enforced, response
print(json.dumps(sorted(name for name in sys.modules if name.split(".")[0] in {forbidden!r})))
"""

# The payload each host's hook reads on stdin for a command the demo judge blocks: the golden
# fixture's shell call, and Amp's delegate form (parameters on stdin, AGENT_TOOL_NAME names the tool).
ENTRY_PAYLOADS = {**PRE_TOOL, "amp": {"cmd": "rm -rf /"}}


@pytest.mark.parametrize("agent", AGENT_IDS)
def test_hook_entry_in_a_fresh_interpreter_loads_no_forbidden_module(agent: str) -> None:
    entry = _hook_entry_points()[f"acp-{agent}-hook"]
    code = ENTRY_SCRIPT.format(entry=entry, agent=agent, forbidden=set(FORBIDDEN))
    payload = json.dumps(ENTRY_PAYLOADS[agent])
    result = subprocess.run(
        [sys.executable, "-c", code, payload], capture_output=True, text=True, check=True
    )
    assert json.loads(result.stdout) == []


@pytest.mark.parametrize("agent", AGENT_IDS)
def test_hook_console_script_run_imports_no_forbidden_module(agent: str) -> None:
    """The whole process of the installed console script, seen through -X importtime."""
    script = Path(sys.executable).parent / f"acp-{agent}-hook"
    if not script.is_file():
        pytest.skip(f"{script.name} is not installed next to {sys.executable}")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACP_")}
    # Copilot's deny exits 2 from 1.0.70 (below, the body at exit 0 is the block).
    env.update(ACP_CODEX_VERSION="0.150.0", ACP_COPILOT_VERSION="1.0.102", AGENT_TOOL_NAME="Bash")
    result = subprocess.run(
        [sys.executable, "-X", "importtime", str(script)],
        input=json.dumps(ENTRY_PAYLOADS[agent]),
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    # The demo judge blocks rm -rf on every host: the block proves the hook really answered.
    # (copilot 1.0.102 blocks with exit 2 beside its deny body; block_response is the no-version form)
    assert result.returncode in (BLOCK_EXIT[agent], 2), result.stderr
    imported = [
        line.rsplit("|", 1)[1].strip()
        for line in result.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    ]
    assert "agent_control_plane_core.hooks" in imported
    assert [name for name in imported if name.split(".")[0] in FORBIDDEN] == []


# Issue 13: what a hook process must not load on any option path. dataclasses (and inspect, ast,
# dis, tokenize, which it imports) waits for a caller that reads dataclass metadata; argparse,
# pathlib and gettext belong to the rest of the CLI; tomllib is read only when the policy's
# compiled cache is missing or stale. typing (with contextlib and warnings, which it loads, as the
# importlib package does) waits for a caller that reads an alias or evaluates an annotation;
# signal builds its IntEnum classes on import (the deadline and the supervisor use _signal).
HEAVY = (
    "signal",
    "typing",
    "contextlib",
    "warnings",
    "importlib",
    "dataclasses",
    "inspect",
    "ast",
    "dis",
    "tokenize",
    "argparse",
    "gettext",
    "pathlib",
    "tomllib",
    *FORBIDDEN,
)
TESTS_DIR = Path(__file__).resolve().parent
POLICY = TESTS_DIR.parent / "examples" / "policy.toml"

# The whole hook process, as its console script runs it: the entry answers and ends with
# os._exit, which this wrapper makes write the names of the loaded modules first.
PROCESS_SCRIPT = """
import os, sys
exit_now = os._exit
def record_and_exit(code):
    with open({out!r}, "w", encoding="utf-8") as out:
        out.write("\\n".join(sorted(sys.modules)))
    exit_now(code)
os._exit = record_and_exit
sys.argv = [{argv0!r}, *{args!r}]
module_name, _, function = {entry!r}.partition(":")
getattr(__import__(module_name, fromlist=[function]), function)()
"""


def _acp_entry() -> str:
    from importlib.metadata import entry_points

    (found,) = [ep.value for ep in entry_points(group="console_scripts") if ep.name == "acp"]
    return found


def _hook_process(
    tmp_path: Path, argv: list[str], env_extra: dict[str, str], payload: str
) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """Run one console script (argv[0] by name) on payload; its result and loaded modules."""
    script = Path(argv[0]).name
    entry = _acp_entry() if script == "acp" else _hook_entry_points()[script]
    out = tmp_path / "modules.txt"
    code = PROCESS_SCRIPT.format(out=str(out), argv0=argv[0], args=argv[1:], entry=entry)
    # Uninstrumented: this counts the hook's own modules, not coverage's.
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACP_")}
    env.update({**NO_COVERAGE, **env_extra})
    result = subprocess.run(
        [sys.executable, "-c", code], input=payload, capture_output=True, text=True, env=env
    )
    return result, set(out.read_text(encoding="utf-8").split())


def _shell_payload(command: str) -> str:
    return json.dumps(
        {
            "session_id": "s",
            "cwd": "/home/dev/app",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
        }
    )


def _heavy(modules: set[str]) -> list[str]:
    return sorted(name for name in modules if name.split(".")[0] in HEAVY)


def test_plain_hook_process_loads_no_heavy_module(tmp_path: Path) -> None:
    result, modules = _hook_process(tmp_path, ["acp-claude-hook"], {}, _shell_payload("rm -rf /"))
    assert result.returncode == BLOCK_EXIT["claude"], result.stderr
    assert json.loads(result.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "agent_control_plane_core.hooks" in modules
    # The judge's supervising fork is the fail-closed path's only.
    assert "agent_control_plane_core._supervise" not in modules
    assert _heavy(modules) == []


def test_claude_hook_process_rules_out_other_senders_without_their_adapters(
    tmp_path: Path,
) -> None:
    # XH-1: the Claude entry tells Cursor and Droid payloads apart by their declared
    # sender_markers; a Claude Code call loads neither adapter to do so.
    result, modules = _hook_process(tmp_path, ["acp-claude-hook"], {}, _shell_payload("ls"))
    assert result.returncode == 0, result.stderr
    assert "agent_control_plane_core.adapters._foreign" in modules
    from agent_control_plane_core._generated.hosts import SENDER_MARKERS

    senders = [host for host, _, _ in SENDER_MARKERS["claude"]]
    assert senders  # cursor and factory declare the Claude entry
    others = {f"agent_control_plane_core.adapters.{host}" for host in senders}
    assert modules & others == set()


def test_policy_hook_process_reads_the_compiled_cache_not_tomllib(tmp_path: Path) -> None:
    rules = tmp_path / "policy.toml"
    # A content of its own: the per-user cache is keyed by the file's digest.
    rules.write_bytes(POLICY.read_bytes() + f"# {tmp_path}\n".encode())
    env = {"ACP_POLICY": str(rules)}
    payload = _shell_payload("sudo rm -r -f /")
    # The first call parses the TOML (tomllib) and writes the per-user cache, not in the folder.
    first, first_modules = _hook_process(tmp_path, ["acp-claude-hook"], env, payload)
    assert "tomllib" in first_modules
    assert sorted(path.name for path in tmp_path.iterdir()) == ["modules.txt", "policy.toml"]
    result, modules = _hook_process(tmp_path, ["acp-claude-hook"], env, payload)
    assert result.stdout == first.stdout
    assert json.loads(result.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "agent_control_plane_core.policy" in modules
    assert _heavy(modules) == []


def test_audit_log_hook_process_loads_no_heavy_module(tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    result, modules = _hook_process(
        tmp_path, ["acp-claude-hook"], {"ACP_AUDIT_LOG": str(log)}, _shell_payload("ls")
    )
    assert result.returncode == 0, result.stderr
    (record,) = (json.loads(line) for line in log.read_text(encoding="utf-8").splitlines())
    assert record["verdict"] == {"decision": "allow"}
    assert "agent_control_plane_core.audit" in modules
    assert _heavy(modules) == []


def test_fail_closed_hook_process_loads_no_heavy_module(tmp_path: Path) -> None:
    # Not JSON: the failure path under ACP_FAIL_CLOSED=1 blocks with exit 2.
    result, modules = _hook_process(
        tmp_path, ["acp-claude-hook"], {"ACP_FAIL_CLOSED": "1"}, "not json"
    )
    assert result.returncode == 2
    assert "ACP_FAIL_CLOSED=1" in result.stderr
    # The judge ran in a supervised child (a judge killed by a signal still blocks), and the
    # parent that answered loaded nothing heavy for it.
    assert "agent_control_plane_core._supervise" in modules
    assert _heavy(modules) == []


def test_fail_closed_audited_hook_process_loads_no_heavy_module(tmp_path: Path) -> None:
    # The supervising parent rebuilds the child's event and verdict for the audit record.
    log = tmp_path / "audit.jsonl"
    env = {"ACP_FAIL_CLOSED": "1", "ACP_AUDIT_LOG": str(log)}
    result, modules = _hook_process(tmp_path, ["acp-claude-hook"], env, _shell_payload("rm -rf /"))
    assert result.returncode == 2, result.stderr
    (record,) = (json.loads(line) for line in log.read_text(encoding="utf-8").splitlines())
    assert record["verdict"]["decision"] == "deny"
    assert record["event"]["meta"]["native_event"] == "PreToolUse"
    assert "agent_control_plane_core._supervise" in modules
    assert _heavy(modules) == []


def _installed_command(tmp_path: Path, **options: object) -> tuple[list[str], dict[str, str]]:
    """The pre-tool command `acp install claude --project` writes: the entry's argv, its env."""
    import shlex

    from agent_control_plane_core.install import plan_install

    root = tmp_path / "project"
    root.mkdir()
    plan_install("claude", root=root, **options).apply()  # type: ignore[arg-type]
    settings = json.loads((root / ".claude" / "settings.json").read_text(encoding="utf-8"))
    (command,) = {
        hook["command"] for entry in settings["hooks"]["PreToolUse"] for hook in entry["hooks"]
    }
    argv = shlex.split(command)
    # N13: /usr/bin/env [-u NAME] NAME=VALUE... acp-claude-hook, never `acp hook`.
    assert argv[0] == "/usr/bin/env", argv
    env: dict[str, str] = {}
    words = argv[1:]
    while words[0] == "-u" or "=" in words[0]:
        if words[0] == "-u":
            words = words[2:]
            continue
        name, _, value = words.pop(0).partition("=")
        env[name] = value
    assert [Path(word).name for word in words] == ["acp-claude-hook"], argv
    return words, env


def test_installed_judge_command_runs_without_argparse(tmp_path: Path) -> None:
    argv, env = _installed_command(tmp_path, judge="hook_judges:denies", fail_closed=True)
    assert env == {"ACP_JUDGE": "hook_judges:denies", "ACP_FAIL_CLOSED": "1"}
    env["PYTHONPATH"] = str(TESTS_DIR)
    result, modules = _hook_process(tmp_path, argv, env, _shell_payload("ls"))
    assert result.returncode == BLOCK_EXIT["claude"], result.stderr
    body = json.loads(result.stdout)["hookSpecificOutput"]
    assert (body["permissionDecision"], body["permissionDecisionReason"]) == (
        "deny",
        "denied by test",
    )
    assert "agent_control_plane_core.cli" not in modules  # the fast entry, not `acp hook`
    assert _heavy(modules) == []


def test_installed_policy_command_runs_without_argparse_or_tomllib(tmp_path: Path) -> None:
    rules = tmp_path / "policy.toml"
    rules.write_bytes(POLICY.read_bytes())
    # acp install loads the policy once to check it, which writes the compiled cache.
    argv, env = _installed_command(tmp_path, policy=str(rules))
    from agent_control_plane_core.policy import load_policy_judge

    load_policy_judge(str(rules))
    result, modules = _hook_process(tmp_path, argv, env, _shell_payload("curl x | sh"))
    assert json.loads(result.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "agent_control_plane_core.policy" in modules
    assert _heavy(modules) == []


def test_a_hook_line_argparse_would_refuse_still_gets_its_message() -> None:
    # The hand-read options take only the plain forms; anything else goes to argparse.
    acp = Path(sys.executable).parent / "acp"
    argv = [str(acp), "hook", "claude", "--judge", "a:b", "--policy", "/p"]
    result = subprocess.run(argv, input="{}", capture_output=True, text=True, check=False)
    assert result.returncode == 2
    assert "argument --policy: not allowed with argument --judge" in result.stderr
