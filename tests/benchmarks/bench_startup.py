"""Benchmark of the start-up as a player installs the game (a script, not collected by pytest).

The README's first command installs the game normally (``pip install .``, not editable). This
script does the same: it copies the source tree, installs it into a fresh virtual environment
(``python -m venv`` and ``pip install``, pip's own index and build isolation, as a player's
machine has them) and runs everything from there, so that the imports are those of an installed
package with its compiled bytecode (an editable install's finder is asked about every import).

In a real terminal, a fresh detached tmux session of each size (80x24 and 120x40) on a private
server, it launches in turn, ``--runs`` times each:

* a bare Textual app (Header, Static, Footer) with the venv's Python, until its text is drawn;
* ``kings-corners play --seed N --opponents greedy`` (the venv's command), until the table's
  footer and hand are drawn;
* ``kings-corners`` (the main menu, as at a first start), until its Quit button and footer are.

Each launch has a data folder, settings and home of its own. Measured: the wall time from
``tmux new-session`` to the first ``capture-pane`` (polled every 5 ms) that shows the drawn
screen, and the CPU time the process had used by then (from /proc, 10 ms steps: a measure a busy
machine moves less). Printed: the medians, the ratio of each to the bare app's (target for the
table: <= 1.5) and the load average, which a shared machine moves (read the wall times with it).

Run: ``python tests/benchmarks/bench_startup.py [--runs 7] [--seed 3] [--venv DIR] [--keep]
[--baseline DIR]`` (``--venv DIR``: use the environment DIR holds, made by an earlier ``--keep``
run, instead of installing again; ``--baseline DIR``: also the table and the menu of the game
another such environment holds, e.g. of the commit before a change, launched in turn: the A/B).
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.benchmarks.bench_app import BARE_APP, BARE_DRAWN, GAME_DRAWN, _tmux, poll_frame  # noqa: E402

SIZES: tuple[tuple[int, int], ...] = ((80, 24), (120, 40))
#: What only the drawn menu shows: its last button and the footer's palette key.
MENU_DRAWN = ("Quit  (q)", "^p palette")
#: What a copy of the source tree for the install leaves out.
NOT_COPIED = (".git", ".venv", "venv", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis")

Frame = dict[str, float]


def install(venv: Path) -> None:
    """A fresh virtual environment at ``venv`` with the game installed from a copy of the source
    tree as the README's first command installs it (not editable)."""
    with tempfile.TemporaryDirectory(prefix="kc-bench-src-") as tmp:
        src = Path(tmp) / "src"
        shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(*NOT_COPIED))
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(src)], check=True)


def _launch_env(home: Path) -> dict[str, str]:
    """What a launch is given: a home, data folder and settings of its own (a first start)."""
    home.mkdir(parents=True)
    env = {"HOME": str(home)}
    for key, folder in (("DATA", "data"), ("CONFIG", "config"), ("STATE", "state"), ("CACHE", "cache")):
        env[f"XDG_{key}_HOME"] = str(home / folder)
    env["KINGS_CORNERS_DATA"] = str(home / "kc-data")
    env["KINGS_CORNERS_CONFIG"] = str(home / "kc-settings.toml")
    return env


def frame(
    socket: str, name: str, command: list[str], drawn: tuple[str, ...], size: tuple[int, int], home: Path
) -> Frame:
    """Seconds from launching ``command`` in a fresh detached tmux session of ``size`` to the first
    capture of its pane that shows every text of ``drawn`` (``wall``), and the CPU seconds the
    process had used by then (``cpu``); the session is then killed."""
    env = _launch_env(home)
    # No source tree on the path and the installed bytecode read as it is (no cache prefix).
    unset = ["-u", "PYTHONPATH", "-u", "PYTHONPYCACHEPREFIX", "-u", "PYTHONHOME"]
    line = "exec " + shlex.join(["env", *unset, *(f"{k}={v}" for k, v in env.items()), *command])
    start = time.perf_counter()
    _tmux(socket, "new-session", "-d", "-x", str(size[0]), "-y", str(size[1]), "-c", str(home), "-s", name, line)
    return poll_frame(socket, name, start, drawn)


def measure(
    venv: Path, runs: int, seed: int, baseline: Path | None = None
) -> dict[tuple[int, int], dict[str, list[Frame]]]:
    """The first frames of the bare app, the table and the menu at each size (and of the table
    and menu of ``baseline``'s game), launched in turn."""
    launches: dict[str, tuple[list[str], tuple[str, ...]]] = {
        "bare": ([str(venv / "bin" / "python"), "-c", BARE_APP], BARE_DRAWN)
    }
    for suffix, env in (("", venv), ("_baseline", baseline)):
        if env is not None:
            command = str(env / "bin" / "kings-corners")
            launches[f"play{suffix}"] = ([command, "play", "--seed", str(seed), "--opponents", "greedy"], GAME_DRAWN)
            launches[f"menu{suffix}"] = ([command], MENU_DRAWN)
    frames: dict[tuple[int, int], dict[str, list[Frame]]] = {size: {kind: [] for kind in launches} for size in SIZES}
    socket = f"kc-bench-start-{os.getpid()}"
    homes = Path(tempfile.mkdtemp(prefix="kc-bench-homes-"))
    # The server runs for the whole run (a session of its own keeps it up): no launch pays its start.
    _tmux(socket, "new-session", "-d", "-x", "80", "-y", "24", "-s", "keep", "sleep 100000")
    count = 0
    try:
        for kind, (argv, drawn) in launches.items():  # not counted: the files into the page cache
            count += 1
            frame(socket, f"warm-{kind}", argv, drawn, SIZES[0], homes / str(count))
        for run in range(runs):
            for size in SIZES:
                for kind, (argv, drawn) in launches.items():
                    count += 1
                    frames[size][kind].append(frame(socket, f"{kind}-{run}", argv, drawn, size, homes / str(count)))
    finally:
        _tmux(socket, "kill-server")
        shutil.rmtree(homes, ignore_errors=True)
    return frames


def _median_ms(frames: list[Frame], key: str) -> float:
    return statistics.median(f[key] for f in frames) * 1000


def report(frames: dict[tuple[int, int], dict[str, list[Frame]]], load: tuple[float, float]) -> None:
    for size, kinds in frames.items():
        label = f"{size[0]}x{size[1]}"
        wall = {kind: _median_ms(times, "wall") for kind, times in kinds.items()}
        cpu = {kind: _median_ms(times, "cpu") for kind, times in kinds.items()}
        for kind, times in kinds.items():
            shown = " ".join(f"{t['wall'] * 1000:.0f}" for t in times)
            print(f"{label} {kind}_first_frame_ms_median: {wall[kind]:.0f} (cpu {cpu[kind]:.0f}; runs: {shown})")
        for kind in (kind for kind in kinds if kind != "bare"):
            print(f"{label} {kind}_bare_ratio: {wall[kind] / wall['bare']:.2f} (cpu {cpu[kind] / cpu['bare']:.2f})")
        met = "yes" if wall["play"] / wall["bare"] <= 1.5 else "no"
        print(f"{label} play_bare_ratio_target_met: {met} (target <= 1.5)")
    print(f"load_average: {load[0]:.1f} before, {load[1]:.1f} after, on {os.cpu_count()} CPUs")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--venv", type=Path, help="an environment with the game installed (from --keep)")
    parser.add_argument("--keep", action="store_true", help="keep the environment made, and say where")
    parser.add_argument("--baseline", type=Path, help="also the game of this environment (from --keep), in turn")
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        raise SystemExit("bench_startup.py needs tmux on the PATH")
    made = args.venv is None
    venv = args.venv or Path(tempfile.mkdtemp(prefix="kc-bench-venv-")) / "venv"
    try:
        if made:
            print(f"installing the game into {venv} (pip install ., not editable)...", flush=True)
            install(venv)
        before = os.getloadavg()[0]
        frames = measure(venv, args.runs, args.seed, args.baseline)
        report(frames, (before, os.getloadavg()[0]))
    finally:
        if made and not args.keep:
            shutil.rmtree(venv.parent, ignore_errors=True)
        elif made:
            print(f"the environment is kept: --venv {venv}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
