"""The app's log: one file in the data folder (``kings-corners.log``), capped in size, at the
level the command line asks for (``--log-level``, warning unless told). Set up once, for the run of the
command line (:func:`logging_to_file`); every module logs to ``logging.getLogger(__name__)``.

The file is opened, and its folder made, at the first record (the file with mode 0600, the folder
0700): a run that logs nothing touches no file, nor looks for the data folder. A log that cannot
be written is dropped: it never stops the app nor prints over its screen. Nothing logged names a
card a player may not see (hands, the stock): a fault says what went wrong, not which cards were held.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO

LOG_NAME = "kings-corners.log"
#: The levels ``--log-level`` takes, most told first.
LOG_LEVELS: tuple[str, ...] = ("debug", "info", "warning", "error")
DEFAULT_LOG_LEVEL = "warning"
#: The file is set aside as ``kings-corners.log.1`` (one kept) when a record would take it past this.
LOG_MAX_BYTES = 1 << 20
#: The loggers of the app's packages: the file takes their records (other libraries' stay theirs).
LOGGERS: tuple[str, ...] = ("kc_tui", "ai")
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class LogFile(logging.Handler):
    """The records written to ``kings-corners.log`` in ``folder`` (None: the data folder as it is
    at each record, so the file follows $KINGS_CORNERS_DATA). The file is set aside as
    ``<name>.1`` (over the one before) when a record would take it past ``max_bytes``."""

    def __init__(self, folder: Path | None = None, max_bytes: int = LOG_MAX_BYTES) -> None:
        super().__init__()
        self.folder = folder
        self.max_bytes = max_bytes
        self._file: IO[str] | None = None
        self._path: Path | None = None
        self.setFormatter(logging.Formatter(LOG_FORMAT))

    @property
    def path(self) -> Path:
        """Where the next record goes."""
        if self.folder is not None:
            return self.folder / LOG_NAME
        from kc_tui.config.store import data_dir  # platformdirs loads when something is logged

        return data_dir() / LOG_NAME

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = self.format(record) + "\n"
            path = self.path
            if self._file is not None and path != self._path:
                self._close_file()
            size = len(line.encode("utf-8", "backslashreplace"))
            if self._file is not None and self._file.tell() + size > self.max_bytes:
                self._close_file()
                os.replace(path, path.with_name(path.name + ".1"))
            if self._file is None:
                self._file, self._path = _open_log(path), path
            self._file.write(line)
            self._file.flush()
        except Exception:
            self.handleError(record)

    def handleError(self, record: logging.LogRecord) -> None:
        """A record that cannot be written is dropped (the disk is full, the folder is read-only...)."""

    def _close_file(self) -> None:
        if self._file is not None:
            self._file.close()
        self._file = self._path = None

    def close(self) -> None:
        self.acquire()
        try:
            self._close_file()
        finally:
            self.release()
        super().close()


def _open_log(path: Path) -> IO[str]:
    """The log file at ``path`` opened to append, made (and its folder) private from the start:
    mode 0600 (the folder 0700), whatever the umask."""
    from kc_tui.util.files import PRIVATE_FILE, make_folder

    make_folder(path.parent)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags, PRIVATE_FILE)
    try:
        return os.fdopen(fd, "a", encoding="utf-8", errors="backslashreplace")
    except BaseException:
        os.close(fd)
        raise


@contextlib.contextmanager
def logging_to_file(level: str = DEFAULT_LOG_LEVEL, folder: Path | None = None) -> Iterator[LogFile]:
    """While it lasts (a run of the command line), the records of the app's loggers at ``level``
    (one of :data:`LOG_LEVELS`) and above go to ``kings-corners.log`` in ``folder`` (None: the
    data folder). After it, the loggers are as they were."""
    handler = LogFile(folder)
    handler.setLevel(level.upper())
    loggers = [logging.getLogger(name) for name in LOGGERS]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.addHandler(handler)
        if handler.level < logger.getEffectiveLevel():  # debug and info reach the file too
            logger.setLevel(handler.level)
    try:
        yield handler
    finally:
        for logger, before in zip(loggers, levels, strict=True):
            logger.removeHandler(handler)
            logger.setLevel(before)
        handler.close()


__all__ = ["DEFAULT_LOG_LEVEL", "LOG_LEVELS", "LOG_NAME", "LogFile", "logging_to_file"]
