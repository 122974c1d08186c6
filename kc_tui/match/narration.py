"""The move log in plain words: what each move, draw, round start and end, and AI fault says.

Plain Python. :class:`Narrator` knows the seats' names, whose drawn cards its lines may name (the
one person a log is meant for; every other draw is only counted: "Ana drew a card"), and the
card style. Every line names its seat.
"""

from __future__ import annotations

from collections.abc import Sequence

from kc_tui.engine import (
    END,
    PLACES,
    Card,
    Match,
    Move,
    Round,
    card_symbol,
    is_pile_move,
    is_play,
    play_card,
    source,
    target,
)
from kc_tui.i18n import _
from kc_tui.match import log_lines as words
from kc_tui.match.card_format import CardFormat, cards_text


class Narrator:
    """Log lines for one match: ``names`` by match seat, ``shown_draws``: whether a seat's drawn
    card is named (by match seat); ``fmt`` formats a card."""

    def __init__(self, match: Match, names: Sequence[str], shown_draws: Sequence[bool], fmt: CardFormat) -> None:
        self.match = match
        self.names = list(names)
        self.shown_draws = list(shown_draws)
        self.fmt = fmt

    def play(self, r: Round, m: Move) -> list[str]:
        """Make move ``m`` in ``r`` (a round of this match) and return the lines it calls for:
        the move, a completed pile shuffled away (R12), the draws, and the round's end."""
        seat = self.match.match_seat(r.to_move)
        expected = [h.bit_count() for h in r.hands]
        if is_play(m):
            expected[r.to_move] -= 1
        lines = [describe_move(r, m, self.names[seat], self.fmt)]
        r.apply(m)
        if is_play(m) or is_pile_move(m):
            dst = target(m)
            if not r.piles[dst] and not r.rules.completed_piles_stay:
                lines.append(words.TO_STOCK.format(place=PLACES[dst]))
        lines += self._draws(r, expected)
        if r.over:
            if r.winner is None:
                lines.append(words.BLOCKED)
            else:
                lines.append(words.WENT_OUT.format(who=self.names[self.match.match_seat(r.winner)]))
        return lines

    def _drew(self, seat: int, card: Card | None, count: int) -> str:
        who = self.names[seat]
        if self.shown_draws[seat] and count == 1 and card is not None:
            return words.DREW_CARD.format(who=who, card=self.fmt(card))
        return words.DREW_ONE.format(who=who) if count == 1 else words.DREW_MANY.format(who=who, count=count)

    def _draws(self, r: Round, expected: list[int]) -> list[str]:
        lines: list[str] = []
        for rs in range(r.n):
            gained = r.hands[rs].bit_count() - expected[rs]
            if gained > 0:
                drawn = r.last_drawn[rs] if r.last_drawn[rs] >= 0 else None
                lines.append(self._drew(self.match.match_seat(rs), drawn, gained))
        return lines

    def round_started(self) -> list[str]:
        """The deal of the match's current round, and the first player's draw (if any)."""
        lines = [words.DEALT.format(number=self.match.number, who=self.names[self.match.dealer])]
        r = self.match.round
        if r.last_drawn[r.to_move] >= 0:
            lines.append(self._drew(self.match.match_seat(r.to_move), r.last_drawn[r.to_move], 1))
        return lines

    def match_over(self, winners: Sequence[int]) -> str:
        return words.MATCH_OVER.format(who=" and ".join(self.names[s] for s in winners))

    def ai_fault(self, seat: int, reason: str) -> str:
        """An AI failed and the fallback played for it: "Kingsley's AI failed (it raised an
        error); a simple fallback played instead"."""
        return words.AI_FAULT.format(who=self.names[seat], reason=reason)


def fault_reason(detail: str) -> str:
    """A fault as :class:`ai.safe.SafePlayer` logs it, in a player's words."""
    if "raised" in detail:
        return words.RAISED
    if "illegal move" in detail:
        return words.ILLEGAL
    if "still busy" in detail:
        return words.BUSY
    if "within" in detail or "took" in detail:
        return words.TIMED_OUT
    return words.NO_MOVE


def describe_move(r: Round, m: Move, who: str, fmt: CardFormat = card_symbol) -> str:
    """The move ``m`` about to be made in ``r``, in plain words (call it *before* applying):
    "Greedy moved 6♥ 5♠ 4♦ from N onto 7♣ at E"."""
    if m == END:
        return words.ENDED.format(who=who)
    dst = target(m)
    onto = r.piles[dst]
    place = PLACES[dst]
    if is_play(m):
        c = fmt(play_card(m))
        if not onto:
            return (words.PUT_CORNER if dst >= 4 else words.PUT_SIDE).format(who=who, card=c, place=place)
        return words.PLAYED.format(who=who, card=c, top=fmt(onto[-1]), place=place)
    src = source(m)
    cards = cards_text(r.piles[src], fmt)
    if not onto:
        empty = words.MOVED_CORNER if dst >= 4 else words.MOVED_SIDE
        return empty.format(who=who, cards=cards, source=PLACES[src], place=place)
    return words.MOVED.format(who=who, cards=cards, source=PLACES[src], top=fmt(onto[-1]), place=place)


def suggest_move(r: Round, m: Move, fmt: CardFormat = card_symbol) -> str:
    """The move ``m`` as advice: "play 7♥ on 8♣ at N", "end your turn". Shown, never stored:
    in the language in use (the log's lines, which saves keep and the table sends, are English)."""
    if m == END:
        return _("end your turn")
    dst = target(m)
    onto = r.piles[dst]
    place = PLACES[dst]
    if is_play(m):
        card = fmt(play_card(m))
        if not onto:
            # Translators: advice; {card} is a card such as 7♥, {place} a place such as NE.
            empty = (
                _("put {card} on the empty corner {place}") if dst >= 4 else _("put {card} on the empty side {place}")
            )
            return empty.format(card=card, place=place)
        # Translators: advice; {card} goes on {top} (cards such as 7♥) at {place} (such as N).
        return _("play {card} on {top} at {place}").format(card=card, top=fmt(onto[-1]), place=place)
    src = source(m)
    # Translators: {cards} is a pile's cards such as "6♥ 5♠ 4♦", {source} and {place} places such as N.
    args = {"cards": cards_text(r.piles[src], fmt), "source": PLACES[src], "place": place}
    if not onto:
        if dst >= 4:
            return _("move {cards} from {source} to the empty corner {place}").format(**args)
        return _("move {cards} from {source} to the empty side {place}").format(**args)
    return _("move {cards} from {source} onto {top} at {place}").format(top=fmt(onto[-1]), **args)


__all__ = ["Narrator", "describe_move", "fault_reason", "suggest_move"]
