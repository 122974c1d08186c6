"""A replay draws from the table's own view: at every position of a recorded round, the replay's
:class:`~kc_tui.match.view.TableSnapshot` is the one the table gave the same viewer at that
position (the piles, the stock, every seat's count, total and its label, the viewer's hand and
drawn card, the pot, the rounds scored), but what only a replay or only a live table has."""

from __future__ import annotations

import dataclasses

import pytest

from kc_tui.engine import Rules
from kc_tui.match.recorder import match_record
from kc_tui.match.replay import RoundReplay
from kc_tui.match.session import MatchSession
from kc_tui.match.table import TableDriver
from kc_tui.match.view import ReplayPlace, TableSnapshot, score_label

RULES = {
    "points": Rules(target=30),
    "chips": Rules(scoring="chips", chips_start=6, chips_per_card=True, chips_rounds=3),
}


def _shared(snap: TableSnapshot) -> TableSnapshot:
    """``snap`` without what only a live table says (the log as the table wrote it, the turns
    ended, whom it waits for) or only a replay (its place in the round)."""
    return dataclasses.replace(snap, log=(), turns_ended=0, waiting_for=None, replay=None)


def _played(rules: Rules, viewer: int | None) -> tuple[MatchSession, dict[int, list[TableSnapshot]]]:
    """A match of AIs played to its end by a table driver, and the table's snapshot for ``viewer``
    at every position of every round before its last move (by round number)."""
    driver = TableDriver(MatchSession.all_ai(["greedy", "king-aware", "greedy"], rules, seed=5))
    seen: dict[int, list[TableSnapshot]] = {}
    while not driver.over:
        if driver.round_over:
            driver.finish_round()
            continue
        snap = driver.snapshot(viewer)
        seen.setdefault(snap.round_number, []).append(snap)
        driver.decide(driver.ai_job().run())
    return driver.session, seen


@pytest.mark.parametrize("viewer", [None, 1])
@pytest.mark.parametrize("rules", list(RULES))
def test_every_position_of_a_replay_is_the_tables_view_of_it(rules: str, viewer: int | None) -> None:
    session, seen = _played(RULES[rules], viewer)
    record = match_record(session.match, session.seats, session.record)
    assert len(record.rounds) >= 2
    for number, table in seen.items():
        replay = RoundReplay.from_record(record, number, viewer)
        assert replay.length == len(table)  # the table's positions, the last one apart
        for position, shown in enumerate(table):
            replay.seek(position)
            snap = replay.snapshot()
            assert _shared(snap) == _shared(shown), (number, position)
            assert snap.replay == ReplayPlace(position, replay.length, replay.last_move, replay.turn, replay.turns)


@pytest.mark.parametrize("rules", list(RULES))
def test_the_replays_end_shows_the_round_scored_and_who_went_out(rules: str) -> None:
    session, _seen = _played(RULES[rules], None)
    record = match_record(session.match, session.seats, session.record)
    chips = RULES[rules].scoring == "chips"
    for rec in record.rounds:
        replay = RoundReplay.from_record(record, rec.number, None)
        replay.to_end()
        snap = replay.snapshot()
        assert snap.round_over and snap.round_winner == rec.winner and snap.to_move is None
        assert [row.scores for row in snap.results] == [
            r.chips_delta if chips else r.penalties for r in record.rounds[: rec.number]
        ]
        assert [s.winner for s in snap.seats] == [s == rec.winner for s in range(len(record.seats))]
        target = RULES[rules].target
        assert [s.score for s in snap.seats] == [score_label(t, chips=chips, target=target) for t in rec.totals]
