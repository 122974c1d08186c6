"""A new table in the store of the tables, for a worker to claim and serve.

A table's record (plain JSON, kept by the store beside its position) says how it is served:
``turn_seconds`` (its turn clock, 0: none) and ``private`` (watched by no one). Anything else in
it is kept as it is, for whoever made the table.

Plain Python (no Textual, no Rich, no Redis).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from kc_tui.engine import Rules
from kc_tui.match.roster import Seat
from kc_tui.match.saves import save_bytes
from kc_tui.match.session import MatchSession
from kc_tui.net.cluster.tablestore import TableStore
from kc_tui.net.server_store import token_hash
from kc_tui.net.table_service import new_token

#: Random bytes of a new table's id (URL-safe base64 in its address).
TABLE_ID_BYTES = 9
#: The keys of a table's record a worker reads, and their defaults.
TURN_SECONDS = "turn_seconds"
PRIVATE = "private"


def new_table_id() -> str:
    """A new table's id: random, URL-safe."""
    return secrets.token_urlsafe(TABLE_ID_BYTES)


def turn_seconds(record: Mapping[str, Any]) -> float:
    """The turn clock of a table's record (seconds; 0: none); a value that is not a number: 0."""
    value = record.get(TURN_SECONDS, 0)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 3600:
        return 0.0
    return float(value)


def private(record: Mapping[str, Any]) -> bool:
    """Whether a table's record says it is watched by no one."""
    return record.get(PRIVATE) is True


def new_table(
    store: TableStore,
    seats: Sequence[Seat],
    rules: Rules,
    *,
    table: str | None = None,
    record: Mapping[str, Any] | None = None,
    seed: int | None = None,
) -> tuple[str, dict[int, str]]:
    """A new table of ``seats`` playing by ``rules``, stored (owned by no one: the next sweep of a
    worker claims it): its first position, its record and the hashes of a new token for every
    person's seat (the tokens themselves are only returned). Its id and ``{seat: token}``;
    :class:`~kc_tui.net.cluster.tablestore.StoreError` when ``table`` exists or the store fails."""
    session = MatchSession.hosted(list(seats), rules, seed)
    tokens = {seat: new_token() for seat in session.human_seats}
    name = table if table is not None else new_table_id()
    kept: dict[str, Any] = {TURN_SECONDS: 0, PRIVATE: False}
    kept.update(record or {})
    save = save_bytes(session.to_dict(), compact=True)
    store.create(name, kept, save, {seat: [token_hash(token)] for seat, token in tokens.items()})
    return name, tokens


__all__ = ["PRIVATE", "TABLE_ID_BYTES", "TURN_SECONDS", "new_table", "new_table_id", "private", "turn_seconds"]
