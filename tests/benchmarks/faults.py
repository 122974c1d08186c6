"""Every fault scenario end to end, against the real app and the real command line in child
processes (a script, not collected by pytest):

    python tests/benchmarks/faults.py             # every scenario
    python tests/benchmarks/faults.py --only lock  # the scenarios whose name contains "lock"

Faults are made for real: a full disk is a 256 KiB tmpfs (root only: otherwise those scenarios
say "skipped"), a lock is a second process holding SQLite's write or exclusive lock, a second
window is a second app process, a read-only folder is a tmpfs remounted read-only, a signal or
a terminal's encoding is the real app on a pseudo-terminal. Each scenario checks three things
and prints one line:

- crashed: a child ended with a traceback, a signal or an unexpected exit code;
- untruthful: a message that should have been said was not (or said "saved" when nothing was);
- lost: once the fault is gone, a finished round is missing from the history or in it twice, a
  file the program should not have touched changed, or the save differs from the screen while
  the screen said it was saved.

The last line is ``scenarios: N, lost: L, crashed: C, untruthful: U`` (exit status 1 unless all
three are 0).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


# ---------------------------------------------------------------------- the child: the app, headless
async def _child_app(plan: dict[str, Any]) -> dict[str, Any]:
    """Run the app headless through ``plan`` (steps below); what it said and showed."""
    from textual import events

    from kc_tui.config.store import load_config
    from kc_tui.engine import Rules
    from kc_tui.ui.app import KingsCornersApp, StartOptions
    from kc_tui.ui.dialogs.summary import MatchSummary, RoundSummary
    from kc_tui.ui.screens.game import GameScreen
    from tests.ui.gamekit import first_move

    config, warning = load_config(plan.get("config"))
    config = config.with_(pace="instant", rules=Rules(target=int(plan.get("target", 15))))
    if "player_name" in plan:
        config = config.with_(player_name=plan["player_name"])
    notes: list[str] = [warning] if warning else []
    app = KingsCornersApp(config, None, plan.get("mode", "play"), StartOptions(seed=plan.get("seed", 3)))
    app.notify = lambda message, **_: notes.append(message)  # type: ignore[method-assign]
    out: dict[str, Any] = {"notes": notes}
    started = time.perf_counter()

    async def settle(pilot: Any) -> GameScreen | None:
        for _ in range(2000):
            await pilot.pause(0.01)
            game = app.game
            if game is None:
                continue
            if app.screen is not game or (not game.busy and not game._hint_busy):
                return game
        return app.game

    async def move(pilot: Any) -> bool:
        """One move of the human's; False once a summary is up."""
        game = await settle(pilot)
        if game is None or app.screen is not game:
            return False
        first_move(game)
        return True

    def text() -> str:
        import html
        import re

        svg = re.sub(r"<style.*?</style>", "", app.export_screenshot(), flags=re.S)
        return html.unescape(re.sub(r"<[^>]+>", "", svg)).replace("\xa0", " ")

    lag = {"max": 0.0}

    async def watch_loop() -> None:
        """The longest the UI's event loop was kept from running (a freeze shows here)."""
        while True:
            t = time.perf_counter()
            await asyncio.sleep(0.02)
            lag["max"] = max(lag["max"], time.perf_counter() - t - 0.02)

    async with app.run_test(size=(120, 40)) as pilot:
        watcher = asyncio.get_running_loop().create_task(watch_loop())
        await pilot.pause()
        for step in plan.get("steps", []):
            kind = step[0]
            if kind == "moves":
                for _ in range(step[1]):
                    if not await move(pilot):
                        break
            elif kind == "until":
                want = {"round": RoundSummary, "match": MatchSummary}[step[1]]
                for _ in range(800):
                    if isinstance(app.screen, want):
                        break
                    if isinstance(app.screen, RoundSummary):
                        app.screen.action_close()
                        await pilot.pause()
                        continue
                    await move(pilot)
                out["reached"] = isinstance(app.screen, want)
            elif kind == "wait_note":
                end = time.monotonic() + step[2]
                while time.monotonic() < end and not any(step[1] in n for n in notes):
                    await pilot.pause(0.05)
            elif kind == "wait":
                await pilot.pause(step[1])
            elif kind == "resume":
                app.action_resume()
                await settle(pilot)
            elif kind == "quit_dialog":
                await pilot.press("ctrl+q")
                await pilot.pause(0.2)
                out["quit_dialog"] = text()
                await pilot.press("n")
                await pilot.pause()
            elif kind == "stats":
                app.action_stats()
                await pilot.pause(0.5)
                for key in step[1:]:
                    await pilot.press(key)
                    await pilot.pause(0.3)
                out["stats"] = text()
            elif kind == "screen":
                out["screen"] = text()
            elif kind == "action":  # ["action", name]: app.action_<name>(), e.g. settings
                getattr(app, f"action_{step[1]}")()
                await pilot.pause(0.5)
            elif kind == "press":  # ["press", key, ...]
                for key in step[1:]:
                    await pilot.press(key)
                    await pilot.pause(0.2)
            elif kind == "paste":  # ["paste", selector, length]: a paste of ``length`` characters
                widget = app.screen.query_one(step[1])
                widget.focus()
                widget.post_message(events.Paste("x" * int(step[2])))
                await pilot.pause(0.5)
            elif kind == "value":  # ["value", selector]: the widget's value, in out["values"]
                out.setdefault("values", {})[step[1]] = str(getattr(app.screen.query_one(step[1]), "value", ""))
            elif kind == "mark":  # ["mark", path]: tell the parent this step was reached
                Path(step[1]).write_text("reached")
            elif kind == "wait_file":  # ["wait_file", path, seconds]: until the parent says go on
                end = time.monotonic() + step[2]
                while time.monotonic() < end and not Path(step[1]).exists():
                    await pilot.pause(0.05)
        game = app.game
        if game is not None:
            s = game.session
            out["saved"] = s.saved
            out["save_problem"] = s.save_problem
            out["position"] = {k: v for k, v in s.to_dict().items() if k != "log"}
            out["rounds_finished"] = len(s.match.results)
            out["match_over"] = s.match.over
        out["look_only"] = app.look_only
        out["seconds"] = time.perf_counter() - started
        watcher.cancel()
        out["max_loop_lag_s"] = lag["max"]
    return out


def _child_main(plan_path: str) -> int:
    plan = json.loads(Path(plan_path).read_text())
    out = asyncio.run(_child_app(plan))
    print("RESULT " + json.dumps(out, default=str))
    return 0


# ---------------------------------------------------------------------- the parent
QUICK_SETTINGS = '[[opponents]]\nname = "Greedy"\nkind = "greedy"\nthink_ms = 50\n'


def quick(s: Scene) -> None:
    """Unless the scenario wrote settings of its own: one Greedy opponent that thinks 50 ms (a
    round takes a few seconds)."""
    settings = Path(s.env["KINGS_CORNERS_CONFIG"])
    if not settings.exists() and settings.parent.is_dir():
        settings.write_text(QUICK_SETTINGS)


@dataclass
class Outcome:
    name: str
    crashed: list[str] = field(default_factory=list)
    untruthful: list[str] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)
    skipped: str | None = None
    note: str = ""


@dataclass
class Ran:
    code: int
    out: str
    err: str
    result: dict[str, Any]


class Scene:
    """A scenario's folder, its environment, and helpers to run the app and the command line."""

    def __init__(self, outcome: Outcome, folder: Path) -> None:
        self.outcome = outcome
        self.folder = folder
        self.data = folder / "data"
        self.env = {
            **os.environ,
            "KINGS_CORNERS_DATA": str(self.data),
            "KINGS_CORNERS_CONFIG": str(folder / "settings.toml"),
            "PYTHONPATH": str(ROOT),
        }
        self.env.pop("KINGS_CORNERS_HISTORY", None)

    @property
    def history(self) -> Path:
        return self.data / "history.sqlite3"

    def _check(self, what: str, code: int, err: str, codes: tuple[int, ...]) -> None:
        if "Traceback" in err or code not in codes:
            last = err.strip().splitlines()[-1] if err.strip() else ""
            self.outcome.crashed.append(f"{what}: exit {code} {last[:200]}")

    def app(self, what: str, **plan: Any) -> Ran:
        quick(self)
        plan_file = self.folder / f"plan-{len(self.outcome.crashed)}-{time.monotonic_ns()}.json"
        plan_file.write_text(json.dumps(plan))
        done = subprocess.run(
            [sys.executable, __file__, "--child", str(plan_file)],
            capture_output=True,
            text=True,
            env=self.env,
            timeout=300,
        )
        self._check(what, done.returncode, done.stderr, (0,))
        result: dict[str, Any] = {}
        for line in done.stdout.splitlines():
            if line.startswith("RESULT "):
                result = json.loads(line[7:])
        if not result and not self.outcome.crashed:
            self.outcome.crashed.append(f"{what}: no result ({done.stderr.strip()[-200:]})")
        return Ran(done.returncode, done.stdout, done.stderr, result)

    def cli(self, what: str, *args: str, codes: tuple[int, ...] = (0, 2)) -> Ran:
        done = subprocess.run(
            [sys.executable, "-m", "kc_tui", *args], capture_output=True, text=True, env=self.env, timeout=120
        )
        self._check(what, done.returncode, done.stderr, codes)
        if done.returncode == 2 and len(done.stderr.strip().splitlines()) != 1:
            self.outcome.untruthful.append(f"{what}: the refusal is not one line: {done.stderr.strip()[:200]!r}")
        return Ran(done.returncode, done.stdout, done.stderr, {})

    def says(self, what: str, ran: Ran | str, *needles: str) -> None:
        """Untruthful unless a message (a note, stderr, stdout or a screen) contains every needle."""
        if isinstance(ran, str):
            texts = [ran]
        else:
            texts = [*ran.result.get("notes", []), ran.err, ran.out]
            texts += [str(ran.result.get(k, "")) for k in ("quit_dialog", "stats", "screen", "look_only")]
        if not any(all(n.lower() in t.lower() for n in needles) for t in texts):
            shown = " | ".join(t.strip()[:160] for t in texts if t.strip())[:500]
            self.outcome.untruthful.append(f"{what}: nothing said {' + '.join(needles)!r} (said: {shown})")

    def lost(self, what: str, condition: bool) -> None:
        if not condition:
            self.outcome.lost.append(what)

    def rounds(self, path: Path | None = None) -> list[tuple[int, int]]:
        """(match, round) of every recorded round, read with SQLite directly."""
        path = path or self.history
        if not path.exists():
            return []
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            return [tuple(r) for r in con.execute("SELECT match_id, number FROM rounds ORDER BY match_id, number")]
        finally:
            con.close()

    def once_each(self, what: str, finished: int, path: Path | None = None) -> None:
        """Lost unless exactly ``finished`` rounds, numbered 1.. in one match each, are recorded."""
        rounds = self.rounds(path)
        by_match: dict[int, list[int]] = {}
        for m, n in rounds:
            by_match.setdefault(m, []).append(n)
        ok = sum(len(v) for v in by_match.values()) == finished and all(
            v == list(range(1, len(v) + 1)) for v in by_match.values()
        )
        self.lost(f"{what}: rounds recorded {by_match}, {finished} finished", ok)

    def saved_matches_screen(self, what: str, ran: Ran) -> None:
        """Lost when the app said the match was saved but the save is not the position shown."""
        save = self.data / "current-match.json"
        if not ran.result.get("saved"):
            return
        on_disk = {k: v for k, v in json.loads(save.read_text()).items() if k != "log"}
        self.lost(f"{what}: the save is not the position on screen", on_disk == ran.result.get("position"))


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "-"


def tree(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): sha(p) for p in sorted(folder.rglob("*")) if p.is_file()}


@contextmanager
def small_disk(s: Scene) -> Iterator[Path | None]:
    """A 512 KiB tmpfs holding the scene's data folder for the block; None, the scene skipped,
    where mounting one needs root."""
    from tests.faultkit import can_mount

    if not can_mount():
        s.outcome.skipped = "needs root for a tmpfs"
        yield None
        return
    folder = Path(tempfile.mkdtemp(prefix="kc-faults-disk-"))
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(folder)], check=True)
    s.data = folder / "data"
    s.env["KINGS_CORNERS_DATA"] = str(s.data)
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)
        os.rmdir(folder)


SCENARIOS: list[tuple[str, Callable[[Scene], None]]] = []


def scenario(name: str) -> Callable[[Callable[[Scene], None]], Callable[[Scene], None]]:
    def add(f: Callable[[Scene], None]) -> Callable[[Scene], None]:
        SCENARIOS.append((name, f))
        return f

    return add


def _record_a_match(s: Scene, target: int = 3) -> Ran:
    ran = s.app("a whole match", target=target, steps=[["until", "match"]])
    return ran


# ---------------------------------------------------------------------- the scenarios
@scenario("full disk at launch keeps a sound history")
def _full_disk_launch(s: Scene) -> None:
    from tests.faultkit import fill

    with small_disk(s) as disk:
        if disk is None:
            return
        first = _record_a_match(s)
        finished = first.result.get("rounds_finished", 0)
        before = sha(s.history)
        filler = fill(disk)
        ran = s.app("launch on a full disk", mode="menu", steps=[["wait", 1.0]])
        s.lost("the history changed on a full disk", sha(s.history) == before)
        filler.unlink()
        stats = s.cli("stats after space is back", "stats")
        s.lost("stats lost the matches", "No matches recorded yet" not in stats.out)
        s.once_each("after a full disk at launch", finished)
        del ran


@scenario("save fails on a full disk: said at once, Quit says not saved")
def _save_full(s: Scene) -> None:
    from tests.faultkit import fill

    with small_disk(s) as disk:
        if disk is None:
            return
        s.app("start a match", steps=[["moves", 1]])
        filler = fill(disk)
        ran = s.app("play on a full disk", mode="menu", steps=[["resume"], ["moves", 2], ["quit_dialog"]])
        s.says("the failed save", ran, "could not be saved")
        s.says("the quit dialog", str(ran.result.get("quit_dialog", "")), "NOT saved")
        s.lost("a temporary file was left", not any(".tmp" in p.name for p in s.data.iterdir()))
        s.saved_matches_screen("full disk", ran)
        filler.unlink()


@scenario("data folder is a file: the match is said not to be saved")
def _data_is_file(s: Scene) -> None:
    s.folder.joinpath("datafile").write_text("mine")
    s.data = s.folder / "datafile"
    s.env["KINGS_CORNERS_DATA"] = str(s.data)
    ran = s.app("play with a file for a data folder", steps=[["moves", 2], ["quit_dialog"]])
    s.says("the save", ran, "could not be saved")
    s.says("the quit dialog", str(ran.result.get("quit_dialog", "")), "NOT saved")
    s.lost("the file named as the data folder changed", s.data.read_text() == "mine")


@scenario("stats --csv onto the history is refused")
def _export_over_history(s: Scene) -> None:
    _record_a_match(s)
    before = sha(s.history)
    for flag in ("--csv", "--json"):
        ran = s.cli(f"stats {flag} history", "stats", flag, str(s.history))
        s.lost(f"stats {flag} overwrote the history", sha(s.history) == before)
        s.says(f"stats {flag} onto the history", ran, "history")
        if ran.code == 0:
            s.outcome.untruthful.append(f"stats {flag} onto the history said it worked")


@scenario("write lock held at a round's end: no freeze, recorded once after")
def _lock_round_end(s: Scene) -> None:
    from tests.faultkit import lock_held

    s.app("make the history", mode="menu", steps=[["wait", 0.5]])
    with lock_held(s.history, "write"):
        ran = s.app(
            "a round with the history locked", target=3, steps=[["until", "round"], ["wait_note", "cannot record", 8]]
        )
        s.says("the waiting round", ran, "cannot record yet", "locked")
        lag = float(ran.result.get("max_loop_lag_s", 0))
        if lag > 0.5:
            s.outcome.untruthful.append(f"the UI froze {lag:.1f} s with the history locked")
        s.outcome.note = f"longest UI freeze {lag * 1000:.0f} ms"
    after = s.app("resume once the lock is gone", mode="menu", steps=[["resume"], ["until", "match"]])
    s.once_each("after the lock", int(after.result.get("rounds_finished", 0)))


@scenario("menu appears at once with the history write-locked")
def _lock_menu(s: Scene) -> None:
    from tests.faultkit import lock_held

    s.app("make the history", mode="menu", steps=[["wait", 0.5]])
    plain = s.app("menu", mode="menu").result.get("seconds", 0)
    with lock_held(s.history, "write"):
        locked = s.app("menu, locked", mode="menu").result.get("seconds", 0)
    s.outcome.note = f"menu {plain * 1000:.0f} ms, locked {locked * 1000:.0f} ms"
    if locked > plain * 1.5 + 0.3:
        s.outcome.untruthful.append(f"the menu took {locked:.2f} s with the lock held ({plain:.2f} s without)")


@scenario("exclusive lock: stats refuses at once, the app says so")
def _exclusive(s: Scene) -> None:
    from tests.faultkit import lock_held

    _record_a_match(s)
    before = sha(s.history)
    with lock_held(s.history, "exclusive"):
        t = time.perf_counter()
        ran = s.cli("stats, exclusively locked", "stats")
        took = time.perf_counter() - t
        s.says("stats", ran, "locked")
        if took > 3:
            s.outcome.untruthful.append(f"stats waited {took:.1f} s on the lock")
        app = s.app("launch, exclusively locked", mode="menu", steps=[["wait_note", "locked", 5]])
        s.says("the app", app, "locked")
        for n in app.result.get("notes", []):
            if "damaged" in n.lower():
                s.outcome.untruthful.append(f"a lock called damage: {n[:120]}")
    s.lost("the locked history changed", sha(s.history) == before)


@scenario("read-only commands never rename a damaged file")
def _stats_damaged(s: Scene) -> None:
    _record_a_match(s)
    backup = s.folder / "backup.sqlite3"
    shutil.copy(s.history, backup)
    data = bytearray(backup.read_bytes())
    page = 4096
    if len(data) > 2 * page:
        data[page + 100 : page + 400] = os.urandom(300)
    backup.write_bytes(bytes(data))
    before = tree(s.folder)
    for args in (["stats", "--history", str(backup)], ["stats", "--history", str(backup), "--csv", "-"]):
        s.cli(" ".join(args[:3]), *args)
    after = tree(s.folder)
    s.lost(f"files changed: {set(before.items()) ^ set(after.items())}", before == after)


@scenario("KINGS_CORNERS_HISTORY naming a text file leaves it")
def _env_history(s: Scene) -> None:
    notes = s.folder / "notes.txt"
    notes.write_text("my notes\n" * 100)
    before = sha(notes)
    s.env["KINGS_CORNERS_HISTORY"] = str(notes)
    ran = s.app("launch with the history at notes.txt", steps=[["moves", 1]])
    stats = s.cli("stats with the history at notes.txt", "stats")
    s.says("the app", ran, "not a Kings Corners history")
    s.says("stats", stats, "not a Kings Corners history")
    s.lost("notes.txt changed or moved", sha(notes) == before and not list(s.folder.glob("notes.txt.*")))


@scenario("--config naming .bashrc leaves it")
def _config_bashrc(s: Scene) -> None:
    bashrc = s.folder / ".bashrc"
    bashrc.write_text("export PATH=$HOME/bin:$PATH\nalias ll='ls -l'\n")
    before = sha(bashrc)
    ran = s.app("launch with --config .bashrc", config=str(bashrc), steps=[["moves", 1]])
    s.says("the app", ran, "left as it is")
    s.lost(".bashrc changed or moved", sha(bashrc) == before and not list(s.folder.glob(".bashrc.*")))


@scenario("two windows on one data folder: one writer, one match recorded")
def _two_windows(s: Scene) -> None:
    s.app("start a match", target=3, steps=[["moves", 1]])
    plan = s.folder / "first.json"
    plan.write_text(json.dumps({"mode": "menu", "steps": [["resume"], ["until", "match"], ["wait", 1.0]]}))
    first = subprocess.Popen(
        [sys.executable, __file__, "--child", str(plan)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=s.env,
    )
    time.sleep(1.5)
    second = s.app("the second window", mode="menu", steps=[["resume"], ["wait", 0.5]])
    out, err = first.communicate(timeout=300)
    s._check("the first window", first.returncode, err, (0,))
    s.says("the second window", second, "Another Kings Corners window")
    if second.result.get("rounds_finished"):
        s.outcome.untruthful.append("the second window resumed the match the first holds")
    result: dict[str, Any] = next((json.loads(line[7:]) for line in out.splitlines() if line.startswith("RESULT ")), {})
    s.once_each("two windows", int(result.get("rounds_finished", 0)))


@scenario("CSV export neutralises formulas in names")
def _csv_injection(s: Scene) -> None:
    from kc_tui.records.rows import HistoryError, SeatInfo
    from kc_tui.records.store import History

    s.data.mkdir(parents=True, exist_ok=True)
    h, _ = History.open(s.history)
    bad = ['=HYPERLINK("//x.io","y")', "+cmd|' /C calc'!A0", "@SUM(1)", "-2+3", "\tTab", "\rCR"]
    for i, name in enumerate(bad):
        # A name the history refuses (a control character) never reaches a CSV.
        with suppress(HistoryError):
            h.start_match(
                seats=(SeatInfo(name, "human"), SeatInfo("Greedy", "greedy", 500)), rules={}, seed=i, first_dealer=0
            )
    h.close()
    out = s.folder / "out.csv"
    s.cli("stats --csv", "stats", "--csv", str(out))
    import csv

    cells = [c for row in csv.reader(out.open(newline="", encoding="utf-8")) for c in row] if out.exists() else []
    dangerous = [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")]
    if dangerous:
        s.outcome.untruthful.append(f"cells a spreadsheet would run: {dangerous[:3]}")


def _tamper(s: Scene, sql: str, *params: Any) -> None:
    con = sqlite3.connect(s.history)
    con.execute(sql, params)
    con.commit()
    con.close()


@scenario("history rows readers must survive")
def _bad_rows(s: Scene) -> None:
    for i, (sql, params) in enumerate(
        [
            ("UPDATE matches SET started_at = ? WHERE id = 1", ("0001-01-01T00:00:00+05:00",)),
            ("UPDATE matches SET finished_at = ? WHERE id = 1", ("9999-12-31T23:00:00-05:00",)),
            ("UPDATE matches SET rules = ? WHERE id = 1", ("[" * 100_000 + "]" * 100_000,)),
            ("UPDATE matches SET rules = ? WHERE id = 1", ('{"scoring":"chips","chips_start":"x"}',)),
            ("UPDATE player_results SET margin = ? WHERE match_id = 1", (9 * 10**18,)),
            ("UPDATE player_results SET person = ? WHERE match_id = 1", ("[b]" * 10_000,)),
            ("UPDATE seats SET name = ? WHERE match_id = 1 AND position = 1", ("N" * 10_000_000,)),
        ]
    ):
        sub = Scene(s.outcome, s.folder / f"rows{i}")
        sub.folder.mkdir()
        _record_a_match(sub)
        _tamper(sub, sql, *params)
        t = time.perf_counter()
        for args in (["stats"], ["stats", "--json", "-"], ["stats", "--csv", "-"]):
            sub.cli(f"row {i}: {' '.join(args)}", *args)
        sub.app(f"row {i}: the Stats screen", mode="menu", steps=[["stats", "tab", "end"]])
        took = time.perf_counter() - t
        if took > 30:
            s.outcome.untruthful.append(f"row {i}: the readers took {took:.0f} s")


# ---------------------------------------------------------------------- helpers of the scenarios below
def _recorded_matches(count: int, start_minute: int = 0) -> list[Any]:
    """``count`` finished matches as the game records them (one played, then copied at later times)."""
    import dataclasses
    from datetime import timedelta

    from kc_tui.engine import Rules
    from tests.historykit import T0, play_recorded

    rec = play_recorded(["greedy", "greedy"], 5, Rules(target=15))
    out = []
    for i in range(start_minute, start_minute + count):
        at = T0 + timedelta(minutes=10 * i)
        rounds = tuple(dataclasses.replace(r, played_at=at) for r in rec.rounds)
        out.append(dataclasses.replace(rec, started_at=at, finished_at=at, rounds=rounds))
    return out


def _add_matches(path: Path, count: int) -> None:
    from kc_tui.records.store import History

    path.parent.mkdir(parents=True, exist_ok=True)
    h, message = History.open(path)
    assert message is None, message
    h.add_matches(_recorded_matches(count))
    h.close()


def _load_save(s: Scene) -> tuple[int, str]:
    """(rounds finished in the save, "" or why it does not load), read by the game's own loader."""
    code = (
        "import json, sys\n"
        "from kc_tui.match.session import MatchSession\n"
        "try:\n"
        "    m = MatchSession.load()\n"
        "except Exception as exc:\n"
        "    print(json.dumps([-1, f'{type(exc).__name__}: {exc}'])); sys.exit()\n"
        "print(json.dumps([-1, 'no save'] if m is None else [len(m.match.results), '']))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=s.env, timeout=60)
    s._check("loading the save", done.returncode, done.stderr, (0,))
    try:
        n, why = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return -1, done.stderr.strip()[-200:]
    return int(n), str(why)


@dataclass
class Tty:
    """The real app on a pseudo-terminal: everything it wrote, how it ended."""

    output: bytes
    code: int | None
    seconds_to_exit: float | None


def on_pty(
    s: Scene,
    args: list[str],
    drive: Callable[[int, Callable[[], bytes], subprocess.Popen[bytes]], None],
    env: dict[str, str] | None = None,
    size: tuple[int, int] = (40, 120),
) -> Tty:
    """Run ``python -m kc_tui *args`` on a pseudo-terminal of ``size`` (rows, columns);
    ``drive(master, output, proc)`` types at it and may signal it; then wait for its end."""
    import fcntl
    import struct
    import termios
    import threading

    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", size[0], size[1], 0, 0))
    proc = subprocess.Popen(
        [sys.executable, "-m", "kc_tui", *args],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env={**s.env, "TERM": "xterm-256color", "COLUMNS": str(size[1]), "LINES": str(size[0]), **(env or {})},
        start_new_session=True,
        cwd=s.folder,
    )
    os.close(slave)
    got = bytearray()
    lock = threading.Lock()

    def read() -> None:
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                return
            if not chunk:
                return
            with lock:
                got.extend(chunk)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()

    def output() -> bytes:
        with lock:
            return bytes(got)

    t_end: float | None = None
    try:
        drive(master, output, proc)
        t = time.perf_counter()
        try:
            proc.wait(timeout=15)
            t_end = time.perf_counter() - t
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    finally:
        reader.join(timeout=5)
        os.close(master)
    return Tty(output(), proc.returncode, t_end)


def wait_for(output: Callable[[], bytes], needle: bytes, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if needle in output():
            return True
        time.sleep(0.1)
    return False


#: What Textual writes to turn mouse reporting on (each turned off with ``l`` in place of ``h``).
MOUSE_ON = (b"\x1b[?1000h", b"\x1b[?1003h", b"\x1b[?1015h", b"\x1b[?1006h")


def left_cleanly(s: Scene, what: str, tty: Tty) -> None:
    """Crashed on a traceback in the output; untruthful unless the output ends by leaving the
    alternate screen with mouse reporting off."""
    out = tty.output
    if b"Traceback" in out:
        tail = out[out.rfind(b"Traceback") :][:300].decode("ascii", "replace")
        s.outcome.crashed.append(f"{what}: a traceback on the terminal: {tail!r}")
    leave = out.rfind(b"\x1b[?1049l")
    if leave < 0 or leave < out.rfind(b"\x1b[?1049h"):
        s.outcome.untruthful.append(f"{what}: the output does not end by leaving the alternate screen")
    for on in MOUSE_ON:
        at = out.rfind(on)
        if at >= 0 and out.rfind(on[:-1] + b"l") < at:
            s.outcome.untruthful.append(f"{what}: mouse reporting {on!r} left on")


def _v1_history(path: Path) -> None:
    """A history as version 1 of the game left it: match 7 sound (two rounds), match 8 with a bad
    row (its totals are not JSON, a round's penalties a word)."""
    from datetime import UTC, datetime, timedelta

    from kc_tui.engine import Rules
    from kc_tui.records import schema

    t0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
    path.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(path, isolation_level=None)
    con.execute(f"PRAGMA application_id = {schema.APPLICATION_ID}")
    con.executescript(schema.MIGRATIONS[1][0])
    con.execute("PRAGMA user_version = 1")
    rules = json.dumps(Rules().to_dict())
    for mid, totals in ((7, "[3,101]"), (8, "three")):
        con.execute(
            "INSERT INTO matches (id, started_at, finished_at, demo, rules, seed, first_dealer, winners, totals)"
            " VALUES (?, ?, ?, 0, ?, '42', 1, '[0]', ?)",
            (
                mid,
                (t0 + timedelta(days=mid)).isoformat(),
                (t0 + timedelta(days=mid, hours=1)).isoformat(),
                rules,
                totals,
            ),
        )
        con.execute("INSERT INTO seats VALUES (?, 0, 'Ann', 'human', NULL)", (mid,))
        con.execute("INSERT INTO seats VALUES (?, 1, 'Bob', 'expert', 3000)", (mid,))
        for number, winner, pens, tot in ((1, 0, "[0,60]", "[0,60]"), (2, 1, "[3,0]", "[3,60]")):
            con.execute(
                "INSERT INTO rounds (match_id, number, dealer, seats, winner, penalties, chips_delta, totals, moves,"
                " played_at) VALUES (?, ?, 0, '[0,1]', ?, ?, '[0,0]', ?, ?, ?)",
                (mid, number, winner, pens if mid == 7 else "lots", tot, bytes([1, 0, 0, 4]), t0.isoformat()),
            )
    con.close()


def _ids(path: Path) -> list[int]:
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [r[0] for r in con.execute("SELECT id FROM matches ORDER BY id")]
    finally:
        con.close()


def _all_said(ran: Ran) -> str:
    return "\n".join(
        [*map(str, ran.result.get("notes", [])), ran.err, ran.out]
        + [str(ran.result.get(k, "")) for k in ("quit_dialog", "stats", "screen")]
    )


# ---------------------------------------------------------------------- the scenarios added
@scenario("kill -9 while a round waits for a locked history: recorded once after")
def _kill_waiting(s: Scene) -> None:
    from tests.faultkit import lock_held

    s.app("make the history", mode="menu", steps=[["wait", 0.5]])
    mark = s.folder / "waiting"
    plan = s.folder / "kill.json"
    steps = [["until", "round"], ["wait_note", "cannot record", 10], ["mark", str(mark)], ["wait", 60]]
    plan.write_text(json.dumps({"target": 15, "steps": steps}))
    with lock_held(s.history, "write"):
        child = subprocess.Popen(
            [sys.executable, __file__, "--child", str(plan)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=s.env,
        )
        end = time.monotonic() + 90
        while time.monotonic() < end and not mark.exists() and child.poll() is None:
            time.sleep(0.1)
        reached = mark.exists()
        child.kill()
        _, err = child.communicate(timeout=30)
        if not reached:
            s.outcome.crashed.append(f"the app never said the round waits: {err.decode(errors='replace')[-200:]}")
            return
        outbox = sorted((s.data / "outbox").glob("*.json")) if (s.data / "outbox").is_dir() else []
        in_save, why = _load_save(s)
        s.lost(f"the waiting round is in neither the outbox nor the save ({why})", bool(outbox) or in_save >= 1)
        s.lost("the round was recorded while the history was locked", not s.rounds())
    after = s.app("launch once the lock is gone", mode="menu", steps=[["wait", 2.0], ["resume"], ["moves", 3]])
    rounds_then = len(s.rounds())
    s.lost(f"the next launch recorded {rounds_then} rounds, not 1", rounds_then == 1)
    finished = int(after.result.get("rounds_finished", 0))
    s.lost(f"Resume did not continue the match ({finished} rounds finished)", finished >= 1)
    s.once_each("after kill -9", finished)
    left = list((s.data / "outbox").glob("*.json")) if (s.data / "outbox").is_dir() else []
    s.lost(f"the outbox still holds {len(left)} recorded matches", not left)
    s.saved_matches_screen("after kill -9", after)


@scenario("Stats Matches to the end while another process records")
def _stats_paging_live(s: Scene) -> None:
    _add_matches(s.history, 240)
    newest = sqlite3.connect(s.history)
    newest.execute("UPDATE matches SET rules = 'not json' WHERE id = (SELECT max(id) FROM matches)")
    newest.commit()
    newest.close()
    writer_code = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from kc_tui.records.store import History\n"
        "from tests.benchmarks.faults import _recorded_matches\n"
        "h, _ = History.open(Path(sys.argv[1]))\n"
        "n, end = 0, time.monotonic() + 12\n"
        "while time.monotonic() < end:\n"
        "    h.add_matches(_recorded_matches(1, 1000 + n)); n += 1; time.sleep(0.05)\n"
        "h.close(); print(n)\n"
    )
    writer = subprocess.Popen(
        [sys.executable, "-c", writer_code, str(s.history)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=s.env,
        cwd=ROOT,
    )
    keys = ["3", "end", "pagedown", "pagedown", "end", "pageup", "end", "end", "home", "end"]
    ran = s.app("Stats, scrolled to the end", mode="menu", steps=[["stats", *keys], ["wait", 1.0], ["screen"]])
    out, err = writer.communicate(timeout=60)
    s._check("the other process", writer.returncode, err, (0,))
    s.says("the list's foot", ran, "newest first")
    written = int(out.strip() or 0)
    total = len(_ids(s.history))
    s.lost(f"{total} matches in the history, {240 + written} recorded", total == 240 + written)
    s.outcome.note = f"{written} matches recorded meanwhile"


@scenario("version-1 history with a bad row at the default path")
def _v1_bad_row(s: Scene) -> None:
    _v1_history(s.history)
    for i in (1, 2):
        ran = s.app(f"launch {i}", mode="menu", steps=[["wait", 1.0], ["stats"]])
        for n in ran.result.get("notes", []):
            if "damaged" in n.lower() or "set aside" in n.lower():
                s.outcome.untruthful.append(f"launch {i}: a bad row called damage: {n[:160]}")
    stats = s.cli("stats", "stats", codes=(0,))
    s.says("stats", stats, "Bob")
    aside = list(s.data.glob("history.sqlite3.corrupt-*"))
    s.lost(f"the history was set aside: {[p.name for p in aside]}", not aside)
    s.lost("the sound match 7 is gone", s.history.exists() and 7 in _ids(s.history))


@scenario("history is a dangling symlink: said so, nothing made at its target")
def _dangling_link(s: Scene) -> None:
    s.data.mkdir(parents=True)
    target = s.folder / "elsewhere" / "history.sqlite3"
    target.parent.mkdir()
    s.history.symlink_to(target)
    ran = s.app("play with the history a dangling link", steps=[["moves", 2], ["stats"]])
    s.says("the app", ran, "link", "does not exist")
    stats = s.cli("stats", "stats")
    s.says("stats", stats, "link", "does not exist")
    for what, said in (("the app", _all_said(ran)), ("stats", stats.out + stats.err)):
        if "no matches recorded yet" in said.lower():
            s.outcome.untruthful.append(f"{what} said 'No matches recorded yet' of a link to nothing")
    s.lost(f"something was made at the link's target: {os.listdir(target.parent)}", not os.listdir(target.parent))
    s.lost("the link was replaced", s.history.is_symlink() and os.readlink(s.history) == str(target))


@scenario("read-only data folder: cannot save, cannot record, stats calls it sound")
def _read_only_folder(s: Scene) -> None:
    with small_disk(s) as disk:
        if disk is None:
            return
        s.app("start a match", steps=[["moves", 1]])
        _add_matches(s.history, 3)
        before = tree(s.data)
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True, timeout=10)
        try:
            ran = s.app(
                "play on a read-only folder",
                mode="menu",
                steps=[["wait", 1.0], ["resume"], ["moves", 2], ["quit_dialog"]],
            )
            s.says("the save", ran, "could not be saved")
            s.says("the history", ran, "history", "read-only")
            stats = s.cli("stats on a read-only folder", "stats", codes=(0,))
        finally:
            subprocess.run(["mount", "-o", "remount,rw", str(disk)], capture_output=True, timeout=10)
        said = _all_said(ran) + stats.out + stats.err
        if "readonly database" in said.lower():
            s.outcome.untruthful.append("SQLite's words 'attempt to write a readonly database' were shown")
        for word in ("damaged", "another program"):
            if word in (stats.out + stats.err).lower():
                s.outcome.untruthful.append(f"stats called the sound history {word!r}: {stats.err.strip()[:160]}")
        s.lost(f"stats lost the matches: {stats.out.strip()[:120]!r}", "No matches" not in stats.out)
        s.lost("files changed on a read-only folder", tree(s.data) == before)


@scenario("SIGTERM on a terminal: leaves the screen as it was, the save loads")
def _sigterm_pty(s: Scene) -> None:
    import signal

    s.app("start a match", steps=[["moves", 2]])
    save = s.data / "current-match.json"
    before = sha(save)

    def drive(_master: int, output: Callable[[], bytes], proc: subprocess.Popen[bytes]) -> None:
        if not wait_for(output, b"\x1b[?1049h", 20):
            s.outcome.crashed.append(f"the app never drew: {output()[-200:]!r}")
        time.sleep(2.0)  # the menu drawn
        proc.send_signal(signal.SIGTERM)

    tty = on_pty(s, [], drive)
    if tty.seconds_to_exit is None or tty.seconds_to_exit > 5:
        s.outcome.crashed.append(f"SIGTERM: still running after {tty.seconds_to_exit or 15:.1f} s")
    elif tty.code != 0:
        s.outcome.crashed.append(f"SIGTERM: exit {tty.code}")
    left_cleanly(s, "SIGTERM", tty)
    n, why = _load_save(s)
    s.lost(f"the save does not load after SIGTERM: {why}", n >= 0 and not why)
    s.lost("the save changed with no move played", sha(save) == before)
    if tty.seconds_to_exit is not None:
        s.outcome.note = f"exited {tty.seconds_to_exit * 1000:.0f} ms after SIGTERM"


@scenario("a terminal that is not UTF-8: everything drawn in ASCII")
def _non_utf8_pty(s: Scene) -> None:
    env = {"LC_ALL": "C", "LANG": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0", "PYTHONIOENCODING": ""}
    s.env.pop("KINGS_CORNERS_ASCII", None)

    def drive(master: int, output: Callable[[], bytes], _proc: subprocess.Popen[bytes]) -> None:
        if not wait_for(output, b"\x1b[?1049h", 20):
            s.outcome.crashed.append(f"the app never drew: {output()[-200:]!r}")
        time.sleep(2.0)
        os.write(master, b"n")  # New game
        time.sleep(2.0)
        os.write(master, b"\r")  # its set-up: Start
        time.sleep(4.0)
        os.write(master, b"\x11")  # ctrl+q: the quit dialog
        time.sleep(1.0)
        os.write(master, b"y")

    tty = on_pty(s, [], drive, env=env)
    if tty.seconds_to_exit is None:
        s.outcome.crashed.append("the app did not quit on ctrl+q, y")
    elif tty.code != 0:
        s.outcome.crashed.append(f"exit {tty.code}")
    left_cleanly(s, "not UTF-8", tty)
    out = tty.output
    for escape in (b"\\u2502", b"\\u2665", b"\\u2660", b"\\u25"):
        if escape in out:
            at = out.find(escape)
            s.outcome.untruthful.append(f"the screen shows the escape {escape.decode()}: {out[at - 40 : at + 40]!r}")
            break
    try:
        out.decode("ascii")
    except UnicodeDecodeError as exc:
        s.outcome.untruthful.append(f"the output is not ASCII: {out[exc.start - 20 : exc.start + 20]!r}")
    if b"Greedy" not in out:
        s.outcome.untruthful.append("the game's table was never drawn")


@scenario("a 10,000-character paste into a name field keeps 24")
def _long_paste(s: Scene) -> None:
    from kc_tui.config import NAME_MAX

    fields = ["#player-name", "#opp-name-0"]
    steps: list[list[Any]] = [["action", "settings"]]
    for f in fields:
        steps += [["paste", f, 10_000], ["value", f]]
    steps += [["screen"], ["press", "escape"]]
    ran = s.app("paste into Settings", mode="menu", steps=steps)
    values = ran.result.get("values", {})
    for f in fields:
        n = len(values.get(f, ""))
        s.lost(f"{f} keeps {n} characters, not {NAME_MAX}", n == NAME_MAX)
    s.says("the note", str(ran.result.get("screen", "")), "10,000", f"at most {NAME_MAX}")


@scenario("full disk while a damaged history is set aside: said, nothing lost")
def _full_damaged(s: Scene) -> None:
    from tests.faultkit import fill

    with small_disk(s) as disk:
        if disk is None:
            return
        _add_matches(s.history, 40)
        # A rollback journal, not WAL: SQLite reads it without making a -shm (which a full disk
        # refuses), so that the damage is found and the file set aside.
        con = sqlite3.connect(s.history)
        con.execute("PRAGMA journal_mode = DELETE")
        con.close()
        data = bytearray(s.history.read_bytes())
        for page in range(1, len(data) // 4096):  # every page but the schema's: a bad page type
            data[page * 4096] = 0x77
        s.history.write_bytes(bytes(data))
        con = sqlite3.connect(f"file:{s.history}?mode=ro", uri=True)
        try:
            check = con.execute("PRAGMA quick_check").fetchall()
        except sqlite3.DatabaseError as exc:
            check = [(str(exc),)]
        finally:
            con.close()
        assert check != [("ok",)], "the history was not damaged"
        damaged = sha(s.history)
        filler = fill(disk)
        ran = s.app("a round on a full disk", steps=[["until", "round"], ["wait", 1.0], ["quit_dialog"]])
        said = _all_said(ran)
        s.says("the history", ran, "damaged")
        if "memory only" not in said and "NOT kept on disk" not in said.replace("not kept", "NOT kept"):
            s.outcome.untruthful.append(f"nothing said the rounds are not kept on disk: {said[:300]!r}")
        s.says("the quit dialog", str(ran.result.get("quit_dialog", "")), "NOT saved")
        kept = [p for p in s.data.iterdir() if p.is_file() and sha(p) == damaged]
        s.lost("the damaged history is gone (neither left nor set aside)", bool(kept))
        filler.unlink()


@scenario("history locked and disk full: rounds said not kept, recorded after")
def _locked_and_full(s: Scene) -> None:
    from tests.faultkit import fill, lock_held

    with small_disk(s) as disk:
        if disk is None:
            return
        s.app("make the history", mode="menu", steps=[["wait", 0.5]])
        mark, go = s.folder / "told", s.folder / "go"
        plan = s.folder / "full.json"
        steps = [
            ["until", "round"],
            ["wait_note", "cannot record", 10],
            ["quit_dialog"],
            ["mark", str(mark)],
            ["wait_file", str(go), 60],
            ["wait_note", "recorded every round", 20],
        ]
        plan.write_text(json.dumps({"target": 15, "steps": steps}))
        with lock_held(s.history, "write"):
            filler = fill(disk)
            child = subprocess.Popen(
                [sys.executable, __file__, "--child", str(plan)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=s.env,
            )
            end = time.monotonic() + 90
            while time.monotonic() < end and not mark.exists() and child.poll() is None:
                time.sleep(0.1)
            filler.unlink()
        go.write_text("go")
        out, err = child.communicate(timeout=120)
        s._check("the app", child.returncode, err, (0,))
        result: dict[str, Any] = next(
            (json.loads(line[7:]) for line in out.splitlines() if line.startswith("RESULT ")), {}
        )
        ran = Ran(child.returncode, out, err, result)
        s.says("the waiting rounds", ran, "cannot record yet", "not kept on disk")
        s.says("the quit dialog", str(result.get("quit_dialog", "")), "quitting now loses them")
        s.says("once recorded", ran, "recorded every round")
        s.once_each("locked and full", int(result.get("rounds_finished", 0)))
        s.saved_matches_screen("locked and full", ran)


@contextmanager
def hosted_env(s: Scene) -> Iterator[None]:
    """The scene's environment for a host started by the network kit (it takes ``os.environ``)."""
    saved = dict(os.environ)
    os.environ.update({k: v for k, v in s.env.items() if k.startswith(("KINGS_CORNERS", "PYTHON"))})
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


#: A seeded deal: some secret deals let Greedy go out on its first turn and end the match
#: (target 5) before the people have made the moves the episode needs.
HOSTED_SEATS = ["--seats", "human:Ana,human:Ben,greedy", "--rules", "hand_size=6", "--target", "5"]
HOSTED_SEATS += ["--seed", "3", "--port", "0"]


@scenario("hosted table on a full disk: it holds, everyone told, nothing shown lost or dealt again")
def _hosted_full_disk(s: Scene) -> None:
    from tests.net.serverkit import full_disk_episode

    with small_disk(s) as disk:
        if disk is None:
            return
        with hosted_env(s):
            told = asyncio.run(full_disk_episode(disk, [*HOSTED_SEATS, "--stand-in", "0"]))
        console = str(told["console"])
        s._check("the host", 0, console, (0,))
        s.says("the console, when the disk filled", console, "The table holds", "the disk is full")
        s.says("the console, once a save worked", console, "saved again")
        if not told["seats_told"]:
            s.outcome.untruthful.append("a seat was not told the table holds")
        if not told["seats_saved_again"]:
            s.outcome.untruthful.append("a seat was not told the table is saved again")
        s.lost(f"{told['lost']} seats came back at another position after --resume", told["lost"] == 0)
        again = {seat: len(cards) for seat, cards in told["drawn_again"].items() if cards}
        s.lost(f"cards a seat was shown are in the resumed stock: {again}", not again)


@scenario("hosted table: host over an unfinished one refuses; --replace keeps it aside")
def _hosted_replace(s: Scene) -> None:
    from kc_tui.net.host_files import HOSTED_SAVE
    from tests.net.serverkit import lines_until, start_host, stop

    async def serve_once(*extra: str) -> list[str]:
        host = start_host(*HOSTED_SEATS, *extra)
        try:
            return await lines_until(host, "Kings Corners table at")
        finally:
            stop(host)

    with hosted_env(s):
        asyncio.run(serve_once())
        before = sha(s.data / HOSTED_SAVE)
        refused = s.cli("host over the unfinished table", "host", *HOSTED_SEATS)
        s.says("the refusal", refused.err, "--resume", "--replace")
        s.lost("the unfinished table changed", sha(s.data / HOSTED_SAVE) == before)
        lines = asyncio.run(serve_once("--replace"))
        s.says("the new table", "\n".join(lines), "kept as hosted.json.replaced")
        s.lost("the replaced table was not kept", sha(s.data / (HOSTED_SAVE + ".replaced")) == before)


# ---------------------------------------------------------------------- running
def run(name: str, body: Callable[[Scene], None]) -> Outcome:
    outcome = Outcome(name)
    folder = Path(tempfile.mkdtemp(prefix="kc-faults-"))
    try:
        body(Scene(outcome, folder))
    except Exception as exc:  # the harness itself: counted as a crash so that it is never missed
        outcome.crashed.append(f"the scenario failed: {type(exc).__name__}: {exc}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return outcome


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", default="", help="run the scenarios whose name contains this")
    p.add_argument("--child", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        return _child_main(args.child)
    totals = {"lost": 0, "crashed": 0, "untruthful": 0}
    ran = 0
    for name, body in SCENARIOS:
        if args.only and args.only not in name:
            continue
        t = time.perf_counter()
        o = run(name, body)
        ran += 1
        verdict = (
            "skipped: " + o.skipped if o.skipped else ("ok" if not (o.lost or o.crashed or o.untruthful) else "FAIL")
        )
        print(f"{name}: {verdict} ({time.perf_counter() - t:.1f} s){' · ' + o.note if o.note else ''}", flush=True)
        for kind in ("lost", "crashed", "untruthful"):
            for what in getattr(o, kind):
                print(f"    {kind}: {what}", flush=True)
            totals[kind] += len(getattr(o, kind))
    print(f"scenarios: {ran}, lost: {totals['lost']}, crashed: {totals['crashed']}, untruthful: {totals['untruthful']}")
    return 0 if not any(totals.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
