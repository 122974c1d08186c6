"""The game history (kc_tui/records): the schema and its migrations, files that cannot be used, two
processes recording at once, records that replay, reading back garbage, exports, statistics."""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import json
import multiprocessing
import os
import sqlite3
import time
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from kc_tui.engine import Match, Rules
from kc_tui.records import files, rows, stats
from kc_tui.records.export import EXPORT_COLUMNS
from kc_tui.records.rows import ENV_HISTORY, HistoryError, MatchRecord, RoundRecord, SeatInfo, default_history_path
from kc_tui.records.schema import APPLICATION_ID, COLUMNS, MIGRATIONS, SCHEMA_VERSION
from kc_tui.records.stats import summarize
from kc_tui.records.store import History
from tests.historykit import T0, play_recorded


@pytest.fixture
def path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A history file in a temporary folder; the user's folders are never touched."""
    monkeypatch.setenv("KINGS_CORNERS_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("KINGS_CORNERS_CONFIG", str(tmp_path / "settings.toml"))
    monkeypatch.delenv(ENV_HISTORY, raising=False)
    return tmp_path / "hist" / "history.sqlite3"


@pytest.fixture
def history(path: Path) -> Iterator[History]:
    h, message = History.open(path)
    assert message is None
    yield h
    h.close()


# ---------------------------------------------------------------------- helpers
def play(kinds: Sequence[str], seed: int, rules: Rules | None = None, *, human: int | None = 0) -> MatchRecord:
    """A match played to its end by AIs through the engine (seat ``human`` recorded as the human)."""
    return play_recorded(
        kinds,
        seed,
        rules,
        human=human,
        start=T0 + timedelta(minutes=seed * 100),
        hints=lambda n: n % 2,
        undos=lambda n: n % 3,
    )


def record(h: History, m: MatchRecord, *, finish: bool = True) -> int:
    """Record ``m`` as the game does: start, every round, the end."""
    match_id = h.start_match(
        seats=m.seats, rules=m.rules, seed=m.seed, first_dealer=m.first_dealer, demo=m.demo, started_at=m.started_at
    )
    for r in m.rounds:
        h.record_round(match_id, r)
    if finish:
        h.finish_match(match_id, winners=m.winners, totals=m.totals, finished_at=m.finished_at)
    return match_id


def rnd(number: int, seats: Sequence[int], winner: int | None, penalties: Sequence[int], **kw: Any) -> RoundRecord:
    n = len(penalties)
    values: dict[str, Any] = {
        "number": number,
        "dealer": seats[0],
        "seats": tuple(seats),
        "winner": winner,
        "penalties": tuple(penalties),
        "chips_delta": (0,) * n,
        "totals": tuple(penalties),
        "moves": (1, 2, 1024),
        "hints": 0,
        "undos": 0,
        "played_at": T0,
    }
    values.update(kw)
    return RoundRecord(**values)


def made(
    match_id: int,
    kinds: Sequence[str],
    rounds: Sequence[RoundRecord],
    *,
    winners: Sequence[int] = (),
    totals: Sequence[int] | None = None,
    day: int = 0,
    finished: bool = True,
    demo: bool = False,
    scoring: str = "points",
) -> MatchRecord:
    """A match record built by hand (seat kinds ``kinds``: "human" is the player)."""
    when = T0 + timedelta(days=day)
    return MatchRecord(
        id=match_id,
        started_at=when,
        finished_at=when + timedelta(hours=1) if finished else None,
        demo=demo,
        seats=tuple(SeatInfo(k, k, None if k == "human" else 1000) for k in kinds),
        rules={**Rules().to_dict(), "scoring": scoring},
        seed=match_id,
        first_dealer=0,
        winners=tuple(winners),
        totals=tuple(totals if totals is not None else (0,) * len(kinds)),
        rounds=tuple(rounds),
    )


def schema(p: Path) -> list[tuple[str, str, Any]]:
    """What the schema of ``p`` is: every table's columns (name, type, not null, default, key)
    and every index's columns; and the versions."""
    con = sqlite3.connect(p)
    try:
        out: list[tuple[str, str, Any]] = []
        for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"):
            cols = sorted(tuple(c[1:]) for c in con.execute(f"PRAGMA table_info({name})"))
            out.append(("table", name, cols))
            for idx in con.execute(f"PRAGMA index_list({name})").fetchall():
                cols = [c[2] for c in con.execute(f"PRAGMA index_xinfo({idx[1]})") if c[5]]
                out.append(("index", idx[1], (cols, idx[2])))
        out.append(("pragma", "user_version", con.execute("PRAGMA user_version").fetchone()[0]))
        out.append(("pragma", "application_id", con.execute("PRAGMA application_id").fetchone()[0]))
        return sorted(out, key=repr)
    finally:
        con.close()


def checked_works(h: History) -> None:
    """``h`` records and reads back a match."""
    m = made(0, ["human", "greedy"], [rnd(1, [0, 1], 0, [0, 5])], winners=[0], totals=[0, 5])
    match_id = record(h, m)
    back = h.match(match_id)
    assert back is not None
    assert back.rounds[0].penalties == (0, 5)
    assert back.winners == (0,)


# ---------------------------------------------------------------------- where it lives
def test_the_file_is_in_the_data_folder_unless_the_variable_names_one(
    path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert default_history_path() == tmp_path / "data" / "history.sqlite3"
    monkeypatch.setenv(ENV_HISTORY, str(tmp_path / "elsewhere.db"))
    assert default_history_path() == tmp_path / "elsewhere.db"
    h, message = History.open()
    assert message is None
    assert h.path == tmp_path / "elsewhere.db"
    checked_works(h)
    h.close()
    assert (tmp_path / "elsewhere.db").is_file()
    assert not (tmp_path / "data" / "history.sqlite3").exists()


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


def _database_at(p: Path, version: int) -> None:
    """A database as version ``version`` of the game left it, with one match of two rounds."""
    p.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(p, isolation_level=None)
    if version == 0:
        con.close()
        return
    con.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    for v in range(1, version + 1):
        script, step = MIGRATIONS[v]
        con.executescript(script)
        if step is not None:
            step(con)
    con.execute(f"PRAGMA user_version = {version}")
    con.execute(
        "INSERT INTO matches (id, started_at, finished_at, demo, rules, seed, first_dealer, winners, totals)"
        " VALUES (7, ?, ?, 0, ?, '18446744073709551615', 1, '[0]', '[3,101]')",
        (T0.isoformat(), (T0 + timedelta(hours=1)).isoformat(), json.dumps(Rules().to_dict())),
    )
    con.execute("INSERT INTO seats VALUES (7, 0, 'Ann', 'human', NULL)")
    con.execute("INSERT INTO seats VALUES (7, 1, 'Bob', 'expert', 3000)")
    for number, winner, pens, totals in ((1, 0, "[0,60]", "[0,60]"), (2, 1, "[3,0]", "[3,60]")):
        con.execute(
            "INSERT INTO rounds (match_id, number, dealer, seats, winner, penalties, chips_delta, totals, moves,"
            " played_at) VALUES (7, ?, 0, '[0,1]', ?, ?, '[0,0]', ?, ?, ?)",
            (number, winner, pens, totals, bytes([1, 0, 0, 4]), T0.isoformat()),
        )
    if version >= 2:  # the game of version 2 kept the player's results with every match it wrote
        stats._update_player(con, 7)
    con.close()


@pytest.mark.parametrize("version", range(SCHEMA_VERSION))
def test_an_earlier_version_is_migrated_and_its_matches_kept(path: Path, tmp_path: Path, version: int) -> None:
    _database_at(path, version)
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


# ---------------------------------------------------------------------- files that cannot be used
def _truncated(p: Path) -> None:
    h, _ = History.open(p)
    h.add_matches([made(0, ["human", "greedy"], [rnd(k, [0, 1], 0, [0, k]) for k in range(1, 30)])] * 40)
    h.close()
    data = p.read_bytes()
    assert len(data) > 8192
    p.write_bytes(data[: len(data) // 2])


def _foreign(p: Path) -> None:
    con = sqlite3.connect(p)
    con.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
    con.execute("INSERT INTO notes (text) VALUES ('mine')")
    con.commit()
    con.close()


def _ours_without_rounds(p: Path) -> None:
    h, _ = History.open(p)
    h.close()
    con = sqlite3.connect(p)
    con.execute("DROP TABLE rounds")
    con.commit()
    con.close()


def _unknown_old_version(p: Path) -> None:
    h, _ = History.open(p)
    h.close()
    con = sqlite3.connect(p)
    con.execute("PRAGMA user_version = 0")
    con.commit()
    con.close()


BAD_FILES = {
    "random bytes": lambda p: p.write_bytes(os.urandom(5000)),
    "text": lambda p: p.write_text("SQLite format 3 but not really\n"),
    "sqlite header then garbage": lambda p: p.write_bytes(b"SQLite format 3\x00" + os.urandom(4096)),
    "truncated": _truncated,
    "another program's database": _foreign,
    "ours without a table": _ours_without_rounds,
    "ours with its version wiped": _unknown_old_version,
}


#: The files that are provably ours and provably damaged: the only ones ever set aside.
OURS_DAMAGED = {"truncated", "ours without a table", "ours with its version wiped"}


@pytest.mark.parametrize("kind", list(BAD_FILES))
def test_a_file_the_user_named_is_left_exactly_as_it_is(path: Path, kind: str) -> None:
    path.parent.mkdir(parents=True)
    BAD_FILES[kind](path)
    before = path.read_bytes()
    listing = sorted(p.name for p in path.parent.iterdir())
    h, message = History.open(path)
    assert message is not None and "\n" not in message
    assert "It was left as it is; this session's games are kept in memory only." in message
    assert not h.kept and h.path is None
    checked_works(h)
    h.close()
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == listing


@pytest.mark.parametrize("kind", list(BAD_FILES))
def test_only_the_apps_own_damaged_file_is_set_aside_and_a_new_one_started(path: Path, kind: str) -> None:
    own = default_history_path()
    own.parent.mkdir(parents=True)
    BAD_FILES[kind](own)
    before = own.read_bytes()
    h, message = History.open()
    assert message is not None and "\n" not in message
    if kind not in OURS_DAMAGED:
        assert "left as it is" in message and not h.kept
        assert own.read_bytes() == before and not list(own.parent.glob("*.corrupt-*"))
        h.close()
        return
    assert "damaged" in message and "set aside" in message and "new history was started" in message
    (aside,) = own.parent.glob("history.sqlite3.corrupt-*[0-9]")
    assert aside.read_bytes() == before
    assert h.kept and h.path == own
    checked_works(h)
    h.close()
    h, message = History.open()  # the new file is a good one
    assert message is None and h.count_matches() == 1
    h.close()


def test_a_file_set_aside_never_replaces_an_earlier_one(path: Path) -> None:
    own = default_history_path()
    own.parent.mkdir(parents=True)
    texts = []
    for _ in range(3):
        _ours_without_rounds(own)
        texts.append(own.read_bytes())
        h, message = History.open()
        assert message is not None and "set aside" in message
        h.close()
        own.unlink()
        for side in own.parent.glob("history.sqlite3-*"):
            side.unlink()
    kept = sorted(
        p.read_bytes() for p in own.parent.glob("history.sqlite3.corrupt-*") if not p.name.endswith(("-wal", "-shm"))
    )
    assert kept == sorted(texts)


def test_a_directory_at_the_path_is_left_alone_and_the_history_kept_in_memory(path: Path) -> None:
    path.mkdir(parents=True)
    (path / "inside").write_text("x")
    h, message = History.open(path)
    assert message is not None and "is a directory, not a regular file" in message and "memory only" in message
    assert h.path is None and not h.kept
    checked_works(h)
    h.close()
    assert (path / "inside").read_text() == "x"


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs file permissions that apply")
def test_a_folder_that_cannot_be_written_keeps_the_history_in_memory(path: Path) -> None:
    path.parent.mkdir(parents=True)
    path.parent.chmod(0o500)
    try:
        h, message = History.open(path)
        assert message is not None and "cannot be created" in message
        assert not h.kept
        checked_works(h)
        h.close()
    finally:
        path.parent.chmod(0o700)


def test_a_file_in_place_of_the_folder_keeps_the_history_in_memory(tmp_path: Path) -> None:
    (tmp_path / "data").write_text("a file where the folder should be")
    h, message = History.open(tmp_path / "data" / "history.sqlite3")
    assert message is not None and not h.kept
    checked_works(h)
    h.close()
    assert (tmp_path / "data").read_text() == "a file where the folder should be"


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


# ---------------------------------------------------------------------- recording
def _record_rounds(p: str, who: int, start: Any, n: int) -> None:
    """One process recording ``n`` rounds of its own match into the history at ``p``."""
    h, message = History.open(Path(p))
    assert message is None, message
    start.wait()
    match_id = h.start_match(
        seats=[SeatInfo(f"P{who}", "human"), SeatInfo("G", "greedy", 1000)], rules={}, seed=who, first_dealer=0
    )
    for k in range(1, n + 1):
        h.record_round(match_id, rnd(k, [0, 1], k % 2, [k % 2, (k + 1) % 2]))
    h.finish_match(match_id, winners=[0], totals=[0, 0])
    h.close()


def test_two_processes_recording_at_once_lose_nothing(path: Path) -> None:
    h, _ = History.open(path)  # created first: both processes open a ready file
    h.close()
    ctx = multiprocessing.get_context("spawn")
    start = ctx.Event()
    procs = [ctx.Process(target=_record_rounds, args=(str(path), who, start, 50)) for who in (1, 2)]
    for proc in procs:
        proc.start()
    start.set()
    for proc in procs:
        proc.join(120)
        assert proc.exitcode == 0
    h, message = History.open(path)
    assert message is None
    matches = h.matches()
    assert len(matches) == 2
    for m in matches:
        full = h.match(m.id)
        assert full is not None and [r.number for r in full.rounds] == list(range(1, 51))
        assert full.finished_at is not None
    assert h.summary().overall.rounds == 100
    h.close()


def test_two_connections_in_one_process_interleave(path: Path) -> None:
    a, _ = History.open(path)
    b, _ = History.open(path)
    ma = a.start_match(seats=[SeatInfo("A", "human"), SeatInfo("G", "greedy")], rules={}, seed=1, first_dealer=0)
    mb = b.start_match(seats=[SeatInfo("B", "human"), SeatInfo("G", "greedy")], rules={}, seed=2, first_dealer=1)
    for k in range(1, 6):
        a.record_round(ma, rnd(k, [0, 1], 0, [0, 1]))
        b.record_round(mb, rnd(k, [1, 0], 1, [1, 0]))
    assert a.count_matches() == b.count_matches() == 2
    assert len(a.match(mb).rounds) == 5  # type: ignore[union-attr]
    a.close()
    b.close()


@pytest.mark.parametrize(
    ("kinds", "rules"),
    [
        (["greedy", "king-aware", "greedy"], Rules()),
        (["king-aware", "greedy"], Rules(scoring="chips")),
    ],
)
def test_a_recorded_match_replays_from_its_record_to_its_penalties(
    history: History, kinds: list[str], rules: Rules
) -> None:
    played = play(kinds, 11, rules)
    match_id = record(history, played)
    m = history.match(match_id)
    assert m is not None
    assert m.rounds == played.rounds and m.winners == played.winners and m.totals == played.totals
    replay = Match(len(m.seats), Rules.from_dict(m.rules), m.seed, first_dealer=m.first_dealer)
    assert len(m.rounds) >= 2
    for r in m.rounds:
        for mv in r.moves:
            replay.round.apply(mv)
        res = replay.finish_round()
        assert (res.number, res.dealer, res.seats, res.winner) == (r.number, r.dealer, r.seats, r.winner)
        assert res.penalties == r.penalties
        assert res.chips_delta == r.chips_delta
        assert res.totals == r.totals
    assert replay.over and tuple(replay.winners) == m.winners


def test_recording_a_round_again_replaces_it(history: History) -> None:
    match_id = history.start_match(
        seats=[SeatInfo("A", "human"), SeatInfo("G", "greedy")], rules={}, seed=1, first_dealer=0
    )
    history.record_round(match_id, rnd(1, [0, 1], 0, [0, 9]))
    history.record_round(match_id, rnd(1, [0, 1], 1, [4, 0], hints=2))
    m = history.match(match_id)
    assert m is not None and len(m.rounds) == 1 and m.rounds[0].winner == 1 and m.totals == (4, 0)
    s = history.summary()
    assert (s.overall.rounds, s.overall.rounds_won, s.overall.penalty_total, s.overall.hints) == (1, 0, 4, 2)


def test_recording_problems_are_history_errors(history: History) -> None:
    seats = [SeatInfo("A", "human"), SeatInfo("G", "greedy")]
    with pytest.raises(HistoryError, match="no match 999"):
        history.record_round(999, rnd(1, [0, 1], 0, [0, 1]))
    with pytest.raises(HistoryError, match="no match 999"):
        history.finish_match(999, winners=[0], totals=[0, 1])
    with pytest.raises(HistoryError, match="seed"):
        history.start_match(seats=seats, rules={}, seed=-1, first_dealer=0)
    with pytest.raises(HistoryError, match="first dealer"):
        history.start_match(seats=seats, rules={}, seed=1, first_dealer=2)
    match_id = history.start_match(seats=seats, rules={}, seed=1, first_dealer=0)
    with pytest.raises(HistoryError, match="move"):
        history.record_round(match_id, rnd(1, [0, 1], 0, [0, 1], moves=(1, 5000)))
    assert history.match(match_id).rounds == ()  # type: ignore[union-attr]
    history.close()
    with pytest.raises(HistoryError, match="closed"):
        history.record_round(match_id, rnd(1, [0, 1], 0, [0, 1]))
    assert history.matches() == [] and history.count_matches() == 0


def test_recording_from_another_thread_works(history: History) -> None:
    import threading

    out: list[int] = []
    t = threading.Thread(target=lambda: out.append(record(history, play(["greedy", "greedy"], 5))))
    t.start()
    t.join()
    assert history.match(out[0]) is not None


# ---------------------------------------------------------------------- reading
def test_matches_are_listed_newest_first_and_demos_apart(history: History) -> None:
    ids = [record(history, made(0, ["human", "greedy"], [], day=d)) for d in (3, 1, 2)]
    demo = record(history, made(0, ["greedy", "greedy"], [], day=5, demo=True))
    unfinished = record(history, made(0, ["human", "greedy"], [], day=4), finish=False)
    assert [m.id for m in history.matches()] == [unfinished, ids[0], ids[2], ids[1]]
    assert [m.id for m in history.matches(limit=2, offset=1)] == [ids[0], ids[2]]
    assert [m.id for m in history.matches(demos=True)] == [demo]
    assert history.count_matches() == 4 and history.count_matches(demos=True) == 1
    assert all(m.rounds == () for m in history.matches())
    assert history.match(unfinished).finished_at is None  # type: ignore[union-attr]
    assert history.match(12345) is None


def test_times_are_kept_in_utc(history: History) -> None:
    from datetime import timezone

    paris = timezone(timedelta(hours=2))
    m = made(0, ["human", "greedy"], [rnd(1, [0, 1], 0, [0, 1], played_at=datetime(2025, 6, 1, 14, 0, tzinfo=paris))])
    match_id = record(history, dataclasses.replace(m, started_at=datetime(2025, 6, 1, 13, 0, tzinfo=paris)))
    back = history.match(match_id)
    assert back is not None
    assert back.started_at == datetime(2025, 6, 1, 11, 0, tzinfo=UTC) and back.started_at.tzinfo is not None
    assert back.rounds[0].played_at == datetime(2025, 6, 1, 12, 0, tzinfo=UTC)


def test_exports_are_plain_data(history: History) -> None:
    record(history, play(["greedy", "greedy"], 4))
    unfinished = made(0, ["human", "greedy", "expert"], [rnd(1, [0, 1, 2], None, [3, 4, 5])], day=1, finished=False)
    record(history, unfinished, finish=False)
    doc = history.export_json()
    assert json.loads(json.dumps(doc)) == doc  # nothing but JSON types
    assert [len(m["rounds"]) for m in doc][1] == 1
    assert doc[1]["finished_at"] is None and isinstance(doc[0]["started_at"], str)
    datetime.fromisoformat(doc[0]["rounds"][0]["played_at"])
    rows = history.export_rows()
    assert len(rows) == sum(len(m["rounds"]) for m in doc)
    assert all(tuple(row) == EXPORT_COLUMNS for row in rows)
    assert rows[-1]["winner"] == "" and rows[-1]["winner_name"] == ""
    assert json.loads(rows[0]["moves"]) == doc[0]["rounds"][0]["moves"]
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=EXPORT_COLUMNS)
    writer.writeheader()
    writer.writerows(rows)
    assert len(list(csv.DictReader(io.StringIO(out.getvalue())))) == len(rows)


def test_matches_added_whole_read_back_the_same(history: History) -> None:
    played = play(["greedy", "king-aware", "greedy", "greedy"], 8)
    (match_id,) = history.add_matches([played])
    back = history.match(match_id)
    assert back is not None and dataclasses.replace(back, id=0) == played


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


def test_a_resumed_match_is_found_to_go_on_under_its_id(history: History) -> None:
    played = play(["greedy", "king-aware"], 6)
    first = played.rounds[:2]
    args = {"seats": played.seats, "rules": played.rules, "seed": played.seed}
    assert history.open_match(**args, rounds_played=0) is None
    match_id = record(history, dataclasses.replace(played, rounds=first), finish=False)
    other = record(history, dataclasses.replace(played, rounds=first, seed=played.seed + 1), finish=False)
    assert history.open_match(**args, rounds_played=2) == match_id
    assert history.open_match(**args, rounds_played=1) is None  # its record is ahead of that save
    assert history.open_match(**{**args, "seed": played.seed + 1}, rounds_played=2) == other
    assert history.open_match(**{**args, "rules": {**played.rules, "target": 77}}, rounds_played=2) is None
    history.record_round(match_id, played.rounds[2])
    history.finish_match(match_id, winners=played.winners, totals=played.totals)
    assert history.open_match(**args, rounds_played=3) is None  # finished: a new match


# ---------------------------------------------------------------------- rows that crashed readers
#: Values found to crash a reader, each set in the first of two matches: (table, column, value).
CRASHERS: dict[str, tuple[str, str, object]] = {
    "a start before year 1 in UTC": ("matches", "started_at", "0001-01-01T00:00:00+05:00"),
    "an end after year 9999 in UTC": ("matches", "finished_at", "9999-12-31T23:00:00-05:00"),
    "rules nested 100,000 deep": ("matches", "rules", '{"a":' * 100_000 + "1" + "}" * 100_000),
    "a rule of the wrong type": ("matches", "rules", '{"scoring":"chips","chips_start":"x"}'),
    "a rule out of its range": ("matches", "rules", '{"target":-5}'),
    "a 10 MB seat name": ("seats", "name", "x" * 10_000_000),
    "a seat name with control characters": ("seats", "name", "Ann\x1b[31m"),
    "a huge margin": ("matches", "player_margin", 9 * 10**18),
    "a huge round count": ("matches", "player_rounds", 2**62),
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


@pytest.mark.parametrize("kind", list(CRASHERS))
def test_a_row_that_crashed_a_reader_is_skipped_with_a_problem_line(history: History, path: Path, kind: str) -> None:
    table, column, value = CRASHERS[kind]
    bad = record(history, made(0, ["human", "greedy"], [rnd(1, [0, 1], 0, [0, 4])], winners=[0], totals=[0, 4]))
    good = record(history, made(0, ["human", "greedy"], [rnd(1, [0, 1], 1, [3, 0])], winners=[1], totals=[3, 0]))
    _tamper(path, bad, table, column, value)
    for h in (history, History.open_read_only(path)):
        start = time.perf_counter()
        _every_reader(h)
        assert time.perf_counter() - start < 2
        summary = h.summary()
        if column.startswith("player_"):  # the match is listed; its kept results are left out
            assert summary.overall.matches == 1 and summary.overall.penalty_total == 3
            assert any("left out of the statistics" in p for p in h.problems)
        else:
            assert [m.id for m in h.matches()] == [good]
            assert any(f"match {bad} was skipped" in p for p in h.problems), h.problems
            assert h.match(good) is not None and h.match(bad) is None
        assert all("\n" not in p and len(p) <= 300 for p in h.problems)
    m = history.match(good)
    assert m is not None and m.rounds[0].penalties == (3, 0)


@pytest.mark.parametrize("kind", [k for k in CRASHERS if not CRASHERS[k][1].startswith("player_")])
def test_the_upgrade_of_a_version_1_file_survives_a_row_that_crashed_it(path: Path, kind: str) -> None:
    table, column, value = CRASHERS[kind]
    _database_at(path, 1)
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


# ---------------------------------------------------------------------- recording with sync_match
def _sync(uid: str, rounds: int, *, over: bool = False, seed: int = 5) -> rows.MatchSync:
    done = tuple(rnd(k, [0, 1], k % 2, [k % 2, (k + 1) % 2]) for k in range(1, rounds + 1))
    return rows.MatchSync(
        uid=uid,
        seats=(SeatInfo("Ann", "human"), SeatInfo("Bob", "greedy", 500)),
        rules=Rules().to_dict(),
        seed=seed,
        first_dealer=0,
        demo=False,
        started_at=T0,
        rounds=done,
        totals=(rounds, rounds),
        winners=(0,) if over else None,
        finished_at=T0 + timedelta(hours=1) if over else None,
    )


def test_sync_match_records_each_round_once_however_often_it_is_called(history: History, path: Path) -> None:
    uid = rows.new_uid()
    assert len(uid) == 32 and int(uid, 16) >= 0
    first = history.sync_match(_sync(uid, 0))
    for k in (1, 1, 3, 2, 3):  # again, longer, an older (shorter) state: nothing is recorded twice
        assert history.sync_match(_sync(uid, k)) == first
    m = history.match(first)
    assert m is not None and [r.number for r in m.rounds] == [1, 2, 3] and not m.finished
    assert history.sync_match(_sync(uid, 4, over=True)) == first
    assert history.sync_match(_sync(uid, 4, over=True)) == first
    m = history.match(first)
    assert m is not None and m.finished and m.winners == (0,) and m.totals == (4, 4)
    assert m.finished_at == T0 + timedelta(hours=1) and len(m.rounds) == 4
    con = sqlite3.connect(path)
    assert con.execute("SELECT count(*) FROM rounds").fetchone()[0] == 4
    assert con.execute("SELECT uid FROM matches").fetchall() == [(uid,)]
    con.close()
    assert history.count_matches() == 1 and history.summary().overall.rounds == 4


def test_sync_match_adopts_a_match_recorded_before_uids(history: History) -> None:
    old = _sync("0" * 32, 2)
    match_id = history.start_match(seats=old.seats, rules=old.rules, seed=5, first_dealer=0, started_at=T0)
    for r in old.rounds:
        history.record_round(match_id, r)
    other = history.start_match(seats=old.seats, rules=old.rules, seed=6, first_dealer=0, started_at=T0)
    uid = rows.new_uid()
    assert history.sync_match(_sync(uid, 1)) != match_id  # it has more rounds than the sync: not it
    assert history.sync_match(_sync(rows.new_uid(), 3)) == match_id
    assert [r.number for r in history.match(match_id).rounds] == [1, 2, 3]  # type: ignore[union-attr]
    assert history.match(other) is not None and history.count_matches() == 3


def test_sync_match_refuses_what_it_cannot_record_and_changes_nothing(history: History, path: Path) -> None:
    good = _sync(rows.new_uid(), 2)
    history.sync_match(good)
    before = hashlib.sha256(path.read_bytes()).hexdigest(), history.export_json()
    bad = [
        dataclasses.replace(good, uid="not hex"),
        dataclasses.replace(good, rounds=good.rounds[1:]),
        dataclasses.replace(good, rounds=(*good.rounds, dataclasses.replace(good.rounds[0], number=3, moves=(5000,)))),
        dataclasses.replace(good, seats=(SeatInfo("x" * 500, "human"), good.seats[1])),
        dataclasses.replace(good, rules={"chips_start": "x"}),
        dataclasses.replace(good, started_at=datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=5)))),
        dataclasses.replace(good, winners=(7,)),
        dataclasses.replace(good, seed=-1),
    ]
    for sync in bad:
        with pytest.raises(HistoryError) as caught:
            history.sync_match(sync)
        assert str(caught.value).startswith("could not ") and "\n" not in str(caught.value)
    assert history.export_json() == before[1]


def test_sync_match_on_a_read_only_history_records_nothing(path: Path) -> None:
    h, _ = History.open(path)
    h.sync_match(_sync(rows.new_uid(), 1))
    h.close()
    ro = History.open_read_only(path)
    assert ro.sync_match(_sync(rows.new_uid(), 1)) == 0
    assert ro.count_matches() == 1
    ro.close()


def test_sync_match_runs_the_pending_migration_of_a_version_2_file(path: Path) -> None:
    _database_at(path, 2)
    h, message = History.open(path)
    assert message is None
    match_id = h.sync_match(_sync(rows.new_uid(), 1))
    assert h.match(match_id) is not None and h.match(7) is not None
    h.close()
    assert schema(path) == schema(_fresh(path.parent / "fresh.sqlite3"))


def _fresh(p: Path) -> Path:
    h, _ = History.open(p)
    h.close()
    return p


def test_reason_reads_sqlite_error_codes_into_plain_words(tmp_path: Path) -> None:
    def error(name: str) -> sqlite3.Error:
        exc = sqlite3.OperationalError("x")
        exc.sqlite_errorname = name
        return exc

    assert files.reason(error("SQLITE_FULL")) == "the disk is full"
    assert files.reason(error("SQLITE_BUSY")) == "the history is locked by another program"
    assert files.reason(error("SQLITE_LOCKED_SHAREDCACHE")) == "the history is locked by another program"
    assert files.reason(error("SQLITE_READONLY_DBMOVED"), tmp_path) == "the file or its folder is read-only"
    assert files.reason(error("SQLITE_IOERR_WRITE"), tmp_path) == "the disk reported an input/output error"
    assert files.reason(error("SQLITE_CORRUPT")) == "the file is damaged"
    assert files.reason(error("SQLITE_NOTADB")) == "the file is damaged"
    assert files.reason(error("SQLITE_PERM")) == "permission is denied"
    assert files.reason(OSError(28, "No space left on device")) == "the disk is full"
    assert files.reason(OSError(13, "Permission denied")) == "permission is denied"
