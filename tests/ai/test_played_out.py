"""Lookahead at three and four seats plays its best plans to the end of the round (greedy players,
the same deals for every plan) and keeps its favourite unless another plan does better by the
margin; heads-up it does not (ai.players.lookahead.LookaheadAI.played_out)."""

from __future__ import annotations

import time

from ai import make_player
from ai.players.lookahead import LookaheadAI
from ai.search.planning import Rulebits, State, pick
from kc_tui.engine import END, Move, PlayerView, Round, Rules, mask_of, parse_card, play
from tests.ai.helpers import midround_positions, pinned_choices, pinned_round


def _lookahead(**params: object) -> LookaheadAI:
    ai = make_player("lookahead", 5, node_limit=200, **params)
    assert isinstance(ai, LookaheadAI)
    return ai


def _mask(*cards: str) -> int:
    return mask_of(parse_card(c) for c in cards)


def _three_seats_out_in_one() -> Round:
    """Seat 0 to move at a table of three holding 5♡ 4♠ 3♡: the 6♣ side takes 5♡, then 4♠, then
    3♡, so it can go out this turn; the other seats hold five cards each."""
    piles: list[tuple[int, ...]] = [(parse_card(c),) for c in ("6C", "JD", "JS", "10H")] + [(), (), (), ()]
    mine = _mask("5H", "4S", "3H")
    used = mine | _mask("6C", "JD", "JS", "10H")
    rest = [c for c in range(52) if not (used >> c) & 1]
    hands = [mine, mask_of(rest[:5]), mask_of(rest[5:10])]
    return Round.from_parts(Rules(), hands, piles, rest[10:], 0)


def _ranked_state(r: Round, path: tuple[Move, ...]) -> State:
    c = r.clone()
    for m in path:
        c.apply(m)
    return (c.hands[0], tuple(c.piles))


def _favourite_plays_nothing() -> tuple[PlayerView, list[tuple[float, tuple[Move, ...], State]], tuple[Move, ...]]:
    """The view of :func:`_three_seats_out_in_one`, a made-up ranking whose favourite ends the
    turn at once while the other plan goes out, and that plan."""
    r = _three_seats_out_in_one()
    out_path = (play(parse_card("5H"), 0), play(parse_card("4S"), 0), play(parse_card("3H"), 0))
    ranked = [(0.0, (), _ranked_state(r, ())), (-50.0, out_path, _ranked_state(r, out_path))]
    return r.view(0), ranked, out_path


def test_a_plan_that_goes_out_is_played_before_a_favourite_that_plays_nothing() -> None:
    view, ranked, out_path = _favourite_plays_nothing()
    ai = _lookahead(rollouts=8)
    got = ai.played_out(view, ranked, Rulebits(view))
    assert got[0][1] == out_path
    assert [t[1] for t in got] == [out_path, ()]


def test_a_margin_no_plan_can_beat_keeps_the_favourite() -> None:
    view, ranked, _out = _favourite_plays_nothing()
    ai = _lookahead(rollouts=8, rollout_margin=1e9)
    assert ai.played_out(view, ranked, Rulebits(view)) == ranked


def test_a_deadline_already_past_plays_no_deal_and_keeps_the_favourite() -> None:
    view, ranked, _out = _favourite_plays_nothing()
    ai = _lookahead(rollouts=8)
    ai._deadline = time.perf_counter() - 1.0
    assert ai.played_out(view, ranked, Rulebits(view)) == ranked


def test_heads_up_the_plans_are_not_played_out() -> None:
    heads_up = [(r, seat) for r, seat in midround_positions(24, seed=41) if r.n == 2]
    assert len(heads_up) >= 6
    for r, seat in heads_up:
        view = r.view(seat)
        assert _lookahead(rollouts=24).ranked_plans(view) == _lookahead(rollouts=0).ranked_plans(view)


def test_at_three_and_four_seats_the_play_out_only_moves_one_plan_to_the_front() -> None:
    changed = 0
    # The recorded positions of the choices fixture (later in their rounds than midround_positions).
    for row in pinned_choices()["positions"]:
        r = pinned_round(row)
        if r.n < 3:
            continue
        view = r.view(r.to_move)
        before = _lookahead(rollouts=0).ranked_plans(view)
        after = _lookahead(rollouts=12).ranked_plans(view)
        assert after == _lookahead(rollouts=12).ranked_plans(view)  # deterministic
        assert after[1:] == [t for t in before if t != after[0]]
        changed += after[0] != before[0]
    # The play-out must matter somewhere, or it is not being used.
    assert changed >= 1


def test_pick_keeps_the_favourite_unless_beaten_by_the_margin() -> None:
    favourite = [1.0, 2.0, 3.0, 4.0]
    assert pick([favourite, [1.1, 2.0, 3.1, 3.9]], 1.0) == 0
    assert pick([favourite, [2.0, 3.1, 3.9, 5.0], [1.5, 2.5, 3.5, 4.5]], 1.0) == 1
    assert pick([favourite, [2.0, 3.1, 3.9, 5.0]], 100.0) == 0
    assert pick([[1.0], [9.0]], 0.0) == 0  # one deal: no standard error, no switch


def test_an_ai_at_a_three_seat_table_still_plays_legal_whole_turns() -> None:
    for r, seat in midround_positions(12, seed=43):
        if r.n < 3:
            continue
        ai = _lookahead(rollouts=6)
        c = r.clone()
        while not c.over and c.to_move == seat:
            m = ai.choose(c.view(seat))
            assert m in c.view(seat).legal_moves()
            c.apply(m)
            if m == END:
                break
