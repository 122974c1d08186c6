"""One served table without a socket: a :class:`~kc_tui.match.table.TableDriver` on an asyncio
loop, its seats and spectators on WebSockets handed to it (docs/PROTOCOL.md).

Plain Python and asyncio (no Textual, no Rich). Everything that touches the driver runs on the
loop; the AIs think in worker threads (``asyncio.to_thread``) on frozen views, and their moves
are applied back on the loop through the driver (stale ones are dropped). Every message to a seat
is an encoding of ``driver.snapshot(seat)`` (:mod:`kc_tui.net.views`), a spectator's of
``driver.snapshot(None)``: nothing else goes into a state.

A :class:`ServedTable` listens on nothing: a :class:`~kc_tui.net.listener.Listener` accepts the
connections (the door, the handshake, the limits of a port) and hands each to the table whose path
it asked for (:meth:`ServedTable.admits` before the WebSocket opens, then
:meth:`ServedTable.handle`). ``host`` serves one table so (:mod:`kc_tui.net.server`); the server
of many tables serves many behind one listener.

Its parts by job: one client's connection (its queue, rate limit and refusals)
:mod:`kc_tui.net.connection`; the stand-in AIs :mod:`kc_tui.net.stand_ins`; what the host is
told of the save :mod:`kc_tui.net.saving`; the replay pages :mod:`kc_tui.net.replay_pages`;
every viewer's state :mod:`kc_tui.net.views`.

Seat tokens are secrets: they are compared with :func:`hmac.compare_digest` and never logged.
Whatever a client sends, the table answers as PROTOCOL.md says and goes on serving the others;
what goes wrong inside is written to the app's log, never shown as a traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import secrets
import time
from collections.abc import Callable, Coroutine, Mapping
from http import HTTPStatus
from typing import Any

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed
from websockets.protocol import State

from kc_tui.engine import END
from kc_tui.i18n import N_, _
from kc_tui.match.recorder import Recorder
from kc_tui.match.session import MatchSession
from kc_tui.match.table import LogNotShared, TableDriver, TableStamp
from kc_tui.net import schema, views
from kc_tui.net.clock import TurnClock, covered_text, freed_text, freed_told, ran_out_text, timed_seat, turn_of
from kc_tui.net.connection import CLOSE_GOING_AWAY, CLOSE_NORMAL, CLOSE_POLICY, Connection
from kc_tui.net.logs import tell
from kc_tui.net.protocol import write
from kc_tui.net.replay_pages import ServedReplays
from kc_tui.net.saving import SaveNotices
from kc_tui.net.stand_ins import STAND_IN_KIND, StandIns
from kc_tui.util.files import HandleReserve

log = logging.getLogger(__name__)

#: The longest path segment taken as a token (a longer one is refused before the WebSocket opens).
MAX_TOKEN_TEXT = 128
#: Seconds between the tries of a save while the table holds (its save failed): a change at the
#: table (a move asked for, a client coming) tries it at once too.
SAVE_RETRY = 2.0
#: The file handles kept for a table's saves to a file: the save file being written, and its
#: folder opened to flush it, with one to spare.
SAVE_HANDLES = 3
#: What every client is told when the host closes the table, and how long the telling may take.
CLOSED_TEXT = N_("the host closed the table; 'host --resume' serves it again")
CLOSE_WAIT = 2.0
#: The paths below a table: a seat's (``seat/<token>``) and a spectator's.
SEAT_PREFIX = "seat/"
WATCH = "watch"


def new_token() -> str:
    """A seat token: :data:`~kc_tui.net.schema.TOKEN_BYTES` random bytes, URL-safe base64."""
    return secrets.token_urlsafe(schema.TOKEN_BYTES)


def displaced_text(name: str) -> str:
    """What the older connection of ``name``'s seat is told when a newer one takes the seat."""
    # Translators: {name} is the seat's player.
    return _(
        "someone else joined with your seat's address: {name}'s seat is theirs now (if it was not you,"
        " tell the host: whoever has the address can take the seat)"
    ).format(name=name)


class TableEndpoint:
    """One path of a table, as a :class:`~kc_tui.net.listener.Listener` serves it."""

    __slots__ = ("rest", "table")

    def __init__(self, table: ServedTable, rest: str) -> None:
        self.table = table
        self.rest = rest

    async def handle(self, ws: ServerConnection) -> None:
        await self.table.handle(ws, self.rest)


class ServedTable:
    """Serves one match (a :class:`MatchSession`) to the clients handed to it. See the module docs.

    ``table_id``: how the server of many tables names it (empty for host's one table);
    ``tokens``: the seat tokens by match seat (new ones for every person's seat by default);
    ``stand_in``: seconds a person's seat waits for its client before an AI plays it (0: never);
    ``ai_delay``: seconds before an AI's move (so people can follow it); ``round_pause``: seconds
    a finished round stays on the table before it is scored and the next is dealt;
    ``status``: called with one plain line for the host (who came and left, stand-ins, rounds);
    ``max_connections``: the table's clients at most (once there, only a person coming back to
    their seat is let in); ``on_change``: called (on the loop) whenever a seat's connection, the
    spectators, the round or the match's end changes; ``turn_seconds`` and ``on_seat_freed``:
    the turn clock's (0: no clock).
    A saved table makes a move only once its save holds it (:attr:`MatchSession.save_first`):
    while saving fails it holds (moves refused with the reason, every seat and the host told)
    and goes on by itself once a save works again (tried every :data:`SAVE_RETRY` seconds).
    A session whose log names a person's draws is refused (:class:`LogNotShared`): every
    viewer's state is built from that viewer's view, and such a log is one person's alone."""

    def __init__(
        self,
        session: MatchSession,
        *,
        table_id: str = "",
        tokens: Mapping[int, str] | None = None,
        stand_in: float = 60.0,
        ai_delay: float = 0.3,
        round_pause: float = 1.5,
        stand_in_think_ms: int = 500,
        status: Callable[[str], None] | None = None,
        server_name: str = "kings-corners",
        hello_timeout: float = schema.HELLO_TIMEOUT,
        max_connections: int = schema.MAX_CONNECTIONS,
        recorder: Recorder | None = None,
        turn_seconds: float = 0.0,
        on_change: Callable[[ServedTable], None] | None = None,
        on_seat_freed: Callable[[ServedTable, int], None] | None = None,
        quiet: Callable[[], bool] | None = None,
    ) -> None:
        if session.log_owner is not None:
            raise LogNotShared(
                "a table served to many needs a shared log: this match's log names"
                f" {session.names[session.log_owner]}'s drawn cards (build it with MatchSession.hosted)"
            )
        self.table_id = table_id
        self.session = session
        self.driver = TableDriver(session, pace="instant", recorder=recorder)
        #: What the host was told of the save and the history.
        self._saving = SaveNotices(self._say)
        self.save_retry = SAVE_RETRY
        people = session.human_seats
        self.tokens: dict[int, str] = dict(tokens) if tokens is not None else {s: new_token() for s in people}
        if sorted(self.tokens) != list(people):
            raise ValueError("a token is needed for every person's seat, and only for those")
        self.stand_in_after = stand_in
        self.ai_delay = ai_delay
        self.round_pause = round_pause
        self.stand_in_think_ms = stand_in_think_ms
        self.server_name = server_name
        self._status = status
        self.hello_timeout = hello_timeout
        self.max_connections = max_connections
        self.turn_seconds = turn_seconds
        self.on_change = on_change
        self.on_seat_freed = on_seat_freed
        #: Asked as every message is sent: while True, nothing but a close goes to any client.
        self.quiet = quiet
        #: The WebSocket close code :meth:`close` closes the clients' connections with.
        self.close_code = CLOSE_GOING_AWAY
        #: The stamp of the state: bumped whenever the position changes. It starts at the clock's
        #: milliseconds, so a table served again (``host --resume``) never reuses a stamp it sent.
        self.stamp = time.time_ns() // 1_000_000
        self._position: TableStamp = self.driver.stamp
        self._seated: dict[int, Connection] = {}
        self._watchers: set[Connection] = set()
        self._clients: set[Connection] = set()
        #: Person seats an AI plays now (their client is away), and those AIs.
        self.standing_in: set[int] = set()
        #: Person seats given to someone new (set_token) whose client has not come yet.
        self._given: set[int] = set()
        self.stand_ins = StandIns(session, stand_in_think_ms)
        self._away_timers: dict[int, asyncio.Task[None]] = {}
        self._hinting = False
        #: The turn clock (``turn_seconds`` 0: none): kc_tui.net.clock.
        self.clock = TurnClock(turn_seconds, tell=self._tell_clock, ran_out=self._ran_out)
        self.replays = ServedReplays(session)
        self._tasks: set[asyncio.Task[None]] = set()
        self._wake = asyncio.Event()
        self._table_task: asyncio.Task[None] | None = None
        self._closed = False
        #: What :attr:`on_change` was last told of (connected, spectators, round, over).
        self._told: tuple[Any, ...] | None = None

    # ------------------------------------------------------------------ running
    async def start(self) -> None:
        """Start the table: its run loop, and the away timers of the seats no one has taken yet."""
        if self.session.handle_reserve is None and self.session.save_sink is None:
            # A flood of connections can take every file handle the process may open: the
            # save, which the table waits for, keeps a few of its own.
            self.session.handle_reserve = HandleReserve(SAVE_HANDLES)
        for seat in self.session.human_seats:
            if seat not in self._seated:
                self._start_away_timer(seat)
        self._table_task = asyncio.create_task(self._run_table(), name=f"table {self.table_id}".rstrip())

    async def close(self, reason_text: str = CLOSED_TEXT) -> None:
        """Stop serving: every client is told the table is closed (``closed``, ``reason_text``
        translated), then its connection is closed with :attr:`close_code` (the match's save stays)."""
        if self._closed:
            return
        self._closed = True
        told = [c for c in self._clients if not c.closing]
        for client in told:
            client.send(write(schema.ErrorMsg(schema.CLOSED, _(reason_text))))
            client.close(self.close_code, schema.CLOSED)
        if told:  # what was queued is written before the connections are closed
            with contextlib.suppress(Exception):
                await asyncio.wait([asyncio.ensure_future(c.ws.wait_closed()) for c in told], timeout=CLOSE_WAIT)
        for task in self._away_timers.values():
            task.cancel()
        self._away_timers.clear()
        self.clock.close()
        if self._table_task is not None:
            self._table_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._table_task
        if self.session.handle_reserve is not None:
            self.session.handle_reserve.close()
            self.session.handle_reserve = None

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._closed

    @property
    def over(self) -> bool:
        """Whether the match is over."""
        return self.session.match.over

    @property
    def connected(self) -> list[bool]:
        """By match seat: whether a person's client is there (always True for an AI's seat)."""
        return [not seat.is_human or i in self._seated for i, seat in enumerate(self.session.seats)]

    @property
    def spectators(self) -> int:
        """The spectators watching now."""
        return sum(1 for c in self._watchers if c.ready)

    @property
    def connections(self) -> int:
        """The table's open WebSockets (seats, spectators, those saying hello)."""
        return sum(1 for c in self._clients if c.ws.protocol.state is State.OPEN)

    def pending(self, seat: int | None) -> tuple[int, int]:
        """What waits to be written to ``seat``'s client (None: every spectator's together): the
        states and the other messages."""
        clients = [c for c in self._clients if c.seat == seat and (seat is not None or not c.wants_seat)]
        kinds = [kind for c in clients for kind, _text in c.pending]
        return kinds.count("state"), len(kinds) - kinds.count("state")

    def set_token(self, seat: int, token: str, name: str | None = None) -> None:
        """Give a person's ``seat`` a new token (the seat went to another person): the seat's
        connection, which came with the old token, is told and closed. ``name``: the person
        the seat went to, shown at the seat from now on (saved, and sent to every client)."""
        if seat not in self.tokens:
            raise ValueError(f"seat {seat} is not a person's seat")
        self.tokens[seat] = token
        self._given.add(seat)
        client = self._seated.get(seat)
        if client is not None:
            client.ready = False
            client.send(write(schema.ErrorMsg(schema.BAD_TOKEN, _("no seat at this table has this token"))))
            client.close(CLOSE_POLICY, "bad-token")
            self._left(client)
        old = self.session.names[seat]
        if name is not None and name != old and not self._closed:
            self.session.rename_seat(seat, name)
            # Translators: {name} is the person who took the seat, {old} who sat there before.
            self._say(_("{name} took {old}'s seat").format(name=name, old=old))
            self.session.save()
            self._changed()

    def _background(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _say(self, line: str) -> None:
        tell(log, self._status, line)

    def _tell_change(self) -> None:
        """Call :attr:`on_change` when what it hears of changed since it last heard."""
        if self.on_change is None:
            return
        now = (tuple(self.connected), self.spectators, len(self.session.match.results), self.over)
        if now == self._told:
            return
        self._told = now
        try:
            self.on_change(self)
        except Exception:
            log.exception("a table's change could not be told")

    # ------------------------------------------------------------------ paths
    def admits(self, rest: str) -> tuple[int, str] | None:
        """Whether the path below the table (``seat/<token>``, ``watch``) is served: None, else
        the HTTP status and one line refusing it (before the WebSocket opens). Once the table
        serves :attr:`max_connections`, only a person coming back to their seat is let in."""
        token = rest.removeprefix(SEAT_PREFIX) if rest.startswith(SEAT_PREFIX) else None
        if rest != WATCH and (not token or "/" in token or len(token) > MAX_TOKEN_TEXT):
            return HTTPStatus.NOT_FOUND, _("Not found: a table has /seat/<token> and /watch.")
        if self.connections >= self.max_connections and (token is None or self._seat_of(token) is None):
            return HTTPStatus.SERVICE_UNAVAILABLE, _("This table is full: try again later.")
        return None

    def endpoint(self, rest: str) -> TableEndpoint:
        """What a listener serves the path below the table at (:meth:`admits` it first)."""
        return TableEndpoint(self, rest)

    def _seat_of(self, token: str) -> int | None:
        """The seat whose token is ``token`` (every token is compared, in constant time)."""
        given = token.encode("utf-8", "surrogatepass")
        found: int | None = None
        for seat, secret in self.tokens.items():
            if hmac.compare_digest(given, secret.encode("ascii")):
                found = seat
        return found

    # ------------------------------------------------------------------ one connection
    async def handle(self, ws: ServerConnection, rest: str) -> None:
        """Serve one client's whole connection at the path below the table ``rest``."""
        client = Connection(ws, rest != WATCH, self._background, quiet=self.quiet)
        token = rest.removeprefix(SEAT_PREFIX)
        self._clients.add(client)
        writer = asyncio.create_task(client.write_out(), name="writer")
        try:
            if self._closed:
                client.send(write(schema.ErrorMsg(schema.CLOSED, _(CLOSED_TEXT))))
                client.close(CLOSE_GOING_AWAY, schema.CLOSED)
            else:
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

    async def _hello(self, client: Connection, token: str) -> bool:
        """Wait for the ``hello`` (answering anything else ``hello-first``) and seat the client;
        False when the connection is to close."""
        ws = client.ws
        try:
            async with asyncio.timeout(self.hello_timeout):
                while True:
                    message = await ws.recv()
                    try:
                        hello = client.parse(message)
                    except schema.ProtocolError as exc:
                        if not client.refuse(exc):
                            return False
                        continue
                    if isinstance(hello, schema.Hello):
                        break
                    client.send(
                        write(schema.ErrorMsg(schema.HELLO_FIRST, "say hello first", getattr(hello, "id", None))),
                    )
        except TimeoutError:
            client.close(CLOSE_POLICY, f"no hello within {self.hello_timeout:g} seconds")
            return False
        if client.wants_seat:
            seat = self._seat_of(token)
            if seat is None:
                client.send(
                    write(schema.ErrorMsg(schema.BAD_TOKEN, _("no seat at this table has this token"), hello.id)),
                )
                client.close(CLOSE_POLICY, "bad-token")
                return False
            self._sit(client, seat)
        else:
            self._watchers.add(client)
            client.ready = True
            client.send(self._welcome(None))
            client.send(self._state_for(None), state=True)
            self._clock_to(client)
            self._tell_change()
        return True

    def _sit(self, client: Connection, seat: int) -> None:
        """Give ``seat`` to ``client``: an older connection of that seat is told and closed."""
        old = self._seated.get(seat)
        name = self.session.names[seat]
        if old is not None:  # the newer connection wins: the older is told why before it is closed
            old.ready = False
            old.send(write(schema.ErrorMsg(schema.SEAT_TAKEN, displaced_text(name))))
            old.close(CLOSE_NORMAL, schema.SEAT_TAKEN)
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
        back = seat in self.standing_in and seat not in self._given  # the same person, not a newcomer
        self._given.discard(seat)
        self.standing_in.discard(seat)
        if old is None:
            line = _("{name} connected: the seat is theirs again") if back else _("{name} connected")
            self._say(line.format(name=name))
        client.send(self._welcome(seat))
        self._changed()  # the state to every client, this one included
        self._clock_to(client)

    def _left(self, client: Connection) -> None:
        if client in self._watchers:
            self._watchers.discard(client)
            if not self._closed:
                self._tell_change()
        seat = client.seat
        if seat is None or self._seated.get(seat) is not client:
            return
        del self._seated[seat]
        if self._closed:
            return
        self._say(f"{self.session.names[seat]} left")
        self._start_away_timer(seat)
        self._changed()

    async def _receive(self, client: Connection, message: str | bytes) -> bool:
        """Answer one message; False when the connection is to close."""
        if not client.ready:
            return False
        if client.closing:
            return False
        try:
            request = client.parse(message)
        except schema.ProtocolError as exc:
            return client.refuse(exc)
        try:
            await self._answer(client, request)
        except ConnectionClosed:
            raise
        except Exception:
            log.exception("a request could not be answered; the table goes on")
            if isinstance(request, schema.MoveRequest | schema.UndoRequest | schema.HintRequest | schema.ReplayRequest):
                client.send(write(schema.RefusedMsg(request.id, _("the server could not do that (see its log)"))))
        return True

    async def _answer(self, client: Connection, request: schema.ClientMessage) -> None:
        if isinstance(request, schema.Ping):
            client.send(write(schema.PongMsg(request.id)))
            return
        if isinstance(request, schema.Hello):
            client.send(write(schema.ErrorMsg(schema.HELLO_FIRST, "hello is the first message only", request.id)))
            return
        if isinstance(request, schema.ReplayRequest):
            client.send(await self.replays.answer(request, client.seat))
            return
        s = self.session
        seat = client.seat
        if seat is None:
            client.send(write(schema.ErrorMsg(schema.NOT_YOUR_TURN, _("a spectator does not play"), request.id)))
            return
        if seat == self.clock.covering:
            client.send(write(schema.ErrorMsg(schema.NOT_YOUR_TURN, covered_text(), request.id)))
            return
        if request.stamp != self.stamp:
            client.send(write(schema.RefusedMsg(request.id, _("the table moved on: choose again in the newest state"))))
            return
        if not s.human_to_move or s.to_move != seat:
            if s.match.round.over:
                waiting = _("not your turn: the round is over")
            else:
                # Translators: {name} is the player whose turn it is.
                waiting = _("not your turn: it is {name}'s turn").format(name=s.names[s.to_move])
            client.send(write(schema.ErrorMsg(schema.NOT_YOUR_TURN, waiting, request.id)))
            return
        if isinstance(request, schema.MoveRequest):
            reason = self.driver.play(request.move)
            if reason is not None:
                client.send(write(schema.RefusedMsg(request.id, reason)))
                self._told_hold()
                return
            self._changed()
        elif isinstance(request, schema.UndoRequest):
            if not self.driver.undo():
                client.send(write(schema.RefusedMsg(request.id, s.why_no_undo)))
                self._told_hold()
                return
            self._changed()
        else:
            await self._hint(client, request)

    def _told_hold(self) -> None:
        """After a refused move: when its save failing made the table hold (or its problem
        changed), every seat and the host are told."""
        if self.session.save_problem != self._saving.save_told:
            self._changed()

    async def _hint(self, client: Connection, request: schema.HintRequest) -> None:
        if self._hinting:
            client.send(write(schema.RefusedMsg(request.id, _("a hint is being worked out already"))))
            return
        self._hinting = True
        try:
            decision = await asyncio.to_thread(self.driver.hint_job().run)
        finally:
            self._hinting = False
        if not self.driver.hint_ready(decision):
            client.send(write(schema.RefusedMsg(request.id, _("the table moved on: ask again"))))
            return
        from kc_tui.engine import move_str

        words = self.session.hint_words(decision.move, decision.note)
        client.send(write(schema.HintMsg(request.id, move_str(decision.move), words)))

    def _welcome(self, seat: int | None) -> str:
        s = self.session
        name = s.names[seat] if seat is not None else "Spectator"
        seats = tuple(schema.SeatInfo(x.name, x.kind) for x in s.seats)
        return write(schema.WelcomeMsg(seat, name, self.server_name, s.match.rules.to_dict(), seats))

    def _played_for(self) -> list[bool]:
        """By match seat: whether an AI plays a person's seat now (away, freed, or the turn ran out)."""
        return [i in self.standing_in or i == self.clock.covering for i in range(self.session.match.n)]

    def _state_for(self, viewer: int | None) -> str:
        stand_in = self._played_for()
        return views.state(self.driver, viewer, stamp=self.stamp, connected=self.connected, stand_in=stand_in)

    def _changed(self) -> None:
        """Something at the table changed: bump the stamp when the position did, say whether the
        table is kept, send every client its state and wake the table."""
        if self.driver.stamp != self._position:
            self._position = self.driver.stamp
            self.stamp += 1
        self._saving.tell(self.session, self.driver.recorder)
        seated = [(seat, client) for seat, client in self._seated.items() if client.ready]
        watchers = [c for c in self._watchers if c.ready]
        viewers: list[int | None] = [seat for seat, _client in seated] + ([None] if watchers else [])
        if viewers:
            stand_in = self._played_for()
            texts = views.states(self.driver, viewers, stamp=self.stamp, connected=self.connected, stand_in=stand_in)
            for seat, client in seated:
                client.send(texts[seat], state=True)
            for client in watchers:
                client.send(texts[None], state=True)
        self._time_turn()
        self._wake.set()
        self._tell_change()

    # ------------------------------------------------------------------ the turn clock
    def _time_turn(self) -> None:
        """Tell the clock the turn being played and whose clock may run (kc_tui.net.clock)."""
        if not self.clock.on:
            return
        connected = {seat for seat, client in self._seated.items() if client.ready}
        s = self.session
        self.clock.update(turn_of(s), timed_seat(s, connected, self.standing_in, s.holding))

    def _tell_clock(self, message: schema.ClockMsg) -> None:
        text = write(message)
        for client in [c for c in self._clients if c.ready]:
            client.send(text)

    def _clock_to(self, client: Connection) -> None:
        """The clock as it runs now, to a client that just came."""
        message = self.clock.current()
        if message is not None and client.ready:
            client.send(write(message))

    def _ran_out(self, seat: int, freed: bool) -> None:
        """``seat``'s turn ran out: an AI plays the rest of it; or, freed, the seat from now on
        (its person's connection told and closed, ``on_seat_freed`` told) until someone takes it."""
        name = self.session.names[seat]
        if freed:
            self.standing_in.add(seat)
            self._say(freed_text(name, self.clock.free_after))
            client = self._seated.get(seat)
            if client is not None:
                client.ready = False
                client.send(write(schema.ErrorMsg(schema.SEAT_FREED, freed_told(self.clock.free_after))))
                client.close(CLOSE_NORMAL, schema.SEAT_FREED)
                self._left(client)
            if self.on_seat_freed is not None:
                try:
                    self.on_seat_freed(self, seat)
                except Exception:
                    log.exception("the freed seat could not be listed")
        else:
            self._say(ran_out_text(name))
        self._changed()

    async def _hold(self) -> None:
        """The table holds (its save fails): wait for a change or :attr:`save_retry` seconds, then
        try the save again; once it works, everyone is told and play goes on."""
        if self.session.save_problem != self._saving.save_told:
            self._changed()  # told at once, whichever save failed
        self._wake.clear()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(self.save_retry):
                await self._wake.wait()
        if self.session.holding:
            self.session.retry_save()
        if self.session.save_problem != self._saving.save_told:
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
        seat, line = self.stand_ins.choose_seat(name, set(self._seated), self.standing_in)
        if seat is not None:
            timer = self._away_timers.pop(seat, None)
            if timer is not None:
                timer.cancel()
            self._stand_in(seat)
        return line

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
        if self._played_for()[seat]:
            if self.ai_delay > 0:
                await asyncio.sleep(self.ai_delay)
            if not self._played_for()[seat] or not s.human_to_move or s.to_move != seat:
                return True
            before = self.driver.stamp
            player = self.stand_ins.player(seat)
            m = await asyncio.to_thread(player.choose, s.view(seat))
            if self.driver.stamp != before or not self._played_for()[seat]:
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
        cards = tuple(tuple(hand) for hand in ended.cards)
        message = write(schema.RoundMsg(r.number, winner, tuple(lines), tuple(ended.hands), cards))
        totals = ", ".join(f"{n} {t}" for n, t in zip(s.names, s.match.live_chips(), strict=True))
        self._say(f"{lines[0]}; totals: {totals}")
        for client in [c for c in self._clients if c.ready]:
            client.send(message)
        self._changed()
        if s.match.over:
            from kc_tui.match.session import match_end_text

            self._say(match_end_text(s))


__all__ = [
    "CLOSED_TEXT",
    "MAX_TOKEN_TEXT",
    "SAVE_HANDLES",
    "SAVE_RETRY",
    "ServedTable",
    "TableEndpoint",
    "displaced_text",
    "new_token",
]
