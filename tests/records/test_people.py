"""The history per person (kc_tui/records/store.py, summaries.py, schema.py): a version 3 file made by the
game before migrated with its statistics kept, several humans at one table, each person's own
statistics and matches."""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

from kc_tui.records.rows import MatchRecord, SeatInfo
from kc_tui.records.schema import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION
from kc_tui.records.store import History
from kc_tui.records.summaries import GroupStats, people_of, summarize
from tests.records.kit import made, rnd, schema

#: The rows of a history as the game of schema version 3 wrote it (``iterdump`` of its file):
#: five matches with "You" as the human (two seats, three seats with "You" at seat 1, chips, one
#: unfinished, one demo), every round with its moves, and the results it kept in the
#: ``player_*`` columns.
V3_ROWS = Path(__file__).with_name("v3_history.sql")


def _v3_file(p: Path) -> None:
    """The version 3 file: the schema of versions 1 to 3 (their scripts), then its rows."""
    p.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(p, isolation_level=None)
    for v in (1, 2, 3):
        con.executescript(MIGRATIONS[v][0])
    con.executescript(V3_ROWS.read_text(encoding="utf-8"))
    con.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    con.execute("PRAGMA user_version = 3")
    con.close()


def _with_seats(m: MatchRecord, *seats: SeatInfo) -> MatchRecord:
    return dataclasses.replace(m, seats=seats)


def _record(h: History, m: MatchRecord) -> int:
    return h.add_matches([m])[0]


# ---------------------------------------------------------------------- a version 3 file
def test_a_version_3_file_of_the_game_before_is_migrated_with_its_statistics(path: Path, tmp_path: Path) -> None:
    _v3_file(path)
    h, message = History.open(path)
    assert message is None and h.kept
    fresh, _ = History.open(tmp_path / "fresh.sqlite3")
    fresh.close()
    assert schema(path) == schema(tmp_path / "fresh.sqlite3")
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 5
    assert h.people() == ["You"]
    s = h.summary()
    # What the game of version 3 showed for this file (its History.summary()).
    assert s.overall == GroupStats("all", 0, 3, 1, 30, 15, 71, 17, 32)
    assert s.unfinished == 1
    assert [(p.match_id, p.total, p.won, p.margin) for p in s.points] == [
        (1, 56, False, -25),
        (2, 15, False, -8),
        (3, 6, True, 6),
    ]
    assert [(g.opponent, g.table_size, g.matches, g.rounds, g.penalty_total) for g in s.groups] == [
        ("expert", 3, 1, 5, 15),
        ("greedy", 2, 1, 1, 0),
        ("king-aware", 2, 1, 19, 56),
        ("random", 2, 0, 5, 0),
        ("random", 3, 1, 5, 15),
    ]
    assert h.summary("You") == s == summarize(h.matches(rounds=True), "You")
    assert h.summary("Nobody").overall.matches == 0 and h.matches(person="Nobody") == []
    assert h.count_matches(person="You") == h.count_matches() == 4
    h.close()


def test_a_version_3_file_keeps_the_results_it_kept_without_reading_rounds(path: Path) -> None:
    _v3_file(path)
    con = sqlite3.connect(path)
    con.execute("DELETE FROM rounds WHERE match_id = 1")  # the kept results of match 1 are all that is left
    con.commit()
    con.close()
    h, _ = History.open(path)
    king = next(g for g in h.summary().groups if g.opponent == "king-aware")
    assert (king.matches, king.rounds, king.penalty_total) == (1, 19, 56)
    h.close()


def test_a_version_1_file_gets_every_human_seat_worked_out_from_its_rounds(path: Path) -> None:
    _v3_file(path)
    con = sqlite3.connect(path, isolation_level=None)
    con.execute("UPDATE matches SET player_seat = NULL")  # as a file of version 1 has it: nothing kept
    con.execute("PRAGMA user_version = 3")
    con.close()
    h, _ = History.open(path)
    s = h.summary()
    assert s.overall == GroupStats("all", 0, 3, 1, 30, 15, 71, 17, 32)
    h.close()


# ---------------------------------------------------------------------- several people
def _two_humans(winner: int) -> MatchRecord:
    """Ana at seat 0, Ben at seat 1 and a greedy AI; ``winner`` wins the match."""
    totals = [30, 30, 30]
    totals[winner] = 5
    m = made(
        0,
        ["human", "human", "greedy"],
        [rnd(1, [0, 1, 2], winner, totals, hints=2, undos=1)],
        winners=[winner],
        totals=totals,
    )
    return _with_seats(m, SeatInfo("Ana", "human"), SeatInfo("Ben", "human"), SeatInfo("Greedy", "greedy", 100))


def test_a_match_between_two_humans_counts_for_both(history: History) -> None:
    alone = made(0, ["human", "greedy"], [rnd(1, [0, 1], 0, [0, 5], hints=3)], winners=[0], totals=[0, 5], day=1)
    ids = [_record(history, _two_humans(0)), _record(history, _two_humans(1))]
    solo = _record(history, _with_seats(alone, SeatInfo("Ben", "human"), SeatInfo("G", "greedy", 100)))
    assert history.people() == ["Ben", "Ana"]
    ana, ben = history.summary("Ana"), history.summary("Ben")
    assert (ana.overall.matches, ana.overall.matches_won) == (2, 1)
    assert (ben.overall.matches, ben.overall.matches_won) == (3, 2)
    # The other human is an opponent of kind "human"; the table's hints are no one person's.
    assert {(g.opponent, g.table_size) for g in ana.groups} == {("greedy", 3), ("human", 3)}
    assert ana.overall.hints == 0 and ben.overall.hints == 3
    assert ana.overall.penalty_total == 35 and ben.overall.penalty_total == 35
    every = history.matches(rounds=True)
    assert people_of(every) == ["Ben", "Ana"]
    for person in ("Ana", "Ben"):
        assert history.summary(person) == summarize(every, person)
    assert history.summary() == history.summary("Ben")  # no one named: the one who played most
    assert sorted(m.id for m in history.matches(person="Ana")) == ids
    assert sorted(m.id for m in history.matches(person="Ben")) == [*ids, solo]
    assert history.count_matches(person="Ana") == 2 and history.count_matches() == 3


def test_a_person_is_the_name_at_a_human_seat_never_an_ai_of_that_name(history: History) -> None:
    m = made(0, ["human", "greedy"], [rnd(1, [0, 1], 1, [5, 0])], winners=[1], totals=[5, 0])
    _record(history, _with_seats(m, SeatInfo("Ana", "human"), SeatInfo("Ben", "greedy", 100)))
    assert history.people() == ["Ana"]
    assert history.summary("Ben").overall.matches == 0
    assert history.matches(person="Ben") == []


def test_a_match_rewritten_keeps_one_result_per_human_seat(history: History) -> None:
    m = _two_humans(0)
    match_id = history.start_match(seats=m.seats, rules=m.rules, seed=m.seed, first_dealer=0, started_at=m.started_at)
    for r in m.rounds:
        history.record_round(match_id, r)
        history.record_round(match_id, r)
    history.finish_match(match_id, winners=m.winners, totals=m.totals, finished_at=m.finished_at)
    assert history.summary("Ana").overall.rounds == 1 and history.summary("Ana").overall.matches_won == 1
    assert history.summary("Ben").overall.rounds == 1 and history.summary("Ben").overall.matches_won == 0
