"""A real ``kings-corners serve`` for the tests: a process of its own on a free loopback port; a
tab of it driven over textual-serve's WebSocket (:func:`tab`); the app started as a served tab
starts it, for ``App.run_test`` (:func:`served_tab_app`); and a plain TCP listener that records
every connection made to it (:func:`listening`)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import websockets
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed
from websockets.typing import Origin

from kc_tui.net.allowlist import Endpoint
from kc_tui.web.folders import PREFIX, new_tab_folder, ready_root
from kc_tui.web.tab import app_environment
from tests.waiting import wait_until


@dataclass
class Served:
    """A running ``kings-corners serve``: its page's address, its port and root, its process and
    every line it wrote (standard output and error together)."""

    url: str
    port: int
    root: Path
    process: subprocess.Popen[str]
    lines: list[str]


def tab_folders(root: Path) -> set[Path]:
    """The tabs' folders under serve's root."""
    return {p for p in root.iterdir() if p.name.startswith(PREFIX)}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def serving(tmp_path: Path, *options: str, lang: str | None = None) -> Iterator[Served]:
    """``kings-corners serve`` in a process of its own on a free port, its root under
    ``tmp_path``, in the language ``lang`` (``--lang``) if given, once it says it is serving (it
    names its address); stopped by SIGTERM at the end."""
    root = tmp_path / "root"
    port = free_port()
    env = {**os.environ, "KINGS_CORNERS_DATA": str(tmp_path / "serve-data")}
    language = ["--lang", lang] if lang else []
    command = [sys.executable, "-m", "kc_tui", *language, "serve", "--port", str(port), "--root", str(root), *options]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, start_new_session=True
    )
    assert process.stdout is not None
    lines: list[str] = []
    ready = threading.Event()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line.rstrip("\n"))
            if f":{port}/ " in line:  # the address served, said in any language
                ready.set()
        ready.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    assert ready.wait(20), "serve said nothing in 20 s"
    assert process.poll() is None, f"serve ended: {lines}"
    try:
        yield Served(f"http://127.0.0.1:{port}/", port, root, process, lines)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)
        reader.join(5)


@dataclass
class Listener:
    """A plain TCP server on a free loopback port: every connection it accepted (its peer), each
    closed at once."""

    port: int
    accepted: list[tuple[str, int]]

    def url(self, path: str = "/watch", host: str = "127.0.0.1") -> str:
        """A table's address at this port (``path``: ``/watch`` or a seat's)."""
        return f"ws://{host}:{self.port}{path}"


@asynccontextmanager
async def listening() -> AsyncIterator[Listener]:
    """A :class:`Listener` on the running loop, closed at the end."""
    accepted: list[tuple[str, int]] = []

    async def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        accepted.append(writer.get_extra_info("peername")[:2])
        writer.close()

    server = await asyncio.start_server(accept, "127.0.0.1", 0)
    try:
        yield Listener(server.sockets[0].getsockname()[1], accepted)
    finally:
        server.close()
        await server.wait_closed()


@contextmanager
def served_tab_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tables: Sequence[Endpoint] = ()) -> Iterator[Any]:
    """The app as a served tab's launcher starts it (``python -m kc_tui``: the menu), with a tab's
    folder under a root in ``tmp_path`` and the tables it may join in its environment
    (:func:`kc_tui.web.tab.app_environment`); the folder released at the end."""
    from kc_tui.cli import build_parser
    from kc_tui.ui.launch import build_app

    folder = new_tab_folder(ready_root(tmp_path / "root"))
    try:
        for name, value in app_environment(folder.path, tables).items():
            monkeypatch.setenv(name, value)
        yield build_app("menu", build_parser().parse_args([]))
    finally:
        folder.release()


#: An escape sequence in a terminal's output (CSI, OSC, or a two-character one).
_ESCAPE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")


class Tab:
    """One browser tab of a served app, over textual-serve's WebSocket as a page talks to it: keys
    sent as ``stdin``, what the app draws read as text (escape sequences left out)."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        #: Everything drawn so far, and what is drawn since the last :meth:`shows`.
        self.drawn = ""
        self.text = ""
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for data in self.ws:
                if isinstance(data, bytes):
                    text = _ESCAPE.sub("", data.decode("utf-8", "replace"))
                    self.drawn += text
                    self.text += text

    async def keys(self, text: str) -> None:
        await self.ws.send(json.dumps(["stdin", text]))

    async def shows(self, what: str) -> None:
        """Wait until the app has drawn ``what`` since the last wait (or from the start)."""
        await wait_until(lambda: what in self.text, what=f"the tab showing {what!r}", showing=lambda: self.text)
        self.text = self.text[self.text.index(what) + len(what) :]


@asynccontextmanager
async def tab(served: Served) -> AsyncIterator[Tab]:
    """A tab opened on ``served`` (its app on its menu), closed at the end."""
    origin = Origin(f"http://127.0.0.1:{served.port}")
    async with websockets.connect(f"ws://127.0.0.1:{served.port}/ws", origin=origin, proxy=None) as ws:
        opened = Tab(ws)
        try:
            await opened.shows("Quit")
            yield opened
        finally:
            opened._reader.cancel()
