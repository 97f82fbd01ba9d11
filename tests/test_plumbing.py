"""The hook process plumbing's fallbacks: the judge's sink, its relay limit, unwritable bodies."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_control_plane_core import NativeResponse
from agent_control_plane_core import _plumbing as plumbing


def test_judge_output_beyond_the_relay_limit_is_cut_with_a_count(tmp_path: Path) -> None:
    fd = os.open(tmp_path / "sink", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        os.write(fd, b"x" * (plumbing.JUDGE_OUTPUT_LIMIT + 10))
        text = plumbing.HostPipes(None, None, fd).judge_output()
    finally:
        os.close(fd)
    assert text.startswith(b"x" * plumbing.JUDGE_OUTPUT_LIMIT)
    assert text.endswith(b"[10 more bytes of judge output not shown]\n")


def test_a_sink_that_cannot_be_read_relays_nothing(tmp_path: Path) -> None:
    fd = os.open(tmp_path / "sink", os.O_RDWR | os.O_CREAT, 0o600)
    os.close(fd)  # a judge closed it
    assert plumbing.HostPipes(None, None, fd).judge_output() == b""
    assert plumbing.HostPipes(None, None).judge_output() == b""


def test_the_sink_falls_back_to_an_unlinked_file_and_to_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.delattr(os, "O_TMPFILE", raising=False)
    fd = plumbing.open_sink()
    assert fd is not None and fd > 2
    os.close(fd)
    assert list(tmp_path.iterdir()) == []  # named only until it is open
    monkeypatch.setenv("TMPDIR", str(tmp_path / "missing"))
    assert plumbing.open_sink() is None


def test_an_unserializable_body_is_skipped_and_the_stderr_still_written() -> None:
    reader, writer = os.pipe()
    try:
        response = NativeResponse(
            transport="external_hook", exit_code=2, enforced=True, stdout={"x": {1}}, stderr="r"
        )
        plumbing.write_response(response, None, plumbing.HostPipes(None, writer))
        os.close(writer)
        assert os.read(reader, 100) == b"r"
    finally:
        os.close(reader)


def test_without_a_sink_the_judge_writes_to_dev_null_never_to_the_host() -> None:
    code = (
        "import os\n"
        "from agent_control_plane_core import _plumbing as p\n"
        "p.open_sink = lambda: None\n"
        "pipes = p.isolate_host_pipes()\n"
        "os.write(1, b'judge')\n"
        "os.write(2, b'judge')\n"
        "os.write(pipes.out, b'body')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, timeout=60, check=True
    )
    assert (result.stdout, result.stderr) == (b"body", b"")


def test_the_private_copy_of_a_pipe_skips_closed_low_descriptors_and_is_close_on_exec() -> None:
    # M4: with fds 0 and 2 closed, a plain dup would hand back 0 or 2, which a judge's own
    # writes (fd 2) would then reach; the copy must land above 2 and leave 0 and 2 closed.
    code = (
        "import os\n"
        "from agent_control_plane_core._plumbing import _copy_above_two\n"
        "os.close(0); os.close(2)\n"
        "fd = _copy_above_two(1)\n"
        "def is_open(n):\n"
        "    try:\n"
        "        os.fstat(n)\n"
        "    except OSError:\n"
        "        return False\n"
        "    return True\n"
        "os.write(fd, repr((fd > 2, os.get_inheritable(fd), is_open(0), is_open(2))).encode())\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True)
    assert result.stdout == b"(True, False, False, False)"
