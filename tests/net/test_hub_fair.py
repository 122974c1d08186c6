"""Many tables at once on one ``kings-corners server``: twenty tables of four seats (people and
AIs, created through the lobby or by quick play) played to their end while a lobby watcher sees
every table's phases in order; and, with the hub in this process, every frame each seat,
spectator and lobby connection received holds only what its viewer may know (no other hand's
card, no seat's token, no invite's secret, no private key, no deal's seed, no private table)."""

from __future__ import annotations

import asyncio
import base64
import functools
import json
import random
import re
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pytest

from kc_tui.config import HUMAN
from kc_tui.engine import card_str
from kc_tui.engine.match import secret_text
from kc_tui.net import lobby_schema as ls
from kc_tui.net.hub import Hub, HubSettings
from kc_tui.net.identity import PlayerKey
from kc_tui.net.server_store import ServerStore
from kc_tui.net.table_service import ServedTable
from tests.match.kit import cards_in_text
from tests.net.hubkit import (
    FAST,
    SHORT_RULES,
    SHORT_TARGET,
    LobbyTester,
    lobby,
    play_to_end,
    player_key,
    server,
    signed_in,
    sit,
)
from tests.net.serverkit import Client, Frame, join, play_on, record_frames, replay_problems
from tests.net.test_fair_frames import check_frames
from tests.waiting import wait_until

if TYPE_CHECKING:
    from kc_tui.net.server import TableServer

#: The seat plans of the created tables: four people; two people and two AIs; one person and
#: three AIs (the AIs between the people too), five tables of each.
PLANS: tuple[tuple[str, ...], ...] = (
    (HUMAN, HUMAN, HUMAN, HUMAN),
    (HUMAN, "greedy", HUMAN, "king-aware"),
    (HUMAN, "random", "greedy", "king-aware"),
)
#: A log line of a card shown to everyone as it is played.
PUBLIC = re.compile(r" (played|put|moved) ")
#: serverkit's Client.check's note of a card in a state or a replay it had not seen before.
GUESSED = re.compile(r'^\S+ in \{"v":\d+,"type":"(state|replay)"')
#: Quick tables: two people each, then AIs once the first one's wait (seconds) is over: long
#: enough for the second to come on a loaded machine.
QUICK_PEOPLE = 2
QUICK_WAIT = 5


def create(seats: Sequence[str], *, private: bool = False) -> ls.CreateTable:
    return ls.CreateTable(tuple(seats), SHORT_TARGET, dict(SHORT_RULES), private)


def told(watcher: LobbyTester, table: str) -> list[Any]:
    """The listings (``TableMsg``) and the end (``TableGoneMsg``) of ``table`` a lobby connection
    was sent, in order (its first ``lobby`` message's listing first, if it was in it)."""
    out: list[Any] = []
    for m in watcher.messages:
        if isinstance(m, ls.LobbyMsg):
            out += [t for t in m.tables if t.table == table]
        elif isinstance(m, ls.TableMsg) and m.listing.table == table:
            out.append(m.listing)
        elif isinstance(m, ls.TableGoneMsg) and m.table == table:
            out.append(m)
    return out


def phases(watcher: LobbyTester, table: str) -> list[str]:
    """The phases a lobby connection was told of ``table``, in order (``gone:REASON`` its end)."""
    out: list[str] = []
    for m in told(watcher, table):
        phase = f"gone:{m.reason}" if isinstance(m, ls.TableGoneMsg) else m.phase
        if not out or out[-1] != phase:
            out.append(phase)
    return out


def told_ended(watcher: LobbyTester, table: str) -> bool:
    return phases(watcher, table)[-1:] == ["gone:ended"]


def seatings(watcher: LobbyTester, table: str) -> list[tuple[str | None, ...]]:
    """The people's names by seat (None: an AI's seat or a free one) while ``table`` was open, as
    a lobby connection was told them, each change once."""
    out: list[tuple[str | None, ...]] = []
    for m in told(watcher, table):
        if isinstance(m, ls.TableListing) and m.phase == ls.OPEN:
            names = tuple(s.name if s.kind == HUMAN else None for s in m.seats)
            if not out or out[-1] != names:
                out.append(names)
    return out


def filling(people: Sequence[str], plan: Sequence[str]) -> list[tuple[str | None, ...]]:
    """The table's people, seated one by one in the order they came, in seat order: the last
    is everyone (the table plays from then on, unless AIs fill it later)."""
    humans = [i for i, kind in enumerate(plan) if kind == HUMAN]
    out: list[tuple[str | None, ...]] = []
    for count in range(1, len(people) + 1):
        names: list[str | None] = [None] * len(plan)
        for seat, name in zip(humans, people[:count], strict=False):
            names[seat] = name
        out.append(tuple(names))
    return out


def order_problems(watcher: LobbyTester, table: str, people: Sequence[str], plan: Sequence[str]) -> list[str]:
    """What the watcher was told of ``table`` out of order: its phases, its seats filling, the
    seats once it plays, its rounds, anything after its end."""
    problems: list[str] = []
    # A table its creator fills alone plays at once; a quick one waits for its AIs.
    full = len(people) == plan.count(HUMAN)
    expected = [ls.OPEN] if len(people) > 1 or not full else []
    if (seen := phases(watcher, table)) != [*expected, ls.PLAYING, "gone:ended"]:
        problems.append(f"{table}: phases {seen}")
    fills = filling(people, plan)[: -1 if full else None]
    if (names := seatings(watcher, table)) != fills:
        problems.append(f"{table}: seats filled as {names}, not one by one {fills}")
    listed = told(watcher, table)
    playing = [m for m in listed if isinstance(m, ls.TableListing) and m.phase == ls.PLAYING]
    seated = filling(people, plan)[-1]
    for m in playing:
        if any(s.name is None for s in m.seats) or any(
            name is not None and s.name != name for s, name in zip(m.seats, seated, strict=True)
        ):
            problems.append(f"{table}: seats listed while it plays {[s.name for s in m.seats]}")
            break
    rounds = [m.round for m in playing]
    if rounds != sorted(rounds):
        problems.append(f"{table}: rounds told out of order {rounds}")
    ends = [i for i, m in enumerate(listed) if isinstance(m, ls.TableGoneMsg)]
    if ends != [len(listed) - 1]:
        problems.append(f"{table}: something told after its end, or no one end")
    return problems


def quick_play(target: int) -> ls.QuickPlay:
    return ls.QuickPlay(4, target, dict(SHORT_RULES), fill_after=QUICK_WAIT)


async def play_table(people: Sequence[LobbyTester], table: str) -> None:
    """Each person's seat at ``table`` (from their ``start``) played to the match's end."""
    starts = [await person.expect(ls.StartMsg, where=lambda m: m.table == table) for person in people]
    seats = [await sit(start.url) for start in starts]
    ends = await asyncio.gather(*(play_to_end(s) for s in seats))
    assert all(state.over for state in ends)
    for s in seats:
        await s.close()


async def created_table(people: Sequence[LobbyTester], plan: Sequence[str]) -> str:
    """A table of ``plan`` created by the first of ``people``, the others joining one by one."""
    joined = await people[0].request(create(plan))
    assert isinstance(joined, ls.JoinedMsg) and joined.seat == 0, joined
    for person in people[1:]:
        answer = await person.request(ls.JoinTable(joined.table))
        assert isinstance(answer, ls.JoinedMsg), answer
    return joined.table


async def quick_table(people: Sequence[LobbyTester], target: int) -> str:
    """A quick table of four to ``target``: the first of ``people`` opens it, the others join it,
    AIs fill the rest once the first one's wait is over."""
    tables: list[str] = []
    for person in people:
        answer = await person.request(quick_play(target))
        assert isinstance(answer, ls.JoinedMsg), answer
        tables.append(answer.table)
    assert len(set(tables)) == 1, f"quick play opened {tables} for one rules and target"
    return tables[0]


async def test_twenty_tables_of_people_and_ais_play_to_the_end_while_the_lobby_watches_each(
    isolated_dirs: Path,
) -> None:
    async with server(isolated_dirs / "srv", *FAST, "--sockets-per-address", "0") as srv:
        watcher = await lobby(srv.lobby)
        count = 0

        async def person() -> tuple[str, LobbyTester]:
            nonlocal count
            count += 1
            name = f"P{count:02d}"
            return name, await signed_in(srv.lobby, isolated_dirs / "people" / name, name)

        tables: list[tuple[list[str], list[LobbyTester], tuple[str, ...], str]] = []

        async def one(plan: tuple[str, ...], quick_target: int | None) -> None:
            size = QUICK_PEOPLE if quick_target is not None else plan.count(HUMAN)
            named = [await person() for _ in range(size)]
            names, people = [n for n, _ in named], [c for _, c in named]
            if quick_target is None:
                table = await created_table(people, plan)
            else:
                table = await quick_table(people, quick_target)
            tables.append((names, people, plan, table))
            await play_table(people, table)

        work = [one(PLANS[i % len(PLANS)], None) for i in range(15)]
        work += [one((HUMAN,) * 4, SHORT_TARGET + k) for k in range(5)]
        await asyncio.gather(*work)
        assert len({t for *_, t in tables}) == 20
        listed = {m.listing.table for m in watcher.of(ls.TableMsg)} | {m.table for m in watcher.of(ls.TableGoneMsg)}
        assert listed == {t for *_, t in tables}, "the watcher was told of the twenty tables, and of no other"
        for *_, table in tables:
            await wait_until(
                functools.partial(told_ended, watcher, table),
                what=f"the end of {table} told",
                showing=functools.partial(phases, watcher, table),
            )
        problems = [x for names, _p, plan, table in tables for x in order_problems(watcher, table, names, plan)]
        assert problems == [], "\n".join(problems)
        for _n, people, _plan, _t in tables:
            for c in people:
                await c.close()
        await watcher.close()
        assert srv.stop() == 0
    assert "Traceback" not in srv.errors()


# ---------------------------------------------------------------------- every frame, the hub in this process
@dataclass
class Person:
    """A signed-in person of the in-process hub: their lobby connection, their key, their name."""

    name: str
    lobby: LobbyTester
    key: PlayerKey


@dataclass
class Played:
    """A table played in the leak check: its id, its served table, its people by seat, their
    seats' clients, its spectator, whether it is private."""

    table: str
    served: ServedTable
    people: dict[int, Person]
    seats: dict[int, Client] = field(default_factory=dict)
    spectator: Client | None = None
    private: bool = False


@asynccontextmanager
async def hub_here(folder: Path) -> AsyncIterator[Hub]:
    """A hub served by this process (as ``kings-corners server`` builds it: its store in
    ``folder``), AIs and rounds at once, no limit per address."""
    store = ServerStore.open(folder)
    hub = Hub(store, settings=HubSettings(ai_delay=0.0, round_pause=0.0, stand_in_think_ms=30), per_address=None)
    try:
        await hub.start("127.0.0.1", 0)
        yield hub
    finally:
        await hub.close()
        store.close()


def private_texts(key: PlayerKey) -> set[str]:
    """The ways a private key could be written: its raw bytes in URL-safe and plain base64, hex."""
    raw = key._private.private_bytes_raw()
    return {base64.urlsafe_b64encode(raw).rstrip(b"=").decode(), base64.b64encode(raw).decode(), raw.hex()}


def token_of(start: ls.StartMsg) -> str:
    return start.url.rsplit("/seat/", 1)[1]


def others_cards(client: Client, frames: dict[str, Frame], viewer: int | None) -> list[str]:
    """Every state ``client`` got that names a card in another seat's hand at that moment: in
    what it shows of the present (the piles, the hand, every text but the log), or in this
    round's log but for a card played in the open (it may have come back to a hand since: taken
    back, or its pile shuffled into the stock and drawn)."""
    problems: list[str] = []
    for text in client.raw:
        frame = frames.get(text)
        if frame is None:
            continue
        others = {c for seat, hand in enumerate(frame.hands) if seat != viewer for c in hand}
        data = json.loads(text)
        view = data["view"]
        log: list[str] = view.pop("log")
        heading = f"Round {view['round_number']}: "
        log = log[max((i for i, line in enumerate(log) if line.startswith(heading)), default=0) :]
        public = {c for line in log if PUBLIC.search(line) for c in cards_in_text(line)}
        told = {c for line in log for c in cards_in_text(line)} - public
        if shown := (cards_in_text(json.dumps(data, ensure_ascii=False)) | told) & others:
            problems.append(f"viewer {viewer} was shown {sorted(map(card_str, shown))} of another's hand: {text[:200]}")
    return problems


def ended(client: Client) -> bool:
    return any(m.over for m in client.states())


def masked(text: str, ids: set[str]) -> str:
    """``text`` with every id, token, secret and nonce blanked (a card code could hide in one)."""
    for x in sorted(ids, key=len, reverse=True):
        text = text.replace(x, " ")
    return text


@dataclass
class Hidden:
    """What no frame may hold but where it belongs: the seats' tokens (each person's own
    ``start``), the served tables' own tokens (sent to no one), the invites' secrets (by their
    creator's name: their own ``joined``), the private keys, the deals' seeds, and the ids a card
    code could hide in (tables, tokens, secrets, nonces); the private tables, by their people."""

    tokens: set[str]
    inner: set[str]
    invites: dict[str, str]
    keys: set[str]
    seeds: set[str]
    nonces: set[str]
    tables: set[str]
    private: dict[str, set[str]]

    @property
    def ids(self) -> set[str]:
        return self.tables | self.tokens | set(self.invites) | self.nonces


def seed_texts(seed: int) -> tuple[str, str]:
    """A deal's seed as a save writes it and as a number."""
    return secret_text(seed), str(seed)


def holds(text: str, secrets: set[str]) -> bool:
    return any(x in text for x in secrets)


def listed_in(message: object) -> set[str]:
    """The tables a lobby message lists (or says are gone)."""
    if isinstance(message, ls.LobbyMsg):
        return {t.table for t in message.tables}
    if isinstance(message, ls.TableMsg):
        return {message.listing.table}
    if isinstance(message, ls.TableGoneMsg):
        return {message.table}
    return set()


def lobby_problems(who: str, conn: LobbyTester, hidden: Hidden) -> list[str]:
    """What a lobby connection was sent that it may not hold: a card; a seat's token (a person's
    own ``start``: their own only); an invite's secret (its creator's own ``joined`` only); a
    private key; a seed; a private table listed, or named to anyone not seated at it."""
    problems: list[str] = []
    for text, message in zip(conn.raw, conn.messages, strict=True):
        own = {token_of(message)} if isinstance(message, ls.StartMsg) else set()
        mine = {s for s, name in hidden.invites.items() if name == who} if isinstance(message, ls.JoinedMsg) else set()
        kind = type(message).__name__
        if found := cards_in_text(masked(text, hidden.ids)):
            problems.append(f"{who}'s lobby was shown cards {sorted(map(card_str, found))}: {text[:160]}")
        if holds(text, (hidden.tokens - own) | hidden.inner):
            problems.append(f"{who}'s lobby was sent a seat's token: {kind}")
        if holds(text, set(hidden.invites) - mine):
            problems.append(f"{who}'s lobby was sent an invite's secret: {kind}")
        if holds(text, hidden.keys | hidden.seeds):
            problems.append(f"{who}'s lobby was sent a private key or a deal's seed: {kind}")
        if listed_in(message) & set(hidden.private):
            problems.append(f"{who}'s lobby listed a private table: {kind}")
        if holds(text, {t for t, people in hidden.private.items() if who not in people}):
            problems.append(f"{who}'s lobby named a private table it does not sit at: {kind}")
    return problems


def viewers_of(t: Played) -> list[tuple[int | None, Client]]:
    """The table's seats' clients by seat, then its spectator's (None)."""
    spectator: list[tuple[int | None, Client]] = [(None, t.spectator)] if t.spectator else []
    return [*t.seats.items(), *spectator]


async def seat_people(
    hub: Hub, lobby_watcher: LobbyTester, table: str, people: dict[int, Person], private: bool
) -> Played:
    """The table's seats opened from each person's ``start`` and, unless private, a spectator
    from the lobby's ``watch``."""
    starts = {seat: await x.lobby.expect(ls.StartMsg, where=lambda m: m.table == table) for seat, x in people.items()}
    assert {s: m.seat for s, m in starts.items()} == {s: s for s in starts}
    played = Played(table, hub.tables[table].served, people, private=private)
    for seat, start in starts.items():
        played.seats[seat] = await join(start.url)
    if not private:
        watching = await lobby_watcher.request(ls.WatchTable(table))
        assert isinstance(watching, ls.WatchingMsg), watching
        played.spectator = await join(watching.url)
    return played


async def play_out(played: Played, seed: int) -> None:
    def over() -> bool:
        return played.served.session.match.over

    await asyncio.gather(*(play_on(c, random.Random(seed + seat), over, undo=0.2) for seat, c in played.seats.items()))
    for c in [*played.seats.values(), *([played.spectator] if played.spectator else [])]:
        await wait_until(functools.partial(ended, c), what=f"the last state at {played.table}")


async def test_every_frame_at_every_table_and_in_the_lobby_holds_only_what_its_viewer_may_know(
    isolated_dirs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    frames = record_frames(monkeypatch)
    async with hub_here(isolated_dirs / "srv") as hub:
        lobby_url = f"{hub.base}/lobby"
        watcher = await lobby(lobby_url)
        spectating = await lobby(lobby_url)
        people: list[Person] = []
        for name in ("Ana", "Ben", "Cat", "Dan", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kim"):
            key = player_key(isolated_dirs / "people" / name)
            tester = await lobby(lobby_url)
            assert isinstance(await tester.sign_in(key, name), ls.SignedIn)
            people.append(Person(name, tester, key))
        ana, ben, cat, dan, eli, fay, gus, hal, ivy, jo, kim = people
        joined: list[tuple[Person, ls.JoinedMsg]] = []

        async def make(
            creator: Person, plan: tuple[str, ...], others: Sequence[Person], private: bool = False
        ) -> Played:
            made = await creator.lobby.request(create(plan, private=private))
            assert isinstance(made, ls.JoinedMsg), made
            joined.append((creator, made))
            seated = {0: creator}
            for other in others:
                answer = await other.lobby.request(
                    ls.AcceptInvite(made.table, made.invite.rsplit("/", 1)[1])
                    if private and made.invite
                    else ls.JoinTable(made.table)
                )
                assert isinstance(answer, ls.JoinedMsg), answer
                joined.append((other, answer))
                seated[answer.seat] = other
            return await seat_people(hub, spectating, made.table, seated, private)

        async def quick(first: Person, second: Person) -> Played:
            seated: dict[int, Person] = {}
            answers: set[str] = set()
            for person in (first, second):
                answer = await person.lobby.request(quick_play(SHORT_TARGET))
                assert isinstance(answer, ls.JoinedMsg), answer
                joined.append((person, answer))
                seated[answer.seat] = person
                answers.add(answer.table)
            assert answers == {answer.table}, "the second person joined the first's quick table"
            return await seat_people(hub, spectating, answer.table, seated, False)

        tables = await asyncio.gather(
            make(ana, (HUMAN,) * 4, (ben, cat, dan)),
            make(eli, (HUMAN, "greedy", HUMAN, "king-aware"), (fay,)),
            make(gus, (HUMAN, "random", "greedy", "king-aware"), ()),
            quick(hal, ivy),
            make(jo, (HUMAN, "greedy", "random", HUMAN), (kim,), private=True),
        )
        await asyncio.gather(*(play_out(t, 7 + 10 * i) for i, t in enumerate(tables)))
        # What each client made of the table as it went (serverkit's Client.check), but for its
        # guesses of what it knew (every card named seen before), which hold only for a client
        # there from the deal: AIs move at once, so a seat or a spectator may come later. The
        # states and the replays are checked against the truth instead.
        leaks = {id(c): [x for x in c.leaks if not GUESSED.match(x)] for t in tables for _viewer, c in viewers_of(t)}
        # Every finished round's replay, as each seat and spectator asks for it, agrees with the truth.
        replays: list[str] = []
        for t in tables:
            for viewer, c in viewers_of(t):
                for number in range(1, len(t.served.session.match.results) + 1):
                    steps = [f for page in await c.whole_replay(number) for f in page.frames]
                    # replay_problems reads the served table's session only
                    truth = cast("TableServer", t.served)
                    replays += [f"{t.table} {viewer}: {x}" for x in replay_problems(truth, number, viewer, steps)]
        for t in tables:
            if not t.private:
                await wait_until(functools.partial(told_ended, watcher, t.table), what=f"the end of {t.table} told")
        lobbies = {"watcher": watcher, "spectating": spectating} | {x.name: x.lobby for x in people}
        starts = {x.name: x.lobby.of(ls.StartMsg) for x in people}
        hidden = Hidden(
            tokens={token_of(m) for ms in starts.values() for m in ms},
            inner={token for t in tables for token in t.served.tokens.values()},
            invites={m.invite.rsplit("/", 1)[1]: x.name for x, m in joined if m.invite},
            keys={text for x in people for text in private_texts(x.key)},
            seeds={text for t in tables for text in seed_texts(t.served.session.match.seed)},
            nonces={text for c in lobbies.values() for m in c.of(ls.Challenge) for text in (m.nonce, m.server)},
            tables={t.table for t in tables},
            private={t.table: {x.name for x in t.people.values()} for t in tables if t.private},
        )
        assert len(hidden.tokens) == sum(len(t.people) for t in tables) == 11, "a start for each person's seat"
        assert len(hidden.invites) == 4, "an invite for each created table's creator"
        problems = list(replays)
        for who, conn in lobbies.items():
            problems += lobby_problems(who, conn, hidden)
        # The tables: each state built for its viewer and true to it, no card of another's hand,
        # no other seat's token, no invite's secret, no private key, no seed.
        for t in tables:
            for viewer, c in viewers_of(t):
                who = "spectator" if viewer is None else t.people[viewer].name
                own = {token_of(m) for m in starts.get(who, []) if m.table == t.table}
                where = f"{t.table} {who}"
                problems += [f"{where}: {x}" for x in check_frames(c, frames, viewer) + leaks[id(c)]]
                problems += [f"{where}: {x}" for x in others_cards(c, frames, viewer)]
                secret = (hidden.tokens - own) | hidden.inner | set(hidden.invites) | hidden.keys | hidden.seeds
                problems += [
                    f"{where}: a token, a secret, a key or a seed in {x[:120]}" for x in c.raw if holds(x, secret)
                ]
                assert c.states(), where
            assert (t.spectator is None) == t.private
        for conn in lobbies.values():
            await conn.close()
        for t in tables:
            for c in [*t.seats.values(), *([t.spectator] if t.spectator else [])]:
                await c.close()
        assert problems == [], "\n".join(problems)
        assert all(t.served.session.match.over for t in tables)
        assert {t.people[0].name for t in tables if 0 in t.people} >= {"Ana", "Eli", "Gus", "Jo"}
