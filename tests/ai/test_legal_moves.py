"""No AI ever makes an illegal move: thousands of seeded turns over every rule variant, 2-4 players."""

from __future__ import annotations

from typing import Any

import pytest

from ai import ai_kinds, make_player
from kc_tui.engine import END, Round, Rules

from .helpers import FAST, KINDS, VARIANTS, fast_player


def test_every_kind_is_registered_and_described() -> None:
    assert set(KINDS) <= set(ai_kinds())
    for kind in KINDS:
        ai = make_player(kind, 1)
        assert ai.kind == kind and ai.description


def test_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown AI kind"):
        make_player("genius", 1)


def test_no_ai_makes_an_illegal_move_in_any_variant() -> None:
    turns = 0
    checked = 0
    rounds = 0
    for v, rules in enumerate(VARIANTS):
        for n in (2, 3, 4):
            seed = v * 10 + n
            kinds = [KINDS[(v + n + s) % len(KINDS)] for s in range(n)]
            r = Round.deal(n, rules, seed, dealer=seed % n)
            players = [fast_player(k, seed + s) for s, k in enumerate(kinds)]
            steps = 0
            while not r.over and steps < 600:
                seat = r.to_move
                view = r.view(seat)
                legal = view.legal_moves()
                m = players[seat].choose(view)
                assert m in legal, f"{kinds[seat]} chose {m} not in {legal} ({rules})"
                assert r.is_legal(m)
                r.apply(m)
                checked += 1
                steps += 1
                if m == END:
                    turns += 1
            rounds += 1
    assert rounds == len(VARIANTS) * 3 == 144
    assert turns >= 2000, turns
    assert checked >= 3000, checked


@pytest.mark.parametrize("kind", [k for k in KINDS if k != "random"])
def test_each_ai_is_deterministic_for_a_seed(kind: str) -> None:
    def moves(seed: int) -> list[int]:
        r = Round.deal(3, Rules(), 42, dealer=0)
        players = [make_player(kind, seed + s, **FAST[kind]) for s in range(3)]
        out: list[Any] = []
        while not r.over and len(out) < 150:
            m = players[r.to_move].choose(r.view(r.to_move))
            out.append(m)
            r.apply(m)
        return out

    assert moves(5) == moves(5)


def test_searching_ais_shed_at_least_as_much_as_greedy_in_their_turn() -> None:
    """The whole-turn search always contains greedy's line, so with the opponent terms switched
    off it never ends a turn with more cards than greedy would."""
    from ai.search.planning import EvalParams, greedy_turn

    from .helpers import midround_positions

    for r, seat in midround_positions(60, seed=3):
        view = r.view(seat)
        ai = make_player("king-aware", 1, hold_cost=0.0, danger_size=0)
        ai.weights = EvalParams(open=0.0, side=0.0, king=0.0, danger=0.0)  # type: ignore[attr-defined]
        c = r.clone()
        while not c.over and c.to_move == seat:
            m = ai.choose(c.view(seat))
            c.apply(m)
            if m == END:
                break
        kos = r.rules.kings_on_sides == "allow"
        line = greedy_turn(view.hand_mask, view.piles, kos, r.rules.completed_piles == "stay")
        g = r.clone()
        for m in line:
            g.apply(m)
        # After END the next player draws (R6 start), never this seat: the hands compare as they are.
        assert c.hands[seat].bit_count() <= g.hands[seat].bit_count()
