"""The app started in tmux and the tmux session killed after its first frame, as closing a
terminal window or losing an SSH connection does (a script, not collected by pytest):

    python tests/benchmarks/terminal_ends.py                 # 20 launches of play, 10 of demo
    python tests/benchmarks/terminal_ends.py --runs 7 --mode play

Each launch has its own settings and data folders (pace "fast"); the first frame is the table's
"Score" panel in the pane. The process counts as gone when it has exited (a zombie tmux has not
reaped yet counts as gone); one still running 5 s after the kill is "left behind" (and killed).
One line per mode: how many were left behind, the median and the longest time to exit, and how
many left their process id in the data folder's lock (a window that ended without letting go).
Needs tmux.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FIRST_FRAME = "Score"
GONE_WAIT = 5.0
START_WAIT = 60.0


def _tmux(socket: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["tmux", "-S", str(socket), *args], capture_output=True, text=True, check=False)


def _running(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def launch_and_kill(mode: str, folder: Path, socket: Path) -> tuple[float | None, bool]:
    """One launch: the seconds its process took to exit after the kill (None: left behind), and
    whether its lock still names it."""
    (folder / "settings.toml").write_text('pace = "fast"\n', encoding="utf-8")
    env = {
        "KINGS_CORNERS_DATA": str(folder / "data"),
        "KINGS_CORNERS_CONFIG": str(folder / "settings.toml"),
        "KINGS_CORNERS_HISTORY": str(folder / "data" / "history.sqlite3"),
    }
    args = ["play", "--seed", "3", "--opponents", "greedy"] if mode == "play" else ["demo", "--seed", "3"]
    command = " ".join([*(f"{k}={v}" for k, v in env.items()), "exec", sys.executable, "-m", "kc_tui", *args])
    _tmux(socket, "new-session", "-d", "-s", "kc", "-x", "100", "-y", "30", command)
    end = time.monotonic() + START_WAIT
    while FIRST_FRAME not in _tmux(socket, "capture-pane", "-p", "-t", "kc").stdout:
        if time.monotonic() > end:
            raise SystemExit(f"no first frame in {START_WAIT:g} s")
        time.sleep(0.02)
    pid = int(_tmux(socket, "list-panes", "-t", "kc", "-F", "#{pane_pid}").stdout.strip())
    killed = time.monotonic()
    _tmux(socket, "kill-session", "-t", "kc")
    while _running(pid) and time.monotonic() - killed < GONE_WAIT:
        time.sleep(0.005)
    took: float | None = time.monotonic() - killed
    if _running(pid):
        took = None
        os.kill(pid, signal.SIGKILL)
    lock = folder / "data" / "lock"
    return took, lock.exists() and lock.read_bytes() != b""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, help="launches per mode (default: 20 of play, 10 of demo)")
    parser.add_argument("--mode", choices=["play", "demo"], action="append", help="play, demo (default: both)")
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        print("tmux is not installed")
        return 2
    with tempfile.TemporaryDirectory(prefix="kc-tmux-") as tmp:
        socket = Path(tmp) / "tmux.sock"
        for mode in args.mode or ["play", "demo"]:
            runs = args.runs or (20 if mode == "play" else 10)
            results = [launch_and_kill(mode, Path(tempfile.mkdtemp(dir=tmp)), socket) for _ in range(runs)]
            times = [t for t, _ in results if t is not None]
            left = runs - len(times)
            kept = sum(named for _, named in results)
            spread = f"median {statistics.median(times):.3f} s, max {max(times):.3f} s" if times else "none exited"
            print(f"{mode}: {left} of {runs} left behind; exit {spread}; lock left naming its process: {kept}")
        _tmux(socket, "kill-server")
    return 0


if __name__ == "__main__":
    sys.exit(main())
