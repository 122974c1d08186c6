"""Helpers for the remote seat's tests: a seat's own :class:`RemoteSeat` that records what it
was told, and :class:`Relay`, a real WebSocket relay between clients and a real
:class:`TableServer` that can drop every connection (the network gone, the server still up) or
slip a line of its own in (a broken server's message), and :func:`app_process`, the app as a
real process on a pseudo-terminal."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import pty
import ssl
import struct
import subprocess
import sys
import termios
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from websockets.asyncio.client import connect
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from kc_tui.net import schema as p
from kc_tui.net.client import Link, RemoteSeat, Status
from tests.waiting import wait_until

WAIT = 10.0


@dataclass
class Recorded:
    """A :class:`RemoteSeat` with everything it reported: messages, links and problems."""

    seat: RemoteSeat
    messages: list[p.ServerMessage] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    task: asyncio.Task[None] | None = None

    @property
    def statuses(self) -> list[Status]:
        return [link.status for link in self.links]

    def of(self, kind: type[p.ServerMessage]) -> list[p.ServerMessage]:
        return [m for m in self.messages if isinstance(m, kind)]

    async def stop(self) -> None:
        self.seat.close()
        if self.task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait_for(self.task, WAIT)


def recorded(
    url: str,
    *,
    watch: bool = False,
    first_retry: float = 0.05,
    last_retry: float = 0.2,
    ssl_context: ssl.SSLContext | None = None,
) -> Recorded:
    """A running seat at ``url`` (retrying fast)."""
    seat = RemoteSeat(
        url,
        client="kings-corners tests",
        watch=watch,
        first_retry=first_retry,
        last_retry=last_retry,
        ssl_context=ssl_context,
    )
    rec = Recorded(seat)
    seat.on_message = rec.messages.append
    seat.on_link = rec.links.append
    seat.on_problem = rec.problems.append
    rec.task = asyncio.create_task(seat.run())
    return rec


class Relay:
    """Forwards WebSocket messages both ways between its clients and ``upstream`` (a server's
    base URL, the path kept). ``inject``: lines sent to each client before the server's first;
    ``refusing``: new connections are cut at once."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.inject: list[str] = []
        #: While true, every new connection is closed at once (the server cannot be reached).
        self.refusing = False
        #: Turns each of the server's messages into what its clients receive (None: as it is).
        self.rewrite: Callable[[str], str] | None = None
        #: Seconds each of the server's messages is held back (a slow server or network).
        self.delay = 0.0
        self.opened = 0
        self._server: Server | None = None
        self._clients: set[ServerConnection] = set()

    async def start(self) -> str:
        self._server = await serve(self._handle, "127.0.0.1", 0, compression=None, max_size=p.MAX_MESSAGE)
        port = next(iter(self._server.sockets)).getsockname()[1]
        return f"ws://127.0.0.1:{port}"

    async def _handle(self, ws: ServerConnection) -> None:
        path = ws.request.path if ws.request is not None else "/"
        self.opened += 1
        if self.refusing:
            ws.transport.abort()
            return
        self._clients.add(ws)
        try:
            async with connect(self.upstream + path, compression=None, max_size=p.MAX_MESSAGE) as up:
                first = True

                async def down() -> None:
                    nonlocal first
                    async for message in up:
                        if first:
                            first = False
                            for line in self.inject:
                                await ws.send(line)
                        if self.delay:
                            await asyncio.sleep(self.delay)
                        if self.rewrite is not None and isinstance(message, str):
                            message = self.rewrite(message)
                        await ws.send(message)

                async def upward() -> None:
                    async for message in ws:
                        await up.send(message)

                tasks = [asyncio.create_task(down()), asyncio.create_task(upward())]
                with contextlib.suppress(ConnectionClosed):
                    await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
        finally:
            self._clients.discard(ws)

    async def drop(self) -> None:
        """Close every client's connection at once (the server keeps the table)."""
        for ws in list(self._clients):
            ws.transport.abort()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()


@asynccontextmanager
async def relayed(upstream: str) -> AsyncIterator[tuple[Relay, str]]:
    relay = Relay(upstream)
    base = await relay.start()
    try:
        yield relay, base
    finally:
        await relay.close()


@dataclass
class AppProcess:
    """The app as a real process on a pseudo-terminal: the process, the terminal's end that types
    to it (``os.write``) and everything it wrote there so far."""

    proc: subprocess.Popen[bytes]
    terminal: int
    output: bytearray = field(default_factory=bytearray)

    async def shows(self, text: bytes) -> None:
        """Wait until the process has written ``text`` to its terminal."""
        await wait_until(lambda: text in self.output or self.proc.poll() is not None, what=f"{text!r} written")
        assert text in self.output, f"the process ended ({self.proc.poll()}): {bytes(self.output[-300:])!r}"


@contextlib.contextmanager
def app_process(args: list[str], env: dict[str, str]) -> Iterator[AppProcess]:
    """``kings-corners ARGS`` as a real process on a pseudo-terminal of 80x24 (what it writes is
    read as it comes, so it never waits on a full terminal); ended (SIGTERM, then SIGKILL) when
    the block ends."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    proc = subprocess.Popen(
        [sys.executable, "-m", "kc_tui", *args],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env=env | {"TERM": "xterm-256color", "COLUMNS": "80", "LINES": "24"},
        start_new_session=True,
        close_fds=True,
    )
    os.close(follower)
    app = AppProcess(proc, leader)

    def drain() -> None:
        with contextlib.suppress(OSError):
            while chunk := os.read(leader, 65536):
                app.output.extend(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        yield app
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        os.close(leader)
        reader.join(5)
