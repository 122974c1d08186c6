"""Benchmark of the app (a script, not collected by pytest):

* time from launch to the first frame of a seeded match (target <= 1 s): each launch is a
  fresh process (imports included) with the default settings, headless; median of ``--runs``;
* the same for a bare Textual app (Header, Static, Footer), its launches taken in turn with the
  game's in the same run, and the ratio of the two medians (target <= 1.5);
* the same with the game history write-locked by another process (as the sqlite3 shell or DB
  Browser hold it while editing), launches taken in turn with the unlocked ones in the same run:
  within 10% of the unlocked figure (the UI never waits on SQLite);
* every launch reads its modules' bytecode from a cache (as an installed app does from its
  ``__pycache__``): the children write it to a folder of the run's own, filled by a launch of each
  app that is not counted (``PYTHONDONTWRITEBYTECODE`` would make every launch compile the
  package's source again, and only the package's: Textual's bytecode comes with its install);
* peak memory while the app's demo screen plays a seeded AI-vs-AI match to its end at top
  speed (target <= 150 MB resident).

With ``--tmux``, instead: the first frame in a real terminal, ``kings-corners play --seed N
--opponents greedy`` against a bare Textual app (Header, Static, Footer) run for real, launches
taken in turn, each in a fresh detached tmux session of 80x24 on a private server: wall time from
the launch to the first ``capture-pane`` showing the drawn screen (the game's footer and hand;
the bare app's text), polled every 5 ms; medians of ``--runs`` and their ratio (target <= 1.5).

``--baseline DIR`` adds, in turn, the game of another source tree (a checkout of another commit):
the A/B measure of a change.

Run: ``python tests/benchmarks/bench_app.py [--seed N] [--runs 5] [--tmux [--baseline DIR]]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


def _isolate() -> None:
    """A data folder and settings of this launch's own (every launch starts as a new player's)."""
    tmp = tempfile.mkdtemp(prefix="kc-bench-")
    os.environ["KINGS_CORNERS_DATA"] = os.path.join(tmp, "data")
    os.environ["KINGS_CORNERS_CONFIG"] = os.path.join(tmp, "settings.toml")


Frames = list[dict[str, float]]


def _first_frames(seed: int, runs: int) -> tuple[Frames, Frames, Frames]:
    """First frames of a bare Textual app and of the game on fresh data folders holding a
    history, unlocked and write-locked by another process, taken in turn."""
    from kc_tui.records.store import History
    from tests.faultkit import lock_held

    bare: Frames = []
    plain: Frames = []
    locked: Frames = []
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="kc-bench-pyc-")
    _isolate()
    _child("bare_frame", seed), _child("first_frame", seed)  # they fill the bytecode cache
    for _ in range(runs):
        bare.append(_child("bare_frame", seed))
        for results, lock in ((plain, False), (locked, True)):
            _isolate()
            path = Path(os.environ["KINGS_CORNERS_DATA"]) / "history.sqlite3"
            History.open(path)[0].close()
            if not lock:
                results.append(_child("first_frame", seed))
                continue
            with lock_held(path, "write"):
                results.append(_child("first_frame", seed))
    return bare, plain, locked


async def _first_frame(seed: int) -> dict[str, float]:
    """In a fresh process: seconds (wall, CPU) from the first import to the table's first frame."""
    import time

    start, cpu = time.perf_counter(), time.process_time()
    from kc_tui.config import Config
    from kc_tui.ui.app import KingsCornersApp, StartOptions
    from kc_tui.ui.screens.game import GameScreen

    app = KingsCornersApp(Config(), None, "play", StartOptions(seed=seed))
    async with app.run_test(size=(120, 40)) as pilot:
        while not isinstance(app.screen, GameScreen):
            await asyncio.sleep(0.001)
        await pilot.pause()  # the table has been composed and painted once
        return {"wall": time.perf_counter() - start, "cpu": time.process_time() - cpu}


async def _bare_frame() -> dict[str, float]:
    """In a fresh process: seconds (wall, CPU) from the first import to the first frame of a bare
    Textual app (Header, Static, Footer), measured as :func:`_first_frame` measures the game."""
    import time

    start, cpu = time.perf_counter(), time.process_time()
    from textual.app import App, ComposeResult
    from textual.widgets import Footer, Header, Static

    class Bare(App[None]):
        def compose(self) -> ComposeResult:
            yield Header()
            yield Static("Hello")
            yield Footer()

    app = Bare()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        return {"wall": time.perf_counter() - start, "cpu": time.process_time() - cpu}


async def _demo_match(seed: int) -> dict[str, float]:
    """In a fresh process: the demo screen plays a whole match at top speed; peak RSS in MB."""
    import resource
    import time

    from kc_tui.config import Config
    from kc_tui.ui.app import KingsCornersApp, StartOptions
    from kc_tui.ui.screens.demo import DemoScreen

    seats = ["greedy", "king-aware", "lookahead", "expert"]
    app = KingsCornersApp(Config(), None, "demo", StartOptions(seed=seed, seats=seats, pace="instant"))
    start = time.perf_counter()
    async with app.run_test(size=(120, 40)) as pilot:
        while not isinstance(app.screen, DemoScreen):
            await pilot.pause(0.01)
        demo = app.screen
        session = demo.session
        while not session.match.over and time.perf_counter() - start < 600:
            await pilot.pause(0.1)
        rounds = len(session.match.results)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"rss_mb": rss, "rounds": rounds, "seconds": time.perf_counter() - start, "over": session.match.over}


def _child(kind: str, seed: int) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", kind, "--seed", str(seed)],
        capture_output=True,
        text=True,
        check=True,
        env=os.environ.copy(),
    )
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


BARE_APP = """
from textual.app import App
from textual.widgets import Footer, Header, Static


class Bare(App[None]):
    def compose(self):
        yield Header()
        yield Static("Hello, bare Textual")
        yield Footer()


Bare().run()
"""

# What only the drawn screen shows: the game's footer and its hand's label; the bare app's text.
GAME_DRAWN = ("^q Quit", " You ")
BARE_DRAWN = ("Hello, bare Textual",)


def _tmux(socket: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["tmux", "-L", socket, *args], capture_output=True, text=True, check=False)


def _tmux_frame(
    socket: str, name: str, command: list[str], drawn: tuple[str, ...], tree: str = ROOT
) -> dict[str, float]:
    """Seconds from launching ``command`` (in the source tree ``tree``) in a fresh detached 80x24
    tmux session to the first capture of its pane that shows every text of ``drawn`` (``wall``),
    and the CPU seconds the process had used by then (``cpu``, from /proc: a measure a busy
    machine moves less); the session is then killed."""
    env = {**_tmux_env(), "PYTHONPATH": tree}
    line = "exec env " + shlex.join([f"{k}={v}" for k, v in env.items()] + command)
    start = time.perf_counter()
    _tmux(socket, "new-session", "-d", "-x", "80", "-y", "24", "-c", tree, "-s", name, line)
    return poll_frame(socket, name, start, drawn)


def poll_frame(socket: str, name: str, start: float, drawn: tuple[str, ...]) -> dict[str, float]:
    """The tmux session ``name``, launched at ``start`` (``time.perf_counter``), polled every 5 ms
    until its pane shows every text of ``drawn``: the seconds since ``start`` (``wall``) and the
    CPU seconds its process had used (``cpu``); the session is then killed."""
    pid = _tmux(socket, "display-message", "-p", "-t", name, "#{pane_pid}").stdout.strip()
    screen = ""
    try:
        while time.perf_counter() - start < 30:
            screen = _tmux(socket, "capture-pane", "-p", "-t", name).stdout
            if all(text in screen for text in drawn):
                return {"wall": time.perf_counter() - start, "cpu": _cpu_seconds(pid)}
            time.sleep(0.005)
        raise RuntimeError(f"{name}: no first frame in 30 s:\n{screen}")
    finally:
        _tmux(socket, "kill-session", "-t", name)


def _cpu_seconds(pid: str) -> float:
    """The user and system CPU seconds process ``pid`` has used (NaN where /proc cannot tell)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _tmux_env() -> dict[str, str]:
    """What a launch in tmux is given: this run's data folder, settings and bytecode cache, and a
    home of its own (nothing is written to the user's folders)."""
    keys: tuple[str, ...] = ("KINGS_CORNERS_DATA", "KINGS_CORNERS_CONFIG", "PYTHONPYCACHEPREFIX", "HOME")
    keys += ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME")
    return {key: os.environ[key] for key in keys if key in os.environ}


def _tmux_frames(seed: int, runs: int, baseline: str | None) -> dict[str, Frames]:
    """First frames in tmux of a bare Textual app, of the game and (given ``baseline``, another
    source tree of the game) of the game as ``baseline`` has it, launches taken in turn."""
    if shutil.which("tmux") is None:
        raise SystemExit("--tmux needs tmux on the PATH")
    socket = f"kc-bench-{os.getpid()}"
    home = tempfile.mkdtemp(prefix="kc-bench-home-")
    os.environ["HOME"] = home
    for key, folder in (("DATA", "data"), ("CONFIG", "config"), ("STATE", "state"), ("CACHE", "cache")):
        os.environ[f"XDG_{key}_HOME"] = os.path.join(home, folder)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="kc-bench-pyc-")
    game = [sys.executable, "-m", "kc_tui", "play", "--seed", str(seed), "--opponents", "greedy"]
    bare_app = [sys.executable, "-c", BARE_APP]
    trees = {"game": ROOT} | ({"baseline": os.path.abspath(baseline)} if baseline else {})
    frames: dict[str, Frames] = {"bare": [], **{kind: [] for kind in trees}}
    # The server runs for the whole run (a session of its own keeps it up): no launch pays its start.
    _tmux(socket, "new-session", "-d", "-x", "80", "-y", "24", "-s", "keep", "sleep 100000")
    try:
        _isolate()
        _tmux_frame(socket, "warm-bare", bare_app, BARE_DRAWN)  # they fill the bytecode cache
        for kind, tree in trees.items():
            _isolate()  # a killed game saves its match: every launch has a data folder of its own
            _tmux_frame(socket, f"warm-{kind}", game, GAME_DRAWN, tree)
        for run in range(runs):
            frames["bare"].append(_tmux_frame(socket, f"bare-{run}", bare_app, BARE_DRAWN))
            for kind, tree in trees.items():
                _isolate()
                frames[kind].append(_tmux_frame(socket, f"{kind}-{run}", game, GAME_DRAWN, tree))
    finally:
        _tmux(socket, "kill-server")
    return frames


def _tmux_main(seed: int, runs: int, baseline: str | None) -> int:
    frames = _tmux_frames(seed, runs, baseline)
    names = {
        "game": "tmux_first_frame",
        "bare": "tmux_bare_textual_first_frame",
        "baseline": "tmux_baseline_first_frame",
    }
    wall = {kind: _median_ms(times, "wall") for kind, times in frames.items()}
    cpu = {kind: _median_ms(times, "cpu") for kind, times in frames.items()}
    for kind, times in frames.items():
        shown = " ".join(f"{t['wall'] * 1000:.0f}" for t in times)
        print(f"{names[kind]}_ms_median: {wall[kind]:.0f} (cpu {cpu[kind]:.0f}; runs: {shown})")
    for kind in ("game", "baseline") if baseline else ("game",):
        ratio = wall[kind] / wall["bare"]
        print(f"{names[kind]}_bare_ratio: {ratio:.2f} (cpu {cpu[kind] / cpu['bare']:.2f})")
    ratio = wall["game"] / wall["bare"]
    print(f"tmux_first_frame_bare_ratio_target_met: {_met(ratio <= 1.5)} (target <= 1.5)")
    print(f"load_average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    return 0


def _median_ms(frames: Frames, key: str) -> float:
    """The median of ``key`` (seconds) over ``frames``, in milliseconds."""
    return statistics.median(r[key] for r in frames) * 1000


def _met(ok: bool) -> str:
    return "yes" if ok else "no"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tmux", action="store_true", help="first frames in tmux, against a bare Textual app")
    parser.add_argument("--baseline", metavar="DIR", help="with --tmux: also the game of this source tree, in turn")
    parser.add_argument("--child", choices=["first_frame", "bare_frame", "demo"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child == "first_frame":  # a child uses the data folder its parent made for it
        print(json.dumps(asyncio.run(_first_frame(args.seed))))
        return 0
    if args.child == "bare_frame":
        print(json.dumps(asyncio.run(_bare_frame())))
        return 0
    if args.child == "demo":
        print(json.dumps(asyncio.run(_demo_match(args.seed))))
        return 0
    if args.tmux:
        return _tmux_main(args.seed, args.runs, args.baseline)

    bare, runs, locked = _first_frames(args.seed, args.runs)
    wall = _median_ms(runs, "wall")
    cpu = _median_ms(runs, "cpu")
    print(f"first_frame_ms_median: {wall:.0f}")
    print(f"first_frame_cpu_ms_median: {cpu:.0f}")
    print(f"first_frame_ms_max: {max(r['wall'] for r in runs) * 1000:.0f}")
    print(f"first_frame_target_met: {_met(wall <= 1000)} (target <= 1000 ms)")
    wall_bare = _median_ms(bare, "wall")
    cpu_bare = _median_ms(bare, "cpu")
    bare_ratio = wall / wall_bare
    print(f"bare_textual_first_frame_ms_median: {wall_bare:.0f}")
    print(f"bare_textual_first_frame_cpu_ms_median: {cpu_bare:.0f}")
    print(f"first_frame_bare_ratio: {bare_ratio:.2f} (cpu {cpu / cpu_bare:.2f})")
    print(f"first_frame_bare_ratio_target_met: {_met(bare_ratio <= 1.5)} (target <= 1.5)")
    wall_locked = _median_ms(locked, "wall")
    ratio = wall_locked / wall
    print(f"first_frame_history_locked_ms_median: {wall_locked:.0f}")
    print(f"first_frame_history_locked_ratio: {ratio:.2f}")
    print(f"first_frame_history_locked_target_met: {_met(ratio <= 1.10)} (target: within 10%)")
    print(f"load_average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    _isolate()
    demo = _child("demo", args.seed)
    print(f"demo_match_rounds: {demo['rounds']:.0f} (finished: {bool(demo['over'])})")
    print(f"demo_match_seconds: {demo['seconds']:.1f}")
    print(f"peak_rss_mb: {demo['rss_mb']:.0f}")
    print(f"peak_memory_target_met: {_met(demo['rss_mb'] <= 150)} (target <= 150 MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
