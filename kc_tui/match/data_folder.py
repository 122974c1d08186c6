"""The data folder taken by the one window that saves and records (the app's, the plain mode's):
its lock (:mod:`kc_tui.records.datalock`), and while it is held the recorder of the history (the
outbox made private first) and the save writer. Another window holding the folder leaves this
one looking only (``look_only`` says why). Plain Python."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from kc_tui.config.store import data_dir
from kc_tui.match.recorder import Recorder, default_outbox, open_history
from kc_tui.match.saves import SaveWriter
from kc_tui.records import datalock
from kc_tui.util.files import make_folder


@dataclass(slots=True)
class DataFolder:
    """The data folder's lock, and its recorder and save writer (None while another window
    holds it: ``look_only`` says why). The recorder is not started: its owner listens first."""

    lock: datalock.DataLock | None
    look_only: str | None
    recorder: Recorder | None = None
    saver: SaveWriter | None = None

    @property
    def taken_over(self) -> str | None:
        """One line when the lock was left by a process that has ended, or None."""
        return self.lock.taken_over if self.lock is not None else None

    def close(self, save_wait: float, record_wait: float) -> None:
        """Finish writing the save (up to ``save_wait`` seconds), record what waits (up to
        ``record_wait``; the rest stays in the outbox for next time), then let go."""
        if self.saver is not None:
            self.saver.close(save_wait)
        if self.recorder is not None:
            self.recorder.close(record_wait)
        if self.lock is not None:
            self.lock.release()


def take_data_folder() -> DataFolder:
    """Take the data folder's lock; while it is this window's, a recorder and a save writer."""
    lock, look_only = datalock.acquire(data_dir())
    if look_only is not None:
        return DataFolder(lock, look_only)
    outbox = default_outbox()
    with contextlib.suppress(OSError):  # made private here: the recorder makes it with the umask's mode
        make_folder(outbox)
    return DataFolder(lock, None, Recorder(opener=open_history, outbox=outbox), SaveWriter())


__all__ = ["DataFolder", "take_data_folder"]
