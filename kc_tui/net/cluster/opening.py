"""The store of the tables opened from its address: its kind picked by the address, and only
that kind imported (PostgreSQL's client only for a ``postgresql://`` address)."""

from __future__ import annotations

from kc_tui.net.store.tablestore import TableStore


def open_store(url: str) -> TableStore:
    """The store at ``url``: ``postgresql://...`` (or ``postgres://``), ``sqlite:///PATH`` or a
    plain path to an SQLite file. :class:`~kc_tui.net.store.tablestore.StoreError` (one line) when it cannot be
    opened."""
    if url.startswith(("postgresql://", "postgres://")):
        from kc_tui.net.cluster.pg_store import PgTableStore

        return PgTableStore.open(url)
    from kc_tui.net.store.sqlite_store import SqliteTableStore

    return SqliteTableStore.open(url.removeprefix("sqlite://"))


__all__ = ["open_store"]
