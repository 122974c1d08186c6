"""Every game remembered: finished rounds and matches kept in SQLite. Plain Python.

The file is ``data_dir()/history.sqlite3``, or the path in ``$KINGS_CORNERS_HISTORY``. A match is
recorded as it is played: :meth:`History.sync_match` with everything known of it (its uid, seats,
rules, seed, every finished round, the totals, the winners once over) records what is new, once,
however often it is called; :meth:`History.start_match`, :meth:`History.record_round` and
:meth:`History.finish_match` record one step each. A record holds enough to replay every
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
for listing newest first. Version 3 (:data:`MIGRATE_V2_V3`) adds ``matches.uid``, the random
token the game names a match by (unique when set: :meth:`History.sync_match` finds the match by
it). Times are ISO 8601 text in UTC; ``seed`` is decimal text (seeds are unsigned 64-bit); lists of ints (winners,
totals, seats, penalties, chips_delta) are JSON text; ``moves`` is a BLOB of little-endian unsigned
16-bit moves. A new file is made by running every migration from version 0, so a new database and
one migrated from any earlier version have the same schema.

What goes wrong
---------------
Each kind of fault is met once, where it belongs:

* What is at the path is looked at before SQLite opens it. A missing file, or an empty one, is
  made a new history. A directory, a link to nothing, a file that cannot be read, a file that is
  not an SQLite database and another program's database are left exactly as they are: the
  history lives in memory for the session and the one-line message of :meth:`History.open` says
  what was found.
* A file is set aside (to ``<name>.corrupt-<time>``, with its -wal and -shm, never over an earlier
  one) and a new history started only when it is provably ours and provably damaged: its header
  carries :data:`APPLICATION_ID` and SQLite finds it damaged (``SQLITE_CORRUPT``,
  ``SQLITE_NOTADB``, ``PRAGMA quick_check``) or our tables are missing; and only when it is the
  app's own file, ``data_dir()/history.sqlite3``. A file the user named
  (``$KINGS_CORNERS_HISTORY``, a path given to :meth:`History.open`) is never moved or rewritten.
* SQLite errors are read by their codes (:func:`fault`: a full disk, an I/O error, a read-only
  file or folder, a lock held by another program, damage) into one reason in plain words, for
  opening and for writing alike. A file that cannot be written is left as it is: its games are
  copied into memory when they can be read, and this session's games are kept there only.
* Opening never waits on another process: reading has a busy timeout of
  :data:`READ_TIMEOUT_MS`, and a migration that needs the write lock while another program holds
  it is done on an in-memory copy for reading and on the file at the first write. Reads and
  writes have their own connections and locks, so a write waiting for the lock (up to
  :data:`BUSY_TIMEOUT_MS`) never holds up a read.
* A file written by a newer version of the game (``user_version`` above :data:`SCHEMA_VERSION`)
  is never changed: it is opened read-only (what can be read of it is shown) and this session's
  games are not recorded (recording calls do nothing); the message says so.
* :meth:`History.open_read_only` (the ``stats`` command) never creates, writes, migrates or moves
  anything: an earlier version is migrated in a copy in memory; anything it cannot read is a
  :class:`HistoryError`.
* Writes are transactions (WAL): two app windows recording at once lose nothing. A recording call
  that fails raises :class:`HistoryError` (one plain line) and changes nothing; the game goes on.
* Reading never raises: text and blobs are cut to their longest sensible size in SQL, and every
  value is checked in Python (types, ranges, times, the rules against the engine's declarations,
  names as the settings allow them). A row with a value that is not what the schema says is
  skipped and a line saying so is added to :attr:`History.problems` (and logged); a query that
  fails does the same.
"""

from __future__ import annotations

import dataclasses
import errno
import json
import logging
import os
import re
import secrets
import sqlite3
import stat
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

from kc_tui.config import HUMAN, NAME_MAX, name_problem
from kc_tui.config.store import data_dir
from kc_tui.engine import RoundResult
from kc_tui.engine.rules import RulesError, variant
from kc_tui.util.text import PROBLEM_MAX, one_line

log = logging.getLogger(__name__)

#: The schema's version, kept in ``PRAGMA user_version``.
SCHEMA_VERSION = 3
#: ``PRAGMA application_id`` of our databases: "KCHI" (Kings Corners HIstory).
APPLICATION_ID = 0x4B434849
ENV_HISTORY = "KINGS_CORNERS_HISTORY"
HISTORY_NAME = "history.sqlite3"
#: How long a write waits for another process's transaction (ms).
BUSY_TIMEOUT_MS = 5000
#: How long a read (and opening) waits for another process's lock (ms).
READ_TIMEOUT_MS = 200
#: The first bytes of every SQLite database file, and the size of its header.
SQLITE_MAGIC = b"SQLite format 3\x00"
SQLITE_HEADER_SIZE = 100
#: The longest text read from a column (longer values are not what the schema says).
TEXT_MAX = 1000
#: The longest rules text, seat kind and moves blob (bytes) read.
RULES_MAX = 4096
KIND_MAX = 40
MOVES_MAX = 1 << 20
#: The times a record may hold (a clock set to 1970 is possible; the years past 9000 are not).
TIME_MIN = datetime(1970, 1, 1, tzinfo=UTC)
TIME_MAX = datetime(9000, 1, 1, tzinfo=UTC)
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


#: Version 3: the match's uid, the token the game names it by (:meth:`History.sync_match`).
MIGRATE_V2_V3 = """
ALTER TABLE matches ADD COLUMN uid TEXT;
CREATE UNIQUE INDEX matches_uid ON matches(uid) WHERE uid IS NOT NULL;
"""


def _backfill_v2(con: sqlite3.Connection) -> None:
    """Version 2: the player's results of every match recorded before, from its rounds (a match
    that cannot be read is left out of the statistics: :func:`_update_player`)."""
    for (match_id,) in con.execute("SELECT id FROM matches").fetchall():
        _update_player(con, match_id)


#: What takes a database from version ``v - 1`` to ``v``, by ``v``: a script, then a step in Python.
MIGRATIONS: dict[int, tuple[str, Callable[[sqlite3.Connection], None] | None]] = {
    1: (SCHEMA_V1, None),
    2: (MIGRATE_V1_V2, _backfill_v2),
    3: (MIGRATE_V2_V3, None),
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


class HistoryError(Exception):
    """The history could not be read or written; the message (one plain line) says why."""


class _NotOurs(Exception):
    """The file is not a database of ours (the message says why)."""


class _Damaged(Exception):
    """The file is ours and damaged (the message says how)."""


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


@dataclass(frozen=True)
class MatchSync:
    """Everything known of a match being played, for :meth:`History.sync_match`: calling it again
    with the same or a later state records what is new, once."""

    #: A random token naming the match (:func:`new_uid`: 32 hex characters).
    uid: str
    seats: tuple[SeatInfo, ...]
    rules: dict[str, Any]
    seed: int
    first_dealer: int
    demo: bool
    started_at: datetime
    #: Every finished round so far, numbered 1 to k in order.
    rounds: tuple[RoundRecord, ...]
    #: The latest totals.
    totals: tuple[int, ...]
    #: Set once the match is over.
    winners: tuple[int, ...] | None = None
    finished_at: datetime | None = None


_UID = re.compile(r"[0-9a-f]{32}")


def new_uid() -> str:
    """A new match uid: 32 random hex characters."""
    return secrets.token_hex(16)


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
    """A time as we write it (ISO 8601), in UTC, from :data:`TIME_MIN` to :data:`TIME_MAX`."""
    if not isinstance(x, str) or len(x) > 64:
        raise _Bad(f"{what} is not a time")
    try:
        when = datetime.fromisoformat(x)
        when = when if when.tzinfo is UTC else _utc(when)
    except (ValueError, OverflowError):
        raise _Bad(f"{what} is not a time") from None
    if not TIME_MIN <= when < TIME_MAX:
        raise _Bad(f"{what} is not a time from {TIME_MIN.year} to {TIME_MAX.year}")
    return when


def _moves(x: object) -> tuple[int, ...]:
    if not isinstance(x, bytes) or len(x) % 2 or len(x) > MOVES_MAX:
        raise _Bad("the moves are not a list of moves")
    a = array("H")
    a.frombytes(x)
    if sys.byteorder == "big":  # pragma: no cover
        a.byteswap()
    if a and max(a) > MOVE_MAX:
        raise _Bad("a move is out of range")
    return tuple(a)


def _rules(x: object) -> dict[str, Any]:
    """The rules as ``Rules.to_dict()`` wrote them: every known setting with a value its
    declaration (:mod:`kc_tui.engine.rules`) allows; a setting of a newer game (unknown here) is
    kept when it is a word, a whole number or a switch."""
    if not isinstance(x, str) or len(x) > RULES_MAX:
        raise _Bad("the rules are not text")
    cached = _RULES_SEEN.get(x)
    if cached is not None:
        return dict(cached)
    try:
        rules = json.loads(x)
    except (ValueError, RecursionError):
        raise _Bad("the rules are not JSON") from None
    if not isinstance(rules, dict):
        raise _Bad("the rules are not a table of settings")
    for key, value in rules.items():
        _rule_check(key, value)
    if len(_RULES_SEEN) < 256:
        _RULES_SEEN[x] = dict(rules)
    return rules


def _rule_check(key: str, value: object) -> None:
    """:class:`_Bad` unless ``value`` may be the setting ``key``."""
    try:
        v = variant(key)
    except RulesError:  # a setting of a newer game
        if len(key) > 64 or not key.isprintable():
            raise _Bad("a rule's name is not a name") from None
        if isinstance(value, str) and len(value) <= 64 and value.isprintable():
            return
        if isinstance(value, bool) or (isinstance(value, int) and -(2**63) <= value < 2**63):
            return
        raise _Bad(f"the rule {one_line(key)} is not a word, a number or a switch") from None
    try:
        v.check(value)
    except RulesError as exc:
        raise _Bad(f"its rules are not valid ({one_line(str(exc), 120)})") from None


#: Rules read before, by their text (most matches share a few).
_RULES_SEEN: dict[str, dict[str, Any]] = {}


def _cap(column: str, most: int = TEXT_MAX) -> str:
    """SQL for ``column`` with text or a blob longer than ``most`` given as ``'too long'`` (which
    no check accepts), so that a huge value never reaches Python."""
    return (
        f"CASE WHEN typeof({column}) IN ('text', 'blob') AND length({column}) > {most}"
        f" THEN 'too long' ELSE {column} END"
    )


#: A match's row, its seats as a JSON list of [position, name, kind, think_ms] (values of other
#: types, and text too long for its field, given as null or "bad", so that no value makes the query
#: fail: they are checked in Python).
_MATCH_SELECT = f"""
SELECT m.id, {_cap("m.started_at")}, {_cap("m.finished_at")}, m.demo, {_cap("m.rules", RULES_MAX)},
    {_cap("m.seed")}, m.first_dealer, {_cap("m.winners")}, {_cap("m.totals")},
    (SELECT json_group_array(json_array(
        CASE WHEN typeof(s.position) = 'integer' THEN s.position END,
        CASE WHEN typeof(s.name) = 'text' AND length(s.name) <= {NAME_MAX} THEN s.name END,
        CASE WHEN typeof(s.kind) = 'text' AND length(s.kind) <= {KIND_MAX} THEN s.kind END,
        CASE WHEN typeof(s.think_ms) IN ('integer', 'null') THEN s.think_ms ELSE 'bad' END
    )) FROM (SELECT * FROM seats WHERE seats.match_id = m.id ORDER BY position LIMIT 9) s)
FROM matches m
"""
_ROUND_COLUMNS = (
    "match_id, number, dealer, seats, winner, penalties, chips_delta, totals, moves, hints, undos, played_at"
)
#: The columns of a round as read (text and blobs cut to their sizes, see :func:`_cap`).
_ROUND_SELECT = (
    f"match_id, number, dealer, {_cap('seats')}, winner, {_cap('penalties')}, {_cap('chips_delta')},"
    f" {_cap('totals')}, {_cap('moves', MOVES_MAX)}, hints, undos, {_cap('played_at')}"
)
_ROUND_SELECT_NO_MOVES = (
    f"match_id, number, dealer, {_cap('seats')}, winner, {_cap('penalties')}, {_cap('chips_delta')},"
    f" {_cap('totals')}, NULL, hints, undos, {_cap('played_at')}"
)
#: What reading a row may raise besides :class:`_Bad` when a value is not what the schema says.
_UNREADABLE = (_Bad, ValueError, TypeError, OverflowError, RecursionError, IndexError, KeyError)


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
    if not isinstance(data, list) or [d[0] if isinstance(d, list) and len(d) == 4 else None for d in data] != list(
        range(len(data))
    ):
        raise _Bad("its seats are not numbered 0, 1, ...")
    seats = tuple(_seat_from_row(d[1], d[2], d[3]) for d in data)
    if len(_SEATS_SEEN) < 4096:
        _SEATS_SEEN[x] = seats
    return seats


#: Seats read before, by their JSON text (a player meets the same tables again and again).
_SEATS_SEEN: dict[str, tuple[SeatInfo, ...]] = {}


def _seat_from_row(name: object, kind: object, think_ms: object) -> SeatInfo:
    if not isinstance(name, str) or not isinstance(kind, str):
        raise _Bad("a seat's name or kind is not text")
    problem = name_problem(name, "a seat's name")
    if problem is not None:
        raise _Bad(problem)
    if not kind or len(kind) > KIND_MAX or not kind.isprintable() or _US in kind:
        raise _Bad("a seat's kind is not a kind")
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


# ---------------------------------------------------------------------- checks before writing
def _checked_time(what: str, when: object, label: str) -> datetime:
    """``when`` in UTC (now when None), checked to read back (:func:`_time`)."""
    try:
        if when is None:
            return _utc(None)
        if not isinstance(when, datetime):
            raise _Bad(f"{label} is not a time")
        utc = _utc(when)
        _time(_time_text(utc), label)
    except _UNREADABLE as exc:
        raise HistoryError(f"could not {what}: {exc}") from None
    return utc


def _checked_ints(what: str, xs: object, label: str, lo: int, hi: int) -> str:
    """The text of the list of ints ``xs``, checked to read back (:func:`_int_list`)."""
    try:
        if not isinstance(xs, Sequence) or isinstance(xs, str | bytes):
            raise _Bad(f"{label} is not a list of numbers")
        text = _ints_text(xs)
        _int_list(text, label, lo, hi)
    except _UNREADABLE as exc:
        raise HistoryError(f"could not {what}: {exc}") from None
    return text


def _checked_round(what: str, r: object, n: int) -> tuple[Any, ...]:
    """The values of round ``r`` of a match of ``n`` seats (``_round_values``), checked to read
    back (:func:`_round_from_row`): what is recorded can always be read."""
    try:
        if not isinstance(r, RoundRecord):
            raise _Bad("it is not a round")
        values = _round_values(0, r)
        _round_from_row(values, n, True)
    except _UNREADABLE as exc:
        raise HistoryError(f"could not {what}: {exc}") from None
    return values


def _match_problem(what: str, seats: object, rules: object, seed: object, first_dealer: object) -> str:
    """The rules' text of a match to record, every value checked to read back;
    :class:`HistoryError` saying what is wrong."""
    if not isinstance(seats, Sequence) or not 1 <= len(seats) <= 8 or not all(isinstance(s, SeatInfo) for s in seats):
        raise HistoryError(f"could not {what}: it needs its seats")
    if not _is_int(seed) or not 0 <= seed <= SEED_MAX:  # type: ignore[operator]
        raise HistoryError(f"could not {what}: its seed is not a 64-bit number")
    if not _is_int(first_dealer) or not 0 <= first_dealer < len(seats):  # type: ignore[operator]
        raise HistoryError(f"could not {what}: its first dealer is not one of its seats")
    try:
        for s in seats:
            _seat_from_row(s.name, s.kind, s.think_ms)
        if not isinstance(rules, dict):
            raise _Bad("its rules are not a table of settings")
        text = json.dumps(dict(rules), separators=(",", ":"), allow_nan=False)
        _rules(text)
    except _UNREADABLE as exc:
        raise HistoryError(f"could not {what}: {exc}") from None
    return text


def _insert_match(
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
    _update_player(con, match_id)
    return match_id


def _find_sync(con: sqlite3.Connection, sync: MatchSync, n: int) -> int | None:
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


# ---------------------------------------------------------------------- what went wrong
@dataclass(frozen=True)
class Fault:
    """What an error met reading or writing the history means: ``kind`` (``"full"``, ``"locked"``,
    ``"readonly"``, ``"denied"``, ``"io"``, ``"damaged"``, ``"missing"``, ``"cantopen"`` or
    ``"other"``) and the reason in plain words (``"the disk is full"``)."""

    kind: str
    words: str

    @property
    def unwritable(self) -> bool:
        """Whether the file may be readable but cannot be written (a full disk, a read-only file...)."""
        return self.kind in ("full", "readonly", "denied", "io", "cantopen")


_WORDS = {
    "full": "the disk is full",
    "locked": "the history is locked by another program",
    "readonly": "the file or its folder is read-only",
    "denied": "permission is denied",
    "io": "the disk reported an input/output error",
    "damaged": "the file is damaged",
    "missing": "the file or its folder does not exist",
    "cantopen": "the file cannot be opened",
}
_ERRNO_KINDS = {
    errno.ENOSPC: "full",
    errno.EDQUOT: "full",
    errno.EACCES: "denied",
    errno.EPERM: "denied",
    errno.EROFS: "readonly",
    errno.EIO: "io",
    errno.ENOENT: "missing",
    errno.ENOTDIR: "missing",
}


def _folder_fault(folder: Path | None) -> str | None:
    """The kind of fault the folder shows (a read-only or full file system, a missing folder), if any."""
    if folder is None:
        return None
    try:
        st = os.statvfs(folder)
    except FileNotFoundError:
        return "missing"
    except (OSError, ValueError):
        return None
    if st.f_flag & os.ST_RDONLY:
        return "readonly"
    if st.f_bavail == 0:
        return "full"
    return None


def fault(exc: BaseException, folder: Path | None = None) -> Fault:
    """What ``exc`` means, from SQLite's error code (``sqlite_errorname``) or the OS's errno; an
    I/O error or a file that cannot be opened is told apart by looking at ``folder`` (the
    history's folder): a full disk or a read-only file system say so."""
    kind = "other"
    if isinstance(exc, UnicodeDecodeError):  # SQLite's message names a damaged schema's bytes
        return Fault("damaged", _WORDS["damaged"])
    if isinstance(exc, sqlite3.Error):
        name = getattr(exc, "sqlite_errorname", "") or ""
        text = str(exc)
        if name == "SQLITE_FULL" or (not name and "disk is full" in text):
            kind = "full"
        elif name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or (not name and "locked" in text):
            kind = "locked"
        elif name.startswith("SQLITE_CORRUPT") or name == "SQLITE_NOTADB" or (not name and "malformed" in text):
            kind = "damaged"
        elif name.startswith("SQLITE_READONLY") or (not name and "readonly" in text):
            kind = _folder_fault(folder) or "readonly"
        elif name == "SQLITE_PERM" or name.startswith("SQLITE_AUTH"):
            kind = "denied"
        elif name.startswith("SQLITE_IOERR"):
            kind = _folder_fault(folder) or "io"
        elif name.startswith("SQLITE_CANTOPEN") or (not name and "unable to open" in text):
            kind = _folder_fault(folder) or "cantopen"
        if kind == "other":
            return Fault(kind, one_line(text or name or type(exc).__name__, PROBLEM_MAX))
        return Fault(kind, _WORDS[kind])
    if isinstance(exc, OSError):
        kind = _ERRNO_KINDS.get(exc.errno or 0, "other")
        if kind == "other":
            return Fault(kind, one_line((exc.strerror or type(exc).__name__).lower(), PROBLEM_MAX))
        return Fault(kind, _WORDS[kind])
    return Fault(kind, one_line(str(exc) or type(exc).__name__, PROBLEM_MAX))


def reason(exc: BaseException, folder: Path | None = None) -> str:
    """Why ``exc`` happened, in plain words (:func:`fault`)."""
    return fault(exc, folder).words


# ---------------------------------------------------------------------- opening
#: What every message about a file left alone ends with.
_LEFT = "It was left as it is; this session's games are kept in memory only."


def _connect(target: str, *, uri: bool = False, timeout_ms: int = BUSY_TIMEOUT_MS) -> sqlite3.Connection:
    con = sqlite3.connect(
        target,
        timeout=timeout_ms / 1000,
        isolation_level=None,  # transactions are explicit (BEGIN IMMEDIATE ... COMMIT)
        check_same_thread=False,  # guarded by History's locks
        uri=uri,
    )
    try:
        con.text_factory = _text  # text that is not UTF-8 is read, not a failed query
        con.execute(f"PRAGMA busy_timeout = {int(timeout_ms)}")
    except BaseException:
        con.close()
        raise
    return con


def _file_uri(path: Path, mode: str) -> str:
    """The SQLite URI of ``path`` opened with ``mode`` (``ro``, ``rw``, ``rwc``)."""
    return f"{path.absolute().as_uri()}?mode={mode}"


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


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
        raise _NotOurs("another program's database")
    if version > SCHEMA_VERSION:
        raise _Newer(version)
    if version not in COLUMNS:
        raise _Damaged(f"it has an unknown schema version {version}")
    for table, columns in COLUMNS[version].items():
        if not columns <= tables.get(table, frozenset()):
            raise _Damaged(f"its table {table} is not as version {version} has it")
    return version


def _integrity(con: sqlite3.Connection) -> None:
    """:class:`_Damaged` unless SQLite finds the file sound (``PRAGMA quick_check``)."""
    rows = con.execute("PRAGMA quick_check(1)").fetchall()
    if rows != [("ok",)]:
        raise _Damaged(f"SQLite finds it damaged: {one_line(str(rows[0][0]) if rows else 'no answer', 120)}")


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


def _memory() -> sqlite3.Connection:
    con = _connect(":memory:")
    con.execute("PRAGMA foreign_keys = ON")
    _migrate(con)
    return con


def _head(path: Path) -> bytes:
    """The first :data:`SQLITE_HEADER_SIZE` bytes of the file (never blocking on a FIFO)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        return os.read(fd, SQLITE_HEADER_SIZE)
    finally:
        os.close(fd)


def _header_ours(head: bytes) -> bool:
    """Whether an SQLite header carries our application_id (a big-endian u32 at offset 68)."""
    return (
        len(head) >= SQLITE_HEADER_SIZE
        and head.startswith(SQLITE_MAGIC)
        and int.from_bytes(head[68:72], "big") == APPLICATION_ID
    )


def _kind_of(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _side_files(path: Path) -> list[Path]:
    return [path.with_name(path.name + extra) for extra in ("-wal", "-shm", "-journal")]


def _is_app_file(path: Path) -> bool:
    """Whether ``path`` is the app's own history, ``data_dir()/history.sqlite3`` (while no
    ``$KINGS_CORNERS_HISTORY`` names another): the only file ever set aside."""
    if os.environ.get(ENV_HISTORY):
        return False
    try:
        return os.path.abspath(path) == os.path.abspath(data_dir() / HISTORY_NAME)
    except (OSError, ValueError):
        return False


def _set_aside(path: Path) -> Path:
    """Move the damaged file and its -wal, -shm and -journal to ``<name>.corrupt-<time>`` (with
    the same endings), never over an earlier file; where it went. OSError when it cannot be."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    k = 0
    while True:
        aside = path.with_name(f"{path.name}.corrupt-{stamp}" + (f".{k}" if k else ""))
        if not any(os.path.lexists(p) for p in (aside, *_side_files(aside))):
            break
        k += 1
    _rename_new(path, aside)
    for side, to in zip(_side_files(path), _side_files(aside), strict=True):
        if os.path.lexists(side):
            _rename_new(side, to)
    return aside


def _rename_new(src: Path, dst: Path) -> None:
    """Rename ``src`` to ``dst``, which must not exist (a hard link then an unlink where links
    work, so that nothing is ever overwritten)."""
    try:
        os.link(src, dst, follow_symlinks=False)
    except FileExistsError:
        raise
    except OSError:
        if os.path.lexists(dst):
            raise FileExistsError(errno.EEXIST, "the name is taken", str(dst)) from None
        os.rename(src, dst)
        return
    os.unlink(src)


def _wal_size(path: Path) -> int | None:
    """The size of the database's -wal file, None when there is none."""
    try:
        return os.stat(path.with_name(path.name + "-wal")).st_size
    except FileNotFoundError:
        return None


def _snapshot(path: Path, *, empty_wal: bool = False) -> sqlite3.Connection | None:
    """A copy in memory of a database no one has open (no -wal beside it; with ``empty_wal`` an
    empty one is allowed too), read from its bytes without opening it in SQLite (which would make
    a -wal and a -shm beside it); None when it may be in use (then SQLite must read it, minding
    the locks) or it changed while it was read."""
    if os.path.lexists(path.with_name(path.name + "-journal")):
        return None
    before = os.stat(path)
    if _wal_size(path) not in ((None, 0) if empty_wal else (None,)):
        return None
    data = bytearray(path.read_bytes())
    after = os.stat(path)
    if (
        _wal_size(path) not in ((None, 0) if empty_wal else (None,))
        or (before.st_size, before.st_mtime_ns) != (after.st_size, after.st_mtime_ns)
        or len(data) != after.st_size
    ):
        return None
    if len(data) >= SQLITE_HEADER_SIZE and data[18:20] == b"\x02\x02":
        data[18:20] = b"\x01\x01"  # a copy in memory has no WAL: read it as a rollback database
    con = _connect(":memory:", timeout_ms=READ_TIMEOUT_MS)
    try:
        con.deserialize(bytes(data))
    except BaseException:
        con.close()
        raise
    return con


def _read_copy(path: Path) -> sqlite3.Connection:
    """A copy in memory of the database at ``path``, made without writing anything there (an
    empty -wal, as SQLite leaves when it cannot size the -shm on a full disk, holds nothing)."""
    snap = _snapshot(path, empty_wal=True)
    if snap is not None:
        return snap
    src = _connect(_file_uri(path, "ro"), uri=True, timeout_ms=READ_TIMEOUT_MS)
    try:
        mem = _connect(":memory:", timeout_ms=READ_TIMEOUT_MS)
        try:
            src.backup(mem)
        except BaseException:
            mem.close()
            raise
        return mem
    finally:
        src.close()


def _current_copy(con: sqlite3.Connection, *, keep: bool = False) -> sqlite3.Connection:
    """``con`` migrated to the current schema: itself when it is current, else a copy in memory
    migrated there (the file is not touched; ``con`` is closed then unless ``keep``)."""
    if _check_ours(con) == SCHEMA_VERSION:
        return con
    mem = _connect(":memory:", timeout_ms=READ_TIMEOUT_MS)
    try:
        con.backup(mem)
        mem.execute("PRAGMA foreign_keys = ON")
        _migrate(mem)
    except BaseException:
        mem.close()
        raise
    if not keep:
        con.close()
    return mem


# ---------------------------------------------------------------------- the history
class History:
    """The game history in one SQLite file (see the module's doc). Open it with :meth:`open`, or
    :meth:`open_read_only` for a command that only reads.

    Reads use their own connection (a busy timeout of :data:`READ_TIMEOUT_MS`) and lock; writes a
    second connection (:data:`BUSY_TIMEOUT_MS`) and lock, so that the UI thread reads while a
    write from another thread waits for another program's lock."""

    def __init__(
        self,
        con: sqlite3.Connection,
        path: Path | None,
        *,
        read_only: bool = False,
        writer: sqlite3.Connection | None = None,
        file_reader: sqlite3.Connection | None = None,
    ) -> None:
        """``con`` reads (and writes too when no ``writer`` is given); ``file_reader``: the file's
        reading connection while ``con`` is a migrated copy in memory (the file is migrated at the
        first write, then read through ``file_reader``)."""
        self._reader: sqlite3.Connection | None = con
        self._read_lock = threading.RLock()
        self._writer: sqlite3.Connection | None = None if read_only else (writer or con)
        self._write_lock = self._read_lock if writer is None else threading.RLock()
        self._file_reader = file_reader
        #: The file, or None when the history lives in memory for this session.
        self.path = path
        #: True when nothing is recorded: a file written by a newer game, or read for a command
        #: that only reads (:meth:`open_read_only`).
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
        """Open (create or migrate) the history at ``path`` (default: :func:`default_history_path`);
        the second value is a one-line message for the player when the file could not be used as
        it is (None otherwise). See "What goes wrong" in the module's doc. Never raises, and never
        waits on another program's lock: at worst the history lives in memory."""
        p = Path(path) if path is not None else default_history_path()
        try:
            return cls._open(p)
        except Exception as exc:  # the last guard: the app starts whatever is at the path
            log.exception("the history %s could not be opened", p)
            return cls._in_memory(f"History {one_line(str(p))} cannot be used: {reason(exc, p.parent)}. {_LEFT}")

    @classmethod
    def _open(cls, p: Path) -> tuple[History, str | None]:
        shown = one_line(str(p))
        try:
            st: os.stat_result | None = os.lstat(p)
        except FileNotFoundError:
            st = None
        except (OSError, ValueError) as exc:  # e.g. a file where a folder of the path should be
            return cls._in_memory(f"History {shown} cannot be used: {reason(exc, p.parent)}. {_LEFT}")
        if st is not None and stat.S_ISLNK(st.st_mode):
            try:
                st = os.stat(p)
            except FileNotFoundError:
                target = one_line(os.readlink(p))
                return cls._in_memory(f"History {shown} is a link to {target}, which does not exist. {_LEFT}")
            except OSError as exc:
                return cls._in_memory(f"History {shown} is a link that cannot be followed ({reason(exc)}). {_LEFT}")
        if st is not None and not stat.S_ISREG(st.st_mode):
            return cls._in_memory(f"History {shown} is {_kind_of(st.st_mode)}, not a regular file. {_LEFT}")
        if st is None or st.st_size == 0:
            try:
                p.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                return cls._in_memory(
                    f"History {shown} cannot be created: {reason(exc, p.parent)}; this session's games are kept"
                    " in memory only."
                )
            return cls._open_file(p, b"", new=True)
        try:
            head = _head(p)
        except OSError as exc:
            return cls._in_memory(f"History {shown} cannot be read: {reason(exc, p.parent)}. {_LEFT}")
        if not head.startswith(SQLITE_MAGIC):
            return cls._in_memory(f"History {shown} is not a Kings Corners history (not an SQLite database). {_LEFT}")
        return cls._open_file(p, head, new=False)

    @classmethod
    def _open_file(cls, p: Path, head: bytes, *, new: bool) -> tuple[History, str | None]:
        """Open the file at ``p`` (``new``: missing or empty; else its header is ``head``)."""
        shown = one_line(str(p))
        try:
            reader = _connect(_file_uri(p, "rwc" if new else "rw"), uri=True, timeout_ms=READ_TIMEOUT_MS)
        except sqlite3.Error as exc:
            return cls._unusable(p, fault(exc, p.parent), new=new)
        writer: sqlite3.Connection | None = None
        try:
            version = _check_ours(reader)
            if version > 0:
                _integrity(reader)
            mode = str(reader.execute("PRAGMA journal_mode").fetchone()[0]).lower()
            if mode != "wal":
                try:
                    mode = str(reader.execute("PRAGMA journal_mode = WAL").fetchone()[0]).lower()
                except sqlite3.Error as exc:  # another program reads it now: next time
                    if fault(exc).kind != "locked":
                        raise
                if mode != "wal":
                    log.warning("the history %s is not in WAL mode (%s)", p, mode)
            writer = _connect(_file_uri(p, "rw"), uri=True)
            writer.execute("PRAGMA synchronous = NORMAL")
            writer.execute("PRAGMA foreign_keys = ON")
            if version < SCHEMA_VERSION:
                try:
                    _migrate(writer, wait=False)
                except sqlite3.Error as exc:
                    if fault(exc).kind != "locked":
                        raise
                    # Another program holds the write lock: read a migrated copy, migrate the
                    # file at the first write.
                    log.info("the history %s is migrated at the first write (it is locked now)", p)
                    copy = _current_copy(reader, keep=True)
                    return cls(copy, p, writer=writer, file_reader=reader), None
            return cls(reader, p, writer=writer), None
        except _Newer as exc:
            if writer is not None:
                writer.close()
            reader.execute("PRAGMA query_only = 1")
            message = (
                f"History {shown} was written by a newer version of Kings Corners (schema {exc.args[0]}, this one"
                f" knows {SCHEMA_VERSION}): it is shown as it is and this session's games are not recorded."
            )
            return cls(reader, p, read_only=True), message
        except BaseException as exc:
            for con in (reader, writer):
                if con is not None:
                    con.close()
            if isinstance(exc, _NotOurs):
                return cls._in_memory(f"History {shown} is not a Kings Corners history ({exc}). {_LEFT}")
            if isinstance(exc, _Damaged):
                return cls._damaged(p, head, str(exc))
            if isinstance(exc, sqlite3.Error | UnicodeDecodeError):
                f = fault(exc, p.parent)
                if f.kind == "damaged":
                    return cls._damaged(p, head, f"SQLite reports: {one_line(str(exc), 120)}")
                return cls._unusable(p, f, new=new)
            raise

    @classmethod
    def _damaged(cls, p: Path, head: bytes, detail: str) -> tuple[History, str | None]:
        """A damaged file: set aside and a new one started when it is provably ours and the
        app's own; else left as it is."""
        shown = one_line(str(p))
        if not (_header_ours(head) and _is_app_file(p)):
            return cls._in_memory(f"History {shown} is damaged ({detail}). {_LEFT}")
        try:
            aside = _set_aside(p)
        except OSError as exc:
            return cls._in_memory(
                f"History {shown} is damaged ({detail}) and cannot be set aside ({reason(exc)}). {_LEFT}"
            )
        said = f"History {shown} is damaged ({detail}): it was set aside as {one_line(aside.name)}"
        log.warning("%s", said)
        h, problem = cls._open_file(p, b"", new=True)
        if problem is not None:
            return h, f"{said}. {problem}"
        return h, f"{said} and a new history was started."

    @classmethod
    def _unusable(cls, p: Path, f: Fault, *, new: bool) -> tuple[History, str | None]:
        """A file that cannot be used for ``f``: left as it is, its games copied into memory when
        they can be read."""
        shown = one_line(str(p))
        if f.kind == "locked":
            return cls._in_memory(f"History {shown} is locked by another program. {_LEFT}")
        if new:
            return cls._in_memory(
                f"History {shown} cannot be created: {f.words}; this session's games are kept in memory only."
            )
        what = "cannot be written" if f.unwritable else "cannot be used"
        message = f"History {shown} {what}: {f.words}. {_LEFT}"
        log.warning("%s", message)
        try:
            copy = _current_copy(_read_copy(p))
            copy.execute("PRAGMA foreign_keys = ON")
        except Exception as exc:  # it cannot be read either: an empty history
            log.info("the history %s cannot be copied into memory: %s", p, reason(exc))
            return cls(_memory(), None), message
        return cls(copy, None), message

    @classmethod
    def _in_memory(cls, message: str) -> tuple[History, str | None]:
        log.warning("%s", message)
        return cls(_memory(), None), message

    @classmethod
    def open_read_only(cls, path: Path) -> History:
        """The history at ``path`` for reading only (the ``stats`` command): nothing is created,
        written, migrated on disk or moved, and recording does nothing. An earlier version is
        migrated in a copy in memory; a newer one is read as it is. :class:`HistoryError` (one
        plain line naming the file) when it is missing, not ours, damaged, locked or unreadable."""
        p = Path(path)
        shown = one_line(str(p))
        try:
            st = os.lstat(p)
            if stat.S_ISLNK(st.st_mode):
                try:
                    st = os.stat(p)
                except FileNotFoundError:
                    raise HistoryError(
                        f"{shown}: is a link to {one_line(os.readlink(p))}, which does not exist"
                    ) from None
        except FileNotFoundError:
            raise HistoryError(f"{shown}: no such file") from None
        except (OSError, ValueError) as exc:
            raise HistoryError(
                f"{shown}: cannot be read ({reason(exc) if isinstance(exc, OSError) else exc})"
            ) from None
        if stat.S_ISDIR(st.st_mode):
            raise HistoryError(f"{shown}: is a directory, not a history file")
        if not stat.S_ISREG(st.st_mode):
            raise HistoryError(f"{shown}: is {_kind_of(st.st_mode)}; only regular files are read")
        if st.st_size == 0 and not os.path.lexists(p.with_name(p.name + "-wal")):
            return cls(_memory(), p, read_only=True)  # a history not yet written to
        try:
            head = _head(p)
        except OSError as exc:
            raise HistoryError(f"{shown}: cannot be read ({reason(exc, p.parent)})") from None
        if st.st_size and not head.startswith(SQLITE_MAGIC):
            raise HistoryError(f"{shown}: not a Kings Corners history (not an SQLite database)")
        con: sqlite3.Connection | None = None
        try:
            con = _snapshot(p) or _connect(_file_uri(p, "ro"), uri=True, timeout_ms=READ_TIMEOUT_MS)
            version = _check_ours(con)
            if version > 0:
                _integrity(con)
            con.execute("PRAGMA query_only = 0")
            con = _current_copy(con)
            con.execute("PRAGMA query_only = 1")
        except _Newer:
            assert con is not None
            con.execute("PRAGMA query_only = 1")
        except BaseException as exc:
            if con is not None:
                con.close()
            if isinstance(exc, _NotOurs):
                raise HistoryError(f"{shown}: not a Kings Corners history ({exc})") from None
            if isinstance(exc, _Damaged):
                raise HistoryError(f"{shown}: the history is damaged ({exc})") from None
            if isinstance(exc, sqlite3.Error | OSError | UnicodeDecodeError):
                f = fault(exc, p.parent)
                if f.kind == "locked":
                    raise HistoryError(f"{shown}: locked by another program") from None
                if f.kind == "damaged" and not _header_ours(head):
                    raise HistoryError(f"{shown}: not a Kings Corners history (a damaged SQLite file)") from None
                if f.kind == "damaged":
                    raise HistoryError(f"{shown}: the history is damaged ({one_line(str(exc), 120)})") from None
                raise HistoryError(f"{shown}: cannot be read ({f.words})") from None
            raise
        return cls(con, p, read_only=True)

    def close(self) -> None:
        with self._write_lock, self._read_lock:
            cons = {id(c): c for c in (self._reader, self._writer, self._file_reader) if c is not None}
            self._reader = self._writer = self._file_reader = None
            for con in cons.values():
                with suppress(sqlite3.Error):
                    con.close()

    def __enter__(self) -> History:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ recording
    def _reason(self, exc: BaseException) -> str:
        return reason(exc, None if self.path is None else self.path.parent)

    def _finish_migration(self, con: sqlite3.Connection, what: str) -> None:
        """Migrate the file (opened while another program held its lock), then read it."""
        try:
            _migrate(con)
        except sqlite3.Error as exc:
            raise HistoryError(f"could not {what}: {self._reason(exc)}") from None
        except (_NotOurs, _Damaged, _Newer):
            raise HistoryError(f"could not {what}: the history file was changed by another program") from None
        with self._read_lock:
            copy, self._reader, self._file_reader = self._reader, self._file_reader, None
            if copy is not None:
                copy.close()

    @contextmanager
    def _write(self, what: str) -> Iterator[sqlite3.Connection]:
        """One write transaction (after any pending migration); any failure is a
        :class:`HistoryError` saying ``what`` failed and why, and changes nothing."""
        with self._write_lock:
            con = self._writer
            if con is None:
                raise HistoryError(f"could not {what}: the history is {'read-only' if self.read_only else 'closed'}")
            if self._file_reader is not None:
                self._finish_migration(con, what)
            try:
                con.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise HistoryError(f"could not {what}: {self._reason(exc)}") from None
            try:
                yield con
                con.execute("COMMIT")
            except BaseException as exc:
                with suppress(sqlite3.Error):
                    con.execute("ROLLBACK")
                if isinstance(exc, HistoryError):
                    raise
                if isinstance(exc, (sqlite3.Error, *_UNREADABLE)):
                    raise HistoryError(f"could not {what}: {self._reason(exc)}") from None
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
        rules_text = _match_problem("record the match", seats, rules, seed, first_dealer)
        if self.read_only:
            return 0
        with self._write("record the match") as con:
            return _insert_match(con, None, seats, rules_text, seed, first_dealer, demo, _utc(started_at))

    def sync_match(self, sync: MatchSync) -> int:
        """Record what is new of a match being played, in one transaction: the match (found by its
        uid; else a match recorded before uids, unfinished, with the same seats, rules and seed
        and rounds 1 to j recorded, j at most the rounds given, is given the uid; else a new one),
        every round whose number is not recorded yet (one recorded is never replaced), the
        totals, and the end when ``winners`` is given. Runs any pending migration first. The
        match's id (0 when the history is read-only: nothing is recorded). :class:`HistoryError`
        (one plain line) on any failure, the database unchanged."""
        what = "record the match"
        if not isinstance(sync, MatchSync):
            raise HistoryError(f"could not {what}: it is not a match")
        if not isinstance(sync.uid, str) or _UID.fullmatch(sync.uid) is None:
            raise HistoryError(f"could not {what}: its uid is not 32 hex characters")
        rules_text = _match_problem(what, sync.seats, sync.rules, sync.seed, sync.first_dealer)
        n = len(sync.seats)
        started = _checked_time(what, sync.started_at, "its start")
        finished = None if sync.finished_at is None else _checked_time(what, sync.finished_at, "its end")
        rounds = tuple(sync.rounds)
        for k, r in enumerate(rounds, 1):
            if not isinstance(r, RoundRecord) or r.number != k:
                raise HistoryError(f"could not {what}: its rounds are not numbered 1 to {len(rounds)}")
        round_values = [_checked_round(f"record round {r.number}", r, n) for r in rounds]
        totals_text = _checked_ints(what, sync.totals, "its totals", -_BIG, _BIG)
        winners_text = None if sync.winners is None else _checked_ints(what, sync.winners, "its winners", 0, n - 1)
        if self.read_only:
            return 0
        with self._write(what) as con:
            match_id = _find_sync(con, sync, n)
            if match_id is None:
                match_id = _insert_match(
                    con, sync.uid, sync.seats, rules_text, sync.seed, sync.first_dealer, sync.demo, started
                )
            have = {row[0] for row in con.execute("SELECT number FROM rounds WHERE match_id = ?", (match_id,))}
            con.executemany(
                f"INSERT INTO rounds ({_ROUND_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (match_id, *values[1:])
                    for r, values in zip(rounds, round_values, strict=True)
                    if r.number not in have
                ],
            )
            con.execute("UPDATE matches SET totals = ? WHERE id = ?", (totals_text, match_id))
            if winners_text is not None:
                con.execute(
                    "UPDATE matches SET finished_at = COALESCE(finished_at, ?), winners = ? WHERE id = ?",
                    (_time_text(finished if finished is not None else _utc(None)), winners_text, match_id),
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
            except _UNREADABLE:
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
        what = f"record round {quote_id(getattr(record, 'number', None))}"
        with self._write(what) as con:
            row = con.execute("SELECT (SELECT count(*) FROM seats WHERE match_id = ?)", (match_id,)).fetchone()
            if con.execute("SELECT 1 FROM matches WHERE id = ?", (match_id,)).fetchone() is None:
                raise HistoryError(f"could not {what}: there is no match {match_id}")
            values = _checked_round(what, record, int(row[0]))
            con.execute(
                f"INSERT OR REPLACE INTO rounds ({_ROUND_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (match_id, *values[1:]),
            )
            con.execute("UPDATE matches SET totals = ? WHERE id = ?", (values[7], match_id))
            _update_player(con, match_id)

    def finish_match(
        self, match_id: int, *, winners: Sequence[int], totals: Sequence[int], finished_at: datetime | None = None
    ) -> None:
        """Record the end of match ``match_id``: its winners (match seats) and final totals."""
        if self.read_only:
            return
        what = "record the end of the match"
        when = _checked_time(what, _utc(finished_at) if finished_at is not None else _utc(None), "its end")
        totals_text = _checked_ints(what, totals, "its totals", -_BIG, _BIG)
        winners_text = _checked_ints(what, winners, "its winners", 0, 7)
        with self._write(what) as con:
            cur = con.execute(
                "UPDATE matches SET finished_at = ?, winners = ?, totals = ? WHERE id = ?",
                (_time_text(when), winners_text, totals_text, match_id),
            )
            if cur.rowcount != 1:
                raise HistoryError(f"could not {what}: there is no match {match_id}")
            _update_player(con, match_id)

    def add_matches(self, records: Iterable[MatchRecord]) -> list[int]:
        """Record whole matches (with their rounds) in one transaction, each under a new id (their
        ``id`` is ignored): e.g. matches read from another history or an export. Their new ids."""
        if self.read_only:
            return []
        ids: list[int] = []
        what = "add the matches"
        with self._write(what) as con:
            for m in records:
                rules_text = _match_problem(what, m.seats, m.rules, m.seed, m.first_dealer)
                started = _checked_time(what, m.started_at, "its start")
                n = len(m.seats)
                match_id = _insert_match(con, None, m.seats, rules_text, m.seed, m.first_dealer, m.demo, started)
                con.execute(
                    "UPDATE matches SET finished_at = ?, winners = ?, totals = ? WHERE id = ?",
                    (
                        None if m.finished_at is None else _time_text(_checked_time(what, m.finished_at, "its end")),
                        _checked_ints(what, m.winners, "its winners", 0, n - 1),
                        _checked_ints(what, m.totals, "its totals", -_BIG, _BIG),
                        match_id,
                    ),
                )
                con.executemany(
                    f"INSERT INTO rounds ({_ROUND_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [(match_id, *_checked_round(f"add round {r.number}", r, n)[1:]) for r in m.rounds],
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
        with self._read_lock:
            con = self._reader
            if con is None:
                self._problem("the history is closed")
                return []
            try:
                return con.execute(sql, params).fetchall()
            except (sqlite3.Error, UnicodeDecodeError, OverflowError, MemoryError) as exc:
                self._problem(f"could not read the history: {self._reason(exc)}")
                return []

    def _records(self, rows: Sequence[Any], *, rounds: bool, moves: bool) -> list[MatchRecord]:
        ids = [row[0] for row in rows]
        round_rows = self._rounds_of(ids, moves) if rounds else {}
        out: list[MatchRecord] = []
        for row in rows:
            match_id = row[0]
            try:
                record = _match_from_row(row)
            except _UNREADABLE as exc:
                self._problem(f"match {quote_id(match_id)} was skipped: {_said(exc)}")
                continue
            if rounds:
                record = _with_rounds(record, round_rows.get(match_id, []), moves, self._problem)
            out.append(record)
        return out

    def _rounds_of(self, ids: Sequence[int], moves: bool) -> dict[int, list[tuple[Any, ...]]]:
        out: dict[int, list[tuple[Any, ...]]] = {}
        columns = _ROUND_SELECT if moves else _ROUND_SELECT_NO_MOVES
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
            kinds = tuple(opponents.split(_US)) if opponents else ()
            if not all(k and len(k) <= KIND_MAX and k.isprintable() for k in kinds):
                continue  # counted as not read below
            combos[(kinds, size)] = [int(x) for x in sums]
            seen += sums[0]
        points: list[MatchPoint] = []
        for match_id, finished, total, won, margin in self._query(_SUMMARY_POINTS_SQL):
            try:
                points.append(MatchPoint(match_id, _time(finished, "its end"), total, bool(won), margin))
            except _Bad as exc:
                self._problem(f"match {quote_id(match_id)} was left out of the plots: {exc}")
        counted = self._query(_SUMMARY_COUNT_SQL)
        if counted and _is_int(counted[0][0]) and counted[0][0] > seen:
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


def _said(exc: BaseException) -> str:
    """What is wrong with a value, from what reading it raised."""
    return str(exc) if isinstance(exc, _Bad) else f"a value cannot be read ({type(exc).__name__})"


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
        except _UNREADABLE as exc:
            problem(f"round {quote_id(row[1])} of match {record.id} was skipped: {_said(exc)}")
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
    except _UNREADABLE:
        con.execute("UPDATE matches SET player_seat = NULL WHERE id = ?", (match_id,))
        return
    seat = record.human_seat()
    if seat is None:
        con.execute("UPDATE matches SET player_seat = NULL WHERE id = ?", (match_id,))
        return
    rows = con.execute(f"SELECT {_ROUND_SELECT_NO_MOVES} FROM rounds WHERE match_id = ?", (match_id,)).fetchall()
    rounds: list[RoundRecord] = []
    for r in rows:
        try:
            rounds.append(_round_from_row(r, len(record.seats), with_moves=False))
        except _UNREADABLE:
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


#: The player's matches whose kept results have their types and are in their ranges (what
#: :func:`_update_player` writes; sums of up to 10**9 matches of them cannot overflow), for
#: :meth:`History.summary`.
_PLAYER_MATCHES = f"""
FROM matches
WHERE demo = 0 AND typeof(player_seat) = 'integer' AND player_seat BETWEEN 0 AND 7
    AND typeof(started_at) = 'text' AND length(started_at) <= 64
    AND (finished_at IS NULL OR (typeof(finished_at) = 'text' AND length(finished_at) <= 64))
    AND typeof(player_size) = 'integer' AND player_size BETWEEN 1 AND 8
    AND typeof(player_opponents) = 'text' AND length(player_opponents) <= {8 * (KIND_MAX + 1)}
    AND typeof(player_total) = 'integer' AND player_total BETWEEN -{_BIG} AND {_BIG}
    AND typeof(player_won) = 'integer' AND player_won IN (0, 1)
    AND typeof(player_margin) = 'integer' AND player_margin BETWEEN -{2 * _BIG} AND {2 * _BIG}
    AND typeof(player_rounds) = 'integer' AND player_rounds BETWEEN 0 AND {_BIG}
    AND typeof(player_rounds_won) = 'integer' AND player_rounds_won BETWEEN 0 AND player_rounds
    AND typeof(player_penalty) = 'integer' AND player_penalty BETWEEN 0 AND {_BIG}
    AND typeof(player_hints) = 'integer' AND player_hints BETWEEN 0 AND {_BIG}
    AND typeof(player_undos) = 'integer' AND player_undos BETWEEN 0 AND {_BIG}
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
    "READ_TIMEOUT_MS",
    "SCHEMA_V1",
    "SCHEMA_VERSION",
    "Fault",
    "GroupStats",
    "History",
    "HistoryError",
    "MatchPoint",
    "MatchRecord",
    "MatchSync",
    "RoundRecord",
    "SeatInfo",
    "Summary",
    "default_history_path",
    "fault",
    "match_json",
    "new_uid",
    "reason",
    "round_row",
    "summarize",
]
