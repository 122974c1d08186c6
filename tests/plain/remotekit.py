"""Helpers for the plain mode's tests at a remote table: ``kings-corners join --plain`` and
``online --plain`` as real processes with pipes, their lines read as they come (a thread keeps
them), lines typed one at a time, and a person who plays by reading the lines only (the numbered
moves before each prompt). Every wait is on lines seen or the process's end."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from typing import IO

from kc_tui.util.printable import cells
from tests.waiting import wait_until

#: The width the processes are told ($COLUMNS: their output is a pipe).
WIDTH = 60
#: The prompt at the seat's turn.
PROMPT = "Your move (its number, or help):"
#: A numbered line of the moves (or of the lobby's list).
NUMBERED = re.compile(r"^(\d+)\. (.*)$")
#: An escape sequence's start (ESC or CSI), or any other control character.
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
WAIT = 120.0


@dataclass
class PlainProcess:
    """A plain mode's process: every line it wrote so far (``out``, ``err``)."""

    proc: subprocess.Popen[str]
    out: list[str] = field(default_factory=list)
    err: list[str] = field(default_factory=list)
    #: Where the next :meth:`answer_turn` looks for a prompt from.
    read_to: int = 0

    def __post_init__(self) -> None:
        for pipe, lines in ((self.proc.stdout, self.out), (self.proc.stderr, self.err)):
            threading.Thread(target=_pump, args=(pipe, lines), daemon=True).start()

    def shown(self) -> str:
        return "\n".join(self.out[-60:]) + "\nstderr:\n" + "".join(self.err)[-3000:]

    def type(self, line: str) -> None:
        """Type ``line`` (and Enter)."""
        stdin = self.proc.stdin
        assert stdin is not None
        stdin.write(line + "\n")
        stdin.flush()

    def end_input(self) -> None:
        """Close the input (Ctrl+D at a terminal)."""
        stdin = self.proc.stdin
        assert stdin is not None
        with suppress(OSError):
            stdin.close()

    async def line(self, matches: Callable[[str], bool], start: int = 0, what: str | None = None) -> int:
        """The index of the first line from ``start`` on that ``matches``, once it is written."""

        def found() -> int | None:
            return next((i + 1 for i, line in enumerate(self.out[start:], start) if matches(line)), None)

        at = await wait_until(found, timeout=WAIT, what=what, showing=self.shown)
        return at - 1

    async def line_with(self, words: str, start: int = 0) -> int:
        """The index of the first line from ``start`` on that holds ``words``."""
        return await self.line(lambda line: words in line, start, what=repr(words))

    async def ended(self) -> int:
        """The exit code, once the process has ended (its output read to the end)."""
        code = await wait_until(lambda: self.proc.poll() is not None, timeout=WAIT, what="the end", showing=self.shown)
        assert code
        await wait_until(lambda: self.proc.stdout is None or self.proc.stdout.closed, timeout=WAIT, showing=self.shown)
        return self.proc.returncode

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(30)

    async def answer_turn(self, until: Callable[[str], bool]) -> bool:
        """At the next prompt, type the first numbered move that plays a card or moves a pile
        (ending the turn only when there is none); False, typing nothing, when a line that
        ``until`` matches comes first."""

        def next_event() -> tuple[int, bool] | None:
            for i in range(self.read_to, len(self.out)):
                line = self.out[i]
                if until(line):
                    return i, False
                if line == PROMPT:
                    return i, True
            return None

        at, prompt = await wait_until(next_event, timeout=WAIT, what="a prompt or the end", showing=self.shown)
        if not prompt:
            self.read_to = at + 1
            return False
        moves = [NUMBERED.match(line) for line in self.out[self.read_to : at]]
        numbered = [(m.group(1), m.group(2)) for m in moves if m is not None]
        assert numbered, self.shown()
        playing = [number for number, move in numbered if move != "end the turn"]
        self.read_to = at + 1
        self.type(playing[0] if playing else numbered[-1][0])
        return True

    async def play_until(self, until: Callable[[str], bool], most: int = 2000) -> int:
        """Answer every prompt until a line ``until`` matches; the moves typed."""
        typed = 0
        while await self.answer_turn(until):
            typed += 1
            assert typed < most, self.shown()
        return typed

    def bad_lines(self, width: int = WIDTH) -> list[str]:
        """Every line written wider than ``width`` cells, or holding a control character."""
        return [line for line in self.out if cells(line) > width or CONTROL.search(line)]


def _pump(pipe: IO[str] | None, lines: list[str]) -> None:
    if pipe is None:
        return
    for line in pipe:
        lines.append(line.rstrip("\n"))
    pipe.close()


def plain_process(*args: str, width: int = WIDTH, env: Mapping[str, str] | None = None) -> PlainProcess:
    """``kings-corners --lang en ARGS`` with pipes, told the width ``width``."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "kc_tui", "--lang", "en", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        env=os.environ | {"PYTHONUNBUFFERED": "1", "COLUMNS": str(width), "TERM": "dumb"} | dict(env or {}),
    )
    return PlainProcess(proc)


def over(line: str) -> bool:
    """A line of the scores told at the match's end: a winner's."""
    return line.endswith(", winner")
