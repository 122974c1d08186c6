"""The save file of a match in progress: its format, writing it, and reading it back with every
check (POSITION_FORMAT.md describes the keys). Plain Python.

A save is the position of the current round plus the match history (``match``), the seats
(``seats``) and the move log (``log``). Reading checks every field for its exact JSON type; the
session replays the match from its seed and :func:`check_position` requires the replayed
position to be exactly the saved one. Any problem is a :class:`SaveError` whose message says why.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kc_tui.config import ConfigError, check_distinct_names, name_problem, quote, think_ms_check
from kc_tui.config.store import data_dir
from kc_tui.engine import END, SECRET_BITS, Match, Round, position_dict, strict
from kc_tui.engine.match import SECRET_MIN
from kc_tui.i18n import _
from kc_tui.match.roster import Seat, known_kinds
from kc_tui.util.files import NotRegularFile, atomic_write, describe_os_error, move_aside, read_capped
from kc_tui.util.printable import PROBLEM_MAX, one_line

log = logging.getLogger(__name__)

SAVE_NAME = "current-match.json"
SAVE_FORMAT = "kings-corners/save/1"
#: The move log lines a save keeps.
LOG_KEEP = 400
#: The largest save read (bytes); a bigger one is treated as corrupt.
SAVE_MAX_BYTES = 16 << 20
#: The longest line of the move log a save may hold.
LOG_LINE_MAX = 500
#: The keys a save has besides those of its position (POSITION_FORMAT.md); ``record`` is optional.
SAVE_KEYS = frozenset({"save_format", "match", "seats", "log", "record", "hint"})
HINT_KEYS = frozenset({"at", "plan"})
#: The most moves a saved hint's plan may hold.
HINT_PLAN_MAX = 200
SEAT_KEYS = frozenset({"name", "kind", "think_ms"})
RECORD_KEYS = frozenset({"uid", "started_at", "rounds"})
ROUND_NOTE_KEYS = frozenset({"hints", "undos", "played_at"})
#: The keys of a round's note that has every seat's own hints and undos too.
ROUND_NOTE_SEAT_KEYS = ROUND_NOTE_KEYS | {"seat_hints", "seat_undos"}
#: The format of a finished match waiting for the game history (a file of the outbox).
PENDING_FORMAT = "kings-corners/pending-record/1"
PENDING_KEYS = frozenset({"save_format", "match", "seats", "record", "demo"})
#: The most hints or undos a round may note.
COUNT_MAX = 10**6


@dataclass(frozen=True, slots=True)
class RoundNote:
    """What the history keeps of a finished round besides its moves: the people's hints and undos
    (all of them together), and when it ended; every match seat's own hints and undos (the person
    on turn who asked), or empty in a note of a save that kept the table's counts only."""

    hints: int = 0
    undos: int = 0
    played_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    seat_hints: tuple[int, ...] = ()
    seat_undos: tuple[int, ...] = ()

    @classmethod
    def by_seat(cls, hints: Sequence[int], undos: Sequence[int]) -> RoundNote:
        """The note of a round in which every match seat asked ``hints[seat]`` hints and took
        ``undos[seat]`` moves back."""
        return cls(sum(hints), sum(undos), seat_hints=tuple(hints), seat_undos=tuple(undos))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"hints": self.hints, "undos": self.undos, "played_at": self.played_at.isoformat()}
        if self.seat_hints or self.seat_undos:
            out["seat_hints"], out["seat_undos"] = list(self.seat_hints), list(self.seat_undos)
        return out


@dataclass(slots=True)
class RecordInfo:
    """How a match is known to the game history: ``uid`` names it there (so that recording it
    again changes nothing), when it started, and a :class:`RoundNote` for every finished round."""

    uid: str = field(default_factory=lambda: os.urandom(16).hex())
    started_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    rounds: list[RoundNote] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "uid": self.uid,
            "started_at": self.started_at.isoformat(),
            "rounds": [n.to_dict() for n in self.rounds],
        }


class SaveError(Exception):
    """A saved match could not be read; the message says why."""


class SaveUnreadable(SaveError):
    """The save could not be read from the disk (the file may be sound: it is left as it is)."""


def default_save_path() -> Path:
    """Where the match in progress is saved: ``data_dir()/current-match.json``."""
    return data_dir() / SAVE_NAME


def save_exists(path: Path | None = None) -> bool:
    return (path or default_save_path()).is_file()


def new_seed() -> int:
    """The secret a match nobody asked a seed for is dealt from: 128 bits from :mod:`secrets`
    (the operating system's entropy), kept in the save only. Its deals, its AIs' choices and
    the hint's cannot be recomputed from anything a seat or a spectator sees."""
    return SECRET_MIN + secrets.randbits(SECRET_BITS)


# ---------------------------------------------------------------------- writing
def save_document(
    match: Match,
    seats: Sequence[Seat],
    log_lines: Sequence[str],
    record: RecordInfo | None = None,
    hint: tuple[int, Sequence[int]] | None = None,
) -> dict[str, Any]:
    """The save of ``match`` (its current round's position, its history), its seats, log and
    record, and ``hint``: the plan the hint holds for the turn being played (the number of moves
    the round had when it was planned, and its moves), or None."""
    names = [s.name for s in seats]
    doc = position_dict(match.round, [names[s] for s in match.seats])
    doc["save_format"] = SAVE_FORMAT
    doc["match"] = match.to_dict()
    doc["seats"] = [{"name": s.name, "kind": s.kind, "think_ms": s.think_ms} for s in seats]
    doc["log"] = list(log_lines[-LOG_KEEP:])
    if record is not None:
        doc["record"] = record.to_dict()
    if hint is not None:
        doc["hint"] = {"at": hint[0], "plan": list(hint[1])}
    return doc


def save_bytes(doc: dict[str, Any], *, compact: bool = False) -> bytes:
    """A save document as the file holds it (``compact``: on one line, as a server's store keeps
    it: the same document, written several times faster)."""
    if compact:
        return json.dumps(doc, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")
    return json.dumps(doc, ensure_ascii=False, indent=1, allow_nan=False).encode("utf-8")


def write_save(path: Path, doc: dict[str, Any] | bytes) -> str | None:
    """Write ``doc`` to ``path`` atomically. None when it is on disk; else why not, in one plain
    line (the file keeps what it held before). Never raises: a full disk must not stop the game."""
    data = doc if isinstance(doc, bytes) else save_bytes(doc)
    try:
        atomic_write(path, data)
    except OSError as exc:
        problem = os_problem(exc)
        log.error("could not save the match to %s: %s", path, problem)
        return problem
    return None


class SaveWriter:
    """Writes saves in a thread of its own, so that a slow or failing disk never holds up the game.
    The newest save asked for wins (an older one still waiting is dropped); a removal waits for
    the writes asked for before it. :attr:`problem` is why the last write failed (None once one
    works); :attr:`pending` whether a write asked for is not on disk yet; listeners hear every
    change (from the writer's thread)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        #: What waits: (path, bytes) to write, or (path, uid) to remove; in order, one write at most.
        self._queue: list[tuple[str, Path, bytes | str | None]] = []
        self._busy = False
        self._problem: str | None = None
        self._closing = False
        self._listeners: list[Callable[[str | None], object]] = []
        self._thread = threading.Thread(target=self._run, name="save-writer", daemon=True)
        self._thread.start()

    @property
    def problem(self) -> str | None:
        with self._cond:
            return self._problem

    @property
    def pending(self) -> bool:
        with self._cond:
            return self._busy or any(kind == "write" for kind, _, _ in self._queue)

    def listen(self, callback: Callable[[str | None], object]) -> None:
        """``callback(problem)`` after every write (from the writer's thread)."""
        self._listeners.append(callback)

    def write(self, path: Path, data: bytes) -> None:
        with self._cond:
            self._queue = [job for job in self._queue if not (job[0] == "write" and job[1] == path)]
            self._queue.append(("write", path, data))
            self._cond.notify_all()

    def delete(self, path: Path, uid: str | None) -> None:
        with self._cond:
            self._queue.append(("delete", path, uid))
            self._cond.notify_all()

    def flush(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for what was asked to be done; whether it is."""
        end = time.monotonic() + timeout
        with self._cond:
            while self._queue or self._busy:
                left = end - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
            return True

    def close(self, timeout: float = 2.0) -> bool:
        """Finish what waits (up to ``timeout`` seconds) and stop; whether all of it was done."""
        done = self.flush(timeout)
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        return done

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._closing:
                    self._cond.wait()
                if not self._queue:
                    return
                kind, path, payload = self._queue.pop(0)
                self._busy = True
            problem: str | None = None
            if kind == "write":
                assert isinstance(payload, bytes)
                problem = write_save(path, payload)
            else:
                delete_save(path, payload if isinstance(payload, str) else None)
            with self._cond:
                self._busy = False
                if kind == "write":
                    self._problem = problem
                self._cond.notify_all()
            if kind == "write":
                for callback in list(self._listeners):
                    try:
                        callback(problem)
                    except Exception:
                        log.exception("a save listener failed")


def os_problem(exc: OSError) -> str:
    """Why a file operation failed, in a few plain words ("the disk is full")."""
    return one_line(describe_os_error(exc), PROBLEM_MAX)


def delete_save(path: Path, uid: str | None = None) -> None:
    """Remove the save; with ``uid``, only while it is still the save of that match (a new match
    may have been saved there since). A failure is logged (e.g. a read-only folder: the finished
    match must still end)."""
    try:
        saved = _saved_uid(path) if uid is not None else None
        if saved is not None and saved != uid:
            return
        path.unlink()
    except FileNotFoundError:
        pass
    except OSError as exc:
        log.error("could not remove the save %s: %s", path, exc)


def saved_uid(path: Path | None = None) -> str | None:
    """The uid of the match saved at ``path`` (default: the save in the data folder), the match
    that can be resumed; None when there is none or it cannot be read."""
    return _saved_uid(path or default_save_path())


def _saved_uid(path: Path) -> str | None:
    """The uid of the match saved at ``path`` (None when it has none or cannot be read)."""
    try:
        doc = read_save_file(path)
    except SaveError:
        return None
    record = doc.get("record") if isinstance(doc, dict) else None
    uid = record.get("uid") if isinstance(record, dict) else None
    return uid if isinstance(uid, str) else None


# ---------------------------------------------------------------------- finished matches waiting
def pending_document(match: Match, seats: Sequence[Seat], record: RecordInfo, demo: bool) -> dict[str, Any]:
    """A match the history has not recorded yet, as a file of the outbox: enough to record it
    (its record replays every round), nothing of a position."""
    return {
        "save_format": PENDING_FORMAT,
        "match": match.to_dict(),
        "seats": [{"name": s.name, "kind": s.kind, "think_ms": s.think_ms} for s in seats],
        "record": record.to_dict(),
        "demo": demo,
    }


def read_pending(doc: Any) -> tuple[Match, list[Seat], RecordInfo, bool]:
    """The match, seats, record and demo mark of an outbox file's document; :class:`SaveError`
    when any of them is unusable."""
    if not isinstance(doc, dict) or doc.get("save_format") != PENDING_FORMAT:
        raise SaveError(_("it is not a Kings Corners match waiting for the history"))
    for key in doc:
        if key not in PENDING_KEYS:
            raise SaveError(_("it has an unknown field {field}").format(field=quote(key)))
    try:
        match = Match.from_dict(doc.get("match"))
    except ValueError as exc:
        raise SaveError(_("the match record does not replay ({error})").format(error=exc)) from None
    seats = seats_from(doc.get("seats"), match.n)
    demo = doc.get("demo")
    if not isinstance(demo, bool):
        raise SaveError(_("its demo mark must be true or false"))
    return match, seats, record_from(doc.get("record"), len(match.results), match.n), demo


# ---------------------------------------------------------------------- reading
def read_save_file(path: Path) -> Any:
    """The JSON document saved at ``path``, or None when there is no file; :class:`SaveError`
    when it cannot be read or is not plain JSON."""
    try:
        raw = read_capped(path, SAVE_MAX_BYTES)
    except FileNotFoundError:
        return None
    except NotRegularFile:
        raise SaveUnreadable(_("it is not a regular file")) from None
    except OSError as exc:
        raise SaveUnreadable(_("it cannot be read ({problem})").format(problem=os_problem(exc))) from None
    if raw is None:
        raise SaveError(_("it is larger than {size} MiB").format(size=SAVE_MAX_BYTES >> 20))
    return parse_save_json(raw)


def read_document(doc: Any) -> tuple[Match, list[Seat], list[str]]:
    """The match (replayed from its record), seats and log of a save document; :class:`SaveError`
    when any of them is unusable. The position is checked afterwards with :func:`check_position`."""
    if not isinstance(doc, dict) or doc.get("save_format") != SAVE_FORMAT:
        raise SaveError(_("it is not a Kings Corners save"))
    try:
        match = Match.from_dict(doc.get("match"))
    except ValueError as exc:  # MatchRecordError, RulesError, IllegalMove
        raise SaveError(_("the match record does not replay ({error})").format(error=exc)) from None
    if match.over:
        raise SaveError(_("the saved match is already over"))
    seats = seats_from(doc.get("seats"), match.n)
    return match, seats, log_from(doc.get("log", []))


def read_hint(doc: dict[str, Any], moves: int) -> tuple[int, tuple[int, ...]] | None:
    """The hint's plan kept in a save document whose current round has ``moves`` moves: the
    number of moves the round had when it was planned and its moves (None when the save keeps
    none); :class:`SaveError` when it is not of that form. Whether its moves play is for the
    session to see."""
    if "hint" not in doc:
        return None
    hint = doc["hint"]
    if not isinstance(hint, dict) or set(hint) != HINT_KEYS:
        raise SaveError(_("its hint must have a move number and a plan"))
    at, plan = hint["at"], hint["plan"]
    if type(at) is not int or not 0 <= at <= moves:
        raise SaveError(_("its hint's move number must be a whole number from 0 to {moves}").format(moves=moves))
    if (
        not isinstance(plan, list)
        or len(plan) > HINT_PLAN_MAX
        or any(type(m) is not int or not 0 <= m <= END for m in plan)
    ):
        raise SaveError(_("its hint's plan must be a list of at most {count} moves").format(count=HINT_PLAN_MAX))
    return at, tuple(plan)


def read_record(doc: dict[str, Any], rounds: int, seats: int) -> RecordInfo:
    """The record of a save document whose match has ``rounds`` finished rounds. A save written
    before records were kept has none: the match gets a new uid (the history finds it by its
    seats, rules and seed) and notes of no hints or undos."""
    if "record" not in doc:
        return RecordInfo(rounds=[RoundNote() for _round in range(rounds)])
    return record_from(doc["record"], rounds, seats)


def record_from(data: Any, rounds: int, seats: int) -> RecordInfo:
    """A :class:`RecordInfo` from its JSON, checked: a uid of 32 hex digits, times, and exactly
    one note for each of the ``rounds`` finished rounds (its seats' counts, when it has them, one
    for each of the match's ``seats``)."""
    if not isinstance(data, dict) or set(data) != RECORD_KEYS:
        raise SaveError(_("its record must have a uid, a start time and the rounds' notes"))
    uid = data["uid"]
    if not isinstance(uid, str) or len(uid) != 32 or any(c not in "0123456789abcdef" for c in uid):
        raise SaveError(_("its record's uid must be 32 hexadecimal digits"))
    notes = data["rounds"]
    if not isinstance(notes, list) or len(notes) != rounds:
        raise SaveError(_("its record must note exactly the {rounds} finished rounds").format(rounds=rounds))
    out: list[RoundNote] = []
    for i, note in enumerate(notes):
        if not isinstance(note, dict) or set(note) not in (ROUND_NOTE_KEYS, ROUND_NOTE_SEAT_KEYS):
            raise SaveError(_("the note of round {number} must have hints, undos and a time").format(number=i + 1))
        for key in ("hints", "undos"):
            if not _is_count(note[key]):
                raise SaveError(
                    _("the {key} of round {number} must be a whole number from 0 to {most}").format(
                        key=key, number=i + 1, most=COUNT_MAX
                    )
                )
        by_seat: list[tuple[int, ...]] = []
        for key in ("seat_hints", "seat_undos"):
            counts = note.get(key, [])
            if not isinstance(counts, list) or len(counts) != (seats if key in note else 0):
                raise SaveError(
                    _("the {key} of round {number} must be a list of {seats} counts, one for each seat").format(
                        key=key, number=i + 1, seats=seats
                    )
                )
            if not all(_is_count(c) for c in counts):
                raise SaveError(
                    _("the {key} of round {number} must be whole numbers from 0 to {most}").format(
                        key=key, number=i + 1, most=COUNT_MAX
                    )
                )
            by_seat.append(tuple(counts))
        when = _time_from(note["played_at"], _("round {number}'s time").format(number=i + 1))
        out.append(RoundNote(note["hints"], note["undos"], when, *by_seat))
    return RecordInfo(uid, _time_from(data["started_at"], _("its start")), out)


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= COUNT_MAX


def _time_from(value: Any, what: str) -> datetime:
    """A time in UTC from ISO 8601 text with its offset."""
    if not isinstance(value, str) or len(value) > 40:
        raise SaveError(_("{what} must be a time").format(what=what))
    try:
        when = datetime.fromisoformat(value)
        if when.tzinfo is None:
            raise ValueError
        return when.astimezone(UTC)
    except (ValueError, OverflowError):
        raise SaveError(_("{what} must be a time with its offset").format(what=what)) from None


def check_position(doc: dict[str, Any], r: Round, names: Sequence[str]) -> None:
    """:class:`SaveError` unless the position saved in ``doc`` is exactly ``r`` (the replayed
    round; ``names`` by round seat), JSON types included, and ``doc`` has no other keys."""
    mine = position_dict(r, list(names))
    for key in doc:
        if key not in mine and key not in SAVE_KEYS:
            raise SaveError(_("the saved position does not match its history ({key} differs)").format(key=quote(key)))
    for key, value in mine.items():
        if key not in doc or not _same(doc[key], value):
            raise SaveError(_("the saved position does not match its history ({key} differs)").format(key=key))


def quarantine(path: Path, problem: str) -> str:
    """Move an unusable save aside to ``<name>.corrupt-<time>`` (never over an earlier one) and
    return the message (one plain line) saying why and where it went, or that it was left in place."""
    kept = move_aside(path, f".corrupt-{time.strftime('%Y%m%d-%H%M%S')}")
    # Translators: {problem} says why; {kept} is empty or a sentence after a space saying where the file went.
    return _("The saved match could not be resumed: {problem}.{kept}").format(
        problem=one_line(problem, PROBLEM_MAX), kept=kept
    )


#: A save's objects read with each key given once (JSON would keep the last of two silently).
# Translators: {key} is a field of the save file given twice.
def parse_save_json(raw: bytes) -> Any:
    """The JSON document of a save's bytes, read strictly (:func:`kc_tui.engine.strict.loads`);
    :class:`SaveError` for anything that is not plain JSON (bad UTF-8, a field given twice,
    NaN/Infinity, numbers too long or too large, nesting too deep)."""
    try:
        return strict.loads(raw)
    except strict.JSONError as exc:
        raise SaveError(str(exc)) from None


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON, types included (``true`` is not ``1``, ``1.0`` is not ``1``)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def seats_from(data: Any, n: int) -> list[Seat]:
    """The seats of a save: exactly ``n``, names as the settings allow, known kinds, think
    times in range, no two people with one name (any number of people: the save says nothing of
    whose hand is open, so a resume never opens one by itself)."""
    if not isinstance(data, list) or len(data) != n:
        raise SaveError(_("the save must list exactly {count} seats").format(count=n))
    seats: list[Seat] = []
    kinds = known_kinds()
    for i, d in enumerate(data):
        what = _("seat {number}").format(number=i + 1)
        if not isinstance(d, dict) or "name" not in d or "kind" not in d:
            raise SaveError(_("{what} must be an object with a name and a kind").format(what=what))
        for key in d:
            if key not in SEAT_KEYS:
                raise SaveError(_("{what} has an unknown field {field}").format(what=what, field=quote(key)))
        problem = name_problem(d["name"], _("the name of {what}").format(what=what))
        if problem is not None:
            raise SaveError(problem)
        kind = d["kind"]
        if not isinstance(kind, str) or kind not in kinds:
            raise SaveError(_("{what} has an unknown kind {kind}").format(what=what, kind=quote(kind)))
        think_ms = d.get("think_ms", 1000)
        try:
            think_ms_check(think_ms)
        except ConfigError as exc:
            raise SaveError(_("{what}: {error}").format(what=what, error=exc)) from None
        seats.append(Seat(d["name"], kind, think_ms))
    try:
        check_distinct_names([seat.name for seat in seats if seat.is_human])
    except ConfigError as exc:
        raise SaveError(_("the save's seats: {error}").format(error=exc)) from None
    return seats


def log_from(data: Any) -> list[str]:
    """The move log of a save: at most LOG_KEEP lines of printable text."""
    if not isinstance(data, list) or len(data) > LOG_KEEP:
        raise SaveError(_("the log must be a list of at most {most} lines").format(most=LOG_KEEP))
    for line in data:
        if not isinstance(line, str) or len(line) > LOG_LINE_MAX or not line.isprintable():
            raise SaveError(_("the log must hold lines of printable text"))
    return list(data)


__all__ = [
    "LOG_KEEP",
    "PENDING_FORMAT",
    "SAVE_FORMAT",
    "SAVE_MAX_BYTES",
    "RecordInfo",
    "RoundNote",
    "SaveError",
    "SaveUnreadable",
    "SaveWriter",
    "check_position",
    "default_save_path",
    "delete_save",
    "new_seed",
    "os_problem",
    "parse_save_json",
    "pending_document",
    "quarantine",
    "read_document",
    "read_pending",
    "read_record",
    "read_save_file",
    "save_bytes",
    "save_document",
    "save_exists",
    "seats_from",
    "write_save",
]
