"""Helpers for the table server's tests: a real :class:`TableServer` on loopback (port 0) and
real websockets clients that keep every message they receive, parsed."""

from __future__ import annotations

import asyncio
import functools
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
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager, contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.client import ClientProtocol
from websockets.frames import Frame as WsFrame
from websockets.frames import Opcode
from websockets.protocol import State
from websockets.uri import parse_uri

from kc_tui.engine import Card, Rules, card_str, card_symbol, parse_move, position_dict
from kc_tui.match.roster import Seat
from kc_tui.match.session import MatchSession
from kc_tui.net import schema as p
from kc_tui.net import views
from kc_tui.net.protocol import parse_server, write
from kc_tui.net.server import WATCH_PATH, TableServer, seat_path
from tests.match.kit import cards_in_text
from tests.waiting import wait_until

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
                message = parse_server(text, strict=True)
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
        if isinstance(message, p.ReplayMsg):
            self.check_replay(message)
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

    def check_replay(self, message: p.ReplayMsg) -> None:
        """A replay's frames are this viewer's: its own hand (none for a spectator), a drawn card
        in that hand, only of a finished round. Every card in it must have been seen already
        (the generic check on the message's text)."""
        if message.round > len([m for m in self.messages if isinstance(m, p.RoundMsg)]):
            self.leaks.append(f"the replay of round {message.round} before its end")
        if message.seat != (self.state.seat if self.messages else None):
            self.leaks.append(f"the replay of seat {message.seat} sent to another")
        for frame in message.frames:
            if frame.hand is not None and message.seat is None:
                self.leaks.append("a spectator's replay holds a hand")
            if frame.drawn is not None and (frame.hand is None or frame.drawn not in frame.hand):
                self.leaks.append(f"replay: drawn {card_str(frame.drawn)} outside the hand")

    async def send(self, text: str) -> None:
        await self.ws.send(text)

    async def replay(self, number: int, start: int = 0) -> p.ReplayMsg | p.RefusedMsg | p.ErrorMsg:
        """Ask for a page of round ``number``'s replay: the answer (a page, or a refusal)."""
        while True:
            rid = self.next_id
            self.next_id += 1
            await self.ws.send(write(p.ReplayRequest(number, start, rid)))
            answer: p.ReplayMsg | p.RefusedMsg | p.ErrorMsg = await self.expect(
                (p.ReplayMsg, p.RefusedMsg, p.ErrorMsg),
                where=functools.partial(_answers_or_slows, rid),
            )
            if not (isinstance(answer, p.ErrorMsg) and answer.code == p.SLOW_DOWN):
                return answer
            # Over the rate (a fast server answers quicker than the rate allows): the request was
            # dropped, as the protocol says; asked again once a token is back.
            await asyncio.sleep(2 / p.RATE_PER_SECOND)

    async def whole_replay(self, number: int) -> list[p.ReplayMsg]:
        """Every page of round ``number``'s replay, asked one after another."""
        pages: list[p.ReplayMsg] = []
        start = 0
        while not pages or start <= pages[-1].length:
            page = await self.replay(number, start)
            assert isinstance(page, p.ReplayMsg), page
            pages.append(page)
            start += len(page.frames)
        return pages

    async def move(self, move: str, stamp: int | None = None) -> int:
        rid = self.next_id
        self.next_id += 1
        await self.ws.send(write(p.MoveRequest(parse_move(move), self.state.stamp if stamp is None else stamp, rid)))
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
        await ws.send(write(p.Hello("kings-corners tests")))
        if wait_state:
            await client.expect(p.StateMsg)
    return client


async def seat(server: TableServer, base: str, name: str) -> Client:
    index = server.session.names.index(name)
    return await join(base + seat_path(server.tokens[index]))


async def watch(base: str) -> Client:
    return await join(base + WATCH_PATH)


@asynccontextmanager
async def seated(
    *viewers: str | None, session: MatchSession | None = None, **options: Any
) -> AsyncIterator[tuple[TableServer, str, tuple[Client, ...]]]:
    """A started server (:func:`running`, ``session`` and ``options`` as it takes them), its base
    URL, and a client for each of ``viewers`` (a seat's name, or None: a spectator) in their
    order, each once it has the table's first state; the clients are closed at the end."""
    async with running(session, **options) as (server, base):
        clients: list[Client] = []
        try:
            for viewer in viewers:
                clients.append(await (watch(base) if viewer is None else seat(server, base, viewer)))
            yield server, base, tuple(clients)
        finally:
            for c in clients:
                await c.close()


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
    real = views.states

    def states(driver: Any, viewers: Any, **kwargs: Any) -> dict[int | None, str]:
        out = real(driver, viewers, **kwargs)
        s = driver.session
        hands = tuple(frozenset(s.hand(i)) for i in range(s.match.n))
        stock = frozenset(s.match.round.stock)
        for viewer, text in out.items():
            frames[text] = Frame(viewer, text, hands, stock)
        return out

    monkeypatch.setattr(views, "states", states)
    return frames


def replay_problems(server: TableServer, number: int, viewer: int | None, frames: Sequence[p.ReplayFrame]) -> list[str]:
    """Round ``number``'s replay ``frames`` as ``viewer`` received them, against the truth (every
    hand and the stock at each position, dealt again from the server's match): the piles, the
    counts, the viewer's own hand and nobody else's, no drawn card named but the viewer's own,
    and nothing the viewer knows of a card that is in the stock or another's hand."""
    from kc_tui.engine import cards_of
    from kc_tui.match.recorder import match_record
    from kc_tui.match.replay import RoundReplay

    s = server.session
    truth = RoundReplay.from_record(match_record(s.match, s.seats, s.record), number, None)
    name = None if viewer is None else s.names[viewer]
    problems: list[str] = []
    if len(frames) != truth.length + 1:
        return [f"round {number}: {len(frames)} frames for {truth.length + 1} positions"]
    held: set[Card] = set()
    public: set[Card] = set()
    for position, frame in enumerate(frames):
        r = truth.round_at(position)
        hands = {m: frozenset(cards_of(r.hands[i])) for i, m in enumerate(truth.seats)}
        where = f"round {number}, position {position}"
        if frame.piles != tuple(tuple(pile) for pile in r.piles) or frame.stock != len(r.stock):
            problems.append(f"{where}: the piles or the stock are not the table's")
        if frame.cards != tuple(len(hands[m]) if m in hands else None for m in range(s.match.n)):
            problems.append(f"{where}: the counts are not the table's")
        expected = None if viewer is None or viewer not in hands else hands[viewer]
        if (None if frame.hand is None else frozenset(frame.hand)) != expected:
            problems.append(f"{where}: the hand is not seat {viewer}'s hand there")
        public |= {c for pile in frame.piles for c in pile}
        public |= {c for line in frame.log if PLAYED.search(line) for c in cards_in_text(line)}
        public |= cards_in_text(frame.move or "")
        for line in frame.log:
            drawn = cards_in_text(line.partition(" drew ")[2]) if " drew " in line else set()
            if drawn and (name is None or not line.startswith(f"{name} drew ") or not drawn <= (expected or set())):
                problems.append(f"{where}: the log names a drawn card not the viewer's own: {line}")
        held |= set(frame.hand or ())
        known = held - public
        if not known <= (expected or set()):
            problems.append(f"{where}: seat {viewer} knows cards not in its hand there: {sorted(known)}")
        if known & frozenset(r.stock):
            problems.append(f"{where}: seat {viewer} knows cards in the stock: {sorted(known & frozenset(r.stock))}")
    return problems


def answers(stamp: int) -> Callable[[Any], bool]:
    """Whether a message answers a request made at ``stamp``: a newer state, or a refusal."""
    return lambda m: not isinstance(m, p.StateMsg) or m.stamp != stamp


async def play_on(
    client: Client, rng: random.Random, until: Callable[[], bool], timeout: float = 60.0, *, undo: float = 0.0
) -> int:
    """Play this seat's moves (chosen at random from its ``legal``) until ``wait_until()``; the moves
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
                await client.send(write(p.UndoRequest(st.stamp, client.next_id)))
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
    """The client on turn, once every client has had the table's latest state: the seat on turn
    holds legal moves and all of them show the same stamp, so no change is on its way (the
    table waits for that person)."""

    def settled() -> Client | None:
        if not all(c.states() for c in clients) or len({c.state.stamp for c in clients}) != 1:
            return None
        assert not clients[0].state.over, "the match is over: nobody is on turn"
        return next((c for c in clients if c.state.legal), None)

    return await wait_until(
        settled, what="a seat on turn, every client at one stamp", showing=lambda: [c.state for c in clients]
    )


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


async def try_ends(count: int, *clients: Client) -> list[p.StateMsg | p.RefusedMsg]:
    """``count`` tries of the seat on turn to end its turn (so the next seat draws): each answered
    by a newer state (the turn ended) or by its refusal."""
    answers: list[p.StateMsg | p.RefusedMsg] = []
    for _ in range(count):
        mover = await settled_turn(*clients)
        before = mover.state.stamp
        rid = await mover.move("end")
        answers.append(await mover.expect((p.StateMsg, p.RefusedMsg), where=_answer_to(rid, before)))
    return answers


def _answer_to(rid: int, stamp: int) -> Callable[[p.StateMsg | p.RefusedMsg], bool]:
    """Whether a message answers move ``rid`` asked at ``stamp``: its refusal, or a newer state."""

    def answers(m: p.StateMsg | p.RefusedMsg) -> bool:
        return m.id == rid if isinstance(m, p.RefusedMsg) else m.stamp > stamp

    return answers


def drawn_again(seen: Mapping[int | None, set[Card]], save: Path) -> dict[int | None, set[Card]]:
    """By seat: the cards it was shown that the stock of the match saved at ``save`` holds (a
    resume deals them again, in the order that seat saw them)."""
    resumed = MatchSession.load(save, shared_log=True)
    assert resumed is not None, "no save to resume"
    stock = set(resumed.match.round.stock)
    return {seat: cards & stock for seat, cards in seen.items()}


async def full_disk_episode(disk: Path, seats: Sequence[str]) -> dict[str, Any]:
    """A real host whose data folder is on the tmpfs ``disk``, Ana and Ben at the table: moves
    made; the disk filled and turns tried; the disk freed (the table goes on by itself) and a
    move made; the disk filled again and turns tried, then the host killed with SIGKILL while it
    is full, the disk freed and the table served again with ``--resume``. What each side was
    told and answered, the cards each seat was shown that the saved stock holds, and how many
    seats the resumed table shows otherwise than they were shown last."""
    from kc_tui.net.host_files import hosted_save_path
    from tests.faultkit import fill

    out: dict[str, Any] = {}
    host = start_host(*seats)
    try:
        urls = await join_lines(host)
        ana, ben = await join(urls["Ana"]), await join(urls["Ben"])
        await make_moves(2, ana, ben)
        await settled_turn(ana, ben)  # a person is on turn: the table waits for them
        filler = fill(disk)
        out["answers"] = await try_ends(3, ana, ben)
        with suppress(AssertionError):
            await wait_until(
                lambda: all(c.state.save_problem is not None for c in (ana, ben)), timeout=WAIT, what="the seats told"
            )
        out["seats_told"] = all(c.state.save_problem is not None for c in (ana, ben))
        filler.unlink()
        with suppress(AssertionError):  # no move is asked for: the table tries the save by itself
            await wait_until(
                lambda: all(c.state.save_problem is None for c in (ana, ben)), timeout=WAIT, what="the seats told"
            )
        out["seats_saved_again"] = all(c.state.save_problem is None for c in (ana, ben))
        await make_moves(1, ana, ben)
        await settled_turn(ana, ben)
        filler = fill(disk)
        out["answers"] += await try_ends(3, ana, ben)
        shown = {c.state.seat: c.state for c in (ana, ben)}
        seen = {c.state.seat: set(c.seen) for c in (ana, ben)}
        host.kill()
        console, _ = host.communicate(timeout=20)
        out["console"] = console
        filler.unlink()
        out["drawn_again"] = drawn_again(seen, hosted_save_path())
        for c in (ana, ben):
            await c.close()
    finally:
        stop(host)
    again = start_host("--resume", "--stand-in", "0")
    try:
        await join_lines(again)
        ana, ben = await join(urls["Ana"]), await join(urls["Ben"])
        out["lost"] = sum(1 for c in (ana, ben) if shown_as(c.state) != shown_as(shown[c.state.seat]))
        for c in (ana, ben):
            await c.close()
    finally:
        stop(again)
    return out


def shown_as(state: p.StateMsg) -> tuple[Any, ...]:
    """What a state shows its seat of the table: the round, the piles, its hand and the log."""
    return state.round, state.piles, state.hand, state.log


def position(server: TableServer) -> tuple[int, Any, list[str]]:
    s = server.session
    return server.stamp, position_dict(s.match.round, s.names), list(s.log)


async def on_turn(server: TableServer, *clients: Client) -> Client:
    """The client whose seat is to move, once its state says so."""

    def mover() -> Client | None:
        return next((c for c in clients if c.state.legal and c.state.stamp == server.stamp), None)

    return await wait_until(mover, what="a seat's state saying it is to move", showing=lambda: stamps(server, clients))


def stamps(server: TableServer, clients: Sequence[Client]) -> str:
    """The table's stamp and each client's latest (what a wait for a turn shows when it fails)."""
    return f"the table at {server.stamp}, its clients at {[c.state.stamp if c.states() else None for c in clients]}"


# ---------------------------------------------------------------------- raw sockets
def allow_open_files(count: int) -> None:
    """Raise this process's limit of open files to at least ``count`` (the tests run as root:
    the hard limit may be raised too)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < count:
        resource.setrlimit(resource.RLIMIT_NOFILE, (count, max(hard, count)))


def idle_sockets(
    port: int, count: int, batch: int = 50, sources: Sequence[str] = ("127.0.0.1",)
) -> list[socket.socket]:
    """``count`` raw TCP sockets to ``port`` on loopback that never send a byte, opened ``batch``
    at a time: each batch's connects have finished (or failed) before the next starts, so the
    server's accept queue is never what refuses them. They come from ``sources`` in turn (any
    127.x.y.z: each is another remote address to the server). Blocking: run it in a thread."""
    opened: list[socket.socket] = []
    for start in range(0, count, batch):
        waiting = select.poll()
        for i in range(min(batch, count - start)):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setblocking(False)
            sock.bind((sources[(start + i) % len(sources)], 0))
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


#: The head of a WebSocket upgrade, as a slow client sends it (one byte at a time).
UPGRADE_HEAD = (
    b"GET /watch HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
)


class SlowHandshakes:
    """``count`` raw connections from ``source`` that each send an upgrade's HTTP head one byte
    every ``every`` seconds (it never ends within the server's handshake timeout) and open again
    as soon as the server drops them: a client that holds its place in the handshake as long as
    it can. ``opened`` counts every connection made, ``dropped`` those the server closed."""

    def __init__(self, port: int, count: int = 8, source: str = "127.0.0.1", every: float = 1.0) -> None:
        self.port, self.count, self.source, self.every = port, count, source, every
        self.opened = 0
        self.dropped = 0
        self._tasks: list[asyncio.Task[None]] = []

    async def __aenter__(self) -> SlowHandshakes:
        self._tasks = [asyncio.create_task(self._hold()) for _ in range(self.count)]
        return self

    async def __aexit__(self, *exc: object) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _hold(self) -> None:
        while True:
            try:
                reader, writer = await raw_connection(self.port, self.source)
            except OSError:
                await asyncio.sleep(self.every)  # its pace: a refused connect is tried again
                continue
            self.opened += 1
            try:
                for byte in UPGRADE_HEAD:
                    writer.write(bytes([byte]))
                    await writer.drain()
                    if await ended(reader, self.every):
                        self.dropped += 1
                        break
            except OSError:
                self.dropped += 1
            finally:
                writer.transport.abort()


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
        self.protocol.send_text(write(p.Hello("kings-corners tests")).encode())
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
                    self.protocol.receive_eof()
                    raise AssertionError("the server closed the connection")
                self.protocol.receive_data(data)
                for event in self.protocol.events_received():
                    if isinstance(event, WsFrame) and event.opcode is Opcode.TEXT:
                        self.messages.append(parse_server(bytes(event.data).decode(), strict=True))
                self._flush()

    async def read_to_end(self, timeout: float = WAIT * 3) -> None:
        """Read (and answer pings) until the server closes the connection."""
        with suppress(AssertionError):
            await self.read_until(lambda: False, timeout)

    def send(self, text: str) -> None:
        """Send one message (the seat still reads nothing)."""
        self.protocol.send_text(text.encode())
        self._flush()

    def _flush(self) -> None:
        assert self.writer is not None
        for data in self.protocol.data_to_send():
            if data:
                self.writer.write(data)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.transport.abort()


class Visitor:
    """A person's seat whose client comes and goes: every visit is a state to every other client
    for the coming and one for the going."""

    def __init__(self, server: TableServer, base: str, seat: int) -> None:
        self.server = server
        self.url = base + seat_path(server.tokens[seat])
        self.seat = seat
        self.changes = 0

    async def comes_and_goes(self) -> None:
        client = await join(self.url)
        await client.close()
        # A stall makes hundreds of visits, each waiting here: looked at often.
        await wait_until(lambda: not self.server.connected[self.seat], what="the visitor gone", poll=0.002)
        self.changes += 2


async def stall(server: TableServer, seat: int, change: Callable[[], Awaitable[None]], settled: int = 20) -> None:
    """Make changes at the table until a state waits for ``seat``'s (stalled) client after each of
    ``settled`` changes in a row: the server's socket buffers have stopped growing."""
    async with asyncio.timeout(60):
        waited = 0
        while waited < settled:
            await change()
            waited = waited + 1 if server.pending(seat)[0] else 0


# ---------------------------------------------------------------------- the host, its output read as it comes
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
        await wait_until(lambda: any(line.startswith("Watch: ") for line in self.out), what="the host's join lines")
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


def host_process(*args: str, nofile: int | None = None, env: Mapping[str, str] | None = None) -> HostProcess:
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


def _answers_or_slows(rid: int, message: Any) -> bool:
    """Whether ``message`` answers request ``rid``, or says a request was dropped (over the rate)."""
    return bool(message.id == rid or (isinstance(message, p.ErrorMsg) and message.code == p.SLOW_DOWN))
