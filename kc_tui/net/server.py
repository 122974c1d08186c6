"""The table server: one :class:`~kc_tui.match.table.TableDriver` on an asyncio loop, its seats
and spectators on WebSockets (docs/PROTOCOL.md).

Plain Python and asyncio (no Textual, no Rich). Everything that touches the driver runs on the
loop; the AIs think in worker threads (``asyncio.to_thread``) on frozen views, and their moves
are applied back on the loop through the driver (stale ones are dropped). Every message to a seat
is an encoding of ``driver.snapshot(seat)`` (:mod:`kc_tui.net.views`), a spectator's of
``driver.snapshot(None)``: nothing else goes into a state.

Seat tokens are secrets: they are compared with :func:`hmac.compare_digest` and never logged.
Whatever a client sends, the server answers as PROTOCOL.md says and goes on serving the others;
what goes wrong inside is written to the app's log, never shown as a traceback.

Typical use::

    server = TableServer(session, stand_in=60)
    port = await server.start("127.0.0.1", 0)
    print(server.tokens)              # {seat: token} of every person's seat
    ...
    await server.close()
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import hmac
import logging
import secrets
import time
from collections import deque
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
from ssl import SSLContext
from typing import TYPE_CHECKING, Any

from websockets.asyncio.server import Server, ServerConnection, broadcast, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response
from websockets.protocol import State

from ai import AIPlayer
from ai.safe import SafePlayer
from kc_tui.engine import END, card_str
from kc_tui.i18n import N_, _
from kc_tui.match.recorder import Recorder, match_record
from kc_tui.match.roster import build_ai, seat_seed
from kc_tui.match.session import MatchSession
from kc_tui.match.table import LogNotShared, TableDriver, TableStamp
from kc_tui.net import protocol as p
from kc_tui.net import views
from kc_tui.net.door import Door, Pending, file_limit, pool_size
from kc_tui.net.logs import TokenRedacting
from kc_tui.util.files import HandleReserve

if TYPE_CHECKING:
    from kc_tui.records.rows import MatchRecord

log = logging.getLogger(__name__)

#: The kind of AI that stands in for a person whose client is away.
STAND_IN_KIND = "lookahead"
#: The longest path segment taken as a token (a longer one is refused before the WebSocket opens).
MAX_TOKEN_TEXT = 128
#: Seconds between the tries of a save while the table holds (its save failed): a change at the
#: table (a move asked for, a client coming) tries it at once too.
SAVE_RETRY = 2.0
#: The file handles kept for the table's saves: the save file being written, and its folder
#: opened to flush it, with one to spare.
SAVE_HANDLES = 3
#: WebSocket close codes.
CLOSE_POLICY = 1008
CLOSE_NORMAL = 1000
CLOSE_GOING_AWAY = 1001
#: What every client is told when the host closes the table, and how long the telling may take.
CLOSED_TEXT = N_("the host closed the table; 'host --resume' serves it again")
CLOSE_WAIT = 2.0
CLOSE_TOO_LARGE = 1009
#: Seconds a new TCP connection has to finish the WebSocket handshake (its HTTP upgrade).
HANDSHAKE_TIMEOUT = 5.0
#: The largest frame read at all (a larger one closes the connection with 1009 unanswered); one
#: over :data:`~kc_tui.net.protocol.MAX_MESSAGE` and up to this is answered ``too-large``.
MAX_FRAME = 4 * p.MAX_MESSAGE
#: Messages waiting to be written to one client (its newest state counts once); a client that
#: reads so slowly that more pile up is closed.
MAX_PENDING = 200
#: The rounds whose replay frames are kept (by round and viewer), the latest asked.
REPLAYS_KEPT = 8
#: The errors of ``accept()`` that mean the process (or the system) is out of file handles.
OUT_OF_HANDLES = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
#: Seconds without such an error after which the next one is shown to the host again.
OUT_OF_HANDLES_QUIET = 60.0


def new_token() -> str:
    """A seat token: :data:`~kc_tui.net.protocol.TOKEN_BYTES` random bytes, URL-safe base64."""
    return secrets.token_urlsafe(p.TOKEN_BYTES)


def seat_path(token: str) -> str:
    return f"/seat/{token}"


WATCH_PATH = "/watch"


def displaced_text(name: str) -> str:
    """What the older connection of ``name``'s seat is told when a newer one takes the seat."""
    # Translators: {name} is the seat's player.
    return _(
        "someone else joined with your seat's address: {name}'s seat is theirs now (if it was not you,"
        " tell the host: whoever has the address can take the seat)"
    ).format(name=name)


@dataclass(eq=False)
class _Client:
    """One connection: its seat (None: a spectator, or not said hello yet), its token bucket and
    its counts of refused messages in a row."""

    ws: ServerConnection
    wants_seat: bool
    seat: int | None = None
    ready: bool = False
    tokens: float = float(p.RATE_BURST)
    refill_at: float = field(default_factory=time.monotonic)
    slowed: int = 0
    malformed: int = 0
    closing: bool = False
    #: What waits to be written, in order: ``(kind, text)``, kind "state", "message" or "close"
    #: (text: the close reason). At most one state: a newer one replaces it (at the end).
    pending: deque[tuple[str, str]] = field(default_factory=deque)
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    close_code: int = CLOSE_NORMAL

    def allow(self) -> bool:
        """Take one message from the token bucket; False when it is empty (counted in
        ``slowed``, which goes back to 0 only once the bucket has filled up again: a client that
        calmed down)."""
        now = time.monotonic()
        self.tokens = min(float(p.RATE_BURST), self.tokens + (now - self.refill_at) * p.RATE_PER_SECOND)
        self.refill_at = now
        if self.tokens >= p.RATE_BURST - 1:
            self.slowed = 0
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        self.slowed += 1
        return False


class TableServer:
    """Serves one match (a :class:`MatchSession`) to its seats' clients. See the module docs.

    ``tokens``: the seat tokens by match seat (new ones for every person's seat by default);
    ``stand_in``: seconds a person's seat waits for its client before an AI plays it (0: never);
    ``ai_delay``: seconds before an AI's move (so people can follow it); ``round_pause``: seconds
    a finished round stays on the table before it is scored and the next is dealt;
    ``status``: called with one plain line for the host (who came and left, stand-ins, rounds);
    ``max_handshakes``: the connections that may wait in the WebSocket handshake at once (None: as
    many as the file limit leaves room for, :func:`~kc_tui.net.door.pool_size`).
    A saved table makes a move only once its save holds it (:attr:`MatchSession.save_first`):
    while saving fails it holds (moves refused with the reason, every seat and the host told)
    and goes on by itself once a save works again (tried every :data:`SAVE_RETRY` seconds).
    A session whose log names a person's draws is refused (:class:`LogNotShared`): every
    viewer's state is built from that viewer's view, and such a log is one person's alone."""

    def __init__(
        self,
        session: MatchSession,
        *,
        tokens: Mapping[int, str] | None = None,
        stand_in: float = 60.0,
        ai_delay: float = 0.3,
        round_pause: float = 1.5,
        stand_in_think_ms: int = 500,
        ssl: SSLContext | None = None,
        status: Callable[[str], None] | None = None,
        server_name: str = "kings-corners",
        hello_timeout: float = p.HELLO_TIMEOUT,
        max_connections: int = p.MAX_CONNECTIONS,
        handshake_timeout: float = HANDSHAKE_TIMEOUT,
        max_handshakes: int | None = None,
        recorder: Recorder | None = None,
    ) -> None:
        if session.log_owner is not None:
            raise LogNotShared(
                "a table served to many needs a shared log: this match's log names"
                f" {session.names[session.log_owner]}'s drawn cards (build it with MatchSession.hosted)"
            )
        self.session = session
        self.driver = TableDriver(session, pace="instant", recorder=recorder)
        #: The save's problem last told (None: the table is saved).
        self._save_told: str | None = None
        self.save_retry = SAVE_RETRY
        #: The history's problem last told.
        self._history_told: str | None = None
        people = session.human_seats
        self.tokens: dict[int, str] = dict(tokens) if tokens is not None else {s: new_token() for s in people}
        if sorted(self.tokens) != list(people):
            raise ValueError("a token is needed for every person's seat, and only for those")
        self.stand_in_after = stand_in
        self.ai_delay = ai_delay
        self.round_pause = round_pause
        self.stand_in_think_ms = stand_in_think_ms
        self.ssl = ssl
        self.server_name = server_name
        self._status = status
        self.hello_timeout = hello_timeout
        self.max_connections = max_connections
        self.handshake_timeout = handshake_timeout
        #: Connections in the WebSocket handshake (kc_tui.net.door), as many as the file limit allows.
        self.door = Door(pool_size(file_limit(), max_connections) if max_handshakes is None else max_handshakes)
        self._last_out_of_handles: float | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_handler: Callable[[asyncio.AbstractEventLoop, dict[str, Any]], object] | None = None
        #: The stamp of the state: bumped whenever the position changes. It starts at the clock's
        #: milliseconds, so a table served again (``host --resume``) never reuses a stamp it sent.
        self.stamp = time.time_ns() // 1_000_000
        self._position: TableStamp = self.driver.stamp
        self._seated: dict[int, _Client] = {}
        self._watchers: set[_Client] = set()
        self._clients: set[_Client] = set()
        #: Person seats an AI plays now (their client is away), and those AIs.
        self.standing_in: set[int] = set()
        self._stand_ins: dict[int, AIPlayer] = {}
        self._stand_in_round: dict[int, int] = {}
        self._away_timers: dict[int, asyncio.Task[None]] = {}
        self._hinting = False
        #: The frames of the rounds replayed lately, by round and viewer (a finished round never changes).
        self._replays: dict[tuple[int, int | None], tuple[list[str], int, int | None]] = {}
        self._replay_lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[None]] = set()
        self._wake = asyncio.Event()
        self._server: Server | None = None
        self._table_task: asyncio.Task[None] | None = None
        self._closed = False
        self.port: int | None = None

    # ------------------------------------------------------------------ running
    async def start(self, host: str = "127.0.0.1", port: int = 0) -> int:
        """Listen on ``host``:``port`` (0: any free port) and start the table; the bound port."""
        loop = asyncio.get_running_loop()
        if self.session.handle_reserve is None:
            # A flood of connections can take every file handle the process may open: the
            # save, which the table waits for, keeps a few of its own.
            self.session.handle_reserve = HandleReserve(SAVE_HANDLES)
        self._loop, self._loop_handler = loop, loop.get_exception_handler()
        loop.set_exception_handler(self._loop_exception)
        self._server = await serve(
            self._handle,
            host,
            port,
            process_request=self._route,
            create_connection=_gated(self),
            max_size=MAX_FRAME,
            max_queue=64,
            compression=None,
            ssl=self.ssl,
            server_header=self.server_name,
            open_timeout=self.handshake_timeout,
            close_timeout=3,
            logger=TokenRedacting(logging.getLogger(f"{__name__}.ws")),
        )
        sockets = list(self._server.sockets)
        self.port = int(sockets[0].getsockname()[1])
        for seat in self.session.human_seats:
            self._start_away_timer(seat)
        self._table_task = asyncio.create_task(self._run_table(), name="table")
        return self.port

    async def close(self) -> None:
        """Stop serving: every client is told the table is closed (``closed``), then its
        connection is closed (the match's save stays)."""
        if self._closed:
            return
        self._closed = True
        told = [c for c in self._clients if not c.closing]
        for client in told:
            self._send(client, p.error(p.CLOSED, _(CLOSED_TEXT)))
            self._close(client, CLOSE_GOING_AWAY, p.CLOSED)
        if told:  # what was queued is written before the server closes the connections
            with contextlib.suppress(Exception):
                await asyncio.wait([asyncio.ensure_future(c.ws.wait_closed()) for c in told], timeout=CLOSE_WAIT)
        for task in self._away_timers.values():
            task.cancel()
        if self._table_task is not None:
            self._table_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._table_task
        if self.session.handle_reserve is not None:
            self.session.handle_reserve.close()
            self.session.handle_reserve = None
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
        # After accept() ran out of handles, asyncio retries listening a second later even once
        # the socket is closed: the handler stays to keep that retry's error quiet.
        if (
            self._loop is not None
            and self._last_out_of_handles is None
            and self._loop.get_exception_handler() == self._loop_exception
        ):
            self._loop.set_exception_handler(self._loop_handler)

    @property
    def connected(self) -> list[bool]:
        """By match seat: whether a person's client is there (always True for an AI's seat)."""
        return [not seat.is_human or i in self._seated for i, seat in enumerate(self.session.seats)]

    def pending(self, seat: int | None) -> tuple[int, int]:
        """What waits to be written to ``seat``'s client (None: every spectator's together): the
        states and the other messages."""
        clients = [c for c in self._clients if c.seat == seat and (seat is not None or not c.wants_seat)]
        kinds = [kind for c in clients for kind, _text in c.pending]
        return kinds.count("state"), len(kinds) - kinds.count("state")

    # ------------------------------------------------------------------ raw connections
    @property
    def max_handshakes(self) -> int:
        """The connections that may wait in the handshake at once (the door's pool)."""
        return self.door.size

    @property
    def handshaking(self) -> dict[str, int]:
        """The connections in the handshake, by group (an IPv4 address, an IPv6 /64)."""
        return self.door.counts

    def _quiet_since_out_of_handles(self) -> bool:
        last = self._last_out_of_handles
        return last is None or time.monotonic() - last >= OUT_OF_HANDLES_QUIET

    def _loop_exception(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """The loop's exception handler: ``accept()`` out of file handles is one plain line for
        the host (again only after a quiet minute), never a traceback; the rest as before."""
        exc = context.get("exception")
        if isinstance(exc, OSError) and exc.errno in OUT_OF_HANDLES and "accept" in str(context.get("message")):
            if self._quiet_since_out_of_handles():
                # Translators: {error} is the system's reason (in English).
                self._say(
                    _(
                        "out of file handles ({error}): new connections wait until some close;"
                        " the seated people play on"
                    ).format(error=exc.strerror or exc)
                )
            log.warning("accept() failed: %s", exc.strerror or exc)
            self._last_out_of_handles = time.monotonic()
            return
        if isinstance(exc, ValueError) and "_start_serving" in str(context.get("message")):
            # asyncio's retry of listening after accept() ran out of handles, on a socket closed
            # meanwhile (the table was closed): there is nothing left to serve.
            log.debug("a retry of listening on a closed socket: %s", exc)
            return
        if self._loop_handler is not None:
            self._loop_handler(loop, context)
        else:
            loop.default_exception_handler(context)

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

    # ------------------------------------------------------------------ HTTP
    def _route(self, connection: ServerConnection, request: Request) -> Response | None:
        """Refuse every path but ``/seat/<token>`` and ``/watch`` before the WebSocket opens. Once
        the table serves ``max_connections``, only a person coming back to their seat is let in."""
        path = request.path.partition("?")[0]
        full = self._server is not None and len(self._server.connections) >= self.max_connections
        head, _sep, token = path.partition("/seat/")
        if path == WATCH_PATH or (not head and token and "/" not in token and len(token) <= MAX_TOKEN_TEXT):
            if full and (path == WATCH_PATH or self._seat_of(token) is None):
                return connection.respond(
                    HTTPStatus.SERVICE_UNAVAILABLE, _("This table is full: try again later.") + "\n"
                )
            return None
        return connection.respond(HTTPStatus.NOT_FOUND, _("Not found: a table has /seat/<token> and /watch.") + "\n")

    def _seat_of(self, token: str) -> int | None:
        """The seat whose token is ``token`` (every token is compared, in constant time)."""
        given = token.encode("utf-8", "surrogatepass")
        found: int | None = None
        for seat, secret in self.tokens.items():
            if hmac.compare_digest(given, secret.encode("ascii")):
                found = seat
        return found

    # ------------------------------------------------------------------ one connection
    async def _handle(self, ws: ServerConnection) -> None:
        path = ws.request.path.partition("?")[0] if ws.request is not None else ""
        client = _Client(ws, wants_seat=path != WATCH_PATH)
        token = path.partition("/seat/")[2]
        self._clients.add(client)
        writer = asyncio.create_task(self._write(client), name="writer")
        try:
            await self._hello(client, token)
            # Read to the end, also while closing: the closing handshake is read behind what the
            # client sent before it (a paused reader would never see it).
            async for message in ws:
                await self._receive(client, message)
        except ConnectionClosed:
            pass
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("a connection failed; the table goes on")
        finally:
            self._clients.discard(client)
            self._left(client)
            writer.cancel()
            client.pending.clear()

    async def _write(self, client: _Client) -> None:
        """Write what waits for ``client``, in order, as fast as it reads (its close last)."""
        ws = client.ws
        try:
            while True:
                await client.wake.wait()
                client.wake.clear()
                while client.pending:
                    kind, text = client.pending.popleft()
                    if kind == "close":
                        await ws.close(client.close_code, text)
                        return
                    await ws.send(text)
        except ConnectionClosed:
            client.pending.clear()

    async def _hello(self, client: _Client, token: str) -> bool:
        """Wait for the ``hello`` (answering anything else ``hello-first``) and seat the client;
        False when the connection is to close."""
        ws = client.ws
        try:
            async with asyncio.timeout(self.hello_timeout):
                while True:
                    message = await ws.recv()
                    try:
                        hello = self._parse(client, message)
                    except p.ProtocolError as exc:
                        if not self._refuse(client, exc):
                            return False
                        continue
                    if isinstance(hello, p.Hello):
                        break
                    self._send(client, p.error(p.HELLO_FIRST, "say hello first", getattr(hello, "id", None)))
        except TimeoutError:
            self._close(client, CLOSE_POLICY, f"no hello within {self.hello_timeout:g} seconds")
            return False
        if client.wants_seat:
            seat = self._seat_of(token)
            if seat is None:
                self._send(client, p.error(p.BAD_TOKEN, _("no seat at this table has this token"), hello.id))
                self._close(client, CLOSE_POLICY, "bad-token")
                return False
            self._sit(client, seat)
        else:
            self._watchers.add(client)
            client.ready = True
            self._send(client, self._welcome(None))
            self._send(client, self._state_for(None), state=True)
        return True

    def _sit(self, client: _Client, seat: int) -> None:
        """Give ``seat`` to ``client``: an older connection of that seat is told and closed."""
        old = self._seated.get(seat)
        name = self.session.names[seat]
        if old is not None:  # the newer connection wins: the older is told why before it is closed
            old.ready = False
            self._send(old, p.error(p.SEAT_TAKEN, displaced_text(name)))
            self._close(old, CLOSE_NORMAL, p.SEAT_TAKEN)
            self._say(
                _("{name}'s seat was joined from another connection with its address: the older one was closed").format(
                    name=name
                )
            )
        client.seat = seat
        client.ready = True
        self._seated[seat] = client
        timer = self._away_timers.pop(seat, None)
        if timer is not None:
            timer.cancel()
        back = seat in self.standing_in
        self.standing_in.discard(seat)
        if old is None:
            line = _("{name} connected: the seat is theirs again") if back else _("{name} connected")
            self._say(line.format(name=name))
        self._send(client, self._welcome(seat))
        self._changed()  # the state to every client, this one included

    def _left(self, client: _Client) -> None:
        self._watchers.discard(client)
        seat = client.seat
        if seat is None or self._seated.get(seat) is not client:
            return
        del self._seated[seat]
        if self._closed:
            return
        self._say(f"{self.session.names[seat]} left")
        self._start_away_timer(seat)
        self._changed()

    def _close(self, client: _Client, code: int, reason: str) -> None:
        """Close ``client``'s connection once what it was sent is written (its messages from now
        on are read and dropped)."""
        if client.closing:
            return
        client.ready = False
        client.closing = True
        client.close_code = code
        client.pending.append(("close", reason))
        client.wake.set()

    def _parse(self, client: _Client, message: str | bytes) -> p.ClientMessage:
        """The client's message; ProtocolError for a bad one (``slow-down``: over the rate)."""
        if not client.allow():
            raise p.ProtocolError(p.SLOW_DOWN, _("too many messages: this one was dropped"))
        parsed = p.parse_client(message)
        client.malformed = 0
        return parsed

    def _refuse(self, client: _Client, exc: p.ProtocolError) -> bool:
        """Answer a refused message; False when the connection is closed for it."""
        if exc.code == p.SLOW_DOWN:
            if client.slowed > p.SLOW_DOWN_CLOSE:
                self._close(client, CLOSE_POLICY, "slow-down: too many messages")
                return False
            self._send(client, p.error(p.SLOW_DOWN, exc.message))
            return True
        self._send(client, p.error(exc.code, exc.message, exc.id))
        if exc.code == p.UPGRADE:
            self._close(client, CLOSE_POLICY, "upgrade")
            return False
        if exc.code == p.TOO_LARGE:
            self._close(client, CLOSE_TOO_LARGE, "too-large")
            return False
        if exc.code == p.MALFORMED:
            client.malformed += 1
            if client.malformed >= p.MALFORMED_CLOSE:
                self._close(client, CLOSE_POLICY, "malformed: too many in a row")
                return False
        return True

    async def _receive(self, client: _Client, message: str | bytes) -> bool:
        """Answer one message; False when the connection is to close."""
        if not client.ready:
            return False
        if client.closing:
            return False
        try:
            request = self._parse(client, message)
        except p.ProtocolError as exc:
            return self._refuse(client, exc)
        try:
            await self._answer(client, request)
        except ConnectionClosed:
            raise
        except Exception:
            log.exception("a request could not be answered; the table goes on")
            if isinstance(request, p.MoveRequest | p.UndoRequest | p.HintRequest | p.ReplayRequest):
                self._send(client, p.refused(request.id, _("the server could not do that (see its log)")))
        return True

    async def _answer(self, client: _Client, request: p.ClientMessage) -> None:
        if isinstance(request, p.Ping):
            self._send(client, p.pong(request.id))
            return
        if isinstance(request, p.Hello):
            self._send(client, p.error(p.HELLO_FIRST, "hello is the first message only", request.id))
            return
        if isinstance(request, p.ReplayRequest):
            await self._replay(client, request)
            return
        s = self.session
        seat = client.seat
        if seat is None:
            self._send(client, p.error(p.NOT_YOUR_TURN, _("a spectator does not play"), request.id))
            return
        if request.stamp != self.stamp:
            self._send(client, p.refused(request.id, _("the table moved on: choose again in the newest state")))
            return
        if not s.human_to_move or s.to_move != seat:
            if s.match.round.over:
                waiting = _("not your turn: the round is over")
            else:
                # Translators: {name} is the player whose turn it is.
                waiting = _("not your turn: it is {name}'s turn").format(name=s.names[s.to_move])
            self._send(client, p.error(p.NOT_YOUR_TURN, waiting, request.id))
            return
        if isinstance(request, p.MoveRequest):
            reason = self.driver.play(request.parsed)
            if reason is not None:
                self._send(client, p.refused(request.id, reason))
                self._told_hold()
                return
            self._changed()
        elif isinstance(request, p.UndoRequest):
            if not self.driver.undo():
                self._send(client, p.refused(request.id, s.why_no_undo))
                self._told_hold()
                return
            self._changed()
        else:
            await self._hint(client, request)

    def _told_hold(self) -> None:
        """After a refused move: when its save failing made the table hold (or its problem
        changed), every seat and the host are told."""
        if self.session.save_problem != self._save_told:
            self._changed()

    async def _hint(self, client: _Client, request: p.HintRequest) -> None:
        if self._hinting:
            self._send(client, p.refused(request.id, _("a hint is being worked out already")))
            return
        self._hinting = True
        try:
            decision = await asyncio.to_thread(self.driver.hint_job().run)
        finally:
            self._hinting = False
        if not self.driver.hint_ready(decision):
            self._send(client, p.refused(request.id, _("the table moved on: ask again")))
            return
        from kc_tui.engine import move_str

        words = decision.note or f"Hint: {self.session.suggest(decision.move)}."
        self._send(client, p.hint(request.id, move_str(decision.move), words))

    async def _replay(self, client: _Client, request: p.ReplayRequest) -> None:
        """A finished round of this match as ``client``'s seat saw it (a spectator: as the
        table did), from the position asked on: a page of frames, each an encoding of that
        viewer's view there (:func:`~kc_tui.net.views.replay_frames`), or ``refused``."""
        s = self.session
        number, viewer = request.round, client.seat
        if number > len(s.match.results):
            if number == len(s.match.results) + 1 and not s.match.over:
                why = _("round {number} is still being played: its replay comes once it has ended")
            else:
                why = _("this match has no round {number}")
            self._send(client, p.refused(request.id, why.format(number=number)))
            return
        from kc_tui.match.replay import ReplayError  # the history's records load with the first replay

        try:
            frames, dealer, winner = await self._replay_frames(number, viewer)
        except ReplayError as exc:
            why = _("round {number} cannot be replayed: {problem}")
            self._send(client, p.refused(request.id, why.format(number=number, problem=exc)))
            return
        if request.start >= len(frames):
            # Translators: {last} is the round's last position (its number of moves).
            why = _("round {number} has positions 0 to {last}, not {start}")
            last = len(frames) - 1
            self._send(client, p.refused(request.id, why.format(number=number, last=last, start=request.start)))
            return
        page = views.replay_page(
            frames, request.start, id=request.id, number=number, seat=viewer, dealer=dealer, winner=winner
        )
        self._send(client, page)

    async def _replay_frames(self, number: int, viewer: int | None) -> tuple[list[str], int, int | None]:
        """Round ``number``'s frames for ``viewer``, its dealer and who went out: built off the
        loop, one round at a time, and kept for the rounds asked last (a finished round never
        changes). ReplayError when the match's record does not replay."""
        key = (number, viewer)
        async with self._replay_lock:
            built = self._replays.get(key)
            if built is None:
                s = self.session
                record = match_record(s.match, s.seats, s.record)
                style = "ascii" if s.fmt is card_str else "symbols"
                built = await asyncio.to_thread(_replay_of, record, number, viewer, style)
                self._replays[key] = built
                while len(self._replays) > REPLAYS_KEPT:
                    self._replays.pop(next(iter(self._replays)))
            return built

    # ------------------------------------------------------------------ messages
    def _send(self, client: _Client, text: str, *, state: bool = False) -> None:
        """Send ``text`` to ``client`` without waiting (a closing connection is skipped): written
        at once while the client reads, else kept in its queue, where a ``state`` replaces the
        one still waiting (a slow client gets the newest). A client with :data:`MAX_PENDING`
        messages unread is closed."""
        if client.closing or client.ws.protocol.state is not State.OPEN:
            return
        if not client.pending and not client.ws.paused:
            broadcast([client.ws], text)
            return
        if state:
            for i, (kind, _text) in enumerate(client.pending):
                if kind == "state":
                    del client.pending[i]
                    break
        if len(client.pending) >= MAX_PENDING:
            client.pending.clear()
            client.ready = False
            client.closing = True
            log.info("a client was closed: %d messages unread", MAX_PENDING)
            self._background(client.ws.close(CLOSE_POLICY, "too slow: messages unread"))
            return
        client.pending.append(("state" if state else "message", text))
        client.wake.set()

    def _welcome(self, seat: int | None) -> str:
        s = self.session
        name = s.names[seat] if seat is not None else "Spectator"
        seats = [(x.name, x.kind) for x in s.seats]
        return p.welcome(seat, name, self.server_name, s.match.rules.to_dict(), seats)

    def _state_for(self, viewer: int | None) -> str:
        stand_in = [i in self.standing_in for i in range(self.session.match.n)]
        return views.state(self.driver, viewer, stamp=self.stamp, connected=self.connected, stand_in=stand_in)

    def _changed(self) -> None:
        """Something at the table changed: bump the stamp when the position did, say whether the
        table is kept, send every client its state and wake the table."""
        if self.driver.stamp != self._position:
            self._position = self.driver.stamp
            self.stamp += 1
        self._tell_saving()
        seated = [(seat, client) for seat, client in self._seated.items() if client.ready]
        watchers = [c for c in self._watchers if c.ready]
        viewers: list[int | None] = [seat for seat, _client in seated] + ([None] if watchers else [])
        if viewers:
            stand_in = [i in self.standing_in for i in range(self.session.match.n)]
            texts = views.states(self.driver, viewers, stamp=self.stamp, connected=self.connected, stand_in=stand_in)
            for seat, client in seated:
                self._send(client, texts[seat], state=True)
            for client in watchers:
                self._send(client, texts[None], state=True)
        self._wake.set()

    def _tell_saving(self) -> None:
        """Tell the host's console when the table starts holding because its save fails, and when
        a save works again (every state says it too: ``save_problem``); the same for the history."""
        problem = self.session.save_problem if self.session.save_path is not None else None
        if problem is not None and problem != self._save_told:
            self._say(self._hold_line(problem))
        elif problem is None and self._save_told is not None:
            self._say(_("The table is saved again: play goes on"))
        self._save_told = problem
        history = self.driver.recorder.status.problem if self.driver.recorder is not None else None
        if history != self._history_told and history is not None:
            # Translators: {problem} is why the history cannot be written.
            self._say(
                _("The game history could not record the round yet ({problem}): it is kept and tried again").format(
                    problem=history
                )
            )
        self._history_told = history

    @staticmethod
    def _hold_line(problem: str) -> str:
        # Translators: {problem} is why the table cannot be saved ("the disk is full").
        return _(
            "The table holds: it cannot be saved ({problem}). No move is made until it can be;"
            " the save is tried again by itself"
        ).format(problem=problem)

    async def _hold(self) -> None:
        """The table holds (its save fails): wait for a change or :attr:`save_retry` seconds, then
        try the save again; once it works, everyone is told and play goes on."""
        if self.session.save_problem != self._save_told:
            self._changed()  # told at once, whichever save failed
        self._wake.clear()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(self.save_retry):
                await self._wake.wait()
        if self.session.holding:
            self.session.retry_save()
        if self.session.save_problem != self._save_told:
            self._changed()

    # ------------------------------------------------------------------ the table
    def _start_away_timer(self, seat: int) -> None:
        if self.stand_in_after <= 0 or seat in self._away_timers or self._closed:
            return
        self._away_timers[seat] = asyncio.create_task(self._away(seat), name=f"away-{seat}")

    async def _away(self, seat: int) -> None:
        await asyncio.sleep(self.stand_in_after)
        self._away_timers.pop(seat, None)
        if seat not in self._seated:
            self._stand_in(seat)

    def stand_in_now(self, name: str) -> str:
        """The host's ``ai NAME``: an AI plays that person's seat at once while their client is
        away. One line saying what happened."""
        s = self.session
        wanted = name.strip().casefold()
        seat = next((i for i, n in enumerate(s.names) if n.casefold() == wanted), None)
        if seat is None:
            # Translators: {name} is the name the host typed (quoted), {names} the seats' names.
            return _("no seat is named {name}: the seats are {names}").format(
                name=repr(name.strip()[:40]), names=", ".join(s.names)
            )
        if not s.seats[seat].is_human:
            return _("{name} is an AI already").format(name=s.names[seat])
        if seat in self._seated:
            return _("{name} is connected: their seat stays theirs").format(name=s.names[seat])
        if seat in self.standing_in:
            return _("an AI stands in for {name} already").format(name=s.names[seat])
        timer = self._away_timers.pop(seat, None)
        if timer is not None:
            timer.cancel()
        self._stand_in(seat)
        return _("an AI stands in for {name}").format(name=s.names[seat])

    def _stand_in(self, seat: int) -> None:
        if seat in self.standing_in:
            return
        self.standing_in.add(seat)
        # Translators: {kind} is the AI's kind (greedy), as typed on the command line.
        self._say(
            _("{name} is away: an AI ({kind}) plays their seat until they are back").format(
                name=self.session.names[seat], kind=STAND_IN_KIND
            )
        )
        self._changed()

    def _stand_in_player(self, seat: int) -> AIPlayer:
        s = self.session
        player = self._stand_ins.get(seat)
        if player is None:
            player = SafePlayer(build_ai(STAND_IN_KIND, seat_seed(s.match.seed, seat) + 1000, self.stand_in_think_ms))
            self._stand_ins[seat] = player
        if self._stand_in_round.get(seat) != s.match.number:
            self._stand_in_round[seat] = s.match.number
            player.new_round()
        return player

    async def _run_table(self) -> None:
        """The table's steps: AIs' moves, stand-ins' moves, the ends of rounds; otherwise wait
        for a change (a person's move, a client coming or going)."""
        while not self._closed:
            try:
                if self.session.holding:
                    await self._hold()
                    continue
                acted = await self._step()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the table's step failed; waiting for the next change")
                acted = False
            if not acted:
                self._wake.clear()
                await self._wake.wait()

    async def _step(self) -> bool:
        """One step of the table; False when it waits for someone."""
        s = self.session
        if s.match.over:
            return False
        if s.match.round.over:
            await asyncio.sleep(self.round_pause)
            if s.match.round.over and not s.match.over:
                self._finish_round()
            return True
        seat = s.to_move
        if s.ai_to_move:
            if self.ai_delay > 0:
                await asyncio.sleep(self.ai_delay)
            job = self.driver.ai_job()
            decision = await asyncio.to_thread(job.run)
            if self.driver.decide(decision) or s.holding:
                self._changed()  # the move, or the hold its save failing brought
            return True
        if seat in self.standing_in:
            if self.ai_delay > 0:
                await asyncio.sleep(self.ai_delay)
            if seat not in self.standing_in or not s.human_to_move or s.to_move != seat:
                return True
            before = self.driver.stamp
            player = self._stand_in_player(seat)
            m = await asyncio.to_thread(player.choose, s.view(seat))
            if self.driver.stamp != before or seat not in self.standing_in:
                return True  # the person came back, or the table moved on: the move is stale
            refused = self.driver.play(m) is not None and (s.holding or self.driver.play(END) is not None)
            if refused and not s.holding:
                log.error("the stand-in's move was refused; waiting for the person")
                return False
            self._changed()  # the move, or the hold its save failing brought
            return True
        return False

    def _finish_round(self) -> None:
        s = self.session
        ended = self.driver.finish_round()
        r = ended.result
        winner = None if r.winner is None else s.names[r.winner]
        lines = self.driver.round_lines(ended)
        message = p.round_message(r.number, winner, lines, ended.hands, ended.cards)
        totals = ", ".join(f"{n} {t}" for n, t in zip(s.names, s.match.live_chips(), strict=True))
        self._say(f"{lines[0]}; totals: {totals}")
        for client in [c for c in self._clients if c.ready]:
            self._send(client, message)
        self._changed()
        if s.match.over:
            from kc_tui.match.session import match_end_text

            self._say(match_end_text(s))


def _replay_of(record: MatchRecord, number: int, viewer: int | None, style: str) -> tuple[list[str], int, int | None]:
    """Round ``number`` of ``record`` as ``viewer`` saw it: every position's frame, the dealer and
    who went out (None: blocked). ReplayError when the record does not replay."""
    from kc_tui.match.replay import RoundReplay

    replay = RoundReplay.from_record(record, number, viewer, card_style=style)
    frames = views.replay_frames(replay)
    replay.to_end()
    return frames, replay.dealer, replay.snapshot().round_winner


def _gated(server: TableServer) -> type[ServerConnection]:
    """The connection class of ``server``'s WebSockets: each TCP connection is in the door's pool
    (:class:`~kc_tui.net.door.Door`) from its accept to its HTTP upgrade (or its end); when the
    pool is full, an older one there gives way to it."""

    class GatedConnection(ServerConnection):
        pending: Pending | None = None

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)
            peer = transport.get_extra_info("peername")
            address = str(peer[0]) if isinstance(peer, tuple) and peer else str(peer)
            self.pending = server.door.enter(address, self.transport.abort)

        async def handshake(self, *args: Any, **kwargs: Any) -> None:
            try:
                await super().handshake(*args, **kwargs)
            finally:
                self._done()

        def connection_lost(self, exc: Exception | None) -> None:
            self._done()
            super().connection_lost(exc)

        def _done(self) -> None:
            if self.pending is not None:
                server.door.leave(self.pending)
                self.pending = None

    return GatedConnection


__all__ = ["STAND_IN_KIND", "WATCH_PATH", "TableServer", "displaced_text", "new_token", "seat_path"]
