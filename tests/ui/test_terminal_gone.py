"""Whatever ends the terminal, the real app ends: its terminal window closed (the pty's master
closed: the kernel hangs the terminal up), or its output stopped and a signal sent. Each time the
process is gone, the match saved as it was, and the data folder free for the next window, which
offers to resume it; a remote seat's window (``join``) ends the same way and frees its seat. Real
processes of ``python -m kc_tui`` on real ptys (tests/ptykit.py), a real table server on loopback."""

from __future__ import annotations

import signal
from pathlib import Path
from statistics import median

import pytest

from kc_tui.match.saves import SAVE_NAME
from kc_tui.match.session import MatchSession
from kc_tui.net.server import seat_path
from kc_tui.records.datalock import LOCK_NAME, acquire
from tests.net.serverkit import running_in_thread
from tests.ptykit import EXIT_WITHIN, app_env, lock_text, on_pty

PLAY = ("play", "--seed", "3", "--opponents", "greedy")
#: On the table's first frame: the score panel's title.
TABLE = b"Score"
#: The next window's question, when the match is saved and the data folder free.
RESUME = b"Resume your match?"


def saved_uid(folder: Path) -> str:
    session = MatchSession.load(folder / "data" / SAVE_NAME)
    assert session is not None, "no saved match"
    return session.record.uid


def close_after_first_frame(folder: Path, args: tuple[str, ...], drawn: bytes) -> float:
    """Start ``args`` on a pty, wait for ``drawn`` on its screen, close the terminal: the seconds
    the process took to go (it must go)."""
    with on_pty(args, app_env(folder)) as run:
        assert run.read_until(drawn), bytes(run.output[-400:])
        run.close_terminal()
        return run.gone()


def closed_again_and_again(folder: Path, runs: int) -> list[float]:
    """Play, close the terminal after the first frame; then ``runs - 1`` times more: the next
    window offers to resume the same match, and its terminal is closed in turn. Each process
    ends, lets go of the data folder and leaves the match saved as it was."""
    times = [close_after_first_frame(folder, PLAY, TABLE)]
    uid = saved_uid(folder)
    assert lock_text(folder) == b""  # let go, not left behind
    for _ in range(runs - 1):
        times.append(close_after_first_frame(folder, PLAY, RESUME))
        assert lock_text(folder) == b""
        assert saved_uid(folder) == uid
    lock, held = acquire(folder / "data")
    assert lock is not None and held is None and lock.taken_over is None
    lock.release()
    return times


def test_closing_the_terminal_ends_the_app_and_the_next_one_resumes(tmp_path: Path) -> None:
    times = closed_again_and_again(tmp_path, 5)
    print(f"exit after the terminal closed: median {median(times):.3f} s, max {max(times):.3f} s")


@pytest.mark.slow
def test_closing_the_terminal_twenty_times_ends_the_app_every_time(tmp_path: Path) -> None:
    times = closed_again_and_again(tmp_path, 20)
    print(f"exit after the terminal closed: median {median(times):.3f} s, max {max(times):.3f} s")


@pytest.mark.timing
def test_closing_the_terminal_ends_the_app_within_two_seconds(tmp_path: Path) -> None:
    times = closed_again_and_again(tmp_path, 20)
    print(f"exit after the terminal closed: median {median(times):.3f} s, max {max(times):.3f} s")
    assert max(times) <= EXIT_WITHIN, times


def test_closing_the_terminal_ends_a_demo(tmp_path: Path) -> None:
    for run in range(3):
        close_after_first_frame(tmp_path / str(run), ("demo", "--seed", "3"), TABLE)
        assert lock_text(tmp_path / str(run)) == b""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_terminal_that_takes_no_output_does_not_keep_a_signal_from_ending_the_app(
    sig: signal.Signals, tmp_path: Path
) -> None:
    with on_pty(("demo", "--seed", "3"), app_env(tmp_path)) as run:
        assert run.read_until(TABLE), bytes(run.output[-400:])
        with run.output_stopped():
            run.signal(sig)
            took = run.gone()
    print(f"{sig.name} with the output stopped: gone in {took:.3f} s")
    assert run.process.returncode == 0
    assert lock_text(tmp_path) == b""


def test_closing_the_terminal_ends_a_remote_seat_and_the_seat_can_be_taken_again(tmp_path: Path) -> None:
    times = []
    with running_in_thread() as (server, base):
        url = base + seat_path(server.tokens[0])
        for _ in range(3):  # the seat is free again each time: the next join sits there
            times.append(close_after_first_frame(tmp_path, ("join", url), b"target 5"))
            assert not (tmp_path / "data" / LOCK_NAME).exists(), "a joined table took the data folder"
    print(f"join: gone in {', '.join(f'{t:.3f}' for t in times)} s")
