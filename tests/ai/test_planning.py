"""The planning core's fast simulation agrees with the engine: ``sim_apply`` (R12 completed
piles included) gives the hand and piles ``Round.apply`` gives, on many random positions with
long piles, under every rule variant."""

from __future__ import annotations

import random

from ai.search.planning import enumerate_turn, open_mask, sim_apply
from kc_tui.engine import END, KINGS_MASK, Round, is_play
from kc_tui.engine.cards import NEED

from .helpers import VARIANTS


def _run(rng: random.Random, free: set[int], start: int, length: int) -> list[int]:
    """A pile from ``start`` down by alternating colours, at most ``length`` cards of ``free``."""
    pile = [start]
    free.discard(start)
    while len(pile) < length:
        fits = [c for c in free if (NEED[pile[-1]] >> c) & 1]
        if not fits:
            break
        c = rng.choice(sorted(fits))
        pile.append(c)
        free.discard(c)
    return pile


def random_position(seed: int) -> Round:
    """A position to move in, with piles often one or two cards short of complete (K..A), and a
    hand that often holds the card or pile that completes one."""
    rng = random.Random(seed)
    rules = VARIANTS[seed % len(VARIANTS)]
    free = set(range(52))
    piles: list[tuple[int, ...]] = []
    for place in range(8):
        if rng.random() < 0.3:
            piles.append(())
            continue
        if place >= 4 or rng.random() < 0.5:  # a corner, or a side with a king at the bottom
            kings = sorted(c for c in free if (KINGS_MASK >> c) & 1)
            if not kings:
                piles.append(())
                continue
            start = rng.choice(kings)
            length = rng.choice((rng.randrange(1, 14), 11, 12, 12, 13))
            if rules.completed_piles != "stay":
                length = min(length, 12)  # a 13-card pile has already left the table (R12)
        else:
            start = rng.choice(sorted(free))
            length = rng.randrange(1, 8)
        piles.append(tuple(_run(rng, free, start, length)))
    # The hand: the cards that fit the tops first (often the one that completes a pile), then any.
    fitting = sorted(c for c in free if (open_mask(piles)[0] >> c) & 1)
    rest = sorted(free - set(fitting))
    rng.shuffle(fitting)
    rng.shuffle(rest)
    hand_cards = fitting[: rng.randrange(0, 4)] + rest[: rng.randrange(1, 6)]
    hand = sum(1 << c for c in hand_cards)
    left = sorted(free - set(hand_cards))
    rng.shuffle(left)
    other = sum(1 << c for c in left[:5])
    stock = left[5 : 5 + rng.randrange(0, 10)]
    return Round.from_parts(rules, [hand, other], list(piles), stock, to_move=0, drawn=True, seed=seed)


def test_sim_apply_agrees_with_the_engine_on_every_legal_move() -> None:
    completed = moved = 0
    for seed in range(1500):
        r = random_position(seed)
        closed = r.rules.completed_piles == "stay"
        draw3 = r.rules.out_with_open_side == "draw3"
        hand, piles = r.hands[0], tuple(r.piles)
        for m in r.legal_moves():
            if m == END:
                continue
            moved += 1
            engine = r.child(m)
            sim_hand, sim_piles = sim_apply(hand, piles, m, closed)
            assert sim_piles == tuple(engine.piles), (seed, m)
            if not (draw3 and sim_hand == 0):  # going out under draw3 deals 3 unknown cards (R13)
                assert sim_hand == engine.hands[0], (seed, m)
            if sum(map(len, piles)) + is_play(m) - sum(map(len, sim_piles)) == 13:
                completed += 1
                # R12 to_stock: the 13 cards went to the stock (less any draw3 dealt from it).
                drawn = engine.hands[0].bit_count() - sim_hand.bit_count()
                assert not closed and len(engine.stock) + drawn == len(r.stock) + 13
    # The positions reach R12 often enough for the agreement to mean something.
    assert moved > 10_000 and completed > 600


def test_the_turn_search_only_reaches_positions_the_engine_reaches() -> None:
    """Every path enumerate_turn returns is legal in the engine, move by move, and ends at the
    position it is filed under."""
    for seed in range(150):
        r = random_position(seed)
        closed = r.rules.completed_piles == "stay"
        kos = r.rules.kings_on_sides == "allow"
        ends = enumerate_turn(r.hands[0], r.piles, kos, closed, 200)
        for (h, piles), path in ends.items():
            c = r.clone()
            for m in path:
                c.apply(m)  # IllegalMove if the search made an illegal move
            assert tuple(c.piles) == piles
            if not (c.rules.out_with_open_side == "draw3" and h == 0):
                assert c.hands[0] == h
