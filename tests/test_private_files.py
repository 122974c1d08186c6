"""The data folder is its user's only: after a local match is saved and its round recorded in the
history, a hosted table saved and a log written, every folder in it is 0700 and every file 0600,
under a umask (0o022) that would make them readable by everyone; the app's own data folder is
made private when it is not, a folder the user named keeps its mode; a file the user asked for
(a tournament's JSON) keeps the umask's mode."""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from kc_tui.config.logs import LOG_NAME, logging_to_file
from kc_tui.config.store import ensure_data_dir
from kc_tui.util.files import atomic_write, shared_mode
from tests.net.serverkit import lines_until, start_host, stop
from tests.ui.gamekit import TWO_ROUNDS, make_config, past_the_first_round, play_app


@pytest.fixture
def open_umask() -> Iterator[None]:
    """The umask of a default desktop: new files readable by everyone (0644), folders 0755."""
    before = os.umask(0o022)
    yield
    os.umask(before)


def open_to_others(folder: Path) -> list[str]:
    """Every folder (``folder`` too) and file under ``folder`` that is not private (a folder
    0700, a file 0600), with its mode."""
    found: list[str] = []
    for path in [folder, *sorted(folder.rglob("*"))]:
        st = os.lstat(path)
        want = 0o700 if stat.S_ISDIR(st.st_mode) else 0o600
        if stat.S_IMODE(st.st_mode) != want:
            found.append(f"{path.relative_to(folder.parent)} {stat.S_IMODE(st.st_mode):04o}")
    return found


async def test_every_file_the_app_makes_in_the_data_folder_is_private(isolated_dirs: Path, open_umask: None) -> None:
    data = isolated_dirs / "data"
    assert not data.exists()
    app = play_app(config=make_config(rules=TWO_ROUNDS))
    async with app.run_test(size=(120, 40)) as pilot:
        await past_the_first_round(pilot)  # its round in the history, the match saved
        await pilot.press("ctrl+q")
    names = {p.name for p in data.iterdir()}
    assert {"current-match.json", "history.sqlite3", "lock", "outbox"} <= names, names
    host = start_host("--seats", "human:Ana,greedy", "--port", "0")
    try:
        await lines_until(host, "Watch: ")
    finally:
        stop(host)
    with logging_to_file("warning"):
        logging.getLogger("kc_tui.tests").warning("a line for the log")
    names = {p.name for p in data.iterdir()}
    assert {"hosted.json", "hosted-seats.json", LOG_NAME} <= names, names
    assert open_to_others(data) == []


def test_the_history_and_its_wal_and_shm_files_are_private(isolated_dirs: Path, open_umask: None) -> None:
    from kc_tui.records.store import History
    from tests.records.kit import play, record

    path = isolated_dirs / "data" / "history.sqlite3"
    history, problem = History.open(path)
    assert problem is None
    with history:
        record(history, play(["greedy", "greedy"], 1))
        names = {p.name for p in path.parent.iterdir()}
        assert {"history.sqlite3", "history.sqlite3-wal", "history.sqlite3-shm"} <= names, names
        assert open_to_others(path.parent) == []


def test_the_apps_own_data_folder_is_made_private_and_a_named_one_keeps_its_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, open_umask: None
) -> None:
    monkeypatch.delenv("KINGS_CORNERS_DATA")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    own = tmp_path / "xdg" / "kings-corners"
    own.mkdir(parents=True, mode=0o755)
    assert ensure_data_dir() == own and stat.S_IMODE(own.stat().st_mode) == 0o700
    named = tmp_path / "mine"
    named.mkdir(mode=0o755)
    monkeypatch.setenv("KINGS_CORNERS_DATA", str(named))
    assert ensure_data_dir() == named and stat.S_IMODE(named.stat().st_mode) == 0o755
    atomic_write(named / "hosted.json", b"{}")
    assert stat.S_IMODE((named / "hosted.json").stat().st_mode) == 0o600


def test_a_file_written_over_keeps_its_mode_and_an_asked_for_file_the_umasks(tmp_path: Path, open_umask: None) -> None:
    mine = tmp_path / "settings.toml"
    mine.write_text("")
    mine.chmod(0o640)
    atomic_write(mine, b"x = 1\n")
    assert stat.S_IMODE(mine.stat().st_mode) == 0o640
    assert shared_mode() == 0o644
    out = tmp_path / "results.json"
    atomic_write(out, b"{}", mode=shared_mode())
    assert stat.S_IMODE(out.stat().st_mode) == 0o644
