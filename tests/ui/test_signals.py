"""SIGTERM and SIGHUP end the real app as quitting does: the terminal is put back as it was (the
alternate screen left, mouse reporting off). The app runs in a child process on a pseudo-terminal."""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

#: Textual's driver turns these on when it starts: the alternate screen, mouse reporting.
ALT_SCREEN_OFF = b"\x1b[?1049l"
MOUSE_OFF = (b"\x1b[?1000l", b"\x1b[?1003l", b"\x1b[?1006l")


def read_until(fd: int, proc: subprocess.Popen[bytes], want: bytes, timeout: float) -> bytes:
    """What the child writes to the terminal until ``want`` shows (or it ends, or time is up)."""
    out = b""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            out += chunk
            if want and want in out:
                break
        elif proc.poll() is not None:
            break
    return out


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_ends_the_app_and_restores_the_terminal(sig: signal.Signals, tmp_path: Path) -> None:
    env = {
        **os.environ,
        "KINGS_CORNERS_DATA": str(tmp_path / "data"),
        "KINGS_CORNERS_CONFIG": str(tmp_path / "config" / "settings.toml"),
        "KINGS_CORNERS_HISTORY": str(tmp_path / "data" / "history.sqlite3"),
        "TERM": "xterm-256color",
        "COLUMNS": "80",
        "LINES": "24",
    }
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; from kc_tui.cli import main; sys.exit(main([]))"],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env=env,
        start_new_session=True,
        close_fds=True,
    )
    os.close(follower)
    try:
        started = read_until(leader, proc, b"Statistics", 30.0)  # the menu is up
        assert b"\x1b[?1049h" in started and b"Statistics" in started, started[-400:]
        assert proc.poll() is None
        proc.send_signal(sig)
        sent = time.monotonic()
        rest = read_until(leader, proc, b"", 10.0)
        code = proc.wait(timeout=10)
        assert time.monotonic() - sent < 5
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(leader)
    assert code == 0, rest[-400:]
    # The output ends by leaving the alternate screen with mouse reporting off: after the last
    # \x1b[?1049l only mode switches follow (no more drawing).
    assert ALT_SCREEN_OFF in rest, rest[-400:]
    after = rest[rest.rindex(ALT_SCREEN_OFF) + len(ALT_SCREEN_OFF) :]
    assert re.sub(rb"\x1b\[\??[0-9;]*[hl]", b"", after).strip() == b"", after
    ending = rest[-300:]
    for mode in MOUSE_OFF:
        assert mode in ending, mode
