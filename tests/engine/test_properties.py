"""Property tests over seeded random rounds: every variant, 2, 3 and 4 players.

Random play picks a uniformly random legal move (``end`` included); some rounds use the
first legal move instead.  After every move: the 52 cards are all there exactly once, every
legal move applies, random illegal moves are refused and change nothing, and the round ends.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kc_tui.engine import (
    END,
    IllegalMove,
    MoveError,
    PlayerView,
    Round,
    RoundOver,
    Rules,
    cards_of,
    determinize,
    is_king,
    is_play,
    parse_move,
    play_card,
)
from kc_tui.engine.rules import CHOICES

from .helpers import all_rule_combos, hidden_from, invariant_problems, snapshot

MAX_DECISIONS = 20_000
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

rules_strategy = st.builds(
    Rules,
    **{key: st.sampled_from(values) for key, values in CHOICES.items()},
    chips_per_card=st.booleans(),
)
players_strategy = st.sampled_from([2, 3, 4])
seeds = st.integers(min_value=0, max_value=2**40)


def _pick(r: Round, rng: random.Random, policy: str) -> int:
    ms = r.legal_moves()
    return ms[0] if policy == "first" else ms[rng.randrange(len(ms))]


def _played_randomly(r: Round, seed: int) -> Iterator[int]:
    """Play ``r`` to its end by random legal moves (seeded by ``seed``); before each move, yield
    how many were made."""
    rng = random.Random(seed)
    k = 0
    while not r.over:
        yield k
        r.apply(_pick(r, rng, "random"))
        k += 1


def _random_move_text(rng: random.Random) -> str:
    ranks = ["A", "2", "5", "9", "10", "T", "J", "Q", "K", "1", "11", "X", ""]
    suits = ["C", "D", "H", "S", "c", "h", "♠", "Z", ""]
    places = ["N", "E", "S", "W", "NE", "SE", "SW", "NW", "ne", "X", "", "N E"]
    kind = rng.randrange(5)
    if kind <= 1:
        return f"play {rng.choice(ranks)}{rng.choice(suits)} {rng.choice(places)}"
    if kind == 2:
        return f"move {rng.choice(places)} {rng.choice(places)}"
    if kind == 3:
        return rng.choice(["end", "END", "end now", "pass", "", "play", "move N", "play KS NE extra"])
    return "".join(rng.choice("playmoveNESW 7HKS") for _ in range(rng.randrange(12)))


def _check_step(r: Round, rng: random.Random) -> None:
    """All the per-position checks: invariants, legal moves apply, illegal ones are refused."""
    assert invariant_problems(r) == []
    legal = r.legal_moves()
    legal_set = set(legal)
    assert len(legal) == len(legal_set), "no move listed twice"
    assert legal[-1] == END
    for m in legal:
        child = r.clone()
        child.apply(m)  # every listed move applies
        assert invariant_problems(child) == []
    before = snapshot(r)
    for _ in range(6):
        m = rng.randrange(-3, 1030)
        if m in legal_set:
            continue
        assert not r.is_legal(m)
        with pytest.raises(IllegalMove):
            r.apply(m)
        assert snapshot(r) == before
    for _ in range(4):
        text = _random_move_text(rng)
        try:
            m = parse_move(text)
        except MoveError:
            continue
        if m in legal_set:
            continue
        with pytest.raises(IllegalMove):
            r.apply(m)
        assert snapshot(r) == before, text


def _play(r: Round, rng: random.Random, policy: str, each_step: Any = None) -> int:
    decisions = 0
    while not r.over:
        assert decisions < MAX_DECISIONS, "the round did not end"
        if each_step is not None:
            each_step(r)
        r.apply(_pick(r, rng, policy))
        decisions += 1
    return decisions


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rules_strategy, n=players_strategy, seed=seeds, policy=st.sampled_from(["random", "first"]))
def test_random_rounds_keep_every_invariant(rules: Rules, n: int, seed: int, policy: str) -> None:
    r = Round.deal(n, rules, seed=seed, dealer=seed % n)
    rng = random.Random(seed)
    _play(r, rng, policy, lambda s: _check_step(s, rng))
    # over: nothing is legal, every move (end too) is refused and changes nothing
    assert invariant_problems(r) == []
    assert r.legal_moves() == []
    before = snapshot(r)
    for m in (END, 0, 517, rng.randrange(1100)):
        with pytest.raises(RoundOver):
            r.apply(m)
    assert snapshot(r) == before


@FAST
@given(rules=rules_strategy, n=players_strategy, seed=seeds)
def test_replay_from_the_seed_reproduces_the_round(rules: Rules, n: int, seed: int) -> None:
    r = Round.deal(n, rules, seed=seed, dealer=seed % n)
    rng = random.Random(seed ^ 0xABC)
    states = []
    while not r.over:
        states.append(snapshot(r))
        r.apply(_pick(r, rng, "random" if rng.random() < 0.8 else "first"))
    moves = [m for _, m in r.history]
    again = Round.replay(n, rules, seed, seed % n, moves)
    assert snapshot(again) == snapshot(r)
    # and every intermediate position along the way is the same too
    step = Round.deal(n, rules, seed=seed, dealer=seed % n)
    for k, m in enumerate(moves):
        assert snapshot(step) == states[k]
        step.apply(m)


def _assert_invariants(r: Round) -> None:
    assert invariant_problems(r) == [], r.rules


@pytest.mark.parametrize("n", [2, 3, 4])
def test_every_variant_combination_plays_to_the_end(n: int) -> None:
    """Each of the 96 combinations of word settings, one random and one first-move round each."""
    for k, rules in enumerate(all_rule_combos()):
        for policy in ("random", "first"):
            seed = 10_000 * n + 2 * k + (policy == "first")
            r = Round.deal(n, rules, seed=seed, dealer=k % n)
            rng = random.Random(seed)
            _play(r, rng, policy, _assert_invariants)
            assert invariant_problems(r) == []
            again = Round.replay(n, rules, seed, k % n, [m for _, m in r.history])
            assert (again.over, again.winner, again.hands, again.piles) == (r.over, r.winner, r.hands, r.piles)


@settings(max_examples=40, deadline=None)
@given(rules=rules_strategy, n=players_strategy, seed=seeds)
def test_legal_moves_and_why_illegal_agree_on_the_whole_move_space(rules: Rules, n: int, seed: int) -> None:
    r = Round.deal(n, rules, seed=seed, dealer=seed % n)
    for k in _played_randomly(r, seed):
        if k % 7 == 0:
            legal = set(r.legal_moves())
            for m in range(-2, 1100):
                assert r.is_legal(m) == (m in legal), m
                assert (r.why_illegal(m) is None) == (m in legal), m


# ------------------------------------------------------------------ views (R4) and determinize


ALLOWED_TYPES = (int, bool, str, type(None))


def _walk(value: Any, path: str, found: list[tuple[str, Any]]) -> None:
    """Everything reachable from a view's fields; lists, dicts and rounds must not appear."""
    if isinstance(value, ALLOWED_TYPES):
        found.append((path, value))
    elif isinstance(value, tuple):
        for i, v in enumerate(value):
            _walk(v, f"{path}[{i}]", found)
    elif isinstance(value, Rules):
        for f in dataclasses.fields(value):
            _walk(getattr(value, f.name), f"{path}.{f.name}", found)
    else:
        raise AssertionError(f"{path}: a view must hold only plain values, found {type(value).__name__}")


def _shuffle_hidden(r: Round, seat: int, rng: random.Random) -> Round:
    """The same position with the cards ``seat`` cannot see dealt again at random."""
    other = r.clone()
    pool = cards_of(hidden_from(r, seat))
    rng.shuffle(pool)
    for s in range(r.n):
        if s == seat:
            continue
        size = r.hands[s].bit_count()
        other.hands[s] = sum(1 << x for x in pool[:size])
        pool = pool[size:]
    other.stock = pool
    return other


def _check_view(r: Round, seat: int, ever_on_table: int, rng: random.Random) -> None:
    v = r.view(seat)
    assert isinstance(v, PlayerView)
    found: list[tuple[str, Any]] = []
    for f in dataclasses.fields(v):
        _walk(getattr(v, f.name), f.name, found)
    hidden = hidden_from(r, seat)
    assert v.hand_mask == r.hands[seat]
    assert v.hand_mask & hidden == 0
    assert v.stock_size == len(r.stock) and v.hand_sizes == tuple(r.hand_sizes())
    for p in v.piles:
        for x in p:
            assert not (hidden >> x) & 1
    if v.last_drawn is not None:
        assert not (hidden >> v.last_drawn) & 1 or (ever_on_table >> v.last_drawn) & 1
    assert v.seen_mask & ~ever_on_table == 0, "seen cards are only cards that were face up"
    for _, m in v.history:
        if m != END and is_play(m):
            assert (ever_on_table >> play_card(m)) & 1, "a played card was face up"
    # the strongest form: dealing the hidden cards differently changes nothing in the view
    assert _shuffle_hidden(r, seat, rng).view(seat) == v


@FAST
@given(rules=rules_strategy, n=players_strategy, seed=seeds)
def test_a_player_view_holds_no_hidden_card(rules: Rules, n: int, seed: int) -> None:
    r = Round.deal(n, rules, seed=seed, dealer=seed % n)
    rng = random.Random(seed)
    ever = 0
    k = 0
    while True:
        for p in r.piles:
            for x in p:
                ever |= 1 << x
        if k % 5 == 0 or r.over:
            for seat in range(n):
                _check_view(r, seat, ever, rng)
        if r.over:
            break
        m = _pick(r, rng, "random")
        if is_play(m):
            ever |= 1 << play_card(m)  # face up even if it completes a pile that leaves at once (R12)
        r.apply(m)
        k += 1
        assert k < MAX_DECISIONS


def _check_determinize(r: Round, seat: int, seed: int) -> None:
    v = r.view(seat)
    d = determinize(v, seed)
    assert invariant_problems(d) == []
    assert d.n == r.n and d.rules == r.rules
    assert d.hands[seat] == r.hands[seat]
    assert d.hand_sizes() == r.hand_sizes()
    assert d.piles == r.piles
    assert len(d.stock) == len(r.stock)
    assert (d.to_move, d.over, d.winner, d.idle_turns) == (r.to_move, r.over, r.winner, r.idle_turns)
    assert hidden_from(d, seat) == hidden_from(r, seat), "the guessed hidden cards are exactly the unseen ones"
    if r.to_move == seat:
        assert d.legal_moves() == r.legal_moves()
    again = determinize(v, seed)
    assert (again.hands, again.stock) == (d.hands, d.stock), "seeded"
    # a guess shares nothing mutable with the real round
    assert d.hands is not r.hands and d.piles is not r.piles and d.stock is not r.stock
    # with a preference, opponents get the preferred cards first
    d2 = determinize(v, seed, allowed=lambda s, x: not is_king(x))
    assert invariant_problems(d2) == []
    unseen = hidden_from(r, seat)
    non_kings = sum(1 for x in cards_of(unseen) if not is_king(x))
    need = sum(r.hand_sizes()) - r.hand_sizes()[seat]
    if non_kings >= need:
        for s in range(r.n):
            if s != seat:
                assert not any(is_king(x) for x in cards_of(d2.hands[s]))


@FAST
@given(rules=rules_strategy, n=players_strategy, seed=seeds)
def test_determinize_deals_are_consistent_with_the_view(rules: Rules, n: int, seed: int) -> None:
    r = Round.deal(n, rules, seed=seed, dealer=seed % n)
    for k in _played_randomly(r, seed):
        if k % 6 == 0:
            _check_determinize(r, k % n, seed + k)
            _check_determinize(r, r.to_move, seed + k + 1)
    _check_determinize(r, 0, seed)


def test_determinize_varies_with_the_seed() -> None:
    r = Round.deal(4, Rules(), seed=77)
    v = r.view(0)
    deals = {tuple(determinize(v, s).hands) for s in range(10)}
    assert len(deals) > 1


# ------------------------------------------------------------------ the move space


def test_every_int_outside_the_move_space_is_refused_without_a_crash() -> None:
    r = Round.deal(3, Rules(), seed=5)
    before = snapshot(r)
    legal = set(r.legal_moves())
    for m in [*range(-5, 1200), 2**40, -(2**40)]:
        if m in legal:
            continue
        with pytest.raises(IllegalMove):
            r.apply(m)
        assert r.why_illegal(m)
    assert snapshot(r) == before
    for bad in ["end", None, 3.5, (1, 2)]:
        with pytest.raises(IllegalMove):
            r.apply(bad)  # type: ignore[arg-type]
    assert snapshot(r) == before


# ------------------------------------------------------------------ whole matches (R5, R15, R16)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rules=rules_strategy,
    n=players_strategy,
    seed=seeds,
    target=st.sampled_from([10, 25, 50]),
    chips_start=st.sampled_from([2, 5, 50]),
)
def test_random_matches_conserve_chips_rotate_the_deal_and_replay(
    rules: Rules, n: int, seed: int, target: int, chips_start: int
) -> None:
    from kc_tui.engine import Match

    rules = rules.with_(target=target, chips_start=chips_start, chips_rounds=6)
    m = Match(n, rules, seed=seed)
    rng = random.Random(seed)
    chips = rules.scoring == "chips"
    for _ in range(200):
        if chips:
            assert sum(m.chips) + m.pot == n * chips_start, "chips are only ever moved, never made or lost"
            assert all(x >= 0 for x in m.chips)
        dealer_before = m.dealer
        points_before = list(m.points)
        _play(m.round, rng, "random")
        res = m.finish_round()
        assert res.dealer == dealer_before
        if not chips:
            assert all(a >= b for a, b in zip(m.points, points_before, strict=True))
        if m.over:
            break
        # R5: the deal passes clockwise to the next seat still in the match
        k = 1
        while m.out[(dealer_before + k) % n]:
            k += 1
        assert m.dealer == (dealer_before + k) % n
    assert m.over
    assert m.winners and all(0 <= w < n for w in m.winners)
    totals = m.totals
    best = max(totals) if chips else min(totals)
    assert m.winners == [s for s in range(n) if totals[s] == best]
    if chips:
        assert sum(m.chips) + m.pot == n * chips_start
    again = Match.from_dict(m.to_dict())
    assert [r.to_dict() for r in again.results] == [r.to_dict() for r in m.results]
    assert again.totals == m.totals
