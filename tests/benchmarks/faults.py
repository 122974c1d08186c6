"""Every fault scenario end to end, against the real app and the real command line in child
processes (a script, not collected by pytest):

    python tests/benchmarks/faults.py             # every scenario
    python tests/benchmarks/faults.py --only lock  # the scenarios whose name contains "lock"

Faults are made for real: a full disk is a 256 KiB tmpfs (root only: otherwise those scenarios
say "skipped"), a lock is a second process holding SQLite's write or exclusive lock, a second
window is a second app process. Each scenario checks three things and prints one line:

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
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


# ---------------------------------------------------------------------- the child: the app, headless
async def _child_app(plan: dict[str, Any]) -> dict[str, Any]:
    """Run the app headless through ``plan`` (steps below); what it said and showed."""
    from kc_tui.config import Config, load_config
    from kc_tui.engine import END, Rules, is_play, play_card, source, target
    from kc_tui.ui.app import KingsCornersApp, StartOptions
    from kc_tui.ui.dialogs.summary import MatchSummary, RoundSummary
    from kc_tui.ui.screens.game import GameScreen

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
        s = game.session
        plays = [m for m in s.legal_moves() if m != END]
        if not plays:
            game.action_end_turn()
        elif is_play(plays[0]):
            game._select_card(play_card(plays[0]))
            game.action_pile(target(plays[0]))
        else:
            game.action_pile(source(plays[0]))
            game.action_pile(target(plays[0]))
        return True

    def text() -> str:
        import html
        import re

        return html.unescape(re.sub(r"<[^>]+>", "", app.export_screenshot())).replace("\xa0", " ")

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
        game = app.game
        if game is not None:
            s = game.session
            out["saved"] = s.saved
            out["save_problem"] = s.save_problem
            out["position"] = {k: v for k, v in s.to_dict().items() if k != "log"}
            out["rounds_finished"] = len(s.results)
            out["match_over"] = s.match_over
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
            [sys.executable, "-m", "kc_tui.cli", *args], capture_output=True, text=True, env=self.env, timeout=120
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
def small_disk() -> Iterator[Path | None]:
    from tests.faultkit import can_mount

    if not can_mount():
        yield None
        return
    folder = Path(tempfile.mkdtemp(prefix="kc-faults-disk-"))
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(folder)], check=True)
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


def _record_a_match(s: Scene, target: int = 15) -> Ran:
    ran = s.app("a whole match", target=target, steps=[["until", "match"]])
    return ran


# ---------------------------------------------------------------------- the scenarios
@scenario("full disk at launch keeps a sound history")
def _full_disk_launch(s: Scene) -> None:
    from tests.faultkit import fill

    with small_disk() as disk:
        if disk is None:
            s.outcome.skipped = "needs root for a tmpfs"
            return
        s.data = disk / "data"
        s.env["KINGS_CORNERS_DATA"] = str(s.data)
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
    with small_disk() as disk:
        if disk is None:
            s.outcome.skipped = "needs root for a tmpfs"
            return
        s.data = disk / "data"
        s.env["KINGS_CORNERS_DATA"] = str(s.data)
        s.app("start a match", steps=[["moves", 1]])
        filler = disk / "filler"
        with open(filler, "wb", buffering=0) as f:
            try:
                while True:
                    f.write(b"\0" * 4096)
            except OSError:
                pass
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
        ran = s.app("a round with the history locked", steps=[["until", "round"], ["wait_note", "cannot record", 8]])
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
    s.app("start a match", steps=[["moves", 1]])
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
    result = next((json.loads(line[7:]) for line in out.splitlines() if line.startswith("RESULT ")), {})
    s.once_each("two windows", int(result.get("rounds_finished", 0)))


@scenario("CSV export neutralises formulas in names")
def _csv_injection(s: Scene) -> None:
    from kc_tui.history import History, SeatInfo

    s.data.mkdir(parents=True, exist_ok=True)
    h, _ = History.open(s.history)
    bad = ['=HYPERLINK("//x.io","y")', "+cmd|' /C calc'!A0", "@SUM(1)", "-2+3", "\tTab", "\rCR"]
    for i, name in enumerate(bad):
        h.start_match(seats=(SeatInfo(name, "human"), SeatInfo("Greedy", "greedy", 500)), rules={}, seed=i, first_dealer=0)
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
            ("UPDATE matches SET player_margin = ? WHERE id = 1", (9 * 10**18,)),
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
        verdict = "skipped: " + o.skipped if o.skipped else ("ok" if not (o.lost or o.crashed or o.untruthful) else "FAIL")
        print(f"{name}: {verdict} ({time.perf_counter() - t:.1f} s){' · ' + o.note if o.note else ''}", flush=True)
        for kind in ("lost", "crashed", "untruthful"):
            for what in getattr(o, kind):
                print(f"    {kind}: {what}", flush=True)
            totals[kind] += len(getattr(o, kind))
    print(f"scenarios: {ran}, lost: {totals['lost']}, crashed: {totals['crashed']}, untruthful: {totals['untruthful']}")
    return 0 if not any(totals.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
