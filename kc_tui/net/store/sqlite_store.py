"""The tables' store in one SQLite file: the embedded default, for a cluster on one machine.

The schema and the fencing are those of :mod:`.tablestore`: a write is
``UPDATE kc_tables SET seq = seq + 1 ... WHERE id = ? AND epoch = ? AND phase = 'playing'
RETURNING seq`` and the history's row, in one transaction. Every transaction that writes begins
with ``BEGIN IMMEDIATE``: it takes the file's one write lock at once, so two processes claiming
at the same moment take turns, and the second sees the first's claim.

The file is in WAL mode (readers never wait for the writer), made with mode 0600 (its -wal and
-shm files take its mode), and may be opened by several processes at once. A writer waits at
most :data:`BUSY_MS` for another's lock, then the call fails with :class:`StoreDown` (nothing
written; the same call may work later). A file that is not SQLite, an SQLite file of something
else, a damaged one or one of a newer schema is :class:`StoreError` (one line) and is never
written over.

The statements both kinds run the same way are :class:`~.sql.SqlStatements`'.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from kc_tui.i18n import _
from kc_tui.net.store.sql import (
    SCHEMA_STEP_2,
    SqlStatements,
    foreign,
    not_made,
    record_of,
    record_text,
    schema_version,
)
from kc_tui.net.store.tablestore import (
    PLAYING,
    SCHEMA_VERSION,
    Claimed,
    StoreDown,
    StoreError,
)
from kc_tui.util.files import SQLITE_MAGIC, make_folder, new_private_file
from kc_tui.util.printable import one_line

log = logging.getLogger(__name__)

#: How long a writer waits for another connection's lock before :class:`StoreDown` (milliseconds).
BUSY_MS = 1000

#: The statements that bring the schema to each version from the one before (version 0: nothing).
STEPS: dict[int, tuple[str, ...]] = {
    1: (
        "CREATE TABLE kc_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        "CREATE TABLE kc_tables (id TEXT PRIMARY KEY, owner TEXT, epoch INTEGER NOT NULL,"
        " seq INTEGER NOT NULL, phase TEXT NOT NULL, record TEXT NOT NULL, snapshot BLOB NOT NULL,"
        " snapshot_seq INTEGER NOT NULL, updated REAL NOT NULL)",
        "CREATE INDEX kc_tables_playing ON kc_tables (updated, id) WHERE phase = 'playing'",
        "CREATE TABLE kc_moves (table_id TEXT NOT NULL, seq INTEGER NOT NULL, epoch INTEGER NOT NULL,"
        " save BLOB NOT NULL, PRIMARY KEY (table_id, seq)) WITHOUT ROWID",
        "CREATE TABLE kc_seat_tokens (table_id TEXT NOT NULL, seat INTEGER NOT NULL, hash BLOB NOT NULL,"
        " PRIMARY KEY (table_id, seat, hash)) WITHOUT ROWID",
    ),
    2: SCHEMA_STEP_2,
}


# ---------------------------------------------------------------------- the SQLite store
def open_sqlite(file: Path, connect: Callable[[str], sqlite3.Connection], not_sqlite: str) -> sqlite3.Connection:
    """``file`` opened read-write by ``connect`` (given its ``file:`` URI), made empty and
    private first when it is missing or empty (its folder too). :class:`StoreError` (one line)
    when it is not an SQLite file (``not_sqlite``, its ``{path}`` filled in) or cannot be
    opened; nothing is written to a file that is not SQLite."""
    shown = one_line(str(file))
    try:
        if file.exists() and file.stat().st_size > 0:
            with open(file, "rb") as f:
                head = f.read(len(SQLITE_MAGIC))
            if head != SQLITE_MAGIC:
                raise StoreError(not_sqlite.format(path=shown))
        else:
            make_folder(file.parent)
            new_private_file(file)
        return connect(f"file:{file.as_posix()}?mode=rw")
    except OSError as exc:
        raise StoreError(
            # Translators: {path} is a store's file, {reason} the system's reason.
            _("{path} cannot be opened: {reason}").format(path=shown, reason=one_line(exc.strerror or str(exc)))
        ) from None
    except sqlite3.Error as exc:
        raise StoreError(_("{path} cannot be opened: {reason}").format(path=shown, reason=one_line(str(exc)))) from None


def _busy(exc: sqlite3.Error) -> bool:
    name = str(getattr(exc, "sqlite_errorname", ""))
    return name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED"))


class SqliteTableStore(SqlStatements):
    """The tables' store in an SQLite file. See the module docs. :meth:`open` it.

    One connection, used by one thread at a time (a lock); several stores (in one process or
    several) may open the same file."""

    kind = "sqlite"

    def __init__(self, db: sqlite3.Connection, path: Path) -> None:
        self.db = db
        self.path = path
        self.shown = one_line(str(path))
        self.where = self.shown
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ opening
    @classmethod
    def open(cls, path: str, *, busy_ms: int = BUSY_MS) -> SqliteTableStore:
        """The store in the file at ``path`` (made, empty and private, when missing; its folder
        too). :class:`StoreError` (one line) when it cannot be used: not an SQLite file, an SQLite
        file of something else, damaged, of a newer schema, unreadable. Nothing is written to
        such a file."""
        if not path:
            raise StoreError(_("the table store's file is not named"))
        file = Path(path).expanduser()

        def connect(uri: str) -> sqlite3.Connection:
            return sqlite3.connect(uri, uri=True, timeout=busy_ms / 1000, isolation_level=None, check_same_thread=False)

        # Translators: {path} is the table store's file.
        db = open_sqlite(file, connect, _("{path} is not a table store (not an SQLite file): it is left as it is"))
        store = cls(db, file)
        try:
            store._check()
        except BaseException:
            db.close()
            raise
        return store

    def _check(self) -> None:
        """Refuse a file that is not this store's (before anything is written to it), then put
        it in WAL mode."""
        db = self.db
        try:
            names = {str(row[0]) for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if names and "kc_meta" not in names:
                raise foreign(self.shown)
            if "kc_meta" in names:
                found = db.execute("SELECT value FROM kc_meta WHERE key = 'schema'").fetchone()
                schema_version(None if found is None else found[0], self.shown)
            check = str(db.execute("PRAGMA quick_check").fetchone()[0])
            if check != "ok":
                raise StoreError(
                    # Translators: {path} is the table store's file, {reason} SQLite's words (in English).
                    _("{path} is damaged (SQLite reports: {reason}); it is left as it is").format(
                        path=self.shown, reason=one_line(check, 120)
                    )
                )
            mode = str(db.execute("PRAGMA journal_mode = WAL").fetchone()[0]).lower()
            if mode != "wal":
                log.warning("the table store %s is not in WAL mode (%s)", self.path, mode)
            db.execute("PRAGMA synchronous = NORMAL")
        except sqlite3.Error as exc:
            if _busy(exc):
                raise StoreDown(
                    # Translators: {path} is the table store's file.
                    _("{path} is locked by another program: try again").format(path=self.shown)
                ) from None
            raise StoreError(
                # Translators: {path} is the table store's file, {reason} SQLite's words (in English).
                _("{path} cannot be used: {reason}; it is left as it is").format(
                    path=self.shown, reason=one_line(str(exc))
                )
            ) from None

    # ------------------------------------------------------------------ transactions
    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        """SQLite's errors as the store's: a lock held too long is :class:`StoreDown`."""
        try:
            yield
        except sqlite3.Error as exc:
            if _busy(exc):
                raise StoreDown(
                    # Translators: {path} is the table store's file.
                    _("{path} stayed locked by another program: nothing was written").format(path=self.shown)
                ) from None
            if "no such table" in str(exc):
                raise not_made(self.shown) from None
            raise StoreError(
                _("{path} cannot be used: {reason}").format(path=self.shown, reason=one_line(str(exc)))
            ) from None

    @contextlib.contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        with self._lock, self._errors():
            yield self.db

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One transaction holding the file's write lock from its start: committed at the end,
        rolled back when the block raises."""
        with self._lock, self._errors():
            self.db.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
                self.db.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    self.db.execute("ROLLBACK")
                raise

    # ------------------------------------------------------------------ the interface
    def init(self) -> None:
        with self._transaction() as db:
            names = {str(row[0]) for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            version = 0
            if "kc_meta" in names:
                found = db.execute("SELECT value FROM kc_meta WHERE key = 'schema'").fetchone()
                version = schema_version(None if found is None else found[0], self.shown)
            elif names:
                raise foreign(self.shown)
            if version == SCHEMA_VERSION:
                self.version = version
                return
            for step in range(version + 1, SCHEMA_VERSION + 1):
                for statement in STEPS[step]:
                    db.execute(statement)
            db.execute(
                "INSERT INTO kc_meta (key, value) VALUES ('schema', ?)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (str(SCHEMA_VERSION),),
            )
        self.version = SCHEMA_VERSION
        log.info("the table store %s is at schema %d", self.path, SCHEMA_VERSION)

    def create(self, table: str, record: Mapping[str, Any], save: bytes, hashes: Mapping[int, Sequence[bytes]]) -> None:
        self._ready()
        with self._transaction() as db:
            if db.execute("SELECT 1 FROM kc_tables WHERE id = ?", (table,)).fetchone() is not None:
                # Translators: {table} is a table's id.
                raise StoreError(_("the table {table} exists already").format(table=one_line(table, 80)))
            db.execute(
                "INSERT INTO kc_tables (id, owner, epoch, seq, phase, record, snapshot, snapshot_seq, updated)"
                " VALUES (?, NULL, 0, 0, ?, ?, ?, 0, ?)",
                (table, PLAYING, record_text(record), bytes(save), time.time()),
            )
            self._first_row(db, table, save)
            db.executemany(
                "INSERT OR IGNORE INTO kc_seat_tokens (table_id, seat, hash) VALUES (?, ?, ?)",
                [(table, int(seat), bytes(kept)) for seat, kept_all in hashes.items() for kept in kept_all],
            )

    def claim(self, worker: str, live: Collection[str], holding: Collection[str], limit: int) -> list[Claimed]:
        if limit <= 0:
            return []
        self._ready()
        out: list[Claimed] = []
        with self._transaction() as db:
            picked = db.execute(
                "SELECT t.id, t.seq, t.record, t.snapshot, t.snapshot_seq FROM kc_tables t"
                " WHERE t.phase = ?"
                " AND (t.owner IS NULL OR t.owner NOT IN (SELECT value FROM json_each(?)))"
                " AND t.id NOT IN (SELECT value FROM json_each(?))"
                " ORDER BY t.updated, t.id LIMIT ?",
                (PLAYING, json.dumps(sorted(live)), json.dumps(sorted(holding)), limit),
            ).fetchall()
            for table, seq, text, snapshot, snapshot_seq in picked:
                entries = self._entries(db, table, int(seq), int(snapshot_seq))
                if entries is None:
                    continue
                (epoch,) = db.execute(
                    "UPDATE kc_tables SET owner = ?, epoch = epoch + 1 WHERE id = ? RETURNING epoch", (worker, table)
                ).fetchone()
                out.append(
                    Claimed(
                        str(table),
                        int(epoch),
                        int(seq),
                        record_of(table, text),
                        bytes(snapshot),
                        self._hashes(db, table),
                        entries,
                    )
                )
        return out

    def close(self) -> None:
        with self._lock, contextlib.suppress(sqlite3.Error):
            self.db.close()


__all__ = ["BUSY_MS", "STEPS", "SqliteTableStore"]
