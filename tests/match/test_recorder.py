"""The recorder: every finished round reaches the history exactly once, in order, whatever
fails meanwhile (a lock held by another process, a full disk, a crash), and nothing waits on the
caller's thread."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from kc_tui.config import Config
from kc_tui.engine import Rules
from kc_tui.match.recorder import Recorder, RecorderStatus, match_sync
from kc_tui.match.saves import pending_document
from kc_tui.match.session import MatchSession
from kc_tui.match.table import TableDriver
from kc_tui.records.rows import HistoryError, MatchSync
from kc_tui.records.store import History
from tests.faultkit import fill, lock_held, small_disk
from tests.timingkit import TIMED, within
from tests.waiting import wait_for


def played(rounds: int, seed: int = 3, target: int = 200) -> TableDriver:
    """A match of the human (played by greedy here) against two AIs, ``rounds`` rounds in, unrecorded."""
    cfg = Config(rules=Rules(target=target))
    driver = TableDriver(MatchSession.from_config(cfg, seed, save_path=None), "instant")
    s = driver.session
    while len(s.match.results) < rounds and not s.match.over:
        if s.match.round.over:
            driver.finish_round()
        elif s.human_to_move:
            driver.play(s.hint())
        else:
            driver.decide(driver.ai_job().run())
    return driver


def sync_of(driver: TableDriver) -> tuple[MatchSync, dict[str, object]]:
    s = driver.session
    return match_sync(s.match, s.seats, s.record, False), pending_document(s.match, s.seats, s.record, False)


def new_history(path: Path) -> History:
    history, message = History.open(path)
    assert message is None, message
    return history


def rounds_in(path: Path) -> list[tuple[int, int]]:
    """(match id, round number) of every recorded round, read by a connection of its own."""
    with History.open_read_only(path) as h:
        return [(m.id, r.number) for m in h.matches(rounds=True) for r in m.rounds]


def test_recording_again_records_nothing_twice_and_a_longer_sync_adds_only_its_new_rounds(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    rec = Recorder(new_history(path))
    driver = played(2)
    sync, _ = sync_of(driver)
    rec.submit(sync)
    rec.submit(sync)
    assert rounds_in(path) == [(1, 1), (1, 2)]
    driver2 = played(3)
    assert driver2.session.record.uid != driver.session.record.uid  # every match its own uid
    longer = MatchSync(**{**sync.__dict__, "rounds": sync_of(driver2)[0].rounds})
    rec.submit(longer)
    assert rounds_in(path) == [(1, 1), (1, 2), (1, 3)]
    assert rec.status == RecorderStatus(0, None, True, True)


def test_the_table_records_through_the_recorder_after_every_round(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    history = new_history(path)
    cfg = Config(rules=Rules(target=30))
    driver = TableDriver(MatchSession.from_config(cfg, 5, save_path=None), "instant", history=history)
    s = driver.session
    while not s.match.over:
        if s.match.round.over:
            driver.finish_round()
            assert driver.history_match is not None
            assert [n for _, n in rounds_in(path)] == list(range(1, len(s.match.results) + 1))
        elif s.human_to_move:
            driver.play(s.hint())
        else:
            driver.decide(driver.ai_job().run())
    (m,) = history.matches()
    assert m.finished and m.winners == tuple(s.match.winners) and m.totals == tuple(s.match.live_chips())


@pytest.mark.parametrize("timed", TIMED)
def test_a_locked_history_keeps_the_round_in_the_outbox_and_records_it_once_the_lock_is_gone(
    tmp_path: Path, timed: bool
) -> None:
    path = tmp_path / "history.sqlite3"
    outbox = tmp_path / "outbox"
    history = new_history(path)
    rec = Recorder(opener=lambda: (history, None), outbox=outbox)
    heard: list[RecorderStatus] = []
    rec.listen(heard.append)
    rec.start()
    assert rec.wait_open(5) is history
    driver = played(1)
    sync, doc = sync_of(driver)
    with lock_held(path, "write"):
        with within(0.1, timed, "submitting, the history locked"):
            rec.submit(sync, document=doc)
        wait_for(lambda: rec.status.problem is not None, what="the lock said", showing=lambda: rec.status)
        status = rec.status
        assert status.waiting == 1 and status.on_disk and "locked" in (status.problem or "")
        kept = outbox / f"{sync.uid}.json"
        assert json.loads(kept.read_text())["record"]["uid"] == sync.uid
        assert history.count_matches() == 0  # reading is not blocked by the lock
    assert rec.flush(15), rec.status
    assert rounds_in(path) == [(1, 1)]
    assert not kept.exists()
    wait_for(lambda: heard[-1] == RecorderStatus(0, None, True, True), what="all recorded", showing=lambda: heard[-1])
    rec.close()


def test_what_waited_in_the_outbox_is_recorded_by_the_next_session_exactly_once(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    outbox = tmp_path / "outbox"
    new_history(path).close()
    driver = played(2)
    sync, doc = sync_of(driver)
    with lock_held(path, "write"):
        crashed = Recorder(new_history(path), outbox=outbox)
        crashed.submit(sync, document=doc)  # fails: kept in the outbox; the session then ends abruptly
        assert crashed.status.waiting == 2 and (outbox / f"{sync.uid}.json").is_file()
    again = Recorder(opener=lambda: History.open(path), outbox=outbox)
    again.start()
    assert again.wait_open(5) is not None and again.flush(15)
    again.submit(sync)  # the resumed match's own sync: nothing twice
    assert again.flush(15)
    assert rounds_in(path) == [(1, 1), (1, 2)]
    assert list(outbox.iterdir()) == []
    again.close()


def test_a_damaged_outbox_file_is_set_aside_and_the_others_are_recorded(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    outbox = tmp_path / "outbox"
    outbox.mkdir()
    sync, doc = sync_of(played(1))
    (outbox / f"{sync.uid}.json").write_text(json.dumps(doc))
    (outbox / ("f" * 32 + ".json")).write_text('{"save_format": "kings-corners/pending-record/1", "match": [[[')
    rec = Recorder(new_history(path), outbox=outbox)
    problems = rec.load_outbox()
    assert len(problems) == 1 and "could not be read" in problems[0] and "moved aside" in problems[0]
    rec.retry()
    assert rounds_in(path) == [(1, 1)]
    assert [p.name.split(".json")[0] for p in outbox.iterdir()] == ["f" * 32]


def test_a_full_disk_is_said_and_the_rounds_are_recorded_when_space_is_back(tmp_path: Path) -> None:
    with small_disk() as disk:
        path = disk / "history.sqlite3"
        history = new_history(path)
        rec = Recorder(history, outbox=disk / "outbox")
        filler = fill(disk)
        driver = played(3)
        sync, doc = sync_of(driver)
        rec.submit(sync, document=doc)
        status = rec.status
        assert status.waiting == 3 and not status.on_disk and "full" in (status.problem or ""), status
        filler.unlink()
        rec.retry()
        assert rec.status == RecorderStatus(0, None, True, True)
        assert [n for _, n in rounds_in(path)] == [1, 2, 3]
        history.close()


def test_a_bug_in_recording_is_a_problem_that_waits_not_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "history.sqlite3"
    history = new_history(path)
    calls: list[int] = []

    def flaky(self: History, sync: MatchSync) -> int:
        calls.append(1)
        if len(calls) == 1:
            raise KeyError("surprise")
        if len(calls) == 2:
            raise HistoryError("could not record the match: the history is locked by another program")
        return real(self, sync)

    real = History.sync_match
    monkeypatch.setattr(History, "sync_match", flaky)
    rec = Recorder(history)
    sync, _ = sync_of(played(1))
    rec.submit(sync)
    assert "KeyError" in (rec.status.problem or "")
    rec.retry()
    assert "locked" in (rec.status.problem or "")
    rec.retry()
    assert rec.status.waiting == 0 and rounds_in(path) == [(1, 1)]


@pytest.mark.parametrize("timed", TIMED)
def test_a_held_recorder_opens_nothing_until_released_and_then_records_what_waited(tmp_path: Path, timed: bool) -> None:
    path = tmp_path / "history.sqlite3"
    opened: list[float] = []

    def opener() -> tuple[History, str | None]:
        opened.append(time.monotonic())
        return History.open(path)

    recorder = Recorder(opener=opener, outbox=tmp_path / "outbox")
    recorder.start(held=True)
    sync, doc = sync_of(played(1))
    recorder.submit(sync, document=doc)
    if timed:
        time.sleep(0.2)  # held for a while, not only at once
    assert opened == [] and not path.exists()  # held: the caller's thread drew meanwhile
    recorder.release()
    wait_for(lambda: path.exists() and len(rounds_in(path)) == 1, what="the round recorded")
    recorder.close()


def test_asking_for_the_history_lets_a_held_recorder_go(tmp_path: Path) -> None:
    recorder = Recorder(opener=lambda: History.open(tmp_path / "history.sqlite3"))
    recorder.start(held=True)
    history = recorder.wait_open(10.0)
    assert history is not None and history.matches() == []
    recorder.close()


def test_a_recorder_released_with_a_delay_opens_the_history_once_it_has_passed(tmp_path: Path) -> None:
    opened: list[float] = []
    path = tmp_path / "history.sqlite3"

    def opener() -> tuple[History, str | None]:
        opened.append(time.monotonic())
        return History.open(path)

    recorder = Recorder(opener=opener, outbox=tmp_path / "outbox")
    recorder.start(held=True)
    released = time.monotonic()
    recorder.release(after=0.3)
    wait_for(lambda: opened, what="the history opened")
    assert opened[0] - released >= 0.3
    recorder.close()


def test_asking_for_the_history_opens_it_at_once_during_a_release_delay(tmp_path: Path) -> None:
    recorder = Recorder(opener=lambda: History.open(tmp_path / "history.sqlite3"))
    recorder.start(held=True)
    recorder.release(after=60.0)
    assert recorder.wait_open(10.0) is not None  # well before the minute is up
    assert recorder.status.opened
    recorder.close()


def test_closing_a_recorder_during_its_release_delay_records_what_waits(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    recorder = Recorder(opener=lambda: History.open(path), outbox=tmp_path / "outbox")
    recorder.start(held=True)
    recorder.release(after=60.0)
    sync, doc = sync_of(played(1))
    recorder.submit(sync, document=doc)
    recorder.close(60.0)  # the release delay (60 s) is not waited out: the round is recorded at once
    assert rounds_in(path) == [(1, 1)]
