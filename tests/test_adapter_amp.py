"""Amp: file tools and subagent calls reach canonical rules; the delegate escalates an ask, the plugin confirms it."""

from __future__ import annotations

import json
import subprocess

import pytest

from agent_control_plane_core import Verdict, adapter_for, assert_conforms
from agent_control_plane_core.runtime import entry_adapter, render_escalated

from conftest import FIXTURES_DIR
from hook_runner import BIN, run_hook

AMP = adapter_for("amp")


def test_amp_adapter_conforms_to_its_fixtures() -> None:
    report = assert_conforms(AMP, FIXTURES_DIR / "amp.json")
    assert report.scenarios > 0


def test_a_subagent_bash_call_is_judged_on_command() -> None:
    # AMP-1: renames were skipped for non-builtin calls, so this reached a rule on command empty.
    event = AMP.parse({"tool": "Bash", "input": {"cmd": "rm -rf /"}, "agent_type": "x"})
    assert (event.tool, event.input, event.this_call_vetoable) == (
        "Bash",
        {"command": "rm -rf /"},
        True,
    )
    blocked = render_escalated(AMP, Verdict(decision="deny", reason="rm"), event)
    assert (blocked.exit_code, blocked.enforced, blocked.stderr) == (2, True, "rm")


def test_amp_file_tools_are_edit_and_write_with_file_path() -> None:
    edit = AMP.parse({"tool": "edit_file", "input": {"path": "/a", "old_str": "x", "new_str": "y"}})
    write = AMP.parse(
        {"tool": "create_file", "input": {"path": "/b", "content": "z"}, "agent_type": "o"}
    )
    assert (edit.tool, edit.input["file_path"], edit.meta.native_tool) == (
        "Edit",
        "/a",
        "edit_file",
    )
    assert (write.tool, write.input["file_path"]) == ("Write", "/b")


def test_an_mcp_tool_is_never_renamed_or_aliased() -> None:
    event = AMP.parse({"tool": "mcp__fs__edit_file", "input": {"path": "/a"}})
    assert (event.tool, event.input) == ("mcp__fs__edit_file", {"path": "/a"})


def test_an_ask_is_not_left_to_exit_1_which_may_run_unattended() -> None:
    # AMP-3 (unconfirmed): exit 1 asks only where someone can answer, so the hook entry blocks.
    event = AMP.parse({"tool": "Bash", "input": {"cmd": "git push"}})
    plain = AMP.render(Verdict(decision="ask", reason="confirm"), event)
    assert (plain.exit_code, plain.enforced) == (1, False)
    asked = render_escalated(AMP, Verdict(decision="ask", reason="confirm"), event)
    assert (asked.exit_code, asked.enforced, asked.stderr) == (2, True, "confirm")


# ---- the plugin form (AMP-2; hosts/amp.json forms.plugin) ----------------------------------------

PLUGIN = AMP.configure(amp_form="plugin")


def _plugin_call(**fields: object) -> dict[str, object]:
    return {
        "event": "tool.call",
        "tool": "Bash",
        "toolUseID": "t1",
        "input": {"cmd": "ls"},
        **fields,
    }


def test_the_plugin_form_lays_its_overlay_and_the_delegate_keeps_the_declared_facts() -> None:
    assert (AMP.FORM, AMP.NATIVE_ASK_TIER, PLUGIN.FORM, PLUGIN.NATIVE_ASK_TIER) == (
        None,
        False,
        "plugin",
        True,
    )
    assert "mutated_input" in AMP.UNRENDERED_FIELDS["pre_tool"]
    # A rewrite stays unrendered in the plugin form too: modify is not in the plugin types read.
    assert PLUGIN.UNRENDERED_FIELDS["pre_tool"] == frozenset({"mutated_output", "mutated_input"})
    assert PLUGIN.UNRENDERED_FIELDS["post_tool"] == frozenset({"mutated_input"})
    # Subagent calls are not known to reach plugins: not vetoed on a claim nobody made.
    assert (AMP.COVERAGE["subagent"], PLUGIN.COVERAGE["subagent"]) == ("covered", "unknown")


def test_a_form_the_declaration_does_not_name_is_refused() -> None:
    with pytest.raises(ValueError, match="amp_form 'hook' is not one of the amp forms: plugin"):
        AMP.configure(amp_form="hook")
    # Only a host whose declaration has forms takes the option.
    with pytest.raises(ValueError, match="claude_form"):
        adapter_for("claude", claude_form="plugin")


def test_the_hook_entry_reads_the_form_from_its_environment() -> None:
    entry = entry_adapter("amp", {"ACP_AMP_FORM": "plugin"})
    assert entry.FORM == "plugin"  # type: ignore[attr-defined]
    assert entry_adapter("amp", {}).FORM is None  # type: ignore[attr-defined]


def test_the_plugin_form_ignores_the_delegate_variables_amp_may_leave_set() -> None:
    payload = _plugin_call(threadID="T-1")
    environ = {"AGENT_TOOL_NAME": "Read", "AMP_THREAD_ID": "T-x"}
    assert PLUGIN.hook_payload(payload, environ) is payload
    # The delegate form still builds its envelope from them.
    assert AMP.hook_payload({"cmd": "ls"}, environ) == {
        "tool": "Read",
        "input": {"cmd": "ls"},
        "session_id": "T-x",
    }


def test_a_plugin_call_carries_the_thread_as_session_and_the_tool_use_id_in_passthrough() -> None:
    event = PLUGIN.parse(_plugin_call(threadID="T-1", cwd="/w"))
    assert (event.event, event.tool, event.input, event.meta.session_id, event.meta.cwd) == (
        "pre_tool",
        "Bash",
        {"command": "ls"},
        "T-1",
        "/w",
    )
    assert event.meta.passthrough == {"toolUseID": "t1"}


def test_in_the_plugin_form_a_payload_naming_no_event_is_not_a_delegate_call() -> None:
    event = PLUGIN.parse({"tool": "Bash", "input": {"cmd": "rm -rf /"}})
    assert (event.event, event.this_call_vetoable, event.meta.native_event) == (
        "unknown",
        False,
        "",
    )
    # The exit code is the one signal left for a nameless payload: it blocks (contract.md §6).
    blocked = render_escalated(PLUGIN, Verdict(decision="deny", reason="rm"), event)
    assert (blocked.exit_code, blocked.enforced) == (2, True)


def test_a_plugin_ask_is_left_to_the_confirmation_but_escalated_in_the_delegate_form() -> None:
    ask = Verdict(decision="ask", reason="sure?")
    asked = render_escalated(PLUGIN, ask, PLUGIN.parse(_plugin_call()))
    assert (asked.exit_code, asked.enforced, asked.stdout) == (0, False, {"ask": "sure?"})
    # Without ACP_AMP_FORM the same payload has no ask tier, so the entry rejects it.
    blocked = render_escalated(AMP, ask, AMP.parse(_plugin_call()))
    assert (blocked.exit_code, blocked.enforced, blocked.stderr) == (2, True, "sure?")


def test_the_plugin_hook_entry_answers_in_the_plugin_form() -> None:
    done = run_hook(
        "amp",
        {"event": "tool.result", "tool": "Bash", "input": {"cmd": "cat .env"}, "output": "T=1"},
        judge="redacts",
        ACP_AMP_FORM="plugin",
        AGENT_TOOL_NAME="Bash",
    )
    assert (done.code, json.loads(done.stdout)) == (0, {"output": "[redacted]"})


def test_acp_bridge_lines_choose_the_form() -> None:
    native = {"event": "tool.call", "tool": "Bash", "toolUseID": "t1", "input": {"cmd": "git push"}}
    verdict = {"decision": "ask", "reason": "sure?"}
    lines = [
        {"agent": "amp", "native": native, "verdict": verdict, "options": {"amp_form": "plugin"}},
        {"agent": "amp", "native": native, "verdict": verdict},
        {"agent": "amp", "native": native, "verdict": verdict, "options": {"amp_form": "hook"}},
    ]
    done = subprocess.run(
        [str(BIN / "acp"), "bridge"],
        input="".join(json.dumps(line) + "\n" for line in lines),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    plugin, delegate, bad = (json.loads(line) for line in done.stdout.splitlines())
    assert plugin["escalated"]["stdout"] == {"ask": "sure?"}
    # Without the form the delegate's facts hold: no ask tier, so the ask becomes the block.
    assert (delegate["escalated"]["exit_code"], delegate["escalated"]["enforced"]) == (2, True)
    assert bad["event"]["error"] == "options: amp_form 'hook' is not one of the amp forms: plugin"


def test_a_cached_canonical_name_never_hides_an_alias_that_reads_the_input() -> None:
    # build_event caches canonical names per (name, call class), except where a host alias
    # applies only when the input has the target's key (create_file is Write with a path).
    from agent_control_plane_core.adapters._base import _TOOLS_MAX

    adapter = adapter_for("amp").configure()  # its own caches
    for _ in range(2):  # the second round reads whatever the first one cached
        assert adapter.parse({"tool": "create_file", "input": {"path": "a"}}).tool == "Write"
        assert adapter.parse({"tool": "create_file", "input": {}}).tool == "create_file"
        assert adapter.parse({"tool": "Bash", "input": {"cmd": "ls"}}).tool == "Bash"
    for index in range(3 * _TOOLS_MAX):
        assert adapter.parse({"tool": f"tool{index}", "input": {}}).tool == f"tool{index}"
    assert len(adapter._tools) <= _TOOLS_MAX  # names come from payloads: bounded
    assert len(adapter._name_classes) <= _TOOLS_MAX


def test_a_cached_call_class_never_hides_a_subagent_or_an_mcp_call() -> None:
    # build_event remembers the class of a call that names only its tool; the same name with an
    # agent type or an MCP context is classified from the payload each time. Observable in the
    # alias: an MCP server's create_file is not Amp's own tool, a subagent's is.
    adapter = adapter_for("amp").configure()
    call = {"tool": "create_file", "input": {"path": "a"}}
    for _ in range(2):
        assert adapter.parse(call).tool == "Write"
        assert adapter.parse({**call, "mcp_context": {"server": "s"}}).tool == "create_file"
        assert adapter.parse({**call, "agent_type": "helper"}).tool == "Write"
        assert adapter.parse({**call, "tool": "mcp__srv__create_file"}).tool == (
            "mcp__srv__create_file"
        )


def test_renaming_input_keys_leaves_the_callers_payload_as_it_was() -> None:
    payload = {"tool": "Bash", "input": {"cmd": "ls", "cwd": "/w"}}
    event = adapter_for("amp").parse(payload)
    assert event.input == {"cwd": "/w", "command": "ls"}
    assert payload == {"tool": "Bash", "input": {"cmd": "ls", "cwd": "/w"}}
