"""Opening the history (kc_tui/records/opening.py): where the file lives, and files that cannot be
used: left as they are, or set aside when provably ours, damaged and the app's own."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from kc_tui.records.rows import ENV_HISTORY, default_history_path
from kc_tui.records.store import History
from tests.records.kit import checked_works, made, rnd


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


def _ours_then(p: Path, sql: str) -> None:
    """A new history of ours at ``p``, then ``sql`` run on it."""
    h, _ = History.open(p)
    h.close()
    con = sqlite3.connect(p)
    con.execute(sql)
    con.commit()
    con.close()


def _ours_without_rounds(p: Path) -> None:
    _ours_then(p, "DROP TABLE rounds")


def _unknown_old_version(p: Path) -> None:
    _ours_then(p, "PRAGMA user_version = 0")


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
