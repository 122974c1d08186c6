"""The lobby's client (kc_tui.net.lobby_client) against a small fake lobby: sign-in by challenge,
the listing kept current from its deltas, requests answered by id, connecting again by itself,
and every address checked before a socket is opened."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest

from kc_tui.net import lobby_schema as ls
from kc_tui.net.client import AddressError, Link, Status, table_address
from kc_tui.net.identity import PlayerKey, challenge_bytes, verify
from kc_tui.net.lobby_client import LobbyClient, LobbyError, lobby_address, parse_invite
from tests.net.lobbykit import SECRET, SERVER_ID, fake_lobby, listing
from tests.waiting import wait_until


@dataclass
class Watched:
    client: LobbyClient
    events: list[Any] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


@asynccontextmanager
async def running(
    url: str, name: str = "Ana", key: PlayerKey | None = None, challenge: Callable[[str, str], bytes] = challenge_bytes
) -> AsyncIterator[Watched]:
    client = LobbyClient(
        url,
        key or PlayerKey.generate(),
        name,
        client="kings-corners tests",
        first_retry=0.05,
        last_retry=0.2,
        challenge=challenge,
    )
    watched = Watched(client)
    client.on_event, client.on_link, client.on_problem = (
        watched.events.append,
        watched.links.append,
        watched.problems.append,
    )
    task = asyncio.create_task(client.run())
    try:
        yield watched
    finally:
        await client.close()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, 10)


async def signed_in(watched: Watched) -> None:
    await wait_until(lambda: watched.client.signed_in is not None, what="signed in")


async def test_signs_in_by_the_challenge_and_lists_the_tables() -> None:
    key = PlayerKey.generate()
    tables = (listing("tableONE"), listing("tableTWO", names=("Ben", "Cy", None)))
    async with fake_lobby(*tables) as lobby, running(lobby.url, "Ana", key) as w:
        await signed_in(w)
        assert set(w.client.listings) == {"tableONE", "tableTWO"}
        assert w.client.connected
        sign = lobby.of(ls.SignIn)[0]
        assert (sign.key, sign.name) == (key.public_text, "Ana")
        assert verify(key.public_text, sign.signature, challenge_bytes(SERVER_ID, "nonce-1"))
        assert isinstance(lobby.of(ls.LobbyHello)[0], ls.LobbyHello)


async def test_the_deltas_keep_the_listing_current() -> None:
    async with fake_lobby(listing("tableONE")) as lobby, running(lobby.url) as w:
        await signed_in(w)
        await lobby.push(ls.TableMsg(listing("tableTWO", names=("Ben", None))))
        await wait_until(lambda: "tableTWO" in w.client.listings)
        await lobby.push(ls.TableMsg(listing("tableONE", names=("Ana", "Ben"), phase=ls.PLAYING)))
        await wait_until(lambda: w.client.listings["tableONE"].phase == ls.PLAYING)
        await lobby.push(ls.TableGoneMsg("tableTWO", "closed"))
        await wait_until(lambda: "tableTWO" not in w.client.listings)
        assert [type(e) for e in w.events if isinstance(e, ls.TableMsg | ls.TableGoneMsg)] == [
            ls.TableMsg,
            ls.TableMsg,
            ls.TableGoneMsg,
        ]


async def test_a_request_gets_the_answer_of_its_own_id() -> None:
    async with fake_lobby() as lobby, running(lobby.url) as w:
        await signed_in(w)
        create = ls.CreateTable(("human", "greedy"), 100, {})
        joined = await w.client.request(create)
        assert isinstance(joined, ls.JoinedMsg)
        assert joined.invite == f"{lobby.base}/i/newTABLE/{SECRET}"
        watching = await w.client.request(ls.WatchTable("newTABLE"))
        assert isinstance(watching, ls.WatchingMsg)
        ids = [m.id for m in lobby.received if getattr(m, "id", None) is not None]
        assert len(ids) == len(set(ids)), ids
        await wait_until(lambda: "newTABLE" in w.client.listings)


async def test_a_name_held_by_another_key_is_refused_with_a_suggestion() -> None:
    async with fake_lobby(taken={"Ana": "Ana2"}) as lobby, running(lobby.url, "Ana") as w:
        await wait_until(lambda: w.client.name_refused is not None, what="the name refused")
        refused = w.client.name_refused
        assert refused is not None and refused.suggestion == "Ana2"
        assert w.client.signed_in is None
        assert w.client.sign_in("Ana2")
        await signed_in(w)
        assert w.client.name == "Ana2" and w.client.name_refused is None


async def test_connects_again_by_itself_and_signs_in_again() -> None:
    async with fake_lobby(listing("tableONE")) as lobby, running(lobby.url) as w:
        await signed_in(w)
        lobby.tables.append(listing("tableTWO"))
        await lobby.drop_all()
        await wait_until(lambda: Status.RECONNECTING in [link.status for link in w.links])
        await wait_until(lambda: lobby.connections == 2 and w.client.signed_in is not None)
        assert len(lobby.of(ls.SignIn)) == 2
        assert set(w.client.listings) == {"tableONE", "tableTWO"}


async def test_a_client_at_a_table_stops_following_the_listing_also_after_connecting_again() -> None:
    async with fake_lobby(listing("tableONE")) as lobby, running(lobby.url) as w:
        await signed_in(w)
        w.client.follow(False)
        await wait_until(lambda: [m.on for m in lobby.of(ls.FollowLobby)] == [False], what="follow off sent")
        w.client.follow(False)  # said once only
        await lobby.drop_all()
        await wait_until(lambda: lobby.connections == 2 and w.client.signed_in is not None)
        await wait_until(lambda: [m.on for m in lobby.of(ls.FollowLobby)] == [False, False], what="said again")
        w.client.follow(True)
        await wait_until(lambda: [m.on for m in lobby.of(ls.FollowLobby)] == [False, False, True])


async def test_a_request_while_the_connection_is_down_is_one_line() -> None:
    async with fake_lobby() as lobby:
        client = LobbyClient(lobby.url, PlayerKey.generate(), "Ana")
        with pytest.raises(LobbyError, match="not connected"):
            await client.request(ls.LobbyPing())


async def test_a_server_that_is_not_there_is_said_in_one_line() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    async with running(f"ws://127.0.0.1:{port}") as w:
        await wait_until(lambda: w.client.link.status is Status.RECONNECTING)
        assert "\n" not in w.client.link.reason and "refused" in w.client.link.reason
        assert w.client.signed_in is None


async def test_a_signature_of_another_challenge_is_refused() -> None:
    async with fake_lobby() as lobby, running(lobby.url, challenge=lambda server, nonce: b"another") as w:
        refused = await wait_until(lambda: [e for e in w.events if isinstance(e, ls.LobbyRefusedMsg)])
        assert refused[0].code == ls.BAD_SIGNATURE and w.client.signed_in is None


async def test_a_message_not_understood_is_a_problem_and_the_lobby_goes_on() -> None:
    async with fake_lobby() as lobby, running(lobby.url) as w:
        await signed_in(w)
        for ws in list(lobby.clients):
            await ws.send('{"v": 3, "type": "table", "listing": 7}')
        await lobby.push(ls.TableMsg(listing("afterBAD")))
        await wait_until(lambda: "afterBAD" in w.client.listings)
        assert len(w.problems) == 1 and "not understood" in w.problems[0]
        assert w.client.connected


def test_invite_links_are_read() -> None:
    assert parse_invite("ws://h.example:8765/i/abcdEFGH/SECRET") == ("ws://h.example:8765/lobby", "abcdEFGH", "SECRET")
    assert parse_invite("wss://h.example/i/abcdEFGH/SECRET/") == ("wss://h.example/lobby", "abcdEFGH", "SECRET")
    for not_one in (
        "ws://h:1/lobby",
        "http://h:1/i/a/b",
        "ws://h:1/i/a",
        "ws://h:1/i/a/b/c",
        "ws://h:1/i//b",
        "nonsense",
    ):
        assert parse_invite(not_one) is None, not_one


def test_a_server_address_is_checked() -> None:
    assert lobby_address("ws://h.example:8765") == "ws://h.example:8765/lobby"
    assert lobby_address(" wss://h.example/lobby/ ") == "wss://h.example/lobby"
    for bad, words in (
        ("http://h:1", "ws://"),
        ("ws://:1", "no host"),
        ("ws://h:port", "not an address"),
        ("ws://h:1/seat/x", "server's address"),
        ("ws://u@h:1", "'@'"),
    ):
        with pytest.raises(AddressError, match=words):
            lobby_address(bad)


def test_a_served_tab_reaches_only_the_servers_it_may(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KINGS_CORNERS_ALLOW_JOIN", "127.0.0.1:8765")
    assert lobby_address("ws://127.0.0.1:8765") == "ws://127.0.0.1:8765/lobby"
    with pytest.raises(AddressError):
        lobby_address("ws://127.0.0.1:9999")


def test_a_seat_of_a_server_of_many_tables_is_a_tables_address() -> None:
    assert table_address("ws://h:1/t/abcdEFGH/seat/tok") == "ws://h:1/t/abcdEFGH/seat/tok"
    assert table_address("ws://h:1/t/abcdEFGH/watch") == "ws://h:1/t/abcdEFGH/watch"
    assert table_address("ws://h:1/t/abcdEFGH/seat/tok", watch=True) == "ws://h:1/t/abcdEFGH/watch"
    for bad in ("ws://h:1/t/abcdEFGH/seat/", "ws://h:1/t//seat/x", "ws://h:1/t/a/b/seat/x"):
        with pytest.raises(AddressError):
            table_address(bad)
