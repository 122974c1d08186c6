"""Helpers for the table server's tests: a real :class:`TableServer` on loopback (port 0) and
real websockets clients that keep every message they receive, parsed."""

from __future__ import annotations

import asyncio
import os
import random
import re
import resource
import select
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.protocol import State
from websockets.uri import parse_uri

from kc_tui.engine import Card, Rules, card_str, card_symbol, parse_card
from kc_tui.match.roster import Seat
from kc_tui.match.session import MatchSession
from kc_tui.net import protocol as p
from kc_tui.net.server import WATCH_PATH, TableServer, seat_path
from tests.net.clientkit import until

SEED = 3
#: A match of one short round (hands of 4 cards), and one of a round or two.
ONE_ROUND = Rules(target=5, hand_size=4)
TWO_ROUNDS = Rules(target=5)
WAIT = 10.0

#: A card in text: its code ("7H", "TH") or its symbol ("7♥", "10♥").
CARD_TEXT = re.compile(r"(?<![A-Za-z0-9])(10|[2-9TJQKA])([SHDC♠♥♦♣])(?![A-Za-z0-9])")


def cards_in_text(text: str) -> set[Card]:
    """Every card named in ``text`` (as a code or a symbol)."""
    found: set[Card] = set()
    for rank, suit in CARD_TEXT.findall(text):
        suit = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}.get(suit, suit)
        found.add(parse_card(("T" if rank == "10" else rank) + suit))
    return found


def session_for(
    seats: Sequence[tuple[str, str]] = (("Ana", "human"), ("Ben", "human"), ("Greedy", "greedy")),
    rules: Rules = ONE_ROUND,
    seed: int = SEED,
    save_path: Path | None = None,
) -> MatchSession:
    return MatchSession.hosted([Seat(n, k, 50) for n, k in seats], rules, seed, save_path=save_path)


@asynccontextmanager
async def running(session: MatchSession | None = None, **options: Any) -> AsyncIterator[tuple[TableServer, str]]:
    """A started server (AIs move at once, rounds end at once unless ``options`` say) and its
    base URL ``ws://127.0.0.1:PORT``."""
    options.setdefault("ai_delay", 0.0)
    options.setdefault("round_pause", 0.0)
    options.setdefault("stand_in_think_ms", 30)
    server = TableServer(session or session_for(), **options)
    port = await server.start("127.0.0.1", 0)
    try:
        yield server, f"ws://127.0.0.1:{port}"
    finally:
        await server.close()


@dataclass
class Client:
    """A real websockets client of one seat (or a spectator): every message it received, parsed
    and raw, and the cards it could see so far (its hands and every public pile)."""

    ws: ClientConnection
    messages: list[p.ServerMessage] = field(default_factory=list)
    raw: list[str] = field(default_factory=list)
    seen: set[Card] = field(default_factory=set)
    leaks: list[str] = field(default_factory=list)
    inbox: asyncio.Queue[p.ServerMessage] = field(default_factory=asyncio.Queue)
    reader: asyncio.Task[None] | None = None
    next_id: int = 1

    @property
    def state(self) -> p.StateMsg:
        return next(m for m in reversed(self.messages) if isinstance(m, p.StateMsg))

    def states(self) -> list[p.StateMsg]:
        return [m for m in self.messages if isinstance(m, p.StateMsg)]

    async def read(self) -> None:
        try:
            async for text in self.ws:
                assert isinstance(text, str)
                self.raw.append(text)
                message = p.parse_server(text, strict=True)
                self.check(message, text)
                self.messages.append(message)
                self.inbox.put_nowait(message)
        except Exception as exc:  # the connection closed: kept for the test to see
            self.leaks.append(f"reader stopped: {exc!r}") if not _closed(exc) else None

    def check(self, message: p.ServerMessage, text: str) -> None:
        """Note every card this message shows that this seat could not see."""
        if isinstance(message, p.StateMsg):
            self.seen |= {c for pile in message.piles for c in pile}
            if message.hand is not None:
                self.seen |= set(message.hand)
            if message.drawn is not None and (message.hand is None or message.drawn not in message.hand):
                self.leaks.append(f"drawn {card_str(message.drawn)} outside the hand")
            for m in message.legal:
                named = cards_in_text(m)
                if not named <= set(message.hand or ()):
                    self.leaks.append(f"legal move {m} of a card outside the hand")
            if message.seat is None and (message.hand is not None or message.legal or message.drawn is not None):
                self.leaks.append("a spectator got a hand")
        for card in cards_in_text(_texts(text)):
            if card not in self.seen:
                self.leaks.append(f"{card_symbol(card)} in {text[:200]}")

    async def send(self, text: str) -> None:
        await self.ws.send(text)

    async def move(self, move: str, stamp: int | None = None) -> int:
        rid = self.next_id
        self.next_id += 1
        await self.ws.send(p.move_message(move, self.state.stamp if stamp is None else stamp, rid))
        return rid

    async def expect(
        self, kind: type[Any] | tuple[type[Any], ...], timeout: float = WAIT, where: Callable[[Any], bool] | None = None
    ) -> Any:
        """The next message of ``kind`` (and ``where``), skipping others."""
        async with asyncio.timeout(timeout):
            while True:
                message = await self.inbox.get()
                if isinstance(message, kind) and (where is None or where(message)):
                    return message

    async def close(self) -> None:
        await self.ws.close()
        if self.reader is not None:
            await self.reader


def _closed(exc: BaseException) -> bool:
    from websockets.exceptions import ConnectionClosed

    return isinstance(exc, ConnectionClosed)


def _texts(text: str) -> str:
    """The words of a message a card could hide in: every string but the card fields."""
    import json

    data = json.loads(text)
    for key in ("piles", "hand", "drawn", "legal"):
        data.pop(key, None)
    out: list[str] = []
    stack: list[Any] = [data]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
        elif isinstance(v, str):
            out.append(v)
    return "\n".join(out)


async def join(url: str, *, hello: bool = True, wait_state: bool = True) -> Client:
    """A connected client (it has said hello and had its welcome and state, unless told not to)."""
    ws = await connect(url, max_size=p.MAX_MESSAGE, compression=None)
    client = Client(ws)
    client.reader = asyncio.create_task(client.read())
    if hello:
        await ws.send(p.hello_message("kings-corners tests"))
        if wait_state:
            await client.expect(p.StateMsg)
    return client


async def seat(server: TableServer, base: str, name: str) -> Client:
    index = server.session.names.index(name)
    return await join(base + seat_path(server.tokens[index]))


async def watch(base: str) -> Client:
    return await join(base + WATCH_PATH)


def answers(stamp: int) -> Callable[[Any], bool]:
    """Whether a message answers a request made at ``stamp``: a newer state, or a refusal."""
    return lambda m: not isinstance(m, p.StateMsg) or m.stamp != stamp


async def play_on(client: Client, rng: random.Random, until: Callable[[], bool], timeout: float = 60.0) -> int:
    """Play this seat's moves (chosen at random from its ``legal``) until ``until()``; the moves
    made. A move refused (or dropped for the rate) is chosen again after a pause."""
    made = 0
    async with asyncio.timeout(timeout):
        while not until() and not client.state.over:
            st = client.state
            if not st.legal:
                with suppress(TimeoutError):
                    await client.expect(p.StateMsg, timeout=0.5)
                continue
            plays = [m for m in st.legal if m != "end"]
            choice = rng.choice(plays) if plays and rng.random() < 0.8 else "end" if "end" in st.legal else st.legal[0]
            await client.move(choice, st.stamp)
            answer = await client.expect((p.StateMsg, p.RefusedMsg, p.ErrorMsg), where=answers(st.stamp))
            if isinstance(answer, p.StateMsg):
                made += 1
            else:
                await asyncio.sleep(0.1)
    return made


# ---------------------------------------------------------------------- raw sockets
def allow_open_files(count: int) -> None:
    """Raise this process's limit of open files to at least ``count`` (the tests run as root:
    the hard limit may be raised too)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < count:
        resource.setrlimit(resource.RLIMIT_NOFILE, (count, max(hard, count)))


def idle_sockets(port: int, count: int, batch: int = 50) -> list[socket.socket]:
    """``count`` raw TCP sockets to ``port`` on loopback that never send a byte, opened ``batch``
    at a time: each batch's connects have finished (or failed) before the next starts, so the
    server's accept queue is never what refuses them. Blocking: run it in a thread."""
    opened: list[socket.socket] = []
    for start in range(0, count, batch):
        waiting = select.poll()
        for _ in range(min(batch, count - start)):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setblocking(False)
            sock.connect_ex(("127.0.0.1", port))
            waiting.register(sock, select.POLLOUT)
            opened.append(sock)
        left = min(batch, count - start)
        end = time.monotonic() + WAIT
        while left and time.monotonic() < end:
            for fd, _event in waiting.poll(100):
                waiting.unregister(fd)
                left -= 1
    return opened


def closed_by_peer(sock: socket.socket) -> bool:
    """Whether the other end has closed ``sock`` (it reads the end of the stream or a reset);
    ``sock`` is non-blocking and was never sent anything."""
    try:
        return sock.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


async def raw_connection(port: int, source: str = "127.0.0.1") -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A raw TCP connection to ``port`` on loopback from ``source`` (any 127.x.y.z: each is
    another remote address to the server)."""
    return await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))


async def ended(reader: asyncio.StreamReader, timeout: float = WAIT) -> bool:
    """Whether the server closes this raw connection within ``timeout`` (it reads EOF or a reset)."""
    try:
        async with asyncio.timeout(timeout):
            return await reader.read(1) == b""
    except TimeoutError:
        return False
    except OSError:
        return True


class StalledSeat:
    """A seat's WebSocket client on a raw socket that reads only when told to: its receive
    buffer is tiny and nothing reads it meanwhile, so what the server writes backs up in the
    server. Made with the websockets library's sans-I/O client."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.protocol = ClientProtocol(parse_uri(url), max_size=None)
        self.messages: list[p.ServerMessage] = []
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def open(self) -> None:
        """Connect, say hello and read up to the first state; then nothing is read."""
        port = int(self.url.split(":")[2].split("/")[0])
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
        sock.setblocking(False)
        await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
        self.reader, self.writer = await asyncio.open_connection(sock=sock, limit=1024)
        self.protocol.send_request(self.protocol.connect())
        self._flush()
        await self.read_until(lambda: self.protocol.state is State.OPEN)
        self.protocol.send_text(p.hello_message("kings-corners tests").encode())
        self._flush()
        await self.read_until(lambda: any(isinstance(m, p.StateMsg) for m in self.messages))

    def states(self) -> list[p.StateMsg]:
        return [m for m in self.messages if isinstance(m, p.StateMsg)]

    async def read_until(self, condition: Callable[[], bool], timeout: float = WAIT) -> None:
        """Read (and answer pings) until ``condition()``."""
        assert self.reader is not None
        async with asyncio.timeout(timeout):
            while not condition():
                data = await self.reader.read(65536)
                if not data:
                    raise AssertionError("the server closed the connection")
                self.protocol.receive_data(data)
                for event in self.protocol.events_received():
                    if isinstance(event, Frame) and event.opcode is Opcode.TEXT:
                        self.messages.append(p.parse_server(bytes(event.data).decode(), strict=True))
                self._flush()

    def _flush(self) -> None:
        assert self.writer is not None
        for data in self.protocol.data_to_send():
            if data:
                self.writer.write(data)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.transport.abort()


# ---------------------------------------------------------------------- the host as a process
@dataclass
class HostProcess:
    """``kings-corners host`` as a real process (under ``prlimit --nofile`` when asked); its
    output lines are read as they come, so its pipes never fill."""

    proc: subprocess.Popen[str]
    out: list[str] = field(default_factory=list)
    err: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        for pipe, lines in ((self.proc.stdout, self.out), (self.proc.stderr, self.err)):
            threading.Thread(target=_pump, args=(pipe, lines), daemon=True).start()

    @property
    def pid(self) -> int:
        return self.proc.pid

    async def urls(self) -> dict[str, str]:
        """The printed join commands' addresses: {"Ana": url, ..., "Watch": url}."""
        await until(lambda: any(line.startswith("Watch: ") for line in self.out), WAIT * 3, "the host's join lines")
        urls: dict[str, str] = {}
        for line in list(self.out):
            name, sep, command = line.partition(": kings-corners join ")
            if sep:
                urls[name] = command.removeprefix("--watch ")
        return urls

    def port(self) -> int:
        return int(next(line for line in self.out if line.startswith("Watch: ")).rsplit(":", 1)[1].split("/")[0])

    def rss_kib(self) -> int:
        """The resident memory of the host (VmRSS of /proc/PID/status), in KiB."""
        status = Path(f"/proc/{self.pid}/status").read_text(encoding="ascii")
        return int(next(line for line in status.splitlines() if line.startswith("VmRSS:")).split()[1])

    def open_files(self) -> int:
        return len(os.listdir(f"/proc/{self.pid}/fd"))

    def stop(self) -> tuple[str, str]:
        """Quit the host (``quit`` on its input, killed if it does not end); all it wrote."""
        if self.proc.poll() is None and self.proc.stdin is not None:
            with suppress(OSError):
                self.proc.stdin.write("quit\n")
                self.proc.stdin.flush()
        try:
            self.proc.wait(WAIT * 2)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(WAIT)
        return "".join(self.out), "".join(self.err)


def _pump(pipe: Any, lines: list[str]) -> None:
    for line in pipe:
        lines.append(line)


def start_host(*args: str, nofile: int | None = None, env: Mapping[str, str] | None = None) -> HostProcess:
    """``kings-corners host ARGS`` (``--port 0`` unless given), under ``prlimit --nofile`` when
    ``nofile`` is given; ``env`` over this process's environment."""
    command = [sys.executable, "-m", "kc_tui", "host", *args]
    if "--port" not in args:
        command += ["--port", "0"]
    if nofile is not None:
        command = ["prlimit", f"--nofile={nofile}:{nofile}", *command]
    proc = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ | {"PYTHONUNBUFFERED": "1"} | dict(env or {}),
    )
    return HostProcess(proc)
