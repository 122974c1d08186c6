"""``kings-corners serve``: its arguments (one line and exit 2 when bad, a warning off loopback)
and what its server lets in: a real serve process, real HTTP and WebSocket clients on loopback."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import websockets
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import InvalidStatus
from websockets.typing import Origin

from kc_tui.cli import main
from kc_tui.web.folders import LOCK_NAME, PREFIX, SWEEP_AGE
from tests.timingkit import TIMED
from tests.waiting import wait_for, wait_until

from .servekit import Served, free_port, serving, tab_folders

DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("kings-corners: "), captured.err
    return lines[0]


@pytest.mark.parametrize("port", ["0", "65536", "eighty", "-1", "", "８０", "99999999999"])
def test_a_bad_port_is_one_line_and_exit_2(port: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--port", port, "--root", str(tmp_path / "root")]) == 2
    assert "the port must be a whole number from 1 to 65535" in one_error_line(capsys)
    assert not (tmp_path / "root").exists()


@pytest.mark.parametrize(("under", "said"), [("", "is a file, not a folder"), ("x", "a part of its path is a file")])
def test_a_bad_root_is_one_line_and_exit_2(
    under: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "file").write_text("keep")
    root = tmp_path / "file" / under if under else tmp_path / "file"
    assert main(["serve", "--port", str(free_port()), "--root", str(root)]) == 2
    assert said in one_error_line(capsys)
    assert (tmp_path / "file").read_text() == "keep"


def test_an_address_not_of_this_machine_is_one_line_and_exit_2_with_no_warning(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "kc_tui", "serve", "--bind", "192.0.2.1", "--root", str(tmp_path / "root")]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("kings-corners: cannot listen on 192.0.2.1 port 8000: ")
    assert done.stderr.count("\n") == 1


def test_a_port_in_use_is_one_line_and_exit_2(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        command = [sys.executable, "-m", "kc_tui", "serve", "--port", str(port), "--root", str(tmp_path / "root")]
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"kings-corners: cannot listen on 127.0.0.1 port {port}: ")
    assert done.stderr.count("\n") == 1


def test_an_address_other_than_loopback_is_served_with_a_one_line_warning(tmp_path: Path) -> None:
    with serving(tmp_path, "--bind", "0.0.0.0") as served:
        wait_for(
            lambda: any("warning" in line for line in served.lines), what="the warning", showing=lambda: served.lines
        )
        warning = "kings-corners: warning: serving on 0.0.0.0, not on this machine only: anyone who can reach"
        assert [line.startswith(warning) for line in served.lines if "warning" in line] == [True]
        assert page(served.url)[0] == 200  # any name reaches a server that is not on loopback
        assert page(served.url, host=f"example.test:{served.port}")[0] == 200


def page(url: str, host: str | None = None) -> tuple[int, str]:
    request = urllib.request.Request(url, headers={"Host": host} if host else {})
    try:
        with DIRECT.open(request, timeout=10) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, ""


def test_the_page_points_at_the_address_asked_for_and_only_loopback_names_are_served(served: Served) -> None:
    status, text = page(served.url)
    assert status == 200 and f'data-session-websocket-url="ws://127.0.0.1:{served.port}/ws"' in text
    status, text = page(served.url, host=f"localhost:{served.port}")
    assert status == 200 and f'data-session-websocket-url="ws://localhost:{served.port}/ws"' in text
    # A name of another site that points here (DNS rebinding) is not served.
    for host in (f"evil.example:{served.port}", "evil.example", 'x"><script>', "127.0.0.1.evil.example"):
        assert page(served.url, host=host)[0] in (400, 421), host


def test_the_page_gives_the_terminal_the_focus_on_load(served: Served) -> None:
    status, text = page(served.url)
    assert status == 200
    script = text.rindex('addEventListener("load"')
    assert text.index('id="terminal"') < script < text.rindex("</body>")
    assert ".xterm-helper-textarea" in text[script:] and ".focus(" in text[script:]


@pytest.mark.parametrize("timed", TIMED)
async def test_a_tab_from_another_sites_page_is_refused_and_nothing_starts(served: Served, timed: bool) -> None:
    ws_url = f"ws://127.0.0.1:{served.port}/ws"
    for origin in ("http://evil.example", f"http://evil.example:{served.port}", "null"):
        with pytest.raises(InvalidStatus) as refused:
            await websockets.connect(ws_url, origin=Origin(origin), proxy=None)
        assert refused.value.response.status_code == 403
    if timed:
        await asyncio.sleep(0.5)  # nothing starts a moment later either
    assert tab_folders(served.root) == set()


async def test_a_tab_survives_nonsense_from_its_browser_and_its_folder_goes_with_it(served: Served) -> None:
    origin = Origin(f"http://127.0.0.1:{served.port}")
    async with websockets.connect(
        f"ws://127.0.0.1:{served.port}/ws?width=99999999&height=-4", origin=origin, proxy=None
    ) as ws:
        await wait_until(lambda: len(tab_folders(served.root)) == 1, what="the tab's folder")
        (folder,) = tab_folders(served.root)
        drawn = await asyncio.wait_for(ws.recv(), 20)  # the app draws its menu
        assert isinstance(drawn, bytes) and drawn
        for nonsense in (
            "not json",
            "{}",
            "[]",
            "[5]",
            '["stdin", 5]',
            '["resize", {"width": 1e308, "height": "x"}]',
            '["resize", {"width": 100000000, "height": 100000000}]',
            '["ping", ' + json.dumps("x" * 1000) + "]",
            '["launch", "rm -rf /"]',
        ):
            await ws.send(nonsense)
        await ws.send(b"\x00binary")
        await ws.send('["ping", "still here"]')
        while (answer := await asyncio.wait_for(ws.recv(), 20)) != '["pong", "still here"]':
            assert isinstance(answer, bytes), answer  # only the app's drawing comes before the pong
        assert folder.is_dir()
    await wait_until(lambda: not folder.exists(), what="the closed tab's folder removed")
    assert [line for line in served.lines if not line.startswith("Serving")] == []


async def test_a_server_killed_ends_its_tabs_and_the_next_one_sweeps_what_was_left(tmp_path: Path) -> None:
    with serving(tmp_path) as served:
        origin = Origin(f"http://127.0.0.1:{served.port}")
        ws = await websockets.connect(f"ws://127.0.0.1:{served.port}/ws", origin=origin, proxy=None)
        await asyncio.wait_for(ws.recv(), 20)
        (folder,) = tab_folders(served.root)
        served.process.send_signal(signal.SIGKILL)
        served.process.wait(10)
        # The tab's launcher sees its server gone, ends the app and removes the folder.
        await wait_until(lambda: not folder.exists(), what="the killed server's tab folder removed")
        await ws.close()
    # A folder nobody holds any more (its tab killed too, long ago) is swept by the next serve.
    stale = served.root / f"{PREFIX}stale"
    (stale / "data").mkdir(parents=True)
    (stale / LOCK_NAME).write_bytes(b"")
    then = time.time() - 2 * SWEEP_AGE
    os.utime(stale, (then, then))
    with serving(tmp_path) as again:
        assert again.lines[0] == "removed 1 folder of tabs that ended without cleaning up"
        assert not stale.exists()


def test_the_command_line_loads_no_web_server_until_serve_runs() -> None:
    probe = (
        "import sys\n"
        "from kc_tui.cli import build_parser\n"
        "build_parser().parse_args(['serve', '--port', '8000'])\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in {'aiohttp', 'textual_serve', 'jinja2'}))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.strip() == "[]"


async def drawn(ws: ClientConnection, text: bytes, timeout: float = 30.0) -> None:
    """Read the tab's drawing until ``text`` shows."""
    seen = b""
    deadline = time.monotonic() + timeout
    while text not in seen:
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"{text!r} not drawn in {timeout} s")
        try:
            message = await asyncio.wait_for(ws.recv(), left)
        except TimeoutError:
            raise AssertionError(f"{text!r} not drawn in {timeout} s: {seen[-300:]!r}") from None
        if isinstance(message, bytes):
            seen = seen[-len(text) :] + message


@pytest.mark.parametrize("how", ["closed", "cut"])
async def test_a_tab_whose_websocket_goes_away_mid_demo_ends_its_app(how: str, served: Served) -> None:
    origin = Origin(f"http://127.0.0.1:{served.port}")
    ws = await websockets.connect(f"ws://127.0.0.1:{served.port}/ws?width=100&height=30", origin=origin, proxy=None)
    await drawn(ws, b"Statistics")  # the menu
    (folder,) = tab_folders(served.root)
    await ws.send('["stdin", "d"]')
    await drawn(ws, b"Choose 2 to 4 AI players")  # the demo's set-up
    await ws.send('["stdin", "\\u0013"]')  # Ctrl+S: start
    await drawn(ws, b"Score")  # the demo's table, drawing move after move
    gone_from = time.monotonic()
    if how == "closed":
        await ws.close()
    else:
        assert ws.transport is not None
        ws.transport.abort()  # the connection cut: no closing handshake
    # The tab's launcher removes the folder once the app has ended.
    await wait_until(lambda: not folder.exists(), what="the tab's app ended and its folder removed")
    print(f"tab, websocket {how}: app ended in {time.monotonic() - gone_from:.3f} s")
    assert [line for line in served.lines if not line.startswith("Serving")] == []
