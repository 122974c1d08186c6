"""The save writer: saves written off the game's thread, the newest winning, removals after the
writes asked for before them, and a failure known at once and cleared by the next write that works."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from kc_tui.config import Config
from kc_tui.match.saves import SaveWriter, save_bytes
from kc_tui.match.session import MatchSession
from kc_tui.records.datalock import acquire
from tests.faultkit import fill, small_disk


def test_the_newest_save_wins_and_a_removal_comes_after_the_writes_before_it(tmp_path: Path) -> None:
    path = tmp_path / "current-match.json"
    writer = SaveWriter()
    heard: list[str | None] = []
    writer.listen(heard.append)
    for i in range(50):
        writer.write(path, json.dumps({"n": i}).encode())
    assert writer.flush(5) and json.loads(path.read_text()) == {"n": 49}
    assert heard and heard[-1] is None and len(heard) <= 50
    writer.write(path, b'{"n": 50}')
    writer.delete(path, None)
    assert writer.flush(5) and not path.exists()
    assert writer.close(5)


def test_a_session_with_a_writer_is_saved_only_once_its_save_is_on_disk(tmp_path: Path) -> None:
    path = tmp_path / "current-match.json"
    writer = SaveWriter()
    s = MatchSession.from_config(Config(), 3, save_path=path, writer=writer)
    assert writer.flush(5) and s.saved
    assert path.read_bytes() == save_bytes(s.to_dict())
    s.delete_save()
    assert writer.flush(5) and not path.exists()


def test_a_full_disk_is_the_writers_problem_until_a_write_works(tmp_path: Path) -> None:
    with small_disk() as disk:
        path = disk / "current-match.json"
        writer = SaveWriter()
        s = MatchSession.from_config(Config(), 3, save_path=path, writer=writer)
        assert writer.flush(5)
        before = path.read_bytes()
        filler = fill(disk)
        s.save()
        assert writer.flush(5)
        assert s.save_problem is not None and not s.saved and path.read_bytes() == before
        filler.unlink()
        s.save()
        assert writer.flush(5) and s.saved and s.save_problem is None
        assert path.read_bytes() == save_bytes(s.to_dict())
        writer.close()


def test_one_data_folder_has_one_writer_across_processes(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, pathlib; from kc_tui.records.datalock import acquire;"
            " lock, _ = acquire(pathlib.Path(sys.argv[1]));"
            " print('held', flush=True); sys.stdin.read()",
            str(tmp_path),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        lock, message = acquire(tmp_path)
        assert lock is None and message is not None
        assert f"(process {holder.pid})" in message and "cannot resume, save or record" in message
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(10)
    lock, message = acquire(tmp_path)  # the holder is gone: its lock went with it
    assert lock is not None and message is None
    lock.release()
