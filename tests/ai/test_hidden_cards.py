"""An AI cannot reach hidden cards: its view holds none, and the round is out of its reach (R4)."""

from __future__ import annotations

import dataclasses
import gc
from typing import Any

from ai import make_player
from kc_tui.engine import END, PlayerView, Round, Rules, cards_of, determinize
from tests.engine.helpers import hidden_from

from .helpers import FAST, KINDS, VARIANTS, midround_positions


def _reachable(root: object, limit: int = 20_000) -> list[object]:
    """Every object reachable from ``root`` by references (attributes, items, closures...)."""
    seen: dict[int, object] = {}
    todo = [root]
    while todo and len(seen) < limit:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, type):
            continue
        seen[id(obj)] = obj
        todo.extend(gc.get_referents(obj))
    return list(seen.values())


def _ints(value: Any) -> set[int]:
    if isinstance(value, bool) or value is None:
        return set()
    if isinstance(value, int):
        return {value}
    if isinstance(value, tuple | list):
        out: set[int] = set()
        for v in value:
            out |= _ints(v)
        return out
    return set()


def test_the_view_holds_no_hidden_card() -> None:
    # Seeds from the variant's index, not hash(rules): string hashes change from run to run.
    for i, rules in enumerate(VARIANTS[::5]):
        for r, seat in midround_positions(8, seed=100 + 37 * i, rules=rules):
            hidden = hidden_from(r, seat)
            assert hidden, "the test needs hidden cards"
            v = r.view(seat)
            assert v.hand_mask == r.hands[seat]
            assert v.hand_mask & hidden == 0
            if rules.completed_piles == "stay":
                # (With to_stock, a completed pile's cards were seen, then shuffled into the
                # stock: public history, not a leak.)
                assert v.seen_mask & hidden == 0
                # Every card named in the history was played face up: never a hidden one.
                for _, m in v.history:
                    if m < 512:
                        assert not hidden >> (m >> 3) & 1
            assert v.table_mask & hidden == 0
            assert v.unseen_mask == hidden  # it knows *which* cards are hidden, not where they are
            assert v.last_drawn is None or (v.hand_mask | v.table_mask) >> v.last_drawn & 1
            # No field (or number inside one) is a mask of another hand or of the stock.
            stock_mask = sum(1 << c for c in r.stock)
            secret = [h for s, h in enumerate(r.hands) if s != seat and h.bit_count() >= 2]
            if len(r.stock) >= 2:
                secret.append(stock_mask)
            for f in dataclasses.fields(PlayerView):
                for x in _ints(getattr(v, f.name)):
                    if x > 1024:  # counts, seats, moves and cards are all smaller
                        assert x not in secret, f"field {f.name} gives away hidden cards"


def test_no_round_is_reachable_from_the_view() -> None:
    r = Round.deal(3, Rules(), 11, dealer=0)
    v = r.view(r.to_move)
    objs = _reachable(v)
    assert not any(isinstance(o, Round) for o in objs)
    assert not any(o is r.hands or o is r.stock or o is r.piles for o in objs)
    # Attributes a curious AI might try.
    for name in ("round", "_round", "state", "game", "r", "hands", "stock", "__dict__"):
        assert not hasattr(v, name), name


def test_mutating_the_round_after_the_view_changes_nothing_in_it() -> None:
    r = Round.deal(2, Rules(), 5, dealer=1)
    seat = r.to_move
    v = r.view(seat)
    before = dataclasses.astuple(v)
    steps = 0
    while not r.over and steps < 40:  # play on: hands, stock and piles all change
        r.apply(make_player("greedy", 0).choose(r.view(r.to_move)))
        steps += 1
    r.hands[1 - seat] = 0
    r.stock.clear()
    assert dataclasses.astuple(v) == before
    with __import__("pytest").raises(dataclasses.FrozenInstanceError):
        v.hand_mask = 0  # type: ignore[misc]


def test_no_round_is_reachable_from_an_ai_after_it_played() -> None:
    r = Round.deal(2, Rules(), 9, dealer=0)
    players = {s: make_player(KINDS[2 + s], s, **FAST[KINDS[2 + s]]) for s in range(2)}
    while not r.over:
        m = players[r.to_move].choose(r.view(r.to_move))
        r.apply(m)
    for ai in players.values():
        objs = _reachable(ai)
        assert not any(o is r for o in objs)
        assert not any(o is r.hands or o is r.stock for o in objs)


def test_determinized_deals_are_consistent_with_the_view() -> None:
    count = 0
    for rules in VARIANTS[::3]:
        for r, seat in midround_positions(6, seed=7, rules=rules):
            v = r.view(seat)
            for k in range(4):
                d = determinize(v, k)
                assert d.hands[seat] == v.hand_mask
                assert tuple(d.piles) == v.piles
                assert tuple(h.bit_count() for h in d.hands) == v.hand_sizes
                assert len(d.stock) == v.stock_size
                assert d.card_count() == 52
                allc = [c for h in d.hands for c in cards_of(h)] + list(d.stock) + [c for p in d.piles for c in p]
                assert sorted(allc) == list(range(52))
                others = 0
                for s, h in enumerate(d.hands):
                    if s != seat:
                        others |= h
                assert others & ~v.unseen_mask == 0
                assert d.to_move == v.to_move and d.legal_moves() == v.legal_moves()
                count += 1
    assert count >= 300


def test_expert_guesses_vary_but_never_use_the_real_hidden_cards() -> None:
    """Two rounds that look the same to a seat (same view, different hidden cards) get the same
    expert move: its choice can only depend on what the view shows."""
    r = Round.deal(2, Rules(), 21, dealer=0)
    seat = r.to_move
    other = 1 - seat
    twin = r.clone()
    # Swap the other hand with the top of the stock: different hidden cards, same view.
    hidden = cards_of(twin.hands[other])
    take = hidden[: min(len(hidden), len(twin.stock))]
    stock_cards = twin.stock[-len(take) :]
    h = twin.hands[other]
    for c in take:
        h ^= 1 << c
    for c in stock_cards:
        h |= 1 << c
    twin.hands[other] = h
    twin.stock[-len(take) :] = take
    assert twin.hands[other] != r.hands[other]
    assert twin.view(seat) == r.view(seat)
    a = make_player("expert", 3, iterations=4)
    b = make_player("expert", 3, iterations=4)
    assert a.choose(r.view(seat)) == b.choose(twin.view(seat))
    assert END in r.view(seat).legal_moves()
