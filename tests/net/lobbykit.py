"""A small fake lobby for the online client's tests: a real WebSocket server on a free port that
speaks :mod:`kc_tui.net.lobby_schema` at ``/lobby`` (challenge, listing, sign-in, create, join,
quick play, watch, rematch) and lets a test push any message to every client (deltas, ``start``,
a hostile name). The real server (``kings-corners server``) is tested on its own."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from kc_tui.net import lobby_schema as ls
from kc_tui.net.identity import challenge_bytes, verify
from kc_tui.net.protocol import parse_lobby_client, write

SECRET = "s3cretINVITEs3cretINVI"
SERVER_ID = "fake-server"


def listing(
    table: str = "abcdEFGH",
    *,
    names: tuple[str | None, ...] = ("Ana", None),
    kinds: tuple[str, ...] | None = None,
    phase: str = ls.OPEN,
    target: int = 100,
    rules: dict[str, Any] | None = None,
    spectators: int = 0,
    quick: bool = False,
    turn_seconds: int = 0,
    fill_in: int | None = None,
) -> ls.TableListing:
    """A listed table: a person's seat for each name (None: free), or the ``kinds`` given."""
    kinds = kinds or tuple("human" for _ in names)
    seats = tuple(
        ls.ListedSeat(kind, name if kind == "human" else None, connected=name is not None)
        for kind, name in zip(kinds, names, strict=True)
    )
    return ls.TableListing(
        table=table,
        phase=phase,
        rules=rules or {},
        target=target,
        seats=seats,
        spectators=spectators,
        quick=quick,
        turn_seconds=turn_seconds,
        round=0,
        fill_in=fill_in,
    )


@dataclass
class FakeLobby:
    """The fake server's state: what it lists, what it was sent, its clients."""

    tables: list[ls.TableListing] = field(default_factory=list)
    #: Names held by another key: a sign-in with one is refused with ``suggestion``.
    taken: dict[str, str] = field(default_factory=dict)
    received: list[Any] = field(default_factory=list)
    clients: set[ServerConnection] = field(default_factory=set)
    #: What the server says after each sign-in (the player's seats named again: ``joined``, ``start``).
    after_sign_in: list[Any] = field(default_factory=list)
    connections: int = 0
    base: str = ""
    server: Server | None = None

    @property
    def url(self) -> str:
        return f"{self.base}/lobby"

    def of(self, kind: type[Any]) -> list[Any]:
        return [m for m in self.received if isinstance(m, kind)]

    async def push(self, message: Any) -> None:
        """``message`` to every client connected."""
        for ws in list(self.clients):
            with contextlib.suppress(ConnectionClosed):
                await ws.send(write(message))

    async def drop_all(self) -> None:
        """Every client's connection closed (the network gone; the server still up)."""
        for ws in list(self.clients):
            await ws.close()

    async def handle(self, ws: ServerConnection) -> None:
        if ws.request is None or ws.request.path != "/lobby":
            await ws.close(4404, "no such path")
            return
        self.connections += 1
        self.clients.add(ws)
        nonce = f"nonce-{self.connections}"
        try:
            async for data in ws:
                message = parse_lobby_client(data)
                self.received.append(message)
                for answer in self.answers(message, nonce):
                    await ws.send(write(answer))
        except ConnectionClosed:
            pass
        finally:
            self.clients.discard(ws)

    def answers(self, m: Any, nonce: str) -> list[Any]:
        if isinstance(m, ls.LobbyHello):
            return [ls.Challenge(SERVER_ID, nonce), ls.LobbyMsg(tuple(self.tables))]
        if isinstance(m, ls.SignIn):
            if not verify(m.key, m.signature, challenge_bytes(SERVER_ID, nonce)):
                return [ls.LobbyRefusedMsg(m.id, ls.BAD_SIGNATURE, "the signature does not match")]
            if m.name in self.taken:
                return [ls.LobbyRefusedMsg(m.id, ls.NAME_TAKEN, "that name is taken", self.taken[m.name])]
            return [ls.SignedIn(m.id, m.name, 1234, 5), *self.after_sign_in]
        if isinstance(m, ls.CreateTable):
            names: tuple[str | None, ...] = tuple("Me" if i == 0 else None for i in range(len(m.seats)))
            made = listing("newTABLE", names=names, kinds=m.seats, target=m.target, turn_seconds=m.turn_seconds)
            self.tables.append(made)
            answers: list[Any] = [ls.JoinedMsg(m.id, "newTABLE", 0, f"{self.base}/i/newTABLE/{SECRET}")]
            return [*answers, ls.TableMsg(made)] if not m.private else answers
        if isinstance(m, ls.QuickPlay):
            quick = listing(
                "quickTBL",
                names=("Me", *(None for _ in range(m.players - 1))),
                quick=True,
                turn_seconds=60,
                fill_in=m.fill_after,
                target=m.target,
            )
            self.tables.append(quick)
            return [ls.JoinedMsg(m.id, "quickTBL", 0), ls.TableMsg(quick)]
        if isinstance(m, ls.JoinTable | ls.AcceptInvite):
            return [ls.JoinedMsg(m.id, m.table, 1)]
        if isinstance(m, ls.WatchTable):
            return [ls.WatchingMsg(m.id, m.table, f"{self.base}/t/{m.table}/watch")]
        if isinstance(m, ls.LobbyPing):
            return [ls.LobbyPongMsg(m.id)]
        return []


@asynccontextmanager
async def fake_lobby(*tables: ls.TableListing, **options: Any) -> AsyncIterator[FakeLobby]:
    """The fake lobby serving on a free port of this machine, with ``tables`` listed."""
    lobby = FakeLobby(list(tables), **options)
    async with serve(lobby.handle, "127.0.0.1", 0) as server:
        lobby.server = server
        port = next(iter(server.sockets)).getsockname()[1]
        lobby.base = f"ws://127.0.0.1:{port}"
        try:
            yield lobby
        finally:
            for ws in list(lobby.clients):
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(ws.close(), 5)
