"""Helpers for building hand-made positions and checking invariants in the engine tests."""

from __future__ import annotations

import itertools
import random
from typing import Any

from kc_tui.engine import (
    ALL_CARDS,
    Match,
    Round,
    card_str,
    cards_of,
    dump_position,
    fits_on,
    is_king,
    parse_card,
    parse_move,
    parse_position,
)
from kc_tui.engine.rules import CHOICES, Rules

PLACE_NAMES = ("N", "E", "S", "W", "NE", "SE", "SW", "NW")


def c(text: str) -> int:
    """A card from its text."""
    return parse_card(text)


def mv(text: str) -> int:
    """A move from its text."""
    return parse_move(text)


def position(
    hands: list[list[str]],
    piles: dict[str, list[str]] | None = None,
    stock: list[str] | None = None,
    *,
    rest: str | int = "stock",
    rules: dict[str, Any] | None = None,
    to_move: int = 0,
    drawn: bool = True,
    idle_turns: int = 0,
) -> dict[str, Any]:
    """A position document from the cards that matter; every other card goes to ``rest``.

    ``rest = "stock"`` puts the unused cards under the given stock cards (ordered by card
    number), an int puts them into that seat's hand.  The document must then be valid.
    """
    piles = piles or {}
    stock = list(stock or [])
    used = {parse_card(t) for t in itertools.chain(*hands, stock, *piles.values())}
    leftovers = [card_str(x) for x in ALL_CARDS if x not in used]
    hands = [list(h) for h in hands]
    if rest == "stock":
        stock += leftovers
    else:
        assert isinstance(rest, int)
        hands[rest] += leftovers
    return {
        "format": "kings-corners/position/1",
        "rules": dict(rules or {}),
        "players": [{"name": f"P{i}", "hand": h} for i, h in enumerate(hands)],
        "to_move": to_move,
        "drawn": drawn,
        "stock": stock,
        "idle_turns": idle_turns,
        "piles": {p: list(piles.get(p, [])) for p in PLACE_NAMES},
    }


def valid_position() -> dict[str, Any]:
    """A valid two-player position in the middle of a round, as a position file holds it."""
    return position([["5C", "7H", "AS"], ["6C"]], {"N": ["9H", "8S"], "E": ["8D"], "NE": ["KD"]}, stock=["2H"])


def draw3_position() -> dict[str, Any]:
    """The R14 scenario: when_stuck + draw3, two idle turns so far; seat 0's last card (7H onto N)
    goes out with side W empty and draw3 takes the last two stock cards."""
    return position(
        [["7H"], []],
        {"N": ["8S"], "E": ["9H"], "S": ["9D"]},
        stock=["2D", "3D"],
        rest=1,
        rules={"draw": "when_stuck", "out_with_open_side": "draw3"},
        idle_turns=2,
    )


def build(*args: Any, seed: int = 0, **kwargs: Any) -> Round:
    """A round from :func:`position`'s arguments."""
    return parse_position(position(*args, **kwargs), seed=seed)


def hand_text(r: Round, seat: int) -> set[str]:
    return {card_str(x) for x in cards_of(r.hands[seat])}


def random_moves(r: Round, rng: random.Random, count: int | None = None) -> None:
    """``count`` random legal moves in ``r`` (drawn from ``rng``), or to the round's end (None)."""
    made = 0
    while not r.over and (count is None or made < count):
        ms = r.legal_moves()
        r.apply(ms[rng.randrange(len(ms))])
        made += 1


def random_match(m: Match, rng: random.Random) -> None:
    """Every round of ``m`` played by random legal moves and finished, to the match's end."""
    while not m.over:
        random_moves(m.round, rng)
        m.finish_round()


def hidden_from(r: Round, seat: int) -> int:
    """The cards ``seat`` cannot see: the other hands and the stock (a mask)."""
    hidden = 0
    for s, h in enumerate(r.hands):
        if s != seat:
            hidden |= h
    for x in r.stock:
        hidden |= 1 << x
    return hidden


def pile_text(r: Round, place: str) -> list[str]:
    return [card_str(x) for x in r.piles[PLACE_NAMES.index(place)]]


def move_texts(r: Round) -> set[str]:
    from kc_tui.engine import move_str

    return {move_str(m) for m in r.legal_moves()}


def snapshot(r: Round) -> tuple[Any, ...]:
    """Everything observable about a round, to compare before and after a refused move."""
    return (
        dump_position(r),
        r.hist,
        r.rng,
        r.seen,
        r.moved,
        r.played_card,
        r.drew,
        r.drawn,
        tuple(r.fines),
        tuple(r.last_drawn),
        r.over,
        r.winner,
        r.dealer,
    )


def invariant_problems(r: Round) -> list[str]:
    """What is wrong with a round's cards: every card exactly once, legal piles, king corners."""
    problems: list[str] = []
    seen = 0
    total = 0
    zones: list[tuple[str, list[int]]] = [(f"hand {i}", cards_of(h)) for i, h in enumerate(r.hands)]
    zones.append(("stock", list(r.stock)))
    zones += [(f"pile {PLACE_NAMES[i]}", list(p)) for i, p in enumerate(r.piles)]
    for name, cards in zones:
        for x in cards:
            if not 0 <= x < 52:
                problems.append(f"{name}: {x} is not a card")
                continue
            if (seen >> x) & 1:
                problems.append(f"{name}: {card_str(x)} appears twice")
            seen |= 1 << x
            total += 1
    if total != 52 or seen != (1 << 52) - 1:
        problems.append(f"{total} cards in play, {bin(seen).count('1')} distinct")
    for i, p in enumerate(r.piles):
        for below, above in itertools.pairwise(p):
            if not fits_on(above, below):
                problems.append(f"pile {PLACE_NAMES[i]}: {card_str(above)} on {card_str(below)}")
        if i >= 4 and p and not is_king(p[0]):
            problems.append(f"corner {PLACE_NAMES[i]} starts with {card_str(p[0])}")
        if len(p) > 13:
            problems.append(f"pile {PLACE_NAMES[i]} has {len(p)} cards")
    return problems


def all_rule_combos() -> list[Rules]:
    """Every combination of the word-valued settings (with chips scoring's flag both ways)."""
    keys = list(CHOICES)
    out: list[Rules] = []
    for values in itertools.product(*(CHOICES[k] for k in keys)):
        settings: dict[str, Any] = dict(zip(keys, values, strict=True))
        out.append(Rules(**settings))
    return out
