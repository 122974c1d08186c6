"""``kings-corners host`` in a terminal ends cleanly however the terminal ends: its window closed
(the pty's master closed: the kernel hangs it up), SIGHUP, SIGTERM, SIGINT, or its output closed.
Each time the process is gone, the hosted match saved with its seat file, and ``host --resume``
serves it again. Real processes on real ptys (tests/ptykit.py)."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from kc_tui.match.session import MatchSession
from kc_tui.net.host_files import HOSTED_SAVE, SEAT_FILE, read_seat_file
from tests.ptykit import WAIT, app_env, on_pty

HOST = ("host", "--seats", "human:Ana,greedy", "--port", "0", "--seed", "3")
#: The last line the host prints when its table is served.
SERVED = b"Watch: kings-corners join"


def hosted_uid(folder: Path) -> str:
    """The hosted match's uid, read from its save; its seat file belongs to it."""
    data = folder / "data"
    session = MatchSession.load(data / HOSTED_SAVE, shared_log=True)
    assert session is not None, "no hosted save"
    assert read_seat_file(data / SEAT_FILE).uid == session.record.uid
    return session.record.uid


def resumes(folder: Path, uid: str) -> None:
    """``host --resume`` serves the same match again (then its terminal is closed)."""
    with on_pty(("host", "--resume", "--port", "0"), app_env(folder)) as run:
        assert run.read_until(SERVED), bytes(run.output[-400:])
        assert hosted_uid(folder) == uid
        run.close_terminal()
        run.gone()


@pytest.mark.parametrize("end", ["close", "SIGHUP", "SIGTERM", "SIGINT"])
def test_the_host_ends_cleanly_with_its_terminal_and_resumes(end: str, tmp_path: Path) -> None:
    with on_pty(HOST, app_env(tmp_path)) as run:
        assert run.read_until(SERVED), bytes(run.output[-400:])
        uid = hosted_uid(tmp_path)
        if end == "close":
            run.close_terminal()
        else:
            run.signal(signal.Signals[end])
        took = run.gone()
    print(f"host, {end}: gone in {took:.3f} s")
    assert run.process.returncode == 0
    if end != "close":  # its last line, to a terminal still there
        assert b"The table is closed. 'host --resume' serves it again." in run.output
    assert hosted_uid(tmp_path) == uid
    resumes(tmp_path, uid)


def test_the_host_ends_cleanly_when_its_output_is_closed(tmp_path: Path) -> None:
    host = subprocess.Popen(
        [sys.executable, "-m", "kc_tui", *HOST],
        stdin=subprocess.DEVNULL,  # no commands: the table goes on without them
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=app_env(tmp_path),
    )
    try:
        assert host.stdout is not None
        for line in host.stdout:
            if line.startswith(SERVED):
                break
        uid = hosted_uid(tmp_path)
        assert host.poll() is None
        host.stdout.close()  # whoever read the host's output is gone
        assert host.wait(WAIT) == 0
    finally:
        if host.poll() is None:
            host.kill()
            host.wait(WAIT)
    assert hosted_uid(tmp_path) == uid
