"""Reading back what is stored (kc_tui/records/rows.py): rows with garbage and rows that crashed a
reader are skipped with a problem line; the rules are checked against the engine's."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from kc_tui.records.rows import SeatInfo
from kc_tui.records.store import History
from tests.records.kit import checked_works, database_at, made, record, rnd
from tests.timingkit import TIMED, within


# ---------------------------------------------------------------------- reading back garbage
def test_rows_with_garbage_are_skipped_and_reported(history: History, path: Path) -> None:
    ids = [record(history, made(0, ["human", "greedy"], [rnd(1, [0, 1], 0, [0, 4])], winners=[0])) for _ in range(5)]
    ids.append(record(history, made(0, ["human", "greedy"], [rnd(k, [0, 1], 1, [k, 0]) for k in (1, 2, 3)])))
    con = sqlite3.connect(path)
    con.execute("UPDATE matches SET seed = 'abc' WHERE id = ?", (ids[0],))
    con.execute("UPDATE matches SET started_at = 42 WHERE id = ?", (ids[1],))
    con.execute("UPDATE seats SET name = x'00ff' WHERE match_id = ?", (ids[2],))
    con.execute("UPDATE matches SET rules = '[1,2' WHERE id = ?", (ids[3],))
    con.execute("UPDATE seats SET name = CAST(x'ff41' AS TEXT) WHERE match_id = ? AND position = 0", (ids[4],))
    con.execute("UPDATE rounds SET penalties = '[1,' WHERE match_id = ? AND number = 2", (ids[5],))
    con.execute("UPDATE rounds SET moves = x'ffff' WHERE match_id = ? AND number = 3", (ids[5],))
    con.commit()
    con.close()
    listed = history.matches()
    assert sorted(m.id for m in listed) == [ids[4], ids[5]]
    assert history.match(ids[4]).seats[0].name == "\ufffdA"  # type: ignore[union-attr]  # not UTF-8: read, not fatal
    assert len(history.problems) == 4
    assert any(f"match {ids[0]} was skipped: its seed" in p for p in history.problems)
    m = history.match(ids[5])
    assert m is not None and [r.number for r in m.rounds] == [1]
    assert any("round 2 of match" in p for p in history.problems)
    assert any("round 3 of match" in p and "move" in p for p in history.problems)
    assert history.match(ids[0]) is None
    assert len(history.export_json()) == 2
    history.summary()  # never raises
    assert all("\n" not in p for p in history.problems)


# ---------------------------------------------------------------------- rows that crashed readers
#: Values found to crash a reader, each set in the first of two matches: (table, column, value).
CRASHERS: dict[str, tuple[str, str, object]] = {
    "a start before year 1 in UTC": ("matches", "started_at", "0001-01-01T00:00:00+05:00"),
    "an end after year 9999 in UTC": ("matches", "finished_at", "9999-12-31T23:00:00-05:00"),
    "rules nested 100,000 deep": ("matches", "rules", '{"a":' * 100_000 + "1" + "}" * 100_000),
    "a rule of the wrong type": ("matches", "rules", '{"scoring":"chips","chips_start":"x"}'),
    "a rule out of its range": ("matches", "rules", '{"target":-5}'),
    "a rule given twice": ("matches", "rules", '{"target":30,"target":40}'),
    "a rule that is not a finite number": ("matches", "rules", '{"target":NaN}'),
    "a 10 MB seat name": ("seats", "name", "x" * 10_000_000),
    "a seat name with control characters": ("seats", "name", "Ann\x1b[31m"),
    "a huge margin": ("player_results", "margin", 9 * 10**18),
    "a huge round count": ("player_results", "rounds", 2**62),
    "a seat position that is a blob": ("seats", "position", b"\x00\x01"),
}


def _tamper(p: Path, match_id: int, table: str, column: str, value: object) -> None:
    con = sqlite3.connect(p)
    key = "id" if table == "matches" else "match_id"
    extra = " AND position = 0" if table == "seats" else ""
    con.execute(f"UPDATE {table} SET {column} = ? WHERE {key} = ?{extra}", (value, match_id))
    con.commit()
    con.close()


def _every_reader(h: History) -> None:
    """Run every reader of ``h`` (each must return, never raise)."""
    h.matches(rounds=True)
    h.matches(demos=True)
    for m in h.matches():
        h.match(m.id)
    h.summary()
    h.count_matches()
    h.export_json()
    h.export_rows()
    h.open_match(seats=[SeatInfo("Ann", "human")], rules={}, seed=1, rounds_played=0)


@pytest.mark.parametrize("timed", TIMED)
@pytest.mark.parametrize("kind", list(CRASHERS))
def test_a_row_that_crashed_a_reader_is_skipped_with_a_problem_line(
    history: History, path: Path, kind: str, timed: bool
) -> None:
    table, column, value = CRASHERS[kind]
    bad = record(history, made(0, ["human", "greedy"], [rnd(1, [0, 1], 0, [0, 4])], winners=[0], totals=[0, 4]))
    good = record(history, made(0, ["human", "greedy"], [rnd(1, [0, 1], 1, [3, 0])], winners=[1], totals=[3, 0]))
    _tamper(path, bad, table, column, value)
    for h in (history, History.open_read_only(path)):
        with within(2, timed, "every reader"):
            _every_reader(h)
        summary = h.summary()
        if table == "player_results":  # the match is listed; its kept results are left out
            assert summary.overall.matches == 1 and summary.overall.penalty_total == 3
            assert any("left out of the statistics" in p for p in h.problems)
        else:
            assert [m.id for m in h.matches()] == [good]
            assert any(f"match {bad} was skipped" in p for p in h.problems), h.problems
            assert h.match(good) is not None and h.match(bad) is None
        assert all("\n" not in p and len(p) <= 300 for p in h.problems)
    m = history.match(good)
    assert m is not None and m.rounds[0].penalties == (3, 0)


@pytest.mark.parametrize("kind", [k for k in CRASHERS if CRASHERS[k][0] != "player_results"])
def test_the_upgrade_of_a_version_1_file_survives_a_row_that_crashed_it(path: Path, kind: str) -> None:
    table, column, value = CRASHERS[kind]
    database_at(path, 1)
    _tamper(path, 7, table, column, value)
    ro = History.open_read_only(path)  # migrated in memory, the file untouched
    _every_reader(ro)
    ro.close()
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == 1
    h, message = History.open(path)
    assert message is None and h.kept
    _every_reader(h)
    assert h.matches() == [] and h.summary().overall.matches == 0
    checked_works(h)
    h.close()


def test_rules_keep_a_newer_games_settings_and_check_the_known_ones(history: History, path: Path) -> None:
    ids = [record(history, made(0, ["human", "greedy"], [rnd(1, [0, 1], 0, [0, 4])])) for _ in range(3)]
    con = sqlite3.connect(path)
    con.execute("UPDATE matches SET rules = ? WHERE id = ?", ('{"target":30,"jokers":"two","wild":true}', ids[0]))
    con.execute("UPDATE matches SET rules = ? WHERE id = ?", ('{"hand_size":1.5}', ids[1]))
    con.execute("UPDATE matches SET rules = ? WHERE id = ?", ('{"draw":"sometimes"}', ids[2]))
    con.commit()
    con.close()
    assert [m.id for m in history.matches()] == [ids[0]]
    assert history.match(ids[0]).rules == {"target": 30, "jokers": "two", "wild": True}  # type: ignore[union-attr]
    assert sum("rules are not valid" in p for p in history.problems) == 2


def test_rules_with_a_setting_given_twice_are_refused_not_read_as_the_last(history: History, path: Path) -> None:
    bad = record(history, made(0, ["human", "greedy"], [rnd(1, [0, 1], 0, [0, 4])]))
    con = sqlite3.connect(path)
    con.execute("UPDATE matches SET rules = ? WHERE id = ?", ('{"target":30,"target":40}', bad))
    con.commit()
    con.close()
    assert history.matches() == [] and history.match(bad) is None
    said = [p for p in history.problems if f"match {bad} was skipped" in p]
    assert said and all("rules are not JSON" in p and "\n" not in p for p in said), history.problems


def test_the_records_statistics_and_exports_load_without_sqlite() -> None:
    probe = (
        "import sys\n"
        "import kc_tui.records.rows, kc_tui.records.summaries, kc_tui.records.export\n"
        "print('sqlite3' in sys.modules, 'kc_tui.records.store' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]
