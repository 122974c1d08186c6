"""Helpers for the table server's tests: a real :class:`TableServer` on loopback (port 0) and
real websockets clients that keep every message they receive, parsed."""

from __future__ import annotations

import asyncio
import random
import re
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from kc_tui.engine import Card, Rules, card_str, card_symbol, parse_card
from kc_tui.match.roster import Seat
from kc_tui.match.session import MatchSession
from kc_tui.net import protocol as p
from kc_tui.net.server import WATCH_PATH, TableServer, seat_path

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


@contextmanager
def running_in_thread(session: MatchSession | None = None, **options: Any) -> Iterator[tuple[TableServer, str]]:
    """:func:`running` in a thread of its own, on an event loop of its own: for a test that
    waits in blocking calls (a real program on a pty) while the server serves."""
    loop = asyncio.new_event_loop()
    up = threading.Event()
    stop = asyncio.Event()
    served: list[tuple[TableServer, str]] = []

    async def serve() -> None:
        async with running(session, **options) as both:
            served.append(both)
            up.set()
            await stop.wait()

    thread = threading.Thread(target=loop.run_until_complete, args=(serve(),), daemon=True)
    thread.start()
    try:
        assert up.wait(WAIT), "the server did not start"
        yield served[0]
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join(WAIT)
        if not thread.is_alive():
            loop.close()


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
                message = p.parse_server(text)
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
