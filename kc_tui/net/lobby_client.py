"""The client side of a server's lobby (``/lobby``, docs/PROTOCOL.md "The lobby"): plain asyncio,
no Textual.

:class:`LobbyClient` connects to ``<server>/lobby``, says ``hello``, reads the server's
``challenge`` and signs in with the player's key (:class:`Signer`: the install's
:class:`kc_tui.net.identity.PlayerKey`), then keeps :attr:`LobbyClient.listings` current from the
``lobby`` message and its ``table`` / ``table-gone`` deltas. Requests (create, join, quick play,
watch, rematch, leave) go out with a fresh id; :meth:`LobbyClient.request` awaits the answer of
that id. When the connection drops it connects again by itself (the remote seat's pauses:
:mod:`kc_tui.net.client`), says ``hello`` again and signs in again with the same name.

Every text from the server (names, reasons) is data: it is handed on as the server wrote it, cut
to one line where it becomes a status; the screen shows it literally.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import ssl
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from websockets.asyncio.client import ClientConnection

from kc_tui.i18n import _
from kc_tui.net.client import (
    FIRST_RETRY,
    LAST_RETRY,
    LINE,
    AddressError,
    Connecting,
    Link,
    Status,
    destination,
)
from kc_tui.net.identity import IdentityError, PlayerKey, challenge_bytes
from kc_tui.net.lobby_schema import (
    NAME_TAKEN,
    WATCH_ONLY,
    Challenge,
    FollowLobby,
    JoinedMsg,
    LobbyErrorMsg,
    LobbyHello,
    LobbyMsg,
    LobbyPongMsg,
    LobbyRefusedMsg,
    LobbyServerMessage,
    SignedIn,
    SignIn,
    TableGoneMsg,
    TableListing,
    TableMsg,
    WatchingMsg,
)
from kc_tui.net.protocol import parse_lobby_server, write
from kc_tui.net.schema import MAX_ID
from kc_tui.util.printable import one_line

#: The lobby's path on a server.
LOBBY_PATH = "/lobby"
#: An invite link's path: ``/i/<table>/<secret>``.
INVITE_PREFIX = "/i/"
#: How long a request waits for its answer (seconds).
ANSWER_TIMEOUT = 20.0
#: The error codes after which connecting again cannot help.
FINAL_CODES = frozenset({"upgrade"})

log = logging.getLogger(__name__)

#: What every answer to a request may be (the messages that carry the request's id).
Answer = SignedIn | JoinedMsg | WatchingMsg | LobbyRefusedMsg | LobbyErrorMsg | LobbyPongMsg


class Signer(Protocol):
    """The player's key as the lobby needs it (:class:`kc_tui.net.identity.PlayerKey`)."""

    @property
    def public_text(self) -> str: ...

    def sign(self, data: bytes) -> str: ...


class LobbyError(Exception):
    """A request that got no answer, or a key that cannot be used: one plain line."""


def load_key(folder: Path | None = None) -> Signer:
    """The install's player key in ``folder`` (None: the data folder; made on first use);
    :class:`LobbyError` (one line) when it cannot be read or made."""
    try:
        return PlayerKey.load_or_create(folder)
    except (IdentityError, OSError) as exc:
        raise LobbyError(one_line(str(exc), LINE)) from None


def _split(url: str) -> urllib.parse.SplitResult:
    """``url`` read as a server's address: ``ws://`` or ``wss://`` and a host; :class:`AddressError`
    (one line) otherwise."""
    text = url.strip()
    shown = one_line(text, 120) or "''"
    try:
        parts = urllib.parse.urlsplit(text)
        parts.port  # noqa: B018 - a port that is not a number raises here
    except ValueError:
        raise AddressError(
            # Translators: {address} is what was given as a server's address.
            _("{address} is not an address: write ws://HOST:PORT (or wss://HOST:PORT)").format(address=shown)
        ) from None
    if parts.scheme not in ("ws", "wss"):
        raise AddressError(
            _("{address} is not a server's address: it must start with ws:// or wss://").format(address=shown)
        )
    if not parts.hostname:
        raise AddressError(_("{address} names no host: write ws://HOST:PORT").format(address=shown))
    if parts.username is not None or parts.password is not None:
        raise AddressError(_("a server's address has no '@' (its host is what follows one): write ws://HOST:PORT"))
    return parts


def lobby_address(url: str) -> str:
    """The lobby's address of the server at ``url`` (``ws://HOST:PORT``, with or without
    ``/lobby``); :class:`AddressError` (one line) for anything else, and for a server this process
    may not connect to (:func:`kc_tui.net.client.destination`)."""
    parts = _split(url)
    path = parts.path.rstrip("/")
    if path not in ("", LOBBY_PATH):
        raise AddressError(
            _("{address} is not a server's address: write ws://HOST:PORT (its lobby is /lobby)").format(
                address=one_line(url.strip(), 120)
            )
        )
    address = urllib.parse.urlunsplit((parts.scheme, parts.netloc, LOBBY_PATH, "", ""))
    destination(address)
    return address


def parse_invite(url: str) -> tuple[str, str, str] | None:
    """An invite link ``<base>/i/<table>/<secret>`` as (its server's lobby address, the table's
    id, the secret); None when ``url`` is no invite link."""
    try:
        parts = _split(url)
    except AddressError:
        return None
    path = parts.path.rstrip("/")
    if not path.startswith(INVITE_PREFIX):
        return None
    pieces = path[len(INVITE_PREFIX) :].split("/")
    if len(pieces) != 2 or not all(pieces):
        return None
    table, secret = pieces
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, LOBBY_PATH, "", "")), table, secret


def server_base(lobby: str) -> str:
    """The server's own address (``ws://HOST:PORT``) of its lobby's address."""
    parts = urllib.parse.urlsplit(lobby)
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, "", "", ""))


class LobbyClient(Connecting):
    """One client of a server's lobby. ``key`` None: the lobby is watched without signing in
    (its listing and ``watch`` need none).

    ``on_event`` receives every parsed server message (after :attr:`listings` took it in);
    ``on_link`` every change of status; ``on_problem`` a one-line reason for each message not
    understood. All three are called on the loop :meth:`run` runs on."""

    def __init__(
        self,
        url: str,
        key: Signer | None,
        name: str,
        *,
        client: str | None = None,
        on_event: Callable[[LobbyServerMessage], None] | None = None,
        on_link: Callable[[Link], None] | None = None,
        on_problem: Callable[[str], None] | None = None,
        first_retry: float = FIRST_RETRY,
        last_retry: float = LAST_RETRY,
        ssl_context: ssl.SSLContext | None = None,
        challenge: Callable[[str, str], bytes] = challenge_bytes,
    ) -> None:
        """``challenge``: what the key signs for a challenge (:func:`kc_tui.net.identity.challenge_bytes`)."""
        super().__init__(
            lobby_address(url),
            client=client,
            on_link=on_link,
            on_problem=on_problem,
            first_retry=first_retry,
            last_retry=last_retry,
            ssl_context=ssl_context,
        )
        self.key = key
        self.name = name
        self.on_event = on_event
        self._challenge_bytes = challenge
        #: The public tables, by id, as the latest ``lobby`` and its deltas say.
        self.listings: dict[str, TableListing] = {}
        #: The latest challenge and sign-in (None before, and while connecting again).
        self.challenge: Challenge | None = None
        self.signed_in: SignedIn | None = None
        #: The latest refusal of the name asked for (its ``suggestion`` a free one).
        self.name_refused: LobbyRefusedMsg | None = None
        #: The server's line saying its lobby is for watching only (None: it did not); no
        #: sign-in is tried again once it did.
        self.watch_only: str | None = None
        #: Whether the listing's deltas are wanted (off while the person is at a table): said
        #: again on every new connection.
        self.following = True
        self._waiting: dict[int, asyncio.Future[Answer]] = {}
        self._sign_in_id: int | None = None

    # ------------------------------------------------------------------ requests
    def follow(self, on: bool) -> None:
        """Follow the listing's deltas or not (off while the person is at a table: nothing of
        the lobby is drawn then); following again brings the whole listing."""
        if on != self.following:
            self.following = on
            self.send(FollowLobby(on))

    def send(self, message: Any) -> int | None:
        """Send ``message`` (a lobby client message) with a fresh id; the id, or None when it
        cannot be sent now (not connected)."""
        if self._outbox is None:
            return None
        rid = self._next_id
        self._next_id = self._next_id % MAX_ID + 1
        self._outbox.put_nowait(write(dataclasses.replace(message, id=rid)))
        return rid

    async def request(self, message: Any, timeout: float = ANSWER_TIMEOUT) -> LobbyServerMessage:
        """Send ``message`` and await the server's answer to it (``joined``, ``watching``,
        ``refused``, ``error``...). :class:`LobbyError` (one line) when it cannot be sent, the
        connection drops first, or no answer comes in ``timeout`` seconds."""
        rid = self.send(message)
        if rid is None:
            raise LobbyError(_("not connected to the server: try again once the lobby is back"))
        future: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self._waiting[rid] = future
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            raise LobbyError(_("the server did not answer in time")) from None
        finally:
            self._waiting.pop(rid, None)

    def sign_in(self, name: str) -> bool:
        """Sign in as ``name`` (again, e.g. after a name the server refused); whether it was sent
        (it is sent by itself once the challenge comes)."""
        self.name = name
        return self._send_sign_in()

    def _send_sign_in(self) -> bool:
        challenge, key = self.challenge, self.key
        if challenge is None or key is None or self._outbox is None or self.watch_only is not None:
            return False
        try:
            signature = key.sign(self._challenge_bytes(challenge.server, challenge.nonce))
        except Exception as exc:  # a key that cannot sign: said, and the lobby is only watched
            log.exception("the challenge could not be signed")
            self._problem(_("the player key could not sign in ({error})").format(error=type(exc).__name__))
            return False
        self._sign_in_id = self.send(SignIn(key.public_text, self.name, signature))
        return self._sign_in_id is not None

    # ------------------------------------------------------------------ the connection
    async def close(self) -> None:
        """End the connection for good."""
        self._closing = True
        if self._wake is not None:
            self._wake.set()
        ws = self._ws
        if ws is not None:
            with contextlib.suppress(Exception):
                await ws.close()
        if not self.ended:
            self._set_link(Link(Status.ENDED, _("left the lobby")))

    async def _converse(self, ws: ClientConnection) -> bool:
        listed = False
        outbox: asyncio.Queue[str] = asyncio.Queue()
        self._outbox = outbox
        await ws.send(write(LobbyHello(self.client)))
        if not self.following:
            await ws.send(write(FollowLobby(False)))
        writer = asyncio.create_task(self._write(ws, outbox))
        try:
            async for data in ws:
                if isinstance(data, bytes):
                    self._problem(_("the server sent a binary message: skipped"))
                    continue
                message = self._parse(data)
                if message is None:
                    continue
                if isinstance(message, LobbyMsg):
                    listed = True
                self._take(message)
                self._tell(message)
        finally:
            writer.cancel()
            self._outbox = None
            self._ws = None
            self._lost()
        return listed

    def _not_found_text(self) -> str:
        return _("this server has no lobby (is it a 'host' table?)")

    def _elsewhere_text(self, error: ValueError) -> str:
        return _("the server sent the lobby elsewhere: {error}").format(error=error)

    def _take(self, message: LobbyServerMessage) -> None:
        """What ``message`` changes of the client's state: the listing, the sign-in, the status,
        the request it answers."""
        if isinstance(message, Challenge):
            self.challenge = message
            self._send_sign_in()
        elif isinstance(message, LobbyMsg):
            self.listings = {t.table: t for t in message.tables}
            self._set_link(Link(Status.CONNECTED))
        elif isinstance(message, TableMsg):
            self.listings[message.listing.table] = message.listing
        elif isinstance(message, TableGoneMsg):
            self.listings.pop(message.table, None)
        elif isinstance(message, SignedIn):
            self.signed_in, self.name_refused = message, None
            self.name = message.name
        elif isinstance(message, LobbyRefusedMsg) and message.code == WATCH_ONLY:
            self.watch_only = message.reason
        elif isinstance(message, LobbyRefusedMsg) and message.id is not None and message.id == self._sign_in_id:
            if message.code == NAME_TAKEN:
                self.name_refused = message
        elif isinstance(message, LobbyErrorMsg) and message.code in FINAL_CODES:
            self._set_link(Link(Status.ENDED, one_line(message.message, LINE), message.code))
        answer_id = getattr(message, "id", None)
        if isinstance(message, Answer) and answer_id is not None:
            future = self._waiting.get(answer_id)
            if future is not None and not future.done():
                future.set_result(message)

    def _lost(self) -> None:
        """The connection is gone: the requests waiting fail, the sign-in is made again on the next."""
        self.challenge = None
        self.signed_in = None
        self._sign_in_id = None
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(LobbyError(_("the connection to the server was lost")))
        self._waiting.clear()

    def _listener(self) -> Callable[[Any], None] | None:
        return self.on_event

    def _read(self, data: str) -> LobbyServerMessage:
        return parse_lobby_server(data)


__all__ = [
    "LOBBY_PATH",
    "LobbyClient",
    "LobbyError",
    "Signer",
    "load_key",
    "lobby_address",
    "parse_invite",
    "server_base",
]
