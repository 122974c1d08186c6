"""The player's statistics (kc_tui/records/summaries.py): by opponent kind and table size, rounds sat out,
streaks, and the summary from the database equal to the one from the records."""

from __future__ import annotations

import dataclasses

import pytest

from kc_tui.engine import Rules
from kc_tui.records.store import History
from kc_tui.records.summaries import summarize
from tests.records.kit import made, play, record, rnd


# ---------------------------------------------------------------------- statistics
def test_summarize_counts_per_opponent_kind_and_table_size() -> None:
    matches = [
        # 2 players vs greedy: won (penalties 0 + 2), two rounds, one won, 3 hints
        made(
            1,
            ["human", "greedy"],
            [rnd(1, [0, 1], 0, [0, 7], hints=1), rnd(2, [1, 0], 1, [2, 0], hints=2)],
            winners=[0],
            totals=[2, 107],
            day=1,
        ),
        # 3 players vs greedy and expert: lost
        made(
            2,
            ["expert", "human", "greedy"],
            [rnd(1, [0, 1, 2], 0, [0, 12, 3], undos=4)],
            winners=[0],
            totals=[50, 112, 60],
            day=2,
        ),
        # a demo: left out
        made(3, ["greedy", "expert"], [rnd(1, [0, 1], 0, [0, 50])], winners=[0], day=3, demo=True),
        # an AI-only match that is not marked a demo: no player, left out
        made(4, ["greedy", "expert"], [rnd(1, [0, 1], 0, [0, 50])], winners=[0], day=3),
        # unfinished vs greedy: its round counts, not as a match
        made(5, ["human", "greedy"], [rnd(1, [0, 1], 1, [5, 0], hints=1)], day=4, finished=False),
    ]
    s = summarize(matches)
    groups = {(g.opponent, g.table_size): g for g in s.groups}
    assert sorted(groups) == [("expert", 3), ("greedy", 2), ("greedy", 3)]
    g2 = groups[("greedy", 2)]
    assert (g2.matches, g2.matches_won, g2.rounds, g2.rounds_won) == (1, 1, 3, 1)
    assert g2.penalty_total == 7 and g2.mean_penalty == pytest.approx(7 / 3)
    assert g2.hints_per_round == pytest.approx(4 / 3)
    assert g2.match_win_rate == 1.0 and g2.round_win_rate == pytest.approx(1 / 3)
    for key in (("greedy", 3), ("expert", 3)):  # a mixed table counts for each kind at it
        g = groups[key]
        assert (g.matches, g.matches_won, g.rounds, g.rounds_won, g.penalty_total, g.undos) == (1, 0, 1, 0, 12, 4)
    o = s.overall
    assert (o.matches, o.matches_won, o.rounds, o.rounds_won, o.penalty_total, o.hints) == (2, 1, 4, 1, 19, 4)
    assert s.unfinished == 1
    assert [p.match_id for p in s.points] == [1, 2]
    assert s.points[0].total == 2 and s.points[0].won and s.points[0].margin == 105
    assert s.points[1].total == 112 and not s.points[1].won and s.points[1].margin == -62
    assert s.best is not None and s.best.match_id == 1
    assert s.worst is not None and s.worst.match_id == 2


def test_summarize_leaves_out_rounds_the_player_sat_out_and_counts_chips_margins() -> None:
    m = made(
        1,
        ["greedy", "human", "expert"],
        [rnd(1, [0, 1, 2], 1, [4, 0, 2]), rnd(2, [0, 2], 0, [0, 0, 3])],
        winners=[1],
        totals=[30, 45, 0],
        scoring="chips",
    )
    s = summarize([m])
    assert (s.overall.rounds, s.overall.rounds_won, s.overall.penalty_total) == (1, 1, 0)
    assert s.points[0].margin == 15  # chips: more is better
    empty = summarize([])
    assert empty.overall.matches == 0 and empty.overall.mean_penalty == 0.0 and empty.best is None
    assert empty.current_streak == empty.longest_streak == 0


def test_summarize_streaks_follow_the_order_matches_ended() -> None:
    results = [True, True, False, True, True, True, False, True, True]
    matches = [
        made(i + 1, ["human", "greedy"], [], winners=[0] if won else [1], totals=[1, 2] if won else [2, 1], day=i)
        for i, won in enumerate(results)
    ]
    s = summarize(list(reversed(matches)))  # any order in
    assert s.longest_streak == 3 and s.current_streak == 2
    assert [p.won for p in s.points] == results
    shared = made(99, ["human", "greedy"], [], winners=[0, 1], totals=[5, 5], day=20)
    s = summarize([*matches, shared])
    assert s.current_streak == 3 and s.points[-1].won  # a shared win is a win


def test_the_summary_from_the_database_equals_summarize_of_the_records(history: History) -> None:
    for seed, kinds in enumerate((["greedy", "king-aware"], ["greedy", "greedy", "king-aware"]), start=1):
        record(history, play(kinds, seed))
    record(history, play(["greedy", "king-aware"], 3, Rules(scoring="chips")))
    record(history, play(["greedy", "greedy"], 4, human=None), finish=True)  # a demo
    half = play(["greedy", "greedy", "greedy"], 5)
    record(history, dataclasses.replace(half, rounds=half.rounds[:2]), finish=False)
    record(history, made(0, ["greedy", "expert"], [rnd(1, [0, 1], 0, [0, 50])], winners=[0], day=3))
    s = history.summary()
    full = [history.match(m.id) for m in history.matches()]
    assert s == summarize(history.matches(rounds=True)) == summarize([m for m in full if m is not None])
    assert s.overall.matches == 3 and s.unfinished == 1 and s.overall.rounds > 4
    assert history.problems == []
