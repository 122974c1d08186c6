"""The tables' store in PostgreSQL: the truth of a cluster's tables, and their fence.

A write is one transaction: ``UPDATE kc_tables SET seq = seq + 1 ... WHERE id = %s AND epoch = %s
AND phase = 'playing' RETURNING seq`` (no row: :class:`Fenced`), then the history's row. A
claim picks its orphans with ``SELECT ... FOR UPDATE SKIP LOCKED LIMIT n`` and bumps each one's
epoch in the same transaction: two workers sweeping at once never pick the same table, and a
write racing a claim waits for the claim's lock, then finds the epoch moved on.

psycopg 3 (blocking) with a small :class:`psycopg_pool.ConnectionPool`. Every connection has a
``statement_timeout`` (:data:`STATEMENT_MS`), an ``idle_in_transaction_session_timeout`` (an
owner paused in the middle of a transaction lets go of its locks) and TCP timeouts, so no call
waits on PostgreSQL for long. When a call finds PostgreSQL gone (a lost connection, no
connection within :data:`POOL_WAIT`), the store is **down**: the pool is let go, and every call
fails at once with :class:`StoreDown` until a background thread connects again (it tries every
:data:`RETRY_EVERY` seconds) and makes a new pool. Nothing else is needed to come back.

:meth:`PgTableStore.init` holds an advisory lock for its transaction: two processes making the
schema at once take turns, and the second finds it made.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Collection, Iterator, Mapping, Sequence
from typing import Any, LiteralString

import psycopg
import psycopg.conninfo
import psycopg_pool

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
from kc_tui.util.printable import one_line

log = logging.getLogger(__name__)

#: The connections the pool keeps, and the most it opens.
POOL_MIN = 2
POOL_MAX = 4
#: How long a call waits for a connection of the pool before the store is down (seconds).
POOL_WAIT = 0.5
#: How long one statement may run, wait for a row's lock, and a transaction stay idle (a paused
#: owner's), in milliseconds.
STATEMENT_MS = 2000
LOCK_MS = 1000
IDLE_IN_TRANSACTION_MS = 5000
#: How long a new connection may take (seconds; libpq counts 2 at least).
CONNECT_TIMEOUT = 2
#: How long :meth:`PgTableStore.open` waits for its first connections (seconds).
OPEN_WAIT = 10.0
#: Seconds between two tries to reach PostgreSQL while the store is down.
RETRY_EVERY = 0.25
#: The advisory lock ``init`` holds (any number; the same in every process).
INIT_LOCK = 0x6B635F696E6974

#: The statements that bring the schema to each version from the one before (version 0: nothing);
#: the same tables as SQLite's (:data:`.sqlite_store.STEPS`), in PostgreSQL's types.
PG_STEPS: dict[int, tuple[LiteralString, ...]] = {
    1: (
        "CREATE TABLE kc_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        "CREATE TABLE kc_tables (id TEXT PRIMARY KEY, owner TEXT, epoch BIGINT NOT NULL,"
        " seq BIGINT NOT NULL, phase TEXT NOT NULL, record TEXT NOT NULL, snapshot BYTEA NOT NULL,"
        " snapshot_seq BIGINT NOT NULL, updated DOUBLE PRECISION NOT NULL)",
        "CREATE INDEX kc_tables_playing ON kc_tables (updated, id) WHERE phase = 'playing'",
        "CREATE TABLE kc_moves (table_id TEXT NOT NULL, seq BIGINT NOT NULL, epoch BIGINT NOT NULL,"
        " save BYTEA NOT NULL, PRIMARY KEY (table_id, seq))",
        "CREATE TABLE kc_seat_tokens (table_id TEXT NOT NULL, seat INTEGER NOT NULL, hash BYTEA NOT NULL,"
        " PRIMARY KEY (table_id, seat, hash))",
    ),
    2: SCHEMA_STEP_2,
}
#: What PostgreSQL answers (in its words: a connection's refusal carries no SQLSTATE) when it
#: cannot take a connection for a while; any other refusal (a user or a password refused, no such
#: database) is for good.
PASSING = ("starting up", "shutting down", "recovery mode", "too many clients", "connection slots", "not yet accepting")


def _said(exc: BaseException) -> str:
    """An error's words on one line (libpq's span several)."""
    return one_line(" ".join(str(exc).split()), 300)


def _where(url: str) -> tuple[str, dict[str, Any]]:
    """The store named for a person (host, port and database: never a password), and the
    address's parts; :class:`StoreError` when ``url`` is not a PostgreSQL address."""
    try:
        parts = psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.ProgrammingError as exc:
        raise StoreError(
            # Translators: {reason} is psycopg's words (in English).
            _("not a PostgreSQL address: {reason}").format(reason=one_line(str(exc), 200))
        ) from None
    port = str(parts.get("port", "5432"))
    if not all(one.isdigit() for one in port.split(",")):
        raise StoreError(_("not a PostgreSQL address: the port {port} is not a number").format(port=one_line(port, 40)))
    host = str(parts.get("host", "localhost"))
    dbname = str(parts.get("dbname", parts.get("user", "")))
    return one_line(f"PostgreSQL {host}:{port}/{dbname}", 200), parts


class PgTableStore(SqlStatements):
    """The tables' store in a PostgreSQL database. See the module docs. :meth:`open` it.

    Safe to call from several threads (each call takes a connection of the pool)."""

    kind = "postgresql"
    placeholder = "%s"

    def __init__(self, url: str, where: str) -> None:
        self.url = url
        self.where = where
        self._kwargs: dict[str, Any] = {
            "autocommit": True,
            "connect_timeout": CONNECT_TIMEOUT,
            "application_name": "kings-corners",
            "options": f"-c statement_timeout={STATEMENT_MS} -c lock_timeout={LOCK_MS}"
            f" -c idle_in_transaction_session_timeout={IDLE_IN_TRANSACTION_MS}",
            "keepalives": 1,
            "keepalives_idle": 5,
            "keepalives_interval": 1,
            "keepalives_count": 3,
            "tcp_user_timeout": STATEMENT_MS,
        }
        self._state = threading.Lock()
        self._pool: psycopg_pool.ConnectionPool[psycopg.Connection[Any]] | None = None
        self._down = ""  # why it is down: the message of every StoreDown until it is back
        self._closed = threading.Event()
        self._retrier: threading.Thread | None = None

    # ------------------------------------------------------------------ opening
    @classmethod
    def open(cls, url: str) -> PgTableStore:
        """The store in the database at ``url``. :class:`StoreDown` when PostgreSQL cannot be
        reached now, :class:`StoreError` (one line) when the address is wrong, refused (a user,
        a password, a database that does not exist) or the schema is newer than this program's."""
        where, _parts = _where(url)
        store = cls(url, where)
        try:
            with store._connect(OPEN_WAIT) as conn:
                store._version(conn)
            store._pool = store._new_pool()
        except BaseException:
            store.close()
            raise
        return store

    def _connect(self, timeout: float) -> psycopg.Connection[Any]:
        """A connection of its own (outside the pool), or the store's error saying why not."""
        kwargs = dict(self._kwargs, connect_timeout=max(CONNECT_TIMEOUT, round(timeout)))
        try:
            return psycopg.Connection.connect(self.url, **kwargs)
        except psycopg.Error as exc:
            raise self._refused(exc) from None

    def _refused(self, exc: psycopg.Error) -> StoreError:
        reason = _said(exc)
        if "FATAL:" in reason and not any(passing in reason for passing in PASSING):
            # PostgreSQL answered, and said no (a user, a password, a database).
            return StoreError(
                # Translators: {where} is the store, {reason} PostgreSQL's words.
                _("{where} refused the connection: {reason}").format(where=self.where, reason=reason)
            )
        return StoreDown(
            # Translators: {where} is the store, {reason} the reason (in English).
            _("{where} cannot be reached: {reason}").format(where=self.where, reason=reason)
        )

    def _new_pool(self) -> psycopg_pool.ConnectionPool[psycopg.Connection[Any]]:
        pool: psycopg_pool.ConnectionPool[psycopg.Connection[Any]] = psycopg_pool.ConnectionPool(
            self.url,
            kwargs=self._kwargs,
            min_size=POOL_MIN,
            max_size=POOL_MAX,
            timeout=POOL_WAIT,
            open=False,
            name="kc-tables",
        )
        try:
            pool.open(wait=True, timeout=OPEN_WAIT)
        except psycopg_pool.PoolTimeout:
            pool.close(timeout=1.0)
            raise StoreDown(
                _("{where} cannot be reached: {reason}").format(where=self.where, reason="no connection")
            ) from None
        return pool

    def _version(self, conn: psycopg.Connection[Any]) -> int:
        """The schema's version (0: not made); :class:`StoreError` for a newer one or a
        database holding a ``kc_tables`` of something else."""
        found = conn.execute(
            "SELECT to_regclass('kc_meta') IS NOT NULL, to_regclass('kc_tables') IS NOT NULL"
        ).fetchone()
        has_meta, has_tables = found if found is not None else (False, False)
        if not has_meta:
            if has_tables:
                raise foreign(self.where)
            return 0
        value = conn.execute("SELECT value FROM kc_meta WHERE key = 'schema'").fetchone()
        return schema_version(None if value is None else value[0], self.where)

    # ------------------------------------------------------------------ down and back
    def _fall(self, reason: str, pool: psycopg_pool.ConnectionPool[psycopg.Connection[Any]]) -> None:
        """PostgreSQL is gone: the store is down until the retrier reaches it again."""
        with self._state:
            if self._closed.is_set() or self._pool is not pool:
                return
            self._pool = None
            self._down = str(self._down_error(reason))
            log.warning("the table store %s is down: %s", self.where, reason)
            self._retrier = threading.Thread(target=self._retry, args=(pool,), name="kc-store-retry", daemon=True)
            self._retrier.start()

    def _retry(self, old: psycopg_pool.ConnectionPool[psycopg.Connection[Any]]) -> None:
        with contextlib.suppress(Exception):
            old.close(timeout=1.0)
        while not self._closed.wait(RETRY_EVERY):
            try:
                with self._connect(CONNECT_TIMEOUT) as conn:
                    conn.execute("SELECT 1")
                pool = self._new_pool()
            except StoreError as exc:
                with self._state:
                    self._down = str(exc)
                continue
            with self._state:
                if self._closed.is_set():
                    pool.close(timeout=1.0)
                    return
                self._pool = pool
                self._down = ""
            log.warning("the table store %s is back", self.where)
            return

    def _down_error(self, reason: str) -> StoreDown:
        return StoreDown(
            # Translators: {where} is the store, {reason} the reason (in English).
            _("{where} cannot be reached: {reason}").format(where=self.where, reason=one_line(reason, 300))
        )

    @contextlib.contextmanager
    def _read(self) -> Iterator[psycopg.Connection[Any]]:
        """A connection of the pool (autocommit), its errors as the store's."""
        with self._state:
            pool = self._pool
            down = self._down
        if pool is None:
            if self._closed.is_set():
                raise StoreError(_("{where}: the store is closed").format(where=self.where))
            raise StoreDown(down or str(self._down_error("down")))
        try:
            with pool.connection(timeout=POOL_WAIT) as conn:
                try:
                    yield conn
                except psycopg.Error as exc:
                    if conn.broken or conn.closed:
                        self._fall(_said(exc), pool)
                    raise
        except psycopg_pool.PoolTimeout:
            self._fall("no connection", pool)
            raise self._down_error("no connection") from None
        except psycopg_pool.PoolClosed:
            raise self._down_error("down") from None
        except psycopg.errors.UndefinedTable:
            raise not_made(self.where) from None
        except psycopg.OperationalError as exc:
            # The connection lost, a statement cancelled by its timeout, a deadlock: nothing was
            # written, and the same call may work later.
            raise self._down_error(_said(exc)) from None
        except psycopg.Error as exc:
            raise StoreError(
                # Translators: {where} is the store, {reason} PostgreSQL's words.
                _("{where} cannot be used: {reason}").format(where=self.where, reason=_said(exc))
            ) from None

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[psycopg.Connection[Any]]:
        with self._read() as conn, conn.transaction():
            yield conn

    # ------------------------------------------------------------------ the interface
    def init(self) -> None:
        with self._transaction() as conn:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (INIT_LOCK,))
            version = self._version(conn)
            if version == SCHEMA_VERSION:
                self.version = version
                return
            for step in range(version + 1, SCHEMA_VERSION + 1):
                for statement in PG_STEPS[step]:
                    conn.execute(statement)
            conn.execute(
                "INSERT INTO kc_meta (key, value) VALUES ('schema', %s)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (str(SCHEMA_VERSION),),
            )
        self.version = SCHEMA_VERSION
        log.info("the table store %s is at schema %d", self.where, SCHEMA_VERSION)

    def create(self, table: str, record: Mapping[str, Any], save: bytes, hashes: Mapping[int, Sequence[bytes]]) -> None:
        self._ready()
        with self._transaction() as conn:
            made = conn.execute(
                "INSERT INTO kc_tables (id, owner, epoch, seq, phase, record, snapshot, snapshot_seq, updated)"
                " VALUES (%s, NULL, 0, 0, %s, %s, %s, 0, %s) ON CONFLICT (id) DO NOTHING RETURNING id",
                (table, PLAYING, record_text(record), bytes(save), time.time()),
            ).fetchone()
            if made is None:
                # Translators: {table} is a table's id.
                raise StoreError(_("the table {table} exists already").format(table=one_line(table, 80)))
            self._first_row(conn, table, save)
            with conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO kc_seat_tokens (table_id, seat, hash) VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
                    [(table, int(seat), bytes(kept)) for seat, kept_all in hashes.items() for kept in kept_all],
                )

    def claim(self, worker: str, live: Collection[str], holding: Collection[str], limit: int) -> list[Claimed]:
        if limit <= 0:
            return []
        self._ready()
        out: list[Claimed] = []
        with self._transaction() as conn:
            picked = conn.execute(
                "SELECT t.id, t.seq, t.record, t.snapshot, t.snapshot_seq FROM kc_tables t"
                " WHERE t.phase = %s AND (t.owner IS NULL OR NOT (t.owner = ANY(%s::text[])))"
                " AND NOT (t.id = ANY(%s::text[]))"
                " ORDER BY t.updated, t.id LIMIT %s FOR UPDATE OF t SKIP LOCKED",
                (PLAYING, sorted(live), sorted(holding), limit),
            ).fetchall()
            for table, seq, text, snapshot, snapshot_seq in picked:
                entries = self._entries(conn, table, int(seq), int(snapshot_seq))
                if entries is None:
                    continue
                found = conn.execute(
                    "UPDATE kc_tables SET owner = %s, epoch = epoch + 1 WHERE id = %s RETURNING epoch", (worker, table)
                ).fetchone()
                assert found is not None  # the row is locked by this transaction
                out.append(
                    Claimed(
                        str(table),
                        int(found[0]),
                        int(seq),
                        record_of(table, text),
                        bytes(snapshot),
                        self._hashes(conn, table),
                        entries,
                    )
                )
        return out

    def close(self) -> None:
        with self._state:
            self._closed.set()
            pool, self._pool = self._pool, None
            retrier = self._retrier
        if pool is not None:
            pool.close(timeout=1.0)
        if retrier is not None and retrier is not threading.current_thread():
            retrier.join(timeout=CONNECT_TIMEOUT + 1)


__all__ = ["PG_STEPS", "POOL_WAIT", "PgTableStore"]
