"""The expert: deterministic with a fixed iteration count, stopping on its settle rule, and its
inference about the opponents' hands is consistent with the view (and right about greedy)."""

from __future__ import annotations

from typing import Any

import pytest

from ai import make_player
from ai.players.expert import ExpertAI, inferred_absent
from ai.search.leaf import FEATURES, WEIGHTS, features, win_chance
from ai.search.planning import KQ_MASK, Rulebits, State
from kc_tui.engine import END, Move, PlayerView, Round, Rules, determinize

from .helpers import VARIANTS, midround_positions


def _expert(seed: int, **kw: object) -> ExpertAI:
    ai = make_player("expert", seed, **kw)
    assert isinstance(ai, ExpertAI)
    return ai


def test_fixed_iterations_are_deterministic() -> None:
    for i, (r, seat) in enumerate(midround_positions(12, seed=5)):
        view = r.view(seat)
        a = _expert(i, iterations=6)
        b = _expert(i, iterations=6)
        assert a.plan_turn(view, view.legal_moves()) == b.plan_turn(view, view.legal_moves())
        assert a.last_iterations in (0, 6)  # 0: a single candidate plan, nothing to search


class _Clock:
    """A stand-in for the expert's ``time`` module: every reading is 1 ms after the last."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        self.now += 0.001
        return self.now


class _PlanThreeWins(ExpertAI):
    """Every deal says the third plan is 10 points better than the others (with some noise)."""

    last_ranked: list[tuple[float, tuple[Move, ...], State]]

    def _playout(self, r: Round, me: int, path: tuple[Move, ...], *args: Any) -> float:
        k = next(i for i, (_s, p, _st) in enumerate(self.last_ranked) if p == path)
        return (10.0 if k == 2 else 0.0) + 0.1 * (r.hands[me] % 7)

    def ranked_plans(self, view: PlayerView) -> list[tuple[float, tuple[Move, ...], State]]:
        self.last_ranked = super().ranked_plans(view)
        return self.last_ranked


def test_a_timed_search_with_too_few_deals_plays_lookaheads_favourite(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a budget that fits only a few deals the expert does not overrule lookahead on them
    (``min_deals``); a budget that fits more lets the same evidence overrule it."""
    import ai.players.expert as expert_module

    position = next(
        (r, seat)
        for r, seat in midround_positions(40, seed=21)
        if len(_PlanThreeWins(0).ranked_plans(r.view(seat))[:6]) >= 3
    )
    view = position[0].view(position[1])
    choices = {}
    for think_ms in (12.0, 200.0):
        monkeypatch.setattr(expert_module, "time", _Clock())
        ai = _PlanThreeWins(0, think_ms=think_ms, settle=0.0)
        plan = ai.plan_turn(view, view.legal_moves())
        ranked = [p for _s, p, _st in ai.last_ranked[: ai.candidates]]
        choices[think_ms] = (ranked.index(plan), ai.last_iterations)
    few, many = choices[12.0], choices[200.0]
    assert 1 <= few[1] < 8 and few[0] == 0  # a few deals: lookahead's favourite
    assert many[1] >= 8 and many[0] == 2  # enough deals: the plan they all favour


def test_min_deals_must_be_at_least_two() -> None:
    with pytest.raises(ValueError, match="min_deals"):
        _expert(0, min_deals=1)


def test_a_tiny_budget_still_answers_with_a_legal_move() -> None:
    for i, (r, seat) in enumerate(midround_positions(6, seed=12)):
        view = r.view(seat)
        assert _expert(i, think_ms=1.0).choose(view) in view.legal_moves()


def test_inference_only_names_unseen_cards_of_the_player_who_just_ended_its_turn() -> None:
    checked = 0
    for i, rules in enumerate(VARIANTS[::3]):
        for r, seat in midround_positions(10, seed=7 + 31 * i, rules=rules):
            view = r.view(seat)
            absent = inferred_absent(view)
            for s, mask in absent.items():
                assert s == (seat - 1) % view.n_players
                assert mask & ~view.unseen_mask == 0
                assert mask & KQ_MASK == 0
                checked += 1
            if rules.draw == "end":
                assert absent == {}
            ai = _expert(0, iterations=1)
            allowed = ai.allowed(view)
            d = determinize(view, 3, allowed)
            assert d.view(seat).hand_mask == view.hand_mask
            assert tuple(h.bit_count() for h in d.hands) == view.hand_sizes
            assert len(d.stock) == view.stock_size and tuple(d.piles) == view.piles
    assert checked > 20


def test_inference_is_right_about_a_greedy_opponent() -> None:
    """Greedy plays every card that fits and fills every empty side, so what the expert infers
    it lacks, it really lacks; and the guesses then deal it none of those cards."""
    checked = 0
    for k in range(60):
        r = Round.deal(2, Rules(), 500 + k, dealer=k % 2)
        g = make_player("greedy", k)
        for _ in range(2 + k % 7):
            while not r.over:
                m = g.choose(r.view(r.to_move))
                r.apply(m)
                if m == END:
                    break
        if r.over:
            continue
        seat = r.to_move
        view = r.view(seat)
        for s, mask in inferred_absent(view).items():
            assert r.hands[s] & mask == 0
            d = determinize(view, k, _expert(0).allowed(view))
            if (view.unseen_mask & ~mask).bit_count() >= view.hand_sizes[s]:
                assert d.hands[s] & mask == 0
            checked += 1
    assert checked > 20


def test_leaf_model_is_a_chance() -> None:
    assert len(WEIGHTS) == len(FEATURES)
    for r, seat in midround_positions(20, seed=3):
        others = [h for s, h in enumerate(r.hands) if s != seat]
        p = win_chance(r.hands[seat], others, r.piles, len(r.stock))
        assert 0.0 <= p <= 1.0
        assert len(features(r.hands[seat], others[0], r.piles, len(r.stock))) == len(FEATURES)


def test_settled_when_no_other_plan_can_be_meaningfully_better() -> None:
    same = [[0.2, 0.6, 0.4, 0.9] * 10, [0.2, 0.6, 0.4, 0.9] * 10]
    assert ExpertAI.settled(same, 1.0, 2.0, 0.002)
    clear = [[0.3, 0.5] * 20, [0.8, 0.9] * 20, [0.1, 0.2] * 20]
    assert ExpertAI._pick(clear, 1.0) == 1
    assert ExpertAI.settled(clear, 1.0, 2.0, 0.002)
    # The second plan is ahead on average but not surely: a few more deals could overturn it.
    close = [[0.5] * 40, [0.5 + (0.3 if i % 2 else -0.28) for i in range(40)]]
    assert not ExpertAI.settled(close, 1.0, 2.0, 0.002)
    assert not ExpertAI.settled([[0.5], [0.4]], 1.0, 2.0, 0.002)  # one deal proves nothing


def test_the_search_stops_early_once_settled_and_never_without_settle() -> None:
    early = 0
    searched = 0
    for i, (r, seat) in enumerate(midround_positions(10, seed=21)):
        view = r.view(seat)
        full = _expert(i, iterations=400, settle=0.0)
        full.plan_turn(view, view.legal_moves())
        if full.last_iterations == 0:
            continue  # a single candidate plan
        searched += 1
        assert full.last_iterations == 400
        quick = _expert(i, iterations=400)
        quick.plan_turn(view, view.legal_moves())
        assert 32 <= quick.last_iterations <= 400
        early += quick.last_iterations < 400
    assert searched >= 5
    assert early >= searched // 2


def test_horizon_is_one_reply_heads_up_and_the_whole_round_with_more_players() -> None:
    ai = _expert(0)
    assert (ai.horizon_for(2), ai.horizon_for(3), ai.horizon_for(4)) == (1, 0, 0)
    assert _expert(0, horizon=2).horizon_for(4) == 2
    with pytest.raises(ValueError):
        _expert(0, horizon=-1)


def test_four_seat_search_with_rollouts_to_the_end_answers_legally() -> None:
    checked = 0
    for i, (r, seat) in enumerate(midround_positions(12, seed=31)):
        if r.n < 3:
            continue
        view = r.view(seat)
        ai = _expert(i, iterations=8)
        assert ai.choose(view) in view.legal_moves()
        checked += 1
    assert checked >= 4


def test_sim_greedy_plays_the_simulated_turns_as_the_greedy_ai_would() -> None:
    """``sim="greedy"``: a simulated turn in the search is the turn the real greedy AI plays
    from that seat's view; the default simulates king-aware's planner, which differs somewhere."""
    greedy = make_player("greedy", 0)
    fast = _expert(0, sim="greedy")
    planner = _expert(0)
    checked = differ = 0
    for r, _seat in midround_positions(20, seed=41):
        if r.over:
            continue
        bits = Rulebits(r.view(r.to_move))
        mine, theirs, planned = r.clone(), r.clone(), r.clone()
        fast._seat_stakes = planner._seat_stakes = []
        fast._sim_turn(mine, bits)
        seat = theirs.to_move
        while not theirs.over and theirs.to_move == seat:
            theirs.apply(greedy.choose(theirs.view(seat)))
        assert (mine.hands, mine.piles, mine.to_move) == (theirs.hands, theirs.piles, theirs.to_move)
        planner._sim_turn(planned, bits)
        differ += (planned.hands, planned.piles) != (mine.hands, mine.piles)
        checked += 1
    assert checked >= 10
    assert differ >= 1


def test_both_sims_answer_legally_and_deterministically_at_four_seats() -> None:
    """With a fixed count of deals each ``sim`` answers a legal move, the same one twice (what each
    costs is a benchmark: tests/benchmarks/bench_expert.py)."""
    checked = 0
    for sim in ("king-aware", "greedy"):
        for i, (r, seat) in enumerate(midround_positions(12, seed=31)):
            if r.n < 4:
                continue
            view = r.view(seat)
            a, b = _expert(i, iterations=8, sim=sim), _expert(i, iterations=8, sim=sim)
            move = a.choose(view)
            assert move in view.legal_moves()
            assert b.choose(view) == move
            checked += 1
    assert checked >= 2


def test_an_unknown_sim_is_refused() -> None:
    with pytest.raises(ValueError, match="sim must be one of king-aware, greedy"):
        _expert(0, sim="[b]wild[/b]")
