"""Every game remembered (issue 13): finished rounds and matches kept in SQLite. Plain Python.

The file is ``data_dir()/history.sqlite3``, or the path in ``$KINGS_CORNERS_HISTORY``. A match is
recorded as it is played: :meth:`History.start_match` when it is dealt, :meth:`History.record_round`
after every round, :meth:`History.finish_match` at its end. A record holds enough to replay every
round exactly: the seats, the rules, the seed, the first dealer and every round's moves (the
engine's ``Move`` ints).

The schema
----------
``PRAGMA application_id`` is :data:`APPLICATION_ID` (a file with another id is not ours) and
``PRAGMA user_version`` the schema's version. Version 1 (:data:`SCHEMA_V1`)::

    matches(id, started_at, finished_at, demo, rules, seed, first_dealer, winners, totals)
    seats(match_id, position, name, kind, think_ms)            primary key (match_id, position)
    rounds(match_id, number, dealer, seats, winner, penalties,
           chips_delta, totals, moves, played_at)              primary key (match_id, number)

Version 2 (:data:`MIGRATE_V1_V2`) adds ``rounds.hints`` and ``rounds.undos`` (0 in rounds recorded
before); the player's results kept with every match (``matches.player_seat``, ``player_size``,
``player_opponents``, ``player_total``, ``player_won``, ``player_margin``, ``player_rounds``,
``player_rounds_won``, ``player_penalty``, ``player_hints``, ``player_undos``: worked out from the
match and its rounds whenever they are written, and for every match when migrating, so that
:meth:`History.summary` reads no round); and the index ``matches_newest`` (demo, started_at, id)
for listing newest first. Times are
ISO 8601 text in UTC; ``seed`` is decimal text (seeds are unsigned 64-bit); lists of ints (winners,
totals, seats, penalties, chips_delta) are JSON text; ``moves`` is a BLOB of little-endian unsigned
16-bit moves. A new file is made by running every migration from version 0, so a new database and
one migrated from any earlier version have the same schema.

What goes wrong
---------------
* A file that is not our database (random bytes, a damaged or truncated SQLite file, another
  program's SQLite file, a file that cannot be opened) is moved aside to
  ``<name>.corrupt-<time>`` and a new one started; :meth:`History.open` says so in its message.
* A file written by a newer version of the game (``user_version`` above :data:`SCHEMA_VERSION`)
  is never changed: it is opened read-only (what can be read of it is shown) and this session's
  games are not recorded (recording calls do nothing); the message says so.
* When no file can be used at the path (a directory is there, the folder cannot be written, the
  database stays locked), the history lives in memory for the session; the message says so.
* Writes are transactions (WAL, a busy timeout of 5 s): two app windows recording at once lose
  nothing. A recording call that fails raises :class:`HistoryError` (one plain line); the game
  goes on without it.
* Reading never raises: a row with values that are not what the schema says is skipped and a line
  saying so is added to :attr:`History.problems` (and logged); a query that fails does the same.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import re
import sqlite3
import sys
import threading
import time
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kc_tui.config import PROBLEM_MAX, data_dir, move_aside, one_line
from kc_tui.engine import RoundResult

log = logging.getLogger(__name__)

#: The schema's version, kept in ``PRAGMA user_version``.
SCHEMA_VERSION = 2
#: ``PRAGMA application_id`` of our databases: "KCHI" (Kings Corners HIstory).
APPLICATION_ID = 0x4B434849
ENV_HISTORY = "KINGS_CORNERS_HISTORY"
HISTORY_NAME = "history.sqlite3"
#: How long a write waits for another process's transaction (ms).
BUSY_TIMEOUT_MS = 5000
#: The human's kind (as :mod:`kc_tui.roster` spells it).
HUMAN = "human"
#: The largest move the engine makes (``END``); moves are stored as 16-bit numbers.
MOVE_MAX = 1024
SEED_MAX = 2**64 - 1
_BIG = 10**9
#: The most problems kept in :attr:`History.problems` (a damaged file could have thousands).
PROBLEMS_KEPT = 50

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

#: Version 2: the human's hints and undos in every round; the player's (the human seat's) results
#: kept with every match (filled in from its rounds, so that the statistics read no round); an
#: index for listing newest first.
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


def _backfill_v2(con: sqlite3.Connection) -> None:
    """Version 2: the player's results of every match recorded before, from its rounds."""
    for (match_id,) in con.execute("SELECT id FROM matches").fetchall():
        _update_player(con, match_id)


#: What takes a database from version ``v - 1`` to ``v``, by ``v``: a script, then a step in Python.
MIGRATIONS: dict[int, tuple[str, Callable[[sqlite3.Connection], None] | None]] = {
    1: (SCHEMA_V1, None),
    2: (MIGRATE_V1_V2, _backfill_v2),
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


class HistoryError(Exception):
    """The history could not be read or written; the message (one plain line) says why."""


class _NotOurs(Exception):
    """The file is not a database of ours (the message says why)."""


class _Newer(Exception):
    """The file was written by a newer version of the game."""


def default_history_path() -> Path:
    """``$KINGS_CORNERS_HISTORY`` if set, else ``data_dir()/history.sqlite3``."""
    env = os.environ.get(ENV_HISTORY)
    return Path(env) if env else data_dir() / HISTORY_NAME


# ---------------------------------------------------------------------- records
@dataclass(frozen=True)
class SeatInfo:
    """Who sat at a match seat: a name, ``"human"`` or an AI kind, and the AI's think time (ms)."""

    name: str
    kind: str
    think_ms: int | None = None

    @property
    def is_human(self) -> bool:
        return self.kind == HUMAN


@dataclass(frozen=True)
class RoundRecord:
    """One finished round, in match seats (as the engine's ``RoundResult``), with its moves."""

    number: int
    dealer: int
    #: The match seats playing the round, in round order.
    seats: tuple[int, ...]
    #: The match seat that went out, None on a block.
    winner: int | None
    #: Per match seat (0 for a seat that sat out).
    penalties: tuple[int, ...]
    chips_delta: tuple[int, ...]
    totals: tuple[int, ...]
    #: The engine's moves in order: dealing the round again and making them replays it exactly.
    moves: tuple[int, ...]
    #: The human's hints and undos this round.
    hints: int
    undos: int
    #: When the round ended (UTC).
    played_at: datetime

    @classmethod
    def of_result(
        cls, result: RoundResult, moves: Sequence[int], *, hints: int, undos: int, played_at: datetime
    ) -> RoundRecord:
        """The record of the engine's ``result`` for a round played with ``moves``."""
        return cls(
            number=result.number,
            dealer=result.dealer,
            seats=result.seats,
            winner=result.winner,
            penalties=result.penalties,
            chips_delta=result.chips_delta,
            totals=result.totals,
            moves=tuple(moves),
            hints=hints,
            undos=undos,
            played_at=played_at,
        )


@dataclass(frozen=True)
class MatchRecord:
    """One match: who played, the rules, the seed; its result once finished."""

    id: int
    started_at: datetime
    finished_at: datetime | None
    demo: bool
    seats: tuple[SeatInfo, ...]
    #: ``Rules.to_dict()``.
    rules: dict[str, Any]
    seed: int
    first_dealer: int
    #: Empty while unfinished.
    winners: tuple[int, ...]
    #: The latest totals (after the last round recorded).
    totals: tuple[int, ...]
    #: Filled by :meth:`History.match` (and ``History.matches(rounds=True)``); empty in lists.
    rounds: tuple[RoundRecord, ...] = ()

    @property
    def finished(self) -> bool:
        return self.finished_at is not None

    def human_seat(self, human: str = HUMAN) -> int | None:
        """The seat whose kind is ``human`` (the first one), None when all are AIs."""
        for i, seat in enumerate(self.seats):
            if seat.kind == human:
                return i
        return None


# ---------------------------------------------------------------------- encoding
def _utc(when: datetime | None) -> datetime:
    """``when`` in UTC (now when None); a naive time is taken as UTC."""
    if when is None:
        return datetime.now(UTC)
    if when.tzinfo is None:
        return when.replace(tzinfo=UTC)
    return when.astimezone(UTC)


def _time_text(when: datetime) -> str:
    return _utc(when).isoformat(timespec="microseconds")


def _ints_text(xs: Sequence[int]) -> str:
    return json.dumps([int(x) for x in xs], separators=(",", ":"))


def _moves_blob(moves: Sequence[int]) -> bytes:
    if not all(_is_int(m) and 0 <= m <= MOVE_MAX for m in moves):
        raise ValueError("a move is out of range")
    a = array("H", moves)
    if sys.byteorder == "big":  # pragma: no cover - stored little-endian everywhere
        a.byteswap()
    return a.tobytes()


def _round_values(match_id: int, r: RoundRecord) -> tuple[Any, ...]:
    """The values of a ``rounds`` row (in the order of ``_ROUND_COLUMNS``)."""
    return (
        match_id,
        r.number,
        r.dealer,
        _ints_text(r.seats),
        r.winner,
        _ints_text(r.penalties),
        _ints_text(r.chips_delta),
        _ints_text(r.totals),
        _moves_blob(r.moves),
        r.hints,
        r.undos,
        _time_text(r.played_at),
    )


class _Bad(Exception):
    """A stored value is not what the schema says (the message says which)."""


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _int(x: object, what: str, lo: int = -_BIG, hi: int = _BIG) -> int:
    if not _is_int(x) or not lo <= x <= hi:  # type: ignore[operator]
        raise _Bad(f"{what} is not a whole number from {lo} to {hi}")
    assert isinstance(x, int)
    return x


_INT_LIST = re.compile(r"\[(?:-?[0-9]{1,10}(?:,-?[0-9]{1,10})*)?\]")


#: Lists of numbers read before, by their text (totals and winners repeat).
_INTS_SEEN: dict[str, tuple[int, ...]] = {}


def _int_list(x: object, what: str, lo: int = -_BIG, hi: int = _BIG, n: int | None = None) -> tuple[int, ...]:
    """A list of ints as we write it (compact JSON, ``[1,-2,3]``), every one from ``lo`` to ``hi``."""
    if not isinstance(x, str):
        raise _Bad(f"{what} is not a list of numbers")
    xs = _INTS_SEEN.get(x)
    if xs is None:
        if len(x) > 10_000 or _INT_LIST.fullmatch(x) is None:
            raise _Bad(f"{what} is not a list of numbers")
        xs = tuple(map(int, x[1:-1].split(","))) if len(x) > 2 else ()
        if len(_INTS_SEEN) < 8192:
            _INTS_SEEN[x] = xs
    if xs and not lo <= min(xs) <= max(xs) <= hi:
        raise _Bad(f"{what} is not a list of whole numbers from {lo} to {hi}")
    if n is not None and len(xs) != n:
        raise _Bad(f"{what} does not have {n} numbers")
    return xs


def _time(x: object, what: str) -> datetime:
    if not isinstance(x, str):
        raise _Bad(f"{what} is not a time")
    try:
        when = datetime.fromisoformat(x)
    except ValueError:
        raise _Bad(f"{what} is not a time") from None
    return when if when.tzinfo is UTC else _utc(when)


def _moves(x: object) -> tuple[int, ...]:
    if not isinstance(x, bytes) or len(x) % 2:
        raise _Bad("the moves are not a list of moves")
    a = array("H")
    a.frombytes(x)
    if sys.byteorder == "big":  # pragma: no cover
        a.byteswap()
    if a and max(a) > MOVE_MAX:
        raise _Bad("a move is out of range")
    return tuple(a)


def _rules(x: object) -> dict[str, Any]:
    if not isinstance(x, str):
        raise _Bad("the rules are not text")
    cached = _RULES_SEEN.get(x)
    if cached is not None:
        return dict(cached)
    try:
        rules = json.loads(x)
    except ValueError:
        raise _Bad("the rules are not JSON") from None
    if not isinstance(rules, dict) or not all(isinstance(v, str | int) for v in rules.values()):
        raise _Bad("the rules are not a table of settings")
    if len(_RULES_SEEN) < 256:
        _RULES_SEEN[x] = dict(rules)
    return rules


#: Rules read before, by their text (most matches share a few).
_RULES_SEEN: dict[str, dict[str, Any]] = {}


#: A match's row, its seats as a JSON list of [position, name, kind, think_ms] (values of other
#: types given as null or "bad", so that no value makes the query fail: they are checked in Python).
_MATCH_SELECT = """
SELECT m.id, m.started_at, m.finished_at, m.demo, m.rules, m.seed, m.first_dealer, m.winners, m.totals,
    (SELECT json_group_array(json_array(
        s.position,
        CASE WHEN typeof(s.name) = 'text' THEN s.name END,
        CASE WHEN typeof(s.kind) = 'text' THEN s.kind END,
        CASE WHEN typeof(s.think_ms) IN ('integer', 'null') THEN s.think_ms ELSE 'bad' END
    )) FROM (SELECT * FROM seats WHERE seats.match_id = m.id ORDER BY position) s)
FROM matches m
"""
_ROUND_COLUMNS = (
    "match_id, number, dealer, seats, winner, penalties, chips_delta, totals, moves, hints, undos, played_at"
)
_ROUND_COLUMNS_NO_MOVES = _ROUND_COLUMNS.replace("moves", "NULL")


def _match_from_row(row: Sequence[Any]) -> MatchRecord:
    """A row of :data:`_MATCH_SELECT`, checked (:class:`_Bad` says what is wrong)."""
    match_id, started, finished, demo, rules, seed, first_dealer, winners, totals, seat_list = row
    seats = _seats(seat_list)
    n = len(seats)
    if not 1 <= n <= 8:
        raise _Bad("its seats are missing")
    if not isinstance(seed, str) or not seed.isascii() or not seed.isdigit() or len(seed) > 20:
        raise _Bad("its seed is not a number")
    seed_value = int(seed)
    if seed_value > SEED_MAX:
        raise _Bad("its seed is out of range")
    if demo not in (0, 1) or isinstance(demo, float):
        raise _Bad("its demo mark is not 0 or 1")
    return MatchRecord(
        id=_int(match_id, "its id", 1, 2**63 - 1),
        started_at=_time(started, "its start"),
        finished_at=None if finished is None else _time(finished, "its end"),
        demo=bool(demo),
        seats=seats,
        rules=_rules(rules),
        seed=seed_value,
        first_dealer=_int(first_dealer, "its first dealer", 0, n - 1),
        winners=_int_list(winners, "its winners", 0, n - 1),
        totals=_int_list(totals, "its totals"),
    )


def _seats(x: object) -> tuple[SeatInfo, ...]:
    """A match's seats from their JSON list (see :data:`_MATCH_SELECT`)."""
    if not isinstance(x, str):
        raise _Bad("its seats are missing")
    seen = _SEATS_SEEN.get(x)
    if seen is not None:
        return seen
    try:
        data = json.loads(x)
    except ValueError:
        raise _Bad("its seats are not readable") from None
    if not isinstance(data, list) or [d[0] if isinstance(d, list) and d else None for d in data] != list(
        range(len(data))
    ):
        raise _Bad("its seats are not numbered 0, 1, ...")
    seats = tuple(_seat_from_row(*d[1:]) for d in data)
    if len(_SEATS_SEEN) < 4096:
        _SEATS_SEEN[x] = seats
    return seats


#: Seats read before, by their JSON text (a player meets the same tables again and again).
_SEATS_SEEN: dict[str, tuple[SeatInfo, ...]] = {}


def _seat_from_row(name: object, kind: object, think_ms: object) -> SeatInfo:
    if not isinstance(name, str) or not isinstance(kind, str):
        raise _Bad("a seat's name or kind is not text")
    if think_ms is not None:
        think_ms = _int(think_ms, "a seat's think time", 0, 10**7)
    return SeatInfo(name, kind, think_ms)


def _round_from_row(row: Sequence[Any], n: int, with_moves: bool) -> RoundRecord:
    _, number, dealer, seats, winner, penalties, chips_delta, totals, moves, hints, undos, played_at = row
    round_seats = _int_list(seats, "its seats", 0, n - 1)
    if not round_seats or len(set(round_seats)) != len(round_seats):
        raise _Bad("its seats are not distinct seats")
    if winner is not None and (not _is_int(winner) or winner not in round_seats):
        raise _Bad("its winner is not one of its seats")
    return RoundRecord(
        number=_int(number, "its number", 1),
        dealer=_int(dealer, "its dealer", 0, n - 1),
        seats=round_seats,
        winner=winner,
        penalties=_int_list(penalties, "its penalties", 0, _BIG, n),
        chips_delta=_int_list(chips_delta, "its chips", -_BIG, _BIG, n),
        totals=_int_list(totals, "its totals", -_BIG, _BIG, n),
        moves=_moves(moves) if with_moves else (),
        hints=_int(hints, "its hints", 0),
        undos=_int(undos, "its undos", 0),
        played_at=_time(played_at, "its time"),
    )


def _err(exc: BaseException) -> str:
    """A one-line reason for a failure."""
    if isinstance(exc, sqlite3.Error):
        text = str(exc) or getattr(exc, "sqlite_errorname", "") or type(exc).__name__
    elif isinstance(exc, OSError):
        text = exc.strerror or type(exc).__name__
    else:
        text = str(exc) or type(exc).__name__
    return one_line(text, PROBLEM_MAX)


def _busy(exc: BaseException) -> bool:
    name = getattr(exc, "sqlite_errorname", "") or ""
    return name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in str(exc)


# ---------------------------------------------------------------------- opening
def _connect(target: str, *, uri: bool = False) -> sqlite3.Connection:
    con = sqlite3.connect(
        target,
        timeout=BUSY_TIMEOUT_MS / 1000,
        isolation_level=None,  # transactions are explicit (BEGIN IMMEDIATE ... COMMIT)
        check_same_thread=False,  # guarded by History's lock
        uri=uri,
    )
    con.text_factory = _text  # text that is not UTF-8 is read, not a failed query
    con.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    return con


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def _version(con: sqlite3.Connection) -> tuple[int, int]:
    """(application_id, user_version) of an open database."""
    app = con.execute("PRAGMA application_id").fetchone()[0]
    version = con.execute("PRAGMA user_version").fetchone()[0]
    return int(app), int(version)


def _tables(con: sqlite3.Connection) -> dict[str, frozenset[str]]:
    names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    return {name: frozenset(r[1] for r in con.execute(f'PRAGMA table_info("{name}")')) for name in names}


def _check_ours(con: sqlite3.Connection) -> int:
    """The schema version of the database, checked to be ours; :class:`_NotOurs` when it is not,
    :class:`_Newer` when a newer game wrote it. An empty database is version 0."""
    app, version = _version(con)
    tables = _tables(con)
    if app == 0 and version == 0 and not tables:
        return 0  # a new (or empty) file
    if app != APPLICATION_ID:
        raise _NotOurs("it is not a Kings Corners history (another program's database)")
    if version > SCHEMA_VERSION:
        raise _Newer(version)
    if version not in COLUMNS:
        raise _NotOurs(f"it has an unknown schema version {version}")
    for table, columns in COLUMNS[version].items():
        if not columns <= tables.get(table, frozenset()):
            raise _NotOurs(f"its table {table} is not as version {version} has it")
    return version


def _integrity(con: sqlite3.Connection) -> None:
    """:class:`_NotOurs` unless SQLite finds the file sound (``PRAGMA quick_check``)."""
    rows = con.execute("PRAGMA quick_check(1)").fetchall()
    if rows != [("ok",)]:
        raise _NotOurs(f"it is damaged ({one_line(str(rows[0][0]) if rows else 'no answer', 120)})")


def _migrate(con: sqlite3.Connection) -> None:
    """Bring the database up to SCHEMA_VERSION, one version at a time, in one transaction (another
    process may be migrating the same file: the version is read again once the lock is held)."""
    con.execute("BEGIN IMMEDIATE")
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
        con.execute("ROLLBACK")
        raise


def _statements(script: str) -> Iterator[str]:
    for part in script.split(";"):
        if part.strip():
            yield part.strip()


def _open_file(path: Path) -> tuple[sqlite3.Connection, bool]:
    """A connection to our database at ``path``, migrated; (connection, read_only). Raises
    :class:`_NotOurs` or sqlite3/OS errors when the file cannot be used."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() and not path.is_file():
        raise IsADirectoryError(21, "it is not a regular file")
    con = _connect(str(path))
    try:
        try:
            version = _check_ours(con)
        except _Newer:
            con.close()
            ro = _connect(path.resolve().as_uri() + "?mode=ro", uri=True)
            ro.execute("PRAGMA query_only = 1")
            return ro, True
        if version > 0:
            _integrity(con)
        mode = con.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if str(mode).lower() != "wal":  # pragma: no cover - e.g. a file system without shared memory
            log.warning("the history %s is not in WAL mode (%s)", path, mode)
        con.execute("PRAGMA synchronous = NORMAL")
        con.execute("PRAGMA foreign_keys = ON")
        _migrate(con)
        return con, False
    except BaseException:
        con.close()
        raise


def _memory() -> sqlite3.Connection:
    con = _connect(":memory:")
    con.execute("PRAGMA foreign_keys = ON")
    _migrate(con)
    return con


# ---------------------------------------------------------------------- the history
class History:
    """The game history in one SQLite file (see the module's doc). Open it with :meth:`open`."""

    def __init__(self, con: sqlite3.Connection, path: Path | None, *, read_only: bool = False) -> None:
        self._con: sqlite3.Connection | None = con
        self._lock = threading.RLock()
        #: The file, or None when the history lives in memory for this session.
        self.path = path
        #: True for a file written by a newer game: shown, never written (recording does nothing).
        self.read_only = read_only
        #: One plain line for every row skipped or query failed while reading (the first few).
        self.problems: list[str] = []

    @property
    def kept(self) -> bool:
        """Whether what is recorded is kept after this session (False in memory or read-only)."""
        return self.path is not None and not self.read_only

    # ------------------------------------------------------------------ opening
    @classmethod
    def open(cls, path: Path | None = None) -> tuple[History, str | None]:
        """Open (create or migrate) the history at ``path`` (default: :func:`default_history_path`).
        A file that cannot be read as our database is moved aside (``<name>.corrupt-<time>``) and a
        new one started; the second value is a one-line message for the player then (None
        otherwise). Never raises for a bad file: at worst the history lives in memory."""
        p = Path(path) if path is not None else default_history_path()
        shown = one_line(str(p))
        try:
            con, read_only = _open_file(p)
        except _NotOurs as exc:
            return cls._start_again(p, str(exc))
        except sqlite3.Error as exc:
            if _busy(exc):
                return cls._in_memory(f"History {shown} is busy ({_err(exc)}), so this session's games are not kept.")
            return cls._start_again(p, f"it cannot be read ({_err(exc)})")
        except OSError as exc:
            if p.exists() and not p.is_file():
                return cls._in_memory(
                    f"History {shown} is not a regular file, so it was left in place and this session's games"
                    " are not kept."
                )
            if p.exists():
                return cls._start_again(p, f"it cannot be opened ({_err(exc)})")
            return cls._in_memory(
                f"History {shown} cannot be created ({_err(exc)}), so this session's games are not kept."
            )
        if read_only:
            _, version = _version(con)
            message = (
                f"History {shown} was written by a newer version of Kings Corners (schema {version}, this one"
                f" knows {SCHEMA_VERSION}): it is shown as it is and this session's games are not recorded."
            )
            return cls(con, p, read_only=True), message
        return cls(con, p), None

    @classmethod
    def _start_again(cls, path: Path, problem: str) -> tuple[History, str | None]:
        """Move the unusable file aside (with its -wal and -shm) and start a new one there."""
        suffix = f".corrupt-{time.strftime('%Y%m%d-%H%M%S')}"
        kept = move_aside(path, suffix)
        shown = one_line(str(path))
        message = f"History {shown} could not be used: {one_line(problem, PROBLEM_MAX)}.{kept}"
        log.warning("%s", message)
        if path.exists():  # left in place: nothing can be recorded there
            return cls._in_memory(message + " This session's games are not kept.")
        for extra in ("-wal", "-shm"):
            side = path.with_name(path.name + extra)
            if side.exists():
                move_aside(side, suffix)
        try:
            con, _ = _open_file(path)
        except (sqlite3.Error, OSError, _NotOurs, _Newer) as exc:
            return cls._in_memory(
                f"{message} A new history cannot be started ({_err(exc)}); this session's games are not kept."
            )
        return cls(con, path), message + " A new history was started."

    @classmethod
    def _in_memory(cls, message: str) -> tuple[History, str | None]:
        log.warning("%s", message)
        return cls(_memory(), None), message

    def close(self) -> None:
        with self._lock:
            if self._con is not None:
                try:
                    self._con.close()
                finally:
                    self._con = None

    def __enter__(self) -> History:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ recording
    @contextmanager
    def _write(self, what: str) -> Iterator[sqlite3.Connection]:
        """One write transaction; any failure is a :class:`HistoryError` saying ``what`` failed."""
        with self._lock:
            con = self._con
            if con is None:
                raise HistoryError(f"could not {what}: the history is closed")
            try:
                con.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise HistoryError(f"could not {what}: {_err(exc)}") from None
            try:
                yield con
                con.execute("COMMIT")
            except BaseException as exc:
                with suppress(sqlite3.Error):
                    con.execute("ROLLBACK")
                if isinstance(exc, HistoryError):
                    raise
                if isinstance(exc, sqlite3.Error | ValueError | TypeError | OverflowError):
                    raise HistoryError(f"could not {what}: {_err(exc)}") from None
                raise

    def start_match(
        self,
        *,
        seats: Sequence[SeatInfo],
        rules: dict[str, Any],
        seed: int,
        first_dealer: int,
        demo: bool = False,
        started_at: datetime | None = None,
    ) -> int:
        """Record a new match; its id (0 when the history is read-only: nothing is recorded)."""
        n = len(seats)
        if not 1 <= n <= 8 or not all(isinstance(s, SeatInfo) for s in seats):
            raise HistoryError("could not record the match: it needs its seats")
        if not _is_int(seed) or not 0 <= seed <= SEED_MAX:
            raise HistoryError("could not record the match: its seed is not a 64-bit number")
        if not _is_int(first_dealer) or not 0 <= first_dealer < n:
            raise HistoryError("could not record the match: its first dealer is not one of its seats")
        if self.read_only:
            return 0
        with self._write("record the match") as con:
            cur = con.execute(
                "INSERT INTO matches (started_at, demo, rules, seed, first_dealer, totals) VALUES (?, ?, ?, ?, ?, ?)",
                (
                    _time_text(_utc(started_at)),
                    int(bool(demo)),
                    json.dumps(dict(rules), separators=(",", ":"), allow_nan=False),
                    str(seed),
                    first_dealer,
                    _ints_text([0] * n),
                ),
            )
            match_id = cur.lastrowid
            assert match_id is not None
            con.executemany(
                "INSERT INTO seats (match_id, position, name, kind, think_ms) VALUES (?, ?, ?, ?, ?)",
                [(match_id, i, s.name, s.kind, s.think_ms) for i, s in enumerate(seats)],
            )
            _update_player(con, match_id)
            return match_id

    def open_match(
        self, *, seats: Sequence[SeatInfo], rules: dict[str, Any], seed: int, rounds_played: int
    ) -> int | None:
        """The id of the newest unfinished match with these seats, rules and seed and rounds 1 to
        ``rounds_played`` recorded (a match resumed from its save goes on under its id); None when
        there is none (or the history is read-only)."""
        if self.read_only or not _is_int(seed) or not 0 <= seed <= SEED_MAX:
            return None
        rows = self._query(
            f"{_MATCH_SELECT} WHERE m.finished_at IS NULL AND m.seed = ? ORDER BY m.started_at DESC, m.id DESC",
            (str(seed),),
        )
        for row in rows:
            try:
                m = _match_from_row(row)
            except _Bad:
                continue
            if m.seats != tuple(seats) or m.rules != dict(rules):
                continue
            numbers = [
                r[0] for r in self._query("SELECT number FROM rounds WHERE match_id = ? ORDER BY number", (m.id,))
            ]
            if numbers == list(range(1, rounds_played + 1)):
                return m.id
        return None

    def record_round(self, match_id: int, record: RoundRecord) -> None:
        """Record a finished round of match ``match_id`` (again: it replaces the one with its number)
        and make its totals the match's latest."""
        if self.read_only:
            return
        with self._write(f"record round {record.number}") as con:
            if con.execute("SELECT 1 FROM matches WHERE id = ?", (match_id,)).fetchone() is None:
                raise HistoryError(f"could not record round {record.number}: there is no match {match_id}")
            con.execute(
                f"INSERT OR REPLACE INTO rounds ({_ROUND_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                _round_values(match_id, record),
            )
            con.execute("UPDATE matches SET totals = ? WHERE id = ?", (_ints_text(record.totals), match_id))
            _update_player(con, match_id)

    def finish_match(
        self, match_id: int, *, winners: Sequence[int], totals: Sequence[int], finished_at: datetime | None = None
    ) -> None:
        """Record the end of match ``match_id``: its winners (match seats) and final totals."""
        if self.read_only:
            return
        with self._write("record the end of the match") as con:
            cur = con.execute(
                "UPDATE matches SET finished_at = ?, winners = ?, totals = ? WHERE id = ?",
                (_time_text(_utc(finished_at)), _ints_text(winners), _ints_text(totals), match_id),
            )
            if cur.rowcount != 1:
                raise HistoryError(f"could not record the end of the match: there is no match {match_id}")
            _update_player(con, match_id)

    def add_matches(self, records: Iterable[MatchRecord]) -> list[int]:
        """Record whole matches (with their rounds) in one transaction, each under a new id (their
        ``id`` is ignored): e.g. matches read from another history or an export. Their new ids."""
        if self.read_only:
            return []
        ids: list[int] = []
        with self._write("add the matches") as con:
            for m in records:
                cur = con.execute(
                    "INSERT INTO matches (started_at, finished_at, demo, rules, seed, first_dealer, winners, totals)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        _time_text(m.started_at),
                        None if m.finished_at is None else _time_text(m.finished_at),
                        int(bool(m.demo)),
                        json.dumps(dict(m.rules), separators=(",", ":"), allow_nan=False),
                        str(int(m.seed)),
                        m.first_dealer,
                        _ints_text(m.winners),
                        _ints_text(m.totals),
                    ),
                )
                match_id = cur.lastrowid
                assert match_id is not None
                con.executemany(
                    "INSERT INTO seats (match_id, position, name, kind, think_ms) VALUES (?, ?, ?, ?, ?)",
                    [(match_id, i, s.name, s.kind, s.think_ms) for i, s in enumerate(m.seats)],
                )
                con.executemany(
                    f"INSERT INTO rounds ({_ROUND_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [_round_values(match_id, r) for r in m.rounds],
                )
                _update_player(con, match_id)
                ids.append(match_id)
        return ids

    # ------------------------------------------------------------------ reading
    def _problem(self, text: str) -> None:
        log.warning("history: %s", text)
        if len(self.problems) < PROBLEMS_KEPT:
            self.problems.append(one_line(text, PROBLEM_MAX))

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """The rows of a query; none (and a problem noted) when it fails."""
        with self._lock:
            if self._con is None:
                self._problem("the history is closed")
                return []
            try:
                return self._con.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                self._problem(f"could not read the history: {_err(exc)}")
                return []

    def _records(self, rows: Sequence[Any], *, rounds: bool, moves: bool) -> list[MatchRecord]:
        ids = [row[0] for row in rows]
        round_rows = self._rounds_of(ids, moves) if rounds else {}
        out: list[MatchRecord] = []
        for row in rows:
            match_id = row[0]
            try:
                record = _match_from_row(row)
            except _Bad as exc:
                self._problem(f"match {quote_id(match_id)} was skipped: {exc}")
                continue
            if rounds:
                record = _with_rounds(record, round_rows.get(match_id, []), moves, self._problem)
            out.append(record)
        return out

    def _rounds_of(self, ids: Sequence[int], moves: bool) -> dict[int, list[tuple[Any, ...]]]:
        out: dict[int, list[tuple[Any, ...]]] = {}
        columns = _ROUND_COLUMNS if moves else _ROUND_COLUMNS_NO_MOVES
        if len(ids) > 500:  # most of the table: one pass over it is quicker than lookups
            wanted = set(ids)
            for row in self._query(f"SELECT {columns} FROM rounds ORDER BY match_id, number"):
                if row[0] in wanted:
                    out.setdefault(row[0], []).append(row)
            return out
        for chunk in _chunks(ids):
            marks = ",".join("?" * len(chunk))
            for row in self._query(
                f"SELECT {columns} FROM rounds WHERE match_id IN ({marks}) ORDER BY match_id, number", chunk
            ):
                out.setdefault(row[0], []).append(row)
        return out

    def matches(
        self, *, demos: bool = False, limit: int | None = None, offset: int = 0, rounds: bool = False
    ) -> list[MatchRecord]:
        """The matches, newest first: the player's (``demos`` False) or the demos (``demos`` True).
        Their ``rounds`` are empty unless ``rounds`` is True (then without their moves: what
        :func:`summarize` needs; :meth:`match` gives a match with its moves)."""
        rows = self._query(
            f"{_MATCH_SELECT} WHERE m.demo = ? ORDER BY m.started_at DESC, m.id DESC LIMIT ? OFFSET ?",
            (int(demos), -1 if limit is None else max(0, limit), max(0, offset)),
        )
        return self._records(rows, rounds=rounds, moves=False)

    def match(self, match_id: int) -> MatchRecord | None:
        """Match ``match_id`` with its rounds and their moves; None when there is none (or it is unreadable)."""
        rows = self._query(f"{_MATCH_SELECT} WHERE m.id = ?", (match_id,))
        records = self._records(rows, rounds=True, moves=True)
        return records[0] if records else None

    def count_matches(self, *, demos: bool = False) -> int:
        rows = self._query("SELECT COUNT(*) FROM matches WHERE demo = ?", (int(demos),))
        return int(rows[0][0]) if rows else 0

    def summary(self, human: str = HUMAN) -> Summary:
        """The player's statistics: :func:`summarize` of every match (demos left out), from the
        results kept with each match (no round is read: quick with thousands of matches)."""
        if human != HUMAN:  # the kept results are the "human" seat's
            return summarize(self.matches(rounds=True), human)
        combos: dict[tuple[tuple[str, ...], int], _Sums] = {}
        seen = 0
        for opponents, size, *sums in self._query(_SUMMARY_GROUPS_SQL):
            combos[(tuple(opponents.split(_US)) if opponents else (), size)] = [int(x) for x in sums]
            seen += sums[0]
        points: list[MatchPoint] = []
        for match_id, finished, total, won, margin in self._query(_SUMMARY_POINTS_SQL):
            try:
                points.append(MatchPoint(match_id, _time(finished, "its end"), total, bool(won), margin))
            except _Bad as exc:
                self._problem(f"match {quote_id(match_id)} was left out of the plots: {exc}")
        counted = self._query(_SUMMARY_COUNT_SQL)
        if counted and counted[0][0] > seen:
            self._problem(f"{counted[0][0] - seen} matches could not be read and were left out of the statistics")
        return _summary(combos, points)

    def _all(self) -> list[MatchRecord]:
        """Every match (demos too), oldest first, with its rounds and moves."""
        rows = self._query(f"{_MATCH_SELECT} ORDER BY m.started_at, m.id")
        return self._records(rows, rounds=True, moves=True)

    def export_json(self) -> list[dict[str, Any]]:
        """Every match with its rounds, oldest first, as plain JSON data (times as ISO 8601 text)."""
        return [match_json(m) for m in self._all()]

    def export_rows(self) -> list[dict[str, Any]]:
        """One flat dict per round, oldest first (for CSV): the same keys in every row
        (:data:`EXPORT_COLUMNS`), values text, numbers, booleans or empty text; lists as JSON text."""
        out: list[dict[str, Any]] = []
        for m in self._all():
            for r in m.rounds:
                out.append(round_row(m, r))
        return out


#: The keys of every row :meth:`History.export_rows` gives, in order.
EXPORT_COLUMNS: tuple[str, ...] = (
    "match_id",
    "started_at",
    "finished_at",
    "demo",
    "players",
    "kinds",
    "think_ms",
    "rules",
    "seed",
    "first_dealer",
    "match_winners",
    "round",
    "dealer",
    "round_seats",
    "winner",
    "winner_name",
    "penalties",
    "chips_delta",
    "totals",
    "hints",
    "undos",
    "played_at",
    "moves",
)


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def round_row(m: MatchRecord, r: RoundRecord) -> dict[str, Any]:
    """The flat export row of round ``r`` of match ``m`` (keys: :data:`EXPORT_COLUMNS`)."""
    return {
        "match_id": m.id,
        "started_at": m.started_at.isoformat(),
        "finished_at": "" if m.finished_at is None else m.finished_at.isoformat(),
        "demo": m.demo,
        "players": _compact([s.name for s in m.seats]),
        "kinds": _compact([s.kind for s in m.seats]),
        "think_ms": _compact([s.think_ms for s in m.seats]),
        "rules": _compact(m.rules),
        "seed": m.seed,
        "first_dealer": m.first_dealer,
        "match_winners": _compact(list(m.winners)),
        "round": r.number,
        "dealer": r.dealer,
        "round_seats": _compact(list(r.seats)),
        "winner": "" if r.winner is None else r.winner,
        "winner_name": "" if r.winner is None or r.winner >= len(m.seats) else m.seats[r.winner].name,
        "penalties": _compact(list(r.penalties)),
        "chips_delta": _compact(list(r.chips_delta)),
        "totals": _compact(list(r.totals)),
        "hints": r.hints,
        "undos": r.undos,
        "played_at": r.played_at.isoformat(),
        "moves": _compact(list(r.moves)),
    }


def match_json(m: MatchRecord) -> dict[str, Any]:
    """Match ``m`` as plain JSON data: times as ISO 8601 text, tuples as lists."""
    return {
        "id": m.id,
        "started_at": m.started_at.isoformat(),
        "finished_at": None if m.finished_at is None else m.finished_at.isoformat(),
        "demo": m.demo,
        "seats": [{"name": s.name, "kind": s.kind, "think_ms": s.think_ms} for s in m.seats],
        "rules": dict(m.rules),
        "seed": m.seed,
        "first_dealer": m.first_dealer,
        "winners": list(m.winners),
        "totals": list(m.totals),
        "rounds": [
            {
                "number": r.number,
                "dealer": r.dealer,
                "seats": list(r.seats),
                "winner": r.winner,
                "penalties": list(r.penalties),
                "chips_delta": list(r.chips_delta),
                "totals": list(r.totals),
                "moves": list(r.moves),
                "hints": r.hints,
                "undos": r.undos,
                "played_at": r.played_at.isoformat(),
            }
            for r in m.rounds
        ],
    }


def quote_id(x: object) -> str:
    return str(x) if _is_int(x) else "?"


def _chunks(ids: Sequence[int], size: int = 500) -> Iterator[Sequence[int]]:
    for i in range(0, len(ids), size):
        yield ids[i : i + size]


def _replace_rounds(record: MatchRecord, rounds: tuple[RoundRecord, ...]) -> MatchRecord:
    return dataclasses.replace(record, rounds=rounds)


def _with_rounds(
    record: MatchRecord, rows: Sequence[Sequence[Any]], moves: bool, problem: Callable[[str], None]
) -> MatchRecord:
    n = len(record.seats)
    rounds: list[RoundRecord] = []
    for row in rows:
        try:
            rounds.append(_round_from_row(row, n, moves))
        except _Bad as exc:
            problem(f"round {quote_id(row[1])} of match {record.id} was skipped: {exc}")
    return MatchRecord(
        id=record.id,
        started_at=record.started_at,
        finished_at=record.finished_at,
        demo=record.demo,
        seats=record.seats,
        rules=record.rules,
        seed=record.seed,
        first_dealer=record.first_dealer,
        winners=record.winners,
        totals=record.totals,
        rounds=tuple(rounds),
    )


# ---------------------------------------------------------------------- statistics
@dataclass(frozen=True)
class GroupStats:
    """The player's results against one opponent kind at one table size (``opponent`` "all" and
    ``table_size`` 0: every match). A match with several opponent kinds counts for each kind."""

    opponent: str
    table_size: int
    #: Finished matches, and those the player won (a shared win counts).
    matches: int = 0
    matches_won: int = 0
    #: Rounds played (unfinished matches' too), and those the player went out in.
    rounds: int = 0
    rounds_won: int = 0
    #: The player's penalties (R15) summed over those rounds, and the hints asked for.
    penalty_total: int = 0
    hints: int = 0
    undos: int = 0

    @property
    def mean_penalty(self) -> float:
        return self.penalty_total / self.rounds if self.rounds else 0.0

    @property
    def hints_per_round(self) -> float:
        return self.hints / self.rounds if self.rounds else 0.0

    @property
    def match_win_rate(self) -> float:
        return self.matches_won / self.matches if self.matches else 0.0

    @property
    def round_win_rate(self) -> float:
        return self.rounds_won / self.rounds if self.rounds else 0.0


@dataclass(frozen=True)
class MatchPoint:
    """One finished match for plots: its id, when it ended, the player's final total, won or not.
    ``margin``: how far ahead of the best opponent the player finished (negative: behind), in
    points under points scoring (fewer is better) or chips under chips scoring."""

    match_id: int
    finished_at: datetime | None
    total: int
    won: bool
    margin: int


@dataclass(frozen=True)
class Summary:
    """The player's statistics (:func:`summarize`); demos are never in it."""

    #: By (opponent kind, table size), sorted by kind then size.
    groups: tuple[GroupStats, ...] = ()
    #: Every match and round together.
    overall: GroupStats = field(default_factory=lambda: GroupStats("all", 0))
    #: The finished match with the largest margin, and the one with the smallest.
    best: MatchPoint | None = None
    worst: MatchPoint | None = None
    #: Matches won in a row up to the latest finished one, and the longest such run.
    current_streak: int = 0
    longest_streak: int = 0
    #: Every finished match, oldest first (for plots).
    points: tuple[MatchPoint, ...] = ()
    #: Matches started and not finished (abandoned or in progress).
    unfinished: int = 0

    @property
    def by_opponent(self) -> tuple[GroupStats, ...]:
        return self.groups


class _Tally:
    __slots__ = ("hints", "matches", "matches_won", "penalty_total", "rounds", "rounds_won", "undos")

    def __init__(self) -> None:
        self.matches = self.matches_won = self.rounds = self.rounds_won = 0
        self.penalty_total = self.hints = self.undos = 0

    def freeze(self, opponent: str, size: int) -> GroupStats:
        return GroupStats(
            opponent,
            size,
            self.matches,
            self.matches_won,
            self.rounds,
            self.rounds_won,
            self.penalty_total,
            self.hints,
            self.undos,
        )


@dataclass(frozen=True, slots=True)
class PlayerRounds:
    """The player's rounds of one match, added up: played, won, penalties, hints, undos."""

    rounds: int = 0
    rounds_won: int = 0
    penalty: int = 0
    hints: int = 0
    undos: int = 0


def player_rounds(rounds: Iterable[RoundRecord], seat: int) -> PlayerRounds:
    """What the player at match seat ``seat`` did in ``rounds`` (only the rounds it played count)."""
    played = won = penalty = hints = undos = 0
    for r in rounds:
        if seat not in r.seats:
            continue
        played += 1
        won += r.winner == seat
        penalty += r.penalties[seat] if seat < len(r.penalties) else 0
        hints += r.hints
        undos += r.undos
    return PlayerRounds(played, won, penalty, hints, undos)


@dataclass(frozen=True, slots=True)
class _PlayerMatch:
    """What the statistics need of one of the player's matches."""

    id: int
    finished_at: datetime | None
    size: int
    #: The opponents' kinds, each once, sorted.
    opponents: tuple[str, ...]
    #: The player's total, whether it won (a shared win counts), its margin (:class:`MatchPoint`).
    total: int
    won: bool
    margin: int
    rounds: PlayerRounds


def _update_player(con: sqlite3.Connection, match_id: int) -> None:
    """Work out the player's (the human seat's) results of match ``match_id`` into its ``player_*``
    columns (version 2), as :func:`summarize` would from its record: what :meth:`History.summary`
    reads. A match with no human seat, or one that cannot be read, gets ``player_seat`` NULL
    (left out of the statistics); rounds that cannot be read are left out."""
    row = con.execute(f"{_MATCH_SELECT} WHERE m.id = ?", (match_id,)).fetchone()
    if row is None:
        return
    try:
        record = _match_from_row(row)
    except _Bad:
        con.execute("UPDATE matches SET player_seat = NULL WHERE id = ?", (match_id,))
        return
    seat = record.human_seat()
    if seat is None:
        con.execute("UPDATE matches SET player_seat = NULL WHERE id = ?", (match_id,))
        return
    rows = con.execute(f"SELECT {_ROUND_COLUMNS_NO_MOVES} FROM rounds WHERE match_id = ?", (match_id,)).fetchall()
    rounds: list[RoundRecord] = []
    for r in rows:
        try:
            rounds.append(_round_from_row(r, len(record.seats), with_moves=False))
        except _Bad:
            continue
    pm = _player_match(_replace_rounds(record, tuple(rounds)), seat)
    t = pm.rounds
    con.execute(
        "UPDATE matches SET player_seat = ?, player_size = ?, player_opponents = ?, player_total = ?,"
        " player_won = ?, player_margin = ?, player_rounds = ?, player_rounds_won = ?, player_penalty = ?,"
        " player_hints = ?, player_undos = ? WHERE id = ?",
        (
            seat,
            pm.size,
            _US.join(pm.opponents),
            pm.total,
            int(pm.won),
            pm.margin,
            t.rounds,
            t.rounds_won,
            t.penalty,
            t.hints,
            t.undos,
            match_id,
        ),
    )


#: Joins the opponents' kinds in ``player_opponents`` (the unit separator: never in a kind).
_US = "\x1f"


def _chips(rules: dict[str, Any]) -> bool:
    return rules.get("scoring") == "chips"


def _result(totals: Sequence[int], winners: Sequence[int], seat: int, chips: bool) -> tuple[int, bool, int]:
    """The player's (total, won, margin) from a match's final totals and winners."""
    mine = totals[seat] if seat < len(totals) else 0
    others = [t for i, t in enumerate(totals) if i != seat]
    if not others:
        margin = 0
    elif chips:
        margin = mine - max(others)
    else:
        margin = min(others) - mine
    return mine, seat in winners, margin


def match_point(m: MatchRecord, seat: int) -> MatchPoint:
    """The plot point of finished match ``m`` for the player at ``seat``."""
    total, won, margin = _result(m.totals, m.winners, seat, _chips(m.rules))
    return MatchPoint(m.id, m.finished_at, total, won, margin)


def _player_match(m: MatchRecord, seat: int) -> _PlayerMatch:
    total, won, margin = _result(m.totals, m.winners, seat, _chips(m.rules))
    return _PlayerMatch(
        id=m.id,
        finished_at=m.finished_at,
        size=len(m.seats),
        opponents=tuple(sorted({s.kind for i, s in enumerate(m.seats) if i != seat})),
        total=total,
        won=won,
        margin=margin,
        rounds=player_rounds(m.rounds, seat),
    )


#: The player's matches whose kept results have their types (:meth:`History.summary`).
_PLAYER_MATCHES = """
FROM matches
WHERE demo = 0 AND typeof(player_seat) = 'integer'
    AND typeof(started_at) = 'text' AND typeof(finished_at) IN ('text', 'null')
    AND typeof(player_size) = 'integer' AND typeof(player_opponents) = 'text'
    AND typeof(player_total) = 'integer' AND typeof(player_won) = 'integer' AND typeof(player_margin) = 'integer'
    AND typeof(player_rounds) = 'integer' AND typeof(player_rounds_won) = 'integer'
    AND typeof(player_penalty) = 'integer' AND typeof(player_hints) = 'integer' AND typeof(player_undos) = 'integer'
"""
#: By (opponents, table size): the sums :func:`_summary` adds up.
_SUMMARY_GROUPS_SQL = f"""
SELECT player_opponents, player_size, COUNT(*), SUM(finished_at IS NOT NULL),
    SUM(finished_at IS NOT NULL AND player_won != 0), SUM(player_rounds), SUM(player_rounds_won),
    SUM(player_penalty), SUM(player_hints), SUM(player_undos)
{_PLAYER_MATCHES}
GROUP BY player_opponents, player_size
"""
#: The finished matches, in the order they ended.
_SUMMARY_POINTS_SQL = f"""
SELECT id, finished_at, player_total, player_won != 0, player_margin
{_PLAYER_MATCHES} AND finished_at IS NOT NULL
ORDER BY finished_at, started_at, id
"""
_SUMMARY_COUNT_SQL = "SELECT COUNT(*) FROM matches WHERE demo = 0 AND player_seat IS NOT NULL"

#: The sums kept for one (opponents, table size): matches, finished, won, rounds, rounds won,
#: penalty, hints, undos.
_Sums = list[int]


def summarize(matches: Sequence[MatchRecord], human: str = HUMAN) -> Summary:
    """The statistics of the player (the seat whose kind is ``human``) over ``matches`` (records
    with their rounds, in any order). Demos and matches with no such seat are left out.
    :meth:`History.summary` gives the same from the database without reading the rounds."""
    combos: dict[tuple[tuple[str, ...], int], _Sums] = {}
    points: list[MatchPoint] = []
    for m in sorted(matches, key=lambda m: (m.finished_at or m.started_at, m.started_at, m.id)):
        seat = m.human_seat(human)
        if m.demo or seat is None:
            continue
        pm = _player_match(m, seat)
        sums = combos.setdefault((pm.opponents, pm.size), [0] * 8)
        finished = pm.finished_at is not None
        r = pm.rounds
        for i, x in enumerate((1, finished, finished and pm.won, r.rounds, r.rounds_won, r.penalty, r.hints, r.undos)):
            sums[i] += x
        if finished:
            points.append(MatchPoint(pm.id, pm.finished_at, pm.total, pm.won, pm.margin))
    return _summary(combos, points)


def _summary(combos: dict[tuple[tuple[str, ...], int], _Sums], points: list[MatchPoint]) -> Summary:
    """The statistics from the sums of every (opponents, table size) and the finished matches'
    points in the order they ended."""
    overall = _Tally()
    groups: dict[tuple[str, int], _Tally] = {}
    unfinished = 0
    for (opponents, size), (n, finished, won, rounds, rounds_won, penalty, hints, undos) in combos.items():
        unfinished += n - finished
        for t in [overall, *(groups.setdefault((k, size), _Tally()) for k in opponents)]:
            t.matches += finished
            t.matches_won += won
            t.rounds += rounds
            t.rounds_won += rounds_won
            t.penalty_total += penalty
            t.hints += hints
            t.undos += undos
    streak = longest = 0
    for p in points:
        streak = streak + 1 if p.won else 0
        longest = max(longest, streak)
    best = max(points, key=lambda p: (p.margin, p.won), default=None)
    worst = min(points, key=lambda p: (p.margin, p.won), default=None)
    return Summary(
        groups=tuple(t.freeze(k, size) for (k, size), t in sorted(groups.items())),
        overall=overall.freeze("all", 0),
        best=best,
        worst=worst,
        current_streak=streak,
        longest_streak=longest,
        points=tuple(points),
        unfinished=unfinished,
    )


__all__ = [
    "APPLICATION_ID",
    "ENV_HISTORY",
    "EXPORT_COLUMNS",
    "MIGRATIONS",
    "SCHEMA_V1",
    "SCHEMA_VERSION",
    "GroupStats",
    "History",
    "HistoryError",
    "MatchPoint",
    "MatchRecord",
    "RoundRecord",
    "SeatInfo",
    "Summary",
    "default_history_path",
    "match_json",
    "round_row",
    "summarize",
]
