"""The WebSocket server on one port: it accepts the connections (the door of the handshake,
``accept()``'s errors, the limits of sockets in all and by address, the largest frame) and hands
each to the endpoint its path routes to; anything else is answered with one line of text.

``route(path)`` answers an :class:`Endpoint` for a WebSocket's path, or ``(HTTP status, one line
of text)`` for anything else; a plain HTTP GET (no upgrade) of such a path gets that line too.
A route that must look elsewhere first (a gateway asking where a table is served) answers an
awaitable of the same, awaited within the handshake's time.
What the endpoints are (one table's seats, many tables, a lobby) is the caller's:
:class:`~kc_tui.net.server.TableServer` routes ``/seat/<token>`` and ``/watch`` to its one
:class:`~kc_tui.net.table_service.ServedTable`.

Plain Python and asyncio (no Textual, no Rich). Paths are logged only without their secrets
(:class:`~kc_tui.net.logs.TokenRedacting`).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import weakref
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from ssl import SSLContext
from typing import Protocol

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.http11 import Request, Response

from kc_tui.i18n import _
from kc_tui.net import schema
from kc_tui.net.connection import CLOSE_POLICY
from kc_tui.net.door import AcceptErrors, Door, address_group, file_limit, gated, pool_size
from kc_tui.net.logs import TokenRedacting

log = logging.getLogger(__name__)

#: Seconds a new TCP connection has to finish the WebSocket handshake (its HTTP upgrade).
HANDSHAKE_TIMEOUT = 5.0
#: The largest frame read at all (a larger one closes the connection with 1009 unanswered); one
#: over :data:`~kc_tui.net.schema.MAX_MESSAGE` and up to this is answered ``too-large``.
MAX_FRAME = 4 * schema.MAX_MESSAGE


class Endpoint(Protocol):
    """What a WebSocket's path is served by: its whole connection."""

    async def handle(self, ws: ServerConnection) -> None: ...


#: What a path is routed to: its endpoint, or the HTTP status and the line it is answered with.
Routed = Endpoint | tuple[int, str]


def server_full_text() -> str:
    """The line refusing a connection when the port serves as many as it may."""
    return _("This server is full: try again later.")


def address_full_text() -> str:
    """The line refusing a connection from an address that has as many open as it may."""
    return _("Too many connections from your address: close one and try again.")


class Listener:
    """Listens on one port and serves each WebSocket at the endpoint its path routes to (see the
    module docs).

    ``max_handshakes``: the connections that may wait in the WebSocket handshake at once (None:
    as many as the file limit leaves room for, :func:`~kc_tui.net.door.pool_size`);
    ``max_connections``: the open WebSockets at most (more are refused, 503); ``per_address``:
    the open WebSockets of one address (an IPv4 address, an IPv6 /64) at most (None: no such
    limit); ``status``: called with one plain line for whoever runs it (accept() out of file
    handles)."""

    def __init__(
        self,
        route: Callable[[str], Routed | Awaitable[Routed]],
        *,
        ssl: SSLContext | None = None,
        server_name: str = "kings-corners",
        handshake_timeout: float = HANDSHAKE_TIMEOUT,
        max_handshakes: int | None = None,
        max_connections: int = schema.MAX_CONNECTIONS,
        per_address: int | None = None,
        status: Callable[[str], None] | None = None,
    ) -> None:
        self.route = route
        self.ssl = ssl
        self.server_name = server_name
        self.handshake_timeout = handshake_timeout
        self.max_connections = max_connections
        self.per_address = per_address
        self._status = status
        #: Connections in the WebSocket handshake (kc_tui.net.door), as many as the file limit allows.
        self.door = Door(pool_size(file_limit(), max_connections) if max_handshakes is None else max_handshakes)
        #: The loop's exception handler while the port listens (accept() out of file handles).
        self.accept_errors = AcceptErrors(self._say)
        #: The open WebSockets by address group.
        self.by_address: dict[str, int] = {}
        #: The endpoint each connection's path was routed to, until its WebSocket opens.
        self._routed: weakref.WeakKeyDictionary[ServerConnection, Endpoint] = weakref.WeakKeyDictionary()
        self.server: Server | None = None
        self.port: int | None = None

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> int:
        """Listen on ``host``:``port`` (0: any free port); the bound port."""
        self.accept_errors.install(asyncio.get_running_loop())
        self.server = await serve(
            self._handle,
            host,
            port,
            process_request=self._process,
            create_connection=gated(self.door),
            max_size=MAX_FRAME,
            max_queue=64,
            compression=None,
            ssl=self.ssl,
            server_header=self.server_name,
            open_timeout=self.handshake_timeout,
            close_timeout=3,
            logger=TokenRedacting(logging.getLogger(f"{__name__}.ws")),
        )
        self.port = int(next(iter(self.server.sockets)).getsockname()[1])
        return self.port

    async def close(self) -> None:
        """Stop listening and close every connection still open."""
        if self.server is not None:
            self.server.close()
            with contextlib.suppress(Exception):
                await self.server.wait_closed()
        self.accept_errors.uninstall()

    @property
    def max_handshakes(self) -> int:
        """The connections that may wait in the handshake at once (the door's pool)."""
        return self.door.size

    @property
    def handshaking(self) -> dict[str, int]:
        """The connections in the handshake, by group (an IPv4 address, an IPv6 /64)."""
        return self.door.counts

    @property
    def connections(self) -> int:
        """The open WebSockets (their handshake done, their close not begun)."""
        return len(self.server.connections) if self.server is not None else 0

    def _say(self, line: str) -> None:
        log.info("%s", line)
        if self._status is not None:
            try:
                self._status(line)
            except Exception:
                log.exception("the status line could not be shown")

    async def _process(self, connection: ServerConnection, request: Request) -> Response | None:
        """Route the request's path before the WebSocket opens: its endpoint is kept for
        :meth:`_handle`, or the line it is answered with is sent (and the connection closed)."""
        path = request.path.partition("?")[0]
        answer: Routed
        try:
            routed = self.route(path)
            answer = await _while_open(connection, routed) if inspect.isawaitable(routed) else routed
        except Exception:
            log.exception("a path could not be routed")
            answer = HTTPStatus.INTERNAL_SERVER_ERROR, _("the server could not do that (see its log)")
        if isinstance(answer, tuple):
            status, text = answer
            return connection.respond(HTTPStatus(status), text + "\n")
        if self.connections >= self.max_connections:
            return connection.respond(HTTPStatus.SERVICE_UNAVAILABLE, server_full_text() + "\n")
        if self._address_full(connection):
            return connection.respond(HTTPStatus.SERVICE_UNAVAILABLE, address_full_text() + "\n")
        self._routed[connection] = answer
        return None

    def _group(self, connection: ServerConnection) -> str:
        peer = connection.remote_address
        return address_group(str(peer[0]) if isinstance(peer, tuple) and peer else str(peer))

    def _address_full(self, connection: ServerConnection) -> bool:
        return self.per_address is not None and self.by_address.get(self._group(connection), 0) >= self.per_address

    async def _handle(self, ws: ServerConnection) -> None:
        endpoint = self._routed.pop(ws, None)
        if endpoint is None:  # pragma: no cover - every opened WebSocket was routed
            await ws.close(CLOSE_POLICY, "not found")
            return
        if self._address_full(ws):  # others of its address opened while it was in the handshake
            await ws.close(CLOSE_POLICY, "too many connections from this address")
            return
        group = self._group(ws)
        self.by_address[group] = self.by_address.get(group, 0) + 1
        try:
            await endpoint.handle(ws)
        finally:
            left = self.by_address.pop(group) - 1
            if left:
                self.by_address[group] = left


async def _while_open(connection: ServerConnection, pending: Awaitable[Routed]) -> Routed:
    """What ``pending`` routes the connection to; given up (cancelled) once the connection is
    lost, when there is no one left to answer."""
    routing = asyncio.ensure_future(pending)
    lost = asyncio.ensure_future(connection.wait_closed())
    try:
        await asyncio.wait((routing, lost), return_when=asyncio.FIRST_COMPLETED)
    finally:
        lost.cancel()
        if not routing.done():
            routing.cancel()
    if not routing.done() or routing.cancelled():  # the connection is gone: this is never sent
        return HTTPStatus.SERVICE_UNAVAILABLE, server_full_text()
    return routing.result()


__all__ = [
    "HANDSHAKE_TIMEOUT",
    "MAX_FRAME",
    "Endpoint",
    "Listener",
    "Routed",
    "address_full_text",
    "server_full_text",
]
