"""What the history tests share: matches played or built by hand, recorded as the game records them;
the schema of a file; a database as an earlier version of the game left it."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

from kc_tui.engine import Rules
from kc_tui.records.rows import MatchRecord, RoundRecord, SeatInfo
from kc_tui.records.schema import APPLICATION_ID, MIGRATIONS
from kc_tui.records.store import History
from tests.historykit import T0, play_recorded


# ---------------------------------------------------------------------- helpers
def play(kinds: Sequence[str], seed: int, rules: Rules | None = None, *, human: int | None = 0) -> MatchRecord:
    """A match played to its end by AIs through the engine (seat ``human`` recorded as the human)."""
    return play_recorded(
        kinds,
        seed,
        rules,
        human=human,
        start=T0 + timedelta(minutes=seed * 100),
        hints=lambda n: n % 2,
        undos=lambda n: n % 3,
    )


def record(h: History, m: MatchRecord, *, finish: bool = True) -> int:
    """Record ``m`` as the game does: start, every round, the end."""
    match_id = h.start_match(
        seats=m.seats, rules=m.rules, seed=m.seed, first_dealer=m.first_dealer, demo=m.demo, started_at=m.started_at
    )
    for r in m.rounds:
        h.record_round(match_id, r)
    if finish:
        h.finish_match(match_id, winners=m.winners, totals=m.totals, finished_at=m.finished_at)
    return match_id


def rnd(number: int, seats: Sequence[int], winner: int | None, penalties: Sequence[int], **kw: Any) -> RoundRecord:
    n = len(penalties)
    values: dict[str, Any] = {
        "number": number,
        "dealer": seats[0],
        "seats": tuple(seats),
        "winner": winner,
        "penalties": tuple(penalties),
        "chips_delta": (0,) * n,
        "totals": tuple(penalties),
        "moves": (1, 2, 1024),
        "hints": 0,
        "undos": 0,
        "played_at": T0,
    }
    values.update(kw)
    return RoundRecord(**values)


def made(
    match_id: int,
    kinds: Sequence[str],
    rounds: Sequence[RoundRecord],
    *,
    winners: Sequence[int] = (),
    totals: Sequence[int] | None = None,
    day: int = 0,
    finished: bool = True,
    demo: bool = False,
    scoring: str = "points",
) -> MatchRecord:
    """A match record built by hand (seat kinds ``kinds``: "human" is the player)."""
    when = T0 + timedelta(days=day)
    return MatchRecord(
        id=match_id,
        started_at=when,
        finished_at=when + timedelta(hours=1) if finished else None,
        demo=demo,
        seats=tuple(SeatInfo(k, k, None if k == "human" else 1000) for k in kinds),
        rules={**Rules().to_dict(), "scoring": scoring},
        seed=match_id,
        first_dealer=0,
        winners=tuple(winners),
        totals=tuple(totals if totals is not None else (0,) * len(kinds)),
        rounds=tuple(rounds),
    )


def schema(p: Path) -> list[tuple[str, str, Any]]:
    """What the schema of ``p`` is: every table's columns (name, type, not null, default, key)
    and every index's columns; and the versions."""
    con = sqlite3.connect(p)
    try:
        out: list[tuple[str, str, Any]] = []
        for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"):
            cols = sorted(tuple(c[1:]) for c in con.execute(f"PRAGMA table_info({name})"))
            out.append(("table", name, cols))
            for idx in con.execute(f"PRAGMA index_list({name})").fetchall():
                cols = [c[2] for c in con.execute(f"PRAGMA index_xinfo({idx[1]})") if c[5]]
                out.append(("index", idx[1], (cols, idx[2])))
        out.append(("pragma", "user_version", con.execute("PRAGMA user_version").fetchone()[0]))
        out.append(("pragma", "application_id", con.execute("PRAGMA application_id").fetchone()[0]))
        return sorted(out, key=repr)
    finally:
        con.close()


def checked_works(h: History) -> None:
    """``h`` records and reads back a match."""
    m = made(0, ["human", "greedy"], [rnd(1, [0, 1], 0, [0, 5])], winners=[0], totals=[0, 5])
    match_id = record(h, m)
    back = h.match(match_id)
    assert back is not None
    assert back.rounds[0].penalties == (0, 5)
    assert back.winners == (0,)


def database_at(p: Path, version: int) -> None:
    """A database as version ``version`` of the game left it, with one match of two rounds."""
    p.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(p, isolation_level=None)
    if version == 0:
        con.close()
        return
    con.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    for v in range(1, version + 1):
        script, step = MIGRATIONS[v]
        con.executescript(script)
        if step is not None:
            step(con)
    con.execute(f"PRAGMA user_version = {version}")
    con.execute(
        "INSERT INTO matches (id, started_at, finished_at, demo, rules, seed, first_dealer, winners, totals)"
        " VALUES (7, ?, ?, 0, ?, '18446744073709551615', 1, '[0]', '[3,101]')",
        (T0.isoformat(), (T0 + timedelta(hours=1)).isoformat(), json.dumps(Rules().to_dict())),
    )
    con.execute("INSERT INTO seats VALUES (7, 0, 'Ann', 'human', NULL)")
    con.execute("INSERT INTO seats VALUES (7, 1, 'Bob', 'expert', 3000)")
    for number, winner, pens, totals in ((1, 0, "[0,60]", "[0,60]"), (2, 1, "[3,0]", "[3,60]")):
        con.execute(
            "INSERT INTO rounds (match_id, number, dealer, seats, winner, penalties, chips_delta, totals, moves,"
            " played_at) VALUES (7, ?, 0, '[0,1]', ?, ?, '[0,0]', ?, ?, ?)",
            (number, winner, pens, totals, bytes([1, 0, 0, 4]), T0.isoformat()),
        )
    if version >= 2:  # the game of versions 2 and 3 kept the player's results with every match it wrote
        con.execute(
            "UPDATE matches SET player_seat = 0, player_size = 2, player_opponents = 'expert', player_total = 3,"
            " player_won = 1, player_margin = 98, player_rounds = 2, player_rounds_won = 1, player_penalty = 3,"
            " player_hints = 0, player_undos = 0 WHERE id = 7"
        )
    if version >= 4:  # the game of version 4 kept every human seat's results in player_results
        con.execute("INSERT INTO player_results VALUES (7, 0, 'Ann', 2, 'expert', 3, 1, 98, 2, 1, 3, 0, 0)")
    con.close()
