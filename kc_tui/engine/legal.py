"""What may be played where: the legal moves of a hand on the table (R8-R12) and, for a move
that is not legal, the rule it breaks, in one line.

Plain functions of a hand (a card mask) and the piles: no round, no view. :mod:`.state` (the
round) and :mod:`.player_view` (what one seat sees) both build on them.
"""

from __future__ import annotations

from collections.abc import Callable

from kc_tui.i18n import _

from .cards import ACE, ALL_CARDS, KINGS_MASK, NEED, Card, card_str, is_king, is_red, rank_of
from .moves import END, MOVE_BASE, PLACES, Move
from .rules import Rules

#: A K..A pile has 13 cards: it is complete (R12).
PILE_FULL = 13

#: A pile on the table, bottom card first.
Pile = tuple[Card, ...]


def empty_place_takes(place: int, rules: Rules) -> str:
    """What an empty place takes, in a few words: a corner only a king (R10); a side any card,
    or any card but a king when ``kings_on_sides`` is ``forbid`` (R11)."""
    if not 0 <= place < len(PLACES):
        raise ValueError(f"place {place} is not one of the {len(PLACES)} places")
    if place >= 4:
        # Translators: what an empty corner takes; K is a king.
        return _("K only")
    if not rules.kings_on_sides_allowed:
        # Translators: what an empty side takes; K is a king.
        return _("any card but K")
    return _("any card")


#: Ranks as players write them, 1 (ace) .. 13 (king).
RANK_WORDS: dict[int, str] = {1: "A", 11: "J", 12: "Q", 13: "K"} | {r: str(r) for r in range(2, 11)}


def pile_takes(place: int, pile: Pile | list[Card], rules: Rules) -> str:
    """What a place takes next, in a few words: for an empty place :func:`empty_place_takes`;
    on a top card of rank r, a card of rank r - 1 in the other colour (R8), e.g. "red 7"; on
    an ace, nothing (R12)."""
    if not pile:
        return empty_place_takes(place, rules)
    top = pile[-1]
    rank = rank_of(top)
    if rank == ACE:
        # Translators: what a pile ending in an ace takes; A is an ace.
        return _("nothing (ends in A)")
    # Translators: what a pile takes next; {rank} is a rank such as 7, J or A.
    needs = _("black {rank}") if is_red(top) else _("red {rank}")
    return needs.format(rank=RANK_WORDS[rank - 1])


def generate_moves(hand: int, piles: list[Pile] | tuple[Pile, ...], kings_on_sides: bool, closed: bool) -> list[Move]:
    """Every legal move for a player holding ``hand`` (a mask), ``END`` last.

    ``kings_on_sides``: a king may fill an empty side (R11).  ``closed``: completed piles
    stay on the table and may not move (R12 ``stay``).
    """
    out: list[Move] = []
    append = out.append
    empty_sides: list[int] = []
    empty_corners: list[int] = []
    bottoms = 0  # mask of the bottom cards of movable non-king piles
    need_any = 0
    for p in range(8):
        pile = piles[p]
        if not pile:
            if p < 4:
                empty_sides.append(p)
            else:
                empty_corners.append(p)
            continue
        need = NEED[pile[-1]]
        need_any |= need
        m = hand & need
        while m:
            low = m & -m
            append(((low.bit_length() - 1) << 3) | p)
            m ^= low
        bottoms |= 1 << pile[0]
    # R9: pile onto pile (the bottom card fits the other pile's top).
    if bottoms & need_any:
        for s in range(8):
            pile = piles[s]
            if pile and (need_any >> pile[0]) & 1:
                b = pile[0]
                for d in range(8):
                    other = piles[d]
                    if other and (NEED[other[-1]] >> b) & 1:
                        append(MOVE_BASE + (s << 3) + d)
    if empty_corners:
        # R9: a king-based side pile to an empty corner; R10: a king from hand.
        for s in range(4):
            pile = piles[s]
            if pile and pile[0] >= 48 and not (closed and len(pile) == PILE_FULL):
                for d in empty_corners:
                    append(MOVE_BASE + (s << 3) + d)
        kings = hand & KINGS_MASK
        while kings:
            low = kings & -kings
            c = low.bit_length() - 1
            for d in empty_corners:
                append((c << 3) | d)
            kings ^= low
    if empty_sides and hand:
        # R11: any card (kings only when allowed) on an empty side.
        m = hand if kings_on_sides else hand & ~KINGS_MASK
        while m:
            low = m & -m
            c = (low.bit_length() - 1) << 3
            for d in empty_sides:
                append(c | d)
            m ^= low
    append(END)
    return out


def _not_a_move(m: object) -> str:
    # Translators: why a move is refused: {move} is the number it was given as, not a move at all.
    return _("not a move: {move}").format(move=repr(m))


def explain_illegal(
    hand: int,
    piles: list[Pile] | tuple[Pile, ...],
    rules: Rules,
    m: Move,
    fmt: Callable[[Card], str] = card_str,
) -> str | None:
    """Why move ``m`` is illegal (one line naming the rule), or None when it is legal."""
    if m == END:
        return None
    if not isinstance(m, int) or m < 0 or m > END:
        return _not_a_move(m)
    if m < MOVE_BASE:
        card, dst = m >> 3, m & 7
        if card >= len(ALL_CARDS):
            return _not_a_move(m)
        if not (hand >> card) & 1:
            return _("{card} is not in your hand").format(card=fmt(card))
        pile = piles[dst]
        place = PLACES[dst]
        if not pile:
            if dst >= 4:
                if not is_king(card):
                    # Translators: {place} is a place on the table such as NE.
                    return _("only a king can start the empty corner {place} (R10)").format(place=place)
                return None
            if is_king(card) and not rules.kings_on_sides_allowed:
                return _("kings may not fill an empty side here; put {card} in an empty corner (R11)").format(
                    card=fmt(card)
                )
            return None
        return _fit_reason(card, pile[-1], place, fmt, "R8")
    src, dst = (m - MOVE_BASE) >> 3, m & 7
    if src >= len(PLACES):
        return _not_a_move(m)
    if src == dst:
        return _("a pile cannot move onto itself (R9)")
    moving = piles[src]
    if not moving:
        return _("there is no pile at {place} to move (R9)").format(place=PLACES[src])
    if rules.completed_piles_stay and len(moving) == PILE_FULL:
        return _("the completed pile at {place} is closed and stays where it is (R12)").format(place=PLACES[src])
    onto = piles[dst]
    bottom = moving[0]
    if not onto:
        if dst < 4:
            return _("a pile never moves onto an empty side; fill {place} from your hand (R9)").format(
                place=PLACES[dst]
            )
        if src >= 4:
            return _("a corner pile stays in its corner (R9)")
        if not is_king(bottom):
            return _("only a pile that starts with a king may move to the empty corner {place} (R9)").format(
                place=PLACES[dst]
            )
        return None
    return _fit_reason(bottom, onto[-1], PLACES[dst], fmt, "R9")


def _fit_reason(card: Card, top: Card, place: str, fmt: Callable[[Card], str], rule: str) -> str | None:
    if (NEED[top] >> card) & 1:
        return None
    args = {"card": fmt(card), "top": fmt(top), "place": place, "rule": rule}
    # Translators: {card} is played on {top} (cards such as 7♥) at the place {place} (such as NE);
    # {rule} is a rule id such as R8.
    if rank_of(top) == 1:
        return _("{card} can't go on {top} at {place}: nothing is ever played on an ace ({rule})").format(**args)
    if rank_of(card) != rank_of(top) - 1:
        return _("{card} can't go on {top} at {place}: it must be exactly one rank lower ({rule})").format(**args)
    if is_red(card) == is_red(top):
        return _("{card} can't go on {top} at {place}: same colour ({rule})").format(**args)
    return _("{card} can't go on {top} at {place} ({rule})").format(**args)  # pragma: no cover - every misfit is above
