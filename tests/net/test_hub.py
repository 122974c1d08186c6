"""``kings-corners server`` as a real process: the lobby (sign-in, create, join, invite, quick
play, rematch, watching the listing live), tables played to their end, and what it says at its
door (``GET /``, an invite's link, a path it does not serve, bad messages)."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import ssl
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from websockets.exceptions import InvalidStatus

from kc_tui.net import lobby_schema as ls
from kc_tui.net import schema as p
from kc_tui.net.protocol import write
from tests.net.hubkit import (
    FAST,
    SHORT_RULES,
    SHORT_TARGET,
    lobby,
    play_to_end,
    player_key,
    self_signed,
    server,
    signed_in,
    sit,
)
from tests.waiting import wait_until


def create(seats: tuple[str, ...], *, private: bool = False) -> ls.CreateTable:
    return ls.CreateTable(seats, SHORT_TARGET, dict(SHORT_RULES), private)


def phases(watcher: object, table: str) -> list[str]:
    """The phases a lobby connection was told of ``table``, in order (``gone`` for its end)."""
    out: list[str] = []
    for m in watcher.messages:  # type: ignore[attr-defined]
        if isinstance(m, ls.TableMsg) and m.listing.table == table:
            if not out or out[-1] != m.listing.phase:
                out.append(m.listing.phase)
        elif isinstance(m, ls.TableGoneMsg) and m.table == table:
            out.append(f"gone:{m.reason}")
    return out


async def test_two_people_create_join_and_play_to_the_end_while_the_lobby_watches(isolated_dirs: Path) -> None:
    async with server(isolated_dirs / "srv", *FAST) as srv:
        watcher = await lobby(srv.lobby)
        ana = await signed_in(srv.lobby, isolated_dirs / "ana", "Ana")
        ben = await signed_in(srv.lobby, isolated_dirs / "ben", "Ben")
        joined = await ana.request(create(("human", "human", "greedy")))
        assert isinstance(joined, ls.JoinedMsg) and joined.seat == 0, joined
        assert joined.invite is not None and f"/i/{joined.table}/" in joined.invite
        table = joined.table
        await wait_until(lambda: phases(watcher, table) == [ls.OPEN], what="the open table listed")
        answer = await ben.request(ls.JoinTable(table))
        assert isinstance(answer, ls.JoinedMsg) and answer.seat == 1, answer
        start_ana = await ana.expect(ls.StartMsg, where=lambda m: m.table == table)
        start_ben = await ben.expect(ls.StartMsg, where=lambda m: m.table == table)
        assert (start_ana.seat, start_ben.seat) == (0, 1)
        assert start_ana.url != start_ben.url and f"/t/{table}/seat/" in start_ana.url
        assert not any(isinstance(m, ls.StartMsg) for m in watcher.messages), "a seat's address went to a watcher"
        seats = [await sit(start_ana.url), await sit(start_ben.url)]
        ends = await asyncio.gather(*(play_to_end(s) for s in seats))
        assert all(state.over for state in ends)
        await wait_until(
            lambda: phases(watcher, table) == [ls.OPEN, ls.PLAYING, "gone:ended"],
            what="open, playing, then ended, in that order",
            showing=lambda: phases(watcher, table),
        )
        offer = await ana.expect(ls.RematchMsg, where=lambda m: m.table == table)
        assert offer.people == ("Ana", "Ben")
        for s in seats:
            await s.close()
        for c in (watcher, ana, ben):
            await c.close()
        assert srv.stop() == 0
    assert "Traceback" not in srv.errors()


async def test_an_invite_seats_its_person_and_no_one_else(isolated_dirs: Path) -> None:
    async with server(isolated_dirs / "srv", *FAST) as srv:
        ana = await signed_in(srv.lobby, isolated_dirs / "ana", "Ana")
        ben = await signed_in(srv.lobby, isolated_dirs / "ben", "Ben")
        eve = await signed_in(srv.lobby, isolated_dirs / "eve", "Eve")
        joined = await ana.request(create(("human", "human"), private=True))
        table, secret = joined.table, joined.invite.rsplit("/", 1)[1]
        assert table not in [t.table for t in eve.of(ls.LobbyMsg)[-1].tables]
        refused = await eve.request(ls.JoinTable(table))
        assert isinstance(refused, ls.LobbyRefusedMsg) and refused.code == ls.NO_TABLE
        wrong = await eve.request(ls.AcceptInvite(table, secret[:-1] + ("A" if secret[-1] != "A" else "B")))
        assert isinstance(wrong, ls.LobbyRefusedMsg) and wrong.code == ls.NO_TABLE
        seated = await ben.request(ls.AcceptInvite(table, secret))
        assert isinstance(seated, ls.JoinedMsg) and seated.seat == 1
        start = await ben.expect(ls.StartMsg, where=lambda m: m.table == table)
        assert start.seat == 1
        late = await eve.request(ls.AcceptInvite(table, secret))
        assert isinstance(late, ls.LobbyRefusedMsg), late
        assert not eve.of(ls.StartMsg)
        assert not any(isinstance(m, ls.TableMsg) and m.listing.table == table for m in eve.messages)


async def test_a_name_held_by_another_key_is_refused_with_a_suggestion(isolated_dirs: Path) -> None:
    async with server(isolated_dirs / "srv") as srv:
        await signed_in(srv.lobby, isolated_dirs / "ana", "Ana")
        other = await lobby(srv.lobby)
        answer = await other.sign_in(player_key(isolated_dirs / "impostor"), "ana")
        assert isinstance(answer, ls.LobbyRefusedMsg) and answer.code == ls.NAME_TAKEN, answer
        assert answer.suggestion and answer.suggestion.casefold() != "ana"
        again = await lobby(srv.lobby)
        took = await again.sign_in(player_key(isolated_dirs / "impostor"), answer.suggestion)
        assert isinstance(took, ls.SignedIn) and took.name == answer.suggestion
        forged = await lobby(srv.lobby)
        assert forged.challenge is not None
        key = player_key(isolated_dirs / "forger")
        bad = await forged.request(ls.SignIn(key.public_text, "Zed", key.sign(b"something else")))
        assert isinstance(bad, ls.LobbyRefusedMsg) and bad.code == ls.BAD_SIGNATURE
        early = await forged.request(create(("human", "greedy")))
        assert isinstance(early, ls.LobbyRefusedMsg) and early.code == ls.SIGN_IN_FIRST


async def test_quick_play_fills_the_empty_seats_with_ais_after_the_wait(isolated_dirs: Path) -> None:
    async with server(isolated_dirs / "srv", *FAST, "--turn-seconds", "0") as srv:
        ana = await signed_in(srv.lobby, isolated_dirs / "ana", "Ana")
        joined = await ana.request(ls.QuickPlay(3, SHORT_TARGET, dict(SHORT_RULES), fill_after=1))
        assert isinstance(joined, ls.JoinedMsg), joined
        start = await ana.expect(ls.StartMsg, where=lambda m: m.table == joined.table)
        listed = [m.listing for m in ana.of(ls.TableMsg) if m.listing.table == joined.table]
        assert listed[-1].phase == ls.PLAYING and listed[-1].quick
        assert [s.kind == "human" for s in listed[-1].seats] == [True, False, False]
        seat = await sit(start.url)
        assert seat.state.seat == start.seat
        await seat.close()


async def test_a_rematch_starts_a_new_table_once_everyone_accepts(isolated_dirs: Path) -> None:
    async with server(isolated_dirs / "srv", *FAST) as srv:
        ana = await signed_in(srv.lobby, isolated_dirs / "ana", "Ana")
        joined = await ana.request(create(("human", "greedy")))
        first = await ana.expect(ls.StartMsg, where=lambda m: m.table == joined.table)
        seat = await sit(first.url)
        await play_to_end(seat)
        offer = await ana.expect(ls.RematchMsg, where=lambda m: m.table == joined.table)
        assert offer.people == ("Ana",)
        await ana.send(ls.Rematch(joined.table, True))
        again = await ana.expect(ls.StartMsg, where=lambda m: m.table != joined.table)
        assert again.seat == first.seat and again.url != first.url
        second = await sit(again.url)
        assert second.state.round == 1 and not second.state.over
        await seat.close()
        await second.close()


async def test_the_door_answers_each_path_with_one_line_and_bad_messages_with_errors(isolated_dirs: Path) -> None:
    async with server(isolated_dirs / "srv") as srv:
        http = srv.url.replace("ws://", "http://")

        def get(path: str) -> tuple[int, str]:
            try:
                with urllib.request.urlopen(http + path, timeout=30) as r:
                    return r.status, r.read().decode()
            except urllib.error.HTTPError as e:
                return e.code, e.read().decode()

        status, text = await asyncio.to_thread(get, "/")
        assert status == 200 and "Kings Corners server" in text and text.count("\n") == 1
        status, text = await asyncio.to_thread(get, "/i/abcdEFGH/secret")
        assert status == 200 and "kings-corners online" in text
        status, text = await asyncio.to_thread(get, "/nothing")
        assert status == 404 and text.count("\n") == 1
        status, text = await asyncio.to_thread(get, "/t/abcdEFGH/watch")
        assert status == 404 and "no such table" in text
        raw = await lobby(srv.lobby, hello=False)
        await raw.ws.send("not json")
        error = await raw.expect(ls.LobbyErrorMsg)
        assert error.code == p.MALFORMED
        await raw.ws.send('{"v": 3, "type": "create", "seats": ["human"], "target": 5, "rules": {}}')
        hello_first = await raw.expect(ls.LobbyErrorMsg)
        assert hello_first.code == p.HELLO_FIRST
        await raw.ws.send(f'{{"v": {p.PROTOCOL_VERSION}, "type": "hello", "client": "x", "extra": 1}}')
        assert (await raw.expect(ls.LobbyErrorMsg)).code == p.MALFORMED
        said = await lobby(srv.lobby)
        ana = player_key(isolated_dirs / "ana")
        await said.sign_in(ana, "Ana")
        bad = await said.request(ls.CreateTable(("human", "no-such-ai"), SHORT_TARGET, {}))
        assert isinstance(bad, ls.LobbyRefusedMsg) and bad.code == p.MALFORMED
        worse = await said.request(ls.CreateTable(("human", "greedy"), SHORT_TARGET, {"no_such_rule": 1}))
        assert isinstance(worse, ls.LobbyRefusedMsg)
        assert srv.stop() == 0
    assert "Traceback" not in srv.errors()


async def test_the_limits_at_the_door_refuse_with_a_clear_line(isolated_dirs: Path) -> None:
    args = ("--max-tables", "1", "--sockets-per-address", "3")
    async with server(isolated_dirs / "srv", *args) as srv:
        ana = await signed_in(srv.lobby, isolated_dirs / "ana", "Ana")
        first = await ana.request(create(("human", "human")))
        assert isinstance(first, ls.JoinedMsg)
        second = await ana.request(create(("human", "human")))
        assert isinstance(second, ls.LobbyRefusedMsg) and second.code == ls.LIMIT and "1" in second.reason
        others = [await lobby(srv.lobby), await lobby(srv.lobby)]
        with pytest.raises(InvalidStatus) as refused:
            await lobby(srv.lobby)
        assert refused.value.response.status_code == 503
        assert b"Too many connections from your address" in refused.value.response.body
        for message in range(3 * p.RATE_BURST):  # the burst and 4 seconds of the rate at once
            await ana.ws.send(write(ls.LobbyPing(message)))
        slowed = await ana.expect(ls.LobbyErrorMsg, where=lambda m: m.code == p.SLOW_DOWN)
        assert slowed.message
        for c in (ana, *others):
            await c.close()
        assert srv.stop() == 0
    assert "Traceback" not in srv.errors()


@pytest.mark.skipif(shutil.which("openssl") is None, reason="makes its certificate with openssl")
async def test_with_a_certificate_the_server_is_served_over_tls(isolated_dirs: Path) -> None:
    cert, key = self_signed(isolated_dirs)
    async with server(isolated_dirs / "srv", "--cert", str(cert), "--key", str(key)) as srv:
        assert srv.url.startswith("wss://127.0.0.1:")
        trust = ssl.create_default_context(cafile=str(cert))
        ana = await lobby(srv.lobby, ssl=trust)
        answer = await ana.sign_in(player_key(isolated_dirs / "ana"), "Ana")
        assert isinstance(answer, ls.SignedIn)
        joined = await ana.request(create(("human", "greedy")))
        start = await ana.expect(ls.StartMsg, where=lambda m: m.table == joined.table)
        assert start.url.startswith(f"{srv.url}/t/{joined.table}/seat/")
        await ana.close()
        assert srv.stop() == 0


async def test_a_seat_left_mid_match_is_played_by_an_ai_until_someone_takes_it(isolated_dirs: Path) -> None:
    async with server(isolated_dirs / "srv", *FAST) as srv:
        ana = await signed_in(srv.lobby, isolated_dirs / "ana", "Ana")
        ben = await signed_in(srv.lobby, isolated_dirs / "ben", "Ben")
        cy = await signed_in(srv.lobby, isolated_dirs / "cy", "Cy")
        joined = await ana.request(ls.CreateTable(("human", "human"), 100, {"hand_size": 4}))
        await ben.request(ls.JoinTable(joined.table))
        start = await ben.expect(ls.StartMsg, where=lambda m: m.table == joined.table)
        bens = await sit(start.url)
        await ben.send(ls.LeaveTable(joined.table))
        await wait_until(lambda: bens.seat.ended, what="Ben's seat closed once he left it")
        assert bens.seat.link.code == p.BAD_TOKEN

        def free_again() -> bool:
            listed = [m.listing for m in cy.of(ls.TableMsg) if m.listing.table == joined.table]
            return bool(listed) and listed[-1].phase == ls.PLAYING and listed[-1].seats[1].name is None

        await wait_until(free_again, what="the seat listed free while the match plays")
        taken = await cy.request(ls.JoinTable(joined.table))
        assert isinstance(taken, ls.JoinedMsg) and taken.seat == 1, taken
        cys = await cy.expect(ls.StartMsg, where=lambda m: m.table == joined.table)
        assert cys.url != start.url
        seat = await sit(cys.url)
        assert seat.state.seat == 1 and not seat.state.over
        again = await sit(start.url, wait_state=False)
        await wait_until(lambda: again.seat.ended, what="Ben's old address refused")
        for s in (bens, seat, again):
            await s.close()


async def test_a_connection_that_stops_following_is_sent_no_deltas_and_the_whole_listing_again(
    isolated_dirs: Path,
) -> None:
    async with server(isolated_dirs / "srv", *FAST) as srv:
        follower = await lobby(srv.lobby)
        quiet = await lobby(srv.lobby)
        await quiet.send(ls.FollowLobby(False))
        ana = await signed_in(srv.lobby, isolated_dirs / "ana", "Ana")
        # A ping answered after the follow: the server has read it before the table is made.
        assert isinstance(await quiet.request(ls.LobbyPing()), ls.LobbyPongMsg)
        joined = await ana.request(create(("human", "human")))
        assert isinstance(joined, ls.JoinedMsg), joined
        await follower.expect(ls.TableMsg, where=lambda m: m.listing.table == joined.table)
        assert isinstance(await quiet.request(ls.LobbyPing()), ls.LobbyPongMsg)
        assert not quiet.of(ls.TableMsg) and not quiet.of(ls.TableGoneMsg)
        await quiet.send(ls.FollowLobby(True))
        listing = await quiet.expect(ls.LobbyMsg)
        assert [t.table for t in listing.tables] == [joined.table]
        await ana.send(ls.LeaveTable(joined.table))
        await quiet.expect(ls.TableGoneMsg, where=lambda m: m.table == joined.table)


async def test_a_turn_left_to_run_out_is_played_by_the_stand_in_and_three_free_the_seat(isolated_dirs: Path) -> None:
    async with server(isolated_dirs / "srv", *FAST) as srv:
        watcher = await lobby(srv.lobby)
        ana = await signed_in(srv.lobby, isolated_dirs / "ana", "Ana")
        ben = await signed_in(srv.lobby, isolated_dirs / "ben", "Ben")
        joined = await ana.request(ls.CreateTable(("human", "human"), 100, {"hand_size": 4}, turn_seconds=2))
        assert isinstance(joined, ls.JoinedMsg), joined
        await ben.request(ls.JoinTable(joined.table))
        anas = await sit((await ana.expect(ls.StartMsg, where=lambda m: m.table == joined.table)).url)
        bens = await sit((await ben.expect(ls.StartMsg, where=lambda m: m.table == joined.table)).url)
        ben_plays = asyncio.create_task(play_to_end(bens))  # Ben plays at once; Ana never moves

        def clocks() -> list[p.ClockMsg]:
            return [m for m in anas.messages if isinstance(m, p.ClockMsg) and m.seat == 0]

        await wait_until(lambda: clocks(), what="Ana's turn timed")
        assert clocks()[0].warning and clocks()[0].left == 2, "a turn of 2 s is warned at once"
        await wait_until(lambda: anas.seat.ended, what="three turns run out free Ana's seat")
        assert anas.seat.link.code == p.SEAT_FREED
        assert len(clocks()) >= 3, "each of Ana's three turns was timed: the stand-in ended the first two"

        def free() -> bool:
            listed = [m.listing for m in watcher.of(ls.TableMsg) if m.listing.table == joined.table]
            return bool(listed) and listed[-1].phase == ls.PLAYING and listed[-1].seats[0].name is None

        await wait_until(free, what="Ana's seat listed free while the match plays")
        assert not ben_plays.done(), "Ben's match goes on"
        ben_plays.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await ben_plays
        for s in (anas, bens):
            await s.close()
