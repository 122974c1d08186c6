"""Looking back at a recorded round: its positions one move at a time, the move log up to each,
and what the viewer may see (plain Python: no Textual).

A round of the game history (:class:`~kc_tui.records.rows.RoundRecord`) holds the engine's moves;
dealing the match's rounds again from its seed and making them rebuilds every position exactly
(:class:`~kc_tui.engine.Match`). :class:`RoundReplay` does that once, checks every move (a record
that does not replay is a :class:`ReplayError`, never a traceback), and then moves a *position*
(``0``: the deal, ``len(moves)``: the round's last position) back and forth.

Positions, moves and turns:

* position ``p`` is the round after its first ``p`` moves (``0 <= p <= length``);
* a turn ends with its ``END`` move; a round also ends with the move that takes the last card
  from a hand (going out) or with the ``END`` that completes a block (R13, R14);
* the *turn starts* are position 0 and every position right after an ``END``, except the
  round's last position; :meth:`RoundReplay.step_turn` stops at the turn starts and at the
  round's last position (the *stops*): forward to the first stop after the position, back to
  the last stop before it (from the middle of a turn, back is the start of that turn).

What the viewer sees (R4): the viewer is a match seat (a person's, say) or ``None`` for a
spectator. :meth:`RoundReplay.snapshot` (a :class:`~kc_tui.match.view.TableSnapshot`, the type
every table draws from) holds the viewer's own hand and every seat's count of cards; the other
hands only once they are opened, which :meth:`RoundReplay.open_hands` allows only at the last
position of a finished round. Once opened they stay open while stepping back
(the round has been seen to its end) until :meth:`RoundReplay.close_hands`. The move log names
the viewer's drawn cards only, as the game's log did; with the hands open it names every draw.

At a table of several people (a record of two or more human seats) the draws stay private
(:attr:`RoundReplay.draws_private`): whatever the viewer, the log names no draw but the viewer's,
and the opened hands show at the round's last position only (the cards left, as the round's
summary shows them), never while stepping back: which card came to a hand when, and so the
stock's order, is nobody's to see but that hand's owner.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kc_tui.engine import END, Card, Match, Move, Round, RoundResult, Rules, cards_of, move_str, sort_for_hand
from kc_tui.engine.rules import Scoring
from kc_tui.i18n import _
from kc_tui.match.card_format import card_formatter
from kc_tui.match.narration import Narrator
from kc_tui.match.view import ReplayPlace, RoundRow, SeatSnapshot, TableSnapshot, round_row, score_label
from kc_tui.records.rows import MatchRecord, RoundRecord
from kc_tui.util.printable import is_you

#: A clone of the round is kept every this many moves, so any position is at most this many
#: moves away from a kept one (stepping back is as quick as stepping forward).
CHECKPOINT_EVERY = 20


class ReplayError(ValueError):
    """A recorded round cannot be replayed; the message (one plain line) says why."""


@dataclass(frozen=True, slots=True)
class _Live:
    """Every seat's total and the pot as the table showed them at a position."""

    totals: tuple[int, ...]
    pot: int | None


class RoundSteps:
    """Positions over a round's moves (``0``: the deal, ``len(moves)``: the round's last
    position), stepped by move and by turn (see the module docs): what every replay shares,
    whatever holds its positions."""

    #: The match's seats by name, and the seat whose view this is (None: the table's).
    names: tuple[str, ...]
    viewer: int | None

    def __init__(self, moves: Sequence[Move]) -> None:
        self.moves: tuple[Move, ...] = tuple(moves)
        self._position = 0
        self._hands_open = False
        starts = [0] + [i + 1 for i, m in enumerate(self.moves) if m == END and i + 1 < len(self.moves)]
        #: Positions where a turn starts (see the module docs).
        self.turn_starts: tuple[int, ...] = tuple(starts)
        #: Where :meth:`step_turn` stops: the turn starts and the round's last position.
        self.stops: tuple[int, ...] = tuple(sorted({*starts, len(self.moves)}))

    # ------------------------------------------------------------------ where we are
    @property
    def round_number(self) -> int:
        raise NotImplementedError

    @property
    def length(self) -> int:
        """Moves in the round: the last position."""
        return len(self.moves)

    @property
    def position(self) -> int:
        """Moves made so far (0: the deal; :attr:`length`: the round's last position)."""
        return self._position

    @property
    def finished(self) -> bool:
        """The round ends with its last move (someone went out, or it was blocked)."""
        raise NotImplementedError

    @property
    def at_start(self) -> bool:
        return self._position == 0

    @property
    def at_end(self) -> bool:
        return self._position == len(self.moves)

    @property
    def over(self) -> bool:
        """The round is over at this position: the last position of a finished round."""
        return self.finished and self.at_end

    @property
    def turn_start(self) -> int:
        """The position where the turn being played (or that ended the round) started."""
        return max(s for s in self.turn_starts if s <= self._position)

    @property
    def turn(self) -> int:
        """The number (1, 2, ...) of the turn being played at this position."""
        return sum(1 for s in self.turn_starts if s <= self._position)

    @property
    def turns(self) -> int:
        return len(self.turn_starts)

    # ------------------------------------------------------------------ moving
    def _no_position(self, position: int) -> str:
        # Translators: a position in a round's replay: 0 is the deal, {last} its last move.
        return _("the round has positions 0 to {last}, not {position}").format(last=len(self.moves), position=position)

    def seek(self, position: int) -> None:
        """Go to ``position`` (0 .. :attr:`length`); ValueError outside it."""
        if not 0 <= position <= len(self.moves):
            raise ValueError(self._no_position(position))
        self._position = position

    def step(self, delta: int = 1) -> bool:
        """``delta`` moves forward (or back when negative), stopping at the ends; whether the
        position changed."""
        target = min(max(self._position + delta, 0), len(self.moves))
        moved = target != self._position
        self._position = target
        return moved

    def step_turn(self, direction: int = 1) -> bool:
        """To the next stop (``direction`` > 0) or the previous one (< 0): the start of the next
        turn, the start of this turn (or of the previous one when at a turn's start), the round's
        last position (see the module docs). Whether the position changed."""
        if direction > 0:
            later = [s for s in self.stops if s > self._position]
            target = later[0] if later else self._position
        elif direction < 0:
            earlier = [s for s in self.stops if s < self._position]
            target = earlier[-1] if earlier else self._position
        else:
            return False
        moved = target != self._position
        self._position = target
        return moved

    def to_start(self) -> bool:
        moved = self._position != 0
        self._position = 0
        return moved

    def to_end(self) -> bool:
        moved = self._position != len(self.moves)
        self._position = len(self.moves)
        return moved

    # ------------------------------------------------------------------ open hands
    @property
    def hands_open(self) -> bool:
        """Every hand shows now."""
        raise NotImplementedError

    @property
    def may_open_hands(self) -> bool:
        """The hands may be opened now."""
        raise NotImplementedError

    def open_hands(self) -> bool:
        """Show every hand; allowed only when :attr:`may_open_hands` (False, nothing changed,
        before). Open hands stay open while stepping until :meth:`close_hands` (where
        :attr:`hands_open` lets them show)."""
        if self.hands_open:
            return True
        if not self.may_open_hands:
            return False
        self._hands_open = True
        return True

    def close_hands(self) -> None:
        self._hands_open = False

    def status_line(self, *, ended: bool, winner: str | None, to_move: int | None) -> str:
        """The status line at this position: "Round 3 · move 17 of 54 · Bob's turn" ("your turn"
        for the viewer's), or how the round ended (``winner``: who went out, None: blocked)."""
        # The line's parts, each a msgid of its own, are joined by " · " as the status bar shows them.
        head = _("Round {number} · move {position} of {moves}").format(
            number=self.round_number, position=self._position, moves=len(self.moves)
        )
        parts = [head]
        if ended:
            if winner is None:
                parts.append(_("blocked: no one went out"))
            elif is_you(winner):
                # Translators: how a replayed round ended, for the player called You.
                parts.append(_("you went out"))
            else:
                # Translators: how a replayed round ended: {name} is the player who went out.
                parts.append(_("{name} went out").format(name=winner))
            return " · ".join(parts)
        if self._position == 0:
            # Translators: a replay's first position, before any move: the cards as dealt.
            parts.append(_("the deal"))
        if to_move is not None:
            name = self.names[to_move]
            parts.append(_("your turn") if to_move == self.viewer else _("{name}'s turn").format(name=name))
        return " · ".join(parts)


class RoundReplay(RoundSteps):
    """One recorded round, replayed: build it with :meth:`from_record` (see the module docs)."""

    def __init__(
        self,
        *,
        record: MatchRecord,
        round_record: RoundRecord,
        viewer: int | None,
        rules: Rules,
        seats: Sequence[int],
        dealer: int,
        base: Round,
        moves: Sequence[Move],
        checkpoints: Sequence[Round],
        lines: Sequence[str],
        offsets: Sequence[int],
        live: Sequence[_Live],
        results_before: Sequence[RoundResult],
        result: RoundResult | None,
        card_style: str,
    ) -> None:
        super().__init__(moves)
        self.record = record
        self.round_record = round_record
        self.viewer = viewer
        self.rules = rules
        #: The match seats playing the round, in round order.
        self.seats: tuple[int, ...] = tuple(seats)
        self.dealer = dealer
        self.names: tuple[str, ...] = tuple(s.name for s in record.seats)
        self.kinds: tuple[str, ...] = tuple(s.kind for s in record.seats)
        self.result = result
        self.results_before: tuple[RoundResult, ...] = tuple(results_before)
        chips = rules.scoring == Scoring.CHIPS
        done = (*results_before, result) if result is not None else tuple(results_before)
        #: The scoreboard's rows: before this round, and with it once it is over.
        self._rows: tuple[RoundRow, ...] = tuple(round_row(res, chips=chips) for res in done)
        self._base = base
        self._checkpoints = list(checkpoints)
        self._lines = list(lines)
        self._offsets = list(offsets)
        self._live = list(live)
        self._open_lines: list[str] | None = None
        self._card_style = card_style
        self._cache_pos = 0
        self._cache = base.clone()
        #: Several people shared the table: nobody but a hand's owner sees its draws (module docs).
        self.draws_private = len(record.human_seats) > 1

    # ------------------------------------------------------------------ building
    @classmethod
    def from_record(
        cls, match: MatchRecord, round_number: int, viewer: int | None, *, card_style: str = "symbols"
    ) -> RoundReplay:
        """Round ``round_number`` (1, 2, ...) of ``match`` (a record with its rounds), seen by
        match seat ``viewer`` (None: a spectator). Every round up to it is dealt again and its
        moves checked; :class:`ReplayError` when the record does not replay."""
        n = len(match.seats)
        if viewer is not None and not 0 <= viewer < n:
            raise ReplayError(
                _("there is no seat {seat} in a match of {players} players").format(seat=viewer, players=n)
            )
        by_number = {r.number: r for r in match.rounds}
        if round_number not in by_number:
            raise ReplayError(_("round {number} is not in the record of this match").format(number=round_number))
        try:
            rules = Rules.from_dict(match.rules)
        except (ValueError, TypeError) as exc:
            raise ReplayError(_("the recorded rules are not valid ({error})").format(error=exc)) from None
        m = _deal_up_to(match, by_number, round_number, rules)
        rec = by_number[round_number]
        _check_start(m, rec)
        base = m.round.clone()
        seats = tuple(m.seats)
        humans = [s == viewer for s in range(n)]
        narrator = Narrator(m, [s.name for s in match.seats], humans, card_formatter(card_style))
        lines = narrator.round_started()
        offsets = [len(lines)]
        live = [_live(m)]
        work = m.round
        checkpoints = [base.clone()]
        for i, mv in enumerate(rec.moves):
            _check_move(work, mv, round_number, i)
            lines += narrator.play(work, mv)
            offsets.append(len(lines))
            live.append(_live(m))
            if (i + 1) % CHECKPOINT_EVERY == 0:
                checkpoints.append(work.clone())
        results_before = tuple(m.results)
        result: RoundResult | None = None
        if work.over:
            result = m.finish_round()
            _check_result(result, rec)
        return cls(
            record=match,
            round_record=rec,
            viewer=viewer,
            rules=rules,
            seats=seats,
            dealer=rec.dealer,
            base=base,
            moves=rec.moves,
            checkpoints=checkpoints,
            lines=lines,
            offsets=offsets,
            live=live,
            results_before=results_before,
            result=result,
            card_style=card_style,
        )

    @property
    def round_number(self) -> int:
        return self.round_record.number

    @property
    def finished(self) -> bool:
        """The recorded round ends with its last move (someone went out, or it was blocked)."""
        return self.result is not None

    # ------------------------------------------------------------------ the position
    @property
    def round(self) -> Round:
        """The engine's round at this position (a copy: changing it changes nothing here)."""
        return self._round_at(self._position).clone()

    def plan_rounds(self, position: int, plan: Sequence[Move]) -> list[Round]:
        """The round at ``position`` and after each move of ``plan`` played from there (a plan
        that another player could have played: a review's better plan). ReplayError when a move
        is not legal there."""
        r = self.round_at(position)
        out = [r]
        for i, mv in enumerate(plan):
            r = r.clone()
            try:
                r.apply(mv)
            except ValueError as exc:
                raise ReplayError(
                    _("move {number} of the plan is not legal there ({error})").format(number=i + 1, error=exc)
                ) from None
            out.append(r)
        return out

    def round_at(self, position: int) -> Round:
        """The engine's round after the first ``position`` moves (a copy)."""
        if not 0 <= position <= len(self.moves):
            raise ValueError(self._no_position(position))
        return self._round_at(position).clone()

    def _round_at(self, position: int) -> Round:
        """The round at ``position``: from the kept one when it is just behind, else from the
        nearest checkpoint before it. The result is kept (never hand it out: clone it)."""
        if not self._cache_pos <= position < self._cache_pos + CHECKPOINT_EVERY:
            k = position // CHECKPOINT_EVERY
            self._cache = self._checkpoints[k].clone()
            self._cache_pos = k * CHECKPOINT_EVERY
        for mv in self.moves[self._cache_pos : position]:
            self._cache.apply(mv)
        self._cache_pos = position
        return self._cache

    @property
    def log_lines(self) -> list[str]:
        """The move log up to this position: the deal, then every move's lines."""
        return self._log()[: self._offsets[self._position]]

    @property
    def last_move(self) -> str | None:
        """The move that led to this position, in the log's words (None at the deal)."""
        if self._position == 0:
            return None
        return self._log()[self._offsets[self._position - 1]]

    def lines_of(self, position: int) -> list[str]:
        """The lines of the viewer's log that the move to ``position`` wrote (at 0: the deal's),
        whatever the position shown and whether the hands are open."""
        if not 0 <= position <= len(self.moves):
            raise ValueError(f"the round has positions 0 to {len(self.moves)}, not {position}")
        start = 0 if position == 0 else self._offsets[position - 1]
        return self._lines[start : self._offsets[position]]

    def _log(self) -> list[str]:
        """The whole round's log as shown now: every draw named once the hands are open (unless
        the draws are private), else the viewer's only."""
        return self._all_open_lines() if self.hands_open and not self.draws_private else self._lines

    def _all_open_lines(self) -> list[str]:
        """The log with every seat's draws named (shown once the hands are open)."""
        if self._open_lines is None:
            by_number = {r.number: r for r in self.record.rounds}
            m = _deal_up_to(self.record, by_number, self.round_number, self.rules)
            narrator = Narrator(m, list(self.names), [True] * len(self.names), card_formatter(self._card_style))
            lines = narrator.round_started()
            work = m.round.clone()
            for mv in self.moves:
                lines += narrator.play(work, mv)
            self._open_lines = lines
        return self._open_lines

    # ------------------------------------------------------------------ open hands
    @property
    def hands_open(self) -> bool:
        """Every hand shows now: opened, and (with the draws private) at the round's last position."""
        return self._hands_open and (self.over or not self.draws_private)

    @property
    def may_open_hands(self) -> bool:
        """The hands may be opened now: at the last position of a finished round."""
        return self.over

    # ------------------------------------------------------------------ the view
    def match_seat(self, round_seat: int) -> int:
        return self.seats[round_seat]

    def snapshot(self, at: Round | None = None) -> TableSnapshot:
        """What the view draws at this position: the piles, the stock's size, every seat's count
        of cards, the viewer's hand, and the other hands only when open. ``at``: another round
        to draw in its place (a better plan played from this turn's start, say): its piles and
        hands, with this position's scores (with the draws private: the viewer's hand only). The
        move log up to here is :attr:`log_lines`, apart: a server makes a snapshot of every
        position of a round, and each would copy the log."""
        r = self._round_at(self._position) if at is None else at
        over = r.over
        to_move = None if over else self.seats[r.to_move]
        winner = None if not over or r.winner is None else self.seats[r.winner]
        chips = self._chips
        at_result = self.result is not None and self.at_end
        if at_result and self.result is not None:
            results = self._rows
            totals = self.result.totals
            pot: int | None = (0 if self.result.winner is not None else self.result.pot) if chips else None
        else:
            results = self._rows[: len(self.results_before)]
            live = self._live[self._position]
            totals, pot = live.totals, live.pot
        others_open = self.hands_open and not (at is not None and self.draws_private)
        seats: list[SeatSnapshot] = []
        for s in range(len(self.names)):
            rs = self.seats.index(s) if s in self.seats else None
            cards = r.hands[rs].bit_count() if rs is not None else 0
            shown = rs is not None and (s == self.viewer or others_open)
            hand = tuple(sort_for_hand(cards_of(r.hands[rs]))) if shown and rs is not None else None
            seats.append(
                SeatSnapshot(
                    seat=s,
                    name=self.names[s],
                    kind=self.kinds[s],
                    cards=cards,
                    total=totals[s],
                    to_move=s == to_move,
                    dealer=s == self.dealer,
                    winner=s == winner,
                    hand=hand,
                    score=score_label(totals[s], chips=chips, target=self.rules.target),
                    playing=rs is not None,
                )
            )
        viewer_hand = seats[self.viewer].hand if self.viewer is not None else None
        drawn: Card | None = None
        if viewer_hand is not None and self.viewer in self.seats:
            card = r.last_drawn[self.seats.index(self.viewer)]
            drawn = card if card >= 0 and card in viewer_hand else None
        return TableSnapshot(
            viewer=self.viewer,
            piles=tuple(tuple(p) for p in r.piles),
            stock=len(r.stock),
            round_number=self.round_number,
            to_move=to_move,
            target=0 if chips else self.rules.target,
            seats=tuple(seats),
            drawn=drawn,
            pot=pot,
            results=results,
            round_over=over,
            round_winner=winner,
            hands_open=self.hands_open,
            replay=ReplayPlace(self._position, len(self.moves), self.last_move, self.turn, self.turns),
            review=True,
        )

    @property
    def _chips(self) -> bool:
        return self.rules.scoring == Scoring.CHIPS

    def status_text(self) -> str:
        """One line: "Round 3 · move 17 of 54 · Bob's turn" ("your turn" for the viewer's), or
        how the round ended (:func:`status_line`)."""
        r = self._round_at(self._position)
        winner = None if not r.over or r.winner is None else self.names[self.seats[r.winner]]
        to_move = None if r.over else self.seats[r.to_move]
        return self.status_line(ended=r.over, winner=winner, to_move=to_move)


def _deal_up_to(match: MatchRecord, by_number: dict[int, RoundRecord], round_number: int, rules: Rules) -> Match:
    """The match dealt again with every round before ``round_number`` replayed and scored,
    each checked against its record: ``m.round`` is round ``round_number`` at its deal."""
    try:
        m = Match(len(match.seats), rules, match.seed, first_dealer=match.first_dealer)
    except ValueError as exc:
        raise ReplayError(_("the recorded match cannot be dealt again ({error})").format(error=exc)) from None
    for number in range(1, round_number):
        if number not in by_number:
            raise ReplayError(
                _("round {missing} is missing from the record, so round {number} cannot be dealt").format(
                    missing=number, number=round_number
                )
            )
        earlier = by_number[number]
        _check_start(m, earlier)
        work = m.round
        for i, mv in enumerate(earlier.moves):
            _check_move(work, mv, number, i)
            work.apply(mv)
        if not work.over:
            raise ReplayError(_("round {number} does not end with its recorded moves").format(number=number))
        _check_result(m.finish_round(), earlier)
        if m.over:
            raise ReplayError(
                _("the match ended after round {last}: round {number} was never played").format(
                    last=number, number=round_number
                )
            )
    return m


def _live(m: Match) -> _Live:
    """The totals and pot as the table shows them while ``m.round`` is played (R16: the ante
    and the fines paid so far have left the stacks)."""
    pot = m.live_pot() if m.chips_scoring else None
    return _Live(tuple(m.live_chips()), pot)


def _check_start(m: Match, rec: RoundRecord) -> None:
    """The round about to be played is the one recorded (its dealer and seats)."""
    if rec.dealer != m.dealer or tuple(rec.seats) != tuple(m.seats):
        raise ReplayError(
            _("round {number} was not dealt as recorded (its dealer or players differ)").format(number=rec.number)
        )


def _check_move(r: Round, mv: Move, number: int, i: int) -> None:
    """Move ``i`` (0-based) of round ``number`` may be made in ``r``; ReplayError otherwise."""
    if r.over:
        raise ReplayError(_("round {number} goes on after it ended (move {move})").format(number=number, move=i + 1))
    try:
        reason = r.why_illegal(mv)
    except (ValueError, IndexError, TypeError):  # a number that is no move at all
        # Translators: why a recorded move does not replay: it is not a move at all.
        reason = _("not a move")
    if reason is not None:
        try:
            what = f" ({move_str(mv)})"
        except ValueError:
            what = ""
        # Translators: {what} is empty or the move in parentheses after a space, " (play 7H N)".
        raise ReplayError(
            _("round {number}, move {move}{what} does not replay: {reason}").format(
                number=number, move=i + 1, what=what, reason=reason
            )
        )


def _check_result(res: RoundResult, rec: RoundRecord) -> None:
    if (res.winner, res.penalties, res.totals) != (rec.winner, tuple(rec.penalties), tuple(rec.totals)):
        raise ReplayError(_("round {number} replays to another result than the one recorded").format(number=rec.number))


__all__ = [
    "CHECKPOINT_EVERY",
    "ReplayError",
    "RoundReplay",
    "RoundSteps",
]
