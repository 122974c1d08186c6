"""A view of the table told in sentences: :class:`Teller`.

Everything told is made from :class:`kc_tui.match.view.TableSnapshot` alone, so a table of this
machine, a replay and a remote seat are told alike, and nothing is told that the viewer may not
see. A teller remembers the last view it told, so :meth:`Teller.news` says only what changed
(the log's new lines, with the seat's cards left; a round's end and its scores; the match's end).
"""

from __future__ import annotations

from kc_tui.i18n import _
from kc_tui.match.card_format import CardFormat, cards_text
from kc_tui.match.log_lines import shown
from kc_tui.match.view import TableSnapshot


class Teller:
    """Tells one viewer's table: ``fmt`` writes a card (the player's card style)."""

    def __init__(self, fmt: CardFormat) -> None:
        self.fmt = fmt
        self._log: tuple[str, ...] = ()

    def news(self, snap: TableSnapshot) -> list[str]:
        """What happened since the last view told (nothing the first time but the round's start)."""
        old, self._log = self._log, snap.log
        start = len(old) if snap.log[: len(old)] == old else 0
        return [shown(line) for line in snap.log[start:]]

    def hand(self, snap: TableSnapshot) -> list[str]:
        """The viewer's hand, or that it has none to show."""
        hand = snap.hand
        if hand is None:
            return [_("You hold no cards in this round.")]
        return [_("Your hand: {cards}").format(cards=cards_text(hand, self.fmt))]

    def table(self, snap: TableSnapshot) -> list[str]:
        """The piles, the stock and every seat's cards, a line each."""
        raise NotImplementedError

    def moves(self, snap: TableSnapshot) -> list[str]:
        """The viewer's legal moves, numbered from 1 in the order of ``snap.legal``."""
        raise NotImplementedError

    def turn(self, snap: TableSnapshot) -> list[str]:
        """At the viewer's turn: the hand, the table and the numbered moves."""
        return [*self.hand(snap), *self.table(snap), *self.moves(snap)]

    def scores(self, snap: TableSnapshot) -> list[str]:
        """Every seat's total and the round's number."""
        raise NotImplementedError


__all__ = ["Teller"]
