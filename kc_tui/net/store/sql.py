"""What both kinds of the tables' store share: the record's JSON, a row read, the schema's
version read, and :class:`SqlStatements`, the statements both run the same way (the fenced
write, the end, the hand-over, the reads, the history of a claimed table after its snapshot),
written once with ``?`` for a parameter and run with the kind's own placeholder.

Version 2 of the schema (:data:`SCHEMA_STEP_2`) gives every history row its kind (a move row or
a snapshot, :mod:`.tablestore`); the rows of version 1 are whole saves: they become snapshots,
each table's snapshot its last row, and the first position of a table still in its first round
its row 0.
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
from collections.abc import Collection, Mapping, Sequence
from typing import Any, ClassVar, LiteralString

from kc_tui.engine.strict import loads
from kc_tui.i18n import _
from kc_tui.net.store.tablestore import (
    ENDED,
    MOVE,
    PLAYING,
    SCHEMA_VERSION,
    SNAPSHOT,
    Fenced,
    Row,
    StoreError,
    Written,
)

log = logging.getLogger(__name__)

#: The statements that bring the schema from version 1 to 2, the same for both kinds: the
#: history's rows get their kind (those of version 1 are whole saves: snapshots), the tables still
#: at their first snapshot their row 0, and every table's snapshot is its last row.
SCHEMA_STEP_2: tuple[LiteralString, ...] = (
    "ALTER TABLE kc_moves RENAME COLUMN save TO data",
    "ALTER TABLE kc_moves ADD COLUMN kind TEXT NOT NULL DEFAULT 'snapshot' CHECK (kind IN ('snapshot', 'move'))",
    "INSERT INTO kc_moves (table_id, seq, epoch, data, kind) SELECT t.id, 0, 0, t.snapshot, 'snapshot'"
    " FROM kc_tables t WHERE t.snapshot_seq = 0"
    " AND NOT EXISTS (SELECT 1 FROM kc_moves m WHERE m.table_id = t.id AND m.seq = 0)",
    "UPDATE kc_tables SET snapshot = (SELECT m.data FROM kc_moves m WHERE m.table_id = kc_tables.id"
    " AND m.seq = kc_tables.seq), snapshot_seq = seq"
    " WHERE EXISTS (SELECT 1 FROM kc_moves m WHERE m.table_id = kc_tables.id AND m.seq = kc_tables.seq)",
)


def record_text(record: Mapping[str, Any]) -> str:
    """A table's record as the store keeps it (JSON, keys sorted)."""
    return json.dumps(dict(record), ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def record_of(table: str, text: str) -> dict[str, Any]:
    """The record kept as ``text``; an empty one (logged) when it is not a JSON object."""
    try:
        record = loads(text)
    except ValueError:
        record = None
    if not isinstance(record, dict):
        log.error("table %s's record in the store is not a JSON object", table)
        return {}
    return record


def row_of(found: Sequence[Any]) -> Row:
    """A table's row from ``(id, owner, epoch, seq, phase, record)`` as a query gives it."""
    table, owner, epoch, seq, phase, text = found
    owner = None if owner is None else str(owner)
    return Row(str(table), owner, int(epoch), int(seq), str(phase), record_of(str(table), str(text)))


def after_snapshot(table: str, seq: int, snapshot_seq: int, rows: Sequence[Any]) -> tuple[Written, ...] | None:
    """The history's rows after a table's snapshot (``rows``: ``(seq, epoch, kind, data)`` by seq,
    as a query gives them), which must be every seq after ``snapshot_seq`` up to ``seq``; None
    (logged) when they are not."""
    out = tuple(Written(int(at), int(epoch), str(kind), bytes(data)) for at, epoch, kind, data in rows)
    if [one.seq for one in out] != list(range(snapshot_seq + 1, seq + 1)):
        log.error("table %s's history after its snapshot is not every seq up to %d: not claimed", table, seq)
        return None
    return out


def schema_version(value: object, where: str) -> int:
    """The schema version kept in ``kc_meta`` (``value``: None when there is none);
    :class:`StoreError` when it is not a number or newer than this program knows."""
    if value is None:
        raise StoreError(
            # Translators: {where} is the store (a file or a PostgreSQL database).
            _("{where} has the table kc_meta but no schema version: it is not a table store, left as it is").format(
                where=where
            )
        )
    try:
        version = int(str(value))
    except ValueError:
        version = -1
    if version < 0:
        raise StoreError(
            _("{where} has a schema version that is not a number: it is left as it is").format(where=where)
        )
    if version > SCHEMA_VERSION:
        raise StoreError(
            # Translators: {where} is the store; {version} and {known} are numbers.
            _(
                "{where} was made by a newer Kings Corners (schema {version}, this one knows {known}):"
                " it is left as it is"
            ).format(where=where, version=version, known=SCHEMA_VERSION)
        )
    return version


def not_made(where: str) -> StoreError:
    """The store has no schema yet: ``store init`` makes it."""
    return StoreError(
        # Translators: {where} is the store; `kings-corners store init` is a command, not translated.
        _("{where} has no tables yet: run `kings-corners store init` first").format(where=where)
    )


def older(where: str, version: int) -> StoreError:
    """The store's schema is older than this program's: ``store init`` brings it up to date."""
    return StoreError(
        # Translators: {where} is the store, {version} and {known} are numbers; `kings-corners
        # store init` is a command, not translated.
        _(
            "{where} was made by an older Kings Corners (schema {version}, this one knows {known}):"
            " run `kings-corners store init` to bring it up to date"
        ).format(where=where, version=version, known=SCHEMA_VERSION)
    )


def foreign(where: str) -> StoreError:
    return StoreError(
        _("{where} holds tables of something else, not a table store: it is left as it is").format(where=where)
    )


class SqlStatements:
    """The statements both kinds run the same way. A kind gives :meth:`_read` and
    :meth:`_transaction` (each a connection whose ``execute`` takes a statement and its
    parameters) and its :attr:`placeholder`."""

    #: How the kind's driver marks a parameter in a statement.
    placeholder: ClassVar[str] = "?"
    #: The store named for a person (in messages).
    where: str
    #: The schema's version as last read (0: not read yet): an older one than
    #: :data:`SCHEMA_VERSION` is read again before each call, until ``store init`` brought it up to
    #: date (:meth:`_ready`).
    version: int = 0

    def _read(self) -> contextlib.AbstractContextManager[Any]:
        raise NotImplementedError

    def _transaction(self) -> contextlib.AbstractContextManager[Any]:
        raise NotImplementedError

    def _q(self, statement: str) -> Any:
        """``statement`` with the kind's placeholder for each ``?``."""
        return statement if self.placeholder == "?" else statement.replace("?", self.placeholder)

    def _ready(self) -> None:
        """:class:`StoreError` saying to run ``store init`` when the schema is not made or older
        than this program's (read once it is current, never again)."""
        if self.version == SCHEMA_VERSION:
            return
        with self._read() as db:
            found = db.execute("SELECT value FROM kc_meta WHERE key = 'schema'").fetchone()
        version = schema_version(None if found is None else found[0], self.where)
        if version < SCHEMA_VERSION:
            raise older(self.where, version)
        self.version = version

    def write(self, table: str, epoch: int, data: bytes, *, snapshot: bool = False) -> int:
        self._ready()
        data = bytes(data)
        with self._transaction() as db:
            if snapshot:
                found = db.execute(
                    self._q(
                        "UPDATE kc_tables SET seq = seq + 1, updated = ?, snapshot = ?, snapshot_seq = seq + 1"
                        " WHERE id = ? AND epoch = ? AND phase = 'playing' RETURNING seq"
                    ),
                    (time.time(), data, table, epoch),
                ).fetchone()
            else:
                found = db.execute(
                    self._q(
                        "UPDATE kc_tables SET seq = seq + 1, updated = ?"
                        " WHERE id = ? AND epoch = ? AND phase = 'playing' RETURNING seq"
                    ),
                    (time.time(), table, epoch),
                ).fetchone()
            if found is None:
                raise Fenced(table)
            seq = int(found[0])
            db.execute(
                self._q("INSERT INTO kc_moves (table_id, seq, epoch, kind, data) VALUES (?, ?, ?, ?, ?)"),
                (table, seq, epoch, SNAPSHOT if snapshot else MOVE, data),
            )
        return seq

    def end(self, table: str, epoch: int) -> None:
        self._ready()
        with self._transaction() as db:
            done = db.execute(
                self._q("UPDATE kc_tables SET phase = 'ended', updated = ? WHERE id = ? AND epoch = ?"),
                (time.time(), table, epoch),
            )
            if done.rowcount != 1:
                raise Fenced(table)

    def release(self, table: str, epoch: int) -> bool:
        self._ready()
        with self._transaction() as db:
            done = db.execute(self._q("UPDATE kc_tables SET owner = NULL WHERE id = ? AND epoch = ?"), (table, epoch))
            return bool(done.rowcount == 1)

    def row(self, table: str) -> Row | None:
        self._ready()
        with self._read() as db:
            found = db.execute(
                self._q("SELECT id, owner, epoch, seq, phase, record FROM kc_tables WHERE id = ?"), (table,)
            ).fetchone()
        return None if found is None else row_of(found)

    def rows(self) -> list[Row]:
        self._ready()
        with self._read() as db:
            found = db.execute("SELECT id, owner, epoch, seq, phase, record FROM kc_tables ORDER BY updated, id")
            return [row_of(one) for one in found.fetchall()]

    def history(self, table: str) -> list[Written]:
        self._ready()
        with self._read() as db:
            found = db.execute(
                self._q("SELECT seq, epoch, kind, data FROM kc_moves WHERE table_id = ? ORDER BY seq"), (table,)
            )
            rows = found.fetchall()
        return [Written(int(seq), int(epoch), str(kind), bytes(data)) for seq, epoch, kind, data in rows]

    def token_hashes(self, table: str) -> dict[int, list[bytes]]:
        self._ready()
        with self._read() as db:
            return self._hashes(db, table)

    def _entries(self, db: Any, table: str, seq: int, snapshot_seq: int) -> tuple[Written, ...] | None:
        """The rows of ``table``'s history after its snapshot (:func:`after_snapshot`)."""
        found = db.execute(
            self._q("SELECT seq, epoch, kind, data FROM kc_moves WHERE table_id = ? AND seq > ? ORDER BY seq"),
            (table, snapshot_seq),
        )
        return after_snapshot(table, seq, snapshot_seq, found.fetchall())

    def _first_row(self, db: Any, table: str, save: bytes) -> None:
        """A new table's first position as its history's row 0."""
        db.execute(
            self._q("INSERT INTO kc_moves (table_id, seq, epoch, kind, data) VALUES (?, 0, 0, ?, ?)"),
            (table, SNAPSHOT, bytes(save)),
        )

    def _hashes(self, db: Any, table: str) -> dict[int, list[bytes]]:
        out: dict[int, list[bytes]] = {}
        found = db.execute(
            self._q("SELECT seat, hash FROM kc_seat_tokens WHERE table_id = ? ORDER BY seat, hash"), (table,)
        )
        for seat, kept in found.fetchall():
            out.setdefault(int(seat), []).append(bytes(kept))
        return out

    # ------------------------------------------------------------------ a lobby's tables
    def put(self, table: str, record: Mapping[str, Any], phase: str) -> None:
        if phase in (PLAYING, ENDED):
            raise ValueError(f"put keeps tables that are not playing, not {phase!r} ones")
        with self._transaction() as db:
            done = db.execute(
                self._q(
                    "INSERT INTO kc_tables (id, owner, epoch, seq, phase, record, snapshot, snapshot_seq, updated)"
                    " VALUES (?, NULL, 0, 0, ?, ?, ?, 0, ?)"
                    " ON CONFLICT (id) DO UPDATE SET phase = excluded.phase, record = excluded.record,"
                    " updated = excluded.updated WHERE kc_tables.phase NOT IN ('playing', 'ended')"
                ),
                (table, phase, record_text(record), b"", time.time()),
            )
            if done.rowcount != 1:
                raise Fenced(table)

    def start(self, table: str, owner: str, record: Mapping[str, Any], save: bytes) -> int:
        with self._transaction() as db:
            found = db.execute(
                self._q(
                    "INSERT INTO kc_tables (id, owner, epoch, seq, phase, record, snapshot, snapshot_seq, updated)"
                    " VALUES (?, ?, 1, 0, 'playing', ?, ?, 0, ?)"
                    " ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, epoch = kc_tables.epoch + 1, seq = 0,"
                    " phase = 'playing', record = excluded.record, snapshot = excluded.snapshot, snapshot_seq = 0,"
                    " updated = excluded.updated WHERE kc_tables.phase NOT IN ('playing', 'ended')"
                    " RETURNING epoch"
                ),
                (table, owner, record_text(record), bytes(save), time.time()),
            ).fetchone()
            if found is None:
                raise Fenced(table)
            db.execute(self._q("DELETE FROM kc_moves WHERE table_id = ?"), (table,))
            self._first_row(db, table, save)
            return int(found[0])

    def set_record(self, table: str, epoch: int, record: Mapping[str, Any]) -> None:
        with self._transaction() as db:
            done = db.execute(
                self._q("UPDATE kc_tables SET record = ?, updated = ? WHERE id = ? AND epoch = ?"),
                (record_text(record), time.time(), table, epoch),
            )
            if done.rowcount != 1:
                raise Fenced(table)

    def add_hash(self, table: str, epoch: int, seat: int, hashed: bytes) -> None:
        with self._transaction() as db:
            self._fence(db, table, epoch)
            db.execute(
                self._q("INSERT INTO kc_seat_tokens (table_id, seat, hash) VALUES (?, ?, ?) ON CONFLICT DO NOTHING"),
                (table, seat, bytes(hashed)),
            )

    def set_hashes(self, table: str, epoch: int, seat: int, hashes: Sequence[bytes]) -> None:
        with self._transaction() as db:
            self._fence(db, table, epoch)
            db.execute(self._q("DELETE FROM kc_seat_tokens WHERE table_id = ? AND seat = ?"), (table, seat))
            for hashed in dict.fromkeys(bytes(one) for one in hashes):
                db.execute(
                    self._q("INSERT INTO kc_seat_tokens (table_id, seat, hash) VALUES (?, ?, ?)"), (table, seat, hashed)
                )

    def forget(self, table: str) -> None:
        with self._transaction() as db:
            db.execute(self._q("DELETE FROM kc_tables WHERE id = ? AND phase <> 'playing'"), (table,))
            if db.execute(self._q("SELECT 1 FROM kc_tables WHERE id = ?"), (table,)).fetchone() is not None:
                raise Fenced(table)
            db.execute(self._q("DELETE FROM kc_moves WHERE table_id = ?"), (table,))
            db.execute(self._q("DELETE FROM kc_seat_tokens WHERE table_id = ?"), (table,))

    def rows_in(self, phases: Collection[str]) -> list[Row]:
        wanted = sorted(set(phases))
        if not wanted:
            return []
        marks = ", ".join("?" * len(wanted))
        with self._read() as db:
            found = db.execute(
                self._q(
                    "SELECT id, owner, epoch, seq, phase, record FROM kc_tables"
                    f" WHERE phase IN ({marks}) ORDER BY updated, id"
                ),
                tuple(wanted),
            )
            return [row_of(one) for one in found.fetchall()]

    def trim(self, table: str, epoch: int) -> None:
        with self._transaction() as db:
            self._fence(db, table, epoch)
            db.execute(
                self._q(
                    "DELETE FROM kc_moves WHERE table_id = ?"
                    " AND seq < (SELECT snapshot_seq FROM kc_tables WHERE id = ?)"
                ),
                (table, table),
            )

    def _fence(self, db: Any, table: str, epoch: int) -> None:
        """:class:`Fenced` unless ``table``'s epoch is ``epoch``; its row locked until the
        transaction ends (a claim waits for it, then bumps the epoch)."""
        done = db.execute(self._q("UPDATE kc_tables SET epoch = epoch WHERE id = ? AND epoch = ?"), (table, epoch))
        if done.rowcount != 1:
            raise Fenced(table)


__all__ = [
    "SCHEMA_STEP_2",
    "SqlStatements",
    "after_snapshot",
    "foreign",
    "not_made",
    "older",
    "record_of",
    "record_text",
    "row_of",
    "schema_version",
]
