"""Table stores for the tests: an SQLite file in a test's folder, or a fresh PostgreSQL database
made (and dropped) with pytest-postgresql's :class:`~pytest_postgresql.janitor.DatabaseJanitor`
on the server of the ``pg_url`` fixture. A :class:`Backing` opens as many stores on the same
data as a test wants (each its own connection: two workers, two processes) and reads the data
behind the store's back."""

from __future__ import annotations

import contextlib
import sqlite3
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import psycopg
import psycopg.conninfo
from pytest_postgresql.janitor import DatabaseJanitor

from kc_tui.net.cluster.pg_store import PgTableStore
from kc_tui.net.store.sqlite_store import SqliteTableStore
from kc_tui.net.store.tablestore import TableStore
from tests.cluster.servicekit import SERVER_WAIT

KINDS = ("sqlite", "postgresql")


@dataclass
class Backing:
    """Where a test's store keeps its data: ``address`` is the SQLite file's path or the
    database's URL."""

    kind: str
    address: str
    opened: list[TableStore] = field(default_factory=list)

    def open(self) -> TableStore:
        """A new store on this data, with a connection of its own."""
        store: TableStore
        if self.kind == "sqlite":
            store = SqliteTableStore.open(self.address)
        else:
            store = PgTableStore.open(self.address)
        self.opened.append(store)
        return store

    def query(self, statement: str) -> list[tuple[Any, ...]]:
        """Run ``statement`` (no parameters) on the data, past the store; its rows."""
        if self.kind == "sqlite":
            db = sqlite3.connect(self.address, isolation_level=None)
            try:
                cursor = db.execute(statement)
                return [tuple(row) for row in cursor.fetchall()] if cursor.description else []
            finally:
                db.close()
        with psycopg.connect(self.address, autocommit=True) as conn:
            cur = conn.execute(statement.encode())
            return [tuple(row) for row in cur.fetchall()] if cur.description else []

    @contextlib.contextmanager
    def locking(self, table: str) -> Iterator[None]:
        """``table``'s row locked by another connection (SQLite: the whole file) until the end."""
        if self.kind == "sqlite":
            db = sqlite3.connect(self.address, isolation_level=None)
            db.execute("BEGIN IMMEDIATE")
            try:
                yield
            finally:
                db.execute("ROLLBACK")
                db.close()
            return
        with psycopg.connect(self.address) as conn:
            conn.execute("SELECT id FROM kc_tables WHERE id = %s FOR UPDATE", (table,))
            try:
                yield
            finally:
                conn.rollback()

    def close(self) -> None:
        for store in self.opened:
            store.close()
        self.opened.clear()


@contextlib.contextmanager
def fresh_database(server_url: str) -> Iterator[str]:
    """A new, empty database on the PostgreSQL server of ``server_url``; its URL. Dropped after."""
    parts = psycopg.conninfo.conninfo_to_dict(server_url)
    name = f"kc_{uuid.uuid4().hex[:16]}"
    janitor = DatabaseJanitor(
        user=str(parts.get("user", "postgres")),
        host=str(parts.get("host", "127.0.0.1")),
        port=str(parts.get("port", "5432")),
        dbname=name,
        password=None if parts.get("password") is None else str(parts["password"]),
        connection_timeout=SERVER_WAIT,
    )
    janitor.init()
    try:
        yield urlsplit(server_url)._replace(path=f"/{name}").geturl()
    finally:
        janitor.drop()
