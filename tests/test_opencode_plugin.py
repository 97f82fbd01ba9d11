"""The opencode plugin acp install writes, run under node: what it sends, throws, rewrites and adds."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path
from typing import Any

import pytest

from agent_control_plane_core.install import plan_install

from hook_runner import BIN, hook_env
from plugin_runner import fake_hook_bin, run_driver

NODE = shutil.which("node")
BEFORE, AFTER = "tool.execute.before", "tool.execute.after"

# What the stand-in hook records of its environment (plugin_runner.FAKE_HOOK).
RECORDED = {"fail_closed": "ACP_FAIL_CLOSED"}

# Loads the plugin as opencode does (each export is a plugin function), runs the hook steps.
DRIVER = textwrap.dedent(
    """\
    import { pathToFileURL } from "node:url";
    const [pluginPath, specText] = process.argv.slice(2);
    const spec = JSON.parse(specText);
    const mod = await import(pathToFileURL(pluginPath).href);
    const hooks = await Object.values(mod)[0]({ directory: spec.directory });
    const results = [];
    for (const step of spec.steps) {
      const output = step.output;
      const args = output.args;
      try {
        await hooks[step.hook](step.input, output);
        results.push({ output, sameArgs: output.args === args });
      } catch (error) {
        results.push({ error: error.message });
      }
    }
    console.log(JSON.stringify({ exports: Object.keys(mod), hooks: Object.keys(hooks), results }));
    """
)


@pytest.fixture
def node() -> str:
    assert NODE is not None, "these tests run the plugin under node: put node on PATH"
    return NODE


def _bin(tmp: Path, answers: dict[str, Any]) -> Path:
    return fake_hook_bin(tmp, "opencode", answers, RECORDED)


def _plugin(tmp: Path, bin_dir: Path, **options: Any) -> Path:
    plan = plan_install("opencode", root=tmp / "project", bin_dir=bin_dir, **options)
    path = tmp / "plugin.mjs"  # node reads .mjs as a module, as opencode reads the .js
    path.write_text(plan.after, encoding="utf-8")
    return path


def _drive(
    node: str, plugin: Path, steps: list[dict[str, Any]], directory: Path, env: dict[str, str]
) -> tuple[dict[str, Any], str]:
    done = run_driver(node, DRIVER, plugin, {"directory": str(directory), "steps": steps}, env)
    return json.loads(done.stdout), done.stderr


def _before(tool: str = "bash", **args: Any) -> dict[str, Any]:
    return {
        "hook": BEFORE,
        "input": {"tool": tool, "sessionID": "ses_1", "callID": "call_1"},
        "output": {"args": args or {"command": "ls", "description": "List"}},
    }


def _after(text: str = "a.txt\n") -> dict[str, Any]:
    return {
        "hook": AFTER,
        "input": {"tool": "bash", "sessionID": "ses_1", "callID": "call_1", "args": {}},
        "output": {"title": "List", "output": text, "metadata": {}},
    }


def _calls(bin_dir: Path) -> list[dict[str, Any]]:
    lines = (bin_dir / "calls.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def test_plugin_exports_only_a_plugin_function_registering_both_tool_hooks(
    node: str, tmp_path: Path
) -> None:
    bin_dir = _bin(tmp_path, {})
    got, _ = _drive(node, _plugin(tmp_path, bin_dir), [], tmp_path, hook_env("opencode"))
    # opencode calls every export as a plugin and rejects one that is not a function.
    assert got["exports"] == ["AgentControlPlane"]
    assert sorted(got["hooks"]) == [AFTER, BEFORE]


def test_exit_2_throws_the_reason_and_the_payload_is_the_adapters_native_shape(
    node: str, tmp_path: Path
) -> None:
    bin_dir = _bin(tmp_path, {BEFORE: {"exit": 2, "stderr": "no rm\n"}})
    got, _ = _drive(node, _plugin(tmp_path, bin_dir), [_before()], tmp_path, hook_env("opencode"))
    assert got["results"] == [{"error": "no rm"}]
    (call,) = _calls(bin_dir)
    assert call["argv"] == []
    assert call["payload"] == {
        "event": BEFORE,
        "tool": "bash",
        "sessionID": "ses_1",
        "callID": "call_1",
        "args": {"command": "ls", "description": "List"},
        "cwd": str(tmp_path),
    }


def test_exit_2_without_stderr_throws_the_declared_default_reason(
    node: str, tmp_path: Path
) -> None:
    bin_dir = _bin(tmp_path, {BEFORE: {"exit": 2}})
    got, _ = _drive(node, _plugin(tmp_path, bin_dir), [_before()], tmp_path, hook_env("opencode"))
    assert got["results"] == [{"error": "blocked by monitor"}]


def test_a_rewrite_replaces_the_keys_of_the_same_args_object(node: str, tmp_path: Path) -> None:
    answer = {"args": {"command": "ls -a"}}
    bin_dir = _bin(tmp_path, {BEFORE: {"stdout": json.dumps(answer)}})
    got, _ = _drive(node, _plugin(tmp_path, bin_dir), [_before()], tmp_path, hook_env("opencode"))
    (result,) = got["results"]
    # opencode executes the object it passed in, so the plugin must edit it, not replace it.
    assert result["sameArgs"] is True
    assert result["output"]["args"] == {"command": "ls -a"}


def test_context_before_the_tool_reaches_the_same_calls_output(node: str, tmp_path: Path) -> None:
    answers = {
        BEFORE: {"stdout": json.dumps({"context": "ctx-before"})},
        AFTER: {"stdout": json.dumps({"context": "ctx-after", "warning": "careful"})},
    }
    bin_dir = _bin(tmp_path, answers)
    got, _ = _drive(
        node, _plugin(tmp_path, bin_dir), [_before(), _after()], tmp_path, hook_env("opencode")
    )
    assert got["results"][1]["output"]["output"] == "a.txt\n\n\nctx-before\n\ncareful\n\nctx-after"
    after = _calls(bin_dir)[1]["payload"]
    assert (after["event"], after["output"], after["title"]) == (AFTER, "a.txt\n", "List")


def test_an_output_replacement_replaces_the_text_the_model_reads(node: str, tmp_path: Path) -> None:
    bin_dir = _bin(tmp_path, {AFTER: {"stdout": json.dumps({"output": "[redacted]"})}})
    got, _ = _drive(
        node, _plugin(tmp_path, bin_dir), [_after("TOKEN=1")], tmp_path, hook_env("opencode")
    )
    assert got["results"][0]["output"]["output"] == "[redacted]"


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        ({"exit": 1, "stderr": "Traceback"}, "the hook ended with exit 1: Traceback"),
        ({"stdout": "not json"}, "the hook's answer is not a JSON object"),
        ({"stdout": "[1]"}, "the hook's answer is not a JSON object"),
    ],
)
def test_a_failed_hook_lets_the_call_run_unless_installed_fail_closed(
    node: str, tmp_path: Path, answer: dict[str, Any], why: str
) -> None:
    bin_dir = _bin(tmp_path, {BEFORE: answer})
    env = hook_env("opencode")
    got, stderr = _drive(node, _plugin(tmp_path, bin_dir), [_before()], tmp_path, env)
    assert got["results"][0]["output"]["args"] == {"command": "ls", "description": "List"}
    assert f"agent-control-plane: {why}; the call runs" in stderr
    closed, _ = _drive(
        node, _plugin(tmp_path, bin_dir, fail_closed=True), [_before()], tmp_path, env
    )
    assert closed["results"] == [
        {
            "error": f"agent-control-plane: {why}; blocked because the plugin was installed with --fail-closed"
        }
    ]
    # The installed command is the fast entry with ACP_FAIL_CLOSED=1 in its environment (N13).
    assert {k: _calls(bin_dir)[-1][k] for k in ("argv", "fail_closed")} == {
        "argv": [],
        "fail_closed": "1",
    }


def test_a_hook_that_cannot_start_blocks_only_when_fail_closed(node: str, tmp_path: Path) -> None:
    bin_dir = _bin(tmp_path, {})
    open_plugin = _plugin(tmp_path, bin_dir)
    closed_plugin = tmp_path / "closed.mjs"
    closed_plugin.write_text(
        plan_install("opencode", root=tmp_path / "p", bin_dir=bin_dir, fail_closed=True).after,
        encoding="utf-8",
    )
    for script in bin_dir.glob("acp*"):
        script.unlink()
    env = hook_env("opencode")
    got, stderr = _drive(node, open_plugin, [_before()], tmp_path, env)
    assert "error" not in got["results"][0]
    assert "cannot start" in stderr and "the call runs" in stderr
    closed, _ = _drive(node, closed_plugin, [_before()], tmp_path, env)
    # env(1) starts and then finds no hook (exit 127), so the error names the missing entry.
    assert "acp-opencode-hook" in closed["results"][0]["error"]
    assert "--fail-closed" in closed["results"][0]["error"]


def test_a_hook_past_the_install_timeout_is_killed_and_fails_closed(
    node: str, tmp_path: Path
) -> None:
    bin_dir = _bin(tmp_path, {BEFORE: {"sleep": 60}})
    plugin = _plugin(tmp_path, bin_dir, fail_closed=True, timeout_s=1)
    got, _ = _drive(node, plugin, [_before()], tmp_path, hook_env("opencode"))
    assert got["results"][0]["error"].startswith("agent-control-plane: no answer within 1000 ms")


def test_the_installed_plugin_blocks_rm_rf_through_the_real_hook_entry(
    node: str, tmp_path: Path
) -> None:
    plugin = tmp_path / "plugin.mjs"
    plugin.write_text(plan_install("opencode", root=tmp_path, bin_dir=BIN).after, encoding="utf-8")
    steps = [
        _before(command="rm -rf /", description="Wipe"),
        _before("read", filePath="/w/a.txt"),
        _after(),
    ]
    got, _ = _drive(node, plugin, steps, tmp_path, hook_env("opencode"))
    denied, read, after = got["results"]
    assert denied == {"error": "demo policy: rm -rf blocked"}
    assert read["output"]["args"] == {"filePath": "/w/a.txt"}
    assert after["output"]["output"] == "a.txt\n"
