"""A match record (seed + every round's moves) replays to the same match, finished or not."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from kc_tui.engine import Match, Rules
from kc_tui.engine.match import MatchRecordError

from .helpers import random_match, random_moves


@pytest.mark.parametrize("rules", [Rules(target=25), Rules(scoring="chips", chips_rounds=3, chips_per_card=True)])
def test_a_finished_match_record_replays(rules: Rules) -> None:
    m = Match(3, rules, seed=42)
    rng = random.Random(1)
    random_match(m, rng)
    doc = m.to_dict()
    again = Match.from_dict(doc)
    assert again.over and again.winners == m.winners
    assert again.totals == m.totals
    assert [r.to_dict() for r in again.results] == [r.to_dict() for r in m.results]


def test_a_match_record_in_the_middle_of_a_round_replays() -> None:
    m = Match(2, Rules(target=50), seed=7)
    rng = random.Random(2)
    random_moves(m.round, rng)
    m.finish_round()
    random_moves(m.round, rng, 5)
    again = Match.from_dict(m.to_dict())
    assert not again.over and again.number == 2
    assert again.round.history == m.round.history
    assert again.round.hands == m.round.hands and again.round.piles == m.round.piles


def test_rounds_recorded_after_the_end_are_refused() -> None:
    m = Match(2, Rules(target=10), seed=3)
    rng = random.Random(3)
    random_match(m, rng)
    doc = m.to_dict()
    doc["rounds"].append([1024])
    with pytest.raises(ValueError, match="after the match ended"):
        Match.from_dict(doc)


def _mid_match_doc() -> dict[str, Any]:
    m = Match(3, Rules(target=50), seed=9)
    rng = random.Random(4)
    random_moves(m.round, rng)
    m.finish_round()
    random_moves(m.round, rng, 4)
    return m.to_dict()


def _set(doc: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    node: Any = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return doc


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("seed",), True),
        (("seed",), 9.0),
        (("seed",), "9"),
        (("seed",), -1),
        (("seed",), 2**64),
        (("seed",), float("inf")),
        (("n_players",), 3.0),
        (("n_players",), True),
        (("n_players",), 5),
        (("first_dealer",), "0"),
        (("first_dealer",), 3),
        (("rounds",), None),
        (("rounds",), 5),
        (("rounds",), []),
        (("rounds", 0), None),
        (("rounds", 0), "1024"),
        (("rounds", 1, 0), float("inf")),
        (("rounds", 1, 0), True),
        (("rounds", 1, 0), 1024.0),
        (("rounds", 1, 0), -1),
        (("rounds", 1, 0), 1025),
        pytest.param(("rounds", 1, 0), 10**5000, id="huge-move"),
        (("results",), 5),
        (("results",), []),
        (("results", 0), None),
        (("results", 0, "totals"), None),
        (("results", 0, "totals", 0), 1.5),
        (("results", 0, "winner"), True),
        (("results", 0, "winner"), 7),
        (("results", 0, "seats"), [0, 0, 1]),
        (("results", 0, "number"), 2),
        pytest.param(("results", 0, "penalties", 0), 10**5000, id="huge-penalty"),
        (("rules",), {"target": 1e999}),
        (("rules",), {"target": [[[[1]]]]}),
        (("rules",), {"hand_size": 10}),  # another deal: the recorded moves do not replay
        (("extra",), 1),
    ],
)
def test_a_record_with_a_bad_field_is_refused_with_a_value_error(path: tuple[Any, ...], value: Any) -> None:
    doc = _set(_mid_match_doc(), path, value)
    with pytest.raises(MatchRecordError) as info:
        Match.from_dict(doc)
    assert str(info.value).isprintable()


def test_a_record_missing_a_field_is_refused() -> None:
    doc = _mid_match_doc()
    for key in ("n_players", "seed", "rules", "first_dealer", "rounds"):
        broken = copy.deepcopy(doc)
        del broken[key]
        with pytest.raises(MatchRecordError):
            Match.from_dict(broken)
    assert Match.from_dict(doc).round.history  # the untouched record replays


def test_a_round_going_on_after_it_ended_is_refused() -> None:
    doc = _mid_match_doc()
    doc["rounds"][0].append(1024)
    with pytest.raises(MatchRecordError, match="after it ended"):
        Match.from_dict(doc)


def test_replay_round_goes_back_to_any_move_of_the_current_round() -> None:
    doc = _mid_match_doc()
    m = Match.from_dict(doc)
    for k in range(len(m.replay_moves()) + 1):
        r = m.replay_round(k)
        assert [mv for _, mv in r.history] == m.replay_moves()[:k]
    whole = m.replay_round(len(m.replay_moves()))
    assert whole.hands == m.round.hands and whole.piles == m.round.piles and whole.stock == m.round.stock
    with pytest.raises(ValueError):
        m.replay_round(len(m.replay_moves()) + 1)
