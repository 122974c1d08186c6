"""One data folder, one writer: the lock that lets a single app window save and record. Plain Python.

The window that holds ``data_dir()/lock`` (an advisory ``flock`` on the file; the system drops it
when the process ends, even by ``kill -9``) saves the match in progress and records the history.
Another window on the same data folder can look (Stats, Rules, Replay, a demo) but cannot resume
or record the match the first one holds: :func:`acquire` says so in one line.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

from kc_tui.config.store import ensure_data_dir
from kc_tui.util.text import one_line

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: one window is trusted to be the only one
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

LOCK_NAME = "lock"


@dataclass
class DataLock:
    """The lock on a data folder, held until :meth:`release` (or the process ends)."""

    path: Path
    fd: int | None

    def release(self) -> None:
        if self.fd is not None:
            try:
                os.close(self.fd)  # closing the file drops the lock
            finally:
                self.fd = None


def acquire(folder: Path) -> tuple[DataLock | None, str | None]:
    """Take the lock of ``folder``: (the lock, None), or (None, why this window may only look)
    when another window holds it. A folder where the lock cannot be made (read-only, full, not a
    folder) gives a lock that holds nothing: nothing can be written there anyway, and the save
    and the history say so themselves."""
    path = folder / LOCK_NAME
    if fcntl is None:  # pragma: no cover
        return DataLock(path, None), None
    try:
        ensure_data_dir(folder)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except OSError as exc:
        log.warning("the data folder lock %s cannot be made: %s", path, exc)
        return DataLock(path, None), None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        holder = _holder(fd)
        os.close(fd)
        who = f" (process {holder})" if holder else ""
        return None, (
            f"Another Kings Corners window{who} is using {one_line(str(folder))}: this window can show Stats,"
            " Rules, Replay and demos, but cannot resume, save or record a match."
        )
    try:
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
    except OSError:
        pass  # the pid is only a courtesy for the message of another window
    return DataLock(path, fd), None


def _holder(fd: int) -> int | None:
    """The process id the lock's holder wrote, if it reads as one."""
    try:
        text = os.pread(fd, 16, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() and len(text) < 10 else None


__all__ = ["LOCK_NAME", "DataLock", "acquire"]
