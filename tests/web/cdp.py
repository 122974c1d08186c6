"""A small client of Chromium's DevTools protocol over ``websockets``: start a headless Chromium,
open tabs, press keys, read the page, take screenshots. Only what the browser tests use."""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import urllib.request
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any

import websockets

from tests.waiting import wait_for, wait_until

CHROMIUM = "/usr/bin/chromium"
#: How often a wait reads the page (seconds): each look is a round trip to the browser.
LOOK = 0.1
#: Terminal escape sequences (CSI, OSC and two-character ones).
ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_]")
#: Without the background-networking flags the browser's own requests are refused here, and it waits.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-default-apps",
    "--mute-audio",
    "--remote-debugging-port=0",
)

#: Requests to the browser go straight to it, whatever proxy the environment names.
DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))

#: The keys pressed by name: (key, code, Windows virtual key code, text typed).
SPECIAL_KEYS: dict[str, tuple[str, str, int, str]] = {
    "enter": ("Enter", "Enter", 13, "\r"),
    "escape": ("Escape", "Escape", 27, ""),
    "tab": ("Tab", "Tab", 9, "\t"),
    "up": ("ArrowUp", "ArrowUp", 38, ""),
    "down": ("ArrowDown", "ArrowDown", 40, ""),
    "left": ("ArrowLeft", "ArrowLeft", 37, ""),
    "right": ("ArrowRight", "ArrowRight", 39, ""),
}


#: A page script that keeps every text its WebSockets receive (the terminal's output, escape
#: sequences and all) in ``window.kcText``: what the app drew, to wait for.
KEEP_TEXT = """
(() => {
  const Native = window.WebSocket;
  const decoder = new TextDecoder();
  window.kcText = "";
  const keep = (data) => {
    if (typeof data === "string") { window.kcText += data; }
    else if (data instanceof ArrayBuffer) { window.kcText += decoder.decode(data, {stream: true}); }
    else if (data instanceof Blob) { data.text().then((t) => { window.kcText += t; }); }
  };
  class Kept extends Native {
    constructor(...args) { super(...args); this.addEventListener("message", (e) => keep(e.data)); }
  }
  window.WebSocket = Kept;
})();
"""


def chromium_available() -> bool:
    return os.access(CHROMIUM, os.X_OK)


class CDPError(Exception):
    """The browser answered a command with an error, or did not answer in time."""


class Page:
    """One tab, driven over its own DevTools WebSocket."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.ids = itertools.count(1)
        self.waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        with suppress(websockets.ConnectionClosed):
            async for raw in self.ws:
                message = json.loads(raw)
                future = self.waiting.pop(message.get("id", -1), None)
                if future is not None and not future.done():
                    future.set_result(message)

    async def call(self, method: str, timeout: float = 15.0, **params: Any) -> dict[str, Any]:
        n = next(self.ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiting[n] = future
        await self.ws.send(json.dumps({"id": n, "method": method, "params": params}))
        try:
            message = await asyncio.wait_for(future, timeout)
        except TimeoutError:
            raise CDPError(f"{method}: no answer in {timeout} s") from None
        if "error" in message:
            raise CDPError(f"{method}: {message['error']}")
        result: dict[str, Any] = message.get("result", {})
        return result

    async def evaluate(self, expression: str) -> Any:
        result = await self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result.get("result", {}).get("value")

    async def wait_for(self, expression: str) -> Any:
        """The value of ``expression`` once it is truthy (polled)."""
        return await wait_until(lambda: self.evaluate(expression), what=f"{expression!r} true on the page", poll=LOOK)

    async def press(self, key: str) -> None:
        """Press and release one key: a name of :data:`SPECIAL_KEYS`, one printable character, or
        ``ctrl+`` and a letter (the terminal reads it from the key event, with no text typed)."""
        modifiers = 0
        if key.startswith("ctrl+") and len(key) == 6 and key[5].isalpha():
            modifiers, letter = 2, key[5]
            name, code, vk, text = letter, f"Key{letter.upper()}", ord(letter.upper()), ""
        elif key in SPECIAL_KEYS:
            name, code, vk, text = SPECIAL_KEYS[key]
        else:
            name, code, vk, text = key, f"Key{key.upper()}" if key.isalpha() else "", ord(key.upper()), key
        down: dict[str, Any] = {
            "type": "keyDown",
            "key": name,
            "code": code,
            "windowsVirtualKeyCode": vk,
            "modifiers": modifiers,
        }
        if text:
            down["text"] = text
        await self.call("Input.dispatchKeyEvent", **down)
        await self.call(
            "Input.dispatchKeyEvent", type="keyUp", key=name, code=code, windowsVirtualKeyCode=vk, modifiers=modifiers
        )

    async def mark(self) -> int:
        """How much the page's WebSockets received so far: a mark for :meth:`text`."""
        return int(await self.evaluate("(window.kcText || '').length"))

    async def text(self, since: int = 0) -> str:
        """What the page's WebSockets received (after the mark ``since``), escape sequences removed."""
        raw = await self.evaluate(f"(window.kcText || '').slice({int(since)})")
        return ESCAPES.sub("", str(raw))

    async def wait_for_text(self, needle: str, since: int = 0) -> None:
        """Wait until the page has received ``needle`` (after the mark ``since``)."""

        async def received() -> bool:
            return needle in await self.text(since)

        await wait_until(received, what=f"{needle!r} on the page", showing=lambda: self.text(since), poll=LOOK)

    async def screenshot(self) -> bytes:
        result = await self.call("Page.captureScreenshot", format="png")
        return base64.b64decode(result["data"])

    async def close(self) -> None:
        self.reader.cancel()
        with suppress(asyncio.CancelledError, Exception):
            await self.reader
        with suppress(Exception):
            await self.ws.close()


class Browser:
    """A headless Chromium of its own (a new empty profile), killed at the end."""

    def __init__(self, process: subprocess.Popen[bytes], port: int, profile: str) -> None:
        self.process = process
        self.port = port
        self.profile = profile

    def _http(self, path: str, method: str = "GET") -> Any:
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", method=method)
        with DIRECT.open(request, timeout=10) as answer:
            return json.loads(answer.read())

    async def open(self, url: str, width: int = 1280, height: int = 800) -> Page:
        """A new tab on ``url``, its window ``width`` x ``height`` pixels, keeping what its
        WebSockets receive as text (:data:`KEEP_TEXT`)."""
        target = await asyncio.to_thread(self._http, "/json/new?about:blank", "PUT")
        ws = await websockets.connect(target["webSocketDebuggerUrl"], max_size=64 << 20, proxy=None)
        page = Page(ws)
        metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}
        await page.call("Emulation.setDeviceMetricsOverride", **metrics)
        await page.call("Page.enable")
        await page.call("Page.addScriptToEvaluateOnNewDocument", source=KEEP_TEXT)
        await page.call("Page.navigate", url=url)
        return page

    async def close_tab(self, page: Page) -> None:
        """Close the tab (its page, its WebSocket to the server)."""
        with suppress(Exception):
            await page.call("Page.close", timeout=5)
        await page.close()


def _devtools_port(profile: str, timeout: float) -> int:
    """The port Chromium listens on for DevTools (it writes it to DevToolsActivePort)."""
    path = Path(profile) / "DevToolsActivePort"

    def written() -> int | None:
        with suppress(OSError, ValueError, IndexError):
            return int(path.read_text().splitlines()[0])
        return None

    return wait_for(written, timeout=timeout, what="Chromium's DevTools port in DevToolsActivePort")


@asynccontextmanager
async def browser(timeout: float = 20.0) -> AsyncIterator[Browser]:
    """A headless Chromium with a new empty profile, killed (and its profile removed) after."""
    profile = tempfile.mkdtemp(prefix="kc-chromium-")
    process = subprocess.Popen(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        port = await asyncio.to_thread(_devtools_port, profile, timeout)
        yield Browser(process, port, profile)
    finally:
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
        shutil.rmtree(profile, ignore_errors=True)
