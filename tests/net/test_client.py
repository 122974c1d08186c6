"""The remote seat's connection against a real table server on loopback (port 0): welcome and
state, a move, reconnection after the connection drops, a wrong token, a malformed message."""

from __future__ import annotations

import json
import logging
import shutil
import ssl
import subprocess
from pathlib import Path

import pytest

from kc_tui.cli import main
from kc_tui.engine import card_str
from kc_tui.net import schema as p
from kc_tui.net.client import AddressError, RemoteSeat, Status, table_address, trusting
from kc_tui.net.server import WATCH_PATH, seat_path
from tests.net.clientkit import recorded, relayed
from tests.net.serverkit import TWO_ROUNDS, running, session_for
from tests.waiting import wait_until

#: One person against an AI: the table waits for Ana only.
ANA_AND_AI = (("Ana", "human"), ("Greedy", "greedy"))


def my_turn(state: p.StateMsg | None) -> bool:
    return state is not None and bool(state.legal)


async def test_a_seat_is_welcomed_sees_its_hand_and_makes_a_move() -> None:
    async with running(session_for(ANA_AND_AI, rules=TWO_ROUNDS)) as (server, base):
        rec = recorded(base + seat_path(server.tokens[0]))
        seat = rec.seat
        await wait_until(lambda: my_turn(seat.state), what="Ana's turn")
        assert rec.statuses[0] is Status.CONNECTED and seat.connected
        assert seat.welcome is not None and (seat.welcome.seat, seat.welcome.name) == (0, "Ana")
        assert [s.kind for s in seat.welcome.seats] == ["human", "greedy"]
        state = seat.state
        assert state is not None and state.hand is not None
        assert list(state.hand) == list(server.session.hand(0))
        plays = [m for m in state.legal if m.startswith("play")]
        chosen = plays[0] if plays else "end"
        stamp = state.stamp
        assert seat.move(chosen) is not None
        await wait_until(lambda: seat.state is not None and seat.state.stamp > stamp, what="the next state")
        assert seat.state is not None and server.session.log[-1] in seat.state.log
        assert len(server.session.match.round.history) >= 1
        assert rec.problems == []
        await rec.stop()
        assert seat.ended and rec.statuses[-1] is Status.ENDED


async def test_a_refused_move_is_the_servers_one_line_and_changes_nothing() -> None:
    async with running(session_for(ANA_AND_AI, rules=TWO_ROUNDS)) as (server, base):
        rec = recorded(base + seat_path(server.tokens[0]))
        seat = rec.seat
        await wait_until(lambda: my_turn(seat.state), what="Ana's turn")
        assert seat.state is not None
        before = (seat.state.stamp, list(server.session.log))
        assert seat.move("move N N") is None, "a text that is no move is not sent"
        assert rec.problems and "\n" not in rec.problems[-1]
        other = next(c for c in range(52) if c not in server.session.hand(0))
        rid = seat.move(f"play {card_str(other)} N")  # not Ana's card: the server says why
        await wait_until(lambda: rec.of(p.ErrorMsg) or rec.of(p.RefusedMsg), what="the refusal")
        answer = (rec.of(p.ErrorMsg) + rec.of(p.RefusedMsg))[0]
        assert getattr(answer, "id", None) == rid
        assert (seat.state.stamp, list(server.session.log)) == before
        await rec.stop()


async def test_the_seat_reconnects_by_itself_and_sees_the_position() -> None:
    async with running(session_for(ANA_AND_AI, rules=TWO_ROUNDS)) as (server, base), relayed(base) as (relay, front):
        rec = recorded(front + seat_path(server.tokens[0]))
        seat = rec.seat
        await wait_until(lambda: my_turn(seat.state), what="Ana's turn")
        await wait_until(lambda: server.connected[0], what="the server seeing Ana")
        await relay.drop()
        await wait_until(lambda: Status.RECONNECTING in rec.statuses, what="reconnecting")
        assert seat.move("end") is None, "nothing is sent while the connection is down"
        await wait_until(lambda: seat.connected and seat.connections == 2, what="the second connection")
        assert rec.statuses[-2:] == [Status.RECONNECTING, Status.CONNECTED]
        assert len(rec.of(p.WelcomeMsg)) == 2
        await wait_until(lambda: seat.state is not None and seat.state.stamp == server.stamp, what="the newest state")
        assert seat.state is not None and list(seat.state.hand or ()) == list(server.session.hand(0))
        assert server.connected[0]
        await rec.stop()


async def test_a_wrong_token_ends_the_seat_for_good() -> None:
    async with running(session_for(ANA_AND_AI)) as (_server, base):
        rec = recorded(base + seat_path("x" * p.TOKEN_LENGTH))
        assert rec.task is not None
        await wait_until(rec.task.done, what="the seat's end")
        assert rec.seat.link.status is Status.ENDED and rec.seat.link.code == p.BAD_TOKEN
        assert rec.seat.connections == 1, "no second try: the token will not change"
        assert "\n" not in rec.seat.link.reason and rec.seat.link.reason
        rec.seat.close()
        assert rec.seat.link.code == p.BAD_TOKEN, "leaving keeps the reason the server gave"


async def test_an_address_the_server_does_not_serve_ends_the_seat() -> None:
    async with running(session_for(ANA_AND_AI)) as (_server, base):
        seat = RemoteSeat(base + WATCH_PATH)
        seat.url = base + "/nothing"  # past the address check: what the server answers
        links: list[Status] = []
        seat.on_link = lambda link: links.append(link.status)
        await seat.run()
        assert seat.link.code == "not-found" and links == [Status.ENDED]


async def test_a_malformed_server_message_is_one_line_and_skipped() -> None:
    async with running(session_for(ANA_AND_AI)) as (server, base), relayed(base) as (relay, front):
        relay.inject = ['{"v": 3, "type": "state", "stamp": "many"}', "not json at all", '{"v": 4, "type": "pong"}']
        rec = recorded(front + seat_path(server.tokens[0]))
        await wait_until(lambda: rec.seat.state is not None, what="a state")
        assert len(rec.problems) == 3
        assert all("\n" not in line and "Traceback" not in line for line in rec.problems)
        assert (
            "state message" in rec.problems[0] and "not valid JSON" in rec.problems[1] and "version" in rec.problems[2]
        )
        assert rec.seat.connected and rec.seat.connections == 1
        await rec.stop()


async def test_a_newer_servers_added_fields_are_skipped_and_the_seat_plays() -> None:
    def newer(text: str) -> str:
        data = json.loads(text)
        data["added"] = {"by": "a newer server"}
        for seat in data.get("seats", []):
            seat["mood"] = "calm"
        return json.dumps(data)

    async with running(session_for(ANA_AND_AI, rules=TWO_ROUNDS)) as (server, base), relayed(base) as (relay, front):
        relay.rewrite = newer
        rec = recorded(front + seat_path(server.tokens[0]))
        seat = rec.seat
        await wait_until(lambda: my_turn(seat.state), what="Ana's turn")
        assert seat.state is not None and seat.welcome is not None and seat.welcome.name == "Ana"
        stamp = seat.state.stamp
        assert seat.move(seat.state.legal[0]) is not None
        await wait_until(lambda: seat.state is not None and seat.state.stamp > stamp, what="the next state")
        assert rec.problems == []
        await rec.stop()


async def test_a_spectator_gets_no_hand_and_sends_nothing() -> None:
    async with running(session_for(ANA_AND_AI)) as (_server, base):
        rec = recorded(base + WATCH_PATH)
        await wait_until(lambda: rec.seat.state is not None, what="a state")
        state = rec.seat.state
        assert state is not None and state.hand is None and state.seat is None and state.legal == ()
        assert rec.seat.watching and rec.seat.move("end") is None and rec.seat.hint() is None
        await rec.stop()


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("http://host:8765/seat/abc", "ws://"),
        ("ws:///seat/abc", "no host"),
        ("ws://host:8765/", "names no seat"),
        ("ws://host:8765/seat/", "names no seat"),
        ("ws://host:port/seat/abc", "not an address"),
        ("ws://host:8765/seat/a\x1b[2Jb/c", "names no seat"),
    ],
)
def test_an_address_that_cannot_be_joined_is_one_line(url: str, words: str) -> None:
    with pytest.raises(AddressError) as caught:
        table_address(url)
    message = str(caught.value)
    assert words in message and "\n" not in message and "\x1b" not in message


def test_addresses_of_seats_and_spectators() -> None:
    assert table_address(" ws://h:1/seat/tok ") == "ws://h:1/seat/tok"
    assert table_address("wss://h/watch/") == "wss://h/watch"
    assert table_address("ws://h:1/seat/tok", watch=True) == "ws://h:1/watch"


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key (as ``host --cert/--key`` take them)."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    new_key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", str(key)]
    subject = ["-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"]
    subprocess.run(
        ["openssl", "req", "-x509", *new_key, "-out", str(cert), "-days", "1", *subject],
        check=True,
        capture_output=True,
        timeout=30,
    )
    return cert, key


async def test_a_wss_table_is_joined_when_its_certificate_is_trusted(certificate: tuple[Path, Path]) -> None:
    cert, key = certificate
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    async with running(session_for(ANA_AND_AI), ssl=context) as (server, base):
        address = base.replace("ws://", "wss://") + seat_path(server.tokens[0])
        untrusted = recorded(address)
        assert untrusted.task is not None
        await wait_until(untrusted.task.done, what="the untrusted seat's end")
        assert untrusted.seat.link.code == "certificate" and "certificate" in untrusted.seat.link.reason
        assert untrusted.seat.connections == 0 and untrusted.statuses == [Status.ENDED]
        trusted = recorded(address, ssl_context=trusting(str(cert)))
        await wait_until(lambda: trusted.seat.state is not None, what="a state over TLS")
        assert trusted.seat.connected and trusted.seat.state is not None and trusted.seat.state.hand
        await trusted.stop()


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["join", "http://host/seat/abc"], "ws://"),
        (["join", "ws://host:8765/"], "names no seat"),
        (["join", "--cafile", "nowhere.pem", "ws://host/seat/abc"], "--cafile is for a wss://"),
        (["join", "--cafile", "nowhere.pem", "wss://host/seat/abc"], "nowhere.pem"),
    ],
)
def test_join_with_an_address_it_cannot_use_is_one_line_and_exit_2(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("kings-corners: ") and words in err
    assert "Traceback" not in err


async def test_a_seat_taken_by_a_newer_client_ends_the_older_for_good() -> None:
    async with running(session_for(ANA_AND_AI)) as (server, base):
        older = recorded(base + seat_path(server.tokens[0]))
        await wait_until(lambda: older.seat.connected, what="the first client")
        newer = recorded(base + seat_path(server.tokens[0]))
        assert older.task is not None
        await wait_until(older.task.done, what="the older client's end")
        assert older.seat.link.code == p.SEAT_TAKEN and older.seat.connections == 1
        await wait_until(lambda: newer.seat.connected and newer.seat.state is not None, what="the newer client")
        assert newer.seat.connections == 1 and server.connected[0]
        await newer.stop()


async def test_no_seat_token_reaches_the_clients_log_even_at_debug(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    async with running(session_for(ANA_AND_AI, rules=TWO_ROUNDS)) as (server, base):
        rec = recorded(base + seat_path(server.tokens[0]))
        await wait_until(lambda: my_turn(rec.seat.state), what="Ana's turn")
        await rec.stop()
    lines = "\n".join(r.getMessage() for r in caplog.records if r.name.startswith("kc_tui.net.client"))
    assert "/seat/<token>" in lines, "the client's connection was logged"
    assert server.tokens[0] not in "\n".join(r.getMessage() for r in caplog.records)
