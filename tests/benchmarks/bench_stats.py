"""Benchmark of the game history (a script, not collected by pytest), with 10,000 recorded matches:

* recording a round (one transaction, as the game does after every round; target <= 10 ms):
  the median and 95th percentile of ``--rounds`` rounds recorded into the full history;
* (the Stats screen's first frame is measured by the screen's half of this script.)

The history is filled by :func:`fill`: a few matches played by AIs through the engine with a fixed
seed, copied under new ids until there are ``n_matches``.

Run: ``python tests/benchmarks/bench_stats.py [--matches 10000] [--rounds 200] [--seed N]``
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from kc_tui.records.rows import MatchRecord
from kc_tui.records.store import History

#: The tables the played matches are made of: (the human's stand-in kind, opponents' kinds).
TABLES: tuple[tuple[str, ...], ...] = (
    ("greedy", "greedy"),
    ("greedy", "king-aware"),
    ("greedy", "greedy", "king-aware"),
    ("greedy", "king-aware", "greedy", "greedy"),
)


def _isolate() -> Path:
    tmp = Path(tempfile.mkdtemp(prefix="kc-bench-stats-"))
    os.environ["KINGS_CORNERS_DATA"] = str(tmp / "data")
    os.environ["KINGS_CORNERS_CONFIG"] = str(tmp / "settings.toml")
    return tmp


def play_match(kinds: Sequence[str], seed: int, *, demo: bool = False) -> MatchRecord:
    """A match played to its end by AIs of ``kinds`` through the engine; seat 0 is recorded as the
    human (unless ``demo``). Its record as :meth:`History.match` would give it (id 0)."""
    from tests.historykit import play_recorded

    return play_recorded(
        kinds,
        seed,
        human=None if demo else 0,
        start=datetime(2024, 1, 1, tzinfo=UTC) + timedelta(minutes=seed % 100_000),
        minutes_per_round=3,
        player_seed=31,
        hints=lambda n: 0 if demo else (seed + n) % 3,
        undos=lambda n: 0 if demo else (seed + n) % 2,
        seat_name=lambda _i, k: k.capitalize(),
        think_ms=1000,
    )


def fill(history: History, n_matches: int, *, seed: int = 7, played: int = 24, batch: int = 500) -> None:
    """Record ``n_matches`` realistic matches: ``played`` matches played by greedy and king-aware
    AIs with seeds from ``seed`` (one in ten a demo), copied under new ids and later times."""
    base = [play_match(TABLES[i % len(TABLES)], seed + i, demo=i % 10 == 9) for i in range(min(played, n_matches))]
    done = 0
    while done < n_matches:
        chunk = []
        for k in range(done, min(done + batch, n_matches)):
            m = base[k % len(base)]
            shift = timedelta(hours=k)
            chunk.append(
                MatchRecord(
                    id=0,
                    started_at=m.started_at + shift,
                    finished_at=None if m.finished_at is None else m.finished_at + shift,
                    demo=m.demo,
                    seats=m.seats,
                    rules=m.rules,
                    seed=m.seed,
                    first_dealer=m.first_dealer,
                    winners=m.winners,
                    totals=m.totals,
                    rounds=tuple(dataclasses.replace(r, played_at=r.played_at + shift) for r in m.rounds),
                )
            )
        history.add_matches(chunk)
        done += len(chunk)


def _percentile(xs: Sequence[float], q: float) -> float:
    ordered = sorted(xs)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def bench_record(history: History, rounds: int, seed: int) -> dict[str, float]:
    """Record a new match's rounds one at a time (as the game does), ``rounds`` of them; ms each."""
    m = play_match(TABLES[1], seed + 10_000)
    times: list[float] = []
    while len(times) < rounds:
        match_id = history.start_match(
            seats=m.seats, rules=m.rules, seed=m.seed, first_dealer=m.first_dealer, started_at=datetime.now(UTC)
        )
        for r in m.rounds:
            t0 = time.perf_counter()
            history.record_round(match_id, r)
            times.append((time.perf_counter() - t0) * 1000)
        history.finish_match(match_id, winners=m.winners, totals=m.totals)
    return {
        "record_round_ms_median": statistics.median(times),
        "record_round_ms_p95": _percentile(times, 0.95),
    }


def bench_read(history: History, runs: int = 5) -> dict[str, float]:
    """What the Stats screen reads (ms, median of ``runs``): the summary, the newest 50 matches,
    every match (without rounds)."""
    out: dict[str, float] = {}
    for name, read in (
        ("summary_ms", history.summary),
        ("matches_50_ms", lambda: history.matches(limit=50)),
        ("matches_all_ms", history.matches),
    ):
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            read()
            times.append((time.perf_counter() - t0) * 1000)
        out[name] = statistics.median(times)
    return out


def bench_screen(history: History, runs: int = 7) -> dict[str, float]:
    """The Stats screen over the full history, in a headless app at 120x40 (ms, median of ``runs``):
    its first frame (from pushing the screen to the first frame of it handed to the terminal: the
    count, the newest page of matches listed, the summary loading; target <= 300 ms), and until
    its thread has posted the summary and the rating (the screen complete)."""
    import asyncio
    from typing import Any

    from textual.app import App

    from kc_tui.ui.screens.stats import StatsScreen

    async def once() -> tuple[float, float]:
        app: App[None] = App()
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            shown = asyncio.get_running_loop().create_future()
            screen = StatsScreen(history)
            display = app._display

            def first_frame(on: Any, update: Any) -> None:
                if on is screen and update is not None and not shown.done():
                    shown.set_result(time.perf_counter())
                display(on, update)

            app._display = first_frame  # type: ignore[method-assign,assignment]
            t0 = time.perf_counter()
            await app.push_screen(screen)
            first = await shown
            while screen.rating is None and not screen.problem:
                await asyncio.sleep(0.005)
            return (first - t0) * 1000, (time.perf_counter() - t0) * 1000

    frames, full = zip(*(asyncio.run(once()) for _ in range(runs)), strict=True)
    return {"stats_first_frame_ms": statistics.median(frames), "stats_complete_ms": statistics.median(full)}


def main(argv: Sequence[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    tmp = _isolate()
    path = tmp / "history.sqlite3"
    history, message = History.open(path)
    assert message is None, message
    t0 = time.perf_counter()
    fill(history, args.matches, seed=args.seed)
    fill_s = time.perf_counter() - t0
    results: dict[str, float] = {"matches": history.count_matches() + history.count_matches(demos=True)}
    results.update(bench_record(history, args.rounds, args.seed))
    results.update(bench_read(history))
    results.update(bench_screen(history))
    history.close()
    print(f"history: {path} ({path.stat().st_size / 1e6:.1f} MB, filled in {fill_s:.1f} s)")
    print(f"matches recorded: {results['matches']:.0f}")
    print(
        f"record_round_ms_median: {results['record_round_ms_median']:.2f}  "
        f"record_round_ms_p95: {results['record_round_ms_p95']:.2f}  (target <= 10 ms a round)"
    )
    print(
        f"summary_ms: {results['summary_ms']:.1f}  matches_50_ms: {results['matches_50_ms']:.1f}  "
        f"matches_all_ms: {results['matches_all_ms']:.1f}"
    )
    print(
        f"stats_first_frame_ms: {results['stats_first_frame_ms']:.0f} (target <= 300 ms)  "
        f"stats_complete_ms: {results['stats_complete_ms']:.0f}"
    )
    return results


if __name__ == "__main__":
    main()
