"""One data folder, one writer: the lock that lets a single app window save and record. Plain Python.

The window that holds ``data_dir()/lock`` (an advisory ``flock`` on the file; the system drops it
when the process ends, even by ``kill -9``) saves the match in progress and records the history.
Another window on the same data folder can look (Stats, Rules, Replay, a demo) but cannot resume
or record the match the first one holds: :func:`acquire` says so in one line, with the holder's
process id and how to end it.

The holder writes its process id in the file, and wipes it when it lets go. An id found there by
a window that gets the lock is stale: its process ended without letting go (killed, or it
crashed); the lock says so (:attr:`DataLock.taken_over`).
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from kc_tui.config.store import ensure_data_dir
from kc_tui.i18n import _
from kc_tui.util.printable import one_line

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
    #: The process id a holder that ended without letting go left in the file, or None.
    left_by: int | None = None

    @property
    def taken_over(self) -> str | None:
        """One line saying that the lock was left by a process that has ended, or None."""
        if self.left_by is None:
            return None
        # Translators: {folder} is the data folder, {pid} a process id.
        return _(
            "The data folder {folder} was still marked as used by Kings Corners"
            " (process {pid}), which has ended without letting go: this window takes it over."
        ).format(folder=one_line(str(self.path.parent)), pid=self.left_by)

    def release(self) -> None:
        if self.fd is not None:
            with contextlib.suppress(OSError):  # no process id left behind: the next window finds none
                os.ftruncate(self.fd, 0)
            try:
                os.close(self.fd)  # closing the file drops the lock
            finally:
                self.fd = None


def acquire(
    folder: Path, refusal: Callable[[Path, int | None], str] | None = None
) -> tuple[DataLock | None, str | None]:
    """Take the lock of ``folder``: (the lock, None), or (None, why this window may only look)
    when another window holds it; ``refusal`` (default :func:`held_message`) says why, given the
    folder and the holder's process id. A folder where the lock cannot be made (read-only, full,
    not a folder) gives a lock that holds nothing: nothing can be written there anyway, and the
    save and the history say so themselves."""
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
        return None, (refusal or held_message)(folder, holder)
    left_by = _holder(fd)
    if left_by is not None:
        log.warning("the data folder lock %s was left by process %d, which has ended: taken over", path, left_by)
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
    except OSError:
        pass  # the pid is only a courtesy for the message of another window
    return DataLock(path, fd, left_by), None


def held_message(folder: Path, holder: int | None) -> str:
    """Why this window only looks: another holds ``folder``, whose process id is ``holder``
    (None: not known); one line, saying how to end that window (``kill`` and its id when that
    process runs here)."""
    shown = one_line(str(folder))
    if holder is None or not process_exists(holder):  # not written yet; another machine's or container's
        # Translators: {folder} is the data folder; Stats, Rules, Replay are the menu's entries.
        return _(
            "Another Kings Corners window is using {folder}: this window can show Stats, Rules, Replay and"
            " demos, but cannot resume, save or record a match. Close that window first."
        ).format(folder=shown)
    # Translators: {pid} is a process id; "kill {pid}" is a command, typed as it is.
    return _(
        "Another Kings Corners window (process {pid}) is using {folder}: this window can show Stats, Rules,"
        " Replay and demos, but cannot resume, save or record a match. Close that window, or end it with:"
        " kill {pid}"
    ).format(folder=shown, pid=holder)


def host_refused(folder: Path, holder: int | None) -> str:
    """Why ``kings-corners host`` does not start: another program, of process id ``holder`` (None:
    not known), holds ``folder``, where a second table would write over the first one's files."""
    shown = one_line(str(folder))
    if holder is None or not process_exists(holder):
        # Translators: {folder} is the data folder.
        return _(
            "Another Kings Corners program is using {folder}: a table hosted here now would write over its"
            " files. End that program first, or host with another data folder (KINGS_CORNERS_DATA)."
        ).format(folder=shown)
    # Translators: {pid} is a process id; "kill {pid}" is a command, typed as it is.
    return _(
        "Another Kings Corners program (process {pid}) is using {folder}: a table hosted here now would write"
        " over its files. End it first (kill {pid}), or host with another data folder (KINGS_CORNERS_DATA)."
    ).format(folder=shown, pid=holder)


def process_exists(pid: int) -> bool:
    """Whether a process of id ``pid`` runs on this machine (one of another user counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: another user's
        return True
    return True


def _holder(fd: int) -> int | None:
    """The process id the lock's holder wrote, if it reads as one."""
    try:
        text = os.pread(fd, 16, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() and len(text) < 10 and int(text) > 0 else None


__all__ = ["LOCK_NAME", "DataLock", "acquire", "held_message", "host_refused", "process_exists"]
