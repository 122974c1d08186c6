"""Store version 1 of ``server.sqlite3``, as ``kings-corners server`` wrote it before its tables
were the tables' store's: its schema, pragmas and writes, word for word, to make real files of
that version for the tests of their migration."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kc_tui.net.server_store import token_hash

STORE_NAME = "server.sqlite3"
STORE_VERSION = 1

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


class StoreV1:
    """A file of store version 1, open (made when missing)."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(folder / STORE_NAME, isolation_level=None)
        db = self.db
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = NORMAL")
        if int(db.execute("PRAGMA user_version").fetchone()[0]) == 0:
            db.execute("BEGIN IMMEDIATE")
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute(f"PRAGMA user_version = {STORE_VERSION}")
            db.execute("COMMIT")

    def put_table(self, table: str, record: Mapping[str, Any], phase: str) -> None:
        text = json.dumps(record, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
        self.db.execute(
            "INSERT INTO hub_tables (id, record, phase, save, updated) VALUES (?, ?, ?, NULL, ?)"
            " ON CONFLICT (id) DO UPDATE SET record = excluded.record, phase = excluded.phase,"
            " updated = excluded.updated",
            (table, text, phase, time.time()),
        )

    def save(self, table: str, data: bytes) -> None:
        self.db.execute("UPDATE hub_tables SET save = ?, updated = ? WHERE id = ?", (data, time.time(), table))

    def add_token(self, table: str, seat: int, token: str) -> None:
        self.db.execute(
            "INSERT OR IGNORE INTO hub_seat_tokens (table_id, seat, hash) VALUES (?, ?, ?)",
            (table, seat, token_hash(token)),
        )

    def close(self) -> None:
        self.db.close()
