"""Whether the terminal (or the pipe) a process talks through is gone. Plain Python.

A terminal whose window was closed (its pseudo-terminal's other side closed: the window, tmux,
an SSH connection) is hung up: reading it gives an end of input, writing it fails, and ``poll``
reports a hang-up. A pipe whose other end is closed reports one too. :func:`hung_up` asks once;
:class:`HangupWatch` waits in a thread of its own and calls back the moment it happens.
"""

from __future__ import annotations

import contextlib
import os
import select
import threading
from collections.abc import Callable, Iterable

#: What ``poll`` reports for a descriptor whose other side is gone (whatever was asked).
HANGUP = getattr(select, "POLLHUP", 0) | getattr(select, "POLLERR", 0) | getattr(select, "POLLNVAL", 0)


def hung_up(fd: int) -> bool:
    """Whether ``fd`` reports a hang-up or an error now: a terminal whose other side closed, a
    pipe whose other end is closed, a closed descriptor. Nothing is read or written."""
    try:
        poller = select.poll()
        poller.register(fd, 0)  # no event asked for: only a hang-up (or an error) is reported
        return any(events & HANGUP for _fd, events in poller.poll(0))
    except (OSError, ValueError, AttributeError):  # no poll() (Windows)
        return False


class HangupWatch:
    """A thread that calls ``gone`` once, from that thread, the moment one of ``fds`` hangs up
    (:func:`hung_up`); :meth:`stop` ends it without a call. It costs nothing meanwhile: it waits
    in ``poll`` for that and for :meth:`stop`."""

    def __init__(self, fds: Iterable[int], gone: Callable[[], None], name: str = "hangup-watch") -> None:
        self._fds = list(dict.fromkeys(fds))
        self._gone = gone
        self._wake_read, self._wake_write = os.pipe()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> None:
        if hasattr(select, "poll"):
            self._thread.start()

    def _run(self) -> None:
        poller = select.poll()
        try:
            for fd in self._fds:
                poller.register(fd, 0)
            poller.register(self._wake_read, select.POLLIN)
        except (OSError, ValueError):
            return
        while True:
            try:
                ready = poller.poll()
            except OSError:
                return
            if any(fd == self._wake_read for fd, _events in ready):
                return
            if any(events & HANGUP for _fd, events in ready):
                self._gone()
                return

    def stop(self) -> None:
        """End the watch (without calling ``gone``) and let go of its pipe."""
        with contextlib.suppress(OSError):
            os.write(self._wake_write, b"x")
        if self._thread.is_alive():
            self._thread.join(1.0)
        for fd in (self._wake_read, self._wake_write):
            with contextlib.suppress(OSError):
                os.close(fd)


__all__ = ["HANGUP", "HangupWatch", "hung_up"]
