"""Real ``kings-corners`` processes on real pseudo-terminals, for the tests of how they end.

:func:`on_pty` runs a command (``python -m kc_tui ...``) in a session of its own whose controlling
terminal is a new pty, so that closing the pty's master hangs it up as closing a terminal window,
killing tmux or losing an SSH connection does (the kernel sends SIGHUP, reads give an end of
input, writes fail with EIO). The process gets its own settings and data folders (:func:`app_env`);
:class:`OnPty` reads what it draws, closes the terminal or signals it, and times its end.
"""

from __future__ import annotations

import fcntl
import os
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

from kc_tui.records.datalock import LOCK_NAME

#: Textual's driver turns these on when it starts (the alternate screen) and off when it ends.
ALT_SCREEN_ON = b"\x1b[?1049h"
ALT_SCREEN_OFF = b"\x1b[?1049l"
MOUSE_OFF = (b"\x1b[?1000l", b"\x1b[?1003l", b"\x1b[?1006l")
#: How long a test waits for a program to draw, or to end, before it fails (seconds): generous,
#: for a loaded machine; how long the end took is measured, not bounded, here.
WAIT = 60.0
#: The end every way of ending must stay within (seconds): asserted by the ``timing`` tests.
EXIT_WITHIN = 2.0


def app_env(folder: Path, pace: str = "fast") -> dict[str, str]:
    """The environment of a program whose settings, data and history are under ``folder``; the
    settings file sets the AIs' ``pace``."""
    config = folder / "config" / "settings.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'pace = "{pace}"\n', encoding="utf-8")
    return {
        **os.environ,
        "KINGS_CORNERS_DATA": str(folder / "data"),
        "KINGS_CORNERS_CONFIG": str(config),
        "KINGS_CORNERS_HISTORY": str(folder / "data" / "history.sqlite3"),
        "TERM": "xterm-256color",
        "COLUMNS": "100",
        "LINES": "30",
    }


def lock_text(folder: Path) -> bytes:
    """What the data folder's lock file under ``folder`` holds (its holder's process id, or
    nothing once let go)."""
    return (folder / "data" / LOCK_NAME).read_bytes()


def _controlling_terminal() -> None:
    """In the child, a session leader already: its standard input, the pty, becomes its
    controlling terminal."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


@dataclass
class OnPty:
    """A process on a pty: what it wrote so far (:attr:`output`), and the pty's master (None once
    closed)."""

    process: subprocess.Popen[bytes]
    master: int | None
    #: The pty's follower side by name (what the process has as its terminal).
    tty_name: str
    output: bytearray = field(default_factory=bytearray)
    #: When the test ended the terminal or sent the signal (``time.monotonic()``).
    ended_at: float | None = None

    def read_until(self, want: bytes, timeout: float = WAIT) -> bool:
        """Read what the process draws until ``want`` shows (True), it ends or the terminal
        closes, or ``timeout`` passes (False)."""
        end = time.monotonic() + timeout
        start = max(0, len(self.output) - len(want))
        while self.master is not None and time.monotonic() < end:
            if want and want in self.output[start:]:
                return True
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if not ready:
                if self.process.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(self.master, 65536)
            except OSError:  # EIO: every process on the pty has closed it
                break
            if not chunk:
                break
            self.output += chunk
        return bool(want) and want in self.output[start:]

    def after(self, mark: bytes) -> bytes:
        """What was written after the last ``mark`` (everything when there is none)."""
        at = self.output.rfind(mark)
        return bytes(self.output if at < 0 else self.output[at + len(mark) :])

    def close_terminal(self) -> None:
        """Close the pty's master, as a terminal window closing does."""
        assert self.master is not None
        os.close(self.master)
        self.master = None
        self.ended_at = time.monotonic()

    @contextmanager
    def output_stopped(self) -> Iterator[None]:
        """The terminal takes no output while the block runs (as after XOFF, or a frozen SSH
        connection): the process's writes to it wait."""
        fd = os.open(self.tty_name, os.O_RDWR | os.O_NOCTTY)
        try:
            termios.tcflow(fd, termios.TCOOFF)
            yield
        finally:
            with suppress(termios.error):
                termios.tcflow(fd, termios.TCOON)
            os.close(fd)

    def signal(self, sig: signal.Signals) -> None:
        self.process.send_signal(sig)
        self.ended_at = time.monotonic()

    def gone(self, timeout: float = WAIT) -> float:
        """Wait for the process to end (reading what it still writes while the pty is open);
        the seconds since :meth:`close_terminal` or :meth:`signal`. Fails the test when it is
        still there after ``timeout`` seconds."""
        assert self.ended_at is not None
        end = self.ended_at + timeout
        while self.process.poll() is None and time.monotonic() < end:
            if self.master is not None:
                self.read_until(b"", min(0.05, max(0.0, end - time.monotonic())))
            else:
                with suppress(subprocess.TimeoutExpired):
                    self.process.wait(0.02)
        took = time.monotonic() - self.ended_at
        assert self.process.poll() is not None, f"still running {took:.1f} s after its terminal ended"
        if self.master is not None:
            self.read_until(b"", 1.0)  # what it wrote last
        return took


@contextmanager
def on_pty(args: Sequence[str], env: dict[str, str], size: tuple[int, int] = (100, 30)) -> Iterator[OnPty]:
    """``python -m kc_tui *args`` on a new pty of ``size`` (columns, rows), its controlling
    terminal; killed at the end if it is still there."""
    master, follower = os.openpty()
    columns, rows = size
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    process = subprocess.Popen(
        [sys.executable, "-m", "kc_tui", *args],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env=env,
        start_new_session=True,
        preexec_fn=_controlling_terminal,
        close_fds=True,
    )
    name = os.ttyname(follower)
    os.close(follower)
    run = OnPty(process, master, name)
    try:
        yield run
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(WAIT)
        if run.master is not None:
            os.close(run.master)


__all__ = [
    "ALT_SCREEN_OFF",
    "ALT_SCREEN_ON",
    "EXIT_WITHIN",
    "MOUSE_OFF",
    "WAIT",
    "OnPty",
    "app_env",
    "lock_text",
    "on_pty",
]
