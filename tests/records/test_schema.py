"""The history's schema and its migrations (kc_tui/records/schema.py): a new file, an empty one, every
earlier version migrated, a newer one never changed."""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

import pytest

from kc_tui.records.rows import SeatInfo
from kc_tui.records.schema import APPLICATION_ID, COLUMNS, SCHEMA_VERSION
from kc_tui.records.store import History
from kc_tui.records.summaries import summarize
from tests.records.kit import checked_works, database_at, made, play, record, rnd, schema


# ---------------------------------------------------------------------- schema and migrations
def test_a_new_file_gets_the_current_schema_in_wal_mode(history: History, path: Path) -> None:
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert con.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    for table, columns in COLUMNS[SCHEMA_VERSION].items():
        assert {c[1] for c in con.execute(f"PRAGMA table_info({table})")} == columns
    assert "matches_newest" in {r[1] for r in con.execute("PRAGMA index_list(matches)")}
    con.close()
    assert history.kept and not history.read_only
    assert history.count_matches() == 0 and history.matches() == []


def test_an_empty_file_is_made_a_history(path: Path) -> None:
    path.parent.mkdir(parents=True)
    path.write_bytes(b"")
    h, message = History.open(path)
    assert message is None
    checked_works(h)
    h.close()
    assert not list(path.parent.glob("*.corrupt-*"))


@pytest.mark.parametrize("version", range(SCHEMA_VERSION))
def test_an_earlier_version_is_migrated_and_its_matches_kept(path: Path, tmp_path: Path, version: int) -> None:
    database_at(path, version)
    h, message = History.open(path)
    assert message is None
    fresh, _ = History.open(tmp_path / "fresh.sqlite3")
    fresh.close()
    h.close()
    assert schema(path) == schema(tmp_path / "fresh.sqlite3")
    h, _ = History.open(path)
    if version >= 1:
        m = h.match(7)
        assert m is not None
        assert m.seed == 2**64 - 1 and m.first_dealer == 1 and m.winners == (0,) and m.totals == (3, 101)
        assert m.seats == (SeatInfo("Ann", "human", None), SeatInfo("Bob", "expert", 3000))
        assert [r.penalties for r in m.rounds] == [(0, 60), (3, 0)]
        assert [(r.hints, r.undos) for r in m.rounds] == [(0, 0), (0, 0)]
        assert m.rounds[0].moves == (1, 1024)
        # the player's results were worked out from the rounds recorded before
        s = h.summary()
        assert (s.overall.matches, s.overall.matches_won, s.overall.rounds, s.overall.rounds_won) == (1, 1, 2, 1)
        assert s.overall.penalty_total == 3
        assert s == summarize(h.matches(rounds=True))
    checked_works(h)
    h.close()


def test_a_version_4_file_keeps_its_rounds_table_counts_and_new_rounds_count_each_persons(path: Path) -> None:
    database_at(path, 4)
    con = sqlite3.connect(path, isolation_level=None)
    con.execute("UPDATE rounds SET hints = 4, undos = 2 WHERE match_id = 7 AND number = 1")
    con.execute("UPDATE player_results SET hints = 4, undos = 2 WHERE match_id = 7")
    con.close()
    h, message = History.open(path)
    assert message is None
    old = h.match(7)
    assert old is not None
    assert [(r.hints, r.undos, r.seat_hints, r.seat_undos) for r in old.rounds] == [
        (4, 2, None, None),
        (0, 0, None, None),
    ]
    ann = h.summary("Ann").overall
    assert (ann.hints, ann.undos) == (4, 2), "the table's counts of a match of one person stay hers"
    # A table of two people: each round counts each person's own.
    counted = rnd(1, [0, 1, 2], 0, [0, 5, 3], hints=4, undos=1, seat_hints=(3, 1, 0), seat_undos=(0, 1, 0))
    table = made(0, ["human", "human", "greedy"], [counted], winners=[0], totals=[0, 5, 3])
    seats = (SeatInfo("Ann", "human"), SeatInfo("Cat", "human"), table.seats[2])
    match_id = record(h, dataclasses.replace(table, seats=seats))
    back = h.match(match_id)
    assert back is not None and back.rounds[0].seat_hints == (3, 1, 0) and back.rounds[0].seat_undos == (0, 1, 0)
    cat = h.summary("Cat").overall
    assert (cat.rounds, cat.hints, cat.undos) == (1, 1, 1)
    ann = h.summary("Ann").overall
    assert (ann.rounds, ann.hints, ann.undos) == (3, 4 + 3, 2)
    assert ann == summarize([m for m in h.matches(rounds=True) if m.seats_of("Ann")], "Ann").overall
    h.close()


def test_a_file_from_a_newer_version_is_shown_read_only_and_never_changed(path: Path) -> None:
    h, _ = History.open(path)
    match_id = record(h, play(["greedy", "greedy"], 3))
    h.close()
    con = sqlite3.connect(path)
    con.execute("PRAGMA user_version = 99")
    con.close()
    before = path.read_bytes()
    h, message = History.open(path)
    assert message is not None and "newer version" in message and "\n" not in message
    assert h.read_only and not h.kept
    assert [m.id for m in h.matches()] == [match_id]
    assert h.start_match(seats=[SeatInfo("a", "human")], rules={}, seed=1, first_dealer=0) == 0
    h.record_round(match_id, rnd(99, [0, 1], 0, [0, 1]))
    h.finish_match(match_id, winners=[1], totals=[1, 2])
    assert h.match(match_id) is not None and len(h.match(match_id).rounds) == len(play(["greedy", "greedy"], 3).rounds)  # type: ignore[union-attr]
    h.close()
    assert path.read_bytes() == before
    assert not list(path.parent.glob("*.corrupt-*"))
    ro = History.open_read_only(path)  # the command that only reads reads it as it is too
    assert ro.read_only and [m.id for m in ro.matches()] == [match_id]
    ro.close()
    assert path.read_bytes() == before
