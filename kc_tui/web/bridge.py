"""The plain page's WebSocket bridged to a plain-mode process of its own (``kings-corners play
--plain``, started by :mod:`kc_tui.web.tab` in the tab's private folder).

What the process writes goes to the page as text frames, whole lines (one frame may hold several,
a newline between two); the page shows each line as text. Each text frame from the page is one
line for the process: refused, with one line back saying why, when it is longer than
:data:`~kc_tui.web.page.LINE_MAX` characters, holds a control character (a newline would make it
two lines) or comes faster than :data:`PER_SECOND` lines a second (after a burst of
:data:`BURST`); a binary frame is refused the same way, and a frame larger than
:data:`MESSAGE_MAX` bytes closes the WebSocket. When the page goes, the process's input is
closed (the plain mode ends at the end of its input), then it is ended if it will not.

Only ``kings-corners serve`` imports this module (it loads aiohttp).
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import time
import unicodedata
from collections.abc import Callable, Mapping, Sequence

from aiohttp import WSMsgType, web

from kc_tui.i18n import _
from kc_tui.web.page import LINE_MAX

#: The largest frame read from the page (bytes): one line of LINE_MAX characters is far less.
MESSAGE_MAX = 4096
#: Lines a page may send at once, and a second after that.
BURST = 10
PER_SECOND = 5.0
#: The most read from the process at once (bytes), and the longest line passed on (characters).
READ_SIZE = 1 << 16
SHOWN_MAX = 4000
#: How long the process has to end after its input is closed, then after SIGTERM (seconds).
EXIT_WAIT = 10.0
#: The characters a line may not hold: control characters, surrogates, line and paragraph breaks.
REFUSED_CATEGORIES = frozenset({"Cc", "Cs", "Zl", "Zp"})


class Rate:
    """At most :data:`BURST` lines at once and :data:`PER_SECOND` a second after that."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.tokens = float(BURST)
        self.at = clock()

    def take(self) -> bool:
        """Whether one more line may pass now (it is counted if so)."""
        now = self.clock()
        self.tokens = min(float(BURST), self.tokens + (now - self.at) * PER_SECOND)
        self.at = now
        if self.tokens < 1.0:
            return False
        self.tokens -= 1.0
        return True


def refusal(text: str, rate: Rate) -> str | None:
    """Why the line ``text`` from the page is not passed on (one line), or None: it passes."""
    if len(text) > LINE_MAX:
        return _("Not sent: a line is at most {most} characters.").format(most=LINE_MAX)
    if any(unicodedata.category(ch) in REFUSED_CATEGORIES for ch in text):
        return _("Not sent: a line may not hold a control character.")
    if not rate.take():
        return _("Not sent: too many lines at once; wait a moment.")
    return None


def split_lines(pending: str) -> tuple[list[str], str]:
    """The whole lines of ``pending`` (their ends removed, each cut to :data:`SHOWN_MAX`) and
    what is left after the last line's end."""
    *whole, rest = pending.split("\n")
    return [line.removesuffix("\r")[:SHOWN_MAX] for line in whole], rest


class PlainTab:
    """One plain page's process and the WebSocket it is bridged to."""

    def __init__(self, websocket: web.WebSocketResponse) -> None:
        self.websocket = websocket
        self.process: asyncio.subprocess.Process | None = None

    async def run(self, command: Sequence[str], env: Mapping[str, str]) -> None:
        """Start the process, then pass lines both ways until the page or the process goes; the
        process ended after (:meth:`end`)."""
        self.process = await asyncio.create_subprocess_exec(
            *command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            env=dict(env),
        )
        out = asyncio.create_task(self.pass_out())
        try:
            await self.pass_in()
        finally:
            await self.end()
            with contextlib.suppress(asyncio.CancelledError):
                await out

    async def pass_out(self) -> None:
        """The process's lines to the page until its output ends; the WebSocket closed then."""
        assert self.process is not None and self.process.stdout is not None
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        pending = ""
        try:
            while chunk := await self.process.stdout.read(READ_SIZE):
                lines, pending = split_lines(pending + decoder.decode(chunk))
                if len(pending) > SHOWN_MAX:  # a line without an end: passed on in parts
                    lines.append(pending[:SHOWN_MAX])
                    pending = ""
                if lines:
                    await self.websocket.send_str("\n".join(lines))
            lines, _rest = split_lines(pending + decoder.decode(b"", final=True) + "\n")
            if lines != [""]:
                await self.websocket.send_str("\n".join(lines))
        except (ConnectionError, RuntimeError):
            pass  # the page is gone
        finally:
            await self.websocket.close()

    async def pass_in(self) -> None:
        """The page's lines to the process, each checked (:func:`refusal`)."""
        assert self.process is not None and self.process.stdin is not None
        rate = Rate()
        async for message in self.websocket:
            if message.type == WSMsgType.TEXT:
                why = refusal(message.data, rate)
            elif message.type == WSMsgType.BINARY:
                why = _("Not sent: a line is text.")
            else:
                continue
            if why is not None:
                await self.websocket.send_str(why)
                continue
            try:
                self.process.stdin.write((message.data + "\n").encode("utf-8"))
                await self.process.stdin.drain()
            except (ConnectionError, RuntimeError):
                break  # the process has ended

    async def end(self) -> None:
        """End the process: its input closed, then SIGTERM, then SIGKILL, each given
        :data:`EXIT_WAIT` seconds; waited for."""
        process = self.process
        if process is None:
            return
        if process.stdin is not None and not process.stdin.is_closing():
            process.stdin.close()
        for stop in (None, process.terminate, process.kill):
            if process.returncode is not None:
                return
            if stop is not None:
                with contextlib.suppress(ProcessLookupError):
                    stop()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(process.wait(), EXIT_WAIT)


__all__ = ["BURST", "MESSAGE_MAX", "PER_SECOND", "PlainTab", "Rate", "refusal", "split_lines"]
