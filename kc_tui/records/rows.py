"""The records of the game history and the checks on what is read and written: who sat at a
seat (:class:`SeatInfo`), a round (:class:`RoundRecord`), a match (:class:`MatchRecord`), everything
known of a match being played (:class:`MatchSync`); the values of a row checked in Python. Plain
Python: no SQLite (the app loads the store only where it records)."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import secrets
import sys
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kc_tui.config import HUMAN, NAME_MAX, name_problem
from kc_tui.config.store import data_dir
from kc_tui.engine import RoundOutcome, valid_seed
from kc_tui.engine.match import SECRET_MAX
from kc_tui.engine.rules import RulesError, variant
from kc_tui.engine.strict import is_int as _is_int
from kc_tui.engine.strict import loads as strict_json
from kc_tui.util.printable import one_line

ENV_HISTORY = "KINGS_CORNERS_HISTORY"
HISTORY_NAME = "history.sqlite3"
#: Joins the opponents' kinds in ``player_opponents`` (the unit separator: never in a kind).
_US = "\x1f"
#: The longest text read from a column (longer values are not what the schema says).
TEXT_MAX = 1000
#: The longest rules text, seat kind and moves blob (bytes) read.
RULES_MAX = 4096
KIND_MAX = 40
MOVES_MAX = 1 << 20
#: The times a record may hold (a clock set to 1970 is possible; the years past 9000 are not).
TIME_MIN = datetime(1970, 1, 1, tzinfo=UTC)
TIME_MAX = datetime(9000, 1, 1, tzinfo=UTC)
#: The largest move the engine makes (``END``); moves are stored as 16-bit numbers.
MOVE_MAX = 1024
#: The most digits a seed's text has (a 64-bit seed or a secret, in decimal).
SEED_DIGITS = len(str(SECRET_MAX))
_BIG = 10**9


class HistoryError(Exception):
    """The history could not be read or written; the message (one plain line) says why."""


def default_history_path() -> Path:
    """``$KINGS_CORNERS_HISTORY`` if set, else ``data_dir()/history.sqlite3``."""
    env = os.environ.get(ENV_HISTORY)
    return Path(env) if env else data_dir() / HISTORY_NAME


# ---------------------------------------------------------------------- records
@dataclass(frozen=True)
class SeatInfo:
    """Who sat at a match seat: a name, ``"human"`` or an AI kind, and the AI's think time (ms)."""

    name: str
    kind: str
    think_ms: int | None = None

    @property
    def is_human(self) -> bool:
        return self.kind == HUMAN


@dataclass(frozen=True)
class RoundRecord(RoundOutcome):
    """One finished round: how it ended (the engine's ``RoundOutcome``, in match seats), with its
    moves."""

    #: The engine's moves in order: dealing the round again and making them replays it exactly.
    moves: tuple[int, ...]
    #: The people's hints and undos this round, all of them together.
    hints: int
    undos: int
    #: When the round ended (UTC).
    played_at: datetime
    #: The hints and undos of every match seat (the person on turn who asked), or None for a
    #: round recorded with the table's counts only.
    seat_hints: tuple[int, ...] | None = None
    seat_undos: tuple[int, ...] | None = None

    @classmethod
    def of_result(
        cls,
        result: RoundOutcome,
        moves: Sequence[int],
        *,
        hints: int,
        undos: int,
        played_at: datetime,
        seat_hints: Sequence[int] | None = None,
        seat_undos: Sequence[int] | None = None,
    ) -> RoundRecord:
        """The record of the engine's ``result`` for a round played with ``moves``."""
        outcome = {f.name: getattr(result, f.name) for f in dataclasses.fields(RoundOutcome)}
        return cls(
            **outcome,
            moves=tuple(moves),
            hints=hints,
            undos=undos,
            played_at=played_at,
            seat_hints=None if seat_hints is None else tuple(seat_hints),
            seat_undos=None if seat_undos is None else tuple(seat_undos),
        )

    def hints_of(self, seat: int, *, own: bool) -> tuple[int, int]:
        """(hints, undos) of match seat ``seat`` this round: its own counts when the round has
        them, else the table's when ``own`` (the seat is the match's one person), else none."""
        if self.seat_hints is not None and self.seat_undos is not None:
            at = seat < len(self.seat_hints) and seat < len(self.seat_undos)
            return (self.seat_hints[seat], self.seat_undos[seat]) if at else (0, 0)
        return (self.hints, self.undos) if own else (0, 0)


@dataclass(frozen=True)
class MatchRecord:
    """One match: who played, the rules, the seed; its result once finished."""

    id: int
    started_at: datetime
    finished_at: datetime | None
    demo: bool
    seats: tuple[SeatInfo, ...]
    #: ``Rules.to_dict()``.
    rules: dict[str, Any]
    seed: int
    first_dealer: int
    #: Empty while unfinished.
    winners: tuple[int, ...]
    #: The latest totals (after the last round recorded).
    totals: tuple[int, ...]
    #: Filled by :meth:`History.match` (and ``History.matches(rounds=True)``); empty in lists.
    rounds: tuple[RoundRecord, ...] = ()

    @property
    def finished(self) -> bool:
        return self.finished_at is not None

    def human_seat(self, human: str = HUMAN) -> int | None:
        """The seat whose kind is ``human`` (the first one), None when all are AIs."""
        for i, seat in enumerate(self.seats):
            if seat.kind == human:
                return i
        return None

    @property
    def human_seats(self) -> tuple[int, ...]:
        """The seats of humans, in seat order (none in a demo)."""
        return tuple(i for i, seat in enumerate(self.seats) if seat.is_human)

    def seats_of(self, person: str) -> tuple[int, ...]:
        """The human seats named ``person`` (one, or none when the person did not play)."""
        return tuple(i for i in self.human_seats if self.seats[i].name == person)

    def seat_of(self, person: str | None) -> int | None:
        """``person``'s seat (None: the first human seat), None when the person did not play."""
        if person is None:
            return self.human_seat()
        return next(iter(self.seats_of(person)), None)


@dataclass(frozen=True)
class MatchSync:
    """Everything known of a match being played, for :meth:`History.sync_match`: calling it again
    with the same or a later state records what is new, once."""

    #: A random token naming the match (:func:`new_uid`: 32 hex characters).
    uid: str
    seats: tuple[SeatInfo, ...]
    rules: dict[str, Any]
    seed: int
    first_dealer: int
    demo: bool
    started_at: datetime
    #: Every finished round so far, numbered 1 to k in order.
    rounds: tuple[RoundRecord, ...]
    #: The latest totals.
    totals: tuple[int, ...]
    #: Set once the match is over.
    winners: tuple[int, ...] | None = None
    finished_at: datetime | None = None


_UID = re.compile(r"[0-9a-f]{32}")


def new_uid() -> str:
    """A new match uid: 32 random hex characters."""
    return secrets.token_hex(16)


# ---------------------------------------------------------------------- encoding
def _utc(when: datetime | None) -> datetime:
    """``when`` in UTC (now when None); a naive time is taken as UTC."""
    if when is None:
        return datetime.now(UTC)
    if when.tzinfo is None:
        return when.replace(tzinfo=UTC)
    return when.astimezone(UTC)


def _time_text(when: datetime) -> str:
    return _utc(when).isoformat(timespec="microseconds")


def _ints_text(xs: Sequence[int]) -> str:
    return json.dumps([int(x) for x in xs], separators=(",", ":"))


def _moves_blob(moves: Sequence[int]) -> bytes:
    if not all(_is_int(m) and 0 <= m <= MOVE_MAX for m in moves):
        raise ValueError("a move is out of range")
    a = array("H", moves)
    if sys.byteorder == "big":  # pragma: no cover - stored little-endian everywhere
        a.byteswap()
    return a.tobytes()


def _round_values(match_id: int, r: RoundRecord) -> tuple[Any, ...]:
    """The values of a ``rounds`` row (in the order of ``_ROUND_COLUMNS``)."""
    return (
        match_id,
        r.number,
        r.dealer,
        _ints_text(r.seats),
        r.winner,
        _ints_text(r.penalties),
        _ints_text(r.chips_delta),
        _ints_text(r.totals),
        _moves_blob(r.moves),
        r.hints,
        r.undos,
        _time_text(r.played_at),
        None if r.seat_hints is None else _ints_text(r.seat_hints),
        None if r.seat_undos is None else _ints_text(r.seat_undos),
    )


class _Bad(Exception):
    """A stored value is not what the schema says (the message says which)."""


def _int(x: object, what: str, lo: int = -_BIG, hi: int = _BIG) -> int:
    if not _is_int(x) or not lo <= x <= hi:  # type: ignore[operator]
        raise _Bad(f"{what} is not a whole number from {lo} to {hi}")
    assert isinstance(x, int)
    return x


_INT_LIST = re.compile(r"\[(?:-?[0-9]{1,10}(?:,-?[0-9]{1,10})*)?\]")


#: Lists of numbers read before, by their text (totals and winners repeat).
_INTS_SEEN: dict[str, tuple[int, ...]] = {}


def _int_list(x: object, what: str, lo: int = -_BIG, hi: int = _BIG, n: int | None = None) -> tuple[int, ...]:
    """A list of ints as we write it (compact JSON, ``[1,-2,3]``), every one from ``lo`` to ``hi``."""
    if not isinstance(x, str):
        raise _Bad(f"{what} is not a list of numbers")
    xs = _INTS_SEEN.get(x)
    if xs is None:
        if len(x) > 10_000 or _INT_LIST.fullmatch(x) is None:
            raise _Bad(f"{what} is not a list of numbers")
        xs = tuple(map(int, x[1:-1].split(","))) if len(x) > 2 else ()
        if len(_INTS_SEEN) < 8192:
            _INTS_SEEN[x] = xs
    if xs and not lo <= min(xs) <= max(xs) <= hi:
        raise _Bad(f"{what} is not a list of whole numbers from {lo} to {hi}")
    if n is not None and len(xs) != n:
        raise _Bad(f"{what} does not have {n} numbers")
    return xs


def _time(x: object, what: str) -> datetime:
    """A time as we write it (ISO 8601), in UTC, from :data:`TIME_MIN` to :data:`TIME_MAX`."""
    if not isinstance(x, str) or len(x) > 64:
        raise _Bad(f"{what} is not a time")
    try:
        when = datetime.fromisoformat(x)
        when = when if when.tzinfo is UTC else _utc(when)
    except (ValueError, OverflowError):
        raise _Bad(f"{what} is not a time") from None
    if not TIME_MIN <= when < TIME_MAX:
        raise _Bad(f"{what} is not a time from {TIME_MIN.year} to {TIME_MAX.year}")
    return when


def _moves(x: object) -> tuple[int, ...]:
    if not isinstance(x, bytes) or len(x) % 2 or len(x) > MOVES_MAX:
        raise _Bad("the moves are not a list of moves")
    a = array("H")
    a.frombytes(x)
    if sys.byteorder == "big":  # pragma: no cover
        a.byteswap()
    if a and max(a) > MOVE_MAX:
        raise _Bad("a move is out of range")
    return tuple(a)


def _rules(x: object) -> dict[str, Any]:
    """The rules as ``Rules.to_dict()`` wrote them: every known setting with a value its
    declaration (:mod:`kc_tui.engine.rules`) allows; a setting of a newer game (unknown here) is
    kept when it is a word, a whole number or a switch."""
    if not isinstance(x, str) or len(x) > RULES_MAX:
        raise _Bad("the rules are not text")
    cached = _RULES_SEEN.get(x)
    if cached is not None:
        return dict(cached)
    try:
        rules = strict_json(x)
    except ValueError:
        raise _Bad("the rules are not JSON") from None
    if not isinstance(rules, dict):
        raise _Bad("the rules are not a table of settings")
    for key, value in rules.items():
        _rule_check(key, value)
    if len(_RULES_SEEN) < 256:
        _RULES_SEEN[x] = dict(rules)
    return rules


def _rule_check(key: str, value: object) -> None:
    """:class:`_Bad` unless ``value`` may be the setting ``key``."""
    try:
        v = variant(key)
    except RulesError:  # a setting of a newer game
        if len(key) > 64 or not key.isprintable():
            raise _Bad("a rule's name is not a name") from None
        if isinstance(value, str) and len(value) <= 64 and value.isprintable():
            return
        if isinstance(value, bool) or (isinstance(value, int) and -(2**63) <= value < 2**63):
            return
        raise _Bad(f"the rule {one_line(key)} is not a word, a number or a switch") from None
    try:
        v.check(value)
    except RulesError as exc:
        raise _Bad(f"its rules are not valid ({one_line(str(exc), 120)})") from None


#: Rules read before, by their text (most matches share a few).
_RULES_SEEN: dict[str, dict[str, Any]] = {}


def _cap(column: str, most: int = TEXT_MAX) -> str:
    """SQL for ``column`` with text or a blob longer than ``most`` given as ``'too long'`` (which
    no check accepts), so that a huge value never reaches Python."""
    return (
        f"CASE WHEN typeof({column}) IN ('text', 'blob') AND length({column}) > {most}"
        f" THEN 'too long' ELSE {column} END"
    )


#: A match's row, its seats as a JSON list of [position, name, kind, think_ms] (values of other
#: types, and text too long for its field, given as null or "bad", so that no value makes the query
#: fail: they are checked in Python).
_MATCH_SELECT = f"""
SELECT m.id, {_cap("m.started_at")}, {_cap("m.finished_at")}, m.demo, {_cap("m.rules", RULES_MAX)},
    {_cap("m.seed")}, m.first_dealer, {_cap("m.winners")}, {_cap("m.totals")},
    (SELECT json_group_array(json_array(
        CASE WHEN typeof(s.position) = 'integer' THEN s.position END,
        CASE WHEN typeof(s.name) = 'text' AND length(s.name) <= {NAME_MAX} THEN s.name END,
        CASE WHEN typeof(s.kind) = 'text' AND length(s.kind) <= {KIND_MAX} THEN s.kind END,
        CASE WHEN typeof(s.think_ms) IN ('integer', 'null') THEN s.think_ms ELSE 'bad' END
    )) FROM (SELECT * FROM seats WHERE seats.match_id = m.id ORDER BY position LIMIT 9) s)
FROM matches m
"""
_ROUND_COLUMNS = (
    "match_id, number, dealer, seats, winner, penalties, chips_delta, totals, moves, hints, undos, played_at,"
    " seat_hints, seat_undos"
)
#: The columns of a round as read (text and blobs cut to their sizes, see :func:`_cap`).
_ROUND_SELECT = (
    f"match_id, number, dealer, {_cap('seats')}, winner, {_cap('penalties')}, {_cap('chips_delta')},"
    f" {_cap('totals')}, {_cap('moves', MOVES_MAX)}, hints, undos, {_cap('played_at')},"
    f" {_cap('seat_hints')}, {_cap('seat_undos')}"
)
_ROUND_SELECT_NO_MOVES = (
    f"match_id, number, dealer, {_cap('seats')}, winner, {_cap('penalties')}, {_cap('chips_delta')},"
    f" {_cap('totals')}, NULL, hints, undos, {_cap('played_at')}, {_cap('seat_hints')}, {_cap('seat_undos')}"
)
#: The same, of a history of version 4 (being migrated): its rounds have no seats' counts.
_ROUND_SELECT_V4 = (
    f"match_id, number, dealer, {_cap('seats')}, winner, {_cap('penalties')}, {_cap('chips_delta')},"
    f" {_cap('totals')}, NULL, hints, undos, {_cap('played_at')}, NULL, NULL"
)
#: What reading a row may raise besides :class:`_Bad` when a value is not what the schema says.
_UNREADABLE = (_Bad, ValueError, TypeError, OverflowError, RecursionError, IndexError, KeyError)


def _match_from_row(row: Sequence[Any]) -> MatchRecord:
    """A row of :data:`_MATCH_SELECT`, checked (:class:`_Bad` says what is wrong)."""
    match_id, started, finished, demo, rules, seed, first_dealer, winners, totals, seat_list = row
    seats = _seats(seat_list)
    n = len(seats)
    if not 1 <= n <= 8:
        raise _Bad("its seats are missing")
    if not isinstance(seed, str) or not seed.isascii() or not seed.isdigit() or len(seed) > SEED_DIGITS:
        raise _Bad("its seed is not a number")
    seed_value = int(seed)
    if not valid_seed(seed_value):
        raise _Bad("its seed is out of range")
    if demo not in (0, 1) or isinstance(demo, float):
        raise _Bad("its demo mark is not 0 or 1")
    return MatchRecord(
        id=_int(match_id, "its id", 1, 2**63 - 1),
        started_at=_time(started, "its start"),
        finished_at=None if finished is None else _time(finished, "its end"),
        demo=bool(demo),
        seats=seats,
        rules=_rules(rules),
        seed=seed_value,
        first_dealer=_int(first_dealer, "its first dealer", 0, n - 1),
        winners=_int_list(winners, "its winners", 0, n - 1),
        totals=_int_list(totals, "its totals"),
    )


def _seats(x: object) -> tuple[SeatInfo, ...]:
    """A match's seats from their JSON list (see :data:`_MATCH_SELECT`)."""
    if not isinstance(x, str):
        raise _Bad("its seats are missing")
    seen = _SEATS_SEEN.get(x)
    if seen is not None:
        return seen
    try:
        data = strict_json(x)
    except ValueError:
        raise _Bad("its seats are not readable") from None
    if not isinstance(data, list) or [d[0] if isinstance(d, list) and len(d) == 4 else None for d in data] != list(
        range(len(data))
    ):
        raise _Bad("its seats are not numbered 0, 1, ...")
    seats = tuple(_seat_from_row(d[1], d[2], d[3]) for d in data)
    if len(_SEATS_SEEN) < 4096:
        _SEATS_SEEN[x] = seats
    return seats


#: Seats read before, by their JSON text (a player meets the same tables again and again).
_SEATS_SEEN: dict[str, tuple[SeatInfo, ...]] = {}


def _seat_from_row(name: object, kind: object, think_ms: object) -> SeatInfo:
    if not isinstance(name, str) or not isinstance(kind, str):
        raise _Bad("a seat's name or kind is not text")
    problem = name_problem(name, "a seat's name")
    if problem is not None:
        raise _Bad(problem)
    if not kind or len(kind) > KIND_MAX or not kind.isprintable() or _US in kind:
        raise _Bad("a seat's kind is not a kind")
    if think_ms is not None:
        think_ms = _int(think_ms, "a seat's think time", 0, 10**7)
    return SeatInfo(name, kind, think_ms)


def _round_from_row(row: Sequence[Any], n: int, with_moves: bool) -> RoundRecord:
    (_, number, dealer, seats, winner, penalties, chips_delta, totals, moves, hints, undos, played_at) = row[:12]
    seat_hints, seat_undos = row[12:]
    round_seats = _int_list(seats, "its seats", 0, n - 1)
    if not round_seats or len(set(round_seats)) != len(round_seats):
        raise _Bad("its seats are not distinct seats")
    if winner is not None and (not _is_int(winner) or winner not in round_seats):
        raise _Bad("its winner is not one of its seats")
    return RoundRecord(
        number=_int(number, "its number", 1),
        dealer=_int(dealer, "its dealer", 0, n - 1),
        seats=round_seats,
        winner=winner,
        penalties=_int_list(penalties, "its penalties", 0, _BIG, n),
        chips_delta=_int_list(chips_delta, "its chips", -_BIG, _BIG, n),
        totals=_int_list(totals, "its totals", -_BIG, _BIG, n),
        moves=_moves(moves) if with_moves else (),
        hints=_int(hints, "its hints", 0),
        undos=_int(undos, "its undos", 0),
        played_at=_time(played_at, "its time"),
        seat_hints=None if seat_hints is None else _int_list(seat_hints, "its seats' hints", 0, _BIG, n),
        seat_undos=None if seat_undos is None else _int_list(seat_undos, "its seats' undos", 0, _BIG, n),
    )


# ---------------------------------------------------------------------- checks before writing
def _checked_time(what: str, when: object, label: str) -> datetime:
    """``when`` in UTC (now when None), checked to read back (:func:`_time`)."""
    try:
        if when is None:
            return _utc(None)
        if not isinstance(when, datetime):
            raise _Bad(f"{label} is not a time")
        utc = _utc(when)
        _time(_time_text(utc), label)
    except _UNREADABLE as exc:
        raise HistoryError(f"could not {what}: {exc}") from None
    return utc


def _checked_ints(what: str, xs: object, label: str, lo: int, hi: int) -> str:
    """The text of the list of ints ``xs``, checked to read back (:func:`_int_list`)."""
    try:
        if not isinstance(xs, Sequence) or isinstance(xs, str | bytes):
            raise _Bad(f"{label} is not a list of numbers")
        text = _ints_text(xs)
        _int_list(text, label, lo, hi)
    except _UNREADABLE as exc:
        raise HistoryError(f"could not {what}: {exc}") from None
    return text


def _checked_round(what: str, r: object, n: int) -> tuple[Any, ...]:
    """The values of round ``r`` of a match of ``n`` seats (``_round_values``), checked to read
    back (:func:`_round_from_row`): what is recorded can always be read."""
    try:
        if not isinstance(r, RoundRecord):
            raise _Bad("it is not a round")
        values = _round_values(0, r)
        _round_from_row(values, n, True)
    except _UNREADABLE as exc:
        raise HistoryError(f"could not {what}: {exc}") from None
    return values


def _match_problem(what: str, seats: object, rules: object, seed: object, first_dealer: object) -> str:
    """The rules' text of a match to record, every value checked to read back;
    :class:`HistoryError` saying what is wrong."""
    if not isinstance(seats, Sequence) or not 1 <= len(seats) <= 8 or not all(isinstance(s, SeatInfo) for s in seats):
        raise HistoryError(f"could not {what}: it needs its seats")
    if not valid_seed(seed):
        raise HistoryError(f"could not {what}: its seed is not a 64-bit number or a secret")
    if not _is_int(first_dealer) or not 0 <= first_dealer < len(seats):  # type: ignore[operator]
        raise HistoryError(f"could not {what}: its first dealer is not one of its seats")
    try:
        for s in seats:
            _seat_from_row(s.name, s.kind, s.think_ms)
        if not isinstance(rules, dict):
            raise _Bad("its rules are not a table of settings")
        text = json.dumps(dict(rules), separators=(",", ":"), allow_nan=False)
        _rules(text)
    except _UNREADABLE as exc:
        raise HistoryError(f"could not {what}: {exc}") from None
    return text


def quote_id(x: object) -> str:
    return str(x) if _is_int(x) else "?"


def _said(exc: BaseException) -> str:
    """What is wrong with a value, from what reading it raised."""
    return str(exc) if isinstance(exc, _Bad) else f"a value cannot be read ({type(exc).__name__})"


def _replace_rounds(record: MatchRecord, rounds: tuple[RoundRecord, ...]) -> MatchRecord:
    return dataclasses.replace(record, rounds=rounds)


def _with_rounds(
    record: MatchRecord, rows: Sequence[Sequence[Any]], moves: bool, problem: Callable[[str], None]
) -> MatchRecord:
    n = len(record.seats)
    rounds: list[RoundRecord] = []
    for row in rows:
        try:
            rounds.append(_round_from_row(row, n, moves))
        except _UNREADABLE as exc:
            problem(f"round {quote_id(row[1])} of match {record.id} was skipped: {_said(exc)}")
    return _replace_rounds(record, tuple(rounds))
