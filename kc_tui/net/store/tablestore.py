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

A lobby's table is kept before its match starts (:meth:`TableStore.put`: its record, a phase
such as ``open``, owned by no one and never claimed), then started by the process that serves it
(:meth:`TableStore.start`: playing, owned by it at epoch + 1, its first position written); its
record and its seats' token hashes change under its epoch after that.

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

    # A lobby's tables: kept before their match starts (no owner, never claimed), then started
    # by the process that serves them, which owns them at once.
    def put(self, table: str, record: Mapping[str, Any], phase: str) -> None:
        """Keep a table that is not playing (a lobby's, ``phase`` say ``open``: waiting for its
        seats): its record and phase. A new one is owned by no one, at epoch 0 and seq 0, with
        no position; a claim never takes it. :class:`Fenced` when the table is playing or ended
        (its owner alone changes it); :class:`ValueError` for the phase ``playing`` or ``ended``
        (:meth:`start` and :meth:`end` are those)."""

    def start(self, table: str, owner: str, record: Mapping[str, Any], save: bytes) -> int:
        """The match of a table that is not playing (or a new one) starts: playing, owned by
        ``owner`` at its epoch + 1, with ``record``, and ``save`` its first position (its
        snapshot, seq 0); the new epoch. :class:`Fenced` when it is playing or ended already."""

    def set_record(self, table: str, epoch: int, record: Mapping[str, Any]) -> None:
        """``table``'s record from now on, under ``epoch``: :class:`Fenced` when the table's
        epoch is not ``epoch``."""

    def add_hash(self, table: str, epoch: int, seat: int, hashed: bytes) -> None:
        """One more token hash opening ``table``'s ``seat`` (the others still do), under
        ``epoch``: :class:`Fenced` when the table's epoch is not ``epoch``."""

    def set_hashes(self, table: str, epoch: int, seat: int, hashes: Sequence[bytes]) -> None:
        """The token hashes opening ``table``'s ``seat`` from now on (none: no token opens it),
        under ``epoch``: :class:`Fenced` when the table's epoch is not ``epoch``."""

    def forget(self, table: str) -> None:
        """Remove a table that is not playing (closed in its lobby, or ended): its row, its
        history and its token hashes. :class:`Fenced` when it is playing (it is ended first)."""

    def rows_in(self, phases: Collection[str]) -> list[Row]:
        """The rows of the tables in one of ``phases``, oldest first."""

    def trim(self, table: str, epoch: int) -> None:
        """Drop ``table``'s history before its snapshot (positions no claim needs any more), under
        ``epoch``: :class:`Fenced` when the table's epoch is not ``epoch``. For an owner that keeps
        no older position (the one-process server)."""


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
]
