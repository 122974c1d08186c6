"""The server of many tables (``kings-corners server``): one :class:`~kc_tui.net.listener.Listener`
on one port, the lobby socket, sign-in, and a :class:`~kc_tui.net.table_service.ServedTable` for
every table being played, each kept in the store (:mod:`kc_tui.net.server_store`) after every
move and brought back at the same position when the server starts again.

Paths (docs/PROTOCOL.md): ``/lobby`` the lobby (:mod:`kc_tui.net.lobby_schema`);
``/t/<table>/seat/<token>`` and ``/t/<table>/watch`` a table; ``GET /`` and an invite's link
``/i/<table>/<secret>`` one line of text saying how to open them; anything else 404.

The lobby's rules are :class:`~kc_tui.net.lobby.Lobby`'s (plain data): the hub reads the
requests, asks the lobby, sends what it answers, starts the tables it says are full and ends
them. Who a person is: :mod:`kc_tui.net.identity` (the challenge signed) and
:class:`~kc_tui.net.accounts.Accounts` (their name and rating).

Seat tokens: a person's seat is opened by the token the hub sent in that person's ``start``;
the store keeps only its SHA-256, so after a restart the tokens the seats come back with still
open them, and a person signing in again is sent a fresh one (the older ones still work). The
served table itself is given tokens of its own that no one is sent: the hub checks the token a
client comes with and hands the connection over under the table's token.

Plain Python and asyncio (no Textual, no Rich). Nothing goes wrong loudly: what fails is logged
(the app's log) and the server goes on serving the rest.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from http import HTTPStatus
from ssl import SSLContext
from typing import Any

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from kc_tui.config import HUMAN
from kc_tui.engine import Rules, RulesError
from kc_tui.i18n import N_, _
from kc_tui.match.roster import Seat, default_name
from kc_tui.match.saves import SaveError
from kc_tui.match.session import MatchSession
from kc_tui.net import lobby_schema as ls
from kc_tui.net import schema
from kc_tui.net.accounts import Accounts, NameTaken
from kc_tui.net.connection import CLOSE_GOING_AWAY, CLOSE_POLICY, Connection
from kc_tui.net.identity import challenge_bytes, new_nonce, verify
from kc_tui.net.listener import Endpoint, Listener
from kc_tui.net.lobby import Lobby, LobbyLimits, Person, Refusal, Seating, Start
from kc_tui.net.protocol import parse_lobby_client, write
from kc_tui.net.server_store import ServerStore, matches
from kc_tui.net.table_service import SEAT_PREFIX, WATCH, ServedTable, new_token

log = logging.getLogger(__name__)

#: What every client of a table is told when the server stops (its seat is kept: it comes back).
SERVER_CLOSED_TEXT = N_("the server stopped; your seat is kept: you'll be reconnected when it is back")
#: The think time of the AIs at a server's tables (milliseconds).
AI_THINK_MS = 1000
#: Seconds a finished table is still served (its last state, its spectators) before it closes.
END_LINGER = 300.0
#: The longest wait of the quick play's check between two looks (seconds).
FILL_CHECK = 1.0
#: How long the closing waits for the lobby's connections to be told.
CLOSE_WAIT = 2.0


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
    """How a hub serves its tables: the AIs' pace, the stand-in's wait, the quick tables' clock."""

    ai_delay: float = 0.3
    round_pause: float = 1.5
    stand_in: float = 60.0
    stand_in_think_ms: int = 500
    ai_think_ms: int = AI_THINK_MS
    server_name: str = "kings-corners"


@dataclass(eq=False)
class LiveTable:
    """A table being played: its served table, who sits where (a person's key, None for an AI),
    and the seats' tokens: those this process sent (the only copies), the hashes the store
    keeps, and the served table's own."""

    id: str
    served: ServedTable
    keys: tuple[str | None, ...]
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


@dataclass(eq=False)
class LobbyPeer:
    """One connection to the lobby: its connection (queue, rate, refusals), its challenge's
    nonce, and who signed in on it."""

    conn: Connection
    nonce: str = ""
    hello: bool = False
    person: Person | None = None


class _LobbyEndpoint:
    __slots__ = ("hub",)

    def __init__(self, hub: Hub) -> None:
        self.hub = hub

    async def handle(self, ws: ServerConnection) -> None:
        await self.hub.serve_lobby(ws)


class Hub:
    """Many tables and their lobby on one port. See the module docs.

    ``store``: the open store (the hub's, until :meth:`close`); ``limits``: the lobby's limits;
    ``ssl``: TLS for the port; ``max_sockets``/``per_address``: the listener's;
    ``quick_turn_seconds``: the clock of quick play's tables."""

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
        self.lobby = Lobby(limits or LobbyLimits(), ai_ratings if ai_ratings is not None else _ai_ratings())
        self.server_id = store.server_id()
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
        self.peers: set[LobbyPeer] = set()
        self.base = ""
        self._tasks: set[asyncio.Task[None]] = set()
        self._fill_wake = asyncio.Event()
        self._filler: asyncio.Task[None] | None = None
        self._closed = False

    # ------------------------------------------------------------------ running
    async def start(self, bind: str = "127.0.0.1", port: int = 0, *, host_name: str | None = None) -> int:
        """Bring back every unfinished table of the store, then listen; the bound port."""
        await self.restore()
        bound = await self.listener.start(bind, port)
        from kc_tui.net.hosting import base_url

        self.base = base_url(host_name or bind, bound, self.tls)
        self._filler = asyncio.create_task(self._fill_loop(), name="quick-fill")
        return bound

    async def close(self) -> None:
        """Stop: every table's clients are told the server stopped (their seats are kept, the
        saves stay), the lobby's connections are closed, then the port."""
        if self._closed:
            return
        self._closed = True
        if self._filler is not None:
            self._filler.cancel()
        for live in list(self.tables.values()):
            if live.closer is not None:
                live.closer.cancel()
        await asyncio.gather(
            *(live.served.close(SERVER_CLOSED_TEXT) for live in self.tables.values()), return_exceptions=True
        )
        told = [peer.conn for peer in self.peers if not peer.conn.closing]
        for conn in told:
            conn.send(write(schema.ErrorMsg(schema.CLOSED, _(SERVER_CLOSED_TEXT))))
            conn.close(CLOSE_GOING_AWAY, schema.CLOSED)
        if told:
            with contextlib.suppress(Exception):
                await asyncio.wait([asyncio.ensure_future(c.ws.wait_closed()) for c in told], timeout=CLOSE_WAIT)
        await self.listener.close()
        for task in list(self._tasks):
            task.cancel()

    def _background(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _say(self, line: str) -> None:
        log.info("%s", line)
        if self._status is not None:
            try:
                self._status(line)
            except Exception:
                log.exception("the status line could not be shown")

    # ------------------------------------------------------------------ paths
    def route(self, path: str) -> Endpoint | tuple[int, str]:
        """The endpoint of a WebSocket's path, or the status and line it is answered with."""
        if path == "/lobby":
            return _LobbyEndpoint(self)
        if path in ("", "/"):
            return HTTPStatus.OK, root_text()
        parts = path.split("/")
        if len(parts) == 4 and parts[1] == "i" and parts[2] and parts[3]:
            return HTTPStatus.OK, invite_text()
        if len(parts) >= 4 and parts[1] == "t" and parts[2]:
            live = self.tables.get(parts[2])
            if live is None or live.served.closed:
                return HTTPStatus.NOT_FOUND, no_table_text()
            rest = "/".join(parts[3:])
            if rest.startswith(SEAT_PREFIX):
                seat = live.seat_of(rest.removeprefix(SEAT_PREFIX))
                if seat is not None:  # handed over under the served table's own token
                    rest = SEAT_PREFIX + live.served.tokens[seat]
                elif rest.count("/") == 1 and rest != SEAT_PREFIX:
                    rest = SEAT_PREFIX + "-"  # a token no seat has: the table answers bad-token
            refused = live.served.admits(rest)
            if refused is not None:
                return refused
            return live.served.endpoint(rest)
        return HTTPStatus.NOT_FOUND, not_found_text()

    # ------------------------------------------------------------------ tables
    def _table_url(self, table: str) -> str:
        return f"{self.base}/t/{table}"

    def _seats(self, start: Start) -> list[Seat]:
        """The match's seats of a table's plan: each person by their name, each AI by its kind's."""
        taken = [name for name in start.names if name]
        seats: list[Seat] = []
        for kind, name in zip(start.kinds, start.names, strict=True):
            if kind == HUMAN:
                seats.append(Seat(name or default_name(HUMAN, taken), HUMAN))
            else:
                made = default_name(kind, taken)
                taken.append(made)
                seats.append(Seat(made, kind, self.settings.ai_think_ms))
        return seats

    def _sink(self, table: str) -> Callable[[bytes], str | None]:
        def keep(data: bytes) -> str | None:
            return self.store.save(table, data)

        return keep

    def _serve_table(self, table: str, session: MatchSession, keys: Sequence[str | None], turn_seconds: int) -> LiveTable:
        session.save_sink = self._sink(table)
        session.keep_save_at_end = True
        served = ServedTable(
            session,
            table_id=table,
            stand_in=self.settings.stand_in,
            ai_delay=self.settings.ai_delay,
            round_pause=self.settings.round_pause,
            stand_in_think_ms=self.settings.stand_in_think_ms,
            server_name=self.settings.server_name,
            turn_seconds=float(turn_seconds),
            on_change=self._table_changed,
            on_seat_freed=self._seat_freed,
        )
        live = LiveTable(table, served, tuple(keys))
        live.hashes = self.store.token_hashes(table)
        self.tables[table] = live
        return live

    async def start_table(self, start: Start) -> None:
        """Start the match of a full table: saved (its first save stored before any state is
        sent), served, listed as playing, and each person sent their seat's address."""
        try:
            rules = Rules.from_dict(dict(start.rules)).with_(target=start.target)
        except (RulesError, TypeError, ValueError) as exc:
            log.error("table %s cannot start: its rules are not usable (%s)", start.table, exc)
            self._broadcast(self.lobby.ended(start.table))
            return
        session = MatchSession.hosted(self._seats(start), rules)
        self.store.put_table(start.table, self._record(start.table), ls.PLAYING)
        live = self._serve_table(start.table, session, start.keys, start.turn_seconds)
        session.save()
        for seat, key in enumerate(start.keys):
            if key is not None:
                self._new_token(live, seat)
        await live.served.start()
        self._broadcast(self.lobby.started(start.table))
        for seat, key in enumerate(start.keys):
            if key is not None:
                self._send_start(live, seat, key)

    def _record(self, table: str) -> dict[str, Any]:
        return dict(self.lobby.record(table))

    def _new_token(self, live: LiveTable, seat: int, *, replace_old: bool = False) -> str:
        token = new_token()
        if replace_old:
            self.store.set_token(live.id, seat, token)
        else:
            self.store.add_token(live.id, seat, token)
        live.hashes = self.store.token_hashes(live.id)
        live.sent[seat] = token
        return token

    def _send_start(self, live: LiveTable, seat: int, key: str) -> None:
        token = live.sent.get(seat) or self._new_token(live, seat)
        message = write(ls.StartMsg(live.id, seat, f"{self._table_url(live.id)}/seat/{token}"))
        for peer in self._peers_of(key):
            peer.conn.send(message)

    def _table_changed(self, served: ServedTable) -> None:
        live = self.tables.get(served.table_id)
        if live is None or live.ended:
            return
        if served.over:
            self._end(live)
            return
        self._broadcast(
            self.lobby.changed(
                live.id,
                connected=tuple(served.connected),
                spectators=served.spectators,
                round=served.session.match.number,
            )
        )

    def _seat_freed(self, served: ServedTable, seat: int) -> None:
        """The clock freed a person's seat (three turns timed out): an AI plays it, the lobby lists
        it free, and the token it was opened with opens it no longer."""
        live = self.tables.get(served.table_id)
        if live is None:
            return
        key = live.keys[seat] if seat < len(live.keys) else None
        self._free_seat(live, seat)
        if key is not None:
            self._broadcast(self.lobby.leave(self._person_of(key), live.id, time.time()))

    def _free_seat(self, live: LiveTable, seat: int) -> None:
        self.store.clear_tokens(live.id, seat)
        live.hashes = self.store.token_hashes(live.id)
        live.sent.pop(seat, None)
        live.served.set_token(seat, new_token())
        live.served.stand_in_now(live.served.session.names[seat])
        keys = list(live.keys)
        keys[seat] = None
        live.keys = tuple(keys)

    def _end(self, live: LiveTable) -> None:
        """A table's match is over: the people's results counted, the listing ended, the rematch
        offered; the table is still served a while (its last state) and then forgotten."""
        live.ended = True
        match = live.served.session.match
        seats = live.served.session.seats
        try:
            self.accounts.record_match(
                list(live.keys),
                [float(x) for x in match.totals],
                not match.chips_scoring,
                [None if s.is_human else s.kind for s in seats],
            )
        except Exception:
            log.exception("table %s's results could not be recorded", live.id)
        with contextlib.suppress(Exception):
            self.store.set_phase(live.id, ls.ENDED)
        self._broadcast(self.lobby.ended(live.id))
        live.closer = asyncio.create_task(self._linger(live), name=f"ended {live.id}")

    async def _linger(self, live: LiveTable) -> None:
        await asyncio.sleep(END_LINGER)
        await live.served.close(SERVER_CLOSED_TEXT)
        self.tables.pop(live.id, None)
        with contextlib.suppress(Exception):
            self.store.forget(live.id)

    # ------------------------------------------------------------------ restart
    async def restore(self) -> None:
        """Every unfinished table of the store back: the lobby's records, and each match being
        played rebuilt from its save at the same position and served at the same id."""
        stored = self.store.tables(ls.OPEN, ls.PLAYING)
        self.lobby.restore([t.record for t in stored], time.time())
        for kept in stored:
            if kept.phase != ls.PLAYING:
                continue
            try:
                if kept.save is None:
                    raise SaveError("no save was kept")
                doc = json.loads(kept.save)
                session = MatchSession.from_dict(doc, shared_log=True)
            except (SaveError, ValueError) as exc:
                log.error("table %s cannot be served again: its save is not usable (%s)", kept.id, exc)
                self._broadcast(self.lobby.ended(kept.id))
                continue
            start = self.lobby.plan(kept.id)
            live = self._serve_table(kept.id, session, start.keys, start.turn_seconds)
            await live.served.start()
            self._say(f"table {kept.id} is served again at round {session.match.number}")

    # ------------------------------------------------------------------ quick play's fill
    async def _fill_loop(self) -> None:
        while not self._closed:
            try:
                for start in self.lobby.due(time.time()):
                    await self.start_table(start)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("quick play's fill failed; tried again")
            self._fill_wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._fill_wake.wait(), FILL_CHECK)

    # ------------------------------------------------------------------ the lobby socket
    def _peers_of(self, key: str) -> list[LobbyPeer]:
        return [p for p in self.peers if p.person is not None and p.person.key == key]

    def _person_of(self, key: str) -> Person:
        for peer in self._peers_of(key):
            assert peer.person is not None
            return peer.person
        known = self.accounts.person(key)
        return Person(key, known.name if known is not None else "", known.rating if known is not None else 0.0)

    def _broadcast(self, events: Iterable[Any]) -> None:
        """Send the lobby's events, in order: a rematch's offer to its people, the rest to every
        connection that said hello."""
        for event in events:
            text = write(event.message)
            keys = event.to
            for peer in list(self.peers):
                if not peer.hello:
                    continue
                if keys is None or (peer.person is not None and peer.person.key in keys):
                    peer.conn.send(text)

    async def serve_lobby(self, ws: ServerConnection) -> None:
        peer = LobbyPeer(Connection(ws, False, self._background))
        self.peers.add(peer)
        writer = asyncio.create_task(peer.conn.write_out(), name="lobby-writer")
        try:
            if await self._lobby_hello(peer):
                async for message in ws:
                    if peer.conn.closing:
                        continue
                    await self._lobby_message(peer, message)
        except ConnectionClosed:
            pass
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("a lobby connection failed; the server goes on")
        finally:
            self.peers.discard(peer)
            writer.cancel()
            peer.conn.pending.clear()

    def _read(self, peer: LobbyPeer, message: str | bytes) -> Any:
        """The lobby message, or None once it was refused (answered)."""
        conn = peer.conn
        try:
            if not conn.allow():
                raise schema.ProtocolError(schema.SLOW_DOWN, _("too many messages: this one was dropped"))
            parsed = parse_lobby_client(message)
        except schema.ProtocolError as exc:
            conn.refuse(exc)
            return None
        conn.malformed = 0
        return parsed

    async def _lobby_hello(self, peer: LobbyPeer) -> bool:
        conn = peer.conn
        try:
            async with asyncio.timeout(schema.HELLO_TIMEOUT):
                while True:
                    request = self._read(peer, await conn.ws.recv())
                    if request is None:
                        if conn.closing:
                            return False
                        continue
                    if isinstance(request, ls.LobbyHello):
                        break
                    conn.send(write(schema.ErrorMsg(schema.HELLO_FIRST, "say hello first", request.id)))
        except TimeoutError:
            conn.close(CLOSE_POLICY, f"no hello within {schema.HELLO_TIMEOUT:g} seconds")
            return False
        peer.hello = True
        peer.nonce = new_nonce()
        conn.send(write(ls.Challenge(self.server_id, peer.nonce)))
        conn.send(write(ls.LobbyMsg(tuple(self.lobby.listings()))))
        return True

    def _refuse(self, peer: LobbyPeer, rid: int | None, code: str, reason: str, suggestion: str | None = None) -> None:
        peer.conn.send(write(ls.LobbyRefusedMsg(rid, code, reason, suggestion)))

    async def _lobby_message(self, peer: LobbyPeer, message: str | bytes) -> None:
        request = self._read(peer, message)
        if request is None:
            return
        try:
            await self._answer(peer, request)
        except ConnectionClosed:
            raise
        except Exception:
            log.exception("a lobby request could not be answered; the server goes on")
            self._refuse(peer, getattr(request, "id", None), ls.LIMIT, _("the server could not do that (see its log)"))

    async def _answer(self, peer: LobbyPeer, request: Any) -> None:
        rid = getattr(request, "id", None)
        if isinstance(request, ls.LobbyPing):
            peer.conn.send(write(ls.LobbyPongMsg(rid)))
            return
        if isinstance(request, ls.LobbyHello):
            peer.conn.send(write(schema.ErrorMsg(schema.HELLO_FIRST, "hello is the first message only", rid)))
            return
        if isinstance(request, ls.SignIn):
            self._sign_in(peer, request)
            return
        if isinstance(request, ls.WatchTable):
            live = self.tables.get(request.table)
            if live is None or live.served.closed:
                self._refuse(peer, rid, ls.NO_TABLE, _("that table is not being played (it has not started, or it ended)"))
                return
            peer.conn.send(write(ls.WatchingMsg(rid, live.id, f"{self._table_url(live.id)}/{WATCH}")))
            return
        person = peer.person
        if person is None:
            self._refuse(peer, rid, ls.SIGN_IN_FIRST, _("sign in first: only watching needs no sign-in"))
            return
        now = time.time()
        if isinstance(request, ls.CreateTable):
            await self._seated(peer, rid, self.lobby.create(person, request, now))
        elif isinstance(request, ls.JoinTable):
            await self._seated(peer, rid, self.lobby.join(person, request.table, request.seat, now))
        elif isinstance(request, ls.AcceptInvite):
            await self._seated(peer, rid, self.lobby.accept_invite(person, request.table, request.secret, now))
        elif isinstance(request, ls.QuickPlay):
            await self._seated(peer, rid, self.lobby.quick(person, request, now))
            self._fill_wake.set()
        elif isinstance(request, ls.LeaveTable):
            live = self.tables.get(request.table)
            seat = live.keys.index(person.key) if live is not None and person.key in live.keys else None
            events = self.lobby.leave(person, request.table, now)
            if live is not None and seat is not None and not live.ended:
                self._free_seat(live, seat)
            self._broadcast(events)
        elif isinstance(request, ls.Rematch):
            outcome = self.lobby.rematch(person, request.table, request.accept, now)
            if isinstance(outcome, Refusal):
                self._refuse(peer, rid, outcome.code, outcome.reason)
                return
            self._broadcast(outcome.events)
            if outcome.start is not None:
                await self.start_table(outcome.start)

    def _sign_in(self, peer: LobbyPeer, request: ls.SignIn) -> None:
        rid = request.id
        if not peer.nonce or not verify(request.key, request.signature, challenge_bytes(self.server_id, peer.nonce)):
            self._refuse(peer, rid, ls.BAD_SIGNATURE, _("the signature does not match this key and this challenge"))
            return
        signed = self.accounts.sign_in(request.key, request.name)
        if isinstance(signed, NameTaken):
            # Translators: {name} is the display name asked for, {suggestion} a free one.
            self._refuse(
                peer,
                rid,
                ls.NAME_TAKEN,
                _("the name {name} is someone else's here: try {suggestion}").format(
                    name=signed.name, suggestion=signed.suggestion
                ),
                signed.suggestion,
            )
            return
        peer.person = Person(signed.key, signed.name, signed.rating)
        peer.conn.send(write(ls.SignedIn(rid, signed.name, round(signed.rating), signed.games)))
        for joined in self.lobby.seats_of(signed.key):
            live = self.tables.get(joined.table)
            if live is not None and not live.ended and signed.key in live.keys:
                self._send_start(live, live.keys.index(signed.key), signed.key)
            elif live is None:
                peer.conn.send(write(ls.JoinedMsg(None, joined.table, joined.seat)))

    async def _seated(self, peer: LobbyPeer, rid: int | None, answer: Seating | Refusal) -> None:
        if isinstance(answer, Refusal):
            self._refuse(peer, rid, answer.code, answer.reason)
            return
        invite: str | None = None
        if answer.invite is not None:
            self.store.set_invite(answer.table, answer.invite)
            invite = f"{self.base}/i/{answer.table}/{answer.invite}"
        peer.conn.send(write(ls.JoinedMsg(rid, answer.table, answer.seat, invite)))
        with contextlib.suppress(KeyError):
            self.store.put_table(answer.table, self._record(answer.table), ls.OPEN)
        self._broadcast(answer.events)
        live = self.tables.get(answer.table)
        if answer.start is not None:
            await self.start_table(answer.start)
        elif live is not None and not live.ended and peer.person is not None:  # a free seat of a table being played
            keys = list(live.keys)
            keys[answer.seat] = peer.person.key
            live.keys = tuple(keys)
            self._new_token(live, answer.seat, replace_old=True)
            live.served.set_token(answer.seat, new_token())
            self._send_start(live, answer.seat, peer.person.key)


def _ai_ratings() -> dict[str, float]:
    """The AI kinds' ratings shipped with the game (empty when they cannot be read: logged)."""
    from kc_tui.records.rating import ai_anchors

    try:
        return {kind: r.value for kind, r in ai_anchors().items()}
    except (OSError, ValueError) as exc:
        log.error("the AIs' ratings cannot be read: %s", exc)
        return {}


__all__ = ["SERVER_CLOSED_TEXT", "Hub", "HubSettings", "LiveTable", "invite_text", "root_text"]
_unused = (replace,)
