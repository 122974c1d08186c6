"""A remote seat's connection to a table server (docs/PROTOCOL.md): plain asyncio, no Textual.

:class:`RemoteSeat` connects to a table's address (``ws://`` or ``wss://``), says ``hello``,
and hands every server message it receives, parsed (:mod:`kc_tui.net.protocol`), to its
listener; it keeps the latest ``welcome`` and ``state``. Moves, undo and hints are sent with the
stamp of the latest state. When the connection drops it connects again by itself (every 0.5 s,
doubling to 5 s) and says so through its status: connecting, connected, reconnecting (also while
the host has stopped the table, until it serves it again), or ended for good (a wrong token,
another protocol version, the seat taken by a newer client, an address the server does not
serve, the host stopping a table whose match is over). A server message that does not parse is reported as a one-line
problem and skipped: it never stops the connection, and never raises. A served tab's app joins
only the tables its operator allowed (:func:`destination`, :mod:`kc_tui.net.allowlist`).

Everything runs on the caller's event loop (a Textual app's): :meth:`RemoteSeat.run` is a
coroutine to run as a task; the requests (:meth:`RemoteSeat.move` ...) never block, they queue
the message for the connection's writer.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import math
import ssl
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus, InvalidURI
from websockets.uri import parse_uri

from kc_tui.engine import MoveError, parse_move
from kc_tui.i18n import N_, _
from kc_tui.net.allowlist import Endpoint, NotAllowed, check, endpoint, served_tables
from kc_tui.net.lobby_schema import CLOCK_WARNING
from kc_tui.net.logs import TokenRedacting
from kc_tui.net.protocol import parse_server, write
from kc_tui.net.schema import (
    CLOSED,
    MAX_ID,
    MAX_MESSAGE,
    SEAT_FREED,
    ClockMsg,
    ErrorMsg,
    Hello,
    HintRequest,
    MoveRequest,
    Ping,
    ProtocolError,
    ReplayRequest,
    ServerMessage,
    StateMsg,
    UndoRequest,
    WelcomeMsg,
)
from kc_tui.util.backoff import Backoff
from kc_tui.util.printable import one_line

#: The first wait before connecting again, and the longest (seconds): the wait doubles between.
FIRST_RETRY = 0.5
LAST_RETRY = 5.0
#: How long opening a connection may take before it counts as failed (seconds).
OPEN_TIMEOUT = 10.0
#: WebSocket pings: how often, and how long an answer may take before the connection counts as lost.
PING_INTERVAL = 10.0
PING_TIMEOUT = 10.0
#: The error codes after which connecting again cannot help: the seat's client stops.
FINAL_CODES = frozenset({"bad-token", "upgrade", "seat-taken", SEAT_FREED})
#: Why the connection ended, for a server that closed it with a final code as its reason but
#: whose error message did not arrive.
CLOSED_FOR = {
    "bad-token": N_("no seat at this table has this address"),
    "upgrade": N_("the server speaks another version of the table's protocol"),
    "seat-taken": N_("someone else joined with your seat's address: the seat is theirs now"),
    SEAT_FREED: N_("your turns ran out of time too often: your seat is free, an AI plays it"),
}
#: The host stopped its table (``closed``): the client connects again by itself, and is back
#: once the host serves the table again (the server's own words are the host's, not a player's).
HOST_STOPPED = N_("the host stopped the table; you'll be reconnected when they serve it again")
#: The host stopped a table whose match is over: nothing is served again.
HOST_STOPPED_OVER = N_("the host stopped the table: the match is over")
#: The longest line of text kept from the server for a status or a problem.
LINE = 200

log = logging.getLogger(__name__)


def client_name() -> str:
    """What ``hello`` says the client is: "kings-corners 1.4.0"."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"kings-corners {version('kings-corners')}"
    except PackageNotFoundError:
        from kc_tui import __version__

        return f"kings-corners {__version__}"


class AddressError(ValueError):
    """A table's address that cannot be joined (one line, for the person who typed it)."""


def table_address(url: str, *, watch: bool = False) -> str:
    """``url`` checked as a table's address: ``ws://`` or ``wss://``, a host, and the path
    ``/seat/<token>`` (a person's seat) or ``/watch``, each under ``/t/<table>`` at a server
    of many tables. With ``watch`` a seat's address is turned into its table's ``/watch``
    address. :class:`AddressError` (one line) for anything else, and for a table this process
    may not join (:func:`destination`)."""
    text = url.strip()
    shown = one_line(text, 120) or "''"
    try:
        parts = urllib.parse.urlsplit(text)
        parts.port  # noqa: B018 - a port that is not a number raises here
    except ValueError:
        raise AddressError(
            # Translators: {address} is what was given as the table's address.
            _("{address} is not an address: use the one the host printed (ws://HOST:PORT/seat/...)").format(
                address=shown
            )
        ) from None
    if parts.scheme not in ("ws", "wss"):
        raise AddressError(
            _("{address} is not a table's address: it starts with ws:// or wss:// (as the host printed)").format(
                address=shown
            )
        )
    if not parts.hostname:
        raise AddressError(
            _("{address} names no host: write ws://HOST:PORT/seat/... as the host printed").format(address=shown)
        )
    path = parts.path.rstrip("/")
    # A server of many tables puts each under its id: /t/<table>/seat/<token>, /t/<table>/watch.
    table, rest = "", path
    pieces = path.split("/")
    if len(pieces) >= 4 and pieces[1] == "t" and pieces[2]:
        table, rest = f"/t/{pieces[2]}", "/" + "/".join(pieces[3:])
    if watch or rest == "/watch":
        path = f"{table}/watch"
    elif not rest.startswith("/seat/") or len(rest) <= len("/seat/") or "/" in rest[len("/seat/") :]:
        raise AddressError(
            _("{address} names no seat: a seat's address ends in /seat/<token>, a spectator's in /watch").format(
                address=shown
            )
        )
    address = urllib.parse.urlunsplit((parts.scheme, parts.netloc, path, "", ""))
    destination(address)
    return address


def destination(url: str) -> Endpoint:
    """The host and port a connection to ``url`` goes to, as websockets reads them;
    :class:`AddressError` when this process may not connect there: a served tab's app joins only
    the tables its list names (:mod:`kc_tui.net.allowlist`), and no address with a user name."""
    try:
        uri = parse_uri(url)
    except InvalidURI:
        raise AddressError(
            _("{address} is not an address: use the one the host printed").format(address=one_line(url, 120))
        ) from None
    allowed = served_tables()
    if allowed is not None and uri.username is not None:
        raise AddressError(_("a table's address has no '@' (its host is what follows one): write ws://HOST:PORT/..."))
    where = endpoint(uri.host, uri.port)
    try:
        check(where, allowed)
    except NotAllowed as exc:
        raise AddressError(str(exc)) from None
    return where


class Status(enum.Enum):
    """Where the connection is."""

    #: The first connection is being made.
    CONNECTING = "connecting"
    #: Connected, and welcomed by the server.
    CONNECTED = "connected"
    #: The connection dropped: connecting again (after a wait).
    RECONNECTING = "reconnecting"
    #: Ended for good: the server refused the seat, or the seat was closed (:meth:`RemoteSeat.close`).
    ENDED = "ended"


@dataclass(frozen=True, slots=True)
class SeatClock:
    """The table's turn clock as the last ``clock`` message told it: whose turn it times, when
    it runs out (on the loop's clock, ``loop.time()``), and whether that message was the warning."""

    seat: int
    deadline: float
    warning: bool

    def left(self, now: float) -> int:
        """Whole seconds left at ``now`` (rounded up, never below 0)."""
        return max(0, math.ceil(self.deadline - now - 1e-9))

    def warned(self, now: float) -> bool:
        """Whether the turn is in its last :data:`CLOCK_WARNING` seconds."""
        return self.warning or self.deadline - now <= CLOCK_WARNING


@dataclass(frozen=True, slots=True)
class Link:
    """The connection's status and why (one plain line; empty when there is nothing to say)."""

    status: Status
    reason: str = ""
    #: The error code that ended the connection for good (``bad-token``, ``upgrade``...), if any.
    code: str | None = None


class Connecting:
    """What a table's client and a lobby's client share: one connection at a time to
    :attr:`url`, opened again after each drop (a capped backoff between tries) until it ends for
    good or :meth:`run`'s owner closes it; its status (:attr:`link`) and how each way a
    connection fails is told. A kind gives :meth:`_converse` (one connection's messages), the
    line for an address with nothing behind it and for a redirect, and its parser and listener."""

    def __init__(
        self,
        url: str,
        *,
        client: str | None,
        on_link: Callable[[Link], None] | None,
        on_problem: Callable[[str], None] | None,
        first_retry: float,
        last_retry: float,
        ssl_context: ssl.SSLContext | None,
    ) -> None:
        self.url = url
        self.ssl_context = ssl_context if url.startswith("wss://") else None
        self.client = client or client_name()
        self.on_link = on_link
        self.on_problem = on_problem
        self.first_retry = first_retry
        self.last_retry = last_retry
        self.link = Link(Status.CONNECTING)
        #: How many connections were opened (the first one included).
        self.connections = 0
        self._ws: ClientConnection | None = None
        self._outbox: asyncio.Queue[str] | None = None
        self._next_id = 1
        self._closing = False
        self._wake: asyncio.Event | None = None

    # ------------------------------------------------------------------ status
    @property
    def connected(self) -> bool:
        return self.link.status is Status.CONNECTED

    @property
    def ended(self) -> bool:
        return self.link.status is Status.ENDED

    @property
    def host_away(self) -> bool:
        """Whether the status waits for a host to serve the table again (a table's client)."""
        return False

    def _set_link(self, link: Link) -> None:
        if link == self.link:
            return
        self.link = link
        if self.on_link is not None:
            self.on_link(link)

    def _problem(self, reason: str) -> None:
        if self.on_problem is not None:
            self.on_problem(one_line(reason, LINE))

    # ------------------------------------------------------------------ the connection
    async def run(self) -> None:
        """Connect, and connect again whenever the connection drops, until the server refuses
        for good or the client is closed. Never raises (but is cancellable)."""
        self._wake = asyncio.Event()
        backoff = Backoff(self.first_retry, self.last_retry)
        while not self._closing:
            answered = await self._connect_once()
            if self._closing or self.ended:
                break
            if answered:
                backoff.reset()
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), backoff.next())

    def retry_now(self) -> None:
        """Connect again at once (the wait before the next try cut short)."""
        if self._wake is not None:
            self._wake.set()

    async def _connect_once(self) -> bool:
        """One connection, from opening it to its end; whether the server answered as it should
        (the wait before the next try starts again from the shortest)."""
        answered = False
        try:
            where = destination(self.url)
            async with connect(
                self.url,
                host=where.host,  # where the address was checked for, and no redirect elsewhere
                port=where.port,
                open_timeout=OPEN_TIMEOUT,
                ping_interval=PING_INTERVAL,
                ping_timeout=PING_TIMEOUT,
                max_size=MAX_MESSAGE,
                proxy=None,
                user_agent_header=self.client,
                logger=TokenRedacting(logging.getLogger(f"{type(self).__module__}.ws")),
                **self._tls(),
            ) as ws:
                self._ws = ws
                self.connections += 1
                answered = await self._converse(ws)
        except InvalidStatus as exc:
            code = exc.response.status_code
            if code == 404:
                self._set_link(Link(Status.ENDED, self._not_found_text(), "not-found"))
            else:
                # Translators: {code} is an HTTP status number (500).
                self._dropped(_("the server answered HTTP {code}").format(code=code))
        except ssl.SSLCertVerificationError as exc:
            reason = exc.verify_message or exc.reason or _("not trusted")
            # Translators: {reason} is why the certificate is refused (the TLS library's words, in English).
            refused = _("the server's certificate is refused ({reason})").format(reason=reason)
            self._set_link(Link(Status.ENDED, one_line(refused, LINE), "certificate"))
        except ssl.SSLError as exc:
            # Translators: {reason} is the TLS library's words (in English).
            failed = _("the secure connection failed ({reason})").format(reason=exc.reason or exc)
            self._dropped(one_line(failed, LINE))
        except InvalidURI as exc:
            self._set_link(Link(Status.ENDED, one_line(str(exc), LINE), "bad-address"))
        except AddressError as exc:
            self._set_link(Link(Status.ENDED, one_line(str(exc), LINE), "not-allowed"))
        except ValueError as exc:  # websockets follows no redirect to another host or port
            self._set_link(Link(Status.ENDED, one_line(self._elsewhere_text(exc), LINE), "redirect"))
        except (OSError, TimeoutError, InvalidHandshake, ConnectionClosed) as exc:
            if isinstance(exc, ConnectionClosed) and exc.rcvd is not None:
                self._closed_for(exc.rcvd.reason)
            self._dropped(_why(exc))
        else:
            self._dropped(_("the server closed the connection"))
        return answered

    async def _converse(self, ws: ClientConnection) -> bool:
        """One connection's messages, until it ends; whether the server answered as it should."""
        raise NotImplementedError

    def _not_found_text(self) -> str:
        """Why the connection ends when the server has nothing at its address (HTTP 404)."""
        raise NotImplementedError

    def _elsewhere_text(self, error: ValueError) -> str:
        """Why the connection ends when the server sends it to another host or port."""
        raise NotImplementedError

    def _closed_for(self, reason: str | None) -> None:
        """The server closed the connection giving ``reason`` (a kind may end for good on it)."""

    def _dropped(self, why: str) -> None:
        """The connection dropped, or connecting failed: connect again (a status that waits
        for a host keeps saying so)."""
        if not self._closing and not self.ended and not self.host_away:
            self._set_link(Link(Status.RECONNECTING, why))

    def _tls(self) -> dict[str, Any]:
        """The TLS argument of a connection: the client's context, when it has one."""
        return {} if self.ssl_context is None else {"ssl": self.ssl_context}

    async def _write(self, ws: ClientConnection, outbox: asyncio.Queue[str]) -> None:
        with contextlib.suppress(ConnectionClosed):
            while True:
                await ws.send(await outbox.get())

    def _listener(self) -> Callable[[Any], None] | None:
        """Who is handed each message parsed."""
        raise NotImplementedError

    def _read(self, data: str) -> Any:
        """``data`` parsed as a message of the kind's protocol (:class:`ProtocolError` when not one)."""
        raise NotImplementedError

    def _tell(self, message: Any) -> None:
        """Hand ``message`` to the listener; a failure there is logged and told, the connection goes on."""
        listener = self._listener()
        if listener is None:
            return
        try:
            listener(message)
        except Exception as exc:
            log.exception("a %s message could not be shown", type(message).__name__)
            # Translators: {error} is the name of a Python exception (KeyError).
            self._problem(_("a message from the server could not be shown ({error})").format(error=type(exc).__name__))

    def _parse(self, data: str) -> Any:
        """``data`` parsed, or None (told as a problem) when it is not a message."""
        try:
            return self._read(data)
        except ProtocolError as exc:
            self._problem(_("a message from the server was not understood: {error}").format(error=exc))
        except Exception as exc:  # a bug in parsing must not end the connection
            self._problem(_("a message from the server was not understood ({error})").format(error=type(exc).__name__))
        return None


class RemoteSeat(Connecting):
    """One client of a table: a person's seat (``/seat/<token>``) or a spectator (``/watch``).

    ``on_message`` receives every parsed server message; ``on_link`` every change of status;
    ``on_problem`` a one-line reason for each server message that was not understood. All three
    are called on the loop :meth:`run` runs on."""

    def __init__(
        self,
        url: str,
        *,
        on_message: Callable[[ServerMessage], None] | None = None,
        on_link: Callable[[Link], None] | None = None,
        on_problem: Callable[[str], None] | None = None,
        watch: bool = False,
        first_retry: float = FIRST_RETRY,
        last_retry: float = LAST_RETRY,
        client: str | None = None,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        """``ssl_context``: how a ``wss://`` server's certificate is checked (default: the
        system's trusted authorities; :func:`trusting` makes one that trusts a host's own)."""
        super().__init__(
            table_address(url, watch=watch),
            client=client,
            on_link=on_link,
            on_problem=on_problem,
            first_retry=first_retry,
            last_retry=last_retry,
            ssl_context=ssl_context,
        )
        self.watching = self.url.endswith("/watch")
        self.on_message = on_message
        #: The latest ``welcome`` and ``state`` (None before the first).
        self.welcome: WelcomeMsg | None = None
        self.state: StateMsg | None = None
        #: The turn clock of the latest ``clock`` message (None: none runs, as far as the seat
        #: knows: no message yet, or a state since in which its seat is not on turn).
        self.clock: SeatClock | None = None
        self._closer: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ status
    @property
    def host_away(self) -> bool:
        """Whether the host stopped the table, and the seat waits for it to be served again
        (it connects again by itself)."""
        return self.link.status is Status.RECONNECTING and self.link.code == CLOSED

    # ------------------------------------------------------------------ requests
    def move(self, text: str) -> int | None:
        """Ask for the move ``text`` ("play 7H N", "move N E", "end") in the latest state; the
        request's id, or None when it cannot be sent now (not connected, no state yet, or
        ``text`` is no move: said as a problem)."""
        try:
            move = parse_move(text)
        except MoveError as exc:
            self._problem(str(exc))
            return None
        return self._request(lambda stamp, rid: write(MoveRequest(move, stamp, rid)))

    def undo(self) -> int | None:
        """Ask to take back this seat's last move of the turn (see :meth:`move`)."""
        return self._request(lambda stamp, rid: write(UndoRequest(stamp, rid)))

    def hint(self) -> int | None:
        """Ask for a hint for this seat's turn (see :meth:`move`)."""
        return self._request(lambda stamp, rid: write(HintRequest(stamp, rid)))

    def ping(self) -> int | None:
        """Ask the server for a ``pong``."""
        return self._send(lambda rid: write(Ping(rid)))

    def replay(self, number: int, start: int = 0) -> int | None:
        """Ask for finished round ``number`` as this seat saw it (a spectator: as the table did),
        its positions from ``start`` on (the answer is a ``replay`` page, or ``refused``); the
        request's id, or None when it cannot be sent now (not connected)."""
        return self._send(lambda rid: write(ReplayRequest(number, start, rid)))

    def _request(self, build: Callable[[int, int], str]) -> int | None:
        state = self.state
        if state is None or self.watching:
            return None
        return self._send(lambda rid: build(state.stamp, rid))

    def _send(self, build: Callable[[int], str]) -> int | None:
        if not self.connected or self._outbox is None:
            return None
        rid = self._next_id
        self._next_id = self._next_id % MAX_ID + 1
        self._outbox.put_nowait(build(rid))
        return rid

    # ------------------------------------------------------------------ the connection
    def close(self) -> None:
        """End the connection for good (the seat stays at the table for its person's return)."""
        self._closing = True
        if self._wake is not None:
            self._wake.set()
        if self._ws is not None:
            ws = self._ws
            with contextlib.suppress(RuntimeError):  # no loop runs: the connection is gone with it
                self._closer = asyncio.get_running_loop().create_task(ws.close())
        if not self.ended:  # a seat the server ended keeps its reason
            self._set_link(Link(Status.ENDED, _("left the table")))

    async def _converse(self, ws: ClientConnection) -> bool:
        welcomed = False
        outbox: asyncio.Queue[str] = asyncio.Queue()
        await ws.send(write(Hello(self.client)))
        writer = asyncio.create_task(self._write(ws, outbox))
        try:
            async for data in ws:
                if isinstance(data, bytes):
                    self._problem(_("the server sent a binary message: skipped"))
                    continue
                message = self._parse(data)
                if message is None:
                    continue
                if isinstance(message, WelcomeMsg):
                    welcomed = True
                    self.welcome = message
                    self.clock = None  # the server tells a running clock after the state
                    self._outbox = outbox
                    self._set_link(Link(Status.CONNECTED))
                elif isinstance(message, StateMsg):
                    self.state = message
                    self._clock_of(message)
                elif isinstance(message, ClockMsg):
                    deadline = asyncio.get_running_loop().time() + message.left
                    self.clock = SeatClock(message.seat, deadline, message.warning)
                elif isinstance(message, ErrorMsg) and message.code in FINAL_CODES:
                    self._set_link(Link(Status.ENDED, one_line(message.message, LINE), message.code))
                elif isinstance(message, ErrorMsg) and message.code == CLOSED:
                    self._host_stopped()
                self._tell(message)
            self._closed_for(ws.close_reason)
        finally:
            writer.cancel()
            self._outbox = None
            self._ws = None
        return welcomed

    def _not_found_text(self) -> str:
        return _("the server has no table at this address")

    def _elsewhere_text(self, error: ValueError) -> str:
        return _("the server sent the seat elsewhere: {error}").format(error=error)

    def _clock_of(self, state: StateMsg) -> None:
        """A state in which the clock's seat is not on turn ends that clock (its turn ended)."""
        clock, view = self.clock, state.view
        if clock is not None and (view.waiting_for is None or view.over or view.to_move != clock.seat):
            self.clock = None

    def _listener(self) -> Callable[[Any], None] | None:
        return self.on_message

    def _read(self, data: str) -> ServerMessage:
        return parse_server(data)

    def _closed_for(self, reason: str | None) -> None:
        """The server closed the connection giving a final code as its reason: end for good (once);
        or the host stopped the table (:meth:`_host_stopped`)."""
        if reason == CLOSED:
            self._host_stopped()
        elif reason in CLOSED_FOR and not self.ended and not self._closing:
            self._set_link(Link(Status.ENDED, _(CLOSED_FOR[reason]), reason))

    def _host_stopped(self) -> None:
        """The host stopped the table: wait for it to be served again, connecting again by
        itself (a match that is over ends the seat instead)."""
        if self._closing or self.ended:
            return
        if self.state is not None and self.state.over:
            self._set_link(Link(Status.ENDED, _(HOST_STOPPED_OVER), CLOSED))
        else:
            self._set_link(Link(Status.RECONNECTING, _(HOST_STOPPED), CLOSED))


def trusting(cafile: str) -> ssl.SSLContext:
    """A context that checks a ``wss://`` server against the certificates in ``cafile`` (a
    host's own certificate, self-signed: ``host --cert``) as well as the system's; OSError or
    ssl.SSLError when the file cannot be read as certificates."""
    context = ssl.create_default_context()
    context.load_verify_locations(cafile=cafile)
    return context


def _why(exc: BaseException) -> str:
    """Why a connection failed or dropped, in one plain line."""
    if isinstance(exc, ConnectionRefusedError):
        return _("the server is not answering (connection refused)")
    if isinstance(exc, TimeoutError):
        return _("the server did not answer in time")
    if isinstance(exc, ConnectionClosed):
        return _("the connection was lost")
    if isinstance(exc, OSError):
        # Translators: {reason} is the system's reason (in English).
        return one_line(_("cannot reach the server ({reason})").format(reason=exc.strerror or exc), LINE)
    return one_line(_("the connection failed ({reason})").format(reason=exc), LINE)


__all__ = [
    "AddressError",
    "Link",
    "RemoteSeat",
    "SeatClock",
    "Status",
    "client_name",
    "destination",
    "table_address",
    "trusting",
]
