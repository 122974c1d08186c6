"""Benchmark of the app (a script, not collected by pytest):

* time from launch to the first frame of a seeded match (target <= 1 s);
* peak memory while a seeded AI-vs-AI match is played to its end (target <= 150 MB).

Run: ``/work/venv/bin/python tests/benchmarks/bench_app.py [--seed N]``
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import sys
import tempfile
import time
import tracemalloc


def _isolate() -> None:
    tmp = tempfile.mkdtemp(prefix="kc-bench-")
    os.environ["KINGS_CORNERS_DATA"] = os.path.join(tmp, "data")
    os.environ["KINGS_CORNERS_CONFIG"] = os.path.join(tmp, "settings.toml")


async def first_frame(seed: int) -> tuple[float, float]:
    """Seconds (wall, CPU) from creating the app (imports included) to its first painted frame
    of the table. CPU time is shown too because a shared machine inflates wall time."""
    start, cpu = time.perf_counter(), time.process_time()
    from kc_tui.config import Config
    from kc_tui.ui.app import KingsCornersApp, StartOptions
    from kc_tui.ui.screens.game import GameScreen

    app = KingsCornersApp(Config(pace="instant"), None, "play", StartOptions(seed=seed))
    async with app.run_test(size=(120, 40)) as pilot:
        while not isinstance(app.screen, GameScreen):
            await asyncio.sleep(0.001)
        await pilot.pause()  # the first frame of the table has been composed and painted
        elapsed = time.perf_counter() - start, time.process_time() - cpu
    return elapsed


def ai_match(seed: int) -> tuple[int, int, float]:
    """Play a seeded all-AI match to the end; (rounds, moves, seconds)."""
    from kc_tui.session import MatchSession

    s = MatchSession.all_ai(["greedy", "king-aware", "lookahead"], seed=seed)
    moves, start = 0, time.perf_counter()
    while not s.match_over:
        if s.round_over:
            s.finish_round()
            continue
        s.step_ai()
        moves += 1
    return len(s.results), moves, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    _isolate()
    t, cpu = asyncio.run(first_frame(args.seed))
    verdict = "OK" if t <= 1 else "SLOW"
    print(f"launch to first frame: {t * 1000:.0f} ms wall, {cpu * 1000:.0f} ms CPU (target <= 1000 ms) {verdict}")
    print(f"load average now: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    tracemalloc.start()
    rounds, moves, secs = ai_match(args.seed)
    _, peak_py = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"AI-vs-AI match (seed {args.seed}): {rounds} rounds, {moves} moves in {secs:.1f} s")
    print(
        f"peak memory: {rss_mb:.0f} MB resident (target <= 150 MB) {'OK' if rss_mb <= 150 else 'HIGH'};"
        f" Python heap peak during the match {peak_py / 2**20:.1f} MB"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
