"""The history under real faults (tests/faultkit.py): a full disk, a read-only file system, another
program holding the write lock or an exclusive lock, a link to nothing. Nothing is lost, nothing
waits, and every message says truthfully what happened."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from kc_tui.cli import main
from kc_tui.records import schema
from kc_tui.records.rows import ENV_HISTORY, HistoryError, MatchSync, RoundRecord, SeatInfo, new_uid
from kc_tui.records.store import History
from tests.faultkit import fill, lock_held, small_disk
from tests.historykit import T0
from tests.timingkit import TIMED, within

SEATS = (SeatInfo("You", "human"), SeatInfo("Greedy", "greedy", 500))
RULES = {"target": 25, "scoring": "points"}


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KINGS_CORNERS_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("KINGS_CORNERS_CONFIG", str(tmp_path / "settings.toml"))
    monkeypatch.delenv(ENV_HISTORY, raising=False)


def round_of(number: int) -> RoundRecord:
    return RoundRecord(
        number=number,
        dealer=number % 2,
        seats=(0, 1),
        winner=0,
        penalties=(0, number),
        chips_delta=(0, 0),
        totals=(0, number * (number + 1) // 2),
        moves=(1, 2, 1024),
        hints=0,
        undos=0,
        played_at=T0,
    )


def sync_of(uid: str, rounds: int, *, over: bool = False) -> MatchSync:
    done = tuple(round_of(k) for k in range(1, rounds + 1))
    return MatchSync(
        uid=uid,
        seats=SEATS,
        rules=dict(RULES),
        seed=42,
        first_dealer=0,
        demo=False,
        started_at=T0,
        rounds=done,
        totals=done[-1].totals if done else (0, 0),
        winners=(0,) if over else None,
        finished_at=T0 if over else None,
    )


def recorded(path: Path, matches: int = 1) -> None:
    """A history at ``path`` with ``matches`` finished matches of three rounds."""
    h, message = History.open(path)
    assert message is None and h.kept
    for _ in range(matches):
        h.sync_match(sync_of(new_uid(), 3, over=True))
    h.close()


def state(folder: Path) -> dict[str, str]:
    """Every file in ``folder`` by name, with the sha256 of its bytes."""
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "?" for p in sorted(folder.iterdir())
    }


@pytest.fixture
def disk() -> Iterator[Path]:
    with small_disk() as folder:
        yield folder


# ---------------------------------------------------------------------- a full disk
def test_a_full_disk_at_opening_leaves_the_file_and_shows_its_games(disk: Path) -> None:
    path = disk / "history.sqlite3"
    recorded(path)
    before = state(disk)
    filler = fill(disk)
    h, message = History.open(path)
    assert message is not None and "\n" not in message
    assert "cannot be written: the disk is full" in message
    assert "It was left as it is; this session's games are kept in memory only." in message
    assert not h.kept
    assert h.count_matches() == 1  # what was recorded is shown for the session
    h.close()
    filler.unlink()
    after = state(disk)
    assert after["history.sqlite3"] == before["history.sqlite3"]
    assert set(after) <= {*before, "history.sqlite3-wal", "history.sqlite3-shm"}  # SQLite's own, empty
    h, message = History.open(path)  # space is back: the history is used again, nothing lost
    assert message is None and h.kept and h.count_matches() == 1
    h.close()


def test_a_write_on_a_full_disk_is_one_plain_error_and_changes_nothing(disk: Path) -> None:
    path = disk / "history.sqlite3"
    h, message = History.open(path)
    assert message is None
    first = h.sync_match(sync_of("a" * 32, 1))
    filler = fill(disk)
    big = [SeatInfo("You", "human"), SeatInfo("G", "greedy")]
    with pytest.raises(HistoryError, match="the disk is full") as caught:
        for k in range(400):  # the WAL grows until the disk is full
            h.start_match(seats=big, rules={"target": 25}, seed=k, first_dealer=0)
    assert "\n" not in str(caught.value)
    filler.unlink()
    count = h.count_matches()
    assert h.sync_match(sync_of("a" * 32, 2)) == first
    assert [r.number for r in h.match(first).rounds] == [1, 2]  # type: ignore[union-attr]
    assert h.count_matches() == count
    h.close()


def test_an_export_to_a_full_disk_leaves_no_half_file(
    disk: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "h.sqlite3"
    recorded(path, matches=30)
    target = disk / "out.csv"
    target.write_text("the old export\n")
    filler = fill(disk)
    code = main(["stats", "--history", str(path), "--csv", str(target)])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err == f"kings-corners: cannot write {target}: the disk is full\n"
    assert target.read_text() == "the old export\n"
    assert sorted(p.name for p in disk.iterdir()) == ["filler", "out.csv"]  # the temporary file is gone
    filler.unlink()


# ---------------------------------------------------------------------- a read-only file system
def test_a_read_only_file_system_leaves_the_file_and_shows_its_games(disk: Path) -> None:
    path = disk / "history.sqlite3"
    recorded(path, matches=2)
    before = state(disk)
    subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True, timeout=10)
    try:
        h, message = History.open(path)
        assert message is not None and "cannot be written: the file or its folder is read-only" in message
        assert "left as it is" in message and not h.kept
        assert h.count_matches() == 2
        assert h.sync_match(sync_of(new_uid(), 1)) > 0  # recorded in memory for the session
        h.close()
        ro = History.open_read_only(path)
        assert ro.count_matches() == 2 and ro.read_only
        ro.close()
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(disk)], check=True, timeout=10)
    assert state(disk) == before


# ---------------------------------------------------------------------- locks held by another program
@pytest.mark.parametrize("timed", TIMED)
def test_opening_under_another_programs_write_lock_does_not_wait(tmp_path: Path, timed: bool) -> None:
    path = tmp_path / "history.sqlite3"
    recorded(path)
    with lock_held(path, "write"):
        with within(0.5, timed, "History.open"):
            h, message = History.open(path)
        assert message is None and h.kept
        assert h.count_matches() == 1 and h.summary().overall.matches == 1
    uid = new_uid()
    assert h.sync_match(sync_of(uid, 2)) > 0  # once the lock is given back, recording works
    h.close()


@pytest.mark.parametrize("timed", TIMED)
def test_a_migration_under_a_write_lock_reads_a_copy_and_migrates_at_the_first_write(
    tmp_path: Path, timed: bool
) -> None:
    path = tmp_path / "history.sqlite3"
    recorded(path)
    con = sqlite3.connect(path, isolation_level=None)
    con.execute("DROP TABLE player_results")
    con.execute("DROP INDEX matches_uid")
    con.execute("ALTER TABLE matches DROP COLUMN uid")
    con.execute("PRAGMA user_version = 2")
    con.close()
    with lock_held(path, "write"):
        with within(0.5, timed, "History.open"):
            h, message = History.open(path)
        assert message is None and h.kept
        assert h.count_matches() == 1 and h.summary().overall.matches == 1
        with sqlite3.connect(path) as peek:
            assert peek.execute("PRAGMA user_version").fetchone()[0] == 2  # not migrated yet
    match_id = h.sync_match(sync_of(new_uid(), 1))
    assert h.count_matches() == 2 and h.match(match_id) is not None
    h.close()
    with sqlite3.connect(path) as peek:
        assert peek.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION


@pytest.mark.parametrize("timed", TIMED)
def test_an_exclusive_lock_is_said_at_once_and_the_file_left_alone(tmp_path: Path, timed: bool) -> None:
    path = tmp_path / "history.sqlite3"
    recorded(path)
    with lock_held(path, "exclusive"):
        before = state(tmp_path)
        with within(0.5, timed, "History.open"):
            h, message = History.open(path)
        assert message is not None and "is locked by another program" in message and "left as it is" in message
        assert "damaged" not in message and not h.kept
        h.close()
        with within(0.5, timed, "History.open_read_only"), pytest.raises(HistoryError, match="locked by another"):
            History.open_read_only(path)
        assert state(tmp_path) == before
    assert not list(tmp_path.glob("*.corrupt-*"))


@pytest.mark.parametrize("timed", TIMED)
def test_a_write_waiting_for_the_lock_never_holds_up_a_read(tmp_path: Path, timed: bool) -> None:
    path = tmp_path / "history.sqlite3"
    recorded(path)
    h, _ = History.open(path)
    errors: list[BaseException] = []

    def write() -> None:
        try:
            h.sync_match(sync_of(new_uid(), 1))
        except BaseException as exc:
            errors.append(exc)

    with lock_held(path, "write"):
        writer = threading.Thread(target=write)
        writer.start()  # the write waits for the lock now (until the lock is let go)
        with within(0.5, timed, "reading"):
            assert h.count_matches() == 1
            assert len(h.matches(rounds=True)) == 1
        assert writer.is_alive()  # the read did not wait for the write
    writer.join(10)
    assert not errors and h.count_matches() == 2
    h.close()


@pytest.mark.parametrize("timed", TIMED)
def test_stats_under_locks(tmp_path: Path, capsys: pytest.CaptureFixture[str], timed: bool) -> None:
    path = tmp_path / "history.sqlite3"
    recorded(path)
    with lock_held(path, "write"):
        with within(1.0, timed, "stats"):
            assert main(["stats", "--history", str(path)]) == 0
        assert capsys.readouterr().out.startswith("Kings Corners: 1 match")
    with lock_held(path, "exclusive"):
        with within(1.0, timed, "stats"):
            assert main(["stats", "--history", str(path)]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err == f"kings-corners: {path}: locked by another program\n"


# ---------------------------------------------------------------------- links and permissions
def test_a_link_to_nothing_is_said_and_left(tmp_path: Path) -> None:
    path = tmp_path / "data" / "history.sqlite3"
    path.parent.mkdir()
    os.symlink(tmp_path / "gone" / "h.sqlite3", path)
    h, message = History.open()
    assert message == (
        f"History {path} is a link to {tmp_path / 'gone' / 'h.sqlite3'}, which does not exist. It was left as it"
        " is; this session's games are kept in memory only."
    )
    assert not h.kept
    h.close()
    assert os.readlink(path) == str(tmp_path / "gone" / "h.sqlite3")
    assert not (tmp_path / "gone").exists()
    assert sorted(p.name for p in path.parent.iterdir()) == ["history.sqlite3"]


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs file permissions that apply")
def test_an_unreadable_file_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "data" / "history.sqlite3"
    recorded(path)
    path.chmod(0)
    try:
        h, message = History.open()
        assert message is not None and "permission is denied" in message and "left as it is" in message
        h.close()
        assert not list(path.parent.glob("*.corrupt-*"))
    finally:
        path.chmod(0o600)
