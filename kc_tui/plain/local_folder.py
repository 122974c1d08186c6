"""The data folder while the plain mode holds it, taken as the app takes it: its lock (one
window saves and records), the recorder of the history (in its thread, the outbox kept on disk)
and the save writer. Another window holding the folder leaves this one looking only."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from kc_tui.config.store import data_dir
from kc_tui.match.recorder import Recorder, default_outbox, open_history
from kc_tui.match.saves import SaveWriter
from kc_tui.records import datalock
from kc_tui.util.files import make_folder

#: How long letting go waits for the last save and for the history to record what waits (seconds).
SAVE_CLOSE_WAIT = 5.0
RECORDER_CLOSE_WAIT = 2.0


@dataclass(slots=True)
class Folder:
    """The data folder's lock, recorder and save writer (None while another window holds it:
    ``look_only`` says why)."""

    lock: datalock.DataLock | None
    look_only: str | None
    recorder: Recorder | None = None
    saver: SaveWriter | None = None

    @classmethod
    def take(cls) -> Folder:
        lock, look_only = datalock.acquire(data_dir())
        if look_only is not None:
            return cls(lock, look_only)
        outbox = default_outbox()
        with contextlib.suppress(OSError):  # made private here: the recorder makes it with the umask's mode
            make_folder(outbox)
        recorder = Recorder(opener=open_history, outbox=outbox)
        recorder.start()
        return cls(lock, None, recorder, SaveWriter())

    @property
    def taken_over(self) -> str | None:
        """One line when the lock was left by a process that has ended, or None."""
        return self.lock.taken_over if self.lock is not None else None

    def close(self) -> None:
        """Finish writing the save, record what waits (the rest stays in the outbox), let go."""
        if self.saver is not None:
            self.saver.close(SAVE_CLOSE_WAIT)
        if self.recorder is not None:
            self.recorder.close(RECORDER_CLOSE_WAIT)
        if self.lock is not None:
            self.lock.release()


__all__ = ["Folder"]
