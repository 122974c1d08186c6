"""A plain-mode run as a player at a pipe has it: ``python -m kc_tui ...`` started with pipes, its
lines read in a thread as they come, a line typed at each question. The tests read only the lines:
they wait for a question (the text the run asks, at the end of what it said), never a number of
seconds (:func:`tests.waiting.wait_for`).

:class:`Player` plays a whole match by the lines: at "Your move:" it takes a move from the numbered
list (the first, or the move in words), answers handoffs and questions, and keeps every line."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

from kc_tui.util.printable import cells
from tests.waiting import wait_for

#: How a question ends what the run said before it waits for a line (the last line, joined again
#: when it was wrapped).
MOVE = "Your move:"
RESUME = "Resume your match? (y/n)"
QUIT = "Quit Kings Corners? (y/n)"
HANDOFF = re.compile(r"Pass the keyboard to (\S+)\. Press Enter when only \S+ can see the screen\.$")
READ_ON = "Enter or space: go on."
LESSON_DONE = "Well done: lesson learnt. Enter: the next lesson."
QUESTIONS: tuple[str | re.Pattern[str], ...] = (MOVE, RESUME, QUIT, HANDOFF, READ_ON, LESSON_DONE)

#: A numbered move of the list: "3. play 7♠ on 8♥ at North".
NUMBERED = re.compile(r"^(\d+)\. (.+)$")
#: A line naming a drawn card: "Ben drew 7♠" (the news of a table of several people never has one).
DREW_CARD = re.compile(r"\bdrew (?:[2-9]|10|[AJQKT])[♠♡♢♣♥♦SHDC]\b")
SUITS = {"♠": "s", "♥": "h", "♦": "d", "♣": "c", "♡": "h", "♢": "d"}
PLACES = ("north-east", "south-east", "south-west", "north-west", "north", "east", "south", "west")


def plain_env(**changes: str) -> dict[str, str]:
    """The environment of a run: the test's own settings and data folders (the suite's fixture
    sets them), English, a pipe's width of 80 unless ``COLUMNS`` says otherwise."""
    env = dict(os.environ)
    env.setdefault("COLUMNS", "80")
    env["PYTHONIOENCODING"] = "utf-8"
    env.update(changes)
    return env


def typed_card(text: str) -> str:
    """A card as a player types it: ``10♥`` -> ``10h``."""
    return text[:-1].lower() + SUITS.get(text[-1], text[-1].lower())


def in_words(move: str) -> str:
    """A move of the list said the way a player types it: "play 7♠ on 8♥ at North" -> "7s north",
    "move the pile at South (from 4♠) onto 5♦ at North" -> "move south to north", "end"."""
    text = move.lower()
    if text.startswith("end the turn"):
        return "end"
    place = next(p for p in PLACES if text.endswith(p))
    if text.startswith("move the pile at "):
        source = text.removeprefix("move the pile at ").split(" ", 1)[0]
        return f"move {source} to {place}"
    card = move.split(" ")[1]
    return f"{typed_card(card)} {place}"


class PlainRun:
    """``python -m kc_tui *args`` with pipes; its output's lines gathered as they come."""

    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kc_tui", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env if env is not None else plain_env(),
        )
        self.lines: list[str] = []
        self.raw: list[bytes] = []
        self.errors: list[bytes] = []
        self.ended = threading.Event()
        self._lock = threading.Lock()
        #: The lines the test has taken so far.
        self.taken = 0
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_errors, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            with self._lock:
                self.raw.append(raw)
                self.lines.append(raw.decode("utf-8").rstrip("\n"))
        self.ended.set()

    def _read_errors(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            self.errors.append(raw)

    def unread(self) -> list[str]:
        with self._lock:
            return self.lines[self.taken :]

    def shown(self) -> str:
        with self._lock:
            return "\n".join(self.lines[-60:]) + "\nstderr: " + b"".join(self.errors).decode("utf-8", "replace")

    @staticmethod
    def question(lines: Sequence[str]) -> str | None:
        """The question ``lines`` end with (a wrapped one joined again), or None."""
        if not lines:
            return None
        for count in (1, 2, 3):
            text = " ".join(lines[-count:])
            for q in QUESTIONS:
                if isinstance(q, str) and text == q:
                    return q
                if isinstance(q, re.Pattern) and q.fullmatch(text):
                    return text
        return None

    def next_question(self) -> tuple[str | None, list[str]]:
        """Wait for the run to ask (or end): the question (None: it ended) and the lines said
        since the last one, the question's included."""

        def asked() -> tuple[str | None, list[str]] | None:
            ended = self.ended.is_set()
            lines = self.unread()
            q = self.question(lines)
            if q is None and not ended:
                return None
            return q, lines

        q, lines = wait_for(asked, what="a question or the end of the run", showing=self.shown)
        with self._lock:
            self.taken += len(lines)
        return (None if self.ended.is_set() else q), lines

    def type(self, text: str) -> None:
        """Type ``text`` and Enter."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(text.encode("utf-8") + b"\n")
        self.proc.stdin.flush()

    def close_input(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()

    def wait_end(self) -> int:
        """Wait for the run to end: its exit code (every line read)."""
        wait_for(lambda: self.ended.is_set() and self.proc.poll() is not None, what="the run's end", showing=self.shown)
        return int(self.proc.returncode)

    def check_lines(self, width: int = 80) -> None:
        """Every line fits ``width`` cells, and nothing said holds an escape character."""
        everything = b"".join(self.raw) + b"".join(self.errors)
        assert b"\x1b" not in everything
        for line in self.lines:
            assert cells(line) <= width, line
        assert b"Traceback" not in b"".join(self.errors), b"".join(self.errors).decode("utf-8", "replace")


class Player:
    """Answers a run's questions as a person would, by the lines alone: at "Your move:" the
    first move of the list (in words every other time when ``words``), Enter at a handoff."""

    def __init__(self, run: PlainRun, *, words: bool = False) -> None:
        self.run = run
        self.words = words
        self.moves_typed = 0
        #: Every handoff's name, in order, and who was on turn each time a hand was told.
        self.handoffs: list[str] = []
        self.hands_told_to: list[str | None] = []
        self.at_keyboard: str | None = None
        #: The last hand told.
        self.last_hand: str | None = None
        #: Who typed each move (None: the one person) and the first line said after it.
        self.after_moves: list[tuple[str | None, str]] = []
        self._moved = False

    def moves(self, lines: Sequence[str]) -> list[str]:
        """The numbered moves of the last list in ``lines``."""
        start = max((i for i, line in enumerate(lines) if line.startswith("Your hand")), default=0)
        return [m.group(2) for line in lines[start:] if (m := NUMBERED.match(line))]

    def answer(self, question: str, lines: Sequence[str]) -> None:
        if self._moved and lines:
            self.after_moves.append((self.at_keyboard, lines[0]))
        self._moved = False
        for line in lines:
            if line.startswith("Your hand"):
                self.hands_told_to.append(self.at_keyboard)
                self.last_hand = line
        if match := HANDOFF.fullmatch(question):
            self.at_keyboard = match.group(1)
            self.handoffs.append(self.at_keyboard)
            self.run.type("")
        elif question == MOVE:
            moves = self.moves(lines)
            assert moves, lines
            first = next((m for m in moves if not m.startswith("end the turn")), moves[0])
            self.moves_typed += 1
            self._moved = True
            if self.words and self.moves_typed % 2 == 0:
                self.run.type(in_words(first))
            else:
                self.run.type(str(moves.index(first) + 1))
        elif question == RESUME:
            self.run.type("y")
        else:
            raise AssertionError(f"unexpected question {question!r}")

    def check_moves_made(self) -> None:
        """Every move typed was made: the line after it tells the mover's move (no refusal)."""
        assert self.after_moves
        for who, line in self.after_moves:
            assert line.startswith(f"{who or 'You'} "), line

    def play_to_end(self) -> list[str]:
        """Answer every question until the run ends; the lines said meanwhile."""
        said: list[str] = []
        while True:
            question, lines = self.run.next_question()
            said += lines
            if question is None:
                if self._moved and lines:
                    self.after_moves.append((self.at_keyboard, lines[0]))
                return said
            self.answer(question, lines)


def recorded_matches() -> list[dict[str, object]]:
    """The history's matches as ``kings-corners stats --json`` exports them."""
    done = subprocess.run(
        [sys.executable, "-m", "kc_tui", "stats", "--json"], capture_output=True, check=True, env=plain_env()
    )
    matches: list[dict[str, object]] = json.loads(done.stdout)
    return matches


def data_folder() -> Path:
    """The test's data folder (the suite's fixture sets it)."""
    return Path(os.environ["KINGS_CORNERS_DATA"])


def write_settings(text: str) -> None:
    """The test's settings file holds ``text`` (TOML)."""
    path = Path(os.environ["KINGS_CORNERS_CONFIG"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


__all__ = [
    "DREW_CARD",
    "HANDOFF",
    "MOVE",
    "QUIT",
    "RESUME",
    "PlainRun",
    "Player",
    "data_folder",
    "in_words",
    "plain_env",
    "recorded_matches",
    "write_settings",
]
