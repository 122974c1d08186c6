"""The history's SQLite schema, its versions and the migrations between them.

The schema
----------
``PRAGMA application_id`` is :data:`APPLICATION_ID` (a file with another id is not ours) and
``PRAGMA user_version`` the schema's version. Version 1 (:data:`SCHEMA_V1`)::

    matches(id, started_at, finished_at, demo, rules, seed, first_dealer, winners, totals)
    seats(match_id, position, name, kind, think_ms)            primary key (match_id, position)
    rounds(match_id, number, dealer, seats, winner, penalties,
           chips_delta, totals, moves, played_at)              primary key (match_id, number)

Version 2 (:data:`MIGRATE_V1_V2`) adds ``rounds.hints`` and ``rounds.undos`` (0 in rounds recorded
before), the ``player_*`` columns of ``matches`` (unused from version 4 on: nothing reads or writes
them) and the index ``matches_newest`` (demo, started_at, id) for listing newest first. Version 3
(:data:`MIGRATE_V2_V3`) adds ``matches.uid``, the random token the game names a match by (unique
when set: :meth:`History.sync_match <kc_tui.records.store.History.sync_match>` finds the match
by it). Version 4 (:data:`MIGRATE_V3_V4`) adds ``player_results``: the results of every human seat
of every match, keyed by the person's name (the seat's name)::

    player_results(match_id, seat, person, size, opponents, total, won, margin,
                   rounds, rounds_won, penalty, hints, undos)    primary key (match_id, seat)

worked out from the match and its rounds whenever they are written, and for every match when
migrating (:func:`~kc_tui.records.summaries._update_results`), so that :meth:`History.summary
<kc_tui.records.store.History.summary>` reads no round; the index ``player_results_person``
(person, match_id) finds a person's matches. Version 5 (:data:`MIGRATE_V4_V5`) adds
``rounds.seat_hints`` and ``rounds.seat_undos``: every match seat's own hints and undos in the
round (the person on turn who asked), as JSON lists by match seat; NULL in rounds recorded before,
which keep the table's counts in ``hints`` and ``undos`` only (they count for a match's one person
alone). ``hints`` and ``undos`` stay the sums. Times are ISO 8601 text in UTC; ``seed`` is decimal
text (seeds are unsigned 64-bit); lists of ints (winners, totals, seats, penalties, chips_delta)
are JSON text; ``moves`` is a BLOB of little-endian unsigned 16-bit moves. A new file is made by
running every migration from version 0, so a new database and one migrated from any earlier
version have the same schema.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import suppress

from kc_tui.config import HUMAN
from kc_tui.i18n import _
from kc_tui.records.rows import _ROUND_SELECT_V4
from kc_tui.records.summaries import _update_results
from kc_tui.util.printable import one_line

#: The schema's version, kept in ``PRAGMA user_version``.
SCHEMA_VERSION = 5
#: ``PRAGMA application_id`` of our databases: "KCHI" (Kings Corners HIstory).
APPLICATION_ID = 0x4B434849
#: How long a write waits for another process's transaction (ms).
BUSY_TIMEOUT_MS = 5000

#: Version 1: matches, their seats and their rounds.
SCHEMA_V1 = """
CREATE TABLE matches (
    id INTEGER PRIMARY KEY,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    demo INTEGER NOT NULL DEFAULT 0,
    rules TEXT NOT NULL,
    seed TEXT NOT NULL,
    first_dealer INTEGER NOT NULL,
    winners TEXT NOT NULL DEFAULT '[]',
    totals TEXT NOT NULL DEFAULT '[]'
);
CREATE TABLE seats (
    match_id INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    think_ms INTEGER,
    PRIMARY KEY (match_id, position)
) WITHOUT ROWID;
CREATE TABLE rounds (
    match_id INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE,
    number INTEGER NOT NULL,
    dealer INTEGER NOT NULL,
    seats TEXT NOT NULL,
    winner INTEGER,
    penalties TEXT NOT NULL,
    chips_delta TEXT NOT NULL,
    totals TEXT NOT NULL,
    moves BLOB NOT NULL,
    played_at TEXT NOT NULL,
    PRIMARY KEY (match_id, number)
);
"""

#: Version 2: the humans' hints and undos in every round; columns for the player's results (unused
#: from version 4 on); an index for listing newest first.
MIGRATE_V1_V2 = """
ALTER TABLE rounds ADD COLUMN hints INTEGER NOT NULL DEFAULT 0;
ALTER TABLE rounds ADD COLUMN undos INTEGER NOT NULL DEFAULT 0;
ALTER TABLE matches ADD COLUMN player_seat INTEGER;
ALTER TABLE matches ADD COLUMN player_size INTEGER NOT NULL DEFAULT 0;
ALTER TABLE matches ADD COLUMN player_opponents TEXT NOT NULL DEFAULT '';
ALTER TABLE matches ADD COLUMN player_total INTEGER NOT NULL DEFAULT 0;
ALTER TABLE matches ADD COLUMN player_won INTEGER NOT NULL DEFAULT 0;
ALTER TABLE matches ADD COLUMN player_margin INTEGER NOT NULL DEFAULT 0;
ALTER TABLE matches ADD COLUMN player_rounds INTEGER NOT NULL DEFAULT 0;
ALTER TABLE matches ADD COLUMN player_rounds_won INTEGER NOT NULL DEFAULT 0;
ALTER TABLE matches ADD COLUMN player_penalty INTEGER NOT NULL DEFAULT 0;
ALTER TABLE matches ADD COLUMN player_hints INTEGER NOT NULL DEFAULT 0;
ALTER TABLE matches ADD COLUMN player_undos INTEGER NOT NULL DEFAULT 0;
CREATE INDEX matches_newest ON matches(demo, started_at DESC, id DESC);
"""


#: Version 3: the match's uid, the token the game names it by (:meth:`History.sync_match`).
MIGRATE_V2_V3 = """
ALTER TABLE matches ADD COLUMN uid TEXT;
CREATE UNIQUE INDEX matches_uid ON matches(uid) WHERE uid IS NOT NULL;
"""


#: Version 4: the results of every human seat of every match, by the person's name.
MIGRATE_V3_V4 = """
CREATE TABLE player_results (
    match_id INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE,
    seat INTEGER NOT NULL,
    person TEXT NOT NULL,
    size INTEGER NOT NULL,
    opponents TEXT NOT NULL,
    total INTEGER NOT NULL,
    won INTEGER NOT NULL,
    margin INTEGER NOT NULL,
    rounds INTEGER NOT NULL,
    rounds_won INTEGER NOT NULL,
    penalty INTEGER NOT NULL,
    hints INTEGER NOT NULL,
    undos INTEGER NOT NULL,
    PRIMARY KEY (match_id, seat)
) WITHOUT ROWID;
CREATE INDEX player_results_person ON player_results(person, match_id);
"""


#: Version 4's results copied from the ``player_*`` columns of version 2 where they were kept (the
#: person: the name of the human seat they are of).
_COPY_V3_RESULTS = """
INSERT OR IGNORE INTO player_results
SELECT m.id, m.player_seat, s.name, m.player_size, m.player_opponents, m.player_total, m.player_won,
    m.player_margin, m.player_rounds, m.player_rounds_won, m.player_penalty, m.player_hints, m.player_undos
FROM matches m JOIN seats s ON s.match_id = m.id AND s.position = m.player_seat AND s.kind = ?
WHERE m.player_seat IS NOT NULL
"""
#: The matches whose human seats do not all have their results.
_RESULTS_MISSING = """
SELECT m.id FROM matches m
WHERE (SELECT COUNT(*) FROM seats s WHERE s.match_id = m.id AND s.kind = ?)
    != (SELECT COUNT(*) FROM player_results r WHERE r.match_id = m.id)
"""


def _backfill_v4(con: sqlite3.Connection) -> None:
    """Version 4: the results of every human seat of every match recorded before: those version 2
    kept copied (no round read), the others worked out from the match's seats and rounds (a match
    that cannot be read is left out of the statistics: :func:`_update_results`)."""
    con.execute(_COPY_V3_RESULTS, (HUMAN,))
    for (match_id,) in con.execute(_RESULTS_MISSING, (HUMAN,)).fetchall():
        _update_results(con, match_id, _ROUND_SELECT_V4)


#: Version 5: every seat's own hints and undos in each round (NULL in the rounds recorded before).
MIGRATE_V4_V5 = """
ALTER TABLE rounds ADD COLUMN seat_hints TEXT;
ALTER TABLE rounds ADD COLUMN seat_undos TEXT;
"""


#: What takes a database from version ``v - 1`` to ``v``, by ``v``: a script, then a step in Python.
MIGRATIONS: dict[int, tuple[str, Callable[[sqlite3.Connection], None] | None]] = {
    1: (SCHEMA_V1, None),
    2: (MIGRATE_V1_V2, None),
    3: (MIGRATE_V2_V3, None),
    4: (MIGRATE_V3_V4, _backfill_v4),
    5: (MIGRATE_V4_V5, None),
}

#: The columns every table has at each version (how an existing file is recognized as ours).
COLUMNS: dict[int, dict[str, frozenset[str]]] = {
    1: {
        "matches": frozenset(
            {"id", "started_at", "finished_at", "demo", "rules", "seed", "first_dealer", "winners", "totals"}
        ),
        "seats": frozenset({"match_id", "position", "name", "kind", "think_ms"}),
        "rounds": frozenset(
            {
                "match_id",
                "number",
                "dealer",
                "seats",
                "winner",
                "penalties",
                "chips_delta",
                "totals",
                "moves",
                "played_at",
            }
        ),
    },
}
COLUMNS[2] = {
    **COLUMNS[1],
    "rounds": COLUMNS[1]["rounds"] | {"hints", "undos"},
    "matches": COLUMNS[1]["matches"]
    | {
        "player_seat",
        "player_size",
        "player_opponents",
        "player_total",
        "player_won",
        "player_margin",
        "player_rounds",
        "player_rounds_won",
        "player_penalty",
        "player_hints",
        "player_undos",
    },
}
COLUMNS[3] = {**COLUMNS[2], "matches": COLUMNS[2]["matches"] | {"uid"}}
COLUMNS[4] = {
    **COLUMNS[3],
    "player_results": frozenset(
        {
            "match_id",
            "seat",
            "person",
            "size",
            "opponents",
            "total",
            "won",
            "margin",
            "rounds",
            "rounds_won",
            "penalty",
            "hints",
            "undos",
        }
    ),
}

COLUMNS[5] = {**COLUMNS[4], "rounds": COLUMNS[4]["rounds"] | {"seat_hints", "seat_undos"}}


class _NotOurs(Exception):
    """The file is not a database of ours (the message says why)."""


class _Damaged(Exception):
    """The file is ours and damaged (the message says how)."""


class _Newer(Exception):
    """The file was written by a newer version of the game."""


def _version(con: sqlite3.Connection) -> tuple[int, int]:
    """(application_id, user_version) of an open database."""
    app = con.execute("PRAGMA application_id").fetchone()[0]
    version = con.execute("PRAGMA user_version").fetchone()[0]
    return int(app), int(version)


def _tables(con: sqlite3.Connection) -> dict[str, frozenset[str]]:
    names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    return {
        name: frozenset(r[0] for r in con.execute("SELECT name FROM pragma_table_info(?)", (name,))) for name in names
    }


def _check_ours(con: sqlite3.Connection) -> int:
    """The schema version of the database, checked to be ours: :class:`_NotOurs` when it is
    another program's, :class:`_Damaged` when it is ours with tables missing, :class:`_Newer`
    when a newer game wrote it. An empty database is version 0."""
    app, version = _version(con)
    tables = _tables(con)
    if app == 0 and version == 0 and not tables:
        return 0  # a new (or empty) file
    if app != APPLICATION_ID:
        raise _NotOurs(_("another program's database"))
    if version > SCHEMA_VERSION:
        raise _Newer(version)
    if version not in COLUMNS:
        raise _Damaged(_("it has an unknown schema version {version}").format(version=version))
    for table, columns in COLUMNS[version].items():
        if not columns <= tables.get(table, frozenset()):
            # Translators: {table} is a table's name in the history's database, {version} its format's version.
            raise _Damaged(
                _("its table {table} is not as version {version} has it").format(table=table, version=version)
            )
    return version


def _integrity(con: sqlite3.Connection) -> None:
    """:class:`_Damaged` unless SQLite finds the file sound (``PRAGMA quick_check``)."""
    rows = con.execute("PRAGMA quick_check(1)").fetchall()
    if rows != [("ok",)]:
        # Translators: {answer} is SQLite's own words (in English).
        answer = one_line(str(rows[0][0]) if rows else _("no answer"), 120)
        raise _Damaged(_("SQLite finds it damaged: {answer}").format(answer=answer))


def _migrate(con: sqlite3.Connection, *, wait: bool = True) -> None:
    """Bring the database up to SCHEMA_VERSION, one version at a time, in one transaction (another
    process may be migrating the same file: the version is read again once the lock is held).
    With ``wait`` False, a write lock held elsewhere is an SQLite "busy" error at once. Does
    nothing, taking no lock, when the database is current."""
    if _check_ours(con) == SCHEMA_VERSION:
        return
    if wait:
        con.execute("BEGIN IMMEDIATE")
    else:
        con.execute("PRAGMA busy_timeout = 0")
        try:
            con.execute("BEGIN IMMEDIATE")
        finally:
            con.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    try:
        version = _check_ours(con)
        if version == 0:
            con.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        for v in range(version + 1, SCHEMA_VERSION + 1):
            script, step = MIGRATIONS[v]
            for statement in _statements(script):
                con.execute(statement)
            if step is not None:
                step(con)
            con.execute(f"PRAGMA user_version = {v}")
        con.execute("COMMIT")
    except BaseException:
        with suppress(sqlite3.Error):
            con.execute("ROLLBACK")
        raise


def _statements(script: str) -> Iterator[str]:
    for part in script.split(";"):
        if part.strip():
            yield part.strip()
