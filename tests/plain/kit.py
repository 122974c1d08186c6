"""Helpers of the plain mode's tests: a view of a table made by hand, the lines told checked."""

from __future__ import annotations

from collections.abc import Sequence

from kc_tui.engine import Card, Rules, generate_moves, mask_of, move_str, parse_card
from kc_tui.match.view import SeatSnapshot, TableSnapshot, score_label
from kc_tui.util.printable import cells

#: The widest a told or refused line may be: a terminal of 80 columns.
WIDTH = 80


def solid(card: Card) -> str:
    """A card as the tests write it, whatever the card styles draw: its rank and its suit's solid
    symbol (``10♥``, ``K♠``)."""
    rank = "A23456789TJQK"[card >> 2]
    return ("10" if rank == "T" else rank) + "♣♦♥♠"[card & 3]


def cards(text: str) -> tuple[Card, ...]:
    """Cards from their codes: ``"8C 7D"``."""
    return tuple(parse_card(word) for word in text.split())


def view(
    hand: str,
    piles: Sequence[str],
    *,
    rules: Rules | None = None,
    viewer: int | None = 0,
    to_move: int | None = 0,
    drawn: str | None = None,
    pot: int | None = None,
    end_turn_costs: bool = False,
    log: Sequence[str] = (),
) -> TableSnapshot:
    """Ana's (seat 0) view of a table of two, Ana and Ben: her ``hand`` and the eight ``piles``
    (N E S W NE SE SW NW) as codes; her legal moves when she is ``to_move``."""
    rules = rules or Rules()
    held = cards(hand)
    table = tuple(cards(pile) for pile in piles)
    on_turn = viewer is not None and viewer == to_move
    legal = (
        tuple(
            sorted(
                generate_moves(mask_of(held), table, rules.kings_on_sides_allowed, rules.completed_piles_stay),
                key=move_str,
            )
        )
        if on_turn
        else ()
    )
    chips = pot is not None
    seats = tuple(
        SeatSnapshot(
            seat=i,
            name=name,
            kind="human" if i == 0 else "greedy",
            cards=len(held) if i == 0 else 4,
            total=3 * i,
            to_move=i == to_move,
            dealer=i == 1,
            winner=False,
            hand=held if i == viewer else None,
            score=score_label(3 * i, chips=chips, target=rules.target),
        )
        for i, name in enumerate(("Ana", "Ben"))
    )
    return TableSnapshot(
        viewer=viewer,
        piles=table,
        stock=20,
        round_number=1,
        to_move=to_move,
        target=rules.target,
        seats=seats,
        drawn=parse_card(drawn) if drawn else None,
        pot=pot,
        log=tuple(log),
        legal=legal,
        end_turn_costs=end_turn_costs,
    )


def one_plain_line(line: str) -> bool:
    """``line`` is one printable line, no escape sequence in it, at most :data:`WIDTH` cells."""
    return line.isprintable() and "\x1b" not in line and "\n" not in line and cells(line) <= WIDTH
