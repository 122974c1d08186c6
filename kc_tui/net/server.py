"""The table server of ``host``: one :class:`~kc_tui.net.table_service.ServedTable` behind a
:class:`~kc_tui.net.listener.Listener` of its own, its seats at ``/seat/<token>`` and its
spectators at ``/watch`` (docs/PROTOCOL.md).

Plain Python and asyncio (no Textual, no Rich). The table's work (seats, spectators, stand-ins,
rounds, holding while its save fails) is :mod:`kc_tui.net.table_service`'s; the port's (the
door, accept's errors, the handshake, the frame size) is :mod:`kc_tui.net.listener`'s.

Typical use::

    server = TableServer(session, stand_in=60)
    port = await server.start("127.0.0.1", 0)
    print(server.tokens)              # {seat: token} of every person's seat
    ...
    await server.close()
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from http import HTTPStatus
from ssl import SSLContext

from websockets.asyncio.server import Server

from kc_tui.i18n import _
from kc_tui.match.recorder import Recorder
from kc_tui.match.session import MatchSession
from kc_tui.net import schema
from kc_tui.net.door import AcceptErrors, Door, file_limit, pool_size
from kc_tui.net.listener import HANDSHAKE_TIMEOUT, MAX_FRAME, Endpoint, Listener
from kc_tui.net.table_service import (
    CLOSED_TEXT,
    MAX_TOKEN_TEXT,
    SAVE_HANDLES,
    SAVE_RETRY,
    SEAT_PREFIX,
    WATCH,
    ServedTable,
    displaced_text,
    new_token,
)

WATCH_PATH = "/" + WATCH


def seat_path(token: str) -> str:
    return f"/{SEAT_PREFIX}{token}"


class TableServer(ServedTable):
    """Serves one match (a :class:`MatchSession`) on a port of its own: a
    :class:`~kc_tui.net.table_service.ServedTable` (see it for the options) whose clients come
    through a :class:`~kc_tui.net.listener.Listener` (``ssl``, ``handshake_timeout``,
    ``max_handshakes``: see it)."""

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
        hello_timeout: float = schema.HELLO_TIMEOUT,
        max_connections: int = schema.MAX_CONNECTIONS,
        handshake_timeout: float = HANDSHAKE_TIMEOUT,
        max_handshakes: int | None = None,
        recorder: Recorder | None = None,
        turn_seconds: float = 0.0,
    ) -> None:
        super().__init__(
            session,
            tokens=tokens,
            stand_in=stand_in,
            ai_delay=ai_delay,
            round_pause=round_pause,
            stand_in_think_ms=stand_in_think_ms,
            status=status,
            server_name=server_name,
            hello_timeout=hello_timeout,
            max_connections=max_connections,
            recorder=recorder,
            turn_seconds=turn_seconds,
        )
        # The table refuses at max_connections all but its people coming back: the port takes
        # those too.
        self.listener = Listener(
            self._route,
            ssl=ssl,
            server_name=server_name,
            handshake_timeout=handshake_timeout,
            max_handshakes=pool_size(file_limit(), max_connections) if max_handshakes is None else max_handshakes,
            max_connections=max_connections + len(self.tokens),
            status=status,
        )
        self.port: int | None = None

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> int:  # type: ignore[override]
        """Listen on ``host``:``port`` (0: any free port) and start the table; the bound port."""
        self.port = await self.listener.start(host, port)
        await super().start()
        return self.port

    async def close(self, reason_text: str = CLOSED_TEXT) -> None:
        """Stop serving: every client is told the table is closed (``closed``), then its
        connection is closed (the match's save stays)."""
        if self.closed:
            return
        await super().close(reason_text)
        await self.listener.close()

    def _route(self, path: str) -> Endpoint | tuple[int, str]:
        if path.startswith("/"):
            rest = path[1:]
            refused = self.admits(rest)
            return self.endpoint(rest) if refused is None else refused
        return HTTPStatus.NOT_FOUND, _("Not found: a table has /seat/<token> and /watch.")

    @property
    def door(self) -> Door:
        return self.listener.door

    @property
    def accept_errors(self) -> AcceptErrors:
        return self.listener.accept_errors

    @property
    def ssl(self) -> SSLContext | None:
        return self.listener.ssl

    @property
    def handshake_timeout(self) -> float:
        return self.listener.handshake_timeout

    @property
    def max_handshakes(self) -> int:
        """The connections that may wait in the handshake at once (the door's pool)."""
        return self.listener.max_handshakes

    @property
    def handshaking(self) -> dict[str, int]:
        """The connections in the handshake, by group (an IPv4 address, an IPv6 /64)."""
        return self.listener.handshaking

    @property
    def _server(self) -> Server | None:
        return self.listener.server


__all__ = [
    "CLOSED_TEXT",
    "HANDSHAKE_TIMEOUT",
    "MAX_FRAME",
    "MAX_TOKEN_TEXT",
    "SAVE_HANDLES",
    "SAVE_RETRY",
    "WATCH_PATH",
    "TableServer",
    "displaced_text",
    "new_token",
    "seat_path",
]
