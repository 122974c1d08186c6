"""Helpers for the tests of ``kings-corners server``: the real server as a process on a free port
with its own data folder, a scripted lobby client (hello, sign-in with a player key of its own,
requests answered by id, every message kept, parsed strictly) and the seats as
:class:`kc_tui.net.client.RemoteSeat` (which connects again by itself)."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import os
import re
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from ssl import SSLContext
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from kc_tui.net import lobby_schema as ls
from kc_tui.net import schema as p
from kc_tui.net.client import RemoteSeat
from kc_tui.net.identity import PlayerKey, challenge_bytes
from kc_tui.net.protocol import parse_lobby_server, write
from tests.waiting import wait_until

#: A short match: one round of hands of 4 cards, to 5 points.
SHORT_RULES: dict[str, Any] = {"hand_size": 4}
SHORT_TARGET = 5
WAIT = 60.0
SERVING = re.compile(r"^Serving Kings Corners at (wss?://\S+) \(lobby: (\S+)\)$")


# ---------------------------------------------------------------------- the server as a process
@dataclass
class ServerProcess:
    """A running ``kings-corners server``: its process, its address, its data folder, and the
    file its standard error goes to."""

    proc: subprocess.Popen[str]
    url: str
    data: Path
    stderr: Path

    @property
    def lobby(self) -> str:
        return f"{self.url}/lobby"

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])

    def errors(self) -> str:
        return self.stderr.read_text(encoding="utf-8", errors="replace") if self.stderr.exists() else ""

    def log(self) -> str:
        """The server's log (``kings-corners.log`` in its data folder)."""
        path = self.data / "kings-corners.log"
        return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""

    def kill(self) -> None:
        """``kill -9``: no goodbye, nothing flushed but what the store committed."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(30)

    def stop(self) -> int:
        """SIGTERM, and its exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(30)


def server_command(data: Path, *args: str, log_level: str = "warning") -> list[str]:
    head = [sys.executable, "-m", "kc_tui", "--log-level", log_level, "server"]
    return [*head, "--port", "0", "--data", str(data), *args]


async def start_server(data: Path, *args: str, port: int | None = None, log_level: str = "warning") -> ServerProcess:
    """``kings-corners --log-level LEVEL server --port 0 --data DATA ARGS`` (the port given: the
    same again), once it printed its ``Serving ...`` line. Its standard error goes to a file in
    ``data``'s parent; its log is ``kings-corners.log`` in ``data``."""
    command = server_command(data, *args, log_level=log_level)
    if port is not None:
        command[command.index("--port") + 1] = str(port)
    stderr = data.parent / f"{data.name}-stderr.txt"
    with open(stderr, "a", encoding="utf-8") as err:
        proc = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
            env=os.environ | {"PYTHONUNBUFFERED": "1", "LANGUAGE": "en"},
        )
    assert proc.stdout is not None
    line = await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), WAIT)
    found = SERVING.match(line.rstrip("\n"))
    if found is None:
        proc.kill()
        proc.wait(30)
        raise AssertionError(f"the server did not say it serves: {line!r}; stderr: {stderr.read_text()!r}")
    return ServerProcess(proc, found.group(1), data, stderr)


@asynccontextmanager
async def server(data: Path, *args: str) -> AsyncIterator[ServerProcess]:
    """A server for the test, killed at its end if it still runs."""
    running = await start_server(data, *args)
    try:
        yield running
    finally:
        if running.proc.poll() is None:
            running.kill()


FAST = ("--ai-delay", "0", "--round-pause", "0")


# ---------------------------------------------------------------------- a scripted lobby client
@dataclass
class LobbyTester:
    """A lobby connection: every message it received (parsed strictly), its challenge, requests
    sent with fresh ids and answered by them."""

    ws: ClientConnection
    messages: list[Any] = field(default_factory=list)
    raw: list[str] = field(default_factory=list)
    inbox: asyncio.Queue[Any] = field(default_factory=asyncio.Queue)
    challenge: ls.Challenge | None = None
    reader: asyncio.Task[None] | None = None
    next_id: int = 1
    closed: bool = False

    async def read(self) -> None:
        try:
            async for text in self.ws:
                assert isinstance(text, str)
                self.raw.append(text)
                message = parse_lobby_server(text, strict=True)
                if isinstance(message, ls.Challenge):
                    self.challenge = message
                self.messages.append(message)
                self.inbox.put_nowait(message)
        except Exception:
            pass
        finally:
            self.closed = True

    async def send(self, message: Any) -> int:
        """Send ``message`` with a fresh id (when it takes one); the id."""
        rid = self.next_id
        self.next_id += 1
        if any(f.name == "id" for f in dataclasses.fields(message)):
            message = dataclasses.replace(message, id=rid)
        await self.ws.send(write(message))
        return rid

    async def request(self, message: Any, timeout: float = WAIT) -> Any:
        """The answer to ``message`` (the message of its id)."""
        rid = await self.send(message)
        return await self.expect(object, timeout, lambda m: getattr(m, "id", None) == rid)

    async def expect(self, kind: Any, timeout: float = WAIT, where: Callable[[Any], bool] | None = None) -> Any:
        """The next message of ``kind`` (and ``where``), skipping others."""
        async with asyncio.timeout(timeout):
            while True:
                message = await self.inbox.get()
                if isinstance(message, kind) and (where is None or where(message)):
                    return message

    def of(self, kind: Any) -> list[Any]:
        return [m for m in self.messages if isinstance(m, kind)]

    async def sign_in(self, key: PlayerKey, name: str) -> Any:
        assert self.challenge is not None
        signature = key.sign(challenge_bytes(self.challenge.server, self.challenge.nonce))
        return await self.request(ls.SignIn(key.public_text, name, signature))

    async def close(self) -> None:
        await self.ws.close()
        if self.reader is not None:
            await self.reader


async def lobby(url: str, *, hello: bool = True, ssl: SSLContext | None = None) -> LobbyTester:
    """A connection to the lobby at ``url`` (its hello said, its challenge and listing read)."""
    tls: dict[str, Any] = {} if ssl is None else {"ssl": ssl}
    ws = await connect(url, max_size=p.MAX_MESSAGE, compression=None, **tls)
    tester = LobbyTester(ws)
    tester.reader = asyncio.create_task(tester.read())
    if hello:
        await ws.send(write(ls.LobbyHello("kings-corners tests")))
        await tester.expect(ls.LobbyMsg)
    return tester


def player_key(folder: Path) -> PlayerKey:
    """A player key of its own in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    return PlayerKey.load_or_create(folder)


async def signed_in(url: str, folder: Path, name: str) -> LobbyTester:
    """A lobby connection signed in as ``name`` with the key in ``folder``."""
    tester = await lobby(url)
    answer = await tester.sign_in(player_key(folder), name)
    assert isinstance(answer, ls.SignedIn), answer
    return tester


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key, made with openssl in ``folder``."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    new_key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", str(key)]
    subject = ["-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"]
    subprocess.run(
        ["openssl", "req", "-x509", *new_key, "-out", str(cert), "-days", "1", *subject],
        check=True,
        capture_output=True,
        timeout=30,
    )
    return cert, key


# ---------------------------------------------------------------------- seats
@dataclass
class Seated:
    """A :class:`RemoteSeat` running on the test's loop, and every state it was sent."""

    seat: RemoteSeat
    task: asyncio.Task[None]
    states: list[p.StateMsg] = field(default_factory=list)
    messages: list[p.ServerMessage] = field(default_factory=list)

    @property
    def state(self) -> p.StateMsg:
        assert self.seat.state is not None
        return self.seat.state

    async def close(self) -> None:
        self.seat.close()
        self.task.cancel()
        with suppress(asyncio.CancelledError):
            await self.task


async def sit(url: str, *, first_retry: float = 0.2, last_retry: float = 0.5, wait_state: bool = True) -> Seated:
    """A remote seat at ``url``, once it has its first state (unless told not to wait)."""
    messages: list[p.ServerMessage] = []
    states: list[p.StateMsg] = []

    def heard(message: p.ServerMessage) -> None:
        messages.append(message)
        if isinstance(message, p.StateMsg):
            states.append(message)

    seat = RemoteSeat(url, on_message=heard, first_retry=first_retry, last_retry=last_retry)
    task = asyncio.create_task(seat.run())
    seated = Seated(seat, task, states, messages)
    if not wait_state:
        return seated
    await wait_until(lambda: seat.state is not None, timeout=WAIT, what=f"the first state at {url[:40]}")
    return seated


async def my_turn(seated: Seated) -> p.StateMsg:
    """The seat's state once it is this seat's turn (it holds legal moves)."""
    return await wait_until(
        lambda: seated.seat.state if seated.seat.connected and seated.seat.state and seated.seat.state.legal else None,
        timeout=WAIT,
        what="this seat's turn",
        showing=lambda: seated.seat.state,
    )


async def play_one(seated: Seated) -> None:
    """One move of this seat (a card when it can, else the end of its turn), once it is its turn,
    and a newer state."""
    state = await my_turn(seated)
    plays = [m for m in state.legal if m != "end"]
    seated.seat.move(plays[0] if plays else "end")
    await wait_until(
        lambda: seated.seat.state is not None and seated.seat.state.stamp != state.stamp,
        timeout=WAIT,
        what="the state after the move",
    )


def _answered(seated: Seated, state: p.StateMsg | None, rid: int | None, heard: int) -> bool:
    """Whether the table moved on from ``state``, or request ``rid`` (sent once ``heard``
    messages had come) was answered otherwise (refused, or dropped over the rate)."""
    now = seated.seat.state
    if now is not None and (now.over or now is not state):
        return True
    later = seated.messages[heard:]
    return rid is not None and any(getattr(m, "id", None) == rid or isinstance(m, p.ErrorMsg) for m in later)


def _last_heard(seated: Seated) -> tuple[object, ...]:
    """What a wait on the seat shows when it fails: its link and its last messages, briefly."""
    return seated.seat.link, [(type(m).__name__, getattr(m, "id", None)) for m in seated.messages[-6:]]


async def play_to_end(seated: Seated) -> p.StateMsg:
    """Play this seat's turns until the match is over (a move refused is chosen again in the
    newest state); its last state."""
    while not (seated.seat.state is not None and seated.seat.state.over):
        state = seated.seat.state
        rid: int | None = None
        if state is not None and state.legal and seated.seat.connected:
            plays = [m for m in state.legal if m != "end"]
            rid = seated.seat.move(plays[0] if plays else "end")
        heard = len(seated.messages)
        await wait_until(
            functools.partial(_answered, seated, state, rid, heard),
            timeout=WAIT,
            what="the table to move on",
            showing=functools.partial(_last_heard, seated),
        )
        if any(isinstance(m, p.ErrorMsg) and m.code == p.SLOW_DOWN for m in seated.messages[heard:]):
            await asyncio.sleep(2 / p.RATE_PER_SECOND)  # over the rate: the move was dropped, sent again
    return seated.state


def shown(state: p.StateMsg) -> tuple[Any, ...]:
    """What a state shows of the position: the round, the piles, the hand, the seats' cards."""
    return state.round, state.piles, state.hand, tuple(s.cards for s in state.view.seats), state.view.stock


__all__ = [
    "FAST",
    "SHORT_RULES",
    "SHORT_TARGET",
    "LobbyTester",
    "Seated",
    "ServerProcess",
    "lobby",
    "my_turn",
    "play_one",
    "play_to_end",
    "player_key",
    "server",
    "shown",
    "signed_in",
    "sit",
    "start_server",
]
