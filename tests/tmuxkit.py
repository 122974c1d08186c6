"""Real ``kings-corners`` processes in a real terminal: a private tmux server (``tmux -S SOCKET``)
whose 80x24 pane runs ``python -m kc_tui ...``, for the tests that read what a player sees.

:func:`in_tmux` starts the command in a detached session, in an environment made from nothing
but what it is given (:func:`terminal_env`: a home, data and settings folders of its own, a
locale); :class:`Pane` reads the screen as tmux drew it (U+200B, the Thai break mark, taken out:
a terminal draws nothing for it), types keys, and waits for the process to end. The pane stays
after its process ends (``remain-on-exit``), showing what the process left on the terminal and
the line its shell writes then, with the exit status.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from kc_tui import i18n
from tests import waiting

#: How long a test waits for a screen to show, or for the process to end (seconds): generous, for
#: a loaded machine.
WAIT = 60.0
SIZE = (80, 24)
#: How often a wait reads the pane (seconds): each look runs ``tmux capture-pane``.
LOOK = 0.05
ZWSP = "\u200b"
#: What the pane's shell writes once the program has ended (tmux itself may mark a pane dead
#: late: the shell's word is what the tests wait for).
ENDED = re.compile(r"^kc-test: exit status (\d+) *$", re.MULTILINE)

needs_tmux = pytest.mark.skipif(
    shutil.which("tmux") is None, reason="tmux is not installed (Debian: apt-get install tmux)"
)


def seen(text: str) -> str:
    """``text`` as a terminal shows it: without its break marks."""
    return text.replace(ZWSP, "")


def terminal_env(home: Path, **variables: str) -> dict[str, str]:
    """The whole environment of a program started in the pane: ``PATH``, a home of its own under
    ``home`` with its XDG data, config, state and cache folders (the game finds its settings file
    and data folder there), and ``variables`` (the locale: ``LANG``, ``LC_ALL``...)."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "TERM": "tmux-256color"}
    for key in ("DATA", "CONFIG", "STATE", "CACHE"):
        env[f"XDG_{key}_HOME"] = str(home / key.lower())
        (home / key.lower()).mkdir(parents=True, exist_ok=True)
    return env | variables


@dataclass
class Pane:
    """The pane of a session on a private tmux server."""

    #: The server's socket (``tmux -S``), in a folder of its own that goes with the server.
    socket: Path
    config: Path

    def tmux(self, *args: str) -> str:
        """Run ``tmux ARGS`` on this server; its standard output."""
        argv = ["tmux", "-u", "-S", str(self.socket), "-f", str(self.config), *args]
        env = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_CTYPE", "TMUX")} | {"LANG": "C.UTF-8"}
        out = subprocess.run(argv, capture_output=True, text=True, encoding="utf-8", env=env, check=True, timeout=WAIT)
        return out.stdout

    def screen(self, history: bool = False) -> str:
        """What the pane shows now (with ``history``, the lines scrolled off above it too, and a
        line the terminal wrapped joined again)."""
        return seen(self.tmux("capture-pane", "-p", "-t", "main", *(["-J", "-S", "-"] if history else [])))

    def wait_for(self, wanted: str | Callable[[str], object], timeout: float = WAIT) -> str:
        """The screen, once it shows ``wanted`` (a text, break marks ignored, or a test of the
        screen); fails the test with the screen shown when it has not after ``timeout`` seconds."""
        test = (lambda screen: seen(wanted) in screen) if isinstance(wanted, str) else wanted
        return waiting.wait_for(
            lambda: screen if test(screen := self.screen()) else None,
            timeout=timeout,
            what=f"{wanted!r} on screen",
            showing=self.screen,
            poll=LOOK,
        )

    def keys(self, *keys: str) -> None:
        """Type ``keys`` (tmux's names: ``h``, ``C-q``, ``BTab``, ``Down``, ``Enter``)."""
        self.tmux("send-keys", "-t", "main", *keys)

    def ended(self, timeout: float = WAIT) -> int:
        """Wait for the process to end; its exit status (the pane's shell says it on the terminal,
        :data:`ENDED`). Fails the test when it has not ended after ``timeout`` seconds."""
        said = waiting.wait_for(
            lambda: ENDED.search(self.screen(history=True)),
            timeout=timeout,
            what="the end",
            showing=self.screen,
            poll=LOOK,
        )
        return int(said.group(1))


def lines_matching(pattern: str, screen: str) -> list[str]:
    """The lines of ``screen`` that ``pattern`` (a regular expression) is found in."""
    return [line for line in screen.splitlines() if re.search(pattern, line)]


def on_one_line(screen: str, *texts: str) -> bool:
    """Whether a line of ``screen`` shows every one of ``texts`` (a row's label and its value)."""
    return any(all(text in line for text in texts) for line in screen.splitlines())


def in_language(code: str) -> Callable[[str], str]:
    """The translation of a msgid in language ``code``, as the screen shows it (no break marks)."""
    catalog = i18n.catalog(code)
    return lambda msgid: seen(catalog.gettext(msgid))


def quit_cleanly(pane: Pane) -> str:
    """Quit from the main menu (``q``); what the terminal shows after the process has ended (it
    ended with status 0)."""
    pane.keys("q")
    assert pane.ended() == 0
    return pane.screen(history=True)


def no_traceback(screen: str) -> None:
    """Fail the test when ``screen`` (what the program left on its terminal) shows an error."""
    assert "Traceback" not in screen and "Error" not in screen, screen


@contextmanager
def in_tmux(args: Sequence[str], env: Mapping[str, str], folder: Path, size: tuple[int, int] = SIZE) -> Iterator[Pane]:
    """``python -m kc_tui *args`` in the pane (``size``: columns, rows; no status line) of a new
    private tmux server with environment ``env`` and nothing else; the server, with anything
    still running in it, is killed at the end. ``folder`` holds the server's settings."""
    config = folder / "tmux.conf"
    config.write_text("set -g remain-on-exit on\nset -g status off\nset -g history-limit 2000\n", encoding="utf-8")
    # A short path of its own (a socket's path is limited to about 100 bytes), gone at the end.
    server = Path(tempfile.mkdtemp(prefix="kc-tmux-"))
    pane = Pane(server / "socket", config)
    command = shlex.join(["env", "-i", *(f"{k}={v}" for k, v in env.items()), sys.executable, "-m", "kc_tui", *args])
    line = f'{command}; echo "kc-test: exit status $?"'
    columns, rows = size
    try:
        pane.tmux("new-session", "-d", "-x", str(columns), "-y", str(rows), "-c", str(folder), "-s", "main", line)
        yield pane
    finally:
        subprocess.run(["tmux", "-S", str(pane.socket), "kill-server"], capture_output=True, check=False, timeout=WAIT)
        shutil.rmtree(server, ignore_errors=True)


__all__ = [
    "ENDED",
    "SIZE",
    "WAIT",
    "Pane",
    "in_language",
    "in_tmux",
    "lines_matching",
    "needs_tmux",
    "no_traceback",
    "on_one_line",
    "quit_cleanly",
    "seen",
    "terminal_env",
]
