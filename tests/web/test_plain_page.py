"""The plain page of ``kings-corners serve`` (``/plain``): the plain mode's lines in a log a
screen reader reads, bridged over a WebSocket to a ``kings-corners play --plain`` process of its
own, in a private folder like a tab's app, ended when the page goes; the lines shown as text; a
line from the page checked (its length, control characters, how fast lines come), and a
WebSocket from another site's page refused. A real serve and the real plain mode; the page in a
real headless Chromium (:mod:`tests.web.cdp`)."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import websockets
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.typing import Origin

from kc_tui.web.bridge import BURST, MESSAGE_MAX, PER_SECOND, Rate, refusal, split_lines
from kc_tui.web.page import LINE_MAX
from tests.waiting import wait_until

from .cdp import CHROMIUM, Page, browser, chromium_available
from .servekit import Served, serving, tab_folders

TOO_LONG = f"Not sent: a line is at most {LINE_MAX} characters."
CONTROL = "Not sent: a line may not hold a control character."
TOO_FAST = "Not sent: too many lines at once; wait a moment."
NOT_TEXT = "Not sent: a line is text."
#: The plain page's log as lines (each a paragraph's text), in the page.
LOG = "Array.from(document.querySelectorAll('#log p')).map((p) => p.textContent)"


class Clock:
    """A clock the test moves."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_rate_lets_a_burst_through_then_five_lines_a_second() -> None:
    clock = Clock()
    rate = Rate(clock)
    assert [rate.take() for _ in range(BURST + 1)] == [True] * BURST + [False]
    clock.now += 1 / PER_SECOND
    assert rate.take() and not rate.take()
    clock.now += 3600  # a long pause gives back the burst, no more
    assert [rate.take() for _ in range(BURST + 1)] == [True] * BURST + [False]


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("x" * (LINE_MAX + 1), TOO_LONG),
        ("7h north\nquit", CONTROL),
        ("end\r", CONTROL),
        ("\x1b[2Jhand", CONTROL),
        ("hand\x00", CONTROL),
        ("hand\u2028quit", CONTROL),
        ("\ud800", CONTROL),
    ],
    ids=["too-long", "newline", "return", "escape", "nul", "line-separator", "surrogate"],
)
def test_a_line_too_long_or_with_a_control_character_is_refused(line: str, said: str) -> None:
    assert refusal(line, Rate()) == said


@pytest.mark.parametrize("line", ["", "7h north", "x" * LINE_MAX, "<b>Ben</b> & 7♠", "ย้าย\u200bไป", "\u202eevil"])
def test_a_line_of_text_passes(line: str) -> None:
    assert refusal(line, Rate()) is None


def test_the_processes_output_is_cut_into_whole_lines() -> None:
    assert split_lines("one\r\ntwo\nthr") == (["one", "two"], "thr")
    assert split_lines("no end yet") == ([], "no end yet")
    assert split_lines("x" * 5000 + "\n")[0] == ["x" * 4000]


def origin(served: Served) -> Origin:
    return Origin(f"http://127.0.0.1:{served.port}")


def plain_url(served: Served) -> str:
    return f"ws://127.0.0.1:{served.port}/plain/ws"


class Frames:
    """Every frame a plain tab's WebSocket receives, read as they come."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.got: list[str | bytes] = []
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for frame in self.ws:
                self.got.append(frame)

    async def after(self, line: str | bytes, wanted: Callable[[str | bytes], bool]) -> str | bytes:
        """Send ``line``, then wait for a frame received after it that is ``wanted``."""
        mark = len(self.got)
        await self.ws.send(line)
        return await wait_until(
            lambda: next((f for f in self.got[mark:] if wanted(f)), None),
            what=f"an answer to {line!r}",
            showing=lambda: self.got[mark:],
        )


@asynccontextmanager
async def plain_tab(served: Served) -> AsyncIterator[tuple[Frames, Path]]:
    """A plain page's WebSocket on ``served``, once the plain mode has spoken, and its folder."""
    async with websockets.connect(plain_url(served), origin=origin(served), proxy=None) as ws:
        frames = Frames(ws)
        try:
            await wait_until(lambda: frames.got, what="the plain mode's first lines")
            (folder,) = await wait_until(lambda: tab_folders(served.root) or None, what="the plain tab's folder")
            yield frames, folder
        finally:
            frames.reader.cancel()


async def test_a_plain_tab_from_another_sites_page_is_refused_and_nothing_starts(served: Served) -> None:
    for other in ("http://evil.example", f"http://evil.example:{served.port}", "null"):
        with pytest.raises(InvalidStatus) as refused:
            await websockets.connect(plain_url(served), origin=Origin(other), proxy=None)
        assert refused.value.response.status_code == 403
    assert tab_folders(served.root) == set()


async def test_hostile_lines_are_refused_in_one_line_each_and_the_game_goes_on(served: Served) -> None:
    async with plain_tab(served) as (frames, folder):
        assert await frames.after("x" * (LINE_MAX + 1), lambda f: f == TOO_LONG)
        for line in ("help\nquit", "quit\r", "\x1b]0;title\x07", "\x03", "hand\u2028quit"):
            assert await frames.after(line, lambda f: f == CONTROL)
        assert await frames.after(b"quit\n", lambda f: f == NOT_TEXT)
        refusals = {TOO_LONG, CONTROL, NOT_TEXT, TOO_FAST}
        assert refusals.isdisjoint(frames.got[:1])
        # The game is still there: a line of text is answered by the plain mode.
        assert await frames.after("help", lambda f: f not in refusals)
        # Lines faster than a person types: refused past the burst.
        for _ in range(4 * BURST):
            await frames.ws.send("hand")
        await wait_until(lambda: TOO_FAST in frames.got, what="lines too fast refused", showing=lambda: frames.got)
        assert folder.is_dir()
    await wait_until(lambda: not folder.exists(), what="the plain tab's folder removed")


async def test_a_frame_larger_than_a_line_can_be_closes_the_plain_tab(served: Served) -> None:
    async with plain_tab(served) as (frames, folder):
        await frames.ws.send("x" * (MESSAGE_MAX + 1))
        await wait_until(lambda: frames.reader.done(), what="the WebSocket closed")
        assert frames.ws.close_code == 1009
    await wait_until(lambda: not folder.exists(), what="the plain tab's folder removed")
    assert [line for line in served.lines if "http://127.0.0.1" not in line] == []


async def log_lines(page: Page) -> list[str]:
    lines: list[str] = await page.evaluate(LOG)
    return lines


needs_chromium = pytest.mark.skipif(
    not chromium_available(), reason=f"Chromium is not installed at {CHROMIUM} (.ci/run installs Debian's chromium)"
)


@needs_chromium
async def test_a_line_typed_on_the_plain_page_is_answered_and_markup_shows_as_text(served: Served) -> None:
    async with browser() as b:
        page = await b.open(served.url + "plain")
        await page.wait_for("document.querySelectorAll('#log p').length > 0")
        (folder,) = await wait_until(lambda: tab_folders(served.root) or None, what="the plain tab's folder")
        assert await page.evaluate("document.activeElement && document.activeElement.id") == "line"
        # A line typed and sent with Enter: the plain mode answers it.
        await page.call("Input.insertText", text="help")
        await page.press("enter")
        shown = await wait_until(lambda: page_answer(page, "> help"), what="the plain mode's answer to help", poll=0.1)
        assert shown
        # Markup typed is text: shown as typed, and as the plain mode quotes it back, no element
        # made of it.
        markup = "<b>Ben</b><img src=x onerror=\"document.title='owned'\">"
        await page.call("Input.insertText", text=markup)
        await page.press("enter")

        async def quoted() -> bool:
            return any("<b" in line for line in await page_answer(page, "> " + markup) or [])

        await wait_until(quoted, what="the plain mode quoting the markup", showing=lambda: log_lines(page), poll=0.1)
        assert await page.evaluate("document.querySelectorAll('#log b, #log img').length") == 0
        assert await page.evaluate("document.title") != "owned"
        # The page goes: its plain mode ends and its folder is removed.
        await b.close_tab(page)
        await wait_until(lambda: not folder.exists(), what="the plain tab's folder removed")


async def page_answer(page: Page, typed: str) -> list[str] | None:
    """The lines the page shows after the line ``typed`` (its echo), once there are some."""
    lines = await log_lines(page)
    if typed not in lines:
        return None
    after = lines[len(lines) - lines[::-1].index(typed) :]
    return after or None


async def test_serve_stopped_ends_its_plain_tabs_and_removes_their_folders(tmp_path: Path) -> None:
    with serving(tmp_path) as served:
        async with plain_tab(served) as (_frames, folder):
            served.process.send_signal(signal.SIGTERM)
            assert await asyncio.to_thread(served.process.wait, 60) == 0
        await wait_until(lambda: not folder.exists(), what="the plain tab's folder removed")
        assert tab_folders(served.root) == set()
        assert [line for line in served.lines if "http://127.0.0.1" not in line] == []
