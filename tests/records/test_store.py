"""Recording and reading the history (kc_tui/records/store.py): two processes recording at once,
records that replay, times in UTC, matches listed newest first, sync_match recording once."""

from __future__ import annotations

import dataclasses
import hashlib
import multiprocessing
import sqlite3
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from kc_tui.engine import Match, Rules
from kc_tui.records import rows
from kc_tui.records.rows import HistoryError, SeatInfo
from kc_tui.records.store import History
from tests.historykit import T0
from tests.records.kit import database_at, made, play, record, rnd, schema


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
    assert h.people() == ["P1", "P2"]
    assert h.summary("P1").overall.rounds == 50 and h.summary("P2").overall.rounds == 50
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
    played = play(["greedy", "greedy"], 5)
    t = threading.Thread(target=lambda: out.append(record(history, played)))
    t.start()
    t.join()
    back = history.match(out[0])
    assert back is not None and back.seed == played.seed and len(back.rounds) == len(played.rounds)
    assert [r.moves for r in back.rounds] == [r.moves for r in played.rounds]


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


def test_matches_added_whole_read_back_the_same(history: History) -> None:
    played = play(["greedy", "king-aware", "greedy", "greedy"], 8)
    (match_id,) = history.add_matches([played])
    back = history.match(match_id)
    assert back is not None and dataclasses.replace(back, id=0) == played


def test_a_resumed_match_is_found_to_go_on_under_its_id(history: History) -> None:
    played = play(["greedy", "king-aware"], 6)
    first = played.rounds[:2]
    args: dict[str, Any] = {"seats": played.seats, "rules": played.rules, "seed": played.seed}
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
    database_at(path, 2)
    h, message = History.open(path)
    assert message is None
    match_id = h.sync_match(_sync(rows.new_uid(), 1))
    new, old = h.match(match_id), h.match(7)
    assert new is not None and [s.name for s in new.seats] == ["Ann", "Bob"] and len(new.rounds) == 1
    assert old is not None and old.id == 7 and match_id != 7
    h.close()
    assert schema(path) == schema(_fresh(path.parent / "fresh.sqlite3"))


def _fresh(p: Path) -> Path:
    h, _ = History.open(p)
    h.close()
    return p
