"""The server of many tables (``kings-corners server``): one :class:`~kc_tui.net.listener.Listener`
on one port, the lobby socket (:mod:`kc_tui.net.lobby_socket`: its connections, sign-in and
requests), and a :class:`~kc_tui.net.table_service.ServedTable` for every table being played,
each kept in the store (:mod:`kc_tui.net.server_store`) after every move and brought back at the
same position when the server starts again. This module is the tables' lifecycle: started,
brought back, ended, served a while after their end, their seats' tokens, the lobby's events
carried out.

The hub owns the tables it plays: as it starts it claims every playing table of the store (each
at its epoch + 1), a table whose match starts is its own at once, and every position, record and
token hash of a playing table is written under its epoch. When a write is fenced (another
process of the server claimed the table since), the hub stops serving that table at once: its
clients are told the table is served by another process of the server now (their seats are
kept there; they connect again by themselves), and nothing more of it is written or sent here.

Paths (docs/PROTOCOL.md): ``/lobby`` the lobby (:mod:`kc_tui.net.lobby_schema`);
``/t/<table>/seat/<token>`` and ``/t/<table>/watch`` a table; ``GET /`` and an invite's link
``/i/<table>/<secret>`` one line of text saying how to open them; anything else 404.

The lobby's rules are :class:`~kc_tui.net.lobby.Lobby`'s (plain data): the lobby socket reads
the requests and asks the lobby; the hub carries out the events it answers in their order
(deltas to every lobby connection, rematch offers to their people, tables started, seats given
or freed, tables closed), keeping the lobby's record of every table it names. A private table
is watched by no one: its spectators' address is refused as an unknown table's is.

Seat tokens: a person's seat is opened by the token the hub sent in that person's ``start``;
the store keeps only its SHA-256, so after a restart the tokens the seats come back with still
open them, and a person signing in again is sent a fresh one (the older ones still work). The
served table itself is given tokens of its own that no one is sent: the hub checks the token a
client comes with and hands the connection over under the table's token.

Plain Python and asyncio (no Textual, no Rich). What fails is logged (the app's log), never
shown as a traceback, and the server goes on serving the rest.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from ssl import SSLContext
from typing import Any

from kc_tui.config import HUMAN
from kc_tui.engine import Rules, RulesError
from kc_tui.i18n import N_, _
from kc_tui.match.roster import Seat, default_name
from kc_tui.match.saves import SaveError, save_bytes
from kc_tui.match.session import MatchSession
from kc_tui.net import lobby_schema as ls
from kc_tui.net import schema
from kc_tui.net.accounts import Accounts
from kc_tui.net.listener import Endpoint, Listener
from kc_tui.net.lobby import (
    Broadcast,
    Close,
    Event,
    Free,
    Lobby,
    LobbyLimits,
    LobbyRecordError,
    Reseat,
    Start,
    Tell,
    shipped_ai_ratings,
)
from kc_tui.net.lobby_socket import LobbySocket
from kc_tui.net.logs import tell
from kc_tui.net.server_store import Fenced, ServerStore, StoreError, matches
from kc_tui.net.stand_ins import STAND_IN_KIND
from kc_tui.net.store.history import HistoryError, rebuild, row_of
from kc_tui.net.table_service import SEAT_PREFIX, WATCH, ServedTable, new_token
from kc_tui.util.printable import one_line

log = logging.getLogger(__name__)

#: What every client of a table is told when the server stops (its seat is kept: it comes back).
SERVER_CLOSED_TEXT = N_("the server stopped; your seat is kept: you'll be reconnected when it is back")
#: What a table's clients are told when the lobby closes it (everyone left it).
TABLE_CLOSED_TEXT = N_("the table was closed: everyone left it")
#: What a table's clients are told when another process of the server claimed it.
FENCED_TEXT = N_("this table is served by another process of the server now; your seat is kept there")
#: The think time of the AIs at a server's tables (milliseconds).
AI_THINK_MS = 1000
#: Seconds a finished table is still served (its last state, its spectators) before it closes.
END_LINGER = 300.0
#: The longest wait of the lobby's clock (quick play's fill, rematch offers lapsing) between two looks.
DUE_CHECK = 1.0


def root_text() -> str:
    """What ``GET /`` answers."""
    return _("This is a Kings Corners server: open it with 'kings-corners online ws://HOST:PORT'.")


def invite_text() -> str:
    """What a plain HTTP GET of an invite's link answers."""
    return _("This is an invite to a Kings Corners table: open it with 'kings-corners online <this link>'.")


def not_found_text() -> str:
    return _("Not found: this server has /lobby and its tables' /t/<table>/seat/<token> and /t/<table>/watch.")


def no_table_text() -> str:
    return _("There is no such table on this server (it may have ended).")


@dataclass(frozen=True, slots=True)
class HubSettings:
    """How a hub serves its tables: the AIs' pace, the stand-in's wait, the server's name."""

    ai_delay: float = 0.3
    round_pause: float = 1.5
    stand_in: float = 60.0
    stand_in_think_ms: int = 500
    ai_think_ms: int = AI_THINK_MS
    server_name: str = "kings-corners"


@dataclass(eq=False)
class LiveTable:
    """A table being played: its served table, who sits where (a person's key, None for an AI
    or a free seat), whether it is private (watched by no one), the seats' tokens this process
    sent (the only copies) and the hashes the store keeps of every token that opens a seat."""

    id: str
    served: ServedTable
    keys: list[str | None]
    private: bool = False
    sent: dict[int, str] = field(default_factory=dict)
    hashes: dict[int, list[bytes]] = field(default_factory=dict)
    ended: bool = False
    closer: asyncio.Task[None] | None = None

    def seat_of(self, token: str) -> int | None:
        """The seat ``token`` opens (every seat's hashes compared, in constant time)."""
        found: int | None = None
        for seat, hashes in self.hashes.items():
            if matches(token, hashes):
                found = seat
        return found


def table_route(live: LiveTable | None, rest: str) -> Endpoint | tuple[int, str]:
    """The endpoint of the path ``rest`` below a table (``seat/<token>``, ``watch``), or the
    status and line it is answered with (None, or closed: no such table)."""
    if live is None or live.served.closed:
        return HTTPStatus.NOT_FOUND, no_table_text()
    seat: int | None = None
    if rest.startswith(SEAT_PREFIX) and rest.count("/") == 1 and rest != SEAT_PREFIX:
        seat = live.seat_of(rest.removeprefix(SEAT_PREFIX))
        # Handed over under the served table's own token; a token no seat has gets the
        # table's bad-token answer.
        rest = SEAT_PREFIX + (live.served.tokens[seat] if seat is not None else "-")
    if live.private and seat is None:
        # A private table serves its seats' own addresses only: anything else (watching
        # it, a token no seat has) is answered as an unknown table's, not told it exists.
        return HTTPStatus.NOT_FOUND, no_table_text()
    refused = live.served.admits(rest)
    if refused is not None:
        return refused
    return live.served.endpoint(rest)


class Hub:
    """Many tables and their lobby on one port. See the module docs.

    ``store``: the open store (it stays the caller's to close); ``limits``: the lobby's;
    ``ssl``: TLS for the port; ``max_sockets``/``per_address``: the listener's limits;
    ``ai_ratings``: the AI kinds' ratings for quick play's fill (None: the shipped ones);
    ``status``: called with a plain line for whoever runs the server (tables brought back)."""

    def __init__(
        self,
        store: ServerStore,
        *,
        limits: LobbyLimits | None = None,
        settings: HubSettings | None = None,
        ssl: SSLContext | None = None,
        max_sockets: int = schema.MAX_CONNECTIONS,
        per_address: int | None = None,
        ai_ratings: Mapping[str, float] | None = None,
        status: Callable[[str], None] | None = None,
    ) -> None:
        self.store = store
        self.settings = settings or HubSettings()
        self.accounts = Accounts(store.db)
        self.limits = limits or LobbyLimits()
        self.ai_ratings = dict(ai_ratings) if ai_ratings is not None else shipped_ai_ratings()
        self.lobby = Lobby(self.limits, self.ai_ratings)
        self.server_id = self.accounts.server_id()
        self.tls = ssl is not None
        self.listener = Listener(
            self.route,
            ssl=ssl,
            server_name=self.settings.server_name,
            max_connections=max_sockets,
            per_address=per_address,
            status=status,
        )
        self._status = status
        self.tables: dict[str, LiveTable] = {}
        self.socket = LobbySocket(self, self.accounts, self.server_id, self._background)
        self.base = ""
        self._tasks: set[asyncio.Task[None]] = set()
        self._due_wake = asyncio.Event()
        self._clock: asyncio.Task[None] | None = None
        #: Lobby events waiting to be carried out, in order (one carrier at a time).
        self._events: list[Event] = []
        self._carrying = False
        self._closed = False

    # ------------------------------------------------------------------ running
    async def start(self, bind: str = "127.0.0.1", port: int = 0) -> int:
        """Bring back every unfinished table of the store, then listen; the bound port."""
        from kc_tui.net.hosting import base_url

        await self.restore()
        bound = await self.listener.start(bind, port)
        self.base = base_url(bind, bound, self.tls)
        self._clock = asyncio.create_task(self._due_loop(), name="lobby-clock")
        return bound

    async def close(self) -> None:
        """Stop: every table's clients are told the server stopped (their seats are kept, the
        saves stay), the lobby's connections are closed, then the port."""
        if self._closed:
            return
        self._closed = True
        if self._clock is not None:
            self._clock.cancel()
        for live in self.tables.values():
            if live.closer is not None:
                live.closer.cancel()
        await asyncio.gather(
            *(live.served.close(SERVER_CLOSED_TEXT) for live in self.tables.values()), return_exceptions=True
        )
        await self.socket.close(schema.ErrorMsg(schema.CLOSED, _(SERVER_CLOSED_TEXT)))
        await self.listener.close()
        for task in list(self._tasks):
            task.cancel()

    def _background(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _say(self, line: str) -> None:
        tell(log, self._status, line)

    # ------------------------------------------------------------------ paths
    def route(self, path: str) -> Endpoint | tuple[int, str]:
        """The endpoint of a WebSocket's path, or the status and line it is answered with."""
        if path == "/lobby":
            return self.socket
        if path in ("", "/"):
            return HTTPStatus.OK, root_text()
        parts = path.split("/")
        if len(parts) == 4 and parts[1] == "i" and parts[2] and parts[3]:
            return HTTPStatus.OK, invite_text()
        if len(parts) >= 4 and parts[1] == "t" and parts[2]:
            return table_route(self.tables.get(parts[2]), "/".join(parts[3:]))
        return HTTPStatus.NOT_FOUND, not_found_text()

    def _table_url(self, table: str) -> str:
        return f"{self.base}/t/{table}"

    # ------------------------------------------------------------------ the lobby's events
    def post(self, events: Iterable[Event]) -> None:
        """Queue the lobby's events (at once: their order is the order the lobby decided them)
        and carry them out on the loop."""
        self._events.extend(events)
        if not self._carrying and self._events:
            self._background(self._drain())

    async def carry_out(self, events: Iterable[Event]) -> None:
        """Queue the lobby's events and carry them out, in their order, behind those queued
        before them (when another task carries those out, this returns at once)."""
        self._events.extend(events)
        await self._drain()

    async def _drain(self) -> None:
        """Carry out the queued events in their order, then keep the record of every table they
        name; one task at a time."""
        if self._carrying:
            return
        self._carrying = True
        touched: list[str] = []
        try:
            while self._events:
                event = self._events.pop(0)
                touched.append(event.table)
                try:
                    await self._carry(event)
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception("a lobby event (%s) could not be carried out", type(event).__name__)
        finally:
            self._carrying = False
        for table in dict.fromkeys(touched):
            self._keep(table)

    async def _carry(self, event: Event) -> None:
        if isinstance(event, Broadcast):
            self.socket.send_all(event.message)
        elif isinstance(event, Tell):
            self.socket.tell(event.keys, event.message)
        elif isinstance(event, Start):
            await self._start_table(event)
        elif isinstance(event, Reseat):
            live = self.tables.get(event.table)
            if live is not None:
                live.keys[event.seat] = event.key
                self._new_token(live, event.seat, only=True)
                plan = self.lobby.plan(event.table)
                name = None if plan is None else plan.seats[event.seat].name
                live.served.set_token(event.seat, new_token(), name)
                self._send_start(live, event.seat, event.key)
        elif isinstance(event, Free):
            live = self.tables.get(event.table)
            if live is not None:
                self._free_seat(live, event.seat)
        elif isinstance(event, Close):
            live = self.tables.pop(event.table, None)
            if live is not None:
                if live.closer is not None:
                    live.closer.cancel()
                await live.served.close(TABLE_CLOSED_TEXT)

    def _keep(self, table: str) -> None:
        """Keep the lobby's record of ``table`` in the store (none: its row goes, unless its
        finished table is still served a while)."""
        record = self.lobby.record(table)
        try:
            if record is not None:
                self.store.put_table(table, record, str(record.get("phase", ls.OPEN)))
            elif table not in self.tables:
                self.store.forget(table)
        except Fenced:
            self._fenced(table)
        except Exception:
            log.exception("table %s's record could not be stored", table)

    # ------------------------------------------------------------------ tables
    def _seats(self, start: Start) -> list[Seat]:
        """The match's seats of a table's plan: each person by their name, each AI by the name
        the lobby lists it under."""
        taken = [s.name for s in start.seats if s.name]
        seats: list[Seat] = []
        for planned in start.seats:
            if planned.kind == HUMAN:
                name = planned.name or default_name(HUMAN, taken)
                if not planned.name:
                    taken.append(name)
                seats.append(Seat(name, HUMAN))
            else:
                seats.append(
                    Seat(planned.name or default_name(planned.kind, taken), planned.kind, self.settings.ai_think_ms)
                )
        return seats

    def _serve(self, table: str, session: MatchSession, plan: Start) -> LiveTable:
        """The table of ``plan`` served from ``session`` (not started yet), its saves going to the store."""

        follows = False  # whether the row written last is the save before this one

        def sink(data: bytes) -> str | None:
            nonlocal follows
            row, snapshot = row_of(session, data, follows)
            problem = self._write(table, row, snapshot=snapshot)
            follows = problem is None
            return problem

        session.save_sink = sink
        session.keep_save_at_end = True
        served = ServedTable(
            session,
            table_id=table,
            stand_in=self.settings.stand_in,
            ai_delay=self.settings.ai_delay,
            round_pause=self.settings.round_pause,
            stand_in_think_ms=self.settings.stand_in_think_ms,
            server_name=self.settings.server_name,
            turn_seconds=float(plan.turn_seconds),
            on_change=self._table_changed,
            on_seat_freed=self._seat_freed,
        )
        live = LiveTable(table, served, [s.key for s in plan.seats], plan.private)
        live.hashes = self.store.token_hashes(table)
        self.tables[table] = live
        return live

    async def _start_table(self, start: Start) -> None:
        """Start the match of a full table: its first save stored before any state is sent,
        served, and each person sent their seat's address."""
        try:
            rules = Rules.from_dict(dict(start.rules)).with_(target=start.target)
        except (RulesError, TypeError, ValueError) as exc:
            log.error("table %s cannot start: its rules are not usable (%s)", start.table, exc)
            self._events.extend(self.lobby.close(start.table, time.time()))
            return
        session = MatchSession.hosted(self._seats(start), rules)
        record = self.lobby.record(start.table) or {}
        try:  # its first position, before anyone is shown it
            self.store.start(start.table, record, save_bytes(session.to_dict(), compact=True))
        except (Fenced, StoreError) as exc:
            log.error("table %s cannot start: its first position could not be stored (%s)", start.table, exc)
            self._events.extend(self.lobby.close(start.table, time.time()))
            return
        live = self._serve(start.table, session, start)
        for seat, _key in start.people:
            self._new_token(live, seat, only=True)
        for seat, planned in enumerate(start.seats):
            if planned.kind == HUMAN and planned.key is None:  # a seat left free: the stand-in plays it
                live.served.stand_in_now(session.names[seat])
        await live.served.start()
        for seat, key in start.people:
            self._send_start(live, seat, key)

    def _new_token(self, live: LiveTable, seat: int, *, only: bool = False) -> str:
        """A new token for ``seat`` (``only``: the seat's one token from now on; else the older
        ones still open it), its hash kept, the token itself only in memory."""
        token = new_token()
        try:
            if only:
                self.store.set_token(live.id, seat, token)
            else:
                self.store.add_token(live.id, seat, token)
        except Fenced:
            self._fenced(live.id)
        live.hashes = self.store.token_hashes(live.id)
        live.sent[seat] = token
        return token

    def _start_message(self, live: LiveTable, seat: int) -> ls.StartMsg:
        """The ``start`` of ``seat``: its address, with the token this process sent it (a new
        one when none was sent yet)."""
        token = live.sent.get(seat) or self._new_token(live, seat)
        return ls.StartMsg(live.id, seat, f"{self._table_url(live.id)}/seat/{token}")

    def _send_start(self, live: LiveTable, seat: int, key: str) -> None:
        self.socket.tell([key], self._start_message(live, seat))

    def _free_seat(self, live: LiveTable, seat: int) -> None:
        """A person's seat given up or freed: the tokens it was opened with are refused from now
        on (its connection is closed) and the stand-in plays it."""
        try:
            self.store.clear_tokens(live.id, seat)
        except Fenced:
            self._fenced(live.id)
        live.hashes = self.store.token_hashes(live.id)
        live.sent.pop(seat, None)
        live.keys[seat] = None
        if not live.ended:
            live.served.set_token(seat, new_token())
            live.served.stand_in_now(live.served.session.names[seat])

    def _table_changed(self, served: ServedTable) -> None:
        live = self.tables.get(served.table_id)
        if live is None or live.ended:
            return
        if served.over:
            self._end(live)
            return
        events = self.lobby.changed(
            live.id,
            round=served.session.match.number,
            spectators=served.spectators,
            connected=served.connected,
            now=time.time(),
        )
        self.post(events)

    def _seat_freed(self, served: ServedTable, seat: int) -> None:
        """The clock freed a person's seat (their turns ran out, again and again)."""
        self.post(self.lobby.seat_freed(served.table_id, seat, time.time()))

    def _write(self, table: str, data: bytes, *, snapshot: bool) -> str | None:
        """The save sink of a served table: its row (a move row, or a snapshot: the whole save,
        :func:`~kc_tui.net.store.history.row_of`) committed under the hub's epoch; None once it
        is, else why not in one line (the table holds and tries again)."""
        try:
            self.store.save(table, data, snapshot=snapshot)
        except Fenced:
            self._fenced(table)
            return _(FENCED_TEXT)
        except StoreError as exc:
            log.error("the position of table %s could not be stored: %s", table, exc)
            return one_line(str(exc), 200)
        return None

    def _fenced(self, table: str) -> None:
        """Another process of the server claimed ``table`` (its epoch in the store moved on):
        this hub stops serving it at once, its clients told where their seats are."""
        live = self.tables.pop(table, None)
        if live is None:
            return
        log.warning("table %s was claimed by another process of the server: it is not served here", table)
        live.ended = True
        if live.closer is not None:
            live.closer.cancel()
        self._background(live.served.close(FENCED_TEXT))

    def _end(self, live: LiveTable) -> None:
        """A table's match is over: its people's results counted, the listing ended, the rematch
        offered; the table is still served a while (its last state) and then forgotten."""
        live.ended = True
        try:  # never served again, never counted twice: ended before its results are counted
            self.store.end(live.id)
        except Fenced:
            self._fenced(live.id)
            return
        except Exception:
            log.exception("table %s could not be marked ended", live.id)
        session = live.served.session
        match = session.match
        kinds: list[str | None] = []
        for key, seat in zip(live.keys, session.seats, strict=True):
            kinds.append(None if key is not None else (STAND_IN_KIND if seat.is_human else seat.kind))
        try:
            if any(key is not None for key in live.keys):
                self.accounts.record_match(
                    list(live.keys), [float(x) for x in match.totals], not match.chips_scoring, kinds
                )
        except Exception:
            log.exception("table %s's results could not be recorded", live.id)
        self.post(self.lobby.ended(live.id, time.time()))
        live.closer = asyncio.create_task(self._linger(live), name=f"ended {live.id}")

    async def _linger(self, live: LiveTable) -> None:
        await asyncio.sleep(END_LINGER)
        await live.served.close(SERVER_CLOSED_TEXT)
        if self.tables.get(live.id) is live:
            del self.tables[live.id]
        if self.lobby.record(live.id) is None:
            with contextlib.suppress(Exception):
                self.store.forget(live.id)

    # ------------------------------------------------------------------ restart
    def _restored_lobby(self, records: Sequence[Mapping[str, Any]]) -> Lobby:
        """The lobby of ``records``, each checked on its own: one that is not valid is skipped
        (logged), the rest restored."""
        good: list[Mapping[str, Any]] = []
        for record in records:
            try:
                Lobby.restore(self.limits, self.ai_ratings, [record])
            except LobbyRecordError as exc:
                log.error("a table's record in the store is not usable: %s", exc)
                continue
            good.append(record)
        return Lobby.restore(self.limits, self.ai_ratings, good, time.time())

    async def restore(self) -> None:
        """Every unfinished table of the store back: the lobby's records, and each match being
        played claimed (the hub owns it from now on, at its epoch + 1), rebuilt from its last
        position and served at the same id."""
        kept = (ls.OPEN, ls.PLAYING)
        for row in self.store.rows():
            if row.phase not in kept:
                self.store.forget(row.id)
        claimed = {table.id: table for table in self.store.claim_all()}
        waiting = self.store.rows(ls.OPEN)
        for row in self.store.rows(ls.PLAYING):
            if row.id not in claimed:  # no position to serve it from (logged by the claim)
                self._drop_stored(row.id, row.epoch)
        records = [row.record for row in waiting] + [table.record for table in claimed.values()]
        self.lobby = self._restored_lobby(records)
        for row in waiting:
            if self.lobby.plan(row.id) is None:
                self.store.forget(row.id)  # its record was not usable
        for table in claimed.values():
            plan = self.lobby.plan(table.id)
            if plan is None:
                self._drop_stored(table.id, table.epoch)  # ended, or its record was not usable
                continue
            if self.lobby.phase(table.id) != ls.PLAYING:
                continue
            try:
                session = rebuild(table.snapshot, table.entries)
            except HistoryError as exc:
                log.error("table %s cannot be served again: %s", table.id, exc)
                self.lobby.close(table.id, time.time())
                self._drop_stored(table.id, table.epoch)
                continue
            except (SaveError, ValueError) as exc:
                log.error("table %s cannot be served again: its save is not usable (%s)", table.id, exc)
                self.lobby.close(table.id, time.time())
                self._drop_stored(table.id, table.epoch)
                continue
            if session.match.over:
                self.lobby.close(table.id, time.time())
                self._drop_stored(table.id, table.epoch)
                continue
            live = self._serve(table.id, session, plan)
            for seat, planned in enumerate(plan.seats):
                if planned.kind == HUMAN and planned.key is None:
                    live.served.stand_in_now(session.names[seat])
            await live.served.start()
            log.info("table %s is served again at round %d", table.id, session.match.number)

    def _drop_stored(self, table: str, epoch: int) -> None:
        """A playing table of the store that cannot be served again: ended and forgotten."""
        try:
            self.store.drop(table, epoch)
        except (Fenced, StoreError) as exc:
            log.error("table %s could not be removed from the store: %s", table, exc)

    # ------------------------------------------------------------------ the lobby's clock
    async def _due_loop(self) -> None:
        """Quick play's fill and the rematch offers' lapse, when they come due."""
        while not self._closed:
            try:
                await self.carry_out(self.lobby.due(time.time()))
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the lobby's clock failed; it goes on")
            self._due_wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._due_wake.wait(), self._next_due())

    def _next_due(self) -> float:
        """Seconds until the lobby's next fill may come due (at most :data:`DUE_CHECK`)."""
        now = time.time()
        soonest = DUE_CHECK
        for listing in self.lobby.listings(now):
            if listing.fill_in is not None:
                soonest = min(soonest, max(0.05, float(listing.fill_in)))
        return soonest

    # ------------------------------------------------------------------ asked by the lobby socket
    def listings(self, now: float) -> tuple[ls.TableListing, ...]:
        return self.lobby.listings(now)

    def invite_link(self, table: str, secret: str) -> str:
        return f"{self.base}/i/{table}/{secret}"

    def watch_address(self, table: str) -> str | None:
        """The spectators' address of ``table``: it is served, public, and listed or ended."""
        live = self.tables.get(table)
        if live is None or live.served.closed or live.private:
            return None
        if not (self.lobby.listed(table) or live.ended):
            return None
        return f"{self._table_url(live.id)}/{WATCH}"

    def keep(self, table: str) -> None:
        self._keep(table)

    def quick_asked(self) -> None:
        self._due_wake.set()

    def welcome_back(self, key: str) -> list[Any]:
        """The seats the person ``key`` holds, told again (they signed in on a new connection):
        ``joined`` for every open table, ``start`` (their seat's address) for every one that plays."""
        told: list[Any] = []
        for table, seat in self.lobby.seats_of(key):
            live = self.tables.get(table)
            if live is None:
                told.append(ls.JoinedMsg(None, table, seat))
            elif not live.ended and live.keys[seat] == key:
                told.append(self._start_message(live, seat))
        return told


__all__ = [
    "END_LINGER",
    "FENCED_TEXT",
    "SERVER_CLOSED_TEXT",
    "Hub",
    "HubSettings",
    "LiveTable",
    "invite_text",
    "no_table_text",
    "not_found_text",
    "root_text",
    "table_route",
]
