"""The app started with no terminal (``kings-corners play </dev/null >/dev/null 2>&1 &``, from a
script or a service) says in one line that it needs one and ends at once, before it takes the
data folder: it neither spins on an input that only ends nor holds the folder, and a signal ends
it whenever it comes. The app on a real terminal is tests/ui/test_signals.py's."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from contextlib import suppress
from pathlib import Path

import pytest

from kc_tui.match.saves import SAVE_NAME
from kc_tui.records.datalock import LOCK_NAME
from tests.ptykit import WAIT, app_env
from tests.waiting import wait_until

PLAY = ("play", "--seed", "3", "--opponents", "greedy")


def app_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "kc_tui", *args]


#: How much a process with no terminal may have written when the signal comes, at least: the
#: app drawing over and over, if it runs.
DRAWN = 1 << 18


def no_terminal_env(folder: Path) -> dict[str, str]:
    """The environment of the app under ``folder`` with no size given (a terminal's would say it):
    the app asks for the size of a terminal that is not there."""
    env = app_env(folder)
    for name in ("COLUMNS", "LINES"):
        env.pop(name, None)
    return env


@pytest.mark.parametrize("args", [PLAY, (), ("demo",)], ids=["play", "menu", "demo"])
def test_without_a_terminal_the_app_says_so_in_one_line_and_ends(args: tuple[str, ...], tmp_path: Path) -> None:
    done = subprocess.run(
        app_command(*args), stdin=subprocess.DEVNULL, capture_output=True, env=no_terminal_env(tmp_path), timeout=WAIT
    )
    assert done.returncode != 0
    lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
    assert len(lines) == 1 and "needs a terminal" in lines[0], done.stderr[-400:]
    assert done.stdout == b""
    lock = tmp_path / "data" / LOCK_NAME
    assert not lock.exists() or lock.read_bytes() == b""  # the data folder was never taken
    assert not (tmp_path / "data" / SAVE_NAME).exists()


def test_without_a_terminal_a_redirected_output_is_no_terminal_either(tmp_path: Path) -> None:
    """A terminal's input with the output sent to a file: nobody would see the app."""
    main, follower = os.openpty()
    try:
        done = subprocess.run(
            app_command(*PLAY), stdin=follower, capture_output=True, env=app_env(tmp_path), timeout=WAIT
        )
    finally:
        os.close(follower)
        os.close(main)
    assert done.returncode != 0
    assert "needs a terminal" in done.stderr.decode("utf-8", "replace")
    assert done.stdout == b""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT], ids=lambda s: s.name)
async def test_a_signal_ends_the_app_without_a_terminal(sig: signal.Signals, tmp_path: Path) -> None:
    lock = tmp_path / "data" / LOCK_NAME
    output = tmp_path / "output"
    with output.open("wb") as out:
        process = subprocess.Popen(
            app_command(*PLAY), stdin=subprocess.DEVNULL, stdout=out, stderr=out, env=no_terminal_env(tmp_path)
        )
    try:
        # The signal comes once the app has drawn a while, or has ended.
        await wait_until(
            lambda: process.poll() is not None or output.stat().st_size >= DRAWN, what="the app drawing or ended"
        )
        with suppress(ProcessLookupError):
            process.send_signal(sig)
        with suppress(subprocess.TimeoutExpired):
            process.wait(WAIT)
        assert process.poll() is not None, f"still running {WAIT:.0f} s after {sig.name}"
        assert not lock.exists() or lock.read_bytes() != str(process.pid).encode()
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(WAIT)
