"""The review of a round against the expert: constructed positions where one plan is
clearly worse are marked, the expert's own plan is not, the round's summary, progress and cancel,
and the turns read from a recorded round."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from ai import make_player
from ai.advice.hint import explain, plan_states
from ai.advice.review import (
    GOOD_LOSS,
    MISTAKE_LOSS,
    TurnReview,
    held_out_loss,
    mark_of,
    match_turns,
    played_moves,
    review_round,
    review_turn,
    round_turns,
    summary_line,
)
from ai.players.expert import ExpertAI
from ai.search.planning import paired
from kc_tui.engine import END, Match, Move, PlayerView, Round, Rules, card_str, mask_of, parse_card, play
from tests.ai.helpers import midround_positions

NO_KINGS_ON_SIDES = Rules(kings_on_sides="forbid")
#: A small budget keeps the tests quick (the marks here are clear at a few dozen deals).
FAST = 48


def _c(text: str) -> int:
    return parse_card(text)


def _round(
    mine: Sequence[str],
    sides: Sequence[str | None],
    corners: Sequence[str | None],
    opp: int,
    rules: Rules | None = None,
) -> Round:
    """Seat 0 to move (heads-up) with ``mine``; the table's sides and corners as given (None:
    empty); seat 1 holds ``opp`` cards of the rest, the stock the remainder."""
    piles: list[tuple[int, ...]] = [(_c(x),) if x else () for x in (*sides, *corners)]
    used = mask_of(_c(x) for x in (*mine, *sides, *corners) if x)
    rest = [c for c in range(52) if not (used >> c) & 1]
    hands = [mask_of(_c(x) for x in mine), mask_of(rest[:opp])]
    return Round.from_parts(rules or Rules(), hands, piles, rest[opp:], 0)


def _go_out_position() -> PlayerView:
    """K♡ and 5♢ in hand: 5♢ fits 6♠ at N and K♡ an empty corner, so both can go and the round
    is won. Two sides are empty and the opponent holds one card (it draws one more): if we
    keep the king, it goes out first and we pay ten points. Kings go only to corners (R11)."""
    r = _round(["KH", "5D"], ["6S", "9C", None, None], ["KC", None, None, None], opp=1, rules=NO_KINGS_ON_SIDES)
    return r.view(0)


# ------------------------------------------------------------------ the marks
def test_keeping_a_king_when_going_out_was_possible_is_a_mistake() -> None:
    view = _go_out_position()
    kept = (play(_c("5D"), 0),)  # 5♢ on 6♠, K♡ kept
    rv = review_turn(view, (*kept, END), iterations=FAST, seed=3)
    assert rv.mark == "mistake" and not rv.forced
    assert rv.loss >= MISTAKE_LOSS and rv.loss > 2 * rv.loss_se
    assert rv.unit == "points" and rv.played_plan == kept
    # The better plan shown is the player's, carried on to go out: K♡ to the first empty corner.
    assert rv.best_plan == (play(_c("5D"), 0), play(_c("KH"), 5))
    assert plan_states(view, rv.best_plan)[-1][0] == 0
    assert rv.best_text == "play 5♢ on 6♠ at N, then put K♡ on the empty corner SE"
    assert "goes out" in rv.why and "K♡" in rv.why and "going out was possible" in rv.why
    assert rv.why.startswith("Better: ")
    assert explain(view, rv.best_plan) in rv.why  # the hint's words


def test_the_going_out_plan_itself_is_good_with_no_loss() -> None:
    view = _go_out_position()
    out = (play(_c("KH"), 5), play(_c("5D"), 0))
    rv = review_turn(view, out, iterations=FAST, seed=3)
    assert rv.mark == "good" and rv.loss == 0.0
    assert rv.best_plan == rv.played_plan == out
    assert rv.why.startswith("The expert's best plan")


@pytest.mark.parametrize("k", range(5))
def test_the_expert_s_own_plan_is_never_marked_a_mistake(k: int) -> None:
    r, seat = midround_positions(5, seed=21)[k]
    view = r.view(seat)
    expert = ExpertAI(4, iterations=FAST)
    plan = expert.plan_turn(view, view.legal_moves())
    rv = review_turn(view, plan, iterations=FAST, seed=4)
    assert rv.mark != "mistake"
    assert rv.mark == "good" or rv.loss < MISTAKE_LOSS


def test_the_expert_s_plan_in_the_go_out_position_loses_nothing() -> None:
    view = _go_out_position()
    plan = ExpertAI(4, iterations=FAST).plan_turn(view, view.legal_moves())
    rv = review_turn(view, plan, iterations=FAST, seed=4)
    assert rv.mark == "good" and rv.loss == 0.0 and rv.best_plan == plan


def test_a_turn_with_nothing_to_play_is_forced_and_good() -> None:
    # 2♢ fits nothing (no black three on top), no side and no corner is empty.
    r = _round(["2D"], ["6S", "9C", "9S", "4C"], ["KC", "KD", "KH", "KS"], opp=5)
    view = r.view(0)
    assert view.legal_moves() == [END]
    rv = review_turn(view, (END,))
    assert (rv.mark, rv.forced, rv.loss, rv.deals, rv.plans) == ("good", True, 0.0, 0, 1)
    assert rv.played_plan == rv.best_plan == ()


def test_the_review_is_deterministic_for_a_seed() -> None:
    view = _go_out_position()
    kept = (play(_c("5D"), 0),)
    a = review_turn(view, kept, iterations=FAST, seed=9)
    b = review_turn(view, kept, iterations=FAST, seed=9)
    assert a == b


def test_cards_in_the_review_s_words_follow_the_card_style() -> None:
    view = _go_out_position()
    rv = review_turn(view, (play(_c("5D"), 0),), iterations=FAST, seed=3, fmt=card_str)
    assert "KH" in rv.why and "♡" not in rv.why and "5D" in rv.best_text


def test_a_plan_that_is_not_legal_or_not_the_players_turn_is_refused() -> None:
    view = _go_out_position()
    with pytest.raises(ValueError, match="not legal"):
        review_turn(view, (play(_c("5D"), 1),))
    r = _round(["KH", "5D"], ["6S", "9C", None, None], ["KC", None, None, None], opp=1, rules=NO_KINGS_ON_SIDES)
    with pytest.raises(ValueError, match="on its turn"):
        review_turn(r.view(1), ())


def test_the_played_plan_is_cut_where_the_hand_empties() -> None:
    view = _go_out_position()
    out = (play(_c("KH"), 5), play(_c("5D"), 0))
    assert played_moves(view, (*out, END)) == out
    assert played_moves(view, (END, *out)) == ()


@pytest.mark.parametrize(
    ("loss", "se", "mark"),
    [
        (0.0, 0.0, "good"),
        (GOOD_LOSS - 0.01, 0.0, "good"),
        (3.0, 1.6, "good"),  # not significant at two standard errors
        (1.0, 0.1, "inaccuracy"),
        (MISTAKE_LOSS - 0.01, 0.2, "inaccuracy"),
        (MISTAKE_LOSS, 0.2, "mistake"),
        (12.0, 1.0, "mistake"),
    ],
)
def test_marks_follow_the_documented_thresholds(loss: float, se: float, mark: str) -> None:
    assert mark_of(loss, se) == mark


def test_the_held_out_loss_is_not_inflated_by_picking_the_best_of_noisy_plans() -> None:
    rng = random.Random(1)
    naives, helds = [], []
    for _ in range(200):
        # Six plans exactly as good as the played one (index 0), each with its own noise.
        values = [[rng.gauss(0.0, 5.0) for _ in range(48)] for _ in range(7)]
        means = [sum(v) / len(v) for v in values]
        naives.append(paired(values[max(range(7), key=lambda k: means[k])], values[0])[0])
        helds.append(held_out_loss(values, 0)[0])
    # The best of seven noisy means looks better than it is; held out, it is not.
    assert sum(naives) / 200 > 0.8
    assert abs(sum(helds) / 200) < 0.3
    # A plan truly three points better is found and measured.
    values = [[rng.gauss(0.0, 2.0) for _ in range(48)] for _ in range(7)]
    values[3] = [x + 3.0 for x in values[0]]
    held, se = held_out_loss(values, 0)
    assert held == pytest.approx(3.0, abs=2 * se + 1e-9)


# ------------------------------------------------------------------ the round
def _tr(mark: str, loss: float, unit: str = "points") -> TurnReview:
    return TurnReview(0, 0, (), (), loss, 0.1, mark, unit, "", "", "", 10, 2, False)


def test_the_summary_line_counts_mistakes_and_points_lost() -> None:
    assert summary_line([_tr("mistake", 2.5), _tr("good", 0.3), _tr("mistake", 3.6)], 3, False) == (
        "2 mistakes, about 6 points lost"
    )
    assert summary_line([_tr("good", 0.0), _tr("good", 0.2)], 2, False) == (
        "No mistakes: every turn as good as the expert's"
    )
    assert summary_line([_tr("inaccuracy", 1.2)], 1, False) == "No mistakes, 1 inaccuracy, about 1 point lost"
    assert summary_line([_tr("mistake", 4.0), _tr("inaccuracy", 0.6), _tr("inaccuracy", 1.0)], 3, False) == (
        "1 mistake, 2 inaccuracies, about 6 points lost"
    )
    assert summary_line([_tr("inaccuracy", 0.6, "chips")], 1, False) == "No mistakes, 1 inaccuracy, about 1 chip lost"
    assert (
        summary_line([_tr("mistake", 4.0)], 5, True)
        == "Review stopped after 1 of 5 turns: 1 mistake, about 4 points lost"
    )


def _recorded_round() -> tuple[Round, list[Move]]:
    """A heads-up round between greedy (seat 0) and lookahead, from its deal."""
    m = Match(2, Rules(), seed=5, first_dealer=1)
    start = m.round.clone()
    players = [make_player("greedy", 1), make_player("lookahead", 2, node_limit=150, samples=2, top=3)]
    r = m.round
    moves: list[Move] = []
    while not r.over:
        mv = players[r.to_move].choose(r.view(r.to_move))
        r.apply(mv)
        moves.append(mv)
    return start, moves


def test_review_round_reports_progress_and_a_summary() -> None:
    start, moves = _recorded_round()
    turns = round_turns(start, moves, 0)[:4]
    calls: list[tuple[int, int]] = []
    rr = review_round(turns, progress=lambda d, t: calls.append((d, t)), iterations=8, seed=1)
    assert calls == [(0, 4), (1, 4), (2, 4), (3, 4), (4, 4)]
    assert not rr.cancelled and rr.total == 4 and [t.index for t in rr.turns] == [0, 1, 2, 3]
    assert rr.summary == summary_line(rr.turns, 4, False)
    assert rr.mistakes == sum(t.mark == "mistake" for t in rr.turns)


def test_review_round_stops_when_cancelled_and_keeps_what_it_has() -> None:
    start, moves = _recorded_round()
    turns = round_turns(start, moves, 0)[:4]
    calls: list[tuple[int, int]] = []
    rr = review_round(
        turns, progress=lambda d, t: calls.append((d, t)), cancelled=lambda: len(calls) > 2, iterations=8, seed=1
    )
    assert rr.cancelled and len(rr.turns) == 2 and rr.total == 4
    assert calls == [(0, 4), (1, 4), (2, 4)]
    assert rr.summary.startswith("Review stopped after 2 of 4 turns: ")
    # The same turns as an uncancelled review's first two.
    full = review_round(turns[:2], iterations=8, seed=1)
    assert rr.turns == full.turns


def test_round_turns_are_each_turn_from_its_start_and_replay_the_round() -> None:
    start, moves = _recorded_round()
    for seat in (0, 1):
        turns = round_turns(start, moves, seat)
        assert turns
        for view, plan in turns:
            assert view.my_turn and view.seat == seat and not view.moved_this_turn
            assert played_moves(view, plan) == plan
    # Played on from the deal, the turns' plans (with their ends) give back the seat's moves.
    r = start.clone()
    mine: list[Move] = []
    for m in moves:
        if r.to_move == 0 and m != END:
            mine.append(m)
        r.apply(m)
    assert [m for _v, plan in round_turns(start, moves, 0) for m in plan] == mine


def test_match_turns_replay_a_recorded_match_with_its_standing() -> None:
    m = Match(2, Rules(), seed=8, first_dealer=0)
    players = [make_player("greedy", 1), make_player("greedy", 2)]
    rounds: list[list[Move]] = []
    for _ in range(2):
        moves: list[Move] = []
        while not m.round.over:
            mv = players[m.round.to_move].choose(m.round.view(m.round.to_move))
            m.round.apply(mv)
            moves.append(mv)
        rounds.append(moves)
        m.finish_round()
    assert not m.over
    first = m.results[0].totals
    turns = match_turns(2, Rules(), 8, 0, rounds, 2, 1)
    assert turns
    for view, plan in turns:
        assert view.standing is not None and view.standing.totals == tuple(first)  # after round 1
        assert view.seat == m.results[1].seats.index(1) and played_moves(view, plan) == plan
    with pytest.raises(ValueError, match="not recorded"):
        match_turns(2, Rules(), 8, 0, rounds, 3, 1)
