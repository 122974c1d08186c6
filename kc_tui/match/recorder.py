"""The recorder: every finished round reaches the game history exactly once, in order, and the
UI thread never waits on SQLite or the disk. Plain Python.

A table hands the recorder a :class:`~kc_tui.records.rows.MatchSync` after every round: the whole
match so far (every finished round), named by its uid. Recording one is idempotent (the history
adds only the rounds it does not have), so a newer sync of a match replaces an older one still
waiting, and recording again after a fault, a crash or a resume records nothing twice.

In the app the recorder runs in its own thread (:meth:`Recorder.start`): it opens the history,
records what the outbox holds, then what is submitted. A sync that fails (the history is locked
by another program, the disk is full) stays waiting and is tried again with a growing pause;
meanwhile it is kept on disk in the outbox (``data_dir()/outbox/<uid>.json``: the match as its
record replays it, see :func:`kc_tui.match.saves.pending_document`), so a crash loses nothing either.
Once recorded, its outbox file goes. :attr:`Recorder.status` says how many rounds wait and why;
listeners hear every change (from the recorder's thread).

Without :meth:`start` (tests, tools) every submit is recorded at once on the caller's thread, and
a sync that fails waits for the next submit or :meth:`Recorder.retry`.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ai import kind_info
from kc_tui.config.store import data_dir
from kc_tui.engine import Match
from kc_tui.i18n import _
from kc_tui.match.roster import Seat
from kc_tui.match.saves import (
    SAVE_MAX_BYTES,
    RecordInfo,
    SaveError,
    os_problem,
    parse_save_json,
    pending_document,
    read_pending,
)
from kc_tui.util.backoff import Backoff
from kc_tui.util.files import atomic_write, move_aside, read_capped
from kc_tui.util.printable import one_line

if TYPE_CHECKING:  # the history's module loads with the first round recorded, not at start-up
    from kc_tui.match.session import MatchSession
    from kc_tui.records.rows import MatchRecord, MatchSync, SeatInfo
    from kc_tui.records.store import History

log = logging.getLogger(__name__)

OUTBOX_NAME = "outbox"
#: The pauses between tries of a sync that failed (seconds): doubling up to the last.
RETRY_FIRST = 0.25
RETRY_MAX = 5.0
#: The most outbox files read at start (a folder full of them is not ours to read all).
OUTBOX_MAX = 1000


def default_outbox() -> Path:
    return data_dir() / OUTBOX_NAME


def open_history() -> tuple[History, str | None]:
    """The game history at its usual place (:meth:`History.open`), its module loaded now."""
    from kc_tui.records.store import History

    return History.open()


def seat_info(seat: Seat) -> SeatInfo:
    """The history's record of a seat: its think time only for AI kinds that take one."""
    from kc_tui.records.rows import SeatInfo

    timed = not seat.is_human and kind_info(seat.kind).takes_think_time
    return SeatInfo(seat.name, seat.kind, seat.think_ms if timed else None)


def match_sync(match: Match, seats: Sequence[Seat], record: RecordInfo, demo: bool) -> MatchSync:
    """What the history records of ``match`` now: every finished round with its moves and notes."""
    from kc_tui.records.rows import MatchSync, RoundRecord

    rounds = tuple(
        RoundRecord.of_result(
            result,
            moves,
            hints=note.hints,
            undos=note.undos,
            played_at=note.played_at,
            seat_hints=note.seat_hints or None,
            seat_undos=note.seat_undos or None,
        )
        for result, moves, note in zip(match.results, match.round_moves, record.rounds, strict=False)
    )
    return MatchSync(
        uid=record.uid,
        seats=tuple(seat_info(s) for s in seats),
        rules=match.rules.to_dict(),
        seed=match.seed,
        first_dealer=match.first_dealer,
        demo=demo,
        started_at=record.started_at,
        rounds=rounds,
        totals=tuple(match.totals),
        winners=tuple(match.winners) if match.over else None,
        finished_at=record.rounds[-1].played_at if match.over and record.rounds else None,
    )


def session_record(session: MatchSession) -> MatchRecord:
    """The match of ``session`` as the history would read it back now, its rounds without
    their moves (:func:`match_record`): what the Stats screen's rating reads of a match."""
    return match_record(session.match, session.seats, session.record, rounds=False)


def match_record(match: Match, seats: Sequence[Seat], record: RecordInfo, *, rounds: bool = True) -> MatchRecord:
    """The match as the history would read it back now (:func:`match_sync`), without waiting
    for the history: with every finished round and its moves (``rounds``), so that a round can
    be replayed from it (:class:`~kc_tui.match.replay.RoundReplay`)."""
    from kc_tui.records.rows import MatchRecord

    sync = match_sync(match, seats, record, False)
    return MatchRecord(
        id=0,
        started_at=sync.started_at,
        finished_at=sync.finished_at,
        demo=False,
        seats=sync.seats,
        rules=sync.rules,
        seed=sync.seed,
        first_dealer=sync.first_dealer,
        winners=sync.winners or (),
        totals=sync.totals,
        rounds=sync.rounds if rounds else (),
    )


@dataclass(frozen=True, slots=True)
class RecorderStatus:
    """What the recorder has not recorded yet: ``waiting`` rounds (and finished matches' ends),
    ``problem`` why (one plain line; None when nothing failed), ``on_disk`` whether all of it is
    kept in the outbox (else a crash or a quit would lose it), ``opened`` once the history is open."""

    waiting: int = 0
    problem: str | None = None
    on_disk: bool = True
    opened: bool = False


@dataclass(slots=True)
class _Job:
    sync: MatchSync
    #: The outbox file's document (None: nothing to keep on disk).
    document: dict[str, Any] | None
    done: list[Callable[[], None]]
    #: Whether the outbox holds this very sync.
    on_disk: bool = False


class Recorder:
    """Records matches in ``history`` (or the history ``opener`` gives, opened in the thread)."""

    def __init__(
        self,
        history: History | None = None,
        *,
        opener: Callable[[], tuple[History, str | None]] | None = None,
        outbox: Path | None = None,
    ) -> None:
        self._history = history
        self._opener = opener
        self.outbox = outbox
        #: What :meth:`History.open` said (one line), once open; None when all was well.
        self.open_message: str | None = None
        self._cond = threading.Condition()
        self._jobs: dict[str, _Job] = {}
        #: Rounds recorded so far of each match, and its id in the history.
        self._recorded: dict[str, int] = {}
        self._ids: dict[str, int] = {}
        self._problem: str | None = None
        self._opened = threading.Event()
        if history is not None:
            self._opened.set()
        self._thread: threading.Thread | None = None
        #: Set when the thread may open the history (:meth:`start` with ``held``, then :meth:`release`).
        self._go = threading.Event()
        self._go.set()
        #: When a released thread opens the history (:meth:`release` with ``after``)...
        self._open_at = 0.0
        #: ... unless it is asked for sooner.
        self._now = threading.Event()
        self._closing = False
        self._listeners: list[Callable[[RecorderStatus], object]] = []

    # ------------------------------------------------------------------ what the UI asks
    @property
    def history(self) -> History | None:
        """The history (for reading), once open."""
        return self._history

    def wait_open(self, timeout: float) -> History | None:
        """The history, waiting up to ``timeout`` seconds for it to open (a held thread is let go
        at once: the history is wanted now)."""
        self._now.set()
        self.release()
        self._opened.wait(timeout)
        return self._history

    @property
    def status(self) -> RecorderStatus:
        with self._cond:
            return self._status()

    def _status(self) -> RecorderStatus:
        waiting = 0
        for uid, job in self._jobs.items():
            waiting += max(1, len(job.sync.rounds) - self._recorded.get(uid, 0))
        on_disk = all(job.on_disk for job in self._jobs.values())
        return RecorderStatus(waiting, self._problem if self._jobs else None, on_disk, self._opened.is_set())

    def match_id(self, uid: str) -> int | None:
        """The history's id of the match ``uid``, once any of it is recorded."""
        with self._cond:
            return self._ids.get(uid)

    def recorded(self, uid: str, rounds: int) -> bool:
        """Whether ``rounds`` rounds of match ``uid`` are in the history."""
        with self._cond:
            return self._recorded.get(uid, 0) >= rounds

    def listen(self, callback: Callable[[RecorderStatus], object]) -> None:
        """``callback(status)`` after every change (from the recorder's thread once started)."""
        self._listeners.append(callback)

    # ------------------------------------------------------------------ recording
    def submit(
        self, sync: MatchSync, *, document: dict[str, Any] | None = None, done: Callable[[], None] | None = None
    ) -> None:
        """Record ``sync`` (replacing an older sync of the same match still waiting); ``done()``
        once it is recorded. ``document``: what the outbox keeps while it waits."""
        with self._cond:
            old = self._jobs.pop(sync.uid, None)
            callbacks = ([*old.done] if old else []) + ([done] if done else [])
            self._jobs[sync.uid] = _Job(sync, document, callbacks)
            self._cond.notify_all()
        if self._thread is None:
            self.retry()

    def submit_session(
        self, session: MatchSession, *, demo: bool = False, done: Callable[[], None] | None = None
    ) -> None:
        """Record ``session``'s match as it is now, every finished round (:meth:`submit`), the
        outbox keeping its pending document while it waits; ``demo``: an all-AI table's."""
        s = session
        self.submit(
            match_sync(s.match, s.seats, s.record, demo),
            document=pending_document(s.match, s.seats, s.record, demo),
            done=done,
        )

    def retry(self) -> None:
        """Without a thread: try every waiting sync now (in the order they came)."""
        if self._thread is not None:
            with self._cond:
                self._cond.notify_all()
            return
        for uid in list(self._jobs):
            if not self._try(uid):
                break

    def flush(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds until nothing waits; whether nothing does."""
        end = time.monotonic() + timeout
        if self._thread is None:
            self.retry()
        with self._cond:
            while self._jobs:
                left = end - time.monotonic()
                if left <= 0 or self._thread is None:
                    break
                self._cond.wait(min(left, 0.05))
            return not self._jobs

    def _try(self, uid: str) -> bool:
        """Record the waiting sync of ``uid``; whether it was recorded."""
        from kc_tui.records.rows import HistoryError

        with self._cond:
            job = self._jobs.get(uid)
        history = self._history
        if job is None:
            return True
        if history is None:
            return False
        try:
            match_id = history.sync_match(job.sync)
        except HistoryError as exc:
            self._failed(job, str(exc))
            return False
        except Exception as exc:  # a bug must not stop the game: the sync waits, as for a fault
            log.exception("the history could not record match %s", uid)
            self._failed(job, _("the history could not record it ({error})").format(error=type(exc).__name__))
            return False
        with self._cond:
            self._ids[uid] = match_id
            self._recorded[uid] = max(self._recorded.get(uid, 0), len(job.sync.rounds))
            current = self._jobs.get(uid)
            if current is job:  # its file goes before a flush can see nothing waiting
                self._drop_outbox(uid)
                del self._jobs[uid]
            elif current is not None:  # a newer sync came meanwhile: it keeps the file and the callbacks
                current.done = [c for c in current.done if c not in job.done]
            if not self._jobs:
                self._problem = None
            status = self._status()
            self._cond.notify_all()
        for callback in job.done:
            try:
                callback()
            except Exception:
                log.exception("a callback after recording match %s failed", uid)
        self._tell(status)
        return True

    def _failed(self, job: _Job, problem: str) -> None:
        log.warning("the history could not record match %s yet: %s", job.sync.uid, problem)
        was_on_disk = job.on_disk
        self._keep(job)
        with self._cond:
            changed = self._problem != problem or was_on_disk != job.on_disk
            self._problem = problem
            status = self._status()
        if changed:
            self._tell(status)

    def _tell(self, status: RecorderStatus) -> None:
        for callback in list(self._listeners):
            try:
                callback(status)
            except Exception:
                log.exception("a recorder listener failed")

    # ------------------------------------------------------------------ the outbox
    def _keep(self, job: _Job) -> None:
        """Keep a waiting sync on disk (once), so that a crash does not lose it."""
        if job.on_disk or job.document is None or self.outbox is None:
            return
        data = json.dumps(job.document, ensure_ascii=False, allow_nan=False).encode("utf-8")
        try:
            self.outbox.mkdir(parents=True, exist_ok=True)
            atomic_write(self.outbox / f"{job.sync.uid}.json", data)
        except OSError as exc:
            log.warning("the outbox could not keep match %s: %s", job.sync.uid, os_problem(exc))
            return
        job.on_disk = True

    def _drop_outbox(self, uid: str) -> None:
        if self.outbox is None:
            return
        try:
            (self.outbox / f"{uid}.json").unlink()
        except FileNotFoundError:
            pass
        except OSError as exc:
            log.warning("the outbox file of match %s could not be removed: %s", uid, os_problem(exc))

    def load_outbox(self) -> list[str]:
        """Submit every match the outbox keeps; one line for each file that could not be used
        (it is moved aside to ``.corrupt-<time>``, never deleted)."""
        problems: list[str] = []
        if self.outbox is None or not self.outbox.is_dir():
            return problems
        try:
            names = sorted(p for p in self.outbox.iterdir() if p.suffix == ".json")[:OUTBOX_MAX]
        except OSError as exc:
            return [
                _("The outbox {folder} cannot be read ({problem}).").format(
                    folder=one_line(str(self.outbox)), problem=os_problem(exc)
                )
            ]
        for path in names:
            try:
                raw = read_capped(path, SAVE_MAX_BYTES)
                if raw is None:
                    raise SaveError(_("it is larger than {size} MiB").format(size=SAVE_MAX_BYTES >> 20))
                match, seats, record, demo = read_pending(parse_save_json(raw))
                if path.stem != record.uid:
                    raise SaveError(_("its name is not its match's uid"))
            except SaveError as exc:
                kept = move_aside(path, f".corrupt-{time.strftime('%Y%m%d-%H%M%S')}")
                # Translators: {kept} is empty or a sentence after a space saying where the file went.
                problems.append(
                    _("A match waiting for the history could not be read: {problem}.{kept}").format(
                        problem=exc, kept=kept
                    )
                )
                continue
            except OSError as exc:
                problems.append(
                    _("A match waiting for the history cannot be read ({problem}); it is kept.").format(
                        problem=os_problem(exc)
                    )
                )
                continue
            sync = match_sync(match, seats, record, demo)
            with self._cond:
                self._jobs.setdefault(sync.uid, _Job(sync, None, [], on_disk=True))
        return problems

    # ------------------------------------------------------------------ the thread
    def start(self, *, held: bool = False) -> None:
        """Record in a thread of its own from now on (opening the history there first).
        ``held``: the thread waits for :meth:`release` before it opens the history (the app
        lets it go once its first screen is drawn, so the two never share the interpreter)."""
        if self._thread is not None:
            return
        if held:
            self._go.clear()
        self._thread = threading.Thread(target=self._run, name="history-recorder", daemon=True)
        self._thread.start()

    def release(self, after: float = 0.0) -> None:
        """Let a held thread open the history and record, ``after`` seconds from now (at once
        if the history is asked for meanwhile, or the recorder closes)."""
        self._open_at = time.monotonic() + after
        self._go.set()

    def _run(self) -> None:
        self._go.wait()
        while not self._now.is_set() and (left := self._open_at - time.monotonic()) > 0:
            self._now.wait(left)
        if self._history is None and self._opener is not None:
            try:
                self._history, self.open_message = self._opener()
            except Exception as exc:  # opening never raises for a bad file; a bug must not stop the app
                log.exception("the history could not be opened")
                self.open_message = _("The game history could not be opened ({error}).").format(
                    error=type(exc).__name__
                )
        problems = self.load_outbox()
        if problems:
            self.open_message = " ".join([self.open_message or "", *problems]).strip()
        self._opened.set()
        with self._cond:
            status = self._status()
        self._tell(status)
        backoff = Backoff(RETRY_FIRST, RETRY_MAX)
        while True:
            with self._cond:
                while not self._jobs and not self._closing:
                    self._cond.wait()
                if self._closing:
                    return
                uid = next(iter(self._jobs))
            if self._try(uid):
                backoff.reset()
                continue
            with self._cond:
                if self._closing:
                    return
                self._cond.wait(backoff.next())

    def close(self, timeout: float = 1.0) -> None:
        """Stop: what still waits after ``timeout`` seconds is kept in the outbox for next time;
        then the history is closed."""
        if self._thread is not None:
            self._now.set()
            self.release()
            self.flush(timeout)
            with self._cond:
                self._closing = True
                self._cond.notify_all()
            self._thread.join(timeout=max(0.1, timeout))
        with self._cond:
            jobs = list(self._jobs.values())
        for job in jobs:
            self._keep(job)
        if self._history is not None and (self._thread is None or not self._thread.is_alive()):
            self._history.close()


__all__ = [
    "OUTBOX_NAME",
    "Recorder",
    "RecorderStatus",
    "default_outbox",
    "match_record",
    "match_sync",
    "open_history",
    "seat_info",
]
