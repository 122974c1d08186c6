"""The table driver: runs a match's turns for any view (the game screen, the demo, a test).

Plain Python, no Textual. The driver owns whose turn it is and asks for moves: a person's through
the view (``driver.session.human_to_move``, for whichever person is on turn: any number of seats
may be people; the view calls :meth:`TableDriver.play`), an AI's through its
:class:`ai.safe.SafePlayer` with its think budget, off the UI thread: :meth:`TableDriver.ai_job`
gives the view an :class:`AIJob` whose ``run()`` may run in any thread and returns a
:class:`Decision`; the view hands it back to :meth:`TableDriver.decide` on its own thread, which
drops it (False) when it is stale (its stamp is not the table's now). The driver paces what is
shown (the delays before the next AI move and before a round's end, from the pace setting) and
ends rounds and matches. It tells its listeners what happened with events (:class:`MoveMade`,
:class:`TurnEnded`, :class:`AIFault`, :class:`RoundEnded`, :class:`MatchEnded`) and gives a
:class:`TableSnapshot` of what a seat may see.

A whole match, synchronously (a view does the same with timers and a thread worker)::

    driver = TableDriver(MatchSession.all_ai(["greedy", "expert"], rules, seed=3))
    while not driver.over:
        if driver.round_over:
            driver.finish_round()
        else:
            driver.decide(driver.ai_job().run())
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ai.safe import SafePlayer
from kc_tui.config import PACE_SECONDS, Config
from kc_tui.engine import END, Card, Move, RoundResult, Rules, card_symbol, move_str
from kc_tui.i18n import _, ngettext
from kc_tui.match.card_format import CardFormat
from kc_tui.match.narration import fault_reason
from kc_tui.match.recorder import Recorder
from kc_tui.match.saves import new_seed
from kc_tui.match.session import AITurn, MatchSession, match_end_text
from kc_tui.match.view import SeatSnapshot, TableSnapshot, round_row, score_label

if TYPE_CHECKING:
    from kc_tui.records.store import History

log = logging.getLogger(__name__)

#: (table, generation, round number, moves so far): a decision is applied only at this stamp.
TableStamp = tuple[int, int, int, int]

#: The expert's think time in the demo, per pace: a fast demo keeps moving.
DEMO_THINK_MS: dict[str, int] = {"slow": 1000, "normal": 800, "fast": 300, "instant": 100}
#: Seconds the end of a round stays on screen before the next deal when no dialog shows it, per pace.
ROUND_PAUSE: dict[str, float] = {"slow": 3.0, "normal": 2.0, "fast": 1.0, "instant": 0.0}
#: The shortest wait before a round's end is shown (unless the pace is instant).
ROUND_END_MIN = 0.4

_tables = itertools.count(1)


# ---------------------------------------------------------------------- events
@dataclass(frozen=True, slots=True)
class MoveMade:
    """``seat`` made ``move`` (``END`` included); ``lines``: what the log says of it."""

    seat: int
    move: Move
    lines: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TurnEnded:
    """``seat``'s turn is over (it ended the turn); ``next_seat`` is to move."""

    seat: int
    next_seat: int


@dataclass(frozen=True, slots=True)
class AIFault:
    """The AI at ``seat`` failed (``reason``, in plain words); the fallback played ``fallback``."""

    seat: int
    fallback: Move
    reason: str


@dataclass(frozen=True, slots=True)
class RoundEnded:
    """A round was scored: its ``result`` and the (cards, kings) left in every seat's hand;
    ``cards``: those cards, by match seat in hand order, as the round's end shows them face up
    to everyone (R15)."""

    result: RoundResult
    hands: tuple[tuple[int, int], ...]
    cards: tuple[tuple[Card, ...], ...] = ()


@dataclass(frozen=True, slots=True)
class MatchEnded:
    winners: tuple[int, ...]


Event = MoveMade | TurnEnded | AIFault | RoundEnded | MatchEnded


# ---------------------------------------------------------------------- AI decisions
@dataclass(frozen=True, slots=True)
class Decision:
    """An AI's move (or a hint) for the position at ``stamp``; ``fault``: why the AI failed and
    the fallback chose ``move`` instead, or None."""

    turn: AITurn
    move: Move
    stamp: TableStamp
    fault: str | None = None
    hint: bool = False
    #: A hint's plan and reason in words ("Hint: play 7♥ on 8♣ at N. It sheds 7♥ ..."), or None.
    note: str | None = None


@dataclass(frozen=True, slots=True)
class AIJob:
    """One AI decision to compute. ``run()`` may run in any thread: it touches only the AI and a
    frozen view of the position, never the session or a widget, and never raises."""

    turn: AITurn
    stamp: TableStamp
    hint: bool = False
    #: The card text of the hint's words (the player's card style).
    fmt: CardFormat = card_symbol

    def run(self) -> Decision:
        player = self.turn.player
        faults = player.faults if isinstance(player, SafePlayer) else 0
        try:
            advice = getattr(player, "advice", None) if self.hint else None
            if advice is not None:
                told = advice(self.turn.view, self.fmt)
                return Decision(self.turn, told.move, self.stamp, None, True, told.line)
            m = self.turn.think()
        except Exception as exc:  # only an unwrapped AI (the hint) can raise: it ends the turn
            log.error("AI failed: %r", exc)
            return self.decided(END, "it raised an error")
        if isinstance(player, SafePlayer) and player.faults > faults and player.fault_log:
            return self.decided(m, fault_reason(player.fault_log[-1]))
        return self.decided(m)

    def decided(self, move: Move, fault: str | None = None) -> Decision:
        return Decision(self.turn, move, self.stamp, fault, self.hint)


class LogNotShared(ValueError):
    """The table's log names a person's drawn cards: it is that person's alone, and no other
    viewer may be given it (a table served to many is built with a shared log)."""


# ---------------------------------------------------------------------- the driver
class TableDriver:
    """Runs one match (a :class:`MatchSession`) for its views. See the module docs."""

    def __init__(
        self,
        session: MatchSession,
        pace: str = "normal",
        *,
        history: History | None = None,
        recorder: Recorder | None = None,
        demo: bool = False,
    ) -> None:
        self.session = session
        self.pace = pace
        #: Identifies this table: decisions made for another table are never applied.
        self.table_id = next(_tables)
        self._listeners: list[Callable[[Event], None]] = []
        #: Records every finished round and match (None: not recorded). A ``history`` without a
        #: recorder is recorded into at once, on the caller's thread.
        self.recorder = recorder if recorder is not None or history is None else Recorder(history)
        #: The view tells the recorder's problems itself when the recorder is its own (threaded).
        self._tells_problems = recorder is None
        if self.recorder is not None and session.save_path is not None:
            session.keep_save_at_end = True  # removed once the history has the finished match
        #: An all-AI table (recorded as a demo, apart from the player's games).
        self.demo = demo
        #: Hints shown and moves taken back this round, by match seat: each counts for the person
        #: on turn who asked (recorded with the round).
        self.hints_by_seat = [0] * session.match.n
        self.undos_by_seat = [0] * session.match.n
        #: Why the history could not record yet (shown once by the view: it then sets it to None).
        self.history_problem: str | None = None

    @property
    def hints_this_round(self) -> int:
        """The hints shown this round, every person's together."""
        return sum(self.hints_by_seat)

    @property
    def undos_this_round(self) -> int:
        """The moves taken back this round, every person's together."""
        return sum(self.undos_by_seat)

    @property
    def history(self) -> History | None:
        """The history this table records in (for reading), once open."""
        return self.recorder.history if self.recorder is not None else None

    @property
    def history_match(self) -> int | None:
        """The match's id in the history, once any of it is recorded."""
        return self.recorder.match_id(self.session.record.uid) if self.recorder is not None else None

    @classmethod
    def for_demo(
        cls,
        kinds: Sequence[str],
        rules: Rules,
        seed: int | None,
        pace: str,
        *,
        card_style: str = "symbols",
        recorder: Recorder | None = None,
    ) -> TableDriver:
        """An all-AI table (the demo): the expert thinks as long as the pace allows."""
        session = MatchSession.all_ai(
            kinds,
            rules,
            new_seed() if seed is None else seed,
            think_ms=DEMO_THINK_MS.get(pace, DEMO_THINK_MS["normal"]),
            card_style=card_style,
        )
        return cls(session, pace, recorder=recorder, demo=True)

    @classmethod
    def for_config(cls, config: Config, session: MatchSession, recorder: Recorder | None = None) -> TableDriver:
        return cls(session, config.pace, recorder=recorder)

    # ------------------------------------------------------------------ listeners
    def listen(self, callback: Callable[[Event], None]) -> None:
        """Call ``callback`` with every event from now on (on the thread that drives the table)."""
        self._listeners.append(callback)

    def _emit(self, event: Event) -> None:
        for callback in list(self._listeners):
            callback(event)

    # ------------------------------------------------------------------ whose turn
    @property
    def to_move(self) -> int | None:
        """The match seat to move, or None between rounds."""
        return None if self.session.match.round.over else self.session.to_move

    @property
    def stamp(self) -> TableStamp:
        return (self.table_id, *self.session.stamp)

    # ------------------------------------------------------------------ pacing
    @property
    def ai_delay(self) -> float:
        """Seconds before the next AI move is asked for (so a player can follow it)."""
        return PACE_SECONDS.get(self.pace, 0.6)

    @property
    def round_end_delay(self) -> float:
        """Seconds the last move of a round stays on screen before the round's end is shown."""
        return 0.0 if self.pace == "instant" else max(ROUND_END_MIN, self.ai_delay)

    @property
    def next_round_delay(self) -> float:
        """Seconds a round's result stays on screen before the next deal, when no dialog shows it."""
        return ROUND_PAUSE.get(self.pace, 2.0)

    def next_delay(self) -> float:
        """The wait before the table's next step: a round's end, or an AI's move."""
        return self.round_end_delay if self.session.match.round.over else self.ai_delay

    # ------------------------------------------------------------------ the AIs
    def ai_job(self) -> AIJob:
        """The decision of the AI to move, to compute off the UI thread (call on the view's thread)."""
        return AIJob(self.session.prepare_ai_turn(), self.stamp)

    def hint_job(self) -> AIJob:
        """A hint for the person on turn, to compute off the UI thread."""
        return AIJob(self.session.hint_turn(), self.stamp, hint=True, fmt=self.session.fmt)

    def owns(self, decision: Decision) -> bool:
        """Whether ``decision`` was asked of this table (of any position)."""
        return decision.stamp[0] == self.table_id

    def is_current(self, decision: Decision) -> bool:
        """Whether ``decision`` was made for the position as it is now."""
        return decision.stamp == self.stamp

    def decide(self, decision: Decision) -> bool:
        """Apply an AI's decision; False (nothing changes) when it is stale or a hint."""
        s = self.session
        if decision.hint or not self.is_current(decision) or not s.ai_to_move:
            return False
        seat, written = decision.turn.seat, s.lines_written
        if not s.apply_ai_turn(decision.turn, decision.move, fault=decision.fault):
            return False
        if decision.fault is not None:
            self._emit(AIFault(seat, decision.move, decision.fault))
            written += 1
        self._moved(seat, decision.move, s.lines_since(written))
        return True

    def hint_ready(self, decision: Decision) -> bool:
        """Whether a hint still fits the position (nothing moved, so it is still the turn of the
        person it was asked for): the view shows it then, and it counts as a hint used this round."""
        s = self.session
        ready = decision.hint and self.is_current(decision) and s.human_to_move and decision.turn.seat == s.to_move
        if ready:
            self.hints_by_seat[decision.turn.seat] += 1
        return ready

    # ------------------------------------------------------------------ the people
    def play(self, m: Move) -> str | None:
        """The move of the person on turn: None when it was made, else a one-line reason (nothing changes)."""
        s = self.session
        seat, written = s.to_move, s.lines_written
        reason = s.play_human(m)
        if reason is None:
            self._moved(seat, m, s.lines_since(written))
        return reason

    def end_turn(self) -> str | None:
        return self.play(END)

    def undo(self) -> bool:
        """Take back the last move of the person on turn this turn (never another's)."""
        seat = self.session.to_move
        undone = self.session.undo()
        if undone:
            self.undos_by_seat[seat] += 1
        return undone

    def _moved(self, seat: int, m: Move, lines: Sequence[str]) -> None:
        self._emit(MoveMade(seat, m, tuple(lines)))
        if m == END and not self.session.match.round.over:
            self._emit(TurnEnded(seat, self.session.to_move))

    # ------------------------------------------------------------------ rounds
    def finish_round(self) -> RoundEnded:
        """Score the round that is over and deal the next (unless the match is over)."""
        hands = tuple(self.session.hands_to_score())
        cards = self.cards_left()
        hints, undos = self.hints_by_seat, self.undos_by_seat
        self.hints_by_seat, self.undos_by_seat = [0] * len(hints), [0] * len(undos)
        result = self.session.finish_round(hints=hints, undos=undos)
        self._record()
        ended = RoundEnded(result, hands, cards)
        self._emit(ended)
        if self.session.match.over:
            self._emit(MatchEnded(tuple(self.session.match.winners)))
        return ended

    def cards_left(self) -> tuple[tuple[Card, ...], ...]:
        """The cards left in every match seat's hand once the round is over (what its end shows
        everyone); ValueError while it goes on: no hand is shown before its end."""
        s = self.session
        if not s.match.round.over:
            raise ValueError("the round goes on: its hands are not shown")
        return tuple(tuple(s.hand(seat)) for seat in range(s.match.n))

    # ------------------------------------------------------------------ the history
    def _record(self) -> None:
        """Hand the match as it is now (every finished round) to the recorder; once the history
        has a finished match, its save goes. What cannot be recorded yet waits (and is said once
        by the view: ``history_problem``); the game goes on."""
        rec, s = self.recorder, self.session
        if rec is None:
            return
        done = s.delete_save if s.match.over and s.keep_save_at_end else None
        rec.submit_session(s, demo=self.demo, done=done)
        problem = rec.status.problem
        if self._tells_problems and problem is not None:
            # Translators: {problem} says what went wrong with the game history.
            self.history_problem = _(
                "The game history could not record this round yet ({problem}): it is kept and tried again."
                " The game goes on."
            ).format(problem=problem)

    # ------------------------------------------------------------------ what the UI asks
    @property
    def rules(self) -> Rules:
        """The match's rules."""
        return self.session.match.rules

    @property
    def seed(self) -> int:
        """The match's seed (a secret one is never shown: :func:`kc_tui.engine.is_secret`)."""
        return self.session.match.seed

    @property
    def seat_count(self) -> int:
        """The match's seats, every one (those sitting a round out too)."""
        return self.session.match.n

    @property
    def over(self) -> bool:
        """The match is over."""
        return self.session.match.over

    @property
    def round_over(self) -> bool:
        """The round on the table is over (its last move made, not yet scored)."""
        return self.session.match.round.over

    @property
    def shown_target(self) -> int:
        """The target shown beside totals: the points target, or 0 under chips scoring."""
        return 0 if self.session.match.chips_scoring else self.session.match.rules.target

    def score_text(self, seat: int) -> str:
        """A seat's total for a label: "12/100 pts", or "70 chips" ("1 chip") under chips scoring, the
        stack as it is now (R16: this round's ante and the fines paid so far have left it)."""
        m = self.session.match
        return score_label(m.live_chips()[seat], chips=m.chips_scoring, target=m.rules.target)

    def round_lines(self, ended: RoundEnded) -> list[str]:
        """A scored round in plain lines for every viewer, naming every seat and no card: who
        went out, and every seat's cards left and total."""
        return round_lines(self.session, ended)

    def snapshot(self, viewer: int | None, *, open_hands: bool = False) -> TableSnapshot:
        """Everything ``viewer`` (a match seat, or None for a spectator) may see, made here and
        nowhere else: the public table, its own hand and drawn card, its legal moves and undo
        when it is the person on turn, the log as it may read it, the match's results and end;
        every hand when ``open_hands`` (the demo's privilege). :class:`LogNotShared` when the
        log names a person's draws and ``viewer`` is anyone else."""
        s = self.session
        r = s.match.round
        if not open_hands and s.log_owner is not None and viewer != s.log_owner:
            raise LogNotShared(f"the log names {s.names[s.log_owner]}'s draws: it is theirs alone")
        to_move = self.to_move
        on_turn = viewer is not None and viewer == to_move and s.human_to_move
        over = s.match.over
        chips = s.match.chips_scoring
        winners = set(s.match.winners) if s.match.over else set()
        totals = s.match.live_chips()
        playing = [s.match.round_seat(i) is not None for i in range(len(s.seats))]
        seats = tuple(
            SeatSnapshot(
                seat=i,
                name=seat.name,
                kind=seat.kind,
                cards=s.hand_size(i),
                total=totals[i],
                to_move=i == to_move,
                dealer=i == s.match.dealer,
                winner=i in winners,
                # A seat sitting the round out has no hand to show.
                hand=tuple(s.hand(i)) if playing[i] and (open_hands or i == viewer) else None,
                score=score_label(totals[i], chips=chips, target=s.match.rules.target),
                playing=playing[i],
            )
            for i, seat in enumerate(s.seats)
        )
        return TableSnapshot(
            viewer=viewer,
            piles=tuple(tuple(p) for p in r.piles),
            stock=len(r.stock),
            round_number=s.match.number,
            to_move=None if r.over else to_move,
            target=self.shown_target,
            seats=seats,
            drawn=None if viewer is None else s.last_drawn(viewer),
            log=tuple(s.log),
            pot=s.pot,
            legal=tuple(sorted(r.legal_moves(), key=move_str)) if on_turn else (),
            can_undo=on_turn and s.can_undo,
            undo_note="" if not on_turn or s.can_undo else s.why_no_undo,
            waiting_for=None if over or r.over else s.names[s.to_move],
            hands_open=open_hands,
            review=True,
            end_turn_costs=on_turn and chips and not r.played_card and totals[to_move or 0] > 0,
            turns_ended=sum(1 for _seat, m in r.history if m == END),
            results=tuple(round_row(res, chips=chips) for res in s.match.results),
            round_over=r.over,
            round_winner=s.match.match_seat(r.winner) if r.over and r.winner is not None else None,
            over=over,
            winners=tuple(s.names[w] for w in s.match.winners) if over else (),
            end_text=match_end_text(s) if over else "",
            save_problem=s.save_problem,
        )


def round_lines(s: MatchSession, ended: RoundEnded) -> list[str]:
    """A scored round in plain lines (see :meth:`TableDriver.round_lines`)."""
    r = ended.result
    winner = None if r.winner is None else s.names[r.winner]
    if winner is not None:
        head = _("Round {number}: {name} went out").format(number=r.number, name=winner)
    else:
        head = _("Round {number} was blocked").format(number=r.number)
    lines = [head]
    totals = s.match.live_chips()
    for i, name in enumerate(s.names):
        cards, kings = ended.hands[i]
        if cards == 0:
            left = _("no cards left")
        else:
            left = ngettext("{n} card left", "{n} cards left", cards).format(n=cards)
        if kings:
            # Translators: {left} is the cards left, "3 cards left"; {n} counts the kings among them.
            left = ngettext("{left} ({n} king)", "{left} ({n} kings)", kings).format(left=left, n=kings)
        # Translators: {left} is the cards left, "3 cards left (1 king)".
        if s.match.chips_scoring:
            line = _("{name}: {left}, total {total} chips").format(name=name, left=left, total=totals[i])
        else:
            line = _("{name}: {left}, total {total}/{target} pts").format(
                name=name, left=left, total=totals[i], target=s.match.rules.target
            )
        lines.append(line)
    return lines


__all__ = [
    "DEMO_THINK_MS",
    "ROUND_PAUSE",
    "AIFault",
    "AIJob",
    "Decision",
    "Event",
    "LogNotShared",
    "MatchEnded",
    "MoveMade",
    "RoundEnded",
    "TableDriver",
    "TableStamp",
    "TurnEnded",
]
