"""The app's drivers: Textual's own (:class:`LinuxDriver`, and textual-serve's), made to end with their terminal.

Textual writes to the terminal from a thread of its own through a queue of 30 writes. When the
terminal is gone (its window closed, tmux killed, the SSH connection lost), that thread dies of
the first failed write, the queue fills, and the app stops for good in the 31st write, holding
the data folder. Here, instead:

- :class:`TerminalOutput` takes the place of that thread. A write that fails (EIO, EPIPE) marks
  the output dead: what follows is dropped, and the app is asked to end. A write waits while the
  terminal is slow, as Textual's does, but in short steps (signal handlers run meanwhile), and
  once a signal came to end the app it waits :data:`OUTPUT_END_WAIT` seconds at most (a Quit,
  :data:`OUTPUT_CLOSE_WAIT`): a terminal that takes nothing does not keep the app from ending.
- :class:`TerminalDriver` watches the terminal (:class:`~kc_tui.util.terminal.HangupWatch` on the
  input and the output) and ends the app the moment it hangs up, or when reading it fails; it
  stops reading a terminal that only gives an end of input.

- :class:`kc_tui.ui.tab_driver.WebTabDriver` does the same for textual-serve's driver (a browser
  tab, ``serve``): its packets go through a :class:`TerminalOutput`.

The app ends as a confirmed Quit does (``app.exit()``): the match is saved after every move, and
quitting waits for the last save to be written.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import select
import threading
import time
from collections.abc import Callable
from typing import Any, TextIO

from textual.drivers._writer_thread import WriterThread
from textual.drivers.linux_driver import LinuxDriver

from kc_tui.util.terminal import HangupWatch

#: How long a write waits at a time for room in the queue (seconds): between two waits, the
#: main thread runs its signal handlers.
WRITE_STEP = 0.1
#: How long, once a signal came to end the app, the output may keep a write waiting in all
#: (seconds): then what it has not written is dropped.
OUTPUT_END_WAIT = 1.0
#: How long the output may take to write what is queued when the app ends of itself (Quit): a
#: slow terminal still gets the sequences that put it back as it was.
OUTPUT_CLOSE_WAIT = 5.0


class TerminalOutput(WriterThread):
    """Textual's output thread, with writes that cannot stop the app: it writes to the file's
    descriptor itself (no lock of Python's held while the terminal is slow), gathers what is
    queued into one write, and on a failed write marks the output dead (:attr:`dead`, the
    reason), drops the rest and calls ``gone`` (from whichever thread found it)."""

    def __init__(self, file: TextIO, gone: Callable[[], None], encoding: str | None = None) -> None:
        super().__init__(file)
        self._fd = file.fileno()
        self._encoding = encoding or getattr(file, "encoding", None) or "utf-8"
        self._errors = "strict" if encoding else getattr(file, "errors", None) or "strict"
        self._gone = gone
        self._lock = threading.Lock()
        #: Why the output is dead (nothing more is written), or None.
        self.dead: str | None = None
        self._deadline: float | None = None

    # ------------------------------------------------------------------ the app's side
    def write(self, text: str) -> None:
        self._put(text)

    def write_bytes(self, data: bytes) -> int:
        """Queue ``data`` to be written as it is (an output made with ``encoding="latin-1"``,
        whose text is the bytes one for one); its length."""
        self._put(data.decode("latin-1"))
        return len(data)

    def _put(self, item: str | None) -> bool:
        """Queue ``item``, waiting while the queue is full: False when it was dropped (the output
        dead, or the app ending and the wait over)."""
        while True:
            if self.dead is not None and item is not None:
                return False
            try:
                self._queue.put(item, timeout=WRITE_STEP)
                return True
            except queue.Full:
                deadline = self._deadline
                if deadline is not None and time.monotonic() >= deadline:
                    self.die("the terminal took no output")
                    return False

    def hurry(self, seconds: float = OUTPUT_END_WAIT) -> None:
        """From now on, a write waits ``seconds`` at most in all (the app is ending). Safe in a
        signal handler: it takes no lock (the handler may interrupt the thread that holds one)."""
        end = time.monotonic() + seconds
        deadline = self._deadline
        if deadline is None or end < deadline:
            self._deadline = end

    def die(self, reason: str) -> None:
        """Mark the output dead (the first reason stays) and call ``gone`` once."""
        with self._lock:
            if self.dead is not None:
                return
            self.dead = reason
        self._gone()

    def stop(self) -> None:
        """End the thread once what is queued is written: :data:`OUTPUT_CLOSE_WAIT` seconds at
        most (less when :meth:`hurry` said so)."""
        self.hurry(OUTPUT_CLOSE_WAIT)
        self._put(None)
        deadline = self._deadline
        self.join(max(0.0, (deadline or 0.0) - time.monotonic()))

    # ------------------------------------------------------------------ the thread
    def run(self) -> None:
        get, get_nowait = self._queue.get, self._queue.get_nowait
        with contextlib.suppress(OSError, ValueError):
            self._file.flush()  # what was printed before the app started comes first
        ended = False
        while not ended:
            first = get()
            pieces = [] if first is None else [first]
            ended = first is None
            while not ended:
                try:
                    more = get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    ended = True
                else:
                    pieces.append(more)
            if pieces and self.dead is None:
                self._send("".join(pieces).encode(self._encoding, self._errors))

    def _send(self, data: bytes) -> None:
        view = memoryview(data)
        while view and self.dead is None:
            try:
                view = view[os.write(self._fd, view) :]
            except BlockingIOError:  # someone made the terminal non-blocking: wait for room
                select.select([], [self._fd], [], WRITE_STEP)
                deadline = self._deadline
                if deadline is not None and time.monotonic() >= deadline:
                    self.die("the terminal took no output")
            except OSError as exc:  # EIO, EPIPE: the terminal is gone
                self.die(os.strerror(exc.errno) if exc.errno else str(exc))


class TerminalDriver(LinuxDriver):
    """Textual's driver for a terminal on Linux and macOS, with :class:`TerminalOutput` and a
    watch on the terminal: when it is gone, the app ends (``app.exit()``)."""

    def __init__(self, app: Any, *, debug: bool = False, mouse: bool = True, size: tuple[int, int] | None = None):
        self._output: TerminalOutput | None = None
        self._watch: HangupWatch | None = None
        self._ended = threading.Event()
        super().__init__(app, debug=debug, mouse=mouse, size=size)

    # Textual's start_application_mode makes its output thread here, then starts it: a
    # TerminalOutput on the same file takes its place.
    @property
    def _writer_thread(self) -> TerminalOutput | None:
        return self._output

    @_writer_thread.setter
    def _writer_thread(self, thread: WriterThread | None) -> None:
        if thread is None or isinstance(thread, TerminalOutput):
            self._output = thread
        else:
            assert self._file is not None  # Textual made its thread on it
            self._output = TerminalOutput(self._file, self.terminal_gone)

    def start_application_mode(self) -> None:
        if self._ended.is_set():  # the SIGCONT a hang-up sends with SIGHUP: nothing to resume
            return
        self._loop = asyncio.get_running_loop()
        fds = [self.fileno]
        if self._file is not None:
            with contextlib.suppress(OSError, ValueError):
                fds.append(self._file.fileno())
        self._watch = HangupWatch(fds, self.terminal_gone, name="kc-terminal-watch")
        self._watch.start()
        super().start_application_mode()  # type: ignore[no-untyped-call]

    def run_input_thread(self) -> None:
        try:
            super().run_input_thread()
        except OSError:  # reading the terminal fails: it is gone
            self.terminal_gone()

    def hurry(self) -> None:
        """The app is ending: the output waits :data:`OUTPUT_END_WAIT` seconds at most from now
        (safe in a signal handler)."""
        if self._output is not None:
            self._output.hurry()

    def terminal_gone(self) -> None:
        """The terminal is gone (from any thread): drop the output, stop reading, end the app."""
        if self._ended.is_set():
            return
        self._ended.set()
        if self._output is not None:
            self._output.die("the terminal is gone")
        # A hung-up terminal reads as an end of input at once, over and over: stop reading it
        # (disable_input finds the input stopped and leaves it so).
        self.exit_event.set()
        with contextlib.suppress(RuntimeError):  # the loop is closed: the app has ended
            self._loop.call_soon_threadsafe(self._app.exit)

    def close(self) -> None:
        if self._watch is not None:
            self._watch.stop()
            self._watch = None
        super().close()


__all__ = ["OUTPUT_CLOSE_WAIT", "OUTPUT_END_WAIT", "TerminalDriver", "TerminalOutput"]
