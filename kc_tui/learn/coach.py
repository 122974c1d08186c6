"""The coach of a lesson: a move checked against the step's goal before it is made, the step's
words filled from the position, and the opponent's scripted turns.

A move that does not meet the goal is not made: an illegal one gets the engine's own refusal
(:meth:`Round.why_illegal`, the words the table says), a legal one the step's correction.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ai.base import AIPlayer
from kc_tui.config import HUMAN, Config
from kc_tui.engine import (
    END,
    PLACES,
    Card,
    Match,
    Move,
    PlayerView,
    Round,
    card_str,
    is_pile_move,
    is_play,
    load_position,
    parse_move,
    penalty_of,
    play_card,
    source,
    target,
)
from kc_tui.i18n import N_, _
from kc_tui.learn.lessons import CONDITIONS, LEARNER, Goal, Lesson, Step
from kc_tui.match.roster import Seat
from kc_tui.match.session import MatchSession

#: What the coach says to a move made while a step is to be read.
READ_FIRST = N_("Read this step first: Enter goes on.")
#: What a step to read says under its words, and a lesson done.
READ_ON = N_("Enter or space: go on.")
LESSON_DONE = N_("Well done: lesson learnt. Enter: the next lesson.")
#: The keys that go on once a lesson is learnt, as the status line says them.
NEXT_LESSON = N_("Enter: the next lesson.")
#: While the opponent plays its turn.
OPPONENT_PLAYS = N_("{name} plays a turn…")
#: The opponent's kind as the table shows it (its moves are the lesson's script).
OPPONENT_KIND = "greedy"
#: The name the opponent has when the position file gives none.
OPPONENT_NAME = "Lena"

Format = Callable[[Card], str]


def meets(step: Step, r: Round, m: Move) -> bool:
    """Whether the legal move ``m`` meets ``step``'s goal in ``r``."""
    if step.goal is Goal.MOVE:
        return m in {parse_move(text) for text in step.moves}
    if step.goal is Goal.END:
        return m == END
    if step.goal is Goal.REACH:
        return CONDITIONS[step.reach](r.child(m))
    return False


def verdict(step: Step, r: Round, m: Move, names: Sequence[str], fmt: Format = card_str) -> str | None:
    """None when ``m`` meets the step's goal (and is legal) in ``r``; else what the coach says:
    the engine's refusal for an illegal move, the step's correction for a legal one."""
    if step.goal is Goal.READ:
        return _(READ_FIRST)
    reason = r.why_illegal(m, fmt)
    if reason is not None:
        return reason
    if meets(step, r, m):
        return None
    return words(step.wrong, step, r, names, fmt)


def verdict_at(step: Step, session: MatchSession, m: Move) -> str | None:
    """:func:`verdict` of ``m`` at the lesson's table (``session``), in its names and card text."""
    return verdict(step, session.match.round, m, session.names, session.fmt)


def _move_parts(m: Move | None, r: Round, fmt: Format, suffix: str = "") -> dict[str, str]:
    """The placeholders naming move ``m``: ``card``, ``top`` (what it goes on), ``place``, ``source``."""
    parts = {f"card{suffix}": "", f"top{suffix}": "", f"place{suffix}": "", f"source{suffix}": ""}
    if m is None or not (is_play(m) or is_pile_move(m)):
        return parts
    pile = r.piles[target(m)]
    parts[f"place{suffix}"] = PLACES[target(m)]
    parts[f"top{suffix}"] = fmt(pile[-1]) if pile else ""
    if is_play(m):
        parts[f"card{suffix}"] = fmt(play_card(m))
    else:
        parts[f"source{suffix}"] = PLACES[source(m)]
    return parts


def words(text: str, step: Step, r: Round, names: Sequence[str], fmt: Format = card_str) -> str:
    """``text`` (a marked text of a step) translated, its placeholders filled from ``r``."""
    if not text:
        return ""
    solution = step.solution_move()
    second = parse_move(step.moves[1]) if len(step.moves) > 1 else None
    other = 1 - LEARNER
    drawn = r.last_drawn[LEARNER]
    values: dict[str, Any] = {
        **_move_parts(solution, r, fmt),
        **_move_parts(second, r, fmt, "2"),
        "drawn": fmt(drawn) if drawn >= 0 else "",
        "name": names[other] if len(names) > other else "",
        "left": " ".join(fmt(c) for c in r.hand(other)),
        "points": penalty_of(r.hands[other]),
        "target": r.rules.target,
        "chips": r.rules.chips_start,
    }
    return _(text).format(**values)


def words_at(text: str, step: Step, session: MatchSession) -> str:
    """:func:`words` filled from the lesson's table (``session``), in its names and card text."""
    return words(text, step, session.match.round, session.names, session.fmt)


def reply(legal: Sequence[Move], replies: Sequence[str]) -> Move:
    """The opponent's move: the first of its scripted ``replies`` that is legal now, else ``end``."""
    for text in replies:
        m = parse_move(text)
        if m != END and m in legal:
            return m
    return END


class ScriptedPlayer(AIPlayer):
    """A lesson's opponent: it plays its scripted replies (:func:`reply`), the same every time.
    Not a kind of the AI registry: it is never offered as an opponent."""

    kind = "scripted"
    offered = False

    def __init__(self, replies: Sequence[str] = (), seed: int = 0) -> None:
        super().__init__(seed)
        self.replies = tuple(replies)

    def choose(self, view: PlayerView) -> Move:
        return reply(view.legal_moves(), self.replies)


def start(lesson: Lesson) -> Round:
    """The lesson's position, read from its file (strictly, as every position file is)."""
    return load_position(lesson.position_text())


def opponents_play(r: Round, lesson: Lesson) -> None:
    """The opponents' turns, up to the learner's next turn or the round's end."""
    while not r.over and r.to_move != LEARNER:
        r.apply(reply(r.legal_moves(), lesson.replies))


def play_step(r: Round, lesson: Lesson, step: Step) -> None:
    """Make ``step``'s solution in ``r``, then the opponents' turns it leads to (nothing for a step to read)."""
    m = step.solution_move()
    if m is None:
        return
    r.apply(m)
    opponents_play(r, lesson)


def position_at(lesson: Lesson, step: int) -> Round:
    """The position at the start of step ``step`` (0-based): the lesson's file with the
    solutions of the steps before it made. A lesson comes back there after a pause."""
    r = start(lesson)
    for done in lesson.steps[: max(0, min(step, len(lesson.steps)))]:
        play_step(r, lesson, done)
    return r


def lesson_session(lesson: Lesson, step: int, config: Config) -> MatchSession:
    """A session at ``step`` of ``lesson`` (:func:`position_at`): the player at seat 0, the
    lesson's scripted opponent at 1; never saved, never recorded."""
    r = position_at(lesson, step)
    match = Match(r.n, r.rules, 0, first_dealer=r.dealer)
    r.standing = match.standing()
    match.round = r
    other = str(r.player_meta[1].get("name", OPPONENT_NAME)) if len(r.player_meta) > 1 else OPPONENT_NAME
    seats = [Seat(config.player_name, HUMAN), Seat(other, OPPONENT_KIND)]
    session = MatchSession(match, seats, card_style=config.card_style)
    session.players[1] = ScriptedPlayer(lesson.replies)
    return session


__all__ = [
    "LESSON_DONE",
    "NEXT_LESSON",
    "OPPONENT_KIND",
    "OPPONENT_NAME",
    "OPPONENT_PLAYS",
    "READ_FIRST",
    "READ_ON",
    "ScriptedPlayer",
    "lesson_session",
    "meets",
    "opponents_play",
    "play_step",
    "position_at",
    "reply",
    "start",
    "verdict",
    "verdict_at",
    "words",
    "words_at",
]
