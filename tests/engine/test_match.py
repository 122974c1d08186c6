"""A match record (seed + every round's moves) replays to the same match, finished or not."""

from __future__ import annotations

import random

import pytest

from kc_tui.engine import Match, Rules


def _play_round(m: Match, rng: random.Random) -> None:
    while not m.round.over:
        ms = m.round.legal_moves()
        m.round.apply(ms[rng.randrange(len(ms))])


@pytest.mark.parametrize("rules", [Rules(target=25), Rules(scoring="chips", chips_rounds=3, chips_per_card=True)])
def test_a_finished_match_record_replays(rules: Rules) -> None:
    m = Match(3, rules, seed=42)
    rng = random.Random(1)
    while not m.over:
        _play_round(m, rng)
        m.finish_round()
    doc = m.to_dict()
    again = Match.from_dict(doc)
    assert again.over and again.winners == m.winners
    assert again.totals == m.totals
    assert [r.to_dict() for r in again.results] == [r.to_dict() for r in m.results]


def test_a_match_record_in_the_middle_of_a_round_replays() -> None:
    m = Match(2, Rules(target=50), seed=7)
    rng = random.Random(2)
    _play_round(m, rng)
    m.finish_round()
    for _ in range(5):
        ms = m.round.legal_moves()
        m.round.apply(ms[rng.randrange(len(ms))])
    again = Match.from_dict(m.to_dict())
    assert not again.over and again.number == 2
    assert again.round.history == m.round.history
    assert again.round.hands == m.round.hands and again.round.piles == m.round.piles


def test_rounds_recorded_after_the_end_are_refused() -> None:
    m = Match(2, Rules(target=10), seed=3)
    rng = random.Random(3)
    while not m.over:
        _play_round(m, rng)
        m.finish_round()
    doc = m.to_dict()
    doc["rounds"].append([1024])
    with pytest.raises(ValueError, match="after the match ended"):
        Match.from_dict(doc)
