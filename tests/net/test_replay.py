"""A finished round's replay at a real hosted table: each seat gets the round as it saw it (its own
hand and draws, the others' counts, never another's hand or draws, no stock order), a spectator
the table's view; a round not over, unknown or out of range, and a request that is not one, are
refused as PROTOCOL.md says; a long round comes in pages within the message limit."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable
from dataclasses import fields
from typing import Any

from kc_tui.engine import card_str
from kc_tui.engine.match import secret_text
from kc_tui.net import schema as p
from kc_tui.net import views
from kc_tui.net.codec import encode
from kc_tui.net.protocol import parse_server, write
from kc_tui.net.replays import RemoteRoundReplay, ReplayPages
from kc_tui.net.server import TableServer
from tests.net.serverkit import (
    TWO_ROUNDS,
    Client,
    play_on,
    replay_problems,
    seated,
    session_for,
)

#: The fields of a frame on the wire.
FRAME_FIELDS = {f.name for f in fields(p.ReplayFrame)}


async def first_round_over(server: TableServer, *clients: Client) -> None:
    """Play (at random, every seat its own moves) until round 1 is scored and every client has
    its ``round`` message."""

    def scored() -> bool:
        return len(server.session.match.results) >= 1

    seated = [c for c in clients if c.state.seat is not None]
    await asyncio.gather(*(play_on(c, random.Random(i), scored) for i, c in enumerate(seated)))
    for c in clients:
        await c.expect(p.RoundMsg, where=lambda m: m.number == 1)


def answering(rid: int) -> Callable[[Any], bool]:
    return lambda m: m.id == rid


def round_states(client: Client, number: int) -> set[tuple[object, ...]]:
    return {(st.piles, st.stock, st.hand) for st in client.states() if st.round == number}


async def test_each_seat_replays_a_finished_round_as_it_saw_it_and_a_spectator_as_the_table() -> None:
    session = session_for(rules=TWO_ROUNDS, seed=None)
    async with seated("Ana", "Ben", None, session=session, stand_in=0) as (server, _, (ana, ben, spectator)):
        await first_round_over(server, ana, ben, spectator)
        for viewer, client in ((0, ana), (1, ben), (None, spectator)):
            pages = await client.whole_replay(1)
            frames = [f for page in pages for f in page.frames]
            assert {page.seat for page in pages} == {viewer}
            assert replay_problems(server, 1, viewer, frames) == []
            # Every position the seat was shown at the table is one of its replay's positions.
            shown = {(f.piles, f.stock, f.hand) for f in frames}
            assert round_states(client, 1) <= shown
            if viewer is None:
                assert all(f.hand is None and f.drawn is None for f in frames)
            else:
                assert all(f.hand is not None for f in frames)
            for raw in client.raw:
                if '"type":"replay"' in raw:
                    assert {key for frame in json.loads(raw)["frames"] for key in frame} == FRAME_FIELDS
                    assert len(raw.encode()) <= p.MAX_MESSAGE
            # The pages make the replay the remote seat's screen steps through.
            gathered = ReplayPages(1, viewer)
            for page in pages:
                gathered.add(page)
            names = server.session.names
            replay = RemoteRoundReplay(gathered, names=names, kinds=["human"] * len(names), rules=TWO_ROUNDS)
            replay.to_end()
            assert replay.over and replay.snapshot().hand == (None if viewer is None else tuple(frames[-1].hand or ()))
        # Ana's own draws are named in her replay (and so never in Ben's).
        # Every page: a long round takes several, and a page holds as many frames as fit its size.
        ana_lines = [line for page in await ana.whole_replay(1) for f in page.frames for line in f.log]
        ben_lines = [line for page in await ben.whole_replay(1) for f in page.frames for line in f.log]
        assert not any(line.startswith("Ana drew ") and "a card" not in line for line in ben_lines)
        assert len(ana_lines) == len(ben_lines)
        secret = server.session.match.seed
        for c in (ana, ben, spectator):
            assert c.leaks == []
            assert not any(secret_text(secret) in text or str(secret) in text for text in c.raw)
            await c.close()


async def test_a_round_not_over_unknown_or_out_of_range_is_refused() -> None:
    async with seated("Ana", "Ben", session=session_for(rules=TWO_ROUNDS), stand_in=0) as (server, _, (ana, ben)):
        playing = await ana.replay(1)
        assert isinstance(playing, p.RefusedMsg) and "still being played" in playing.reason
        unknown = await ana.replay(99)
        assert isinstance(unknown, p.RefusedMsg) and "no round 99" in unknown.reason
        await first_round_over(server, ana, ben)
        page = await ana.replay(1)
        assert isinstance(page, p.ReplayMsg)
        beyond = await ana.replay(1, page.length + 1)
        assert isinstance(beyond, p.RefusedMsg) and f"0 to {page.length}" in beyond.reason
        if not server.session.match.over:
            next_round = await ana.replay(2)
            assert isinstance(next_round, p.RefusedMsg)
        for c in (ana, ben):
            assert c.leaks == []
            await c.close()


async def test_a_request_that_is_no_replay_request_is_malformed_and_a_flood_is_slowed() -> None:
    async with seated("Ana", session=session_for(rules=TWO_ROUNDS), stand_in=0) as (server, _, (ana,)):
        bad: list[dict[str, Any]] = [
            {"round": "1", "start": 0},
            {"round": 0, "start": 0},
            {"round": 1, "start": -1},
            {"round": 1},
            {"round": 1, "start": 0, "seat": 1},
            {"round": 1.0, "start": 0},
            {"round": True, "start": 0},
            {"round": 2**40, "start": 0},
        ]
        for rid, fields_sent in enumerate(bad, start=100):
            await ana.send(json.dumps({"v": 3, "type": "replay", "id": rid, **fields_sent}))
            answer = await ana.expect(p.ErrorMsg, where=answering(rid))
            assert answer.code == p.MALFORMED, fields_sent
        for i in range(3 * p.RATE_BURST):
            await ana.send(write(p.ReplayRequest(1, 0, 1000 + i)))
        await ana.expect(p.ErrorMsg, where=lambda m: m.code == p.SLOW_DOWN)
        assert ana.leaks == []
        assert not server.session.match.results  # nothing at the table changed
        await ana.close()


async def test_a_huge_replay_request_is_too_large_and_closed() -> None:
    async with seated("Ana", stand_in=0) as (_, _, (ana,)):
        await ana.send(json.dumps({"v": 3, "type": "replay", "id": 1, "round": 1, "start": 0, "pad": "x" * 70_000}))
        answer = await ana.expect(p.ErrorMsg)
        assert answer.code == p.TOO_LARGE
        await ana.close()


def test_a_round_longer_than_a_message_comes_in_pages_within_the_limit() -> None:
    # A frame larger than one can be: every card on the piles, seven lines for the move (its
    # line, a pile shuffled away, the round's end, a draw of each of four seats), each as long
    # as the longest (a pile of 13 moved, a name of 24 characters); a page holds as many as fit,
    # and the pages give every position back.
    card = card_str(0)
    log = [f"{'N' * 24} moved {' '.join(['10♥'] * 13)} from NW onto 10♥ at NE"] * 7
    frame: dict[str, Any] = {
        "move": "move NW NE",
        "log": log,
        "piles": [[card] * 13] * 4 + [[]] * 4,
        "stock": 52,
        "cards": [13] * 4,
        "to_move": 1,
        "hand": None,
        "drawn": None,
        "totals": [99] * 4,
        "pot": None,
    }
    one = encode(frame)
    assert len(one.encode()) < 2048
    frames = [one] * 500
    gathered = ReplayPages(3, None)
    start: int | None = 0
    pages = 0
    while start is not None:
        text = views.replay_page(frames, start, id=7, number=3, seat=None, dealer=0, winner=None)
        assert len(text.encode()) <= p.MAX_MESSAGE
        page = parse_server(text, strict=True)
        assert isinstance(page, p.ReplayMsg) and len(page.frames) >= 30
        start = gathered.add(page)
        pages += 1
    assert len(gathered.frames) == 500 and pages > 1
