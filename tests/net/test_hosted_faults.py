"""Nothing lost at a hosted table: a full disk is told to the host's console and every seat at
once, again until a save works, and then that the table is saved again; after SIGKILL and
``--resume`` every move a seat was shown is back. A hosted match is remembered in the host's
history, per person; the host's ``quit`` tells every client the table closed."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from kc_tui.cli import main
from kc_tui.match.recorder import Recorder, open_history
from kc_tui.net import protocol as p
from kc_tui.net.client import RemoteSeat, Status
from kc_tui.records.store import History
from tests.faultkit import small_disk
from tests.net.serverkit import TWO_ROUNDS, full_disk_episode, play_on, running, seat, session_for, watch

#: A seeded deal: some secret deals let Greedy go out on its first turn and end the match
#: (target 5) before the people have made the moves the episode needs.
SEATS = ["--seats", "human:Ana,human:Ben,greedy", "--rules", "hand_size=6", "--target", "5"]
SEATS += ["--seed", "3", "--port", "0"]


async def test_a_full_disk_is_told_at_once_and_no_shown_move_is_lost(
    isolated_dirs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with small_disk() as disk:
        monkeypatch.setenv("KINGS_CORNERS_DATA", str(disk / "data"))
        told = await full_disk_episode(disk, [*SEATS, "--stand-in", "0"])
    console = told["console"]
    assert told["seats_told"] and told["seats_saved_again"]
    assert "The table is not being saved (" in console and "the disk is full" in console
    assert console.index("not being saved") < console.index("The table is saved again")
    assert told["lost"] == 0
    assert "Traceback" not in console


async def test_a_hosted_match_is_remembered_in_the_hosts_history_per_person(
    isolated_dirs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    recorder = Recorder(opener=open_history, outbox=isolated_dirs / "outbox")
    recorder.start()
    async with running(session_for(rules=TWO_ROUNDS), recorder=recorder) as (server, base):
        ana, ben = await seat(server, base, "Ana"), await seat(server, base, "Ben")

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
    async with running(stand_in=0) as (server, base):
        ana, spectator = await seat(server, base, "Ana"), await watch(base)
        remote = RemoteSeat(base + f"/seat/{server.tokens[1]}")
        task = asyncio.create_task(remote.run())
        async with asyncio.timeout(10):
            while not remote.connected:
                await asyncio.sleep(0.02)
        await server.close()
        for c in (ana, spectator):
            closed = await c.expect(p.ErrorMsg, where=lambda m: m.code == p.CLOSED)
            assert "host --resume" in closed.message
        async with asyncio.timeout(10):
            while not remote.host_away:
                await asyncio.sleep(0.02)
        # The player's own words: the seat connects again by itself once the table is served.
        assert remote.link.status is Status.RECONNECTING and remote.link.code == p.CLOSED
        assert "host --resume" not in remote.link.reason and "reconnected" in remote.link.reason
        assert not task.done()
        remote.close()
        async with asyncio.timeout(10):
            await task
