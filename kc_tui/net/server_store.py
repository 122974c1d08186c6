"""The store of ``kings-corners server``: one SQLite file, ``server.sqlite3`` in the data folder.

It keeps every table the lobby knows (its record as :meth:`kc_tui.net.lobby.Lobby.record`
wrote it: the invite's secret only as its SHA-256; its phase; the save of its match), the SHA-256
hashes of the seats' tokens (never a token itself), and, in
:class:`kc_tui.net.accounts.Accounts`'s own tables on the same connection, the server's id, the
people and their ratings.

The file is in WAL mode. A table's save is committed before the state it holds is sent, so a
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
import json
import logging
import os
import sqlite3
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kc_tui.i18n import _
from kc_tui.util.files import PRIVATE_FILE, make_folder
from kc_tui.util.printable import one_line

log = logging.getLogger(__name__)

STORE_NAME = "server.sqlite3"
#: The store's format; a file of a newer one is refused (never written over).
STORE_VERSION = 1
#: The first bytes of every SQLite file.
SQLITE_MAGIC = b"SQLite format 3\x00"
#: How long a statement waits for another connection's lock (milliseconds).
BUSY_MS = 2000

_SCHEMA = """
CREATE TABLE IF NOT EXISTS hub_tables (
    id TEXT PRIMARY KEY,
    record TEXT NOT NULL,
    phase TEXT NOT NULL,
    save BLOB,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS hub_seat_tokens (
    table_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    hash BLOB NOT NULL,
    PRIMARY KEY (table_id, seat, hash)
);
"""


class StoreError(Exception):
    """The store cannot be used: one plain line saying why (the file is left as it is)."""


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


@dataclass(frozen=True, slots=True)
class StoredTable:
    """One table as the store keeps it: the lobby's record, its phase, its match's save."""

    id: str
    record: dict[str, Any]
    phase: str
    save: bytes | None
    updated: float


def _connect(path: Path, mode: str) -> sqlite3.Connection:
    uri = f"file:{path.as_posix()}?mode={mode}"
    db = sqlite3.connect(uri, uri=True, timeout=BUSY_MS / 1000, isolation_level=None, check_same_thread=True)
    return db


def _new_private_file(path: Path) -> None:
    """An empty file of mode 0600 for SQLite to open (its -wal and -shm files take its mode)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, flags, PRIVATE_FILE))


class ServerStore:
    """The server's SQLite file, open. See the module docs. :meth:`open` it."""

    def __init__(self, db: sqlite3.Connection, path: Path | None, durable: bool = False) -> None:
        self.db = db
        self.path = path
        self.durable = durable

    # ------------------------------------------------------------------ opening
    @classmethod
    def open(cls, folder: Path, *, durable: bool = False) -> ServerStore:
        """The store in ``folder`` (made when missing); :class:`StoreError` when the file there
        cannot be used (not an SQLite file, not this store's, newer, damaged, locked, unreadable).
        ``durable``: every commit flushed to the disk (see the module's docs)."""
        path = folder / STORE_NAME
        shown = one_line(str(path))
        try:
            make_folder(folder)
            new = not path.exists() or path.stat().st_size == 0
            if not new:
                with open(path, "rb") as f:
                    head = f.read(len(SQLITE_MAGIC))
                if head != SQLITE_MAGIC:
                    # Translators: {path} is the server's store file.
                    raise StoreError(
                        _("{path} is not the server's store (not an SQLite file): it is left as it is").format(
                            path=shown
                        )
                    )
            else:
                _new_private_file(path)
            db = _connect(path, "rw")
        except OSError as exc:
            raise StoreError(
                # Translators: {path} is the server's store file, {reason} the system's reason.
                _("{path} cannot be opened: {reason}").format(path=shown, reason=one_line(exc.strerror or str(exc)))
            ) from None
        except sqlite3.Error as exc:
            raise StoreError(
                _("{path} cannot be opened: {reason}").format(path=shown, reason=one_line(str(exc)))
            ) from None
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
                _("{path} cannot be used: {reason}; it is left as it is").format(path=shown, reason=one_line(str(exc)))
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
        names = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if version == 0 and names:
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
        if self.path is not None:
            mode = str(db.execute("PRAGMA journal_mode = WAL").fetchone()[0]).lower()
            if mode != "wal":
                log.warning("the server's store %s is not in WAL mode (%s)", self.path, mode)
        db.execute(f"PRAGMA synchronous = {'FULL' if self.durable else 'NORMAL'}")
        if version == 0:
            with self.transaction():
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute(f"PRAGMA user_version = {STORE_VERSION}")

    @contextlib.contextmanager
    def transaction(self) -> Any:
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
    def put_table(self, table: str, record: Mapping[str, Any], phase: str) -> None:
        """Keep ``table``'s record and phase (its save is left as it is)."""
        text = json.dumps(record, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
        with self.transaction() as db:
            db.execute(
                "INSERT INTO hub_tables (id, record, phase, save, updated) VALUES (?, ?, ?, NULL, ?)"
                " ON CONFLICT (id) DO UPDATE SET record = excluded.record, phase = excluded.phase,"
                " updated = excluded.updated",
                (table, text, phase, time.time()),
            )

    def set_phase(self, table: str, phase: str) -> None:
        with self.transaction() as db:
            db.execute("UPDATE hub_tables SET phase = ?, updated = ? WHERE id = ?", (phase, time.time(), table))

    def save(self, table: str, data: bytes) -> str | None:
        """Keep ``data`` as ``table``'s save, committed; None, or why it could not be (one line)."""
        try:
            with self.transaction() as db:
                db.execute("UPDATE hub_tables SET save = ?, updated = ? WHERE id = ?", (data, time.time(), table))
        except sqlite3.Error as exc:
            log.error("the save of table %s could not be stored: %s", table, exc)
            return one_line(str(exc), 200)
        return None

    def forget(self, table: str) -> None:
        """Remove ``table`` and its hashes (a table that ended or closed for good)."""
        with self.transaction() as db:
            db.execute("DELETE FROM hub_tables WHERE id = ?", (table,))
            db.execute("DELETE FROM hub_seat_tokens WHERE table_id = ?", (table,))

    def tables(self, *phases: str) -> list[StoredTable]:
        """Every table kept (of ``phases``, when given), oldest first. A record that is not JSON
        is skipped (logged)."""
        rows = self.db.execute("SELECT id, record, phase, save, updated FROM hub_tables ORDER BY updated, id")
        out: list[StoredTable] = []
        for table, text, phase, save, updated in rows.fetchall():
            if phases and phase not in phases:
                continue
            try:
                record = json.loads(text)
            except ValueError:
                log.error("table %s's record in the store is not JSON: skipped", table)
                continue
            if not isinstance(record, dict):
                log.error("table %s's record in the store is not an object: skipped", table)
                continue
            out.append(StoredTable(str(table), record, str(phase), bytes(save) if save is not None else None, updated))
        return out

    # ------------------------------------------------------------------ secrets' hashes
    def add_token(self, table: str, seat: int, token: str) -> None:
        """Keep the hash of a new token of ``table``'s ``seat`` (its older ones still open it)."""
        with self.transaction() as db:
            db.execute(
                "INSERT OR IGNORE INTO hub_seat_tokens (table_id, seat, hash) VALUES (?, ?, ?)",
                (table, seat, token_hash(token)),
            )

    def set_token(self, table: str, seat: int, token: str) -> None:
        """``seat``'s one token from now on (the seat given to another person: every older token
        is refused)."""
        with self.transaction() as db:
            db.execute("DELETE FROM hub_seat_tokens WHERE table_id = ? AND seat = ?", (table, seat))
            db.execute(
                "INSERT INTO hub_seat_tokens (table_id, seat, hash) VALUES (?, ?, ?)", (table, seat, token_hash(token))
            )

    def clear_tokens(self, table: str, seat: int) -> None:
        with self.transaction() as db:
            db.execute("DELETE FROM hub_seat_tokens WHERE table_id = ? AND seat = ?", (table, seat))

    def token_hashes(self, table: str) -> dict[int, list[bytes]]:
        """The hashes of ``table``'s seats' tokens, by seat."""
        out: dict[int, list[bytes]] = {}
        rows = self.db.execute("SELECT seat, hash FROM hub_seat_tokens WHERE table_id = ? ORDER BY seat", (table,))
        for seat, kept in rows.fetchall():
            out.setdefault(int(seat), []).append(bytes(kept))
        return out


__all__ = ["STORE_NAME", "STORE_VERSION", "ServerStore", "StoreError", "StoredTable", "matches", "token_hash"]
