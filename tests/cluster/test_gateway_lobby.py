"""A gateway's lobby: every public table of the cluster as its worker lists it in Redis, kept
current from the listings' channel, browsed and watched through the gateway; no accounts (a
sign-in or a seat is refused with one line); a listing Redis holds that is not one is left out."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import fakeredis
import pytest

from kc_tui.config import Opponent
from kc_tui.net import lobby_schema as ls
from kc_tui.net import schema as p
from kc_tui.net.client import Link, RemoteSeat, Status
from kc_tui.net.cluster import lobby_view
from kc_tui.net.cluster.coord import LISTING_PREFIX, LISTINGS_CHANNEL
from kc_tui.net.cluster.gateway import Gateway
from kc_tui.net.cluster.lobby_view import listing_of
from kc_tui.net.cluster.tables import new_table
from kc_tui.net.identity import PlayerKey
from kc_tui.net.lobby_client import LobbyClient
from kc_tui.net.lobby_socket import watch_only_text
from kc_tui.net.store.sqlite_store import SqliteTableStore
from kc_tui.net.wire import to_wire
from kc_tui.ui.app import KingsCornersApp, StartOptions
from kc_tui.ui.remote.lobby import LobbyScreen
from tests.cluster.test_worker import SEATS, SEED, SHORT_ROUNDS, seats, server, serving, store, store_file
from tests.plain.remotekit import plain_process
from tests.plain.test_remote_online import no_trace, person
from tests.ui.conftest import wait_for as ui_wait
from tests.ui.fitkit import assert_whole, shows_whole
from tests.ui.gamekit import make_config
from tests.waiting import wait_until

__all__ = ["server", "store", "store_file"]  # the fixtures, used by name


@asynccontextmanager
async def gateway_over(server: fakeredis.FakeServer) -> AsyncIterator[Gateway]:
    redis = fakeredis.FakeAsyncRedis(server=server)
    gateway = Gateway(redis)
    await gateway.start("127.0.0.1", 0)
    try:
        yield gateway
    finally:
        await gateway.close()
        await redis.aclose()


@asynccontextmanager
async def watching(gateway: Gateway, key: PlayerKey | None = None) -> AsyncIterator[tuple[LobbyClient, list[Any]]]:
    """A lobby client of ``gateway`` (watching: no key), and every message it received."""
    received: list[Any] = []
    client = LobbyClient(f"ws://127.0.0.1:{gateway.port}", key, "Cleo", on_event=received.append)
    runner = asyncio.ensure_future(client.run())
    try:
        await wait_until(lambda: client.connected, what="the lobby connected")
        yield client, received
    finally:
        await client.close()
        runner.cancel()


async def test_the_lobby_lists_public_tables_live_and_never_a_private_one(
    store: SqliteTableStore, server: fakeredis.FakeServer
) -> None:
    public, tokens = new_table(store, SEATS, SHORT_ROUNDS, seed=SEED)
    private, _ = new_table(store, SEATS, SHORT_ROUNDS, seed=SEED, record={"private": True})
    async with serving(store, server) as worker, gateway_over(server) as gateway:
        await wait_until(lambda: {public, private} <= set(worker.tables), what="both tables served")
        async with watching(gateway) as (client, received):
            await wait_until(lambda: public in client.listings, what="the public table listed")
            listed = client.listings[public]
            assert listed.phase == ls.PLAYING and [s.name for s in listed.seats] == ["Ana", "Ben"]
            assert [s.connected for s in listed.seats] == [False, False]
            ana, ben = await seats(worker, public, tokens)
            await wait_until(
                lambda: [s.connected for s in client.listings[public].seats] == [True, True],
                what="both seats shown connected (a delta)",
            )
            assert any(isinstance(m, ls.TableMsg) for m in received)
            assert private not in client.listings
            assert all(not isinstance(m, ls.TableMsg) or m.listing.table != private for m in received)
            await ana.close()
            await ben.close()


async def test_a_table_is_watched_through_the_gateway(store: SqliteTableStore, server: fakeredis.FakeServer) -> None:
    public, _tokens = new_table(store, SEATS, SHORT_ROUNDS, seed=SEED)
    async with serving(store, server), gateway_over(server) as gateway, watching(gateway) as (client, _):
        await wait_until(lambda: public in client.listings, what="the table listed")
        answer = await client.request(ls.WatchTable(public))
        assert isinstance(answer, ls.WatchingMsg)
        assert answer.url == f"ws://127.0.0.1:{gateway.port}/t/{public}/watch"
        states: list[p.StateMsg] = []
        spectator = RemoteSeat(answer.url, on_message=lambda m: states.append(m) if isinstance(m, p.StateMsg) else None)
        runner = asyncio.ensure_future(spectator.run())
        try:
            await wait_until(lambda: states, what="a spectator's state through the gateway")
            assert not states[0].hand, "a spectator sees no hand"
        finally:
            spectator.close()
            runner.cancel()
        refused = await client.request(ls.WatchTable("noSuchTable"))
        assert isinstance(refused, ls.LobbyRefusedMsg) and refused.code == ls.NO_TABLE


async def test_a_sign_in_and_every_seat_are_refused_with_one_line(server: fakeredis.FakeServer) -> None:
    async with gateway_over(server) as gateway:
        links: list[Link] = []
        async with watching(gateway, PlayerKey.generate()) as (client, received):
            client.on_link = links.append
            refusal = await wait_until(
                lambda: next((m for m in received if isinstance(m, ls.LobbyRefusedMsg)), None),
                what="the sign-in refused",
            )
            assert refusal.code == ls.WATCH_ONLY and refusal.reason == watch_only_text()
            assert client.signed_in is None and client.link.status is Status.CONNECTED
            for request in (
                ls.CreateTable(("human", "greedy"), 50, {}),
                ls.QuickPlay(2, 50, {}, 30),
                ls.JoinTable("someTable"),
                ls.AcceptInvite("someTable", "secret"),
            ):
                answer = await client.request(request)
                assert isinstance(answer, ls.LobbyRefusedMsg) and answer.code == ls.WATCH_ONLY, request
            assert client.connected, "a refusal leaves the lobby's connection as it is"


@pytest.mark.parametrize(
    "value",
    [
        "not json",
        json.dumps([1, 2]),
        json.dumps({"table": "x"}),
        "HOSTILE",  # replaced below by a listing of another table
        "BAD RULES",  # replaced below by a listing whose rules are not rules
        "[" * 100_000 + "]" * 100_000,  # nested past the interpreter's limit
        "MANY SEATS",  # replaced below by a listing of 100,000 seats
        json.dumps({"table": "evilTable", "phase": "playing", "rules": {}, "target": 1e309}),
    ],
    ids=["not-json", "a-list", "fields-missing", "another-table", "bad-rules", "deep", "many-seats", "infinite"],
)
async def test_a_listing_in_redis_that_is_not_one_is_left_out(
    store: SqliteTableStore, server: fakeredis.FakeServer, value: str
) -> None:
    public, _tokens = new_table(store, SEATS, SHORT_ROUNDS, seed=SEED)
    async with serving(store, server), gateway_over(server) as gateway, watching(gateway) as (client, _):
        await wait_until(lambda: public in client.listings, what="the table listed")
        kept = await fakeredis.FakeAsyncRedis(server=server, decode_responses=True).get(LISTING_PREFIX + public)
        good = json.loads(str(kept).split(" ", 1)[1])
        if value == "HOSTILE":
            value = json.dumps({**good, "table": "otherTable"})
        elif value == "MANY SEATS":
            value = json.dumps({**good, "table": "evilTable", "seats": good["seats"] * 50_000})
        elif value == "BAD RULES":
            value = json.dumps({**good, "table": "evilTable", "rules": {"hand_size": 99}})
        redis = fakeredis.FakeAsyncRedis(server=server)
        await redis.set(LISTING_PREFIX + "evilTable", f"w-evil {value}")
        try:
            data: Any = json.loads(value)
        except (ValueError, RecursionError):
            data = value
        await redis.publish(LISTINGS_CHANNEL, json.dumps({"table": "evilTable", "listing": data}))
        await redis.publish(LISTINGS_CHANNEL, "{not json")
        await redis.publish(LISTINGS_CHANNEL, value)  # the hostile text as a whole message
        await gateway.listing.read_all()
        assert isinstance(await client.request(ls.LobbyPing()), ls.LobbyPongMsg)  # all sent before is read
        assert "evilTable" not in client.listings and "otherTable" not in client.listings
        assert public in client.listings, "the good listing stays"
        assert listing_of("evilTable", data) is None


async def test_a_listing_that_lapses_unannounced_leaves_the_lobby(
    server: fakeredis.FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lobby_view, "READ_AGAIN", 0.05)
    seats = (ls.ListedSeat("human", "Ana", True), ls.ListedSeat("greedy", "Greedy", True))
    listing = ls.TableListing("lapsing", ls.PLAYING, {}, 50, seats, 0, False, 0, 1)
    redis = fakeredis.FakeAsyncRedis(server=server)
    await redis.set(LISTING_PREFIX + "lapsing", "w-gone " + json.dumps(to_wire(listing)))
    async with gateway_over(server) as gateway, watching(gateway) as (client, received):
        await wait_until(lambda: "lapsing" in client.listings, what="the table listed")
        # Its worker was killed: the key lapses with its lease, and nothing is published.
        await redis.delete(LISTING_PREFIX + "lapsing")
        await wait_until(lambda: "lapsing" not in client.listings, what="the lapsed table gone from the lobby")
        assert isinstance(received[-1], ls.LobbyMsg), "the whole listing told again"


async def test_the_apps_lobby_at_a_gateway_lists_tables_literally_and_offers_only_watching(
    server: fakeredis.FakeServer,
) -> None:
    hostile = "[bold red]Eve[/]"
    seats = (ls.ListedSeat("human", hostile, True), ls.ListedSeat("greedy", "Greedy", True))
    listing = ls.TableListing("tableONE", ls.PLAYING, {}, 50, seats, 2, False, 0, 3)
    await fakeredis.FakeAsyncRedis(server=server).set(LISTING_PREFIX + "tableONE", "w1 " + json.dumps(to_wire(listing)))
    async with gateway_over(server) as gateway:
        options = StartOptions(online=f"ws://127.0.0.1:{gateway.port}", online_name="Dee")
        app = KingsCornersApp(make_config(), None, "online", options)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = app.screen
            assert isinstance(screen, LobbyScreen)
            await ui_wait(pilot, lambda: screen.client is not None and screen.client.watch_only is not None)
            await ui_wait(pilot, lambda: shows_whole(app, "Watching the lobby: this server has no sign-in"))
            assert_whole(app, watch_only_text())
            assert_whole(app, hostile)
            assert_whole(app, "w or Enter watch the table")
            assert not shows_whole(app, "n new table")
            for action in ("new_table", "quick", "join"):
                assert screen.check_action(action, ()) is False, action
            assert screen.check_action("watch", ()) is True
            assert screen.client is not None and screen.client.signed_in is None
            await pilot.press("n")
            await pilot.pause()
            assert isinstance(app.screen, LobbyScreen), "a lobby for watching opens no new table"


async def test_the_plain_lobby_at_a_gateway_lists_the_tables_and_says_it_is_for_watching(
    server: fakeredis.FakeServer, tmp_path: Path
) -> None:
    hostile = "[bold red]Eve[/]"
    seats = (ls.ListedSeat("human", hostile, True), ls.ListedSeat("greedy", "Greedy", True))
    listing = ls.TableListing("tableONE", ls.PLAYING, {}, 50, seats, 0, False, 0, 3)
    await fakeredis.FakeAsyncRedis(server=server).set(LISTING_PREFIX + "tableONE", "w1 " + json.dumps(to_wire(listing)))
    async with gateway_over(server) as gateway:
        env = person(tmp_path / "dee", "Dee", Opponent("Greedy", "greedy"))
        dee = plain_process("online", "--plain", f"ws://127.0.0.1:{gateway.port}", env=env)
        try:
            told = await dee.line_with("This lobby is for watching")
            await dee.line_with("list numbers the tables, watch N watches one.", told)
            await dee.line(lambda line: line.startswith("1. ") and hostile in line, told)
            start = len(dee.out)
            dee.type("quick")
            await dee.line_with("This lobby is for watching", start)
            assert not any("Not signed in" in line for line in dee.out[start:]), dee.out[start:]
            dee.type("quit")
            assert await dee.ended() == 0
        finally:
            dee.stop()
    no_trace(dee)
