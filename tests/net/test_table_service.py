"""Many tables behind one port: each :class:`ServedTable` serves the seats and spectators the
:class:`Listener` hands it by path, its seats see only their own table, a token is a seat of its
own table only, and the port refuses an address with too many sockets open with one plain line.
A table saved through a sink (the server's store) holds while the sink fails, as on a full disk."""

from __future__ import annotations

import asyncio
import json
import logging
import random
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from http import HTTPStatus
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from kc_tui.match.session import MatchSession
from kc_tui.match.table import TableDriver
from kc_tui.net import schema as p
from kc_tui.net import views
from kc_tui.net.listener import Endpoint, Listener, address_full_text
from kc_tui.net.protocol import parse_server
from kc_tui.net.table_service import ServedTable
from tests.net.serverkit import (
    TWO_ROUNDS,
    Client,
    join,
    play_on,
    raw_connection,
    session_for,
    settled_turn,
    try_ends,
)
from tests.waiting import wait_until

HOME = "This is a Kings Corners server."
INVITE = "Open this invite with: kings-corners online <link>"
#: The two tables' people: no name at one table is a name at the other.
FIRST = (("Ana", "human"), ("Ben", "human"), ("Greedy", "greedy"))
SECOND = (("Cleo", "human"), ("Dan", "human"), ("Basic", "basic"))


class Tables:
    """Served tables by id behind one listener, at ``/t/<table>/seat/<token>`` and
    ``/t/<table>/watch``; ``/`` answers one line."""

    def __init__(self, **listener: Any) -> None:
        self.tables: dict[str, ServedTable] = {}
        self.listener = Listener(self.route, **listener)
        self.base = ""

    def route(self, path: str) -> Endpoint | tuple[int, str]:
        if path == "/":
            return HTTPStatus.OK, HOME
        if path.startswith("/i/"):
            return HTTPStatus.OK, INVITE
        _empty, t, table_id, rest = [*path.split("/", 3), "", "", ""][:4]
        table = self.tables.get(table_id) if t == "t" else None
        if table is None:
            return HTTPStatus.NOT_FOUND, "no such table"
        refused = table.admits(rest)
        return table.endpoint(rest) if refused is None else refused

    def url(self, table_id: str, name: str | None) -> str:
        """The URL of ``name``'s seat at the table (None: its spectators')."""
        table = self.tables[table_id]
        if name is None:
            return f"{self.base}/t/{table_id}/watch"
        return f"{self.base}/t/{table_id}/seat/{table.tokens[table.session.names.index(name)]}"


@asynccontextmanager
async def served(
    sessions: Mapping[str, MatchSession], status: Callable[[str], None] | None = None, **listener: Any
) -> AsyncIterator[Tables]:
    """The tables of ``sessions`` (by id) served behind one listener on a free port; ``status``
    hears their lines."""
    tables = Tables(**listener)
    for table_id, session in sessions.items():
        tables.tables[table_id] = ServedTable(
            session, table_id=table_id, ai_delay=0.0, round_pause=0.0, stand_in=0, stand_in_think_ms=30, status=status
        )
    port = await tables.listener.start("127.0.0.1", 0)
    tables.base = f"ws://127.0.0.1:{port}"
    for table in tables.tables.values():
        await table.start()
    try:
        yield tables
    finally:
        for table in tables.tables.values():
            await table.close()
        await tables.listener.close()


def names_in(client: Client) -> set[str]:
    """The names of the seats in every state the client was sent."""
    return {seat.name for state in client.states() for seat in state.seats}


async def test_two_tables_on_one_port_are_played_at_once_and_each_seat_sees_only_its_own() -> None:
    sessions = {"first123": session_for(FIRST, rules=TWO_ROUNDS), "second45": session_for(SECOND, rules=TWO_ROUNDS)}
    async with served(sessions) as tables:
        first = [await join(tables.url("first123", name)) for name in ("Ana", "Ben", None)]
        second = [await join(tables.url("second45", name)) for name in ("Cleo", "Dan", None)]
        rng = random.Random(5)

        def both_over() -> bool:
            return all(t.over for t in tables.tables.values())

        made = await asyncio.gather(*(play_on(c, rng, both_over, timeout=120) for c in (*first[:2], *second[:2])))
        await wait_until(lambda: all(c.state.over for c in (*first, *second)), what="every client saw its match end")
        assert sum(made[:2]) > 0 and sum(made[2:]) > 0
        for table_id, clients, names in (("first123", first, FIRST), ("second45", second, SECOND)):
            table = tables.tables[table_id]
            for viewer, client in zip((0, 1, None), clients, strict=True):
                assert names_in(client) == {name for name, _kind in names}
                assert client.state.seat == viewer and client.state.stamp == table.stamp
                assert client.leaks == []
            assert table.connected == [True, True, True] and table.spectators == 1
        for client in (*first, *second):
            await client.close()


async def test_a_seat_token_is_refused_at_another_table_and_an_unknown_table_is_not_found() -> None:
    sessions = {"first123": session_for(FIRST), "second45": session_for(SECOND)}
    async with served(sessions) as tables:
        token = tables.tables["first123"].tokens[0]
        stranger = await join(f"{tables.base}/t/second45/seat/{token}", wait_state=False)
        refused = await stranger.expect(p.ErrorMsg)
        assert refused.code == p.BAD_TOKEN
        await wait_until(lambda: stranger.reader is not None and stranger.reader.done(), what="the connection closed")
        assert not stranger.states()
        assert tables.tables["second45"].connected == [False, False, True]
        assert tables.tables["first123"].connected == [False, False, True]
        with pytest.raises(InvalidStatus) as info:
            await connect(f"{tables.base}/t/nosuchtb/seat/{token}")
        assert info.value.response.status_code == HTTPStatus.NOT_FOUND
        ana = await join(tables.url("first123", "Ana"))  # the token is a seat at its own table
        assert ana.state.seat == 0 and tables.tables["first123"].connected[0]
        await ana.close()


async def test_an_address_with_as_many_sockets_as_it_may_is_refused_with_one_line() -> None:
    async with served({"first123": session_for(FIRST)}, per_address=2) as tables:
        spectators = [await join(tables.url("first123", None)), await join(tables.url("first123", "Ana"))]
        with pytest.raises(InvalidStatus) as info:
            await connect(tables.url("first123", "Ben"))
        response = info.value.response
        assert response.status_code == HTTPStatus.SERVICE_UNAVAILABLE
        assert response.body.decode() == address_full_text() + "\n"
        await spectators[0].close()
        await wait_until(lambda: tables.listener.by_address == {"127.0.0.1": 1}, what="one socket left")
        ben = await join(tables.url("first123", "Ben"))  # room again
        assert ben.state.seat == 1
        for client in (spectators[1], ben):
            await client.close()


async def test_a_plain_get_of_a_path_is_answered_its_line() -> None:
    async with served({"first123": session_for(FIRST)}) as tables:
        port = tables.listener.port
        assert port is not None
        reader, writer = await raw_connection(port)
        writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        await writer.drain()
        async with asyncio.timeout(10):
            head = await reader.readuntil(b"\r\n\r\n")
            length = int(
                next(h for h in head.split(b"\r\n") if h.lower().startswith(b"content-length:")).split(b":")[1]
            )
            body = await reader.readexactly(length)
        writer.close()
        assert head.startswith(b"HTTP/1.1 200") and body.decode() == HOME + "\n"


async def test_no_seat_token_nor_invite_secret_reaches_the_log_even_at_debug(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    secret = "SeCrEtOfTheInvite0123456789"
    async with served({"first123": session_for(FIRST)}) as tables:
        token = tables.tables["first123"].tokens[0]
        ana = await join(tables.url("first123", "Ana"))
        with pytest.raises(InvalidStatus) as info:
            await connect(f"{tables.base}/i/first123/{secret}")
        assert info.value.response.body.decode() == INVITE + "\n"
        await ana.close()
    lines = "\n".join(r.getMessage() for r in caplog.records if r.name.startswith("kc_tui"))
    assert "/t/first123/seat/<token>" in lines and "/i/first123/<secret>" in lines
    assert token not in lines and secret not in lines


async def test_a_table_tells_its_changes_and_a_new_token_closes_the_seat_of_the_old() -> None:
    told: list[tuple[tuple[bool, ...], int, int]] = []
    async with served({"first123": session_for(FIRST)}) as tables:
        table = tables.tables["first123"]
        table.on_change = lambda t: told.append((tuple(t.connected), t.spectators, len(t.session.match.results)))
        ana = await join(tables.url("first123", "Ana"))
        spectator = await join(tables.url("first123", None))
        await wait_until(lambda: told[-1:] == [((True, False, True), 1, 0)], what="Ana and a spectator told")
        old = tables.url("first123", "Ana")
        table.set_token(0, "a-new-token-for-another-person-at-this-seat")
        refused = await ana.expect(p.ErrorMsg)
        assert refused.code == p.BAD_TOKEN
        await wait_until(lambda: told[-1:] == [((False, False, True), 1, 0)], what="Ana's seat freed, told")
        again = await join(old, wait_state=False)
        assert (await again.expect(p.ErrorMsg)).code == p.BAD_TOKEN
        new = await join(tables.url("first123", "Ana"))
        assert new.state.seat == 0 and table.connected[0]
        for client in (spectator, again, new):
            await client.close()


async def test_a_seat_given_to_someone_new_is_said_to_be_theirs_not_theirs_again() -> None:
    said: list[str] = []
    async with served({"first123": session_for(FIRST)}, status=said.append) as tables:
        table = tables.tables["first123"]
        table.stand_in_now("Ana")
        assert 0 in table.standing_in
        table.set_token(0, "a-new-token-for-cy-at-anas-seat", name="Cy")
        assert "Cy took Ana's seat" in said
        cy = await join(tables.url("first123", "Cy"))
        assert cy.state.seat == 0
        await wait_until(lambda: "Cy connected" in said, what="Cy's coming said")
        assert not any("theirs again" in line for line in said), said
        await cy.close()


class Sink:
    """A store of saves that fails while ``failing``: every save it keeps, as bytes."""

    def __init__(self) -> None:
        self.kept: list[bytes] = []
        self.failing = False
        self.refused = 0

    def __call__(self, data: bytes) -> str | None:
        if self.failing:
            self.refused += 1
            return "the store is locked"
        self.kept.append(data)
        return None


def shown(state: p.StateMsg) -> tuple[Any, ...]:
    """What a state shows its seat of the position: the round, the piles, its hand, who moves."""
    return state.round, state.piles, state.hand, state.waiting_for


async def test_a_table_saved_through_a_failing_sink_holds_then_goes_on_and_shows_only_what_was_kept() -> None:
    sink = Sink()
    session = session_for(rules=TWO_ROUNDS)
    session.save_sink = sink
    session.save()
    assert session.save_first and sink.kept
    async with served({"first123": session}) as tables:
        table = tables.tables["first123"]
        table.save_retry = 0.05
        ana, ben = await join(tables.url("first123", "Ana")), await join(tables.url("first123", "Ben"))
        await settled_turn(ana, ben)
        sink.failing = True
        held = (ana.state.stamp, ben.state.stamp)
        answers = await try_ends(2, ana, ben)
        assert [type(a) for a in answers] == [p.RefusedMsg] * 2
        assert all("the store is locked" in a.reason for a in answers if isinstance(a, p.RefusedMsg))
        await wait_until(lambda: all(c.state.save_problem for c in (ana, ben)), what="every seat told")
        assert (ana.state.stamp, ben.state.stamp) == held and table.session.holding
        sink.failing = False  # the table tries the sink again by itself and goes on
        await wait_until(lambda: all(c.state.save_problem is None for c in (ana, ben)), what="the seats told")
        await try_ends(2, ana, ben)
        await settled_turn(ana, ben)
    assert sink.refused >= 2
    kept: set[tuple[int, Any]] = set()
    for data in sink.kept:
        driver = TableDriver(MatchSession.from_dict(json.loads(data), shared_log=True), pace="instant")
        for seat in (0, 1):
            text = views.state(driver, seat, stamp=0, connected=[True] * 3, stand_in=[False] * 3)
            state = parse_server(text)
            assert isinstance(state, p.StateMsg)
            kept.add((seat, shown(state)))
    for client in (ana, ben):
        viewer = client.state.seat
        assert viewer is not None
        assert {(viewer, shown(state)) for state in client.states()} <= kept


def test_a_sink_that_raises_is_a_failed_save_in_one_line_and_the_next_that_keeps_it_clears_it() -> None:
    session = session_for()

    def locked(data: bytes) -> str | None:
        raise OSError("database is locked\nwith a second line")

    session.save_sink = locked
    session.save()
    assert session.save_problem == "database is locked" and session.holding and not session.saved
    sink = Sink()
    session.save_sink = sink
    assert session.retry_save() and not session.holding and session.saved
    assert MatchSession.from_dict(json.loads(sink.kept[0]), shared_log=True).names == session.names
