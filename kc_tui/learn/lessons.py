"""The lessons of the guided first game, declared once: each a position file
(``kc_tui/learn/lessons/<id>.json``, POSITION_FORMAT.md) so every card and draw is known, and
its steps: what the coach says, the place(s) lit, the goal that a move must meet.

A step's text is marked with ``N_`` and translated where it is drawn. It may name the move's
parts by placeholder, filled from the position when it is drawn (:mod:`kc_tui.learn.coach`):
``{card}`` the card the solution plays, ``{top}`` the card it goes on, ``{place}`` its place,
``{source}`` the place of a pile it moves, ``{drawn}`` the card you drew last, ``{name}`` the
opponent's name, ``{left}`` the cards left in the opponent's hand, ``{points}`` their penalty,
``{target}`` the match's target, ``{chips}`` the chips each player starts with.

Goals, as a tutorial's steps go (one move; any of several; any move reaching a condition; ending
the turn; a step to read, Enter goes on):

- ``MOVE``: one of ``moves`` (one move, or any of several);
- ``REACH``: any move after which ``reach`` (a name of :data:`CONDITIONS`) holds;
- ``END``: ending the turn (``t``);
- ``READ``: no move: the step is read, Enter (or space) goes on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from importlib import resources

from kc_tui.engine import CORNERS, END, Move, Round, is_king, parse_move, parse_place
from kc_tui.i18n import N_

#: What the coach says to a legal move that is not the one the step asks for (most steps).
WRONG = N_("That move is legal, but not this step's: the step names the move it asks for.")
#: The seat of the person who learns (the opponent sits at 1).
LEARNER = 0


class Goal(Enum):
    MOVE = "move"
    REACH = "reach"
    END = "end"
    READ = "read"


def _lone_king_in_corner(r: Round) -> bool:
    """A corner holds a king on its own: a king was just placed there (R10)."""
    return any(len(r.piles[p]) == 1 and is_king(r.piles[p][0]) for p in CORNERS)


def _filled(place: str) -> Callable[[Round], bool]:
    index = parse_place(place)
    return lambda r: bool(r.piles[index])


#: The conditions a ``REACH`` step may ask for, by name.
CONDITIONS: dict[str, Callable[[Round], bool]] = {
    "king in a corner": _lone_king_in_corner,
    "W filled": _filled("W"),
}


@dataclass(frozen=True, slots=True)
class Step:
    """One step: the coach's ``text``, the ``goal`` and what meets it, the places lit."""

    text: str
    goal: Goal
    #: The moves that meet a ``MOVE`` goal, in notation ("play 6H N"); the first is the solution.
    moves: tuple[str, ...] = ()
    #: The condition a ``REACH`` goal asks for (a key of :data:`CONDITIONS`).
    reach: str = ""
    #: The move the checks and a resume play for a ``REACH`` step (it must reach the condition).
    solution: str = ""
    #: The places lit on the table, in notation ("N", "NE").
    light: tuple[str, ...] = ()
    #: What the coach says to a legal move that does not meet the goal (it is not made).
    wrong: str = ""
    #: A legal move that does not meet the goal, and one that is not legal: what the checks try.
    tries: tuple[str, ...] = ()

    def solution_move(self) -> Move | None:
        """The move that meets the goal (None for a step to read)."""
        if self.goal is Goal.MOVE:
            return parse_move(self.moves[0])
        if self.goal is Goal.REACH:
            return parse_move(self.solution)
        if self.goal is Goal.END:
            return END
        return None

    def places(self) -> tuple[int, ...]:
        return tuple(parse_place(p) for p in self.light)


@dataclass(frozen=True, slots=True)
class Lesson:
    """A lesson: its id (its position file's name), its title and its steps."""

    id: str
    title: str
    steps: tuple[Step, ...]
    #: The moves the opponent makes in its turns, each when it is legal (else it ends its turn).
    replies: tuple[str, ...] = field(default=())

    def position_text(self) -> str:
        """The lesson's position file, as packaged."""
        return resources.files("kc_tui.learn").joinpath("lessons", f"{self.id}.json").read_text("utf-8")


LESSONS: tuple[Lesson, ...] = (
    Lesson(
        "build",
        N_("Play a card on a pile"),
        (
            Step(
                N_(
                    "A card goes on a pile whose top card is one rank higher and the other colour (R8). "
                    "Play {card} on {top} at {place}."
                ),
                Goal.MOVE,
                moves=("play 6H N",),
                light=("N",),
                wrong=WRONG,
                tries=("play 8S E", "play 6H E"),
            ),
            Step(
                N_(
                    "Now two cards fit: {card} on {top} at {place}, or {card2} on {top2} at {place2}. Play either (R8)."
                ),
                Goal.MOVE,
                moves=("play 5C N", "play 8S E"),
                light=("N", "E"),
                wrong=N_("Not yet: play a card before you end your turn."),
                tries=("end", "play 2D N"),
            ),
        ),
    ),
    Lesson(
        "corner",
        N_("A king to an empty corner"),
        (
            Step(
                N_("Only a king starts a corner (R10). Play {card} on an empty corner: NW, SE or SW."),
                Goal.REACH,
                reach="king in a corner",
                solution="play KD NW",
                light=("NW", "SE", "SW"),
                wrong=WRONG,
                tries=("play 7C N", "play 7C NW"),
            ),
        ),
    ),
    Lesson(
        "move",
        N_("Move a pile, fill its place"),
        (
            Step(
                N_(
                    "A whole pile moves onto another when its bottom card fits there (R9). "
                    "Move {source} onto {top} at {place}."
                ),
                Goal.MOVE,
                moves=("move W N",),
                light=("W", "N"),
                wrong=WRONG,
                tries=("play 9C E", "move W E"),
            ),
            Step(
                N_("W is empty now: any card of your hand may go there (R11). Fill it."),
                Goal.REACH,
                reach="W filled",
                solution="play 4H W",
                light=("W",),
                wrong=WRONG,
                tries=("play 9C E", "move N W"),
            ),
        ),
    ),
    Lesson(
        "side",
        N_("A card on an empty side"),
        (
            Step(
                N_("S is empty: any single card may start it (R11). Play {card} there, then build on it."),
                Goal.MOVE,
                moves=("play 9D S",),
                light=("S",),
                wrong=WRONG,
                tries=("play 4H S", "play 8C NW"),
            ),
            Step(
                N_("Build on it: play {card} on {top} at {place} (R8)."),
                Goal.MOVE,
                moves=("play 8C S",),
                light=("S",),
                wrong=WRONG,
                tries=("move N NW", "play 4H S"),
            ),
        ),
    ),
    Lesson(
        "draw",
        N_("End the turn and draw"),
        (
            Step(
                N_("No card of yours fits anywhere. You may end your turn at any time (R7): press t."),
                Goal.END,
                wrong=N_("This step asks you to end your turn: press t."),
                tries=("play 3H N",),
            ),
            Step(
                N_(
                    "{name} drew a card and ended the turn. "
                    "Then your turn began with a draw from the stock: {drawn} (R6)."
                ),
                Goal.READ,
            ),
            Step(
                N_(
                    "The card you drew fits: play {card} on {top} at {place} (R8). "
                    "A house rule may draw only when you are stuck, or after you play."
                ),
                Goal.MOVE,
                moves=("play 5D N",),
                light=("N",),
                wrong=WRONG,
                tries=("end", "play 5D S"),
            ),
        ),
        replies=("end",),
    ),
    Lesson(
        "out",
        N_("Go out and score"),
        (
            Step(
                N_("One card left: play {card} on {top} at {place} and you go out, which ends the round (R13)."),
                Goal.MOVE,
                moves=("play 4C E",),
                light=("E",),
                wrong=N_("Not yet: play your last card to go out."),
                tries=("end", "play 4C N"),
            ),
            Step(
                N_(
                    "You won the round. {name} keeps {left}: {points} penalty points (a king 10, "
                    "any other card 1, R15)."
                ),
                Goal.READ,
            ),
            Step(
                N_(
                    "Totals add up round after round. When one reaches the target ({target}) "
                    "the match ends: the lowest total wins (R15)."
                ),
                Goal.READ,
            ),
        ),
    ),
    Lesson(
        "chips",
        N_("A word on chips"),
        (
            Step(
                N_(
                    "A house rule scores with chips (R16): each player starts with {chips}, "
                    "and each round everyone puts 1 in the pot."
                ),
                Goal.READ,
            ),
            Step(
                N_(
                    "Ending a turn without playing a card from your hand costs 1 chip. "
                    "Whoever goes out takes the pot (R16)."
                ),
                Goal.READ,
            ),
            Step(
                N_("That is the whole game. Enter sets up a real match, with a hint at each of your turns."),
                Goal.READ,
            ),
        ),
    ),
)

#: The lessons by id.
BY_ID: dict[str, Lesson] = {lesson.id: lesson for lesson in LESSONS}

__all__ = ["BY_ID", "CONDITIONS", "LEARNER", "LESSONS", "WRONG", "Goal", "Lesson", "Step"]
