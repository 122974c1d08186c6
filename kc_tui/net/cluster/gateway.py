"""``kings-corners gateway``: the door of a cluster's tables. A client's socket to
``/t/<table>/seat/<token>`` or ``/t/<table>/watch`` is carried to the worker that serves the table
(its route in Redis, :class:`~.coord.Coordinator`), its frames passed both ways as they are.
Stateless: several gateways may serve the same tables.

- The door is :class:`~kc_tui.net.listener.Listener`'s: the handshakes' pool, the sockets in all
  and by address, the largest frame. Only a socket the door let in reaches a worker.
- A table with no route (a claim in flight after its worker died) is waited for within the
  handshake, :data:`ROUTE_WAIT` at most, woken by the routes' changes; none by then: 404 and one
  line. Redis not answering by then: 503 (the client tries again).
- The socket opens once the table has a route; then the worker's socket is opened. The worker
  cannot be reached (dead, its route not lapsed yet) or answers that it does not serve the table
  (the route is stale): the gateway tries again as the route changes, within :data:`ROUTE_WAIT`;
  then the client is closed with 1012 (service restart: connect again). The worker is full (503):
  1013 (try again later) with its line.
- The worker closes the socket: the client is closed with the worker's code and reason (a final
  reason, ``bad-token``, ends the client); the worker went away without a close (killed, out of
  reach): 1012. The table's route moves to another worker or epoch: its clients are closed with
  1012 and come back through the new route. The client closes: the worker's socket is closed.
- Backpressure: one frame at a time each way, sent before the next is read.
- ``/lobby`` is the cluster's public tables to browse and watch (:mod:`.lobby_view`): their
  listings followed in Redis, no accounts (a sign-in or a seat is refused with one line).

A seat's token is a secret: it is never logged (paths are logged without it,
:class:`~kc_tui.net.logs.TokenRedacting`). Plain Python and asyncio (no Textual, no Rich).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import secrets
import urllib.parse
from collections.abc import Awaitable, Callable, Iterator
from http import HTTPStatus

from redis.asyncio import Redis
from redis.exceptions import RedisError
from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.connection import Connection
from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus, InvalidURI
from websockets.frames import EXTERNAL_CLOSE_CODES, CloseCode
from websockets.protocol import State

from kc_tui import __version__
from kc_tui.i18n import _
from kc_tui.net import schema
from kc_tui.net.client import PING_INTERVAL, PING_TIMEOUT
from kc_tui.net.cluster.coord import CALL_TIMEOUT, Coordinator, Route, open_redis
from kc_tui.net.cluster.lobby_view import ClusterListing
from kc_tui.net.door import file_limit, files_wanted, pool_size, raise_file_limit
from kc_tui.net.hosting import STOP_SIGNALS, base_url
from kc_tui.net.hub import no_table_text
from kc_tui.net.identity import new_server_id
from kc_tui.net.listener import HANDSHAKE_TIMEOUT, MAX_FRAME, Listener, Routed
from kc_tui.net.lobby_socket import LobbySocket
from kc_tui.net.logs import TokenRedacting, redact, tell
from kc_tui.net.serving import DEFAULT_MAX_SOCKETS, DEFAULT_SOCKETS_PER_ADDRESS
from kc_tui.net.table_service import MAX_TOKEN_TEXT, SEAT_PREFIX, WATCH
from kc_tui.util.printable import one_line

log = logging.getLogger(__name__)

#: Seconds a client's socket waits for its table's route (a claim in flight), and for the
#: route's worker to take the socket: within the client's own wait for its socket to open
#: (kc_tui.net.client.OPEN_TIMEOUT), so it is answered rather than timed out.
ROUTE_WAIT = 8.0
#: Seconds opening a socket to a worker may take.
UPSTREAM_OPEN = 5.0
#: The first and the longest pause between two looks at a table's route while waiting for it
#: (a change of the route wakes the wait at once).
FIRST_LOOK = 0.05
LAST_LOOK = 0.5
#: Seconds a close handshake may take (with the client, with the worker).
CLOSE_TIMEOUT = 3.0
#: The pause before the routes' changes are listened to again after Redis failed (seconds).
RESUBSCRIBE = 1.0
#: The longest line kept of a worker's HTTP answer.
LINE = 200
#: The close reasons the gateway gives (a WebSocket close reason: plain ASCII, short).
MOVED = "the table moved: connect again"
WENT_AWAY = "the table's server went away: connect again"
UNREACHABLE = "the table's server cannot be reached: connect again"

#: A table's id as the gateway looks it up (the lobby's ids are URL-safe text).
_TABLE_ID = re.compile(r"[A-Za-z0-9_.~-]{1,128}")


def gateway_root_text() -> str:
    """What ``GET /`` answers."""
    return _(
        "This is a Kings Corners gateway: join a table with its seat's address (ws://HOST:PORT/t/<table>/seat/<token>)."
    )


def gateway_not_found_text() -> str:
    """The line answering a path the gateway does not serve."""
    return _("Not found: this gateway serves its tables' /t/<table>/seat/<token> and /t/<table>/watch.")


def routes_down_text() -> str:
    """The line answering a socket whose table could not be looked up (Redis not answering)."""
    return _("The gateway cannot look up its tables just now: try again later.")


def moving_text() -> str:
    """The line answering a socket whose table is between two workers (its owner stopped and no
    other has claimed it yet): the client tries again."""
    return _("The table is moving to another worker: your seat is kept, try again in a moment.")


def gateway_serving_line(url: str) -> str:
    """The line a gateway prints once it serves: a fixed form in every language, as a worker's
    (scripts and tests read it)."""
    return f"gateway serving at {url}"


def served_below(rest: str) -> bool:
    """Whether the path below a table is one a table serves: ``seat/<token>``, ``watch``."""
    if rest == WATCH:
        return True
    token = rest.removeprefix(SEAT_PREFIX)
    return rest.startswith(SEAT_PREFIX) and bool(token) and "/" not in token and len(token) <= MAX_TOKEN_TEXT


def worker_url(address: str, table: str, rest: str) -> str:
    """The address of a table's socket at the worker whose address is ``address``
    (``ws://HOST:PORT``; a bare ``HOST:PORT`` is taken as ``ws://``)."""
    base = address if "://" in address else f"ws://{address}"
    return f"{base.rstrip('/')}/t/{table}/{rest}"


def passed_close(upstream: Connection) -> tuple[int, str]:
    """The code and reason a client is closed with when the worker's socket ended: the worker's
    own, when it closed the socket with a code a client may be sent (its reason, ``bad-token``
    or ``closed``, tells the client whether to come back); else 1012, connect again (the worker
    went away without a close: the table is served again elsewhere)."""
    rcvd = upstream.protocol.close_rcvd
    if rcvd is None or not _sendable(rcvd.code):
        return CloseCode.SERVICE_RESTART, WENT_AWAY
    return rcvd.code, rcvd.reason


def _sendable(code: int) -> bool:
    return code in EXTERNAL_CLOSE_CODES or 3000 <= code < 5000


def _same(a: Route, b: Route) -> bool:
    """Whether two routes lead to the same serving of a table (its worker, at its epoch)."""
    return (a.worker, a.epoch, a.address) == (b.worker, b.epoch, b.address)


class Proxied:
    """One client's socket carried to its table's worker (the listener's endpoint for it)."""

    def __init__(self, gateway: Gateway, table: str, rest: str, route: Route) -> None:
        self.gateway = gateway
        self.table = table
        self.rest = rest
        #: The route the socket is carried along (the one it was opened to, once opened).
        self.route = route
        self.ws: ServerConnection | None = None
        self.upstream: ClientConnection | None = None
        #: The route moved: the client is being closed with 1012.
        self.moved = False

    async def handle(self, ws: ServerConnection) -> None:
        self.ws = ws
        self.gateway.proxied.setdefault(self.table, set()).add(self)
        try:
            opening = asyncio.ensure_future(self._open())
            gone = asyncio.ensure_future(ws.wait_closed())
            try:
                await asyncio.wait({opening, gone}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for task in (opening, gone):
                    task.cancel()
                await asyncio.gather(opening, gone, return_exceptions=True)
            upstream = opening.result() if not opening.cancelled() else None
            if upstream is None:
                return
            self.upstream = upstream
            await self._pump(ws, upstream)
        finally:
            kept = self.gateway.proxied.get(self.table)
            if kept is not None:
                kept.discard(self)
                if not kept:
                    del self.gateway.proxied[self.table]
            if self.upstream is not None and self.upstream.state is not State.CLOSED:
                with contextlib.suppress(Exception):
                    await self.upstream.close(CloseCode.GOING_AWAY)

    async def _open(self) -> ClientConnection | None:
        """The worker's socket for this client, tried again as the route changes, within the
        gateway's route wait; None when it could not be had (the client is closed then)."""
        ws = self.ws
        assert ws is not None
        gateway = self.gateway
        loop = asyncio.get_running_loop()
        deadline = loop.time() + gateway.route_wait
        route: Route | None = self.route
        why = UNREACHABLE
        with gateway.waking(self.table) as wake:
            pause = FIRST_LOOK
            while True:
                wake.clear()
                if route is not None:
                    opened = await gateway.open_upstream(route, self.table, self.rest, deadline)
                    if isinstance(opened, ClientConnection):
                        self.route = route
                        return opened
                    status, line = opened
                    why = _reason(line)
                    if status == HTTPStatus.SERVICE_UNAVAILABLE:  # full: as its HTTP answer would say
                        await ws.close(CloseCode.TRY_AGAIN_LATER, _reason(line))
                        return None
                    if status not in (HTTPStatus.NOT_FOUND, HTTPStatus.BAD_GATEWAY):
                        await ws.close(CloseCode.INTERNAL_ERROR, _reason(line))
                        return None
                left = deadline - loop.time()
                if left <= 0 or gateway.closing:
                    await ws.close(CloseCode.SERVICE_RESTART, why)
                    return None
                await _woken(wake, min(pause, left))
                pause = min(pause * 2, LAST_LOOK)
                route = await gateway.look_up(self.table)

    async def _pump(self, ws: ServerConnection, upstream: ClientConnection) -> None:
        """Carry the frames both ways until either side ends, then end the other."""
        down = asyncio.ensure_future(_carry(upstream, ws))
        up = asyncio.ensure_future(_carry(ws, upstream))
        try:
            await asyncio.wait({down, up}, return_when=asyncio.FIRST_COMPLETED)
            if self.moved:
                await self._end(CloseCode.SERVICE_RESTART, MOVED)
            elif upstream.state is not State.OPEN and ws.state is State.OPEN:
                await ws.close(*passed_close(upstream))
            elif upstream.state is State.OPEN:
                rcvd = ws.protocol.close_rcvd
                code = rcvd.code if rcvd is not None and _sendable(rcvd.code) else CloseCode.GOING_AWAY
                await upstream.close(code)
        finally:
            for task in (down, up):
                task.cancel()
            await asyncio.gather(down, up, return_exceptions=True)

    def move(self) -> None:
        """The table's route moved: close the client with 1012 (it connects again, to the new
        route) and its worker's socket. A socket still opening follows the new route itself."""
        if self.moved or self.upstream is None:
            return
        self.moved = True
        self.gateway.background(self._end(CloseCode.SERVICE_RESTART, MOVED))

    async def _end(self, code: int, reason: str) -> None:
        with contextlib.suppress(Exception):
            if self.ws is not None:
                await self.ws.close(code, reason)
        with contextlib.suppress(Exception):
            if self.upstream is not None:
                await self.upstream.close(CloseCode.GOING_AWAY)


async def _woken(wake: asyncio.Event, within: float) -> None:
    """Until ``wake`` is set, ``within`` seconds at most (cancellable at any point: unlike
    ``asyncio.wait_for`` before Python 3.12, a cancellation is never lost when it is set)."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(within):
            await wake.wait()


async def _carry(source: Connection, sink: Connection) -> None:
    """Every message of ``source`` sent on to ``sink`` as it is, in order, one at a time (the
    next is read only once this one is sent), until either ends."""
    with contextlib.suppress(ConnectionClosed):
        async for message in source:
            await sink.send(message)


def _reason(line: str) -> str:
    """A close reason from a worker's line: at most 123 bytes of UTF-8 (the frame's room)."""
    data = line.encode("utf-8")[:123]
    return data.decode("utf-8", "ignore")


class Gateway:
    """Serves a cluster's tables on one port: each client's socket carried to its table's
    worker (see the module docs).

    ``redis``: where the routes are (read only: the gateway holds no lease); ``max_sockets``,
    ``per_address``, ``status``: the listener's (the open sockets at most, of one address at
    most, the console's line); ``route_wait``: seconds a socket waits for its table's route (in
    the handshake's pool of ``max_handshakes``; None: sized by the file limit)."""

    def __init__(
        self,
        redis: Redis,
        *,
        max_sockets: int = schema.MAX_CONNECTIONS,
        per_address: int | None = None,
        status: Callable[[str], None] | None = None,
        route_wait: float = ROUTE_WAIT,
        max_handshakes: int | None = None,
    ) -> None:
        self.redis = redis
        # The routes are read under a name of its own: a gateway never acquires a lease.
        self.coord = Coordinator(redis, f"gateway-{secrets.token_hex(6)}", "")
        self.route_wait = route_wait
        self.status = status
        self.listener = Listener(
            self.route,
            server_name=f"kings-corners {__version__}",
            handshake_timeout=HANDSHAKE_TIMEOUT + route_wait,
            # Each client's socket has its worker's beside it: two files.
            max_handshakes=pool_size(file_limit(), 2 * max_sockets) if max_handshakes is None else max_handshakes,
            max_connections=max_sockets,
            per_address=per_address,
            status=status,
        )
        #: The lobby: the cluster's public tables, to browse and watch (no accounts).
        self.listing = ClusterListing(self.coord, "")
        self.lobby = LobbySocket(self.listing, None, new_server_id(), self.background)
        self.listing.tell = self.lobby.send_all
        #: The sockets carried now, by table.
        self.proxied: dict[str, set[Proxied]] = {}
        #: What wakes each wait for a table's route when the route changes.
        self._wakes: dict[str, set[asyncio.Event]] = {}
        self._watcher: asyncio.Task[None] | None = None
        self._followers: list[asyncio.Task[None]] = []
        self._tasks: set[asyncio.Task[object]] = set()
        self.closing = False
        self.port: int | None = None

    async def start(self, bind: str = "127.0.0.1", port: int = 0) -> int:
        """Listen on ``bind``:``port`` (0: any free port) and follow the routes' changes; the
        bound port."""
        self.port = await self.listener.start(bind, port)
        self.listing.base = base_url(bind, self.port, False)
        self._watcher = asyncio.create_task(self._watch())
        self._followers = [asyncio.create_task(self.listing.follow()), asyncio.create_task(self.listing.read_often())]
        return self.port

    async def close(self) -> None:
        """Stop listening; every client's socket is closed (1001) and so its worker's."""
        self.closing = True
        for wakes in self._wakes.values():
            for wake in wakes:
                wake.set()
        # Cancelled again until each ends: a library's wait (``asyncio.wait_for`` before Python
        # 3.12) may lose a cancellation that arrives as its wait ends.
        waits: list[asyncio.Task[None]] = [*self._followers]
        if self._watcher is not None:
            waits.append(self._watcher)
        for wait in waits:
            while not wait.done():
                wait.cancel()
                await asyncio.wait({wait}, timeout=CLOSE_TIMEOUT / 10)
        await self.listener.close()
        for task in list(self._tasks):
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await task

    @property
    def connections(self) -> int:
        """The clients' open sockets."""
        return self.listener.connections

    def background(self, work: Awaitable[object]) -> None:
        task: asyncio.Task[object] = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ------------------------------------------------------------------ the door
    def route(self, path: str) -> Routed | Awaitable[Routed]:
        """A socket's path: a table's (its route awaited), or the status and line answering it."""
        if path in ("", "/"):
            return HTTPStatus.OK, gateway_root_text()
        if path == "/lobby":
            return self.lobby
        parts = path.split("/")
        if len(parts) >= 4 and parts[1] == "t" and parts[2]:
            table, rest = parts[2], "/".join(parts[3:])
            if not served_below(rest):
                return HTTPStatus.NOT_FOUND, gateway_not_found_text()
            if not _TABLE_ID.fullmatch(table):
                return HTTPStatus.NOT_FOUND, no_table_text()
            return self._routed(table, rest)
        return HTTPStatus.NOT_FOUND, gateway_not_found_text()

    async def _routed(self, table: str, rest: str) -> Routed:
        """The endpoint carrying a table's socket once the table has a route (waited for, woken
        by its changes), else the line saying there is no such table."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.route_wait
        with self.waking(table) as wake:
            pause = FIRST_LOOK
            while True:
                wake.clear()
                try:
                    route = await self.coord.route(table)
                except (RedisError, OSError) as exc:
                    log.debug("the route of table %s could not be read: %s", table, one_line(str(exc), LINE))
                    found: Routed = HTTPStatus.SERVICE_UNAVAILABLE, routes_down_text()
                else:
                    if route is not None:
                        return Proxied(self, table, rest, route)
                    found = await self._unrouted(table)
                left = deadline - loop.time()
                if left <= 0 or self.closing:
                    return found
                await _woken(wake, min(pause, left))
                pause = min(pause * 2, LAST_LOOK)

    async def _unrouted(self, table: str) -> Routed:
        """The answer for a table with no route: a known table is between two owners (its
        clients try again), any other is no table of this cluster."""
        try:
            moving = await self.coord.known(table)
        except (RedisError, OSError):
            return HTTPStatus.SERVICE_UNAVAILABLE, routes_down_text()
        if moving:
            return HTTPStatus.SERVICE_UNAVAILABLE, moving_text()
        return HTTPStatus.NOT_FOUND, no_table_text()

    @contextlib.contextmanager
    def waking(self, table: str) -> Iterator[asyncio.Event]:
        """An event set whenever the table's route changes (or the gateway closes), for as long
        as the block runs."""
        wake = asyncio.Event()
        self._wakes.setdefault(table, set()).add(wake)
        try:
            yield wake
        finally:
            wakes = self._wakes.get(table)
            if wakes is not None:
                wakes.discard(wake)
                if not wakes:
                    del self._wakes[table]

    async def look_up(self, table: str) -> Route | None:
        """The table's route now; None when it has none or Redis does not answer."""
        try:
            return await self.coord.route(table)
        except (RedisError, OSError) as exc:
            log.debug("the route of table %s could not be read: %s", table, one_line(str(exc), LINE))
            return None

    async def open_upstream(
        self, route: Route, table: str, rest: str, deadline: float
    ) -> ClientConnection | tuple[int, str]:
        """A socket to the table's worker, or what stood in the way: the worker's HTTP status
        and line, or 502 when it could not be reached."""
        left = deadline - asyncio.get_running_loop().time()
        try:
            return await connect(
                worker_url(route.address, table, rest),
                open_timeout=min(UPSTREAM_OPEN, max(left, 1.0)),
                ping_interval=PING_INTERVAL,
                ping_timeout=PING_TIMEOUT,
                close_timeout=CLOSE_TIMEOUT,
                max_size=MAX_FRAME,
                compression=None,
                proxy=None,
                user_agent_header=f"kings-corners-gateway/{__version__}",
                logger=TokenRedacting(logging.getLogger(f"{__name__}.ws")),
            )
        except InvalidStatus as exc:
            body = exc.response.body or b""
            line = one_line(body.decode("utf-8", "replace").strip(), LINE)
            log.debug("worker %s answered HTTP %s for table %s", route.worker, exc.response.status_code, table)
            return exc.response.status_code, line
        except (OSError, TimeoutError, InvalidHandshake, InvalidURI, ValueError) as exc:
            log.debug(
                "worker %s of table %s cannot be reached: %s", route.worker, table, redact(one_line(str(exc), LINE))
            )
            return HTTPStatus.BAD_GATEWAY, UNREACHABLE

    # ------------------------------------------------------------------ the routes' changes
    async def _watch(self) -> None:
        """Follow the routes' changes: wake the waits for a table's route, and close the sockets
        of a table whose route moved (1012: they come back through the new one)."""
        while True:
            try:
                async for change in self.coord.route_changes():
                    if change is None:
                        await self._look_again()
                    else:
                        self._changed(change)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.info("the routes' changes could not be followed: %s", one_line(str(exc), LINE))
            await asyncio.sleep(RESUBSCRIBE)
            await self._look_again()

    def _changed(self, route: Route) -> None:
        for wake in self._wakes.get(route.table, ()):
            wake.set()
        for proxied in list(self.proxied.get(route.table, ())):
            if not _same(proxied.route, route):
                log.info(
                    "table %s moved to worker %s (epoch %s): its sockets connect again",
                    route.table,
                    route.worker,
                    route.epoch,
                )
                proxied.move()

    async def _look_again(self) -> None:
        """After the changes may have been missed: every table carried now looked up again."""
        for wakes in self._wakes.values():
            for wake in wakes:
                wake.set()
        for table in list(self.proxied):
            route = await self.look_up(table)
            if route is not None:
                self._changed(route)


def _shown(url: str) -> str:
    """A Redis address as it may be shown: without its user and password."""
    try:
        parts = urllib.parse.urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "redis://?"
    if ":" in host:
        host = f"[{host}]"
    return urllib.parse.urlunsplit((parts.scheme, host + port, parts.path, "", ""))


def serve_gateway(
    redis_url: str,
    *,
    bind: str,
    port: int,
    status: Callable[[str], None],
    max_sockets: int = DEFAULT_MAX_SOCKETS,
    per_address: int | None = DEFAULT_SOCKETS_PER_ADDRESS,
) -> int:
    """Serve a gateway until SIGTERM or SIGINT (blocking); the exit code. Redis that cannot be
    reached at the start, or a port that cannot be listened on: one line, 2. ``max_sockets``,
    ``per_address``: the door's limits (the one-process server's defaults)."""
    raise_file_limit(files_wanted(2 * max_sockets))
    return asyncio.run(
        _serve(redis_url, bind=bind, port=port, status=status, max_sockets=max_sockets, per_address=per_address)
    )


async def _serve(
    redis_url: str,
    *,
    bind: str,
    port: int,
    status: Callable[[str], None],
    max_sockets: int,
    per_address: int | None,
) -> int:
    try:
        redis = open_redis(redis_url)
    except ValueError as exc:
        # Translators: {address} is a Redis address (redis://HOST:PORT), {reason} what is wrong with it.
        status(
            _("{address} is not a Redis address: {reason}").format(
                address=_shown(redis_url), reason=one_line(str(exc), LINE)
            )
        )
        return 2
    try:
        try:
            async with asyncio.timeout(CALL_TIMEOUT):
                await redis.ping()
        except (RedisError, OSError, TimeoutError) as exc:
            # Translators: {address} is a Redis address (redis://HOST:PORT), {reason} why it did not answer.
            status(
                _("cannot reach Redis at {address}: {reason}").format(
                    address=_shown(redis_url), reason=one_line(str(exc) or type(exc).__name__, LINE)
                )
            )
            return 2
        gateway = Gateway(redis, max_sockets=max_sockets, per_address=per_address, status=status)
        try:
            bound = await gateway.start(bind, port)
        except OSError as exc:
            await gateway.close()
            status(
                _("cannot listen on {address}: {reason}").format(
                    address=f"{bind}:{port}", reason=one_line(exc.strerror or str(exc))
                )
            )
            return 2
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in STOP_SIGNALS:
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, stop.set)
        tell(log, status, gateway_serving_line(base_url(bind, bound, False)))
        try:
            await stop.wait()
        finally:
            await gateway.close()
        return 0
    finally:
        await redis.aclose()


__all__ = [
    "ROUTE_WAIT",
    "Gateway",
    "Proxied",
    "gateway_not_found_text",
    "gateway_root_text",
    "gateway_serving_line",
    "moving_text",
    "passed_close",
    "routes_down_text",
    "serve_gateway",
    "served_below",
    "worker_url",
]
