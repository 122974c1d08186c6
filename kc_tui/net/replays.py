"""A finished round's replay at a remote seat: the server's ``replay`` pages gathered
(:class:`ReplayPages`), then stepped like a round of the history (:class:`RemoteRoundReplay`,
the same positions, turns and snapshots as :class:`~kc_tui.match.replay.RoundReplay`).

The frames are what the server built from this seat's view of each position (its own hand and
draws, the others' counts: docs/PROTOCOL.md), so nothing here can show more: the other hands
open only at the round's last position, with the cards left that the round's summary showed
(the ``round`` message). Everything is checked as it arrives: a page that does not fit the
round is a :class:`~kc_tui.match.replay.ReplayError` (one plain line), never a traceback.
Plain Python.
"""

from __future__ import annotations

from collections.abc import Sequence

from kc_tui.engine import END, Card, Move, MoveError, Rules, parse_move, sort_for_hand
from kc_tui.engine.rules import Scoring
from kc_tui.i18n import _
from kc_tui.match.replay import ReplayError, RoundSteps
from kc_tui.match.view import ReplayPlace, RoundRow, SeatSnapshot, TableSnapshot, score_label
from kc_tui.net.schema import PILE_COUNT, REPLAY_MOST, ReplayFrame, ReplayMsg


class ReplayPages:
    """The pages of round ``number``'s replay for ``seat`` (None: a spectator), in order:
    :meth:`add` each answer; :attr:`next_start` is the position to ask for next (None once every
    position is here)."""

    def __init__(self, number: int, seat: int | None) -> None:
        self.number = number
        self.seat = seat
        self.frames: list[ReplayFrame] = []
        self.length: int | None = None
        self.dealer = 0
        self.winner: int | None = None

    @property
    def next_start(self) -> int | None:
        if self.length is not None and len(self.frames) > self.length:
            return None
        return len(self.frames)

    def add(self, page: ReplayMsg) -> int | None:
        """Take ``page`` (the answer to the request for :attr:`next_start`); the position to ask
        for next, or None when the round is complete. ReplayError when the page does not fit."""
        if page.round != self.number or page.seat != self.seat:
            raise ReplayError(_("the server sent the replay of another round or seat"))
        if not 0 <= page.length < REPLAY_MOST:
            raise ReplayError(_("the round has {n} moves: more than a replay here shows").format(n=page.length))
        agreed = (self.length, self.dealer, self.winner)
        if self.length is not None and (page.length, page.dealer, page.winner) != agreed:
            raise ReplayError(_("the server's pages of the replay do not agree"))
        if page.start != len(self.frames) or not page.frames:
            raise ReplayError(_("the server sent a page of the replay out of order"))
        if page.start + len(page.frames) > page.length + 1:
            raise ReplayError(_("the server sent more positions than the round has"))
        self.length, self.dealer, self.winner = page.length, page.dealer, page.winner
        self.frames.extend(page.frames)
        return self.next_start


class RemoteRoundReplay(RoundSteps):
    """A finished round stepped from the frames a server sent (see the module docs): it answers
    what the replay screen asks of :class:`~kc_tui.match.replay.RoundReplay` (but a review or a
    better plan, which need the hidden cards). ``results``: the scoreboard's rounds of the match
    up to this one (its own last), as rows or as the rounds scored; ``cards_left``: every seat's
    cards at the round's end, as its summary showed them (empty: the hands stay closed)."""

    def __init__(
        self,
        pages: ReplayPages,
        *,
        names: Sequence[str],
        kinds: Sequence[str],
        rules: Rules,
        results: Sequence[RoundRow] = (),
        cards_left: Sequence[Sequence[Card]] = (),
    ) -> None:
        if pages.next_start is not None or pages.length is None:
            raise ReplayError(_("the replay has not arrived whole"))
        frames = tuple(pages.frames)
        n = len(names)
        self.names: tuple[str, ...] = tuple(names)
        self.kinds: tuple[str, ...] = tuple(kinds)
        self.viewer = pages.seat
        self.rules = rules
        self.dealer = pages.dealer
        self.winner = pages.winner
        self._number = pages.number
        _check_frames(frames, n, self.viewer, (self.dealer, self.winner))
        super().__init__([END if f.move == "end" else _move(f.move) for f in frames[1:]])
        self.frames = frames
        number = pages.number
        rows = list(results)
        self.results_before: tuple[RoundRow, ...] = tuple(r for r in rows if r.number < number)
        self.results: tuple[RoundRow, ...] = tuple(r for r in rows if r.number <= number)
        last = frames[-1].cards
        left = [tuple(hand) for hand in cards_left]
        fits = len(left) == n and all(len(hand) == (count or 0) for hand, count in zip(left, last, strict=True))
        self.cards_left: tuple[tuple[Card, ...], ...] | None = tuple(left) if fits else None

    @property
    def round_number(self) -> int:
        return self._number

    @property
    def finished(self) -> bool:
        return True  # a server replays a round once it has ended

    @property
    def log_lines(self) -> list[str]:
        """The move log up to this position: the deal, then every move's lines."""
        return [line for frame in self.frames[: self._position + 1] for line in frame.log]

    @property
    def last_move(self) -> str | None:
        """The move that led to this position, in the log's words (None at the deal)."""
        log = self.frames[self._position].log
        return log[0] if self._position and log else None

    # ------------------------------------------------------------------ open hands
    @property
    def hands_open(self) -> bool:
        return self._hands_open and self.over

    @property
    def may_open_hands(self) -> bool:
        """At the round's last position, when the cards left are known."""
        return self.over and self.cards_left is not None

    # ------------------------------------------------------------------ the view
    def snapshot(self, at: object = None) -> TableSnapshot:
        """What the replay's view draws at this position (``at``: unused, there is no other
        round to draw here); the move log up to here is :attr:`log_lines`, as a round of the
        history's."""
        f = self.frames[self._position]
        over = self.over
        winner = self.winner if over else None
        opened = self.cards_left if self.hands_open else None
        chips = self.rules.scoring == Scoring.CHIPS
        seats = []
        for s, name in enumerate(self.names):
            count = f.cards[s]
            hand = f.hand if s == self.viewer else (opened[s] if opened is not None else None)
            seats.append(
                SeatSnapshot(
                    seat=s,
                    name=name,
                    kind=self.kinds[s],
                    cards=count or 0,
                    total=f.totals[s],
                    to_move=s == f.to_move,
                    dealer=s == self.dealer,
                    winner=s == winner,
                    hand=None if hand is None else tuple(sort_for_hand(list(hand))),
                    score=score_label(f.totals[s], chips=chips, target=self.rules.target),
                    playing=count is not None,
                )
            )
        return TableSnapshot(
            viewer=self.viewer,
            piles=f.piles,
            stock=f.stock,
            round_number=self._number,
            to_move=None if over else f.to_move,
            target=0 if chips else self.rules.target,
            seats=tuple(seats),
            drawn=f.drawn,
            pot=f.pot,
            results=self.results if over else self.results_before,
            round_over=over,
            round_winner=winner,
            hands_open=self.hands_open,
            replay=ReplayPlace(self._position, self.length, self.last_move, self.turn, self.turns),
        )

    def status_text(self) -> str:
        f = self.frames[self._position]
        winner = self.names[self.winner] if self.winner is not None else None
        return self.status_line(ended=self.over, winner=winner, to_move=None if self.over else f.to_move)


def _move(text: str | None) -> Move:
    try:
        return parse_move(text or "")
    except MoveError:
        raise ReplayError(_("the server sent a move that cannot be read")) from None


def _check_frames(frames: Sequence[ReplayFrame], n: int, viewer: int | None, seats: tuple[int, int | None]) -> None:
    """Every frame fits a table of ``n`` seats seen by ``viewer``; ReplayError else."""
    if viewer is not None and not 0 <= viewer < n:
        raise ReplayError(_("the server sent the replay of a seat this table does not have"))
    if any(s is not None and not 0 <= s < n for s in seats):
        raise ReplayError(_("the server's replay names a seat this table does not have"))
    for i, f in enumerate(frames):
        fits = (
            len(f.piles) == PILE_COUNT
            and len(f.cards) == n
            and len(f.totals) == n
            and (f.to_move is None or 0 <= f.to_move < n)
            and (f.move is None) == (i == 0)
            and (f.hand is None or viewer is not None)
            and (f.drawn is None or (f.hand is not None and f.drawn in f.hand))
        )
        if not fits:
            where = _("position {position} of the server's replay does not fit this table")
            raise ReplayError(where.format(position=i))


__all__ = ["RemoteRoundReplay", "ReplayPages"]
