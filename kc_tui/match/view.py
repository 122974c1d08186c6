"""What a viewer may see of a table: one type for every table (the game, hot-seat, the demo, the
tutorial, a replay, a remote seat) and every viewer (a seat, a spectator, the demo's open hands).

A :class:`TableSnapshot` is made by one function of each source: the table driver
(:meth:`kc_tui.match.table.TableDriver.snapshot`), a recorded round's replay
(:meth:`kc_tui.match.replay.RoundReplay.snapshot`), and a remote seat's ``state`` decoded back
(:mod:`kc_tui.net.views`). Every screen draws from it and nothing else; the network's ``state``
is its encoding. It holds plain values only: nothing reachable from it leads to a hidden card.
The AIs read :class:`kc_tui.engine.PlayerView`, the engine's strict subset of it (one seat's
hand, the piles, the counts, the public history). A seat's total is worded by :func:`score_label`
and a scored round made a scoreboard's row by :func:`round_row`, here and nowhere else. Plain
Python.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kc_tui.engine import Card, Move, RoundResult
from kc_tui.i18n import _, ngettext


@dataclass(frozen=True, slots=True)
class SeatSnapshot:
    """One match seat as a viewer sees it: ``hand`` only when the viewer may see it (else None)."""

    seat: int
    name: str
    kind: str
    cards: int
    #: The seat's total: penalty points (R15), or its stack of chips as it is now (R16).
    total: int
    to_move: bool
    dealer: bool
    #: The seat won: the match once it is over; in a replay, the round at its last position.
    winner: bool
    hand: tuple[Card, ...] | None
    #: The total as a label words it: "12/50 pts", "47 chips".
    score: str = ""
    #: False for a seat that sits this round out (out of a chips match, R16).
    playing: bool = True
    #: A remote table's: whether the seat's person is connected (always True at a local table).
    connected: bool = True
    #: A remote table's: an AI plays for the absent person.
    stand_in: bool = False


@dataclass(frozen=True, slots=True)
class RoundRow:
    """A finished round as the scoreboard shows it."""

    number: int
    #: The match seat that went out (None: the round was blocked).
    winner: int | None
    #: Every match seat's penalty points (R15), or chips won (+) and paid (-) (R16).
    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ReplayPlace:
    """Where a replay stands in its round."""

    #: Moves made so far (0: the deal) and in the whole round.
    position: int
    length: int
    #: The move that led here in the log's words (None at the deal).
    last_move: str | None
    #: The turn being played here (1, 2, ...) and how many turns the round has.
    turn: int
    turns: int


@dataclass(frozen=True, slots=True)
class TableSnapshot:
    """What a viewer may see of the table (R4): the piles, the stock's size, every seat's count
    of cards and score, and the hands it may see. ``target``: the points target to show beside
    the totals (0 under chips scoring, where totals are chips)."""

    #: The match seat whose view this is (None: a spectator's, or the table's in a demo).
    viewer: int | None
    piles: tuple[tuple[Card, ...], ...]
    stock: int
    round_number: int
    #: The match seat on turn (None once the round is over).
    to_move: int | None
    target: int
    seats: tuple[SeatSnapshot, ...]
    #: The card the viewer drew last, while it is in its hand (shown marked).
    drawn: Card | None = None
    #: The chips in the pot now under chips scoring (R16: the antes, a blocked round's pot and
    #: the fines paid so far this round); None when scoring points.
    pot: int | None = None
    #: The move log as the viewer may read it (a live table's; a replay's is its ``log_lines``).
    log: tuple[str, ...] = field(default=())
    #: The viewer's legal moves, when it is a person on turn (empty otherwise), in notation order.
    legal: tuple[Move, ...] = ()
    #: Whether the viewer (a person on turn) may take a move back, and why not when it may not.
    can_undo: bool = False
    undo_note: str = ""
    #: R16: ending the turn now would cost the viewer (a person on turn) a chip.
    end_turn_costs: bool = False
    #: Turns ended so far this round: with the round and the seat on turn, which turn this is.
    turns_ended: int = 0
    #: The name of the seat the table waits for (None between rounds and once the match is over).
    waiting_for: str | None = None
    #: Every finished round the scoreboard shows.
    results: tuple[RoundRow, ...] = ()
    #: The round is over (its last move made, the scores not yet moved on).
    round_over: bool = False
    #: The match seat that went out of this round (None while it runs, or when it was blocked).
    round_winner: int | None = None
    #: Whether the match is over, its winners' names and its end in words.
    over: bool = False
    winners: tuple[str, ...] = ()
    end_text: str = ""
    #: Why the table's save could not be written (one plain line), while it cannot; None when
    #: every move shown is kept (or the table is not saved at all).
    save_problem: str | None = None
    #: Every seat's hand is shown (the demo, a replay opened after the round).
    hands_open: bool = False
    #: A replay's place in its round (None at a live table).
    replay: ReplayPlace | None = None
    #: A finished round may be reviewed here (what the lookahead makes of each turn): a table
    #: played on this machine, which holds every card of the round. A remote seat's view never
    #: may (its replay holds its own cards only).
    review: bool = False

    @property
    def chips(self) -> bool:
        """The match is scored in chips (R16): the totals are stacks, the pot is shown."""
        return self.pot is not None

    @property
    def totals(self) -> tuple[int, ...]:
        """Every match seat's total, in seat order (as the scoreboard shows them)."""
        return tuple(seat.total for seat in self.seats)

    @property
    def hand(self) -> tuple[Card, ...] | None:
        """The viewer's own hand (None for a spectator, or a viewer sitting the round out)."""
        if self.viewer is None or not 0 <= self.viewer < len(self.seats):
            return None
        return self.seats[self.viewer].hand

    @property
    def my_turn(self) -> bool:
        """The viewer is on turn at a live table."""
        return self.viewer is not None and self.viewer == self.to_move and not self.round_over


def score_label(total: int, *, chips: bool, target: int) -> str:
    """A seat's total as a label words it: "12/50 pts" against the points ``target`` (R15), or
    "47 chips" ("1 chip") under chips scoring (R16)."""
    if chips:
        return ngettext("{n} chip", "{n} chips", total).format(n=total)
    # Translators: a seat's total of penalty points out of the target, "12/100 pts".
    return _("{total}/{target} pts").format(total=total, target=target)


def not_your_turn(snap: TableSnapshot | None) -> str:
    """Why the viewer may not act now: the match's or the round's end, or who is playing."""
    if snap is None:
        return _("Wait for your turn.")
    if snap.over:
        return snap.end_text or _("The match is over.")
    if snap.round_over or snap.waiting_for is None:
        return _("The round is over.")
    return _("Wait for your turn: {name} is playing.").format(name=snap.waiting_for)


def who_plays(snap: TableSnapshot) -> str:
    """Who the table waits for: "Ben is playing…", or that Ben is away (and the table waits, or
    an AI plays for Ben)."""
    who = snap.waiting_for
    seat = next((s for s in snap.seats if s.name == who), None)
    if seat is not None and seat.kind == "human" and not seat.connected:
        if seat.stand_in:
            return _("{name} is away: an AI plays for them…").format(name=who)
        return _("{name} is away: the table waits.").format(name=who)
    return _("{name} is playing…").format(name=who)


def round_row(result: RoundResult, *, chips: bool) -> RoundRow:
    """A scored round as the scoreboard shows it: every match seat's penalty points (R15), or
    its chips won and paid (R16)."""
    return RoundRow(result.number, result.winner, tuple(result.chips_delta if chips else result.penalties))


__all__ = [
    "ReplayPlace",
    "RoundRow",
    "SeatSnapshot",
    "TableSnapshot",
    "not_your_turn",
    "round_row",
    "score_label",
    "who_plays",
]
