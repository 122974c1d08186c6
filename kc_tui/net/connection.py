"""One client's connection to the table server: what waits to be written to it (a slow reader
gets the newest state, and is closed when too much piles up), its token bucket (the rate
limit), its count of malformed messages in a row, and how a refused message is answered.

Plain Python and asyncio (no Textual, no Rich).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.server import ServerConnection, broadcast
from websockets.exceptions import ConnectionClosed
from websockets.protocol import State

from kc_tui.i18n import _
from kc_tui.net import schema
from kc_tui.net.protocol import parse_client, write

log = logging.getLogger(__name__)

#: WebSocket close codes.
CLOSE_POLICY = 1008
CLOSE_NORMAL = 1000
CLOSE_GOING_AWAY = 1001
CLOSE_TOO_LARGE = 1009
#: Messages waiting to be written to one client (its newest state counts once); a client that
#: reads so slowly that more pile up is closed.
MAX_PENDING = 200


@dataclass(eq=False)
class Connection:
    """One connection: its seat (None: a spectator, or not said hello yet), its token bucket and
    its counts of refused messages in a row. ``background`` runs a coroutine on the loop (the
    server keeps it)."""

    ws: ServerConnection
    wants_seat: bool
    background: Callable[[Coroutine[Any, Any, None]], None]
    seat: int | None = None
    ready: bool = False
    tokens: float = float(schema.RATE_BURST)
    refill_at: float = field(default_factory=time.monotonic)
    slowed: int = 0
    malformed: int = 0
    closing: bool = False
    #: What waits to be written, in order: ``(kind, text)``, kind "state", "message" or "close"
    #: (text: the close reason). At most one state: a newer one replaces it (at the end).
    pending: deque[tuple[str, str]] = field(default_factory=deque)
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    close_code: int = CLOSE_NORMAL
    #: While it answers True nothing but a close is written to the client (asked as each
    #: message is sent or written out): a worker whose table another worker may serve now.
    quiet: Callable[[], bool] | None = None

    # ------------------------------------------------------------------ reading
    def allow(self) -> bool:
        """Take one message from the token bucket; False when it is empty (counted in
        ``slowed``, which goes back to 0 only once the bucket has filled up again: a client that
        calmed down)."""
        now = time.monotonic()
        self.tokens = min(float(schema.RATE_BURST), self.tokens + (now - self.refill_at) * schema.RATE_PER_SECOND)
        self.refill_at = now
        if self.tokens >= schema.RATE_BURST - 1:
            self.slowed = 0
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        self.slowed += 1
        return False

    def parse(self, message: str | bytes) -> schema.ClientMessage:
        """The client's message; ProtocolError for a bad one (``slow-down``: over the rate)."""
        if not self.allow():
            raise schema.ProtocolError(schema.SLOW_DOWN, _("too many messages: this one was dropped"))
        parsed = parse_client(message)
        self.malformed = 0
        return parsed

    def refuse(self, exc: schema.ProtocolError) -> bool:
        """Answer a refused message; False when the connection is closed for it."""
        if exc.code == schema.SLOW_DOWN:
            if self.slowed > schema.SLOW_DOWN_CLOSE:
                self.close(CLOSE_POLICY, "slow-down: too many messages")
                return False
            self.send(write(schema.ErrorMsg(schema.SLOW_DOWN, exc.message)))
            return True
        self.send(write(schema.ErrorMsg(exc.code, exc.message, exc.id)))
        if exc.code == schema.UPGRADE:
            self.close(CLOSE_POLICY, "upgrade")
            return False
        if exc.code == schema.TOO_LARGE:
            self.close(CLOSE_TOO_LARGE, "too-large")
            return False
        if exc.code == schema.MALFORMED:
            self.malformed += 1
            if self.malformed >= schema.MALFORMED_CLOSE:
                self.close(CLOSE_POLICY, "malformed: too many in a row")
                return False
        return True

    # ------------------------------------------------------------------ writing
    @property
    def silenced(self) -> bool:
        """Whether nothing but a close may be written now (:attr:`quiet`)."""
        return self.quiet is not None and self.quiet()

    def send(self, text: str, *, state: bool = False) -> None:
        """Send ``text`` without waiting (a closing connection is skipped): written at once while
        the client reads, else kept in its queue, where a ``state`` replaces the one still
        waiting (a slow client gets the newest). A client with :data:`MAX_PENDING` messages
        unread is closed."""
        if self.closing or self.ws.protocol.state is not State.OPEN or self.silenced:
            return
        if not self.pending and not self.ws.paused:
            broadcast([self.ws], text)
            return
        if state:
            for i, (kind, _text) in enumerate(self.pending):
                if kind == "state":
                    del self.pending[i]
                    break
        if len(self.pending) >= MAX_PENDING:
            self.pending.clear()
            self.ready = False
            self.closing = True
            log.info("a client was closed: %d messages unread", MAX_PENDING)
            self.background(self.ws.close(CLOSE_POLICY, "too slow: messages unread"))
            return
        self.pending.append(("state" if state else "message", text))
        self.wake.set()

    def close(self, code: int, reason: str) -> None:
        """Close the connection once what it was sent is written (its messages from now on are
        read and dropped)."""
        if self.closing:
            return
        self.ready = False
        self.closing = True
        self.close_code = code
        self.pending.append(("close", reason))
        self.wake.set()

    async def write_out(self) -> None:
        """Write what waits, in order, as fast as the client reads (its close last)."""
        try:
            while True:
                await self.wake.wait()
                self.wake.clear()
                while self.pending:
                    kind, text = self.pending.popleft()
                    if kind == "close":
                        await self.ws.close(self.close_code, text)
                        return
                    if not self.silenced:
                        await self.ws.send(text)
        except ConnectionClosed:
            self.pending.clear()


__all__ = ["CLOSE_GOING_AWAY", "CLOSE_NORMAL", "CLOSE_POLICY", "CLOSE_TOO_LARGE", "MAX_PENDING", "Connection"]
