"""What a player sees of the chips (R16) and the points (R15) during a match: the stacks and the
pot as they are now (:meth:`Match.live_chips`, :meth:`Match.live_pot`), and what a round result
tells of the chips and hands (ante, fines, the pot, the cards left), without changing what the
match computes or records."""

from __future__ import annotations

import random

import pytest

from kc_tui.engine import END, Match, Rules
from kc_tui.engine.match import RESULT_KEYS

from .helpers import random_match


def _random_move(m: Match, rng: random.Random) -> None:
    ms = m.round.legal_moves()
    m.round.apply(ms[rng.randrange(len(ms))])


def test_r16_the_ante_leaves_every_stack_at_the_deal_and_is_in_the_pot() -> None:
    m = Match(3, Rules(scoring="chips", chips_start=20), seed=1)
    assert m.ante == (1, 1, 1)
    assert m.live_chips() == [19, 19, 19]
    assert m.live_pot() == 3


def test_r16_a_turn_ended_without_playing_a_card_costs_a_chip_at_once() -> None:
    m = Match(3, Rules(scoring="chips", chips_start=20), seed=1)
    seat = m.match_seat(m.round.to_move)
    before, pot = m.live_chips(), m.live_pot()
    m.round.apply(END)  # R16: no card played from hand this turn
    after = m.live_chips()
    assert after[seat] == before[seat] - 1
    assert [a for s, a in enumerate(after) if s != seat] == [b for s, b in enumerate(before) if s != seat]
    assert m.live_pot() == pot + 1
    # Only what is shown changed: the match counts the fine when the round is scored.
    assert m.chips == [19, 19, 19] and m.pot == 3


def test_r16_a_fine_is_shown_paid_only_as_far_as_the_stack_goes() -> None:
    m = Match(2, Rules(scoring="chips", chips_start=2), seed=5)
    seat = m.match_seat(m.round.to_move)
    ends = 0
    while not m.round.over and ends < 3:
        if m.match_seat(m.round.to_move) == seat:
            ends += 1
        m.round.apply(END)
    assert m.round.fines[m.round_seat(seat) or 0] >= 2
    assert m.live_chips()[seat] == 0  # 1 chip after the ante: one fine takes it all
    assert m.live_pot() + sum(m.live_chips()) == 4


@pytest.mark.parametrize("per_card", [False, True])
def test_r16_live_stacks_and_pot_always_add_up_and_meet_the_scored_ones(per_card: bool) -> None:
    """Every move keeps the chips on the table; after a round the stacks shown at the next deal
    are the totals the round recorded less that deal's ante (R16)."""
    rules = Rules(scoring="chips", chips_start=6, chips_per_card=per_card, chips_rounds=8)
    for seed in range(4):
        m = Match(3, rules, seed=seed)
        rng = random.Random(seed)
        chips_on_table = 3 * 6
        previous = [6, 6, 6]
        while not m.over:
            while not m.round.over:
                _random_move(m, rng)
                assert sum(m.live_chips()) + m.live_pot() == chips_on_table
                assert all(x >= 0 for x in m.live_chips())
            res = m.finish_round()
            ante_next = m.ante_after(res.number)
            shown = m.live_chips()
            for s in range(3):
                # The round: its ante out, its fines (and cards) paid, the pot won.
                assert res.totals[s] == previous[s] - res.ante[s] - res.chips_paid(s) + res.chips_won(s)
                assert res.chips_delta[s] == res.chips_won(s) - res.chips_paid(s)
                assert shown[s] == res.totals[s] - ante_next[s]
                assert res.chips_paid(s) >= min(res.fines[s], previous[s] - res.ante[s])
            assert res.pot == sum(res.chips_won(s) for s in range(3)) or res.winner is None
            previous = list(res.totals)
            assert sum(shown) + m.live_pot() == chips_on_table
        # After the match: nothing more is taken; what is shown is the final totals.
        assert m.live_chips() == m.totals and m.ante_after(len(m.results)) == (0, 0, 0)


def test_r16_a_blocked_round_leaves_its_pot_for_the_next() -> None:
    m = Match(2, Rules(scoring="chips", chips_start=30), seed=3)
    while not m.round.over:
        m.round.apply(END)  # nobody plays: the round blocks (R14)
    res = m.finish_round()
    assert res.winner is None
    assert res.pot == 2 + sum(res.fines)
    assert all(res.chips_won(s) == 0 for s in range(2))
    assert m.live_pot() == res.pot + 2  # what stayed, and the next deal's antes


def test_r15_points_show_the_totals_and_no_pot() -> None:
    m = Match(3, Rules(target=30), seed=2)
    rng = random.Random(2)
    while not m.over:
        while not m.round.over:
            _random_move(m, rng)
            assert m.live_chips() == m.totals and m.live_pot() == 0
        res = m.finish_round()
        assert res.ante == (0, 0, 0) and res.pot == 0
        assert m.ante_after(res.number) == (0, 0, 0)


def test_a_result_carries_the_cards_left_in_every_hand() -> None:
    m = Match(3, Rules(scoring="chips"), seed=9)
    rng = random.Random(9)
    while not m.round.over:
        _random_move(m, rng)
    hands = {m.match_seat(i): h for i, h in enumerate(m.round.hands)}
    res = m.finish_round()
    for s in range(3):
        assert res.hands_left[s] == hands[s]
        assert res.hands_left[s].bit_count() == res.cards_left[s]


def test_what_is_shown_is_not_recorded_and_replays_the_same() -> None:
    """The derived fields stay out of the record (old saves keep loading), and a replay derives
    them again exactly (R16)."""
    m = Match(3, Rules(scoring="chips", chips_start=8, chips_rounds=4), seed=11)
    rng = random.Random(11)
    random_match(m, rng)
    for res in m.results:
        assert set(res.to_dict()) == RESULT_KEYS
    again = Match.from_dict(m.to_dict())
    assert again.results == m.results
    assert again.live_chips() == m.live_chips() and again.live_pot() == m.live_pot()
