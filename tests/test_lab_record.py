"""The lab's corpus of real payloads: recorded scrubbed, kept current, and whole for every pinned host."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from agent_control_plane_core.runtime import entry_adapter
from lab import install, record

from conftest import REAL_DIR, load_json


def _run(tmp_path: Path, calls: list[str], scenario: str = "deny") -> record.Run:
    run_dir = tmp_path / "runs" / "20261204-000000" / "claude@2.1.332" / scenario
    hooks = run_dir / "hooks"
    hooks.mkdir(parents=True)
    for index, stdin in enumerate(calls):
        (hooks / f"hook-{index:03d}-1.json").write_text(json.dumps({"stdin": stdin}))
    return record.Run("claude", "2.1.332", scenario, run_dir, "20261204-000000", "c0ffee12")


def _pre(run: record.Run, command: str, **extra: Any) -> str:
    payload = {
        "hook_event_name": "PreToolUse",
        "session_id": "s1",
        "cwd": str(run.run_dir / "project"),
        "transcript_path": str(run.run_dir / "home" / ".claude" / "t.jsonl"),
        "mangled": re.sub(r"[^A-Za-z0-9]", "-", str(run.run_dir / "project")),
        "slashed": str(run.run_dir / "project").replace("/", "-"),
        "tool_name": "Bash",
        "tool_input": {"command": command},
        **extra,
    }
    return json.dumps(payload)


def test_a_recorded_payload_holds_no_machine_path_key_or_nonce(tmp_path: Path) -> None:
    run = _run(tmp_path, [])
    cache = tmp_path / "cache"
    call = _pre(run, f"printf 'LABX-{run.nonce}' {cache}/x; echo KEY123 {record.REPO}")
    (run.run_dir / "hooks" / "hook-000-1.json").write_text(json.dumps({"stdin": call}))
    pairs = record.replacements(run, api_key="KEY123", cache=cache)
    found = record.payloads_of(run, entry_adapter("claude", {}), pairs)
    assert list(found) == ["deny-PreToolUse.json"]
    item = found["deny-PreToolUse.json"]
    text = json.dumps(item)
    for secret in (str(tmp_path), "KEY123", run.nonce, str(record.REPO)):
        assert secret not in text
    payload = item["payload"]
    assert payload["cwd"] == record.PROJECT
    assert payload["transcript_path"] == f"{record.HOME}/.claude/t.jsonl"
    assert (payload["mangled"], payload["slashed"]) == ("-home-dev-project", "-home-dev-project")
    assert record.NONCE in payload["tool_input"]["command"]
    assert (item["host"], item["version"], item["run"]) == ("claude", "2.1.332", run.run_id)


def test_the_first_payload_of_each_event_is_kept_and_non_json_is_passed_over(
    tmp_path: Path,
) -> None:
    run = _run(tmp_path, [])
    calls = ["not json", _pre(run, "first"), _pre(run, "second")]
    for index, stdin in enumerate(calls):
        (run.run_dir / "hooks" / f"hook-{index:03d}-1.json").write_text(
            json.dumps({"stdin": stdin})
        )
    found = record.payloads_of(run, entry_adapter("claude", {}), [])
    assert [item["payload"]["tool_input"]["command"] for item in found.values()] == ["first"]


def test_an_event_the_adapter_cannot_parse_is_named_by_the_payload_itself() -> None:
    class Refusing:
        def parse(self, payload: Any) -> Any:
            raise ValueError("no")

    assert record._native_event(Refusing(), {"hook_event_name": "Odd"}) == "Odd"
    assert record._native_event(Refusing(), ["a list"]) == "unparsed"


def test_shape_sees_keys_and_types_not_values() -> None:
    one = {"a": 1, "b": ["x", "y"], "c": {"d": None, "e": True}}
    two = {"c": {"e": False, "d": None}, "b": ["z"], "a": 2.5}
    assert record.shape(one) == record.shape(two)
    assert record.shape(one) != record.shape({**one, "f": 1})
    assert record.shape(one) != record.shape({**one, "a": "1"})


@pytest.fixture
def corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(record, "REPO", tmp_path)
    monkeypatch.setattr(record, "CORPUS", tmp_path / "fixtures" / "real")
    return tmp_path / "fixtures" / "real"


def _item(payload: dict[str, Any], run: str = "r1") -> dict[str, Any]:
    return {"host": "h", "version": "1.0.0", "run": run, "payload": payload}


def test_check_names_a_missing_a_stale_and_a_no_longer_sent_payload(corpus: Path) -> None:
    folder = corpus / "h" / "1.0.0"
    folder.mkdir(parents=True)
    (folder / "kept-Pre.json").write_text(record.dump(_item({"a": 1})))
    (folder / "stale-Pre.json").write_text(record.dump(_item({"a": 1})))
    (folder / "gone-Pre.json").write_text(record.dump(_item({"a": 1})))
    seen = {
        ("h", "1.0.0"): {
            "kept-Pre.json": _item({"a": 2}, "r2"),
            "stale-Pre.json": _item({"a": 1, "b": 2}, "r2"),
            "new-Pre.json": _item({"a": 1}, "r2"),
        }
    }
    problems = record.sync(seen, write=False)
    assert problems == [
        "fixtures/real/h/1.0.0/new-Pre.json is missing",
        "fixtures/real/h/1.0.0/stale-Pre.json is stale: the host now sends another shape",
        "fixtures/real/h/1.0.0/gone-Pre.json is stale: the host no longer sent it",
    ]
    assert sorted(p.name for p in folder.iterdir()) == [
        "gone-Pre.json",
        "kept-Pre.json",
        "stale-Pre.json",
    ]
    # Writing brings the folder to the run; a file of the same shape keeps the run that made it.
    assert record.sync(seen, write=True) == []
    assert sorted(p.name for p in folder.iterdir()) == [
        "kept-Pre.json",
        "new-Pre.json",
        "stale-Pre.json",
    ]
    assert load_json(folder / "kept-Pre.json")["run"] == "r1"
    assert load_json(folder / "stale-Pre.json")["run"] == "r2"
    assert record.sync(seen, write=False) == []


def test_the_committed_corpus_has_every_pinned_lab_host_version_and_only_scrubbed_payloads() -> (
    None
):
    locked = install.lock()["hosts"]
    pinned = {
        (host, version)
        for host, entry in locked.items()
        for version in [entry["version"], *entry.get("older", [])]
    }
    found: dict[tuple[str, str], int] = {}
    for path in sorted(REAL_DIR.glob("*/*/*.json")):
        item = load_json(path)
        assert (path.parent.parent.name, path.parent.name) == (item["host"], item["version"]), path
        assert path.name == f"{item['scenario']}-{item['native_event']}.json", path
        assert item["run"] and item["recorded_by"], path
        text = path.read_text(encoding="utf-8")
        for machine in ("/root", "-root-", "/work/", "/tmp/acp", "lab/runs", "lab-runs"):
            assert machine not in text, f"{path}: {machine}"
        key = (item["host"], item["version"])
        found[key] = found.get(key, 0) + 1
    assert pinned <= set(found), sorted(pinned - set(found))
    assert all(count >= 5 for count in found.values()), found


def _every_recorded() -> list[Path]:
    return sorted(REAL_DIR.glob("*/*/*.json"))


@pytest.mark.parametrize("path", _every_recorded(), ids=lambda p: "/".join(p.parts[-3:]))
def test_every_recorded_payload_parses_for_its_version_to_a_valid_event_of_its_native_event(
    path: Path,
) -> None:
    from agent_control_plane_core.schemas import validator_for

    item = load_json(path)
    host = item["host"]
    adapter = entry_adapter(host, {f"ACP_{host.upper()}_VERSION": item["version"]})
    event = adapter.parse(json.loads(json.dumps(item["payload"]))).to_dict()
    assert event["meta"]["native_event"] == item["native_event"]
    assert event["meta"]["agent"] == host
    errors = [error.message for error in validator_for("tool-call-event").iter_errors(event)]
    assert errors == []
