"""The store of the tables opened from its address, and a new table in it for a worker to claim
and serve.

A table's record (plain JSON, kept by the store beside its position) says how it is served:
``turn_seconds`` (its turn clock, 0: none) and ``private`` (watched by no one). Anything else in
it is kept as it is, for whoever made the table.

Plain Python (no Textual, no Rich, no Redis): ``store init`` runs without Redis's client.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from kc_tui.config.args import CliError
from kc_tui.engine import Rules
from kc_tui.i18n import _
from kc_tui.match.roster import Seat
from kc_tui.match.saves import save_bytes
from kc_tui.match.session import MatchSession
from kc_tui.net.cluster.opening import open_store
from kc_tui.net.server_store import token_hash
from kc_tui.net.store.tablestore import StoreError, TableStore
from kc_tui.net.table_service import new_token
from kc_tui.util.printable import one_line

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


def cluster_missing_text() -> str:
    """What a cluster command says when the ``cluster`` extra is not installed."""
    return _("this needs Redis and PostgreSQL's client libraries: install kings-corners[cluster]")


def shown_url(url: str) -> str:
    """``url`` as it may be shown: its password replaced by ``***``, on one line."""
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
        if parts.password is not None:
            host = parts.netloc.rpartition("@")[2]
            parts = parts._replace(netloc=f"{parts.username or ''}:***@{host}")
        return one_line(urlunsplit(parts), 200)
    except ValueError:
        return one_line(url, 200)


def open_checked(url: str) -> TableStore:
    """The store of the tables at ``url``, opened; :class:`CliError` (one line) for an address
    that is not a store's, a missing client library, or a store that cannot be opened."""
    scheme, sep, _rest = url.partition("://")
    if not url.strip() or (sep and scheme not in ("postgresql", "postgres", "sqlite")):
        raise CliError(
            _("not a store's address: {url} (postgresql://..., sqlite:///PATH or a file's path)").format(
                url=shown_url(url)
            )
        )
    try:
        return open_store(url)
    except ImportError:
        raise CliError(cluster_missing_text()) from None
    except StoreError as exc:
        raise store_problem(url, exc) from None


def store_problem(url: str, exc: BaseException) -> CliError:
    """What a command says of a store it could not use (one line, its password hidden)."""
    return CliError(
        # Translators: {url} is the store's address (its password hidden), {problem} why it cannot be used.
        _("the store at {url}: {problem}").format(
            url=shown_url(url), problem=one_line(str(exc).strip() or type(exc).__name__, 300)
        )
    )


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
    :class:`~kc_tui.net.store.tablestore.StoreError` when ``table`` exists or the store fails,
    :class:`~kc_tui.match.saves.SaveError` when its seats or rules could not be served again."""
    session = MatchSession.hosted(list(seats), rules, seed)
    tokens = {seat: new_token() for seat in session.human_seats}
    name = table if table is not None else new_table_id()
    kept: dict[str, Any] = {TURN_SECONDS: 0, PRIVATE: False}
    kept.update(record or {})
    save = save_bytes(session.to_dict(), compact=True)
    MatchSession.from_dict(json.loads(save), shared_log=True)  # a worker can serve it: SaveError if not
    store.create(name, kept, save, {seat: [token_hash(token)] for seat, token in tokens.items()})
    return name, tokens


__all__ = [
    "PRIVATE",
    "TABLE_ID_BYTES",
    "TURN_SECONDS",
    "cluster_missing_text",
    "new_table",
    "new_table_id",
    "open_checked",
    "private",
    "shown_url",
    "store_problem",
    "turn_seconds",
]
