"""``serve --allow-join HOST:PORT``: the tables a served tab's app may connect to. Its values
(one line and exit 2 when bad), the exact comparison of an address's host and port with the
list, no redirect followed elsewhere, and a real ``kings-corners serve`` whose tab, driven over
textual-serve's WebSocket, refuses a table not on the list (no connection reaches it) and joins
one on it. The menu's side in ``App.run_test``: tests/ui/test_served_join.py."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from kc_tui.cli import main
from kc_tui.net.allowlist import ENV_ALLOW_JOIN, MAX_TABLES, Endpoint, join_environment, parse_endpoint, served_tables
from kc_tui.net.client import AddressError, RemoteSeat, Status, table_address
from kc_tui.web.site import tab_command
from kc_tui.web.tab import main as tab_main
from tests.waiting import wait_until

from .servekit import listening, serving, tab

ALLOWED = "127.0.0.1:8765 [::1]:9000 tables.lan:80 localhost:8443"


def one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert captured.out == "" and len(lines) == 1 and lines[0].startswith("kings-corners: "), captured
    return lines[0]


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("host", "with its port"),
        ("host:", "the port must be a whole number from 1 to 65535"),
        ("host:0", "the port must be a whole number from 1 to 65535"),
        ("host:65536", "the port must be a whole number from 1 to 65535"),
        ("host:８０", "the port must be a whole number from 1 to 65535"),
        (":8765", "host is empty"),
        ("ws://host:8765", "not an address"),
        ("::1:8765", "IPv6 address in brackets"),
        ("[fe80::1%eth0]:8765", "not an IPv6 address in the brackets"),
        ("tables.lan.:8765", "not a host name"),
        ("a..b:8765", "not a host name"),
        ("127.1:8765", "neither a name nor an IPv4 address"),
        ("[x]y:1", "IPv6 address in brackets"),
    ],
)
def test_a_bad_table_is_one_line_and_exit_2(
    value: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", "--allow-join", value, "--root", str(tmp_path / "root")]) == 2
    line = one_error_line(capsys)
    assert "--allow-join" in line and said in line, line
    assert not (tmp_path / "root").exists()


def test_too_many_tables_are_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tables = [word for port in range(1, MAX_TABLES + 2) for word in ("--allow-join", f"127.0.0.1:{port}")]
    assert main(["serve", *tables, "--root", str(tmp_path / "root")]) == 2
    assert f"at most {MAX_TABLES} tables" in one_error_line(capsys)
    assert not (tmp_path / "root").exists()


def test_the_tabs_launcher_refuses_a_bad_table_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert tab_main([str(tmp_path / "root"), "127.0.0.1:1", "ws://127.0.0.1:2"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kings-corners serve: write a table as HOST:PORT") and err.count("\n") == 1
    assert not (tmp_path / "root").exists()


def test_serve_help_tells_what_allow_join_does(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--allow-join HOST:PORT" in text and "Without it a tab joins no table" in text


def test_the_tables_are_read_as_written_each_once() -> None:
    assert parse_endpoint("Tables.LAN:80") == Endpoint("tables.lan", 80)
    assert parse_endpoint("[0:0::1]:9000") == Endpoint("::1", 9000)
    assert str(parse_endpoint("[::1]:9000")) == "[::1]:9000"
    listed = served_tables({ENV_ALLOW_JOIN: ALLOWED})
    assert listed is not None and len(listed) == 4
    assert served_tables(join_environment(sorted(listed))) == listed
    assert served_tables({}) is None  # not a served tab: any table
    assert served_tables({ENV_ALLOW_JOIN: ""}) == frozenset()
    assert served_tables({ENV_ALLOW_JOIN: "127.0.0.1:8765 not/a:table"}) == frozenset()  # refused whole
    # The tab's command carries the list to its launcher, each table one word.
    command = tab_command(Path("/r oot"), [Endpoint("::1", 9000), Endpoint("tables.lan", 80)])
    assert command.endswith(" -m kc_tui.web.tab '/r oot' '[::1]:9000' tables.lan:80")


@pytest.mark.parametrize(
    "url",
    [
        "ws://127.0.0.1:8765/watch",
        "ws://127.0.0.1:08765/watch",
        "ws://[::1]:9000/watch",
        "ws://[0:0::1]:9000/watch",
        "ws://TABLES.lan/watch",
        "ws://tables.lan:80/seat/abc",
        "wss://tables.lan:80/watch",
        "wss://localhost:8443/watch",
    ],
)
def test_an_address_on_the_list_is_joined(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_ALLOW_JOIN, ALLOWED)
    assert table_address(url) == url


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("ws://127.0.0.1:8766/watch", "127.0.0.1:8766 is not on this server's list"),
        ("ws://127.0.0.1:8765@evil.example/watch", "has no '@'"),
        ("ws://evil:x@127.0.0.1:8765/watch", "has no '@'"),
        ("ws://127.0.0.1:8765\\@evil.example/watch", "has no '@'"),
        ("ws://localhost:8765/watch", "localhost:8765 is not on"),  # a name matches only itself
        ("ws://127.1:8765/watch", "127.1:8765 is not on"),
        ("ws://2130706433:8765/watch", "2130706433:8765 is not on"),
        ("ws://[::ffff:127.0.0.1]:8765/watch", "[::ffff:7f00:1]:8765 is not on"),
        ("ws://tables.lan.:80/watch", "tables.lan.:80 is not on"),
        ("wss://tables.lan/watch", "tables.lan:443 is not on"),  # wss's own port
        ("ws://localhost/watch", "localhost:80 is not on"),
        ("ws://[::1%25lo]:9000/watch", "is not on"),
        ("ws://127.0.0.1:8765#@x/watch", "names no seat"),
    ],
)
def test_an_address_not_on_the_list_is_refused_in_one_line(
    url: str, said: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_ALLOW_JOIN, ALLOWED)
    with pytest.raises(AddressError) as refused:
        table_address(url)
    assert said in str(refused.value) and "\n" not in str(refused.value)
    with pytest.raises(AddressError):
        RemoteSeat(url)  # the seat's connection checks its address the same way


def test_with_an_empty_list_no_address_is_joined(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_ALLOW_JOIN, "")
    with pytest.raises(AddressError, match="its operator has allowed none"):
        RemoteSeat("ws://127.0.0.1:8765/watch")


async def redirecting(to: str) -> asyncio.Server:
    """A server that answers every request with a redirect to ``to``."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(f"HTTP/1.1 302 Found\r\nLocation: {to}\r\nContent-Length: 0\r\n\r\n".encode())
        await writer.drain()
        writer.close()

    return await asyncio.start_server(answer, "127.0.0.1", 0)


@pytest.mark.parametrize("served", [True, False])
async def test_a_redirect_to_another_address_is_not_followed(served: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    async with listening() as probed:
        server = await redirecting(probed.url())
        port = server.sockets[0].getsockname()[1]
        if served:
            monkeypatch.setenv(ENV_ALLOW_JOIN, f"127.0.0.1:{port}")
        seat = RemoteSeat(f"ws://127.0.0.1:{port}/watch")
        try:
            await asyncio.wait_for(seat.run(), 20)  # ends for good at the redirect
        finally:
            server.close()
            await server.wait_closed()
        assert seat.link.status is Status.ENDED and seat.link.code == "redirect", seat.link
        assert probed.accepted == []


async def test_a_served_tab_refuses_a_table_not_on_the_list_and_joins_one_on_it(tmp_path: Path) -> None:
    async with listening() as allowed, listening() as probed:
        assert probed.port != allowed.port
        with serving(tmp_path, "--allow-join", f"127.0.0.1:{allowed.port}") as served:
            assert f"tables a tab may join: 127.0.0.1:{allowed.port}" in served.lines[0]
            async with tab(served) as browser:
                await browser.keys("j")
                await browser.shows("Join  (Enter)")
                await browser.keys(probed.url())
                await browser.shows(f":{probed.port}/watch")  # in the field: then Enter
                await browser.keys("\r")
                await browser.shows("is not on this server's list")
                assert probed.accepted == [] and allowed.accepted == []
                await browser.keys("\x15")  # Ctrl+U: the field emptied
                await browser.shows("192.168.1.20:8765/seat/...")  # its placeholder
                await browser.keys(allowed.url())
                await browser.shows(f":{allowed.port}/watch")
                await browser.keys("\r")
                await wait_until(lambda: allowed.accepted, what="the tab's connection to the allowed table")
        assert probed.accepted == []


async def test_without_a_list_a_served_tab_offers_no_join_and_j_does_nothing(tmp_path: Path) -> None:
    with serving(tmp_path) as served:
        assert "tables a tab may join: none (--allow-join)" in served.lines[0]
        async with tab(served) as browser:
            assert "Join a table" not in browser.drawn
            # Keys are read in order: had j opened the dialog, r would be typed into its field.
            await browser.keys("j")
            await browser.keys("r")
            await browser.shows("Contents")  # the rules
            assert "Join  (Enter)" not in browser.drawn
