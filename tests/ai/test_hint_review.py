"""The hint and the review agree: a turn played as the hint says is never marked, the hint keeps
its plan through a turn unless a card was drawn, a real mistake is still reported, and the
better plan a review shows is one it rates better beyond its uncertainty."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

import ai.advice.review
from ai.advice.hint import HintAI, plan_states
from ai.advice.review import held_out_loss, mark_of, review_turn
from ai.search.planning import Rulebits, paired, sim_apply
from kc_tui.engine import END, Move, PlayerView, Round, Rules, mask_of, parse_card, play
from tests.ai.helpers import VARIANTS, follow_hint, midround_positions

NO_KINGS_ON_SIDES = Rules(kings_on_sides="forbid")


def _c(text: str) -> int:
    return parse_card(text)


def _heads_up(mine: Sequence[str], sides: Sequence[str | None], corners: Sequence[str | None], opp: int) -> Round:
    """Seat 0 to move (heads-up, kings only on corners) with ``mine`` and the table as given
    (None: empty); seat 1 holds ``opp`` cards of the rest, the stock the remainder."""
    piles: list[tuple[int, ...]] = [(_c(x),) if x else () for x in (*sides, *corners)]
    used = mask_of(_c(x) for x in (*mine, *sides, *corners) if x)
    rest = [c for c in range(52) if not (used >> c) & 1]
    hands = [mask_of(_c(x) for x in mine), mask_of(rest[:opp])]
    return Round.from_parts(NO_KINGS_ON_SIDES, hands, piles, rest[opp:], 0)


# ------------------------------------------------------------------ following the hint
@pytest.mark.parametrize("variant", [0, 13, 40, 47])
@pytest.mark.parametrize("seed", [1, 3])
def test_a_turn_played_as_the_hint_says_is_never_marked(variant: int, seed: int) -> None:
    # Two to four seats (the positions take turns), every step asked of the hint.
    rules = VARIANTS[variant]
    for k, (r, _seat) in enumerate(midround_positions(8, seed=seed, rules=rules)):
        view, plan, _told = follow_hint(HintAI(seed), r)
        rv = review_turn(view, plan, seed=seed, iterations=40)
        assert rv.mark == "good", f"position {k} ({view.n_players} seats): {rv.mark} {rv.loss_text}: {rv.why}"
        assert not rv.better_plan_exists and rv.best_plan == rv.played_plan


def test_the_hint_s_plan_is_named_as_such_in_the_review() -> None:
    r, _seat = midround_positions(1, seed=5)[0]
    view, plan, _told = follow_hint(HintAI(2), r)
    rv = review_turn(view, plan, seed=9, hint_seed=2)
    assert rv.mark == "good" and rv.why.startswith("The hint's plan.")


# ------------------------------------------------------------------ one plan a turn
def _expected_after(view: PlayerView, m: Move) -> tuple[int, tuple[tuple[int, ...], ...]]:
    h, p = sim_apply(view.hand_mask, view.piles, m, Rulebits(view).closed)
    return h, p


@pytest.mark.parametrize("variant", [0, 13, 21, 47])
def test_within_a_turn_the_next_hint_is_the_plan_s_next_step_unless_a_card_was_drawn(variant: int) -> None:
    continued = replanned = 0
    for k, (r, seat) in enumerate(midround_positions(30, seed=7, rules=VARIANTS[variant])):
        hint = HintAI(k)
        r = r.clone()
        before = r.view(seat)
        told = hint.advice(before)
        assert told.plan == HintAI(k).turn_plan(before), "the first hint of a turn is planned afresh"
        while told.move != END and not r.over:
            r.apply(told.move)
            if r.over or r.to_move != seat:
                break
            now = r.view(seat)
            nxt = hint.advice(now)
            if (now.hand_mask, now.piles) == _expected_after(before, told.move):
                assert nxt.plan == told.plan[1:], f"position {k}: the plan changed with nothing drawn"
                continued += 1
            else:  # a card was drawn (out with a side open: three more)
                assert nxt.plan == HintAI(k).turn_plan(now)
                replanned += 1
            before, told = now, nxt
    assert continued >= 20


def test_the_hint_plans_again_once_the_player_plays_something_else() -> None:
    for k, (r, seat) in enumerate(midround_positions(30, seed=11)):
        hint = HintAI(k)
        view = r.view(seat)
        told = hint.advice(view)
        other = [m for m in view.legal_moves() if m not in (END, told.move)]
        if not told.plan or not other:
            continue
        r = r.clone()
        r.apply(other[0])
        if r.over or r.to_move != seat:
            continue
        now = r.view(seat)
        assert hint.advice(now).plan == HintAI(k).turn_plan(now)


def test_the_hint_is_deterministic_for_its_seed_and_choose_agrees_with_advice() -> None:
    for k, (r, _seat) in enumerate(midround_positions(12, seed=13)):
        a = follow_hint(HintAI(k), r)
        assert follow_hint(HintAI(k), r) == a
        view = r.view(r.to_move)
        assert HintAI(k).choose(view) == HintAI(k).advice(view).move


def test_the_hint_s_plan_never_ends_with_a_free_play_left() -> None:
    from ai.advice.hint import free_plays, view_after

    for k, (r, seat) in enumerate(midround_positions(20, seed=17)):
        view = r.view(seat)
        plan = HintAI(k).turn_plan(view)
        h, p = plan_states(view, plan)[-1]
        if h:
            assert not free_plays(view_after(view, plan, h, p))


@pytest.mark.parametrize("variant", [0, 5, 16])
def test_the_hint_plans_its_later_steps_on_the_view_its_seat_will_have(variant: int) -> None:
    # R12 to_stock included: a completed pile goes to the stock, the card that completed it seen.
    from ai.advice.hint import view_after

    steps = 0
    for k, (r, seat) in enumerate(midround_positions(10, seed=3, rules=VARIANTS[variant])):
        view = r.view(seat)
        plan = HintAI(k).turn_plan(view)
        r = r.clone()
        for i, m in enumerate(plan):
            r.apply(m)
            h, p = plan_states(view, plan[: i + 1])[-1]
            if r.over or r.to_move != seat or r.hands[seat] != h:
                break  # out, or three cards drawn
            assert view_after(view, plan[: i + 1], h, p) == r.view(seat)
            steps += 1
    assert steps >= 10


# ------------------------------------------------------------------ a real mistake
def test_ending_the_turn_with_the_cards_the_hint_would_play_is_still_a_mistake() -> None:
    # K♡ fits an empty corner and 5♢ the 6♠ at N: the hint goes out. The opponent holds one
    # card and two sides are empty: ending the turn at once leaves eleven points to pay.
    view = _heads_up(["KH", "5D"], ["6S", "9C", None, None], ["KC", None, None, None], opp=1).view(0)
    hinted = HintAI(3).turn_plan(view)
    assert plan_states(view, hinted)[-1][0] == 0, "the hint goes out"
    rv = review_turn(view, (END,), seed=3, hint_seed=3)
    assert rv.mark == "mistake" and rv.better_plan_exists
    assert plan_states(view, rv.best_plan)[-1][0] == 0 and "going out was possible" in rv.why
    # Half the hint's plan and then the end of the turn is a mistake too.
    rv = review_turn(view, (hinted[0], END), seed=3, hint_seed=3)
    assert rv.mark == "mistake" and rv.why.startswith("Better: ")


# ------------------------------------------------------------------ the better plan shown
N = 40


def _noisy(even: float, odd: float, noisy_on_even: bool) -> list[float]:
    """A plan's gain over the played one on each of ``N`` deals: ``even`` on average on the even
    deals and ``odd`` on the odd ones, one of the halves swinging by 20 points a deal."""
    out = []
    for i in range(N):
        base = odd if i % 2 else even
        swing = 20.0 if (i // 2) % 2 else -20.0
        out.append(base + (swing if (i % 2 == 0) == noisy_on_even else 0.0))
    return out


def _review_with(
    monkeypatch: pytest.MonkeyPatch, gains: list[list[float]]
) -> tuple[Any, list[list[float]], dict[str, Any]]:
    """The review of a turn whose deals score the played plan 0 and the first other plans
    ``gains`` (the rest 0)."""
    view = _heads_up(["KH", "5D"], ["6S", "9C", None, None], ["KC", None, None, None], opp=1).view(0)
    seen: dict[str, Any] = {}

    def values(self: Any, v: PlayerView, plans: list[tuple[Move, ...]], played: int, it: int) -> list[list[float]]:
        others = [k for k in range(len(plans)) if k != played]
        rows = [[0.0] * N for _ in plans]
        for k, g in zip(others, gains, strict=False):
            rows[k] = g
        seen.update(plans=plans, others=others, played=played, rows=rows)
        return rows

    monkeypatch.setattr(ai.advice.review._Reviewer, "values", values)
    return review_turn(view, (play(_c("5D"), 0), END), seed=3), seen["rows"], seen


def test_the_better_plan_shown_is_better_beyond_the_review_s_uncertainty(monkeypatch: pytest.MonkeyPatch) -> None:
    # "wild" gains 3 points on average, so noisily that it is no better beyond two standard
    # errors; "steady" gains 2.5 points on every deal.
    wild, steady = _noisy(4.0, 2.0, noisy_on_even=True), [2.5] * N
    rv, rows, seen = _review_with(monkeypatch, [wild, steady])
    w, p = seen["others"][0], seen["played"]
    mean, se = paired(rows[w], rows[p])
    assert mean > 2.5 and mean <= 2 * se, "wild: the best mean, yet not significantly better"
    assert mark_of(*held_out_loss(rows, p)) == "mistake"
    assert rv.mark == "mistake" and rv.best_plan == seen["plans"][seen["others"][1]]


def test_a_loss_no_single_plan_shows_beyond_its_uncertainty_is_not_marked(monkeypatch: pytest.MonkeyPatch) -> None:
    # Each of two plans is picked on one half of the deals and gains 2.5 points on the other,
    # but on all the deals neither is better than the played one beyond two standard errors.
    a, b = _noisy(4.0, 2.5, noisy_on_even=True), _noisy(2.5, 4.0, noisy_on_even=False)
    rv, rows, seen = _review_with(monkeypatch, [a, b])
    p = seen["played"]
    assert mark_of(*held_out_loss(rows, p)) == "mistake"
    for k in seen["others"][:2]:
        mean, se = paired(rows[k], rows[p])
        assert mean <= 2 * se
    assert rv.mark == "good" and not rv.better_plan_exists
