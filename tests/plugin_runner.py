"""Shared by the host-side plugin tests: a stand-in hook entry and a node run of a driver script."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

# A stand-in for the hook entry: records each payload, the arguments and the environment
# variables it is told to (key -> variable), and answers what answers.json says per event.
FAKE_HOOK = textwrap.dedent(
    """\
    #!{python}
    import json, os, pathlib, sys, time
    here = pathlib.Path(__file__).resolve().parent
    payload = sys.stdin.read()
    with open(here / "calls.jsonl", "a") as calls:
        record = {{key: os.environ.get(name) for key, name in {recorded!r}.items()}}
        record["argv"] = sys.argv[1:]
        calls.write(json.dumps({{**record, "payload": json.loads(payload)}}) + "\\n")
    answer = json.loads((here / "answers.json").read_text()).get(json.loads(payload)["event"], {{}})
    time.sleep(answer.get("sleep", 0))
    sys.stdout.write(answer.get("stdout", ""))
    sys.stderr.write(answer.get("stderr", ""))
    sys.exit(answer.get("exit", 0))
    """
)


def fake_hook_bin(tmp: Path, agent: str, answers: dict[str, Any], recorded: dict[str, str]) -> Path:
    """A bin folder whose acp and acp-<agent>-hook are the stand-in, answering answers."""
    folder = tmp / "bin"
    folder.mkdir(exist_ok=True)
    for name in ("acp", f"acp-{agent}-hook"):
        script = folder / name
        script.write_text(
            FAKE_HOOK.format(python=sys.executable, recorded=recorded), encoding="utf-8"
        )
        script.chmod(0o755)
    (folder / "answers.json").write_text(json.dumps(answers), encoding="utf-8")
    return folder


def run_driver(
    node: str, driver_text: str, plugin: Path, spec: dict[str, Any], env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """Run driver_text under node beside the plugin, with the plugin's path and the spec."""
    driver = plugin.parent / "driver.mjs"
    driver.write_text(driver_text, encoding="utf-8")
    # A generous bound: it separates a hung plugin from an answer, it times nothing.
    done = subprocess.run(
        [node, str(driver), str(plugin), json.dumps(spec)],
        capture_output=True,
        text=True,
        env=env,
        cwd=plugin.parent,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done
