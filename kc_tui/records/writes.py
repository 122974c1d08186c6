"""Writing a match's row and seats, and finding the match a sync is about (for
:class:`kc_tui.records.store.History`). Plain Python over an open SQLite connection."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime

from kc_tui.records.rows import (
    _MATCH_SELECT,
    _UNREADABLE,
    MatchSync,
    SeatInfo,
    _ints_text,
    _match_from_row,
    _time_text,
)
from kc_tui.records.summaries import _update_results


def insert_match(
    con: sqlite3.Connection,
    uid: str | None,
    seats: Sequence[SeatInfo],
    rules_text: str,
    seed: int,
    first_dealer: int,
    demo: bool,
    started: datetime,
) -> int:
    """Insert a match (unfinished, totals 0) and its seats; its id."""
    cur = con.execute(
        "INSERT INTO matches (uid, started_at, demo, rules, seed, first_dealer, totals) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (uid, _time_text(started), int(bool(demo)), rules_text, str(seed), first_dealer, _ints_text([0] * len(seats))),
    )
    match_id = cur.lastrowid
    assert match_id is not None
    con.executemany(
        "INSERT INTO seats (match_id, position, name, kind, think_ms) VALUES (?, ?, ?, ?, ?)",
        [(match_id, i, s.name, s.kind, s.think_ms) for i, s in enumerate(seats)],
    )
    _update_results(con, match_id)
    return match_id


def find_sync(con: sqlite3.Connection, sync: MatchSync, n: int) -> int | None:
    """The id of the match ``sync`` is about: the one with its uid, else one recorded before uids
    (no uid, unfinished, the same seats, rules and seed, rounds 1 to j recorded with j at most
    the rounds of ``sync``), which is given the uid; None when there is none."""
    row = con.execute("SELECT id FROM matches WHERE uid = ?", (sync.uid,)).fetchone()
    if row is not None:
        return int(row[0])
    seats, rules = tuple(sync.seats), dict(sync.rules)
    rows = con.execute(
        f"{_MATCH_SELECT} WHERE m.uid IS NULL AND m.finished_at IS NULL AND m.seed = ?"
        " ORDER BY m.started_at DESC, m.id DESC",
        (str(sync.seed),),
    ).fetchall()
    for row in rows:
        try:
            m = _match_from_row(row)
        except _UNREADABLE:
            continue
        if m.seats != seats or m.rules != rules or len(m.seats) != n:
            continue
        numbers = [r[0] for r in con.execute("SELECT number FROM rounds WHERE match_id = ? ORDER BY number", (m.id,))]
        if numbers == list(range(1, len(numbers) + 1)) and len(numbers) <= len(sync.rounds):
            con.execute("UPDATE matches SET uid = ? WHERE id = ?", (sync.uid, m.id))
            return m.id
    return None
