"""A browser tab's app (the app under textual-serve's driver, as ``serve`` runs it) whose server
stopped reading its output, as when the tab's connection stalled and then went away: the quit
the server sends still ends it, and a server gone (its end of the pipe closed) ends it too. A
real app process on real pipes; its output pipe made one page small, so it fills at once."""

from __future__ import annotations

import fcntl
import json
import subprocess
import sys
import time
from pathlib import Path

from tests.ptykit import WAIT, app_env
from tests.waiting import wait_for

#: What textual-serve puts in the app's environment to choose its driver.
WEB_DRIVER = "textual.drivers.web_driver:WebDriver"
PRELUDE = b"__GANGLION__\n"
#: The app's output pipe, in bytes: one page, the smallest the system gives.
PIPE_SIZE = 4096


def meta(doc: dict[str, str]) -> bytes:
    """A meta packet of textual-serve's protocol, as the server writes it to the app."""
    payload = json.dumps(doc).encode("utf-8")
    return b"M" + len(payload).to_bytes(4, "big") + payload


def waits_writing_a_pipe(pid: int) -> bool:
    """Whether a thread of process ``pid`` waits in a write to a full pipe (what the kernel says
    it sleeps in)."""
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            if "pipe_write" in (task / "wchan").read_text():
                return True
        except OSError:  # the thread ended meanwhile
            continue
    return False


def tab_app(folder: Path) -> subprocess.Popen[bytes]:
    """The app as a tab's: textual-serve's driver, pipes for its input and output (the output's
    pipe one page), started and past its prelude; from then on nobody reads its output, and it
    is returned once that pipe is full and the app's writing waits."""
    env = {**app_env(folder), "TEXTUAL_DRIVER": WEB_DRIVER, "COLUMNS": "100", "ROWS": "30"}
    app = subprocess.Popen(
        [sys.executable, "-m", "kc_tui"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    assert app.stdout is not None
    fcntl.fcntl(app.stdout.fileno(), fcntl.F_SETPIPE_SZ, PIPE_SIZE)
    assert app.stdout.readline() == PRELUDE
    wait_for(lambda: app.poll() is not None or waits_writing_a_pipe(app.pid), what="the tab's app's output full")
    assert app.poll() is None, f"the tab's app ended ({app.returncode}) before it filled its output"
    return app


def gone_within(app: subprocess.Popen[bytes], since: float) -> float:
    try:
        app.wait(WAIT)
    except subprocess.TimeoutExpired:
        app.kill()
        app.wait(WAIT)
        raise AssertionError(f"the tab's app still ran {WAIT:g} s later") from None
    return time.monotonic() - since


def test_a_tab_app_whose_output_nobody_reads_ends_on_the_servers_quit(tmp_path: Path) -> None:
    app = tab_app(tmp_path)
    assert app.stdin is not None and app.stdout is not None
    try:
        app.stdin.write(meta({"type": "quit"}))  # the tab's websocket went away
        app.stdin.flush()
        took = gone_within(app, time.monotonic())
    finally:
        app.stdin.close()
        app.stdout.close()
    print(f"tab app, quit with its output unread: gone in {took:.3f} s")
    assert app.returncode == 0


def test_a_tab_app_whose_server_is_gone_ends(tmp_path: Path) -> None:
    app = tab_app(tmp_path)
    assert app.stdin is not None and app.stdout is not None
    app.stdout.close()  # the server killed: its ends of the pipes close
    app.stdin.close()
    took = gone_within(app, time.monotonic())
    print(f"tab app, server gone: gone in {took:.3f} s")
