"""A match being played: the engine's :class:`Match`, who sits where, the turn protocol (the
moves of the person on turn with undo in the current turn, the AIs' decisions with the stamp that
drops stale ones) and the answers the UI asks for (legal targets, refusal reasons, the hands to
score). Any number of seats are people (``human_seats``); play, hints and undo act for the seat on
turn.
Plain Python: no Textual. The jobs around it live in their own modules:
:mod:`kc_tui.match.roster` (seats and AI players), :mod:`kc_tui.match.narration` (the move log's words),
:mod:`kc_tui.match.saves` (the save file), :mod:`kc_tui.match.card_format` (cards as text),
:mod:`kc_tui.match.undo` (the moves to take back). The table driver
(:mod:`kc_tui.match.table`) runs a session's turns for a screen.

Seats are *match seats* (0 .. n-1, fixed for the whole match); the engine's round seats are
converted with ``Match.seats`` (they differ only when chips scoring knocks a player out).

Typical use::

    session = MatchSession.from_config(config, seed=3)        # the people and AIs of the settings, saved
    demo = MatchSession.all_ai(["greedy", "expert"], rules)   # every seat an AI, never saved

    if session.ai_to_move:
        turn = session.prepare_ai_turn()      # main thread: a snapshot for the AI
        m = turn.think()                      # any thread: only computes
        session.apply_ai_turn(turn, m)        # main thread: False when stale (discarded)
    else:
        reason = session.play_human(m)        # the person on turn: None when played, else a reason
    if session.match.round.over:
        result = session.finish_round()       # then session.match.over, session.match.winners ...
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ai import AIPlayer
from kc_tui.config import HUMAN, Config
from kc_tui.engine import (
    END,
    PLACES,
    Card,
    Match,
    Move,
    PlayerView,
    Round,
    RoundResult,
    Rules,
    is_king,
    is_pile_move,
    is_play,
    play_card,
    source,
    target,
)
from kc_tui.i18n import _, ngettext
from kc_tui.match.card_format import card_formatter
from kc_tui.match.narration import Narrator, suggest_move
from kc_tui.match.roster import Seat, build_hinter, build_players, default_names
from kc_tui.match.saves import (
    LOG_KEEP,
    RecordInfo,
    RoundNote,
    SaveError,
    SaveUnreadable,
    SaveWriter,
    check_position,
    default_save_path,
    delete_save,
    new_seed,
    quarantine,
    read_document,
    read_hint,
    read_record,
    read_save_file,
    save_bytes,
    save_document,
    write_save,
)
from kc_tui.match.undo import TurnUndo, drew_from_stock
from kc_tui.util.files import HandleReserve
from kc_tui.util.printable import name_shown

log = logging.getLogger(__name__)

Stamp = tuple[int, int, int]

#: How long a save-first match waits for the save writer's earlier writes before it writes its
#: own (an older save must never land after a newer one).
SAVE_FIRST_WAIT = 5.0


@dataclass(frozen=True, slots=True)
class _Mark:
    """A match as it was before a change: what is put back when its save fails (save first)."""

    round: Round
    log: tuple[str, ...]
    written: int
    undo: TurnUndo
    generation: int


@dataclass(frozen=True, slots=True)
class Change:
    """What a save changed from the save before it, when that is one step of a turn
    (:attr:`MatchSession.last_change`): the move of the person on turn (``play``: a person's, or
    an AI's standing in for them), an AI's move (``ai``; ``fault``: the reason its fault line
    gives, when it failed), or the last move of the person on turn taken back (``undo``)."""

    kind: Literal["play", "ai", "undo"]
    move: Move = END
    fault: str | None = None


@dataclass(frozen=True, slots=True)
class AITurn:
    """A snapshot for one AI decision. ``think()`` may run in a worker thread: it touches
    only the AI object and a frozen view (never the round or any widget)."""

    seat: int
    player: AIPlayer
    view: PlayerView
    #: Identifies the state the decision was made for (see ``MatchSession.apply_ai_turn``).
    stamp: Stamp

    def think(self) -> Move:
        return self.player.choose(self.view)


class MatchSession:
    """One match: seats, the engine's Match, the log, undo and saving. See the module docs."""

    def __init__(
        self,
        match: Match,
        seats: Sequence[Seat],
        *,
        save_path: Path | None = None,
        card_style: str = "symbols",
        log_lines: Sequence[str] = (),
        record: RecordInfo | None = None,
        shared_log: bool = False,
    ) -> None:
        if len(seats) != match.n:
            raise ValueError(f"{len(seats)} seats for a match of {match.n} players")
        self.match = match
        self.seats: tuple[Seat, ...] = tuple(seats)
        self.save_path = save_path
        #: How the game history knows this match: its uid and a note of every finished round.
        self.record = record or RecordInfo(rounds=[RoundNote() for _result in match.results])
        #: Writes the save in a thread of its own (None: written at once, on the caller's thread).
        self.writer: SaveWriter | None = None
        self._save_problem: str | None = None
        #: File handles kept for a save-first match's saves (a server under a flood of
        #: connections sets it: :class:`~kc_tui.util.files.HandleReserve`).
        self.handle_reserve: HandleReserve | None = None
        #: Where the saves go instead of ``save_path`` (None: to the file): given the save's
        #: bytes, it answers None once it keeps them, else why not in one plain line (a server's
        #: store of many tables sets it).
        self.save_sink: Callable[[bytes], str | None] | None = None
        #: What the save being written changed from the save before it (read by a
        #: :attr:`save_sink` as it is given the save): one step of a turn, or None for anything
        #: else (a round's first position, the match's last, a seat's new name, a save written
        #: again).
        self.last_change: Change | None = None
        #: Keep the save once the match is over (the table removes it when the history has the
        #: match); by default a finished match's save is removed at once.
        self.keep_save_at_end = False
        self.fmt = card_formatter(card_style)
        #: The match seats of the people, in seat order (empty: every seat is an AI).
        self.human_seats: tuple[int, ...] = tuple(i for i, s in enumerate(self.seats) if s.is_human)
        #: Whether many people read the log (a hosted table): it names every seat, never a drawn
        #: card, and the match's end names everyone, even with one person seated.
        self.shared_log = shared_log
        # One person at the keyboard: the log is theirs and names their draws. Several, or a
        # shared log: it names no one's drawn card.
        mine = len(self.human_seats) == 1 and not shared_log
        #: The one seat whose drawn cards the log names (None: it names no one's), the only
        #: viewer the table's view gives this log to.
        self.log_owner: int | None = self.human_seats[0] if mine else None
        shown = [s.is_human and mine for s in self.seats]
        self.narrator = Narrator(match, self.names, shown, self.fmt)
        self.log: list[str] = list(log_lines)
        #: Bumped on every change of the round object (new round, undo, load): stale AI
        #: decisions are detected with it.
        self.generation = 0
        #: The AI player of every AI seat (each behind ai.safe.SafePlayer).
        self.players: dict[int, AIPlayer] = build_players(self.seats, match.seed)
        self._hinter: AIPlayer | None = None
        #: The moves of the seat on turn this turn, to take back.
        self._undo = TurnUndo()
        #: Log lines written so far (the log itself is trimmed now and then).
        self._written = 0

    # ------------------------------------------------------------------ creation
    @classmethod
    def from_config(
        cls,
        config: Config,
        seed: int | None = None,
        *,
        save_path: Path | bool | None = True,
        writer: SaveWriter | None = None,
    ) -> MatchSession:
        """A new match: ``config.player_name`` at seat 0, then ``config.opponents`` (AIs, or other
        people: kind ``human``).
        ``save_path=True`` saves to :func:`default_save_path`; ``None``/``False`` never saves;
        ``writer`` writes the saves in its thread."""
        seats = [Seat(config.player_name, HUMAN)] + [Seat(o.name, o.kind, o.think_ms) for o in config.opponents]
        if seed is None:
            seed = new_seed()
        match = Match(len(seats), config.rules, seed)
        path = default_save_path() if save_path is True else (save_path or None)
        s = cls(match, seats, save_path=path, card_style=config.card_style)
        s.writer = writer
        s._round_started()
        s.save()
        return s

    @classmethod
    def hosted(
        cls,
        seats: Sequence[Seat],
        rules: Rules,
        seed: int | None = None,
        *,
        save_path: Path | None = None,
        card_style: str = "symbols",
    ) -> MatchSession:
        """A new match whose log many people read (a hosted table: ``shared_log``), seated as
        ``seats`` in order; saved to ``save_path`` after every move (None: never saved)."""
        match = Match(len(seats), rules, new_seed() if seed is None else seed)
        s = cls(match, seats, save_path=save_path, card_style=card_style, shared_log=True)
        s._round_started()
        s.save()
        return s

    @classmethod
    def all_ai(
        cls,
        kinds: Sequence[str],
        rules: Rules | None = None,
        seed: int | None = None,
        *,
        names: Sequence[str] | None = None,
        think_ms: int = 1000,
        card_style: str = "symbols",
    ) -> MatchSession:
        """A match where every seat is an AI (the demo). Never saved."""
        if names is None:
            names = default_names(kinds)
        seats = [Seat(n, k, think_ms) for n, k in zip(names, kinds, strict=True)]
        if seed is None:
            seed = new_seed()
        s = cls(Match(len(seats), rules or Rules(), seed), seats, card_style=card_style)
        s._round_started()
        return s

    def rename_seat(self, seat: int, name: str) -> None:
        """A person's ``seat`` taken by another person: it is ``name``'s from now on (every view,
        the save, the log's lines to come)."""
        old = self.seats[seat]
        if not old.is_human:
            raise ValueError(f"seat {seat} is not a person's seat")
        self.seats = (*self.seats[:seat], Seat(name, old.kind, old.think_ms), *self.seats[seat + 1 :])
        self.narrator.names[seat] = name

    # ------------------------------------------------------------------ queries
    @property
    def names(self) -> list[str]:
        return [s.name for s in self.seats]

    @property
    def human_seat(self) -> int | None:
        """The first person's match seat, or None when every seat is an AI: for a caller that
        means the one person at the table (with several, see ``human_seats`` and ``to_move``)."""
        return self.human_seats[0] if self.human_seats else None

    @property
    def all_ai_seats(self) -> bool:
        return not self.human_seats

    @property
    def hot_seat(self) -> bool:
        """Whether two or more people share the keyboard (the log names everyone, "you" no one)."""
        return len(self.human_seats) > 1

    @property
    def to_move(self) -> int:
        """The match seat whose turn it is."""
        return self.match.match_seat(self.match.round.to_move)

    @property
    def rules(self) -> Rules:
        """The match's rules."""
        return self.match.rules

    @property
    def match_over(self) -> bool:
        """Whether the match is over."""
        return self.match.over

    @property
    def chips_scoring(self) -> bool:
        """Whether the match is scored in chips (R16) rather than points (R15)."""
        return self.match.chips_scoring

    @property
    def dealer(self) -> int:
        """The match seat that deals this round (after a round is scored: the next round)."""
        return self.match.dealer

    def ante_after(self, number: int) -> tuple[int, ...]:
        """R16: the chips each match seat puts in the pot for the round after round ``number``."""
        return self.match.ante_after(number)

    @property
    def moves_made(self) -> int:
        """The moves made so far this round (0: just dealt)."""
        return _hist_len(self.match.round)

    @property
    def human_to_move(self) -> bool:
        """Whether the seat on turn is a person's (False between rounds)."""
        return not self.match.round.over and self.seats[self.to_move].is_human

    @property
    def ai_to_move(self) -> bool:
        return not self.match.round.over and not self.seats[self.to_move].is_human

    @property
    def rounds_played(self) -> int:
        """The rounds of the match scored so far."""
        return len(self.match.results)

    @property
    def pot(self) -> int | None:
        """R16: the chips in the pot now (the antes, a blocked round's pot, the fines paid so
        far: :meth:`Match.live_pot`); None when scoring points."""
        return self.match.live_pot() if self.match.chips_scoring else None

    def view(self, seat: int) -> PlayerView:
        """What match seat ``seat`` may see (R4). The UI draws the view of the person on turn only."""
        rs = self.match.round_seat(seat)
        if rs is None:
            raise ValueError(f"seat {seat} sits this round out")
        return self.match.round.view(rs)

    def hand(self, seat: int) -> list[Card]:
        """A seat's hand in display order (for the person it belongs to, or open hands in the demo)."""
        rs = self.match.round_seat(seat)
        return [] if rs is None else self.match.round.hand(rs)

    def turn_hand(self, seat: int) -> list[Card]:
        """``seat``'s hand as its turn began, in display order (the hand now when it has made no
        move this turn): the hand its cards' number keys are given from."""
        rs = self.match.round_seat(seat)
        if rs is None:
            return []
        start = self._undo.turn_start(seat)
        return (start or self.match.round).hand(rs)

    def hand_size(self, seat: int) -> int:
        rs = self.match.round_seat(seat)
        return 0 if rs is None else self.match.round.hands[rs].bit_count()

    def last_drawn(self, seat: int) -> Card | None:
        """The card ``seat`` drew last, while it is still in its hand (shown marked), else None."""
        rs = self.match.round_seat(seat)
        if rs is None or self.match.round.last_drawn[rs] < 0:
            return None
        card = self.match.round.last_drawn[rs]
        return card if card in self.hand(seat) else None

    def hands_to_score(self) -> list[tuple[int, int]]:
        """(cards, kings) left in every match seat's hand: what the round summary scores (R15)."""
        return [(self.hand_size(seat), sum(1 for c in self.hand(seat) if is_king(c))) for seat in range(self.match.n)]

    def why_illegal(self, m: Move) -> str | None:
        """A one-line reason naming the rule, or None when ``m`` is legal now."""
        return self.match.round.why_illegal(m, self.fmt)

    def targets_for_card(self, card: Card) -> set[int]:
        """The places the person on turn may play ``card`` on now (empty on an AI's turn)."""
        if not self.human_to_move:
            return set()
        return {target(m) for m in self.match.round.legal_moves() if is_play(m) and play_card(m) == card}

    def targets_for_pile(self, place: int) -> set[int]:
        """The places the person on turn may move the pile at ``place`` onto now."""
        if not self.human_to_move:
            return set()
        return {target(m) for m in self.match.round.legal_moves() if is_pile_move(m) and source(m) == place}

    def why_not_pick_up(self, place: int) -> str | None:
        """Why the pile at ``place`` cannot be picked up to move (an empty place), or None."""
        if self.match.round.piles[place]:
            return None
        # Translators: {place} is a place on the table such as NE; ←→ and 1-9 are keys.
        if place >= 4:
            return _("{place} is empty: pick a king from your hand first (←→ or 1-9).").format(place=PLACES[place])
        return _("{place} is empty: pick a card from your hand first (←→ or 1-9).").format(place=PLACES[place])

    # ------------------------------------------------------------------ moves
    def play_human(self, m: Move) -> str | None:
        """Make the move ``m`` of the person on turn. Returns None when it was played, else a
        one-line reason (the state is unchanged): a save-first match whose save fails makes no
        move (:attr:`hold_text`)."""
        if not self.human_to_move:
            return _("the round is over") if self.match.round.over else _("it is not your turn")
        reason = self.why_illegal(m)
        if reason is not None:
            return reason
        mark = self._mark()
        seat, before, written = self.to_move, self.match.round.clone(), self._written
        self._apply(m, save=False)
        if m != END and not self.match.round.over:
            if drew_from_stock(before, self.match.round):
                self._undo.close(seat, before)
            else:
                self._undo.push(seat, before, self._written - written)
        self.save(Change("play", m))  # with the move to take back: the hint's plan made before it is kept too
        if not self._kept(mark):
            return self.hold_text
        return None

    @property
    def can_undo(self) -> bool:
        """Whether the person on turn has a move of this turn to take back (never another's)."""
        return self.human_to_move and self._undo.can_undo(self.to_move)

    @property
    def why_no_undo(self) -> str:
        """Why the person on turn has nothing to take back (when :attr:`can_undo` is False), or
        why the move was not taken back (the table holds: :attr:`hold_text`)."""
        if self.holding:
            return self.hold_text
        if self.human_to_move and self._undo.drew == self.to_move:
            return _(
                "You drew from the stock this turn (R13): a move that draws, and every move before it, stays made."
            )
        return _("Nothing to undo this turn.")

    def undo(self) -> bool:
        """Take back the last move the person on turn made this turn; False when there is none."""
        if not self.can_undo:
            return False
        mark = self._mark()
        entry = self._undo.pop(self.to_move)
        if entry is None:
            return False
        self.match.round = entry.before
        if entry.lines > 0:
            del self.log[-entry.lines :]
        self.generation += 1
        self.save(Change("undo"))
        return self._kept(mark)

    def prepare_ai_turn(self) -> AITurn:
        """The snapshot for the AI to move (call on the main thread)."""
        if not self.ai_to_move:
            raise ValueError("it is not an AI's turn")
        seat = self.to_move
        return AITurn(seat, self.players[seat], self.view(seat), self.stamp)

    def apply_ai_turn(self, turn: AITurn, m: Move, *, fault: str | None = None) -> bool:
        """Apply an AI's decision; False (nothing changes) when the state moved on since the
        turn was prepared: a stale decision is discarded. ``fault``: why the AI failed (the
        fallback chose ``m``), written to the log first. An illegal move ends the AI's turn.
        False too when a save-first match's save fails (nothing changes: :attr:`holding`)."""
        if turn.stamp != self.stamp or not self.ai_to_move:
            return False
        mark = self._mark()
        if fault is not None:
            self._write(self.narrator.ai_fault(turn.seat, fault))
        if self.match.round.why_illegal(m) is not None:
            log.error("AI %s chose an illegal move; ending its turn", self.seats[turn.seat].kind)  # not which card
            m = END
        self._apply(m, change=Change("ai", m, fault))
        return self._kept(mark)

    def step_ai(self) -> Move:
        """Let the AI to move choose and play one move, synchronously (tests, benchmarks)."""
        turn = self.prepare_ai_turn()
        m = turn.think()
        self.apply_ai_turn(turn, m)
        return m

    @property
    def stamp(self) -> Stamp:
        """(generation, round number, moves so far): changes whenever the position does."""
        return (self.generation, self.match.number, _hist_len(self.match.round))

    def hint(self) -> Move:
        """The lookahead AI's suggestion for the person on turn (synchronous)."""
        return self.hint_turn().think()

    def hint_turn(self) -> AITurn:
        """A snapshot for computing a hint for the person on turn in a worker thread (its stamp
        goes stale once anything moves, the turn passing included)."""
        if not self.human_to_move:
            raise ValueError("a hint is for a person's turn")
        seat = self.to_move
        return AITurn(seat, self._hint_player(), self.view(seat), self.stamp)

    def _hint_player(self) -> AIPlayer:
        if self._hinter is None:
            self._hinter = build_hinter(self.match.seed)
        return self._hinter

    def _turn_position(self, moves: int) -> Round | None:
        """The round after its first ``moves`` moves when that is a position of the turn being
        played that undo reaches (or the position now), else None."""
        for r in [*self._undo.befores(self.to_move), self.match.round]:
            if len(r.history) == moves:
                return r
        return None

    def hint_kept(self) -> tuple[int, tuple[Move, ...]] | None:
        """The plan the hint holds for the turn being played (planned at a position of this turn
        that undo reaches): the number of moves the round had then and the plan; else None."""
        hinter = self._hinter
        if hinter is None or not self.human_to_move:
            return None
        from ai.advice.hint import HintAI  # loaded with the hint asked for (not at start)

        if not isinstance(hinter, HintAI) or (kept := hinter.kept_plan) is None:
            return None
        (moves, hand, piles), plan = kept
        r = self._turn_position(moves)
        rs = self.match.round_seat(self.to_move)
        if r is None or rs is None:
            return None
        view = r.view(rs)
        return (moves, plan) if (view.hand_mask, view.piles) == (hand, piles) else None

    def keep_hint(self, hint: tuple[int, Sequence[Move]] | None) -> None:
        """Give the hint the plan a save holds for the turn being played, ``(moves, plan)``: the
        plan made at the round's ``moves``-th move; a plan that is not of this turn or does not
        play is left out. None: the hint holds no plan (it plans afresh when asked)."""
        if hint is None:
            if self._hinter is not None:
                self._hinter.new_round()
            return
        moves, plan = hint
        r = self._turn_position(moves) if self.human_to_move else None
        rs = self.match.round_seat(self.to_move)
        if r is None or rs is None:
            return
        trial = r.clone()
        for m in plan:
            if m == END or trial.over or trial.why_illegal(m) is not None:
                log.info("the saved hint does not play from its position: the hint plans afresh")
                return
            trial.apply(m)
        from ai.advice.hint import HintAI  # a save with a hint's plan: the hint is wanted

        hinter = self._hint_player()
        if isinstance(hinter, HintAI):
            hinter.keep_plan(r.view(rs), plan)

    def suggest(self, m: Move) -> str:
        """A hint ``m`` in words: "play 7♥ on 8♣ at N"."""
        return suggest_move(self.match.round, m, self.fmt)

    def hint_words(self, m: Move, note: str | None) -> str:
        """A hint ``m`` for the seat on turn in words, the same at every table (here, and sent to
        a remote seat): the planner's ``note`` (its plan and why) when it gave one, else what the
        move does."""
        if note is not None:
            # The planner's note starts "Hint: ", in English or in the player's language.
            return note.removeprefix("Hint: ").removeprefix(_("Hint: "))
        if m == END:
            if len(self.view(self.to_move).legal_moves()) > 1:
                return _("keep your cards: every play you have would open a place for the others; end your turn (t).")
            return _("nothing you hold can be played; end your turn (t).")
        return self.suggest(m)

    def _apply(self, m: Move, *, save: bool = True, change: Change | None = None) -> None:
        for line in self.narrator.play(self.match.round, m):
            self._write(line)
        if m == END and not self.match.round.over:
            self._undo.clear()
        if save:
            self.save(change)

    def _mark(self) -> _Mark | None:
        """The match as it is, to put back should the change to come not be saved (None: a
        match that does not save first keeps every change)."""
        if not self.save_first:
            return None
        return _Mark(self.match.round.clone(), tuple(self.log), self._written, self._undo.copy(), self.generation)

    def _kept(self, mark: _Mark | None) -> bool:
        """After a change and its save: whether it stands. A save-first match whose save failed
        is put back as it was at ``mark`` (nothing of the change was shown to anyone)."""
        if mark is None or self.save_problem is None:
            return True
        self.match.round = mark.round
        self.log = list(mark.log)
        self._written = mark.written
        self._undo = mark.undo
        self.generation = mark.generation
        return False

    def _restore_undo(self) -> None:
        """Rebuild the undo of the moves the person on turn made so far this turn (after a resume)."""
        self._undo.clear()
        if self.human_to_move:
            self._undo.rebuild(self.match, self.narrator, self.to_move)

    @property
    def lines_written(self) -> int:
        """How many log lines were written so far (the log itself keeps the last ones)."""
        return self._written

    def lines_since(self, written: int) -> list[str]:
        """The log lines written after the first ``written`` (those still kept)."""
        count = self._written - written
        return self.log[-count:] if count > 0 else []

    def _write(self, line: str) -> None:
        self._written += 1
        self.log.append(line)
        if len(self.log) > LOG_KEEP * 2:
            del self.log[:LOG_KEEP]

    def _round_started(self) -> None:
        self._undo.clear()
        if self._hinter is not None:
            self._hinter.new_round()
        self.generation += 1
        for ai in self.players.values():
            ai.new_round()
        for line in self.narrator.round_started():
            self._write(line)

    # ------------------------------------------------------------------ rounds
    def finish_round(self, *, hints: Sequence[int] = (), undos: Sequence[int] = ()) -> RoundResult:
        """Score the finished round (noting the hints and undos of every match seat in it for the
        history: ``hints[seat]``, none when empty) and start the next (unless the match is over).
        The save is updated; a finished match's save is removed (there is nothing left to
        resume) unless ``keep_save_at_end`` (then a :attr:`save_sink` is given its last position)."""
        none = (0,) * self.match.n
        result = self.match.finish_round()
        self.record.rounds.append(RoundNote.by_seat(tuple(hints) or none, tuple(undos) or none))
        if self.match.over:
            self._write(self.narrator.match_over(self.match.winners))
            self.generation += 1
            if self.save_sink is not None and self.keep_save_at_end:
                # A served table's last position is kept like every other, before anyone is
                # shown it (a file's save is not: there is nothing left to resume).
                self.last_change = None
                data = save_bytes(self.to_dict(), compact=True)
                self._save_problem = self._to_sink(self.save_sink, data)
            if not self.keep_save_at_end:
                self.delete_save()
        else:
            self._round_started()
            self.save()
        return result

    def count_penalties(self) -> None:
        """R15: the penalties of the round that is over counted in the totals, the round kept on
        the table (no result, no next deal: a lesson ends so); nothing under chips scoring."""
        m = self.match
        if m.chips_scoring:
            return
        for index, penalty in enumerate(m.round.penalties()):
            m.points[m.match_seat(index)] += penalty

    # ------------------------------------------------------------------ saving
    def to_dict(self) -> dict[str, Any]:
        """The save: the position of the current round (POSITION_FORMAT.md) plus the match
        history under ``match`` and the seats (names and kinds) under ``seats``."""
        return save_document(self.match, self.seats, self.log, self.record, self.hint_kept())

    @property
    def save_first(self) -> bool:
        """Whether a move is made only once the save holds it: the match is saved and another
        person's cards are at stake (a hosted table, or several people at one keyboard). A move
        whose save fails is then not made, so no one is shown a card that a resume from the last
        save would deal again. With one person against AIs, a move whose save fails is made all
        the same (and said: :attr:`save_problem`)."""
        return self.saves and (self.shared_log or self.hot_seat)

    @property
    def saves(self) -> bool:
        """Whether the match is saved: to its file (``save_path``) or its :attr:`save_sink`."""
        return self.save_path is not None or self.save_sink is not None

    @property
    def holding(self) -> bool:
        """Whether the table holds: a save-first match whose last save failed (no move is made
        until one works: :meth:`retry_save`)."""
        return self.save_first and self.save_problem is not None and not self.match.over

    @property
    def hold_text(self) -> str:
        """Why a move is not made while the table holds, in one plain line."""
        # Translators: {problem} is why the save failed ("the disk is full").
        return _(
            "The match cannot be saved ({problem}): no move is made until it can be. It is tried again by itself."
        ).format(problem=self.save_problem)

    def retry_save(self) -> bool:
        """Write the save of the position shown again; whether the file holds it now."""
        self.save()
        return self.save_problem is None

    @property
    def _threaded(self) -> bool:
        """Whether saves go through the writer's thread (a save-first match writes its own, at once)."""
        return self.writer is not None and not self.save_first

    @property
    def save_problem(self) -> str | None:
        """Why the last save failed (one plain line); None once the file holds a save of now."""
        return self.writer.problem if self.writer is not None and self._threaded else self._save_problem

    @property
    def saved(self) -> bool:
        """Whether the save on disk holds the position shown (False for a session never saved,
        or while the last save is still being written)."""
        if not self.saves or self.save_problem is not None:
            return False
        return self.writer is None or not self._threaded or not self.writer.pending

    def save(self, change: Change | None = None) -> None:
        """Write the save atomically (a no-op for sessions without a save path): through the
        writer's thread when there is one, unless the match saves first (:attr:`save_first`: it
        is written at once, after the writer's earlier writes). A failure is kept in
        ``save_problem`` (cleared by the next save that works). With a :attr:`save_sink`, the
        save's bytes go to it, at once, instead of the file. ``change``: what changed since the
        save before, when it is one step of a turn (:attr:`last_change` while it is written)."""
        if not self.saves or self.match.over:
            return
        self.last_change = change
        data = save_bytes(self.to_dict(), compact=self.save_sink is not None)
        if self.save_sink is not None:
            self._save_problem = self._to_sink(self.save_sink, data)
            return
        assert self.save_path is not None
        if self.writer is not None and self._threaded:
            self.writer.write(self.save_path, data)
            return
        if self.writer is not None:
            self.writer.flush(SAVE_FIRST_WAIT)
        with self.handle_reserve.released() if self.handle_reserve is not None else contextlib.nullcontext():
            self._save_problem = write_save(self.save_path, data)

    @staticmethod
    def _to_sink(sink: Callable[[bytes], str | None], data: bytes) -> str | None:
        """Give ``data`` to ``sink``: None when it keeps it, else why not (one plain line; a
        sink that raises is logged and its save counted as failed)."""
        try:
            return sink(data)
        except Exception as exc:
            log.exception("the save could not be kept")
            return str(exc).splitlines()[0] if str(exc).strip() else type(exc).__name__

    def delete_save(self) -> None:
        """Remove this match's save (a newer match's save there is left alone)."""
        if self.save_path is None:
            return
        if self.writer is not None:
            self.writer.delete(self.save_path, self.record.uid)
        else:
            delete_save(self.save_path, self.record.uid)

    @classmethod
    def from_dict(
        cls, doc: Any, *, save_path: Path | None = None, card_style: str = "symbols", shared_log: bool = False
    ) -> MatchSession:
        """Rebuild a saved match exactly; :class:`SaveError` when the save is not usable. Every
        field is checked for its exact JSON type; the match is replayed from its seed and the
        replayed position must be exactly the saved one. ``shared_log``: as in the constructor
        (a hosted table's match)."""
        match, seats, log_lines = read_document(doc)
        record = read_record(doc, len(match.results), match.n)
        s = cls(
            match,
            seats,
            save_path=save_path,
            card_style=card_style,
            log_lines=log_lines,
            record=record,
            shared_log=shared_log,
        )
        for ai in s.players.values():
            ai.new_round()
        check_position(doc, s.match.round, [s.names[x] for x in match.seats])
        s._restore_undo()
        s.keep_hint(read_hint(doc, len(s.match.round.history)))
        return s

    @classmethod
    def load(
        cls, path: Path | None = None, *, card_style: str = "symbols", shared_log: bool = False
    ) -> MatchSession | None:
        """The saved match at ``path`` (default: the save in the data dir), or None when there
        is none. :class:`SaveError` when it exists but is unusable (other exceptions are
        possible for failures nobody foresaw: :func:`load_or_quarantine` catches them all)."""
        path = path or default_save_path()
        doc = read_save_file(path)
        if doc is None:
            return None
        return cls.from_dict(doc, save_path=path, card_style=card_style, shared_log=shared_log)

    def summary(self) -> str:
        """One line about the match, e.g. for the resume dialog."""
        scores = ", ".join(f"{name_shown(n)} {t}" for n, t in zip(self.names, self.match.live_chips(), strict=True))
        if self.match.chips_scoring:  # R16: stacks and the pot, no target
            # Translators: {scores} is each name with its chips, "Ana 50, Bob 48".
            return _("Round {number} · chips: {scores} · pot {pot}").format(
                number=self.match.number, scores=scores, pot=self.pot
            )
        # Translators: {scores} is each name with its total, "Ana 12, Bob 30".
        return _("Round {number} · {scores} · target {target}").format(
            number=self.match.number, scores=scores, target=self.match.rules.target
        )


def names_joined(names: Sequence[str]) -> str:
    """Names in a sentence: "Alice", "Alice and Bob", "Alice, Bob and Carol"."""
    names = list(names)
    if len(names) <= 1:
        return "".join(names)
    # Translators: the last of several names; {names} are the others, joined by commas.
    return _("{names} and {last}").format(names=", ".join(names[:-1]), last=names[-1])


def match_end_text(s: MatchSession) -> str:
    """Why the match ended and who won, naming them (plain text; names are data: show it with
    the UI's text helpers). Points (R15): "Alice reached 52: the match is over. Bob wins with
    31." Chips (R16): "The others are out of chips: Bob wins with 88 chips." or "The match is
    over after 10 rounds: Bob wins with 88 chips." A shared win names every winner. With one
    person at the table they are "you" ("You win with 52."); with several, or when the log is
    shared (a hosted table), everyone is named. "" while the match goes on."""
    if not s.match.over:
        return ""
    # One person at the table is "you" (whatever their name); with several, everyone is named.
    totals = s.match.live_chips()
    human = s.human_seats[0] if len(s.human_seats) == 1 and not s.shared_log else None

    def who(seats: Sequence[int], with_totals: bool = False) -> str:
        # "Bob and you share the win"; with several people "Ana and Bob share the win".
        ordered = sorted(seats, key=lambda x: x == human)
        # Translators: the person at the screen among the names of several winners, "Bob and you".
        parts = [_("you") if x == human else s.names[x] for x in ordered]
        if with_totals:
            parts = [f"{p} ({totals[x]})" for p, x in zip(parts, ordered, strict=True)]
        return names_joined(parts)

    winners = s.match.winners
    best = totals[winners[0]] if winners else 0
    if s.match.chips_scoring:
        if len(winners) > 1:
            win = _("{names} share the win with {n} chips each.").format(names=who(winners), n=best)
        elif winners == [human]:
            win = ngettext("You win with {n} chip.", "You win with {n} chips.", best).format(n=best)
        else:
            win = ngettext("{name} wins with {n} chip.", "{name} wins with {n} chips.", best).format(
                name=who(winners), n=best
            )
        holding = sum(1 for out in s.match.out if not out)
        # Translators: {win} is who won, a whole sentence such as "Bob wins with 88 chips."
        if holding == 0:
            return _("Everyone is out of chips: {win}").format(win=win)
        if holding == 1:
            return _("The others are out of chips: {win}").format(win=win)
        played = len(s.match.results)
        return ngettext(
            "The match is over after {n} round: {win}", "The match is over after {n} rounds: {win}", played
        ).format(n=played, win=win)
    # Translators: {n} is the winner's total of penalty points.
    if len(winners) > 1:
        win = _("{names} share the win with {n}.").format(names=who(winners), n=best)
    elif winners == [human]:
        win = _("You win with {n}.").format(n=best)
    else:
        win = _("{name} wins with {n}.").format(name=who(winners), n=best)
    reached = [seat for seat, t in enumerate(totals) if t >= s.match.rules.target]
    # Translators: {win} is who won, a whole sentence such as "Bob wins with 31."
    if reached == [human]:
        return _("You reached {total}: the match is over. {win}").format(total=totals[reached[0]], win=win)
    if len(reached) == 1:
        return _("{name} reached {total}: the match is over. {win}").format(
            name=who(reached), total=totals[reached[0]], win=win
        )
    return _("{names} reached {target}: the match is over. {win}").format(
        names=who(reached, with_totals=True), target=s.match.rules.target, win=win
    )


def _hist_len(r: Round) -> int:
    n, node = 0, r.hist
    while node is not None:
        n, node = n + 1, node[2]
    return n


def load_or_quarantine(
    path: Path | None = None, *, card_style: str = "symbols"
) -> tuple[MatchSession | None, str | None]:
    """The saved match (or None when there is none) and a message (one plain line) when the
    save cannot be used. Never raises for a bad file: whatever goes wrong while reading,
    validating or replaying it (a :class:`SaveError`, or any other exception nobody foresaw),
    the file is moved aside to ``<name>.corrupt-<time>`` (never over an earlier one) and the
    message says why and where it went, or that it was left in place and is ignored."""
    path = path or default_save_path()
    try:
        return MatchSession.load(path, card_style=card_style), None
    except SaveUnreadable as exc:
        log.warning("The saved match could not be resumed: %s. It was left in place, as it is.", exc)
        # Translators: {reason} says why the save file could not be read.
        return None, _("The saved match could not be resumed: {reason}. It was left in place, as it is.").format(
            reason=exc
        )
    except SaveError as exc:
        problem = str(exc)
    except Exception as exc:  # a bug we did not foresee: a bad file still must not stop the app
        log.debug("the save %s could not be read", path, exc_info=True)
        # Translators: {error} is the name of a Python exception (KeyError), for a bug report.
        problem = _("it could not be read ({error})").format(error=type(exc).__name__)
    return None, quarantine(path, problem)


__all__ = ["AITurn", "Change", "MatchSession", "load_or_quarantine"]
