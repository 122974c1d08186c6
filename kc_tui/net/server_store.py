"""The store of ``kings-corners server``: one SQLite file, ``server.sqlite3`` in the data folder.

Its tables are the tables' store of :mod:`kc_tui.net.store.sqlite_store` (the schema of its
``STEPS``: ``kc_tables`` with each table's owner, epoch and seq, ``kc_moves``, ``kc_seat_tokens``,
``kc_meta``), and on the same file and connection :class:`kc_tui.net.accounts.Accounts`'s own
tables: the server's id, the people and their ratings. Every table the lobby knows is a row of
``kc_tables``: its record as :meth:`kc_tui.net.lobby.Lobby.record` wrote it (the invite's secret
only as its SHA-256) and its phase; the SHA-256 hashes of the seats' tokens (never a token
itself); for a table being played, its positions.

The server owns the tables it plays: it claims every playing table as it starts (each at its
epoch + 1) and starts a new one under an epoch of its own, and every position, record and token
hash of a playing table is written under that epoch, checked by the store in the statement that
writes it. A process that served the file before and still holds it is fenced: its next write
is refused (:class:`~kc_tui.net.store.tablestore.Fenced`). A table not playing yet (open,
waiting for its seats) is owned by no one and never claimed.

A file of store version 1 (the server's tables in ``hub_tables`` and ``hub_seat_tokens``) is
brought to version 2 as it is opened, in one transaction: every table with its phase, record,
save (its first position) and token hashes, every person and rating kept; if anything fails, the
file stays exactly as it was.

The file is in WAL mode. A table's position is committed before the state it holds is sent, so a
server killed at any moment (``kill -9``, a crash) is served again from the last position anyone
was shown. By default (``synchronous = NORMAL``) a commit is in the system's hands once made, and
the WAL is flushed to the disk at its checkpoints: a power cut or a crash of the whole machine
may lose the last moves. ``durable`` (``server --durable``: ``synchronous = FULL``) flushes the
WAL at every commit, so not even a power cut loses a move anyone was shown; that flush blocks the
server's loop for the disk's time at every move (about 0.5 ms a move on this machine, against
0.04 ms without), which cuts the tables one process serves. A file that is not this store's,
damaged, newer or locked is :class:`StoreError` (one line) and is never written over.

Plain Python (no asyncio): every call is made on the server's loop thread.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import logging
import os
import secrets
import sqlite3
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from kc_tui.i18n import _
from kc_tui.net.store.sql import schema_version
from kc_tui.net.store.sqlite_store import STEPS, SqliteTableStore, open_sqlite
from kc_tui.net.store.tablestore import PLAYING, SCHEMA_VERSION, Claimed, Fenced, Row, StoreError
from kc_tui.records.files import fault
from kc_tui.util.files import SQLITE_MAGIC
from kc_tui.util.printable import one_line

log = logging.getLogger(__name__)

STORE_NAME = "server.sqlite3"
#: The store's format; a file of a newer one is refused (never written over).
STORE_VERSION = 2
#: How long a statement waits for another connection's lock (milliseconds).
BUSY_MS = 2000

#: Version 1's tables, and the statements that move their rows into the tables' store's (made
#: first) before they go: each table unowned at epoch 0, its save (if any) its first position.
V1_TABLES = ("hub_tables", "hub_seat_tokens")
FROM_V1 = (
    "INSERT INTO kc_tables (id, owner, epoch, seq, phase, record, snapshot, snapshot_seq, updated)"
    " SELECT id, NULL, 0, 0, phase, record, COALESCE(save, X''), 0, updated FROM hub_tables",
    "INSERT INTO kc_seat_tokens (table_id, seat, hash) SELECT table_id, seat, hash FROM hub_seat_tokens",
    "DROP TABLE hub_seat_tokens",
    "DROP TABLE hub_tables",
)


def token_hash(token: str) -> bytes:
    """The SHA-256 of a seat's token or an invite's secret, as the store keeps it."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()


def matches(token: str, hashes: Any) -> bool:
    """Whether ``token``'s hash is one of ``hashes`` (every one compared, in constant time)."""
    given = token_hash(token)
    found = False
    for kept in hashes:
        if hmac.compare_digest(given, bytes(kept)):
            found = True
    return found


def new_owner() -> str:
    """The owner's name of one process of the server in the store (this process, at random)."""
    return f"server-{os.getpid()}-{secrets.token_hex(3)}"


def _connect(uri: str) -> sqlite3.Connection:
    return sqlite3.connect(uri, uri=True, timeout=BUSY_MS / 1000, isolation_level=None, check_same_thread=True)


def _reason(exc: sqlite3.Error) -> str:
    """SQLite's error in plain words (a lock held by another program said so)."""
    found = fault(exc)
    return _("the server's store is locked by another program") if found.kind == "locked" else one_line(str(exc))


class ServerStore:
    """The server's SQLite file, open: the tables' store over it (:attr:`tables_store`), the
    epochs of the tables this process owns, and the connection the accounts share. See the
    module docs. :meth:`open` it."""

    def __init__(self, db: sqlite3.Connection, path: Path | None, durable: bool = False) -> None:
        self.db = db
        self.path = path
        self.durable = durable
        self.tables_store = SqliteTableStore(db, path if path is not None else Path(":memory:"))
        #: This process's name as the owner of its tables.
        self.owner = new_owner()
        #: The tables this process owns, and the epoch it writes each under.
        self.epochs: dict[str, int] = {}

    # ------------------------------------------------------------------ opening
    @classmethod
    def open(cls, folder: Path, *, durable: bool = False) -> ServerStore:
        """The store in ``folder`` (made when missing, brought to :data:`STORE_VERSION` when
        older); :class:`StoreError` when the file there cannot be used (not an SQLite file, not
        this store's, newer, damaged, locked, unreadable). ``durable``: every commit flushed to
        the disk (see the module's docs)."""
        path = folder / STORE_NAME
        # Translators: {path} is the server's store file.
        not_sqlite = _("{path} is not the server's store (not an SQLite file): it is left as it is")
        db = open_sqlite(path, _connect, not_sqlite)
        try:
            store = cls(db, path, durable)
            store._prepare()
        except StoreError:
            db.close()
            raise
        except sqlite3.Error as exc:
            db.close()
            raise StoreError(
                # Translators: {path} is the server's store file, {reason} SQLite's message (in English).
                _("{path} cannot be used: {reason}; it is left as it is").format(
                    path=one_line(str(path)), reason=_reason(exc)
                )
            ) from None
        return store

    @classmethod
    def in_memory(cls) -> ServerStore:
        """A store that lives in memory (tests)."""
        store = cls(sqlite3.connect(":memory:", isolation_level=None), None)
        store._prepare()
        return store

    def _prepare(self) -> None:
        db = self.db
        shown = one_line(str(self.path))
        version = int(db.execute("PRAGMA user_version").fetchone()[0])
        if version > STORE_VERSION:
            raise StoreError(
                # Translators: {path} is the server's store file; {version} and {known} are numbers.
                _(
                    "{path} was written by a newer Kings Corners (store {version}, this one knows {known}):"
                    " it is left as it is"
                ).format(path=shown, version=version, known=STORE_VERSION)
            )
        names = {str(row[0]) for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        expected = {0: set(), 1: set(V1_TABLES), 2: {"kc_meta"}}.get(version)
        if expected is None or (version == 0 and names) or not expected <= names:
            raise StoreError(
                _("{path} is an SQLite file of something else, not the server's store: it is left as it is").format(
                    path=shown
                )
            )
        check = str(db.execute("PRAGMA quick_check").fetchone()[0])
        if check != "ok":
            raise StoreError(
                _("{path} is damaged (SQLite reports: {reason}); it is left as it is").format(
                    path=shown, reason=one_line(check, 120)
                )
            )
        if version == STORE_VERSION:
            found = db.execute("SELECT value FROM kc_meta WHERE key = 'schema'").fetchone()
            schema_version(None if found is None else found[0], shown)
        if self.path is not None:
            mode = str(db.execute("PRAGMA journal_mode = WAL").fetchone()[0]).lower()
            if mode != "wal":
                log.warning("the server's store %s is not in WAL mode (%s)", self.path, mode)
        db.execute(f"PRAGMA synchronous = {'FULL' if self.durable else 'NORMAL'}")
        if version < STORE_VERSION:
            with self.transaction():
                self._make_tables(version)
            if version == 1:
                log.info("the server's store %s is brought from store 1 to %d", self.path, STORE_VERSION)
        self.tables_store.init()  # a tables' schema of an older version brought to this one's

    def _make_tables(self, version: int) -> None:
        """The tables' store's schema, made as :meth:`SqliteTableStore.init` makes it (the same
        :data:`STEPS`), then version 1's rows moved into it, at :data:`STORE_VERSION`."""
        db = self.db
        for step in range(1, SCHEMA_VERSION + 1):
            for statement in STEPS[step]:
                db.execute(statement)
        db.execute("INSERT INTO kc_meta (key, value) VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        if version == 1:
            for statement in FROM_V1:
                db.execute(statement)
        db.execute(f"PRAGMA user_version = {STORE_VERSION}")

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One transaction: committed at the end, rolled back when the block raises."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def close(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self.db.close()

    # ------------------------------------------------------------------ tables
    def _epoch(self, table: str) -> int:
        """The epoch this process writes ``table`` under; :class:`Fenced` when it does not own it."""
        epoch = self.epochs.get(table)
        if epoch is None:
            raise Fenced(table)
        return epoch

    @contextlib.contextmanager
    def _fenced(self, table: str) -> Iterator[None]:
        """A write of ``table``: when it is fenced, this process owns it no more."""
        try:
            yield
        except Fenced:
            self.epochs.pop(table, None)
            raise

    def claim_all(self) -> list[Claimed]:
        """Every playing table, claimed for this process (each at its epoch + 1: whoever served
        it before is fenced), with its last position and token hashes."""
        count = len(self.tables_store.rows_in([PLAYING]))
        claimed = self.tables_store.claim(self.owner, (), (), count)
        for table in claimed:
            self.epochs[table.id] = table.epoch
        return claimed

    def rows(self, *phases: str) -> list[Row]:
        """Every table's row (of ``phases``, when given), oldest first."""
        return self.tables_store.rows_in(phases) if phases else self.tables_store.rows()

    def put_table(self, table: str, record: Mapping[str, Any], phase: str) -> None:
        """Keep ``table``'s record (and its phase, for a table not playing). A table being played
        is written under this process's epoch (:class:`Fenced` when it is not its own)."""
        if table in self.epochs or phase == PLAYING:
            with self._fenced(table):
                self.tables_store.set_record(table, self._epoch(table), record)
        else:
            self.tables_store.put(table, record, phase)

    def start(self, table: str, record: Mapping[str, Any], save: bytes) -> None:
        """``table``'s match starts: playing, owned by this process at a new epoch, ``save`` its
        first position."""
        self.epochs[table] = self.tables_store.start(table, self.owner, record, save)

    def save(self, table: str, data: bytes, *, snapshot: bool = False) -> None:
        """``data`` as ``table``'s next position, committed under this process's epoch
        (``snapshot``: the first position of a round, and the positions before it dropped: the
        server serves a table again from its last one). :class:`Fenced` when the table is
        another's now; :class:`StoreError` (one line) when the file cannot be written."""
        with self._fenced(table):
            epoch = self._epoch(table)
            self.tables_store.write(table, epoch, data, snapshot=snapshot)
            if snapshot:
                self.tables_store.trim(table, epoch)

    def end(self, table: str) -> None:
        """``table``'s match is over: ended, never claimed again (:class:`Fenced` like a save)."""
        with self._fenced(table):
            self.tables_store.end(table, self._epoch(table))

    def drop(self, table: str, epoch: int) -> None:
        """A playing table that cannot be served again (no position, or one that is not usable):
        ended under ``epoch`` and forgotten (:class:`Fenced` when its epoch moved on)."""
        self.tables_store.end(table, epoch)
        self.forget(table)

    def forget(self, table: str) -> None:
        """Remove ``table``, its positions and its hashes (a table that closed or ended; a table
        still playing is :class:`Fenced`)."""
        self.tables_store.forget(table)
        self.epochs.pop(table, None)

    # ------------------------------------------------------------------ secrets' hashes
    def add_token(self, table: str, seat: int, token: str) -> None:
        """Keep the hash of a new token of ``table``'s ``seat`` (its older ones still open it)."""
        with self._fenced(table):
            self.tables_store.add_hash(table, self._epoch(table), seat, token_hash(token))

    def set_token(self, table: str, seat: int, token: str) -> None:
        """``seat``'s one token from now on (the seat given to another person: every older token
        is refused)."""
        with self._fenced(table):
            self.tables_store.set_hashes(table, self._epoch(table), seat, [token_hash(token)])

    def clear_tokens(self, table: str, seat: int) -> None:
        with self._fenced(table):
            self.tables_store.set_hashes(table, self._epoch(table), seat, [])

    def token_hashes(self, table: str) -> dict[int, list[bytes]]:
        """The hashes of ``table``'s seats' tokens, by seat."""
        return self.tables_store.token_hashes(table)


__all__ = [
    "SQLITE_MAGIC",
    "STORE_NAME",
    "STORE_VERSION",
    "Fenced",
    "ServerStore",
    "StoreError",
    "matches",
    "new_owner",
    "token_hash",
]
