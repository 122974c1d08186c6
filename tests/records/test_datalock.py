"""The data folder's lock across real processes: a live holder is named with how to end it; a
lock left by a process that has ended is taken over with a line that says so; one let go leaves
nothing behind."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from kc_tui.records.datalock import LOCK_NAME, acquire
from tests.faultkit import data_folder_held, dead_pid


def test_a_live_holder_is_named_with_how_to_end_it_and_ending_it_frees_the_folder(tmp_path: Path) -> None:
    with data_folder_held(tmp_path) as holder:
        lock, held = acquire(tmp_path)
        assert lock is None and held is not None
        assert f"(process {holder.pid})" in held and "cannot resume, save or record" in held
        assert held.endswith(f"Close that window, or end it with: kill {holder.pid}")
        os.kill(holder.pid, signal.SIGTERM)  # as the notice says
        holder.wait(10)
    lock, held = acquire(tmp_path)
    assert lock is not None and held is None
    lock.release()


def test_a_lock_left_by_a_killed_window_is_taken_over_with_a_line_that_says_so(tmp_path: Path) -> None:
    with data_folder_held(tmp_path) as holder:
        holder.kill()  # kill -9: it could not let go
        holder.wait(10)
    lock, held = acquire(tmp_path)
    assert lock is not None and held is None
    assert lock.taken_over is not None
    assert f"(process {holder.pid}), which has ended" in lock.taken_over and "takes it over" in lock.taken_over
    assert str(tmp_path) in lock.taken_over
    assert (tmp_path / LOCK_NAME).read_text() == str(os.getpid())
    lock.release()
    assert (tmp_path / LOCK_NAME).read_bytes() == b""  # let go: no process id left behind
    again, _ = acquire(tmp_path)
    assert again is not None and again.taken_over is None
    again.release()


def test_a_lock_naming_a_dead_process_is_taken_over(tmp_path: Path) -> None:
    pid = dead_pid()
    (tmp_path / LOCK_NAME).write_text(str(pid))
    lock, held = acquire(tmp_path)
    assert lock is not None and held is None
    assert lock.taken_over is not None and f"(process {pid})" in lock.taken_over
    lock.release()


def test_a_held_lock_naming_no_process_of_this_machine_offers_no_kill(tmp_path: Path) -> None:
    with data_folder_held(tmp_path):
        pid = dead_pid()  # as a window of another machine, or container, would have written
        (tmp_path / LOCK_NAME).write_text(str(pid))
        lock, held = acquire(tmp_path)
    assert lock is None and held is not None
    assert "kill" not in held and str(pid) not in held and held.endswith("Close that window first.")
