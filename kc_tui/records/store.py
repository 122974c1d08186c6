"""Every game remembered: finished rounds and matches kept in SQLite. Plain Python.

The file is ``data_dir()/history.sqlite3``, or the path in ``$KINGS_CORNERS_HISTORY``. A match is
recorded as it is played: :meth:`History.sync_match` with everything known of it (its uid, seats,
rules, seed, every finished round, the totals, the winners once over) records what is new, once,
however often it is called; :meth:`History.start_match`, :meth:`History.record_round` and
:meth:`History.finish_match` record one step each. A record holds enough to replay every
round exactly: the seats, the rules, the seed, the first dealer and every round's moves (the
engine's ``Move`` ints).

The schema is in :mod:`kc_tui.records.schema`, the records in :mod:`kc_tui.records.rows`.

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

import logging
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from datetime import datetime
from pathlib import Path
from typing import Any

from kc_tui.config import name_problem
from kc_tui.engine import valid_seed
from kc_tui.engine.strict import is_int as _is_int
from kc_tui.i18n import N_, _
from kc_tui.records.export import match_json, round_row
from kc_tui.records.files import reason
from kc_tui.records.opening import Opened, open_history, open_read_only
from kc_tui.records.rows import (
    _BIG,
    _MATCH_SELECT,
    _ROUND_COLUMNS,
    _ROUND_SELECT,
    _ROUND_SELECT_NO_MOVES,
    _UID,
    _UNREADABLE,
    _US,
    KIND_MAX,
    HistoryError,
    MatchRecord,
    MatchSync,
    RoundRecord,
    SeatInfo,
    _Bad,
    _checked_ints,
    _checked_round,
    _checked_time,
    _match_from_row,
    _match_problem,
    _said,
    _time,
    _time_text,
    _utc,
    _with_rounds,
    quote_id,
)
from kc_tui.records.schema import _Damaged, _migrate, _Newer, _NotOurs
from kc_tui.records.summaries import (
    _PEOPLE_SQL,
    _SUMMARY_COUNT_SQL,
    _SUMMARY_GROUPS_SQL,
    _SUMMARY_POINTS_SQL,
    MatchPoint,
    Summary,
    _summary,
    _Sums,
    _update_results,
)
from kc_tui.records.writes import find_sync, insert_match
from kc_tui.util.printable import PROBLEM_MAX, one_line

log = logging.getLogger(__name__)
#: The most problems kept in :attr:`History.problems` (a damaged file could have thousands).
PROBLEMS_KEPT = 50
#: What a write says when it fails, by its words (shown through ``_()``; a round's: see
#: :meth:`History._could_not`).
_COULD_NOT = {
    # Translators: {reason} is why the history could not be written (the disk is full).
    "record the match": N_("could not record the match: {reason}"),
    "record the end of the match": N_("could not record the end of the match: {reason}"),
    "add the matches": N_("could not add the matches: {reason}"),
}


def _chunks(ids: Sequence[int], size: int = 500) -> Iterator[Sequence[int]]:
    for i in range(0, len(ids), size):
        yield ids[i : i + size]


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
    def _of(cls, opened: Opened) -> History:
        return cls(
            opened.con,
            opened.path,
            read_only=opened.read_only,
            writer=opened.writer,
            file_reader=opened.file_reader,
        )

    @classmethod
    def open(cls, path: Path | None = None) -> tuple[History, str | None]:
        """Open (create or migrate) the history at ``path`` (default: :func:`default_history_path`);
        the second value is a one-line message for the player when the file could not be used as
        it is (None otherwise). See "What goes wrong" in the module's doc. Never raises, and never
        waits on another program's lock: at worst the history lives in memory."""
        opened, message = open_history(path)
        return cls._of(opened), message

    @classmethod
    def open_read_only(cls, path: Path) -> History:
        """The history at ``path`` for reading only (the ``stats`` command): nothing is created,
        written, migrated on disk or moved, and recording does nothing. An earlier version is
        migrated in a copy in memory; a newer one is read as it is. :class:`HistoryError` (one
        plain line naming the file) when it is missing, not ours, damaged, locked or unreadable."""
        return cls._of(open_read_only(path))

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

    @staticmethod
    def _could_not(what: str, why: str) -> HistoryError:
        """The error saying that ``what`` (one of the writes' own words) failed for ``why``, as one
        sentence in the language in use."""
        number = what.removeprefix("record round ")
        if number != what:
            # Translators: {number} is the round's number, {reason} why it could not be recorded.
            return HistoryError(_("could not record round {number}: {reason}").format(number=number, reason=why))
        said = _COULD_NOT.get(what)
        return HistoryError(_(said).format(reason=why) if said is not None else f"could not {what}: {why}")

    def _finish_migration(self, con: sqlite3.Connection, what: str) -> None:
        """Migrate the file (opened while another program held its lock), then read it."""
        try:
            _migrate(con)
        except sqlite3.Error as exc:
            raise self._could_not(what, self._reason(exc)) from None
        except (_NotOurs, _Damaged, _Newer):
            raise self._could_not(what, _("the history file was changed by another program")) from None
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
                why = _("the history is read-only") if self.read_only else _("the history is closed")
                raise self._could_not(what, why)
            if self._file_reader is not None:
                self._finish_migration(con, what)
            try:
                con.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise self._could_not(what, self._reason(exc)) from None
            try:
                yield con
                con.execute("COMMIT")
            except BaseException as exc:
                with suppress(sqlite3.Error):
                    con.execute("ROLLBACK")
                if isinstance(exc, HistoryError):
                    raise
                if isinstance(exc, (sqlite3.Error, *_UNREADABLE)):
                    raise self._could_not(what, self._reason(exc)) from None
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
            return insert_match(con, None, seats, rules_text, seed, first_dealer, demo, _utc(started_at))

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
            match_id = find_sync(con, sync, n)
            if match_id is None:
                match_id = insert_match(
                    con, sync.uid, sync.seats, rules_text, sync.seed, sync.first_dealer, sync.demo, started
                )
            have = {row[0] for row in con.execute("SELECT number FROM rounds WHERE match_id = ?", (match_id,))}
            con.executemany(
                f"INSERT INTO rounds ({_ROUND_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
            _update_results(con, match_id)
            return match_id

    def open_match(
        self, *, seats: Sequence[SeatInfo], rules: dict[str, Any], seed: int, rounds_played: int
    ) -> int | None:
        """The id of the newest unfinished match with these seats, rules and seed and rounds 1 to
        ``rounds_played`` recorded (a match resumed from its save goes on under its id); None when
        there is none (or the history is read-only)."""
        if self.read_only or not valid_seed(seed):
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
                f"INSERT OR REPLACE INTO rounds ({_ROUND_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (match_id, *values[1:]),
            )
            con.execute("UPDATE matches SET totals = ? WHERE id = ?", (values[7], match_id))
            _update_results(con, match_id)

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
            _update_results(con, match_id)

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
                match_id = insert_match(con, None, m.seats, rules_text, m.seed, m.first_dealer, m.demo, started)
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
                    f"INSERT INTO rounds ({_ROUND_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [(match_id, *_checked_round(f"add round {r.number}", r, n)[1:]) for r in m.rounds],
                )
                _update_results(con, match_id)
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
        self,
        *,
        demos: bool = False,
        limit: int | None = None,
        offset: int = 0,
        rounds: bool = False,
        person: str | None = None,
    ) -> list[MatchRecord]:
        """The matches, newest first: the players' (``demos`` False; only ``person``'s when given)
        or the demos (``demos`` True). Their ``rounds`` are empty unless ``rounds`` is True (then
        without their moves: what :func:`summarize` needs; :meth:`match` gives a match with its
        moves)."""
        where, params = self._where(demos, person)
        rows = self._query(
            f"{_MATCH_SELECT} WHERE {where} ORDER BY m.started_at DESC, m.id DESC LIMIT ? OFFSET ?",
            (*params, -1 if limit is None else max(0, limit), max(0, offset)),
        )
        return self._records(rows, rounds=rounds, moves=False)

    @staticmethod
    def _where(demos: bool, person: str | None) -> tuple[str, tuple[Any, ...]]:
        """The condition on ``matches m`` for the demos, the players' matches or ``person``'s."""
        if person is None or demos:
            return "m.demo = ?", (int(demos),)
        return "m.demo = 0 AND m.id IN (SELECT match_id FROM player_results WHERE person = ?)", (person,)

    def match(self, match_id: int) -> MatchRecord | None:
        """Match ``match_id`` with its rounds and their moves; None when there is none (or it is unreadable)."""
        rows = self._query(f"{_MATCH_SELECT} WHERE m.id = ?", (match_id,))
        records = self._records(rows, rounds=True, moves=True)
        return records[0] if records else None

    def count_matches(self, *, demos: bool = False, person: str | None = None) -> int:
        """How many matches :meth:`matches` lists with no limit."""
        where, params = self._where(demos, person)
        rows = self._query(f"SELECT COUNT(*) FROM matches m WHERE {where}", params)
        return int(rows[0][0]) if rows else 0

    def unfinished_id(self, uid: str, person: str | None = None) -> int | None:
        """The id of the match ``uid`` when it is recorded and not finished (and is one of
        ``person``'s, when given), else None."""
        where, params = self._where(False, person)
        rows = self._query(
            f"SELECT m.id FROM matches m WHERE {where} AND m.uid = ? AND m.finished_at IS NULL", (*params, uid)
        )
        return int(rows[0][0]) if rows and _is_int(rows[0][0]) else None

    def people(self) -> list[str]:
        """The names of the humans who played (demos left out), most matches first, then by name."""
        out: list[str] = []
        for name, _n in self._query(_PEOPLE_SQL):
            problem = name_problem(name, "a player's name") if isinstance(name, str) else "a name is not text"
            if problem is None:
                out.append(name)
            else:
                self._problem(f"a player was left out of the statistics: {problem}")
        return out

    def summary(self, person: str | None = None) -> Summary:
        """``person``'s statistics (None: the person who played most, :meth:`people`):
        :func:`summarize` of every match (demos left out), from the results kept with each match
        (no round is read: quick with thousands of matches)."""
        if person is None:
            people = self.people()
            if not people:
                return Summary()
            person = people[0]
        combos: dict[tuple[tuple[str, ...], int], _Sums] = {}
        seen = 0
        for opponents, size, *sums in self._query(_SUMMARY_GROUPS_SQL, (person,)):
            kinds = tuple(opponents.split(_US)) if opponents else ()
            if not all(k and len(k) <= KIND_MAX and k.isprintable() for k in kinds):
                continue  # counted as not read below
            combos[(kinds, size)] = [int(x) for x in sums]
            seen += sums[0]
        points: list[MatchPoint] = []
        for match_id, finished, total, won, margin in self._query(_SUMMARY_POINTS_SQL, (person,)):
            try:
                points.append(MatchPoint(match_id, _time(finished, "its end"), total, bool(won), margin))
            except _Bad as exc:
                self._problem(f"match {quote_id(match_id)} was left out of the plots: {exc}")
        counted = self._query(_SUMMARY_COUNT_SQL, (person,))
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
