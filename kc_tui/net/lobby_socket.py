"""The lobby socket of ``kings-corners server`` (``/lobby``): its connections, each from its
``hello`` to its end (the challenge, the listing, sign-in by the challenge signed), the requests
read (rate, malformed messages) and answered by asking :class:`~kc_tui.net.lobby.Lobby`, the
refusals, and what is sent to whom (everyone, or a person's connections).

It knows no table: what the tables' side (:class:`~kc_tui.net.hub.Hub`) does is asked through
:class:`Tables`: the lobby in use, the events a request answered carried out, a table's
spectators' address, the seats a person signing in holds. Who a person is:
:mod:`kc_tui.net.identity` (the challenge signed) and :class:`~kc_tui.net.accounts.Accounts`
(their name and rating).

Plain Python and asyncio (no Textual, no Rich). What fails is logged, never shown as a
traceback: the request is refused with one line and the socket goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from kc_tui.i18n import _
from kc_tui.net import lobby_schema as ls
from kc_tui.net import schema
from kc_tui.net.accounts import Accounts, NameTaken
from kc_tui.net.connection import CLOSE_GOING_AWAY, CLOSE_POLICY, Connection
from kc_tui.net.identity import challenge_bytes, new_nonce, verify
from kc_tui.net.lobby import Event, Lobby, Person, Refusal, Seating
from kc_tui.net.protocol import parse_lobby_client, write

log = logging.getLogger(__name__)

#: How long the closing waits for the lobby's connections to be told.
CLOSE_WAIT = 2.0


class Listing(Protocol):
    """What a lobby socket shows and lets anyone watch: the public tables."""

    def listings(self, now: float) -> tuple[ls.TableListing, ...]:
        """Every listed table, as the lobby shows it at ``now``."""
        ...

    def watch_address(self, table: str) -> str | None:
        """The spectators' address of ``table``; None when it may not be watched (not being
        played, or private)."""
        ...


@runtime_checkable
class Tables(Listing, Protocol):
    """What the lobby socket asks of the tables' side (the hub) besides the listing: seats
    taken and freed, tables started, rematches."""

    #: The lobby in use (the hub's, replaced when the store's tables are brought back).
    lobby: Lobby

    def invite_link(self, table: str, secret: str) -> str:
        """The invite's link of ``table``."""
        ...

    async def carry_out(self, events: Iterable[Event]) -> None:
        """Carry out the lobby's events, in their order, behind those queued before them."""
        ...

    def keep(self, table: str) -> None:
        """Keep the lobby's record of ``table`` in the store."""
        ...

    def quick_asked(self) -> None:
        """A quick table may have a fill coming due sooner: the lobby's clock looks again."""
        ...

    def welcome_back(self, key: str) -> list[Any]:
        """What tells the person ``key``, who just signed in, the seats they hold: ``joined``
        for every open table, ``start`` for every one that plays."""
        ...


@dataclass(eq=False)
class LobbyPeer:
    """One connection to the lobby: its connection (queue, rate, refusals), its challenge's
    nonce, and who signed in on it."""

    conn: Connection
    nonce: str = ""
    hello: bool = False
    person: Person | None = None
    #: Whether the listing's deltas are sent to it (``follow``: on from hello).
    following: bool = True


class LobbySocket:
    """Every connection to ``/lobby`` (an endpoint of the listener: :meth:`handle`). See the
    module docs. ``server_id``: what the challenge names the server by; ``background``: runs a
    coroutine on the loop (the hub keeps it). ``accounts`` None: the lobby is for watching
    (``tables`` only lists them): a sign-in and every request but watching are refused with
    :func:`watch_only_text`."""

    def __init__(
        self,
        tables: Listing,
        accounts: Accounts | None,
        server_id: str,
        background: Callable[[Coroutine[Any, Any, None]], None],
    ) -> None:
        if accounts is not None and not isinstance(tables, Tables):
            raise TypeError("a lobby with accounts needs the tables' side")
        self.tables = tables
        self.accounts = accounts
        self.server_id = server_id
        self._background = background
        self.peers: set[LobbyPeer] = set()

    # ------------------------------------------------------------------ sending
    def peers_of(self, key: str) -> list[LobbyPeer]:
        """The connections the person ``key`` signed in on."""
        return [p for p in self.peers if p.person is not None and p.person.key == key]

    def send_all(self, message: Any) -> None:
        """``message`` (a delta of the listing) to every connection that said hello and follows
        the listing."""
        text = write(message)
        for peer in self.peers:
            if peer.hello and peer.following:
                peer.conn.send(text)

    def tell(self, keys: Iterable[str], message: Any) -> None:
        """``message`` to every connection of each person of ``keys``."""
        text = write(message)
        for key in keys:
            for peer in self.peers_of(key):
                peer.conn.send(text)

    async def close(self, message: Any) -> None:
        """Tell every connection ``message`` and close it (going away), waiting a little for them
        to be closed."""
        told = [peer.conn for peer in self.peers if not peer.conn.closing]
        text = write(message)
        for conn in told:
            conn.send(text)
            conn.close(CLOSE_GOING_AWAY, schema.CLOSED)
        if told:
            with contextlib.suppress(Exception):
                await asyncio.wait([asyncio.ensure_future(c.ws.wait_closed()) for c in told], timeout=CLOSE_WAIT)

    # ------------------------------------------------------------------ one connection
    async def handle(self, ws: ServerConnection) -> None:
        """One lobby connection, from its hello to its end."""
        peer = LobbyPeer(Connection(ws, False, self._background))
        self.peers.add(peer)
        writer = asyncio.create_task(peer.conn.write_out(), name="lobby-writer")
        try:
            if await self._hello(peer):
                async for message in ws:
                    if not peer.conn.closing:
                        await self._message(peer, message)
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
        """The lobby message, or None once it was refused (answered: a malformed one, one over
        the rate)."""
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

    async def _hello(self, peer: LobbyPeer) -> bool:
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
        conn.send(write(ls.LobbyMsg(self.tables.listings(time.time()))))
        return True

    def _refuse(self, peer: LobbyPeer, rid: int | None, code: str, reason: str, suggestion: str | None = None) -> None:
        peer.conn.send(write(ls.LobbyRefusedMsg(rid, code, reason, suggestion)))

    async def _message(self, peer: LobbyPeer, message: str | bytes) -> None:
        request = self._read(peer, message)
        if request is None:
            return
        try:
            await self._answer(peer, request)
        except ConnectionClosed:
            raise
        except Exception:
            log.exception("a lobby request could not be answered; the server goes on")
            rid = getattr(request, "id", None)
            self._refuse(peer, rid, ls.LIMIT, _("the server could not do that (see its log)"))

    # ------------------------------------------------------------------ requests
    async def _answer(self, peer: LobbyPeer, request: Any) -> None:
        rid: int | None = getattr(request, "id", None)
        if isinstance(request, ls.LobbyPing):
            peer.conn.send(write(ls.LobbyPongMsg(rid)))
            return
        if isinstance(request, ls.LobbyHello):
            peer.conn.send(write(schema.ErrorMsg(schema.HELLO_FIRST, "hello is the first message only", rid)))
            return
        if isinstance(request, ls.SignIn):
            self._sign_in(peer, request)
            return
        if isinstance(request, ls.FollowLobby):
            if request.on and not peer.following:  # the deltas missed meanwhile: the whole listing
                peer.conn.send(write(ls.LobbyMsg(self.tables.listings(time.time()))))
            peer.following = request.on
            return
        if isinstance(request, ls.WatchTable):
            url = self.tables.watch_address(request.table)
            if url is None:
                self._refuse(
                    peer, rid, ls.NO_TABLE, _("That table is not being played: it has not started, or it ended.")
                )
                return
            peer.conn.send(write(ls.WatchingMsg(rid, request.table, url)))
            return
        person, tables = peer.person, self.tables
        if not isinstance(tables, Tables) or self.accounts is None:
            self._refuse(peer, rid, ls.WATCH_ONLY, watch_only_text())
            return
        if person is None:
            self._refuse(peer, rid, ls.SIGN_IN_FIRST, _("Sign in first: only watching needs no sign-in."))
            return
        lobby = tables.lobby
        now = time.time()
        if isinstance(request, ls.CreateTable):
            await self._seated(tables, peer, rid, lobby.create(person, request, now))
        elif isinstance(request, ls.JoinTable):
            await self._seated(tables, peer, rid, lobby.join(person, request.table, request.seat, now))
        elif isinstance(request, ls.AcceptInvite):
            await self._seated(tables, peer, rid, lobby.accept_invite(person, request.table, request.secret, now))
        elif isinstance(request, ls.QuickPlay):
            await self._seated(tables, peer, rid, lobby.quick(person, request, now))
            tables.quick_asked()
        elif isinstance(request, ls.LeaveTable):
            await tables.carry_out(lobby.leave(person, request.table, now))
        elif isinstance(request, ls.Rematch):
            outcome = lobby.rematch(person, request.table, request.accept, now)
            if isinstance(outcome, Refusal):
                self._refuse(peer, rid, outcome.code, outcome.reason)
                return
            await tables.carry_out(outcome.events)

    def _sign_in(self, peer: LobbyPeer, request: ls.SignIn) -> None:
        rid = request.id
        tables, accounts = self.tables, self.accounts
        if accounts is None or not isinstance(tables, Tables):
            self._refuse(peer, rid, ls.WATCH_ONLY, watch_only_text())
            return
        if not verify(request.key, request.signature, challenge_bytes(self.server_id, peer.nonce)):
            self._refuse(peer, rid, ls.BAD_SIGNATURE, _("The signature was not made with this key for this challenge."))
            return
        try:
            signed = accounts.sign_in(request.key, request.name)
        except ValueError as exc:
            peer.conn.send(write(schema.ErrorMsg(schema.MALFORMED, str(exc), rid)))
            return
        if isinstance(signed, NameTaken):
            # Translators: {name} is the display name asked for, {suggestion} a free one.
            reason = _("The name {name} is someone else's on this server: try {suggestion}.").format(
                name=signed.name, suggestion=signed.suggestion
            )
            self._refuse(peer, rid, ls.NAME_TAKEN, reason, signed.suggestion)
            return
        peer.person = Person(signed.key, signed.name, signed.rating)
        peer.conn.send(write(ls.SignedIn(rid, signed.name, round(signed.rating), signed.games)))
        for told in tables.welcome_back(signed.key):
            peer.conn.send(write(told))

    async def _seated(self, tables: Tables, peer: LobbyPeer, rid: int | None, answer: Seating | Refusal) -> None:
        if isinstance(answer, Refusal):
            self._refuse(peer, rid, answer.code, answer.reason)
            return
        invite = None if answer.invite is None else tables.invite_link(answer.table, answer.invite)
        peer.conn.send(write(ls.JoinedMsg(rid, answer.table, answer.seat, invite)))
        await tables.carry_out([*answer.events])
        tables.keep(answer.table)


def watch_only_text() -> str:
    """The line refusing a sign-in or a seat at a lobby kept for watching."""
    return _(
        "This lobby is for watching: its tables are set by the server's operators,"
        " and their players join with the links they were given."
    )


__all__ = ["CLOSE_WAIT", "Listing", "LobbyPeer", "LobbySocket", "Tables", "watch_only_text"]
