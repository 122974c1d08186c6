"""Nothing lost and nothing seen twice at a hosted table: while its save fails (a full disk) the
table holds: a move is refused with the reason, the AIs wait, every seat and the host's console
are told at once, and play goes on by itself once a save works. After SIGKILL and ``--resume``
every move a seat was shown is back, and no seat was shown a card the resumed stock deals again.
A hosted match is remembered in the host's history, per person; the host's ``quit`` tells every
client the table closed."""

from __future__ import annotations

import asyncio
import os
import random
from pathlib import Path

import pytest

from kc_tui.cli import main
from kc_tui.match.recorder import Recorder, open_history
from kc_tui.match.session import MatchSession
from kc_tui.net import schema as p
from kc_tui.net.client import RemoteSeat, Status
from kc_tui.records.store import History
from tests.faultkit import FullDisk, small_disk
from tests.net.serverkit import (
    TWO_ROUNDS,
    drawn_again,
    full_disk_episode,
    make_moves,
    play_on,
    running,
    seat,
    seated,
    session_for,
    settled_turn,
    shown_as,
    try_ends,
)
from tests.waiting import wait_until

#: A seeded deal: some secret deals let Greedy go out on its first turn and end the match
#: (target 5) before the people have made the moves the episode needs.
SEATS = ["--seats", "human:Ana,human:Ben,greedy", "--rules", "hand_size=6", "--target", "5"]
SEATS += ["--seed", "3", "--port", "0"]


async def test_a_full_disk_holds_the_table_and_a_resume_shows_no_seat_a_card_it_drew_before(
    isolated_dirs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with small_disk() as disk:
        monkeypatch.setenv("KINGS_CORNERS_DATA", str(disk / "data"))
        told = await full_disk_episode(disk, [*SEATS, "--stand-in", "0"])
    console = told["console"]
    assert told["drawn_again"] == {0: set(), 1: set()}
    assert told["lost"] == 0
    assert [type(a) for a in told["answers"]] == [p.RefusedMsg] * 6
    assert all("cannot be saved (the disk is full)" in a.reason for a in told["answers"])
    assert told["seats_told"] and told["seats_saved_again"], console
    assert "The table holds: it cannot be saved (the disk is full)" in console
    assert console.index("The table holds") < console.index("The table is saved again")
    assert "Traceback" not in console


async def test_a_failing_save_holds_people_and_ais_alike_and_a_resume_deals_no_card_seen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    disk = FullDisk(tmp_path)
    monkeypatch.setattr(os, "replace", disk.replace)
    save = tmp_path / "hosted.json"
    console: list[str] = []
    async with running(session_for(rules=TWO_ROUNDS, save_path=save), status=console.append) as (server, base):
        server.save_retry = 0.05
        ana, ben = await seat(server, base, "Ana"), await seat(server, base, "Ben")
        await make_moves(2, ana, ben)
        await settled_turn(ana, ben)  # a person is on turn: the table waits for them
        disk.full = True
        answers = await try_ends(3, ana, ben)
        await wait_until(lambda: all(c.state.save_problem for c in (ana, ben)), what="every seat told")
        # the AI's move waits too: the disk fills once Ben's end of turn is saved
        disk.full = False
        while (await settled_turn(ana, ben)).state.seat != 1:
            await make_moves(1, ana, ben)
        disk.fill_after(1)
        stamp = ben.state.stamp
        await ben.move("end")
        await wait_until(lambda: server.session.holding and server.session.to_move == 2, what="the AI held")
        held = (ana.state.stamp, ben.state.stamp)
        await wait_until(lambda: all(c.state.save_problem for c in (ana, ben)), what="every seat told")
        assert held == (ana.state.stamp, ben.state.stamp) and ana.state.stamp > stamp
        assert ana.state.waiting_for == "Greedy" and disk.refused >= 1
        disk.full = False  # play goes on by itself: the AI moves, the seats hear it is saved
        await wait_until(
            lambda: ana.state.waiting_for != "Greedy" and ana.state.save_problem is None, what="the AI moved"
        )
        await settled_turn(ana, ben)
        disk.full = True
        answers += await try_ends(2, ana, ben)
        await wait_until(lambda: all(c.state.save_problem for c in (ana, ben)), what="every seat told")
        shown = {c.state.seat: c.state for c in (ana, ben)}
        seen = {c.state.seat: set(c.seen) for c in (ana, ben)}
        tokens = dict(server.tokens)
    assert drawn_again(seen, save) == {0: set(), 1: set()}
    assert [type(a) for a in answers] == [p.RefusedMsg] * 5
    assert all(isinstance(a, p.RefusedMsg) and "cannot be saved (the disk is full)" in a.reason for a in answers)
    # the host is told once each time the table starts holding, and each time it goes on
    assert sum(line.startswith("The table holds: it cannot be saved (the disk is full)") for line in console) == 3
    assert sum(line == "The table is saved again: play goes on" for line in console) == 2
    disk.full = False
    resumed = MatchSession.load(save, shared_log=True)
    assert resumed is not None
    async with running(resumed, tokens=tokens) as (server, base):
        again = {name: await seat(server, base, name) for name in ("Ana", "Ben")}
        assert [shown_as(c.state) for c in again.values()] == [shown_as(shown[0]), shown_as(shown[1])]


async def test_a_hosted_match_is_remembered_in_the_hosts_history_per_person(
    isolated_dirs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    recorder = Recorder(opener=open_history, outbox=isolated_dirs / "outbox")
    recorder.start()
    async with seated("Ana", "Ben", session=session_for(rules=TWO_ROUNDS), recorder=recorder) as (
        server,
        _,
        (ana, ben),
    ):

        def over() -> bool:
            return server.session.match.over

        await asyncio.gather(play_on(ana, random.Random(3), over), play_on(ben, random.Random(4), over))
        for c in (ana, ben):
            await c.expect(p.StateMsg, where=lambda m: m.over)
            await c.close()
    assert recorder.flush(20)
    recorder.close(5)
    rounds = len(server.session.match.results)
    history, problem = History.open()
    try:
        assert problem is None
        [found] = [m for m in history.matches() if m.finished_at is not None]
        match = history.match(found.id)
        assert match is not None
        assert [s.name for s in match.seats] == ["Ana", "Ben", "Greedy"]
        assert len(match.rounds) == rounds and not match.demo
    finally:
        history.close()
    capsys.readouterr()
    assert main(["stats", "--player", "Ben"]) == 0
    out = capsys.readouterr().out
    assert "Ben" in out and "No matches recorded yet" not in out


async def test_the_hosts_quit_tells_every_client_the_table_closed() -> None:
    async with seated("Ana", None, stand_in=0) as (server, base, (ana, spectator)):
        remote = RemoteSeat(base + f"/seat/{server.tokens[1]}")
        task = asyncio.create_task(remote.run())
        await wait_until(lambda: remote.connected, what="the remote seat connected")
        await server.close()
        for c in (ana, spectator):
            closed = await c.expect(p.ErrorMsg, where=lambda m: m.code == p.CLOSED)
            assert "host --resume" in closed.message
        await wait_until(lambda: remote.host_away, what="the remote seat told the host is away")
        # The player's own words: the seat connects again by itself once the table is served.
        assert remote.link.status is Status.RECONNECTING and remote.link.code == p.CLOSED
        assert "host --resume" not in remote.link.reason and "reconnected" in remote.link.reason
        assert not task.done()
        remote.close()
        async with asyncio.timeout(10):
            await task
