"""The app's driver in a browser tab (``serve``): textual-serve's own (:class:`WebDriver`), its
output through a :class:`~kc_tui.ui.terminal.TerminalOutput`.

Textual-serve's driver writes its packets to the standard output, a pipe the server reads, from
the event loop itself: once the server stops reading (a tab's connection stalled, then went
away), the app waits in that write for good and never reads the quit the server sends. Here a
server that stops reading cannot stop the app, the quit ends it within
:data:`~kc_tui.ui.terminal.OUTPUT_END_WAIT`, and a server gone (the pipe closed) ends it at once.
"""

from __future__ import annotations

import contextlib
import threading
from functools import partial
from typing import Any

from textual.drivers.web_driver import WebDriver

from kc_tui.ui.terminal import TerminalOutput


class WebTabDriver(WebDriver):
    """textual-serve's driver for a browser tab, its packets to the server through a
    :class:`TerminalOutput`."""

    def __init__(self, app: Any, *, debug: bool = False, mouse: bool = True, size: tuple[int, int] | None = None):
        super().__init__(app, debug=debug, mouse=mouse, size=size)
        self._ended = threading.Event()
        assert self.stdout is not None  # textual-serve reads the app's standard output
        self._output = TerminalOutput(self.stdout, self._server_gone, encoding="latin-1")
        self._output.start()
        self._write = partial(TerminalOutput.write_bytes, self._output)

    def hurry(self) -> None:
        """The app is ending: the output waits :data:`~kc_tui.ui.terminal.OUTPUT_END_WAIT` seconds at most from now."""
        self._output.hurry()

    def on_meta(self, packet_type: str, payload: dict[str, object]) -> None:
        if packet_type == "quit":  # the tab is gone: what is not written by then is for nobody
            self._output.hurry()
        super().on_meta(packet_type, payload)

    def _server_gone(self) -> None:
        if not self._ended.is_set():
            self._ended.set()
            with contextlib.suppress(RuntimeError):  # the loop is closed: the app has ended
                self._loop.call_soon_threadsafe(self._app.exit)

    def close(self) -> None:
        super().close()
        self._output.stop()


__all__ = ["WebTabDriver"]
