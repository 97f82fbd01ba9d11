"""The resident transport on the real Claude Code (issue 30): acp serve up, down, slow, restarted.

Run `python -m lab.resident` (root, or user namespaces, as `make lab`): each case installs
`acp install claude --resident PORT` in a fresh project, starts (or not) `acp serve --judge
lab.judge:judge` inside the run's loopback-only namespace, and lets the pinned Claude Code ask
for one shell command the judge denies. The command ran iff its marker file exists.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from lab import run as lab_run
from lab import scenarios as sc

PORT = 47311
TIMEOUT_S = 3
# name: (what the server does, handler onFailure kept, the judge's sleep, expected: command ran)
CASES: dict[str, tuple[str, bool, float, bool]] = {
    "up": ("serve", True, 0.0, False),
    "down": ("none", True, 0.0, False),
    "slow": ("serve", True, 8.0, False),
    "restarted": ("restart", True, 0.0, False),
    "down_without_onFailure": ("none", False, 0.0, True),
}
OUT = lab_run.REPO / "docs" / "resident-lab.md"


def _serve(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    argv = [
        str(lab_run._venv_bin() / "acp"),
        "serve",
        "--port",
        str(PORT),
        "--judge",
        lab_run.JUDGE_SPEC,
    ]
    server = subprocess.Popen(argv, env=env, stderr=open(log, "ab"))  # noqa: SIM115
    for _ in range(100):
        try:
            import socket

            with socket.create_connection(("127.0.0.1", PORT), timeout=0.2):
                return server
        except OSError:
            time.sleep(0.05)
    return server


def inside(spec_path: str, mode: str) -> int:
    """In the namespace: bring up loopback, start acp serve as the case asks, then drive the host."""
    from lab import drive

    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    run_dir = Path(spec["run_dir"])
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    env = {
        **os.environ,
        **{k: v for k, v in spec["env"].items() if k.startswith(("ACP_", "PYTHON"))},
    }
    env["HOME"] = spec["env"]["HOME"]
    log = run_dir / "serve.log"
    server = None if mode == "none" else _serve(env, log)
    if mode == "restart" and server is not None:
        # Restart after the first judged call (the prompt's), so the pre-tool call meets a new
        # process and, on the host's side, a kept-alive connection that the old one closed.
        def restart() -> None:
            nonlocal server
            records = run_dir / "judge"
            while not any(records.glob("judge-*.json")):
                time.sleep(0.02)
            assert server is not None
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=10)
            (run_dir / "restarted").write_text(str(time.time()), encoding="utf-8")
            server = _serve(env, log)

        threading.Thread(target=restart, daemon=True).start()
    try:
        return drive.main(spec_path)
    finally:
        if server is not None:
            server.kill()


def run_case(name: str, root: Path) -> dict[str, Any]:
    """Prepare HOME and project, install the resident hook, drive Claude Code, observe."""
    mode, keep_on_failure, sleep_s, expected_ran = CASES[name]
    host, (version, binary, node_bin) = "claude", _pinned()
    profile = lab_run.load_profile(host)
    run_dir = root / name
    shutil.rmtree(run_dir, ignore_errors=True)
    home, project = run_dir / "home", run_dir / "project"
    for folder in (
        home,
        project,
        run_dir / "model",
        run_dir / "hooks",
        run_dir / "judge",
        run_dir / "tmp",
    ):
        folder.mkdir(parents=True)
    markers = sc.Markers(secrets.token_hex(4))
    names = {
        "home": str(home),
        "project": str(project),
        "bin": str(binary),
        "node_bin": str(node_bin),
        "prompt": markers.prompt,
        "model": profile.get("model", "lab-model"),
        "api_key": lab_run.API_KEY,
        "command": markers.command(str(project)),
    }
    acp = str(lab_run._venv_bin() / "acp")
    argv = [acp, "install", "claude", "--resident", str(PORT), "--timeout", str(TIMEOUT_S)]
    done = subprocess.run(
        argv, cwd=project, env={**os.environ, "HOME": str(home)}, capture_output=True, text=True
    )
    (run_dir / "install.out").write_text(done.stdout + done.stderr, encoding="utf-8")
    settings_path = project / ".claude" / "settings.json"
    settings = json.loads(settings_path.read_text(encoding="utf-8"))
    if not keep_on_failure:
        for groups in settings["hooks"].values():
            for group in groups:
                for handler in group["hooks"]:
                    handler.pop("onFailure", None)
    for path, extra in lab_run._fill(profile.get("merge_json", {}), names).items():
        if Path(path) == settings_path:
            lab_run._merge(settings, extra)
    settings_path.write_text(json.dumps(settings, indent=2), encoding="utf-8")
    scenario = {
        "verdicts": {sc.PRE: {"decision": "deny", "reason": markers.reason}},
        "record": str(run_dir / "judge"),
        "sleep_s": sleep_s,
        "on_kind": sc.PRE,
    }
    scenario_path = home / ".acp-lab" / "scenario.json"
    scenario_path.parent.mkdir(parents=True)
    scenario_path.write_text(json.dumps(scenario), encoding="utf-8")
    env = {
        "PATH": f"{node_bin}:{lab_run._venv_bin()}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(home),
        "USER": "lab",
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "TMPDIR": str(run_dir / "tmp"),
        "PYTHONPATH": str(lab_run.REPO),
        "ACP_LAB_SCENARIO": str(scenario_path),
        "NO_COLOR": "1",
        "CI": "1",
        **lab_run._fill(profile.get("env", {}), names),
    }
    files = {
        path: body if isinstance(body, str) else json.dumps(body, indent=2)
        for path, body in lab_run._fill(profile.get("files", {}), names).items()
    }
    timeout_s = float(profile.get("timeout_s", 90))
    spec = {
        "run_dir": str(run_dir),
        "record_dir": str(run_dir / "model"),
        "lifetime_s": timeout_s + 30,
        "timeout_s": timeout_s,
        "script": {
            "tool_call": lab_run._fill(profile["shell_tool"], names),
            "final_text": "lab: done",
            "model": names["model"],
        },
        "files": files,
        "env": env,
        "argv": lab_run._fill(profile["argv"], names),
        "cwd": str(project),
    }
    spec_path = run_dir / "drive.json"
    spec_path.write_text(json.dumps(spec, indent=1), encoding="utf-8")
    from lab.install import ROOT_PREFIX, netns_prefix

    inner = [sys.executable, "-m", "lab.resident", "--inside", str(spec_path), mode]
    started = time.monotonic()
    subprocess.run(
        [*(netns_prefix() or ROOT_PREFIX), "-p", "-f", "--mount-proc", *inner],
        env={**os.environ, "PYTHONPATH": str(lab_run.REPO)},
        cwd=lab_run.REPO,
        timeout=timeout_s + 60,
        check=False,
        capture_output=True,
    )
    ran = (project / "lab-original").exists()
    _everything, after = lab_run._after_tool_text(run_dir / "model")
    judged = sorted(
        json.loads(p.read_text())["event"] for p in (run_dir / "judge").glob("judge-*.json")
    )
    return {
        "case": name,
        "version": version,
        "server": mode,
        "onFailure": "block" if keep_on_failure else "(none)",
        "judged": judged,
        "ran": ran,
        "expected_ran": expected_ran,
        "match": ran == expected_ran,
        "reason_seen": markers.reason in after,
        "seconds": round(time.monotonic() - started, 1),
    }


def _pinned() -> tuple[str, Path, Path]:
    """The lab-pinned Claude Code version, its binary and node's bin folder."""
    planned = lab_run.plan(["claude"], latest=False, older=False)
    _host, version, binary, node_bin = planned[0]
    return version, binary, node_bin


def table(results: list[dict[str, Any]]) -> str:
    """The results as the Markdown page docs/resident-lab.md."""
    lines = [
        "# The resident transport on the real Claude Code",
        "",
        "Written by `python -m lab.resident --write` (lab/resident.py). Each case installs",
        f"`acp install claude --resident {PORT} --timeout {TIMEOUT_S}` (an HTTP hook with",
        '`onFailure: "block"`) in a fresh project, runs the pinned Claude Code offline against the lab',
        "model, which asks for one shell command, and the judge behind `acp serve` denies it. The",
        "command ran iff its marker file exists afterwards.",
        "",
        "| case | Claude Code | server | onFailure | calls the judge saw | deny reason reached the model"
        " | command ran | expected | result |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r['case']} | {r['version']} | {r['server']} | {r['onFailure']} |"
            f" {', '.join(r['judged']) or 'none'} | {'yes' if r['reason_seen'] else 'no'} |"
            f" {'yes' if r['ran'] else 'no'} |"
            f" {'yes' if r['expected_ran'] else 'no'} | {'match' if r['match'] else '**MISMATCH**'} |"
        )
    lines += [
        "",
        "- up: the server answers the deny; the command does not run.",
        '- down: no server; the connection is refused, a failure, which `onFailure: "block"` makes a',
        "  block. down_without_onFailure shows why the installer writes the field: the same dead",
        "  server without it lets the command run.",
        f"- slow: the judge sleeps past the handler's {TIMEOUT_S} s timeout; the host aborts the",
        "  request, a failure, so a block.",
        "- restarted: the server is stopped after the prompt's call and started again; the pre-tool",
        "  call reaches the new process (or fails, which blocks), never an unjudged run.",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run every case (or the named ones) and print, or write, the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--inside", nargs=2, metavar=("SPEC", "MODE"), help=argparse.SUPPRESS)
    parser.add_argument("--case", action="append", choices=sorted(CASES))
    parser.add_argument(
        "--write", action="store_true", help=f"write {OUT.relative_to(lab_run.REPO)}"
    )
    args = parser.parse_args(argv)
    if args.inside:
        return inside(*args.inside)
    root = Path.home() / ".cache" / "agent-control-plane-core" / "lab" / "runs" / "resident"
    results = [run_case(name, root) for name in (args.case or CASES)]
    text = table(results)
    print(text)
    if args.write:
        OUT.write_text(text, encoding="utf-8")
    return 0 if all(r["match"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
