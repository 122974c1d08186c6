"""The lobby a gateway serves (``/lobby``): every public table of the cluster, as its owner lists
it in Redis, kept current from the listings' channel, to browse and to watch.

A worker writes each public table's listing (:func:`listed`: the lobby's own
:class:`~kc_tui.net.lobby_schema.TableListing` on the wire: its rules, seats, names, who is
connected, round, spectators; never a card, a token or a secret) under ``kc:l:TABLE`` and
publishes it on ``kc:listings`` (:mod:`.coord`). :class:`ClusterListing` reads them all once,
then follows the channel; after the subscription was made again (changes may have been missed)
it reads them all again and tells every lobby connection the whole listing. Each is read
strictly (:func:`listing_of`): what Redis holds is data, and one that cannot be read is left out
(logged), never shown.

The lobby socket (:class:`~kc_tui.net.lobby_socket.LobbySocket`) serves it without accounts:
the listing, its deltas and ``watch`` (a table's spectators' address through this gateway); a
sign-in or a seat is refused with one line (its tables are made with ``kings-corners store
table``, whose links seat their players). Plain Python and asyncio.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

from kc_tui.engine import Rules
from kc_tui.engine.rules import MAX_PLAYERS, MIN_PLAYERS
from kc_tui.net.cluster.coord import Coordinator
from kc_tui.net.lobby import GONE_CLOSED, GONE_ENDED
from kc_tui.net.lobby_schema import ENDED, PLAYING, ListedSeat, LobbyMsg, TableGoneMsg, TableListing, TableMsg
from kc_tui.net.schema import MAX_STRING
from kc_tui.net.table_service import ServedTable
from kc_tui.net.wire import WireError, object_decoder, to_wire

log = logging.getLogger(__name__)

#: How long the follower waits before reading the listings again after Redis failed (seconds).
FOLLOW_PAUSE = 1.0
#: How often every listing is read again (seconds): a listing lapses with its worker's lease
#: unannounced (a worker killed), and leaves the lobby at the next reading.
READ_AGAIN = 5.0

_READ = object_decoder(TableListing, True, MAX_STRING)


def listed(served: ServedTable) -> dict[str, Any]:
    """The listing of a served public table, as a worker writes it to Redis (the lobby's
    :class:`TableListing` on the wire)."""
    session = served.session
    seats = tuple(
        ListedSeat(seat.kind, seat.name, is_on) for seat, is_on in zip(session.seats, served.connected, strict=True)
    )
    listing = TableListing(
        table=served.table_id,
        phase=ENDED if served.over else PLAYING,
        rules=session.match.rules.to_dict(),
        target=session.match.rules.target,
        seats=seats,
        spectators=served.spectators,
        quick=False,
        turn_seconds=max(0, round(served.turn_seconds or 0)),
        round=session.match.number,
    )
    return to_wire(listing)


def listing_of(table: str, data: Any) -> TableListing | None:
    """``data`` (a listing as Redis holds it) read strictly as ``table``'s listing; None (logged)
    when it is not one: a field missing, unknown or of another type, a string too long, rules
    that are not rules, fewer or more seats than a table has, another table's id, or a phase
    other than playing or ended."""
    try:
        listing: TableListing = _READ(data, "listing")
        Rules.from_dict(listing.rules)
    except (WireError, ValueError, TypeError) as exc:
        log.warning("the listing of table %.40r cannot be read: %s", table, str(exc)[:200])
        return None
    if not MIN_PLAYERS <= len(listing.seats) <= MAX_PLAYERS:
        log.warning("the listing of table %.40r has %d seats", table, len(listing.seats))
        return None
    if listing.table != table or listing.phase not in (PLAYING, ENDED):
        log.warning("the listing of table %.40r is not that table's", table)
        return None
    return listing


class ClusterListing:
    """The public tables of the cluster, followed (see the module docs). ``base``: this
    gateway's address (``ws://HOST:PORT``) as its clients reach it; ``tell``: hands a message
    to every lobby connection following the listing."""

    def __init__(self, coord: Coordinator, base: str) -> None:
        self.coord = coord
        self.base = base.rstrip("/")
        self.tell: Callable[[Any], None] | None = None
        self._tables: dict[str, TableListing] = {}

    # ------------------------------------------------------------------ asked by the lobby socket
    def listings(self, now: float) -> tuple[TableListing, ...]:
        """Every table being played, by id (ended ones leave the listing)."""
        return tuple(t for _, t in sorted(self._tables.items()) if t.phase == PLAYING)

    def watch_address(self, table: str) -> str | None:
        """The spectators' address of a listed table, through this gateway."""
        if table not in self._tables:
            return None
        return f"{self.base}/t/{table}/watch"

    # ------------------------------------------------------------------ following Redis
    async def follow(self) -> None:
        """Read every listing, then follow their changes, until cancelled (Redis down: it tries
        again every :data:`FOLLOW_PAUSE` seconds, the listing kept as it was)."""
        while True:
            try:
                changes = self.coord.listing_changes()
                await self.read_all()
                async for change in changes:
                    if change is None:
                        await self.read_all()
                    else:
                        self.change(*change)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.info("the tables' listings cannot be followed now: %s", str(exc)[:200])
            await asyncio.sleep(FOLLOW_PAUSE)

    async def read_often(self) -> None:
        """Read every listing again each :data:`READ_AGAIN` seconds, until cancelled."""
        while True:
            await asyncio.sleep(READ_AGAIN)
            try:
                await self.read_all()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.info("the tables' listings cannot be read now: %s", str(exc)[:200])

    async def read_all(self) -> None:
        """Every listing read again; every lobby connection told the whole listing when it changed."""
        found = await self.coord.listings()
        tables: dict[str, TableListing] = {}
        for table, data in found.items():
            listing = listing_of(table, data)
            if listing is not None:
                tables[table] = listing
        if tables != self._tables:
            self._tables = tables
            self._tell(LobbyMsg(self.listings(time.time())))

    def change(self, table: str, data: Any) -> None:
        """One listing written (``data``) or removed (None): the lobby connections told."""
        listing = None if data is None else listing_of(table, data)
        before = self._tables.pop(table, None)
        if listing is not None and listing.phase == PLAYING:
            self._tables[table] = listing
            if listing != before:
                self._tell(TableMsg(listing))
            return
        if listing is not None:  # ended: watched until its owner lets it go
            self._tables[table] = listing
        if before is not None and before.phase == PLAYING:
            self._tell(TableGoneMsg(table, GONE_ENDED if listing is not None else GONE_CLOSED))

    def _tell(self, message: Any) -> None:
        if self.tell is not None:
            self.tell(message)


__all__ = ["FOLLOW_PAUSE", "READ_AGAIN", "ClusterListing", "listed", "listing_of"]
