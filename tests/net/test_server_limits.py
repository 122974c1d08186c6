"""The table server's limits against raw sockets and slow clients: connections in the WebSocket
handshake (the oldest of the address holding most gives way to a new one) closed after the
handshake timeout, the host's process under ``prlimit --nofile`` flooded with idle sockets (one
plain line, no traceback, the seated people play on, its memory bounded), a client that stops
reading getting the newest state when it reads again (and closed once too much waits for it),
and a message over the limit answered ``too-large``."""

from __future__ import annotations

import asyncio
import errno
import json
import logging
from contextlib import suppress

import pytest
from websockets.exceptions import ConnectionClosed

from kc_tui.net import schema as p
from kc_tui.net.protocol import write
from kc_tui.net.server import MAX_FRAME, SAVE_HANDLES, seat_path
from tests.net.serverkit import (
    WAIT,
    Client,
    HostProcess,
    StalledSeat,
    Visitor,
    allow_open_files,
    answers,
    closed_by_peer,
    ended,
    host_process,
    idle_sockets,
    join,
    raw_connection,
    running,
    seat,
    stall,
)
from tests.waiting import wait_until

SEATS = ["--seats", "human:Ana,human:Ben,greedy", "--rules", "hand_size=4", "--target", "5", "--seed", "3"]
#: The file handles the host has open when idle with both seats connected: standard input,
#: output and error, the event loop's selector and wake-up pair, the listening socket, the
#: two seats' connections, the data folder's lock, and the handles kept for the saves.
IDLE_HANDLES = 10 + SAVE_HANDLES


async def test_a_new_socket_takes_the_place_of_the_oldest_of_the_address_holding_most() -> None:
    async with running(max_handshakes=3, handshake_timeout=60) as (server, base):
        assert server.port is not None
        port = server.port
        writers: list[asyncio.StreamWriter] = []  # held: a writer let go closes its socket

        async def opened(source: str, counts: dict[str, int]) -> asyncio.StreamReader:
            reader, writer = await raw_connection(port, source)
            writers.append(writer)
            await wait_until(lambda: server.handshaking == counts, what=f"in the handshake: {counts}")
            return reader

        first = await opened("127.0.0.1", {"127.0.0.1": 1})
        second = await opened("127.0.0.1", {"127.0.0.1": 2})
        third = await opened("127.0.0.1", {"127.0.0.1": 3})
        other = await opened("127.0.0.2", {"127.0.0.1": 2, "127.0.0.2": 1})
        assert await ended(first), "the oldest of the address holding most gave way"
        await opened("127.0.0.2", {"127.0.0.1": 1, "127.0.0.2": 2})
        assert await ended(second)
        await opened("127.0.0.3", {"127.0.0.1": 1, "127.0.0.2": 1, "127.0.0.3": 1})
        assert await ended(other), "127.0.0.2 held two: its oldest gave way"

        ana = await seat(server, base, "Ana")  # the pool is full: the seat takes a place, and is in
        assert ana.state.seat == 0 and server.connected[0]
        assert await ended(third), "with every address at one, the oldest gave way"
        assert server.door.given_way == 4 and len(server.door) == 2
        await ana.close()
        for writer in writers:
            writer.close()


async def test_a_socket_that_never_sends_is_closed_after_the_handshake_timeout() -> None:
    async with running(handshake_timeout=0.5) as (server, base):
        assert server.port is not None
        silent, _ = await raw_connection(server.port)
        half, half_writer = await raw_connection(server.port)
        half_writer.write(b"GET /watch HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # a request never finished
        await wait_until(lambda: server.handshaking == {"127.0.0.1": 2}, what="two sockets in the handshake")
        assert await ended(silent) and await ended(half)
        await wait_until(lambda: not server.handshaking, what="the closed sockets uncounted")
        ana = await seat(server, base, "Ana")
        assert ana.state.seat == 0
        await ana.close()


async def test_a_client_that_stops_reading_gets_the_newest_state_and_one_waits_for_it() -> None:
    async with running(stand_in=0) as (server, base):
        slow = StalledSeat(base + seat_path(server.tokens[0]))
        await slow.open()
        ben = Visitor(server, base, 1)
        await stall(server, 0, ben.comes_and_goes)
        slow.send(write(p.Ping(7)))
        await wait_until(lambda: server.pending(0)[1] == 1, what="the pong waiting")
        for _ in range(10):
            await ben.comes_and_goes()
            assert server.pending(0) == (1, 1), "one state waits, the newest, behind the pong"
        unread = ben.changes

        def after_pong() -> list[p.ServerMessage]:
            pong = next((i for i, m in enumerate(slow.messages) if isinstance(m, p.PongMsg)), len(slow.messages))
            return slow.messages[pong:]

        await slow.read_until(lambda: any(isinstance(m, p.StateMsg) for m in after_pong()))
        assert server.pending(0) == (0, 0)
        pong, newest = after_pong()
        assert pong == p.PongMsg(7) and isinstance(newest, p.StateMsg)
        assert newest.stamp == server.stamp
        assert [s.connected for s in newest.seats] == server.connected and not server.connected[1]
        assert len(slow.states()) < unread, f"{len(slow.states())} states read of {unread} made"
        slow.close()


async def test_a_client_with_too_many_messages_unread_is_closed_and_the_table_plays_on() -> None:
    async with running(stand_in=0) as (server, base):
        slow = StalledSeat(base + seat_path(server.tokens[0]))
        await slow.open()
        ben = Visitor(server, base, 1)
        await stall(server, 0, ben.comes_and_goes)
        for _ in range(p.RATE_BURST):  # each answered (a pong) into the queue
            slow.send(write(p.Ping()))
        await wait_until(lambda: server.pending(0)[1] == p.RATE_BURST, what="the pongs waiting")
        async with asyncio.timeout(WAIT * 3):
            while server.pending(0)[1]:  # each ping adds an answer (a pong or slow-down) until the server gives up
                slow.send(write(p.Ping()))
                await asyncio.sleep(0.005)
        await slow.read_to_end()
        assert slow.protocol.close_code == 1008 and slow.protocol.close_reason == "too slow: messages unread"
        back = await seat(server, base, "Ana")
        assert back.state.seat == 0 and server.connected[0]
        await back.close()


async def test_a_message_over_the_limit_is_answered_too_large_then_closed() -> None:
    async with running() as (server, base):
        ana = await seat(server, base, "Ana")
        await ana.send(json.dumps({"v": 3, "type": "ping", "pad": "x" * p.MAX_MESSAGE}))
        error = await ana.expect(p.ErrorMsg)
        assert error.code == p.TOO_LARGE and "65536" in error.message
        await asyncio.wait_for(ana.ws.wait_closed(), WAIT)
        assert ana.ws.close_code == 1009

        ben = await seat(server, base, "Ben")
        with suppress(ConnectionClosed):
            await ben.send("x" * (MAX_FRAME + 1))
        await asyncio.wait_for(ben.ws.wait_closed(), WAIT)
        assert ben.ws.close_code == 1009
        assert not any(isinstance(m, p.ErrorMsg) for m in ben.messages), "a frame over the largest is not read"
        again = await seat(server, base, "Ana")
        assert again.state.seat == 0
        await again.close()


# ---------------------------------------------------------------------- the host's process
async def flooded(host: HostProcess, sockets: int) -> tuple[int, int, int]:
    """Both seats connect; ``sockets`` idle raw sockets are opened to the host and held while the
    person on turn makes a move and sees the new state. The host's memory (KiB) before the
    flood, with the sockets held, and once they are closed."""
    urls = await host.urls()
    ana, ben = await join(urls["Ana"]), await join(urls["Ben"])
    before = host.rss_kib()
    held = await asyncio.to_thread(idle_sockets, host.port(), sockets)
    try:
        await move_and_see(ana, ben)
        during = host.rss_kib()
        assert any(closed_by_peer(s) for s in held), "the sockets over the limits were closed"
    finally:
        for s in held:
            s.close()
    await move_and_see(ana, ben)
    after = host.rss_kib()
    for c in (ana, ben):
        assert c.leaks == []
        await c.close()
    return before, during, after


async def move_and_see(*clients: Client) -> None:
    """The person on turn makes a move; its client sees the state after it."""
    async with asyncio.timeout(WAIT * 3):
        while True:
            mover = await wait_until(
                lambda: next((c for c in clients if c.messages and c.state.legal), None), what="a seat on turn"
            )
            st = mover.state
            await mover.move(next((m for m in st.legal if m != "end"), "end"), st.stamp)
            answer = await mover.expect((p.StateMsg, p.RefusedMsg, p.ErrorMsg), where=answers(st.stamp))
            if isinstance(answer, p.StateMsg):
                return


def quiet(host: HostProcess) -> list[str]:
    """Stop the host: its lines about the file limit (there is no traceback, no other error)."""
    out, err = host.stop()
    assert "Traceback" not in out + err and "Errno" not in out + err, (out + err)[-2000:]
    assert err == "", err[-2000:]
    return [line for line in out.splitlines() if "file handles" in line]


async def test_idle_sockets_at_a_tight_file_limit_are_one_line_and_the_table_plays_on() -> None:
    """The host's file limit leaves less room than one batch of accepts (its pool of handshakes
    is the smallest): it runs out of file handles, says so once, and the seated people play on."""
    host = host_process(*SEATS, "--stand-in", "0", nofile=IDLE_HANDLES + 7)
    try:
        before, during, after = await flooded(host, 200)
    finally:
        lines = quiet(host)
    print(f"host RSS: {before} KiB before, {during} KiB with 200 sockets held, {after} KiB after")
    assert len(lines) == 1 and "out of file handles" in lines[0], lines
    assert during - before < 8 * 1024 and after - before < 8 * 1024, (before, during, after)


@pytest.mark.slow
async def test_three_thousand_idle_sockets_under_nofile_1024_leave_the_host_bounded() -> None:
    allow_open_files(4096)
    host = host_process(*SEATS, "--stand-in", "0", nofile=1024)
    try:
        before, during, after = await flooded(host, 3000)
    finally:
        lines = quiet(host)
    print(f"host RSS: {before} KiB before, {during} KiB with 3000 sockets held, {after} KiB after")
    assert len(lines) <= 1, lines
    assert during - before < 16 * 1024 and after - before < 16 * 1024, (before, during, after)


async def test_listening_retried_on_a_closed_socket_after_running_out_of_handles_is_quiet(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """accept() out of handles makes asyncio retry listening a second later, even once the table
    has closed its socket: that retry's error is no traceback, and other errors still are."""
    loop = asyncio.get_running_loop()
    async with running() as (server, _url):
        loop.call_exception_handler(
            {"message": "socket.accept() out of system resource", "exception": OSError(errno.EMFILE, "Too many")}
        )
    assert loop.get_exception_handler() == server.accept_errors.handle
    with caplog.at_level(logging.DEBUG, logger="asyncio"):
        loop.call_exception_handler(
            {
                "message": "Exception in callback BaseSelectorEventLoop._start_serving(<function>)",
                "exception": ValueError("Invalid file descriptor: -1"),
            }
        )
        assert not [r for r in caplog.records if r.name == "asyncio"]
        loop.call_exception_handler({"message": "something else", "exception": ValueError("boom")})
        assert [r for r in caplog.records if r.name == "asyncio" and r.levelno == logging.ERROR]
    loop.set_exception_handler(None)
