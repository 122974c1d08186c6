"""Helpers for the table server's tests: a real :class:`TableServer` on loopback (port 0) and
real websockets clients that keep every message they receive, parsed."""

from __future__ import annotations

import asyncio
import os
import random
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from kc_tui.engine import Card, Rules, card_str, card_symbol, position_dict
from kc_tui.match.roster import Seat
from kc_tui.match.session import MatchSession
from kc_tui.net import protocol as p
from kc_tui.net.server import WATCH_PATH, TableServer, seat_path
from tests.match.kit import cards_in_text

SEED = 3
#: A match of one short round (hands of 4 cards), and one of a round or two.
ONE_ROUND = Rules(target=5, hand_size=4)
TWO_ROUNDS = Rules(target=5)
WAIT = 10.0
#: A log line that tells a card played or put on the table.
PLAYED = re.compile(r" (played|put) ")


def session_for(
    seats: Sequence[tuple[str, str]] = (("Ana", "human"), ("Ben", "human"), ("Greedy", "greedy")),
    rules: Rules = ONE_ROUND,
    seed: int | None = SEED,
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
            # A card played is shown to everyone as it is played, even one that completes a
            # pile shuffled away at once (R12) and so is on no pile of any state.
            self.seen |= {c for line in message.log if PLAYED.search(line) for c in cards_in_text(line)}
        if isinstance(message, p.RoundMsg):
            self.check_round(message)
        for card in cards_in_text(_texts(text)):
            if card not in self.seen:
                self.leaks.append(f"{card_symbol(card)} in {text[:200]}")

    def check_round(self, message: p.RoundMsg) -> None:
        """A round's summary shows the hands face up once the round is over, never before: the
        last state must be of that round, over (the table waits for nobody); each hand as many
        cards as it counts, none of them on a pile, this seat's own its hand of that state. Its
        cards are seen from now on."""
        states = self.states()
        last = states[-1] if states else None
        if last is None or last.round != message.number or last.waiting_for is not None:
            self.leaks.append(f"the hands of round {message.number} shown before it ended")
            return
        shown = [c for hand in message.cards for c in hand]
        on_piles = {c for pile in last.piles for c in pile}
        if len(shown) != len(set(shown)) or on_piles & set(shown):
            self.leaks.append(f"round {message.number}'s hands hold a card twice or one on a pile")
        for seat, (hand, (count, _)) in enumerate(zip(message.cards, message.hands, strict=False)):
            if len(hand) != count:
                self.leaks.append(f"round {message.number}: seat {seat} shows {len(hand)} cards, not {count}")
            if seat == last.seat and set(hand) != set(last.hand or ()):
                self.leaks.append(f"round {message.number}: this seat's cards are not its hand")
        self.seen |= set(shown)

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


@dataclass(frozen=True)
class Frame:
    """A state the server built for a viewer, with the truth at that moment: every hand and the stock."""

    viewer: int | None
    text: str
    hands: tuple[frozenset[Card], ...]
    stock: frozenset[Card]


def record_frames(monkeypatch: Any) -> dict[str, Frame]:
    """Every state message the server builds from now on, by its text, with the truth it was built from."""
    frames: dict[str, Frame] = {}
    real = p.states

    def states(driver: Any, viewers: Any, **kwargs: Any) -> dict[int | None, str]:
        out = real(driver, viewers, **kwargs)
        s = driver.session
        hands = tuple(frozenset(s.hand(i)) for i in range(s.match.n))
        stock = frozenset(s.match.round.stock)
        for viewer, text in out.items():
            frames[text] = Frame(viewer, text, hands, stock)
        return out

    monkeypatch.setattr(p, "states", states)
    return frames


def answers(stamp: int) -> Callable[[Any], bool]:
    """Whether a message answers a request made at ``stamp``: a newer state, or a refusal."""
    return lambda m: not isinstance(m, p.StateMsg) or m.stamp != stamp


async def play_on(
    client: Client, rng: random.Random, until: Callable[[], bool], timeout: float = 60.0, *, undo: float = 0.0
) -> int:
    """Play this seat's moves (chosen at random from its ``legal``) until ``until()``; the moves
    made. With ``undo``, that share of its chances to take a move back are taken. A move
    refused (or dropped for the rate) is chosen again after a pause."""
    made = 0
    async with asyncio.timeout(timeout):
        while not until() and not client.state.over:
            st = client.state
            if not st.legal:
                with suppress(TimeoutError):
                    await client.expect(p.StateMsg, timeout=0.5)
                continue
            if st.can_undo and rng.random() < undo:
                client.next_id += 1
                await client.send(p.undo_message(st.stamp, client.next_id))
            else:
                plays = [m for m in st.legal if m != "end"]
                end = "end" if "end" in st.legal else st.legal[0]
                await client.move(rng.choice(plays) if plays and rng.random() < 0.8 else end, st.stamp)
            answer = await client.expect((p.StateMsg, p.RefusedMsg, p.ErrorMsg), where=answers(st.stamp))
            if isinstance(answer, p.StateMsg):
                made += 1
            else:
                await asyncio.sleep(0.1)
    return made


# ---------------------------------------------------------------------- ``kings-corners host`` as a process
def start_host(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "kc_tui", "host", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ | {"PYTHONUNBUFFERED": "1"},
    )


async def read_line(proc: subprocess.Popen[str], stream: str = "stdout") -> str:
    pipe = proc.stdout if stream == "stdout" else proc.stderr
    assert pipe is not None
    line = await asyncio.wait_for(asyncio.to_thread(pipe.readline), 30)
    assert line, f"the host ended: {proc.poll()}"
    return line.rstrip("\n")


async def join_lines(proc: subprocess.Popen[str]) -> dict[str, str]:
    """The host's printed join commands: {"Ana": url, ..., "Watch": url}."""
    urls: dict[str, str] = {}
    while "Watch" not in urls:
        line = await read_line(proc)
        name, sep, command = line.partition(": kings-corners join ")
        if sep:
            urls[name] = command.removeprefix("--watch ")
    return urls


def stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.communicate(timeout=10)


async def lines_until(proc: subprocess.Popen[str], words: str, stream: str = "stdout") -> list[str]:
    """The host's lines up to the first holding ``words`` (that one included)."""
    lines: list[str] = []
    while not lines or words not in lines[-1]:
        lines.append(await read_line(proc, stream))
    return lines


def process_lines() -> dict[int, str]:
    """Every process's command line as another user of this machine reads it (``ps``,
    ``/proc/<pid>/cmdline``), by process id: the arguments joined by spaces."""
    lines: dict[int, str] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/cmdline", "rb") as f:
                lines[int(entry.name)] = f.read().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:  # the process ended meanwhile
            continue
    return lines


async def settled_turn(*clients: Client) -> Client:
    """The client on turn, once its seat has had its state and the table waits for it."""
    async with asyncio.timeout(20):
        while True:
            for c in clients:
                if c.messages and c.state.legal:
                    await asyncio.sleep(0.3)
                    if c.state.legal and c.state is c.states()[-1]:
                        return c
            await asyncio.sleep(0.05)


async def newer(client: Client) -> None:
    """Wait for a state newer than the client's last."""
    before = client.state.stamp
    await client.expect(p.StateMsg, where=lambda m: m.stamp > before)


async def make_moves(count: int, *clients: Client) -> None:
    """``count`` moves by whichever seat is on turn (a card when it can, else the end of its turn)."""
    for _ in range(count):
        mover = await settled_turn(*clients)
        plays = [m for m in mover.state.legal if m != "end"]
        await mover.move(plays[0] if plays else "end")
        await newer(mover)


async def full_disk_episode(disk: Path, seats: Sequence[str]) -> dict[str, Any]:
    """A real host whose data folder is on the tmpfs ``disk``, Ana and Ben at the table: moves
    made, the disk filled, moves made, the disk freed, a move made, then the host killed with
    SIGKILL and served again with ``--resume``. What each side was told, and whether every
    move shown came back."""
    from tests.faultkit import fill

    out: dict[str, Any] = {}
    host = start_host(*seats)
    try:
        urls = await join_lines(host)
        ana, ben = await join(urls["Ana"]), await join(urls["Ben"])
        await make_moves(2, ana, ben)
        filler = fill(disk)
        await make_moves(3, ana, ben)
        out["seats_told"] = all(c.state.save_problem is not None for c in (ana, ben))
        filler.unlink()
        await make_moves(1, ana, ben)
        with suppress(TimeoutError):
            for c in (ana, ben):
                await c.expect(p.StateMsg, timeout=WAIT, where=lambda m: m.save_problem is None)
        out["seats_saved_again"] = all(c.state.save_problem is None for c in (ana, ben))
        shown = {c.state.seat: c.state for c in (ana, ben)}
        host.kill()
        console, _ = host.communicate(timeout=20)
        out["console"] = console
        for c in (ana, ben):
            await c.close()
    finally:
        stop(host)
    again = start_host("--resume", "--stand-in", "0")
    try:
        await join_lines(again)
        ana, ben = await join(urls["Ana"]), await join(urls["Ben"])
        out["lost"] = sum(
            1
            for c in (ana, ben)
            if (c.state.round, c.state.piles, c.state.hand, c.state.log)
            != (shown[c.state.seat].round, shown[c.state.seat].piles, shown[c.state.seat].hand, shown[c.state.seat].log)
        )
        for c in (ana, ben):
            await c.close()
    finally:
        stop(again)
    return out


def position(server: TableServer) -> tuple[int, Any, list[str]]:
    s = server.session
    return server.stamp, position_dict(s.match.round, s.names), list(s.log)


async def on_turn(server: TableServer, *clients: Client) -> Client:
    """The client whose seat is to move, once its state says so."""
    async with asyncio.timeout(10):
        while True:
            for c in clients:
                st = c.state
                if st.legal and st.stamp == server.stamp:
                    return c
            await asyncio.sleep(0.01)
