"""The engine's explanations and scores that the UI shows as they are: what an empty place takes
(R10, R11), the penalty breakdown (R15), and whether scoring a round ends the match (R15, R16)."""

from __future__ import annotations

import random

import pytest

from kc_tui.engine import (
    CORNERS,
    KINGS_MASK,
    SIDES,
    Match,
    Round,
    Rules,
    card_str,
    mask_of,
    parse_card,
    penalty_of,
)
from kc_tui.engine.legal import empty_place_takes, explain_illegal, generate_moves
from kc_tui.engine.match import (
    KING_PENALTY,
    RESULT_KEYS,
    RoundResult,
    chips_match_over,
    penalty_breakdown,
    target_reached,
)
from kc_tui.engine.moves import MOVE_BASE
from kc_tui.engine.player_view import PlayerView

from .helpers import random_match, random_moves

EMPTY_TABLE: tuple[tuple[int, ...], ...] = ((),) * 8


def _hand(*texts: str) -> int:
    return mask_of([parse_card(t) for t in texts])


# ---------------------------------------------------------------------- R10 / R11
@pytest.mark.parametrize("kings_on_sides", ["allow", "forbid"])
def test_R10_an_empty_corner_takes_a_king_only(kings_on_sides: str) -> None:
    rules = Rules(kings_on_sides=kings_on_sides)
    hand = _hand("KH", "QS", "5D")
    moves = generate_moves(hand, EMPTY_TABLE, kings_on_sides == "allow", False)
    for place in range(4, 8):
        assert place in CORNERS
        assert empty_place_takes(place, rules) == "K only"
        # ...and the move rules agree: only the king may start the corner.
        onto = {m >> 3 for m in moves if m < MOVE_BASE and m & 7 == place}
        assert onto == {parse_card("KH")}
        assert explain_illegal(hand, EMPTY_TABLE, rules, (parse_card("QS") << 3) | place) is not None


def test_R11_an_empty_side_takes_any_card_when_kings_may_fill_sides() -> None:
    rules = Rules(kings_on_sides="allow")
    hand = _hand("KH", "QS")
    for place in range(4):
        assert place in SIDES
        assert empty_place_takes(place, rules) == "any card"
        assert explain_illegal(hand, EMPTY_TABLE, rules, (parse_card("KH") << 3) | place) is None
        assert explain_illegal(hand, EMPTY_TABLE, rules, (parse_card("QS") << 3) | place) is None


def test_R11_an_empty_side_takes_any_card_but_a_king_when_kings_may_not_fill_sides() -> None:
    rules = Rules(kings_on_sides="forbid")
    hand = _hand("KH", "QS")
    for place in range(4):
        assert empty_place_takes(place, rules) == "any card but K"
        reason = explain_illegal(hand, EMPTY_TABLE, rules, (parse_card("KH") << 3) | place, card_str)
        assert reason is not None and "(R11)" in reason
        assert explain_illegal(hand, EMPTY_TABLE, rules, (parse_card("QS") << 3) | place) is None


@pytest.mark.parametrize("place", [-1, 8, 99])
def test_R10_a_place_that_is_not_on_the_table_is_refused(place: int) -> None:
    with pytest.raises(ValueError, match="not one of the 8 places"):
        empty_place_takes(place, Rules())


# ---------------------------------------------------------------------- R15 breakdown
def test_R15_penalty_breakdown_counts_cards_kings_and_points() -> None:
    assert penalty_breakdown(0) == (0, 0, 0)
    assert penalty_breakdown(_hand("KH", "KS", "2C", "QD", "AH")) == (5, 2, 2 * KING_PENALTY + 3)
    assert penalty_breakdown(_hand("7C")) == (1, 0, 1)
    assert penalty_breakdown(KINGS_MASK) == (4, 4, 4 * KING_PENALTY)


@pytest.mark.parametrize(
    "rules", [Rules(target=25), Rules(scoring="chips", chips_rounds=4, chips_per_card=True)], ids=["points", "chips"]
)
def test_R15_a_round_result_carries_every_seats_cards_and_kings_left(rules: Rules) -> None:
    m = Match(3, rules, seed=11)
    rng = random.Random(5)
    while not m.over:
        random_moves(m.round, rng)
        r = m.round
        left = {m.match_seat(i): r.hands[i] for i in range(r.n)}
        res = m.finish_round()
        for seat in range(m.n):
            hand = left.get(seat, 0)
            cards, kings = hand.bit_count(), (hand & KINGS_MASK).bit_count()
            assert res.cards_left[seat] == cards
            assert res.kings_left[seat] == kings
            assert res.penalty_parts(seat) == (kings, cards - kings)
            assert res.penalties[seat] == penalty_of(hand) == KING_PENALTY * kings + (cards - kings)


def test_R15_a_saved_result_records_no_hands_and_old_saves_still_replay() -> None:
    m = Match(2, Rules(target=30), seed=3)
    rng = random.Random(9)
    random_match(m, rng)
    doc = m.to_dict()
    for rec in doc["results"]:
        assert set(rec) == RESULT_KEYS  # the save format is unchanged
    again = Match.from_dict(doc)
    assert [r.cards_left for r in again.results] == [r.cards_left for r in m.results]  # from the replay
    read = RoundResult.from_dict(doc["results"][0], 2)
    assert read.cards_left == () and read.penalty_parts(0) == (0, 0)
    assert read.record_equals(m.results[0])
    assert not read.record_equals(m.results[-1]) or len(m.results) == 1


# ---------------------------------------------------------------------- match end
def test_R15_the_match_ends_once_a_total_reaches_the_target() -> None:
    rules = Rules(target=25)
    assert not target_reached([0, 24, 3], rules)
    assert target_reached([0, 25, 3], rules)
    assert target_reached([40, 0], rules)


def test_R16_a_chips_match_ends_with_one_holder_or_after_its_rounds() -> None:
    rules = Rules(scoring="chips", chips_rounds=5)
    assert not chips_match_over([False, False, True], 4, rules)
    assert chips_match_over([False, True, True], 1, rules)
    assert chips_match_over([False, False], 5, rules)


@pytest.mark.parametrize(
    "rules",
    [Rules(target=25), Rules(target=5), Rules(scoring="chips", chips_rounds=3, chips_start=3, chips_per_card=True)],
    ids=["points-25", "points-5", "chips"],
)
@pytest.mark.parametrize("seed", range(4))
def test_R15_R16_finishing_ends_match_foretells_what_finish_round_does(rules: Rules, seed: int) -> None:
    m = Match(3, rules, seed=seed)
    rng = random.Random(seed)
    while not m.over:
        assert not m.finishing_ends_match()  # the round goes on
        random_moves(m.round, rng)
        before = (list(m.totals), list(m.out), m.pot, len(m.results))
        foretold = m.finishing_ends_match()
        assert (list(m.totals), list(m.out), m.pot, len(m.results)) == before  # nothing changed
        m.finish_round()
        assert m.over == foretold
    assert not m.finishing_ends_match()


# ---------------------------------------------------------------------- the seat's view
def test_R4_a_seats_view_is_the_same_from_the_round_and_from_PlayerView_of() -> None:
    r = Round.deal(3, Rules(), seed=4)
    for seat in range(3):
        assert PlayerView.of(r, seat) == r.view(seat)
    with pytest.raises(ValueError, match="out of range"):
        r.view(3)
