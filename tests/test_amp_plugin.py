"""The Amp plugin acp install amp --plugin writes, run under node against a stand-in amp API."""

from __future__ import annotations

import json
import shutil
import subprocess
import textwrap
from pathlib import Path
from typing import Any

import pytest

from agent_control_plane_core.install import InstallError, plan_install

from hook_runner import BIN, hook_env
from plugin_runner import fake_hook_bin, run_driver

NODE = shutil.which("node")
PLUGIN_SOURCE = (
    Path(__file__).resolve().parent.parent
    / "python/agent_control_plane_core/_generated/plugins/amp.ts"
)
CALL, RESULT = "tool.call", "tool.result"
REJECT = "reject-and-continue"

# What the stand-in hook records of its environment (plugin_runner.FAKE_HOOK).
RECORDED = {
    "form": "ACP_AMP_FORM",
    "delegate_tool": "AGENT_TOOL_NAME",
    "fail_closed": "ACP_FAIL_CLOSED",
}

# Loads the plugin as Amp does (the default export receives the amp API), then fires the events
# of each step; ctx.ui.confirm answers from the step ("throw" makes it throw, absent: no ui).
DRIVER = textwrap.dedent(
    """\
    import { pathToFileURL } from "node:url";
    const [pluginPath, specText] = process.argv.slice(2);
    const spec = JSON.parse(specText);
    const mod = await import(pathToFileURL(pluginPath).href);
    const handlers = {};
    const logs = [];
    const amp = {
      on(event, handler) { handlers[event] = handler; return { dispose() {} }; },
      logger: { log: (text) => logs.push(String(text)) },
    };
    await mod.default(amp);
    const results = [];
    for (const step of spec.steps) {
      const asked = [];
      const ctx = { logger: { log: (text) => logs.push(String(text)) } };
      if ("confirm" in step) {
        ctx.ui = {
          async confirm(options) {
            asked.push(options);
            if (step.confirm === "throw") throw new Error("no terminal");
            return step.confirm;
          },
        };
      }
      try {
        const answer = await handlers[step.hook](step.event, ctx);
        results.push({ answer: answer === undefined ? "undefined" : answer, asked });
      } catch (error) {
        results.push({ threw: error.message });
      }
    }
    console.log(JSON.stringify({ exports: Object.keys(mod), hooks: Object.keys(handlers), results, logs }));
    """
)


@pytest.fixture
def node() -> str:
    assert NODE is not None, "these tests run the plugin under node: put node on PATH"
    return NODE


def _bin(tmp: Path, answers: dict[str, Any]) -> Path:
    return fake_hook_bin(tmp, "amp", answers, RECORDED)


def _plugin(tmp: Path, bin_dir: Path, name: str = "plugin.mjs", **options: Any) -> Path:
    plan = plan_install("amp", root=tmp / "project", bin_dir=bin_dir, plugin=True, **options)
    path = tmp / name  # node reads .mjs as a module; Amp reads the same text as TypeScript
    path.write_text(plan.after, encoding="utf-8")
    return path


def _drive(
    node: str, plugin: Path, steps: list[dict[str, Any]], env: dict[str, str]
) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(
        run_driver(node, DRIVER, plugin, {"steps": steps}, env).stdout
    )
    return result


def _call(tool: str = "Bash", use: str = "toolu_1", **tool_input: Any) -> dict[str, Any]:
    return {
        "hook": CALL,
        "event": {
            "toolUseID": use,
            "tool": tool,
            "input": tool_input or {"cmd": "ls"},
            "thread": {"id": "T-1"},
        },
    }


def _result(output: Any = "a.txt\n", use: str = "toolu_1", status: str = "done") -> dict[str, Any]:
    return {
        "hook": RESULT,
        "event": {
            "toolUseID": use,
            "tool": "Bash",
            "input": {"cmd": "ls"},
            "thread": {"id": "T-1"},
            "status": status,
            "output": output,
        },
    }


def _calls(bin_dir: Path) -> list[dict[str, Any]]:
    path = bin_dir / "calls.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _answers(got: dict[str, Any]) -> list[Any]:
    return [result["answer"] for result in got["results"]]


def test_the_plugin_default_export_registers_both_tool_events(node: str, tmp_path: Path) -> None:
    got = _drive(node, _plugin(tmp_path, _bin(tmp_path, {})), [], hook_env("amp"))
    # Amp calls the default export with its API; the plugin subscribes through amp.on only.
    assert got["exports"] == ["default"]
    assert sorted(got["hooks"]) == [CALL, RESULT]


def test_exit_2_rejects_with_the_reason_and_skips_the_rejected_calls_result(
    node: str, tmp_path: Path
) -> None:
    bin_dir = _bin(tmp_path, {CALL: {"exit": 2, "stderr": "no rm\n"}})
    env = hook_env("amp", AGENT_TOOL_NAME="Read")
    got = _drive(node, _plugin(tmp_path, bin_dir), [_call(), _result()], env)
    assert _answers(got) == [{"action": REJECT, "message": "no rm"}, "undefined"]
    # Amp still emits tool.result for the rejected call: the entry is not asked about it.
    (call,) = _calls(bin_dir)
    assert call["payload"] == {
        "event": CALL,
        "tool": "Bash",
        "toolUseID": "toolu_1",
        "input": {"cmd": "ls"},
        "threadID": "T-1",
        "cwd": str(tmp_path),
    }
    # The entry reads the plugin form, never the delegate's variables Amp may have inherited.
    assert (call["argv"], call["form"], call["delegate_tool"]) == ([], "plugin", None)


def test_exit_2_without_stderr_rejects_with_the_declared_default_reason(
    node: str, tmp_path: Path
) -> None:
    bin_dir = _bin(tmp_path, {CALL: {"exit": 2}})
    got = _drive(node, _plugin(tmp_path, bin_dir), [_call()], hook_env("amp"))
    assert _answers(got) == [{"action": REJECT, "message": "blocked by monitor"}]


def test_an_empty_answer_allows_and_an_input_answer_modifies(node: str, tmp_path: Path) -> None:
    bin_dir = _bin(tmp_path, {})
    got = _drive(node, _plugin(tmp_path, bin_dir), [_call()], hook_env("amp"))
    # Amp needs an answer from every tool.call handler: an abstaining allow is explicit.
    assert _answers(got) == [{"action": "allow"}]
    (bin_dir / "answers.json").write_text(
        json.dumps({CALL: {"stdout": json.dumps({"input": {"cmd": "ls -a"}})}}), encoding="utf-8"
    )
    got = _drive(node, _plugin(tmp_path, bin_dir), [_call()], hook_env("amp"))
    assert _answers(got) == [{"action": "modify", "input": {"cmd": "ls -a"}}]


@pytest.mark.parametrize(
    ("confirm", "expected"),
    [
        (True, {"action": "allow"}),
        (False, {"action": REJECT, "message": "sure?"}),
        # An ask nobody can answer must not run the call.
        ("throw", {"action": REJECT, "message": "sure?"}),
    ],
)
def test_an_ask_runs_the_call_only_when_the_user_confirms(
    node: str, tmp_path: Path, confirm: Any, expected: dict[str, Any]
) -> None:
    bin_dir = _bin(tmp_path, {CALL: {"stdout": json.dumps({"ask": "sure?"})}})
    step = {**_call(), "confirm": confirm}
    got = _drive(node, _plugin(tmp_path, bin_dir), [step], hook_env("amp"))
    (result,) = got["results"]
    assert result["answer"] == expected
    assert [asked["message"] for asked in result["asked"]] == ["sure?"]


def test_an_ask_without_a_confirmation_ui_rejects(node: str, tmp_path: Path) -> None:
    bin_dir = _bin(tmp_path, {CALL: {"stdout": json.dumps({"ask": "sure?"})}})
    got = _drive(node, _plugin(tmp_path, bin_dir), [_call()], hook_env("amp"))
    assert _answers(got) == [{"action": REJECT, "message": "sure?"}]


def test_an_output_replacement_and_held_context_reach_the_tool_result(
    node: str, tmp_path: Path
) -> None:
    answers = {
        CALL: {"stdout": json.dumps({"context": "ctx-before"})},
        RESULT: {"stdout": json.dumps({"output": "[redacted]", "context": "ctx-after"})},
    }
    bin_dir = _bin(tmp_path, answers)
    got = _drive(node, _plugin(tmp_path, bin_dir), [_call(), _result("TOKEN=1")], hook_env("amp"))
    assert _answers(got) == [
        {"action": "allow"},
        {"status": "done", "output": "[redacted]\n\nctx-before\n\nctx-after"},
    ]
    after = _calls(bin_dir)[1]["payload"]
    assert (after["event"], after["status"], after["output"]) == (RESULT, "done", "TOKEN=1")


def test_a_result_with_nothing_to_change_keeps_amps_own_result(node: str, tmp_path: Path) -> None:
    bin_dir = _bin(tmp_path, {})
    got = _drive(node, _plugin(tmp_path, bin_dir), [_result()], hook_env("amp"))
    assert _answers(got) == ["undefined"]


def test_notes_join_a_content_block_result_as_a_text_block(node: str, tmp_path: Path) -> None:
    bin_dir = _bin(tmp_path, {RESULT: {"stdout": json.dumps({"warning": "careful"})}})
    blocks = [{"type": "text", "text": "a.txt"}]
    got = _drive(node, _plugin(tmp_path, bin_dir), [_result(blocks)], hook_env("amp"))
    assert _answers(got) == [
        {"status": "done", "output": [*blocks, {"type": "text", "text": "careful"}]}
    ]


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
    bin_dir = _bin(tmp_path, {CALL: answer, RESULT: answer})
    env = hook_env("amp")
    got = _drive(node, _plugin(tmp_path, bin_dir), [_call(), _result("TOKEN=1")], env)
    assert _answers(got) == [{"action": "allow"}, "undefined"]
    assert f"agent-control-plane: {why}; the call runs" in got["logs"]
    # A call the plugin rejected has no result to judge, so the result is another call's.
    steps = [_call(), _result("TOKEN=1", "toolu_2")]
    closed = _drive(node, _plugin(tmp_path, bin_dir, fail_closed=True), steps, env)
    message = (
        f"agent-control-plane: {why}; blocked because the plugin was installed with --fail-closed"
    )
    withheld = (
        f"agent-control-plane: {why}; the output is withheld because the plugin was installed"
        " with --fail-closed"
    )
    assert _answers(closed) == [
        {"action": REJECT, "message": message},
        {"status": "done", "output": withheld},
    ]
    # The installed command is the fast entry with ACP_FAIL_CLOSED=1 in its environment (N13).
    assert _calls(bin_dir)[-1]["fail_closed"] == "1"


def test_a_hook_that_cannot_start_rejects_only_when_fail_closed(node: str, tmp_path: Path) -> None:
    bin_dir = _bin(tmp_path, {})
    open_plugin = _plugin(tmp_path, bin_dir)
    closed_plugin = _plugin(tmp_path, bin_dir, "closed.mjs", fail_closed=True)
    for script in bin_dir.glob("acp*"):
        script.unlink()
    env = hook_env("amp")
    got = _drive(node, open_plugin, [_call()], env)
    assert _answers(got) == [{"action": "allow"}]
    assert any("cannot start" in line and "the call runs" in line for line in got["logs"])
    (closed,) = _answers(_drive(node, closed_plugin, [_call()], env))
    assert closed["action"] == REJECT
    # env(1) starts and then finds no hook (exit 127), so the message names the missing entry.
    assert "acp-amp-hook" in closed["message"] and "--fail-closed" in closed["message"]


def test_a_hook_past_the_install_timeout_is_killed_and_fails_closed(
    node: str, tmp_path: Path
) -> None:
    bin_dir = _bin(tmp_path, {CALL: {"sleep": 60}})
    plugin = _plugin(tmp_path, bin_dir, fail_closed=True, timeout_s=1)
    (answer,) = _answers(_drive(node, plugin, [_call()], hook_env("amp")))
    assert answer["action"] == REJECT
    assert answer["message"].startswith("agent-control-plane: no answer within 1000 ms")


def test_plugin_is_an_amp_option_and_a_foreign_file_is_kept(tmp_path: Path) -> None:
    with pytest.raises(InstallError, match="--plugin"):
        plan_install("claude", root=tmp_path, bin_dir=BIN, plugin=True)
    target = tmp_path / ".amp" / "plugins" / "agent-control-plane.ts"
    target.parent.mkdir(parents=True)
    target.write_text("export default function () {}\n", encoding="utf-8")
    with pytest.raises(InstallError, match="not written by acp install"):
        plan_install("amp", root=tmp_path, bin_dir=BIN, plugin=True)
    user = plan_install("amp", scope="user", home=tmp_path, bin_dir=BIN, plugin=True)
    # Amp's global plugin folder (ampcode.com/manual/plugin-api).
    assert user.path == tmp_path / ".config" / "amp" / "plugins" / "agent-control-plane.ts"


def _real_plugin(tmp_path: Path) -> Path:
    plugin = tmp_path / "real.mjs"
    plan = plan_install("amp", root=tmp_path, bin_dir=BIN, plugin=True)
    plugin.write_text(plan.after, encoding="utf-8")
    return plugin


def test_the_installed_plugin_rejects_rm_rf_through_the_real_hook_entry(
    node: str, tmp_path: Path
) -> None:
    steps = [
        _call(cmd="rm -rf /"),
        _call("Read", "toolu_2", path="/w/a.txt"),
        _result("a.txt\n", "toolu_2"),
    ]
    # Amp's delegate variables in its environment must not turn the call into a delegate one.
    env = hook_env("amp", AGENT_TOOL_NAME="Read", AMP_THREAD_ID="T-x")
    got = _drive(node, _real_plugin(tmp_path), steps, env)
    assert _answers(got) == [
        {"action": REJECT, "message": "demo policy: rm -rf blocked"},
        {"action": "allow"},
        "undefined",
    ]


def test_the_real_hook_entry_asks_and_redacts_through_the_plugin(node: str, tmp_path: Path) -> None:
    plugin = _real_plugin(tmp_path)
    asks = _drive(
        node,
        plugin,
        [{**_call(), "confirm": False}, {**_call(use="toolu_2"), "confirm": True}],
        hook_env("amp", "asks"),
    )
    assert _answers(asks) == [{"action": REJECT, "message": "confirm please"}, {"action": "allow"}]
    redacted = _drive(node, plugin, [_result("TOKEN=1")], hook_env("amp", "redacts"))
    assert _answers(redacted) == [{"status": "done", "output": "[redacted]"}]


def test_the_generated_plugin_is_valid_typescript(node: str) -> None:
    # Amp loads plugins as TypeScript (ampcode.com/manual/plugin-api); its loader transpiles them,
    # so the file must parse as TypeScript, not only run under node as the .mjs copies above do.
    from test_host_static import node_modules

    typescript = node_modules() / "typescript"
    script = (
        f"const ts = require({json.dumps(str(typescript))});"
        "const src = require('fs').readFileSync(process.argv[1], 'utf8');"
        "const out = ts.transpileModule(src, {reportDiagnostics: true, fileName: 'amp.ts',"
        " compilerOptions: {module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022}});"
        "console.log(JSON.stringify(out.diagnostics.map("
        "d => ts.flattenDiagnosticMessageText(d.messageText, ' '))));"
    )
    done = subprocess.run(
        [node, "-e", script, str(PLUGIN_SOURCE)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert json.loads(done.stdout) == []


def test_an_input_that_cannot_be_sent_takes_the_fail_posture_without_throwing(
    node: str, tmp_path: Path
) -> None:
    # A BigInt has no JSON form; a handler that threw would stop Amp's thread (hosts/amp.json).
    driver = tmp_path / "bigint.mjs"
    bin_dir = _bin(tmp_path, {})
    closed = _plugin(tmp_path, bin_dir, "closed.mjs", fail_closed=True)
    driver.write_text(
        textwrap.dedent(
            """\
            const mod = await import(process.argv[2]);
            let handler;
            await mod.default({ on: (event, fn) => { if (event === "tool.call") handler = fn; } });
            const event = { toolUseID: "t", tool: "Bash", input: { cmd: 1n }, thread: { id: "T" } };
            console.log(JSON.stringify(await handler(event, {})));
            """
        ),
        encoding="utf-8",
    )
    done = subprocess.run(
        [node, str(driver), closed.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    answer = json.loads(done.stdout)
    assert answer["action"] == REJECT
    assert answer["message"].startswith("agent-control-plane: cannot send the call to the hook (")
    assert _calls(bin_dir) == []  # serialized first: no hook process was started
