"""The store of the tables served by workers: the one truth of every table's position.

Every table has an owner (a worker's id, or none), an **epoch** (bumped by every claim) and a
**seq** (bumped by every write). A position is written only under the epoch it was claimed with,
checked by the store itself in the statement that writes it
(``UPDATE kc_tables SET seq = seq + 1 ... WHERE id = ? AND epoch = ? RETURNING seq``, then the
history's row, in one transaction): an owner that was paused or cut off while another claimed its
table can never write after the claim (:class:`Fenced`). ``(table, seq)`` is the history's primary
key, so no seq is ever written under two epochs.

The history: every write is a row ``(table, seq, epoch, kind, data)``. A **snapshot** row holds a
match's whole save (:mod:`kc_tui.match.saves`, compact): the table's first position (seq 0), the
first position of every round, and any position that is not one step of a turn from the row
before it; the table's last snapshot is also kept with the table (``kc_tables.snapshot`` and
``snapshot_seq``). A **move** row holds one step of a turn, a few dozen bytes of JSON
(:mod:`.history`). A table is served again from its last snapshot and the move rows after it,
replayed (:attr:`Claimed.entries`, :func:`.history.rebuild`).

A store whose schema is older than :data:`SCHEMA_VERSION` (made by an older Kings Corners) is
left as it is: every call but :meth:`TableStore.init` fails with :class:`StoreError` saying to run
``kings-corners store init``, which brings it up to date (version 1's rows, whole saves, become
snapshots).

Two kinds, one interface and one test suite: :mod:`.sqlite_store` (a file on one machine; the
embedded default) and :mod:`.pg_store` (PostgreSQL). The calls are plain and blocking; each is
quick (a statement or two), and while the store cannot be reached each fails at once with
:class:`StoreDown`, so a worker's loop is never held.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

#: The tables' phases in the store.
PLAYING = "playing"
ENDED = "ended"

#: The schema's version (kept in the store; a newer one is refused, never written over; an
#: older one is brought to this one by ``kings-corners store init``).
SCHEMA_VERSION = 2

#: The kinds of a history's rows: a match's whole save, or one step of a turn.
SNAPSHOT = "snapshot"
MOVE = "move"


class StoreError(Exception):
    """The store cannot be used (a bad address, a schema of a newer version): one plain line."""


class StoreDown(StoreError):
    """The store cannot be reached now (PostgreSQL stopped, the network cut): one plain line.
    Nothing was written; the same call may work later."""


class Fenced(Exception):
    """The table's epoch moved on (another worker claimed it): this owner may not write it, and
    must stop serving it at once."""


@dataclass(frozen=True, slots=True)
class Written:
    """One row of a table's history: ``kind`` :data:`SNAPSHOT` (``data`` a match's whole save) or
    :data:`MOVE` (``data`` one step of a turn, :mod:`.history`)."""

    seq: int
    epoch: int
    kind: str
    data: bytes


@dataclass(frozen=True, slots=True)
class Claimed:
    """A table a worker now owns: its epoch (every write names it), the seq of its last write, its
    record, its last snapshot, its seats' token hashes, and the move rows written after its
    snapshot (by seq, up to ``seq``): the position at ``seq`` is the snapshot with them replayed."""

    id: str
    epoch: int
    seq: int
    record: dict[str, Any]
    snapshot: bytes
    hashes: dict[int, list[bytes]]
    entries: tuple[Written, ...] = ()


@dataclass(frozen=True, slots=True)
class Row:
    """A table as the store keeps it (without its history)."""

    id: str
    owner: str | None
    epoch: int
    seq: int
    phase: str
    record: dict[str, Any]


class TableStore(Protocol):
    """The tables' store. See the module docs."""

    #: "sqlite" or "postgresql".
    kind: str

    def init(self) -> None:
        """Make the schema, or bring an older one to :data:`SCHEMA_VERSION` (run again: nothing
        changes). :class:`StoreError` for a newer schema."""

    def create(self, table: str, record: Mapping[str, Any], save: bytes, hashes: Mapping[int, Sequence[bytes]]) -> None:
        """A new table, playing, owned by no one (the next sweep of a worker claims it): epoch 0,
        seq 0, ``save`` its first position (its snapshot, the history's row 0). :class:`StoreError`
        if ``table`` exists."""

    def claim(self, worker: str, live: Collection[str], holding: Collection[str], limit: int) -> list[Claimed]:
        """Claim for ``worker`` at most ``limit`` orphans: playing tables owned by no one or by a
        worker not in ``live``, and not in ``holding`` (the tables ``worker`` serves now). Each is
        taken with its epoch + 1, its row locked while it is (``FOR UPDATE SKIP LOCKED``): two
        workers sweeping at once never claim the same table. A table whose rows after its snapshot
        are not every seq up to its own is left alone (logged)."""

    def write(self, table: str, epoch: int, data: bytes, *, snapshot: bool = False) -> int:
        """Write ``table``'s next row under ``epoch``; its seq. ``snapshot``: ``data`` is a whole
        save, the table's snapshot from now on; else it is a move row (one step of a turn,
        :mod:`.history`). :class:`Fenced` when the table's epoch is not ``epoch`` (or it ended);
        :class:`StoreDown` when the store cannot be reached."""

    def end(self, table: str, epoch: int) -> None:
        """The table's match is over: never claimed again. Fenced like :meth:`write`."""

    def release(self, table: str, epoch: int) -> bool:
        """Hand ``table`` over: owned by no one from now on (claimed at the next sweep), if its
        epoch is still ``epoch``; whether it was."""

    def row(self, table: str) -> Row | None:
        """``table``'s row (None: no such table)."""

    def rows(self) -> list[Row]:
        """Every table's row, oldest first."""

    def history(self, table: str) -> list[Written]:
        """``table``'s history, by seq, from its first position (seq 0); the save at each seq:
        :func:`.history.saves`."""

    def token_hashes(self, table: str) -> dict[int, list[bytes]]:
        """The hashes of ``table``'s seats' tokens, by seat."""

    def close(self) -> None:
        """Let go of the connections (the store itself stays)."""


def open_store(url: str) -> TableStore:
    """The store at ``url``: ``postgresql://...`` (or ``postgres://``), ``sqlite:///PATH`` or a
    plain path to an SQLite file. :class:`StoreError` (one line) when it cannot be opened."""
    if url.startswith(("postgresql://", "postgres://")):
        from kc_tui.net.cluster.pg_store import PgTableStore

        return PgTableStore.open(url)
    from kc_tui.net.cluster.sqlite_store import SqliteTableStore

    return SqliteTableStore.open(url.removeprefix("sqlite://"))


__all__ = [
    "ENDED",
    "MOVE",
    "PLAYING",
    "SCHEMA_VERSION",
    "SNAPSHOT",
    "Claimed",
    "Fenced",
    "Row",
    "StoreDown",
    "StoreError",
    "TableStore",
    "Written",
    "open_store",
]
