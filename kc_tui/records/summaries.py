"""A person's statistics from the history: by opponent and table size (:class:`GroupStats`), match
by match (:class:`MatchPoint`), the whole (:class:`Summary`); the results of every human seat kept
with every match (:func:`_update_results`). A person is a name: the name of the human seats they
sat at. Plain Python: the connection is handed in."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from kc_tui.config import NAME_MAX
from kc_tui.records.rows import (
    _BIG,
    _MATCH_SELECT,
    _ROUND_SELECT_NO_MOVES,
    _UNREADABLE,
    _US,
    KIND_MAX,
    MatchRecord,
    RoundRecord,
    _match_from_row,
    _replace_rounds,
    _round_from_row,
)

if TYPE_CHECKING:
    import sqlite3


# ---------------------------------------------------------------------- statistics
def _per(part: int, whole: int) -> float:
    """``part`` a ``whole`` (0 when there is none)."""
    return part / whole if whole else 0.0


@dataclass(frozen=True)
class GroupStats:
    """The player's results against one opponent kind at one table size (``opponent`` "all" and
    ``table_size`` 0: every match). A match with several opponent kinds counts for each kind."""

    opponent: str
    table_size: int
    #: Finished matches, and those the player won (a shared win counts).
    matches: int = 0
    matches_won: int = 0
    #: Rounds played (unfinished matches' too), and those the player went out in.
    rounds: int = 0
    rounds_won: int = 0
    #: The player's penalties (R15) summed over those rounds, and the hints asked for.
    penalty_total: int = 0
    hints: int = 0
    undos: int = 0

    @property
    def mean_penalty(self) -> float:
        return _per(self.penalty_total, self.rounds)

    @property
    def hints_per_round(self) -> float:
        return _per(self.hints, self.rounds)

    @property
    def match_win_rate(self) -> float:
        return _per(self.matches_won, self.matches)

    @property
    def round_win_rate(self) -> float:
        return _per(self.rounds_won, self.rounds)


@dataclass(frozen=True)
class MatchPoint:
    """One finished match for plots: its id, when it ended, the player's final total, won or not.
    ``margin``: how far ahead of the best opponent the player finished (negative: behind), in
    points under points scoring (fewer is better) or chips under chips scoring."""

    match_id: int
    finished_at: datetime | None
    total: int
    won: bool
    margin: int


@dataclass(frozen=True)
class Summary:
    """A person's statistics (:func:`summarize`); demos are never in it."""

    #: By (opponent kind, table size), sorted by kind then size.
    groups: tuple[GroupStats, ...] = ()
    #: Every match and round together.
    overall: GroupStats = field(default_factory=lambda: GroupStats("all", 0))
    #: The finished match with the largest margin, and the one with the smallest.
    best: MatchPoint | None = None
    worst: MatchPoint | None = None
    #: Matches won in a row up to the latest finished one, and the longest such run.
    current_streak: int = 0
    longest_streak: int = 0
    #: Every finished match, oldest first (for plots).
    points: tuple[MatchPoint, ...] = ()
    #: Matches started and not finished (abandoned or in progress).
    unfinished: int = 0

    @property
    def by_opponent(self) -> tuple[GroupStats, ...]:
        return self.groups


class _Tally:
    __slots__ = ("hints", "matches", "matches_won", "penalty_total", "rounds", "rounds_won", "undos")

    def __init__(self) -> None:
        self.matches = self.matches_won = self.rounds = self.rounds_won = 0
        self.penalty_total = self.hints = self.undos = 0

    def freeze(self, opponent: str, size: int) -> GroupStats:
        return GroupStats(
            opponent,
            size,
            self.matches,
            self.matches_won,
            self.rounds,
            self.rounds_won,
            self.penalty_total,
            self.hints,
            self.undos,
        )


@dataclass(frozen=True, slots=True)
class PlayerRounds:
    """The player's rounds of one match, added up: played, won, penalties, hints, undos."""

    rounds: int = 0
    rounds_won: int = 0
    penalty: int = 0
    hints: int = 0
    undos: int = 0


def player_rounds(rounds: Iterable[RoundRecord], seat: int, *, own_hints: bool = True) -> PlayerRounds:
    """What the player at match seat ``seat`` did in ``rounds`` (only the rounds it played count).
    A round's hints and undos are the seat's own where the round has every seat's; a round with
    the table's counts only counts them for the seat when ``own_hints`` (it is the match's one
    human seat)."""
    played = won = penalty = hints = undos = 0
    for r in rounds:
        if seat not in r.seats:
            continue
        played += 1
        won += r.winner == seat
        penalty += r.penalties[seat] if seat < len(r.penalties) else 0
        seat_hints, seat_undos = r.hints_of(seat, own=own_hints)
        hints += seat_hints
        undos += seat_undos
    return PlayerRounds(played, won, penalty, hints, undos)


@dataclass(frozen=True, slots=True)
class _PlayerMatch:
    """What the statistics need of one of the player's matches."""

    id: int
    finished_at: datetime | None
    size: int
    #: The opponents' kinds, each once, sorted.
    opponents: tuple[str, ...]
    #: The player's total, whether it won (a shared win counts), its margin (:class:`MatchPoint`).
    total: int
    won: bool
    margin: int
    rounds: PlayerRounds


def _update_results(con: sqlite3.Connection, match_id: int, rounds_select: str = _ROUND_SELECT_NO_MOVES) -> None:
    """Work out the results of every human seat of match ``match_id`` into ``player_results``
    (version 4), as :func:`summarize` would from its record: what :meth:`History.summary` reads.
    A match with no human seat, or one that cannot be read, has no results (left out of the
    statistics); rounds that cannot be read are left out. ``rounds_select``: the columns of its
    rounds to read (a history being migrated reads those of its version)."""
    con.execute("DELETE FROM player_results WHERE match_id = ?", (match_id,))
    row = con.execute(f"{_MATCH_SELECT} WHERE m.id = ?", (match_id,)).fetchone()
    if row is None:
        return
    try:
        record = _match_from_row(row)
    except _UNREADABLE:
        return
    seats = record.human_seats
    if not seats:
        return
    rows = con.execute(f"SELECT {rounds_select} FROM rounds WHERE match_id = ?", (match_id,)).fetchall()
    rounds: list[RoundRecord] = []
    for r in rows:
        try:
            rounds.append(_round_from_row(r, len(record.seats), with_moves=False))
        except _UNREADABLE:
            continue
    record = _replace_rounds(record, tuple(rounds))
    values: list[tuple[Any, ...]] = []
    for seat in seats:
        pm = _player_match(record, seat)
        t = pm.rounds
        values.append(
            (
                match_id,
                seat,
                record.seats[seat].name,
                pm.size,
                _US.join(pm.opponents),
                pm.total,
                int(pm.won),
                pm.margin,
                t.rounds,
                t.rounds_won,
                t.penalty,
                t.hints,
                t.undos,
            )
        )
    con.executemany(f"INSERT INTO player_results ({_RESULT_COLUMNS}) VALUES ({', '.join('?' * 13)})", values)


#: The columns of a ``player_results`` row, in the order :func:`_update_results` gives them.
_RESULT_COLUMNS = (
    "match_id, seat, person, size, opponents, total, won, margin, rounds, rounds_won, penalty, hints, undos"
)


def _chips(rules: dict[str, Any]) -> bool:
    return rules.get("scoring") == "chips"


def _result(totals: Sequence[int], winners: Sequence[int], seat: int, chips: bool) -> tuple[int, bool, int]:
    """The player's (total, won, margin) from a match's final totals and winners."""
    mine = totals[seat] if seat < len(totals) else 0
    others = [t for i, t in enumerate(totals) if i != seat]
    if not others:
        margin = 0
    elif chips:
        margin = mine - max(others)
    else:
        margin = min(others) - mine
    return mine, seat in winners, margin


def match_point(m: MatchRecord, seat: int) -> MatchPoint:
    """The plot point of finished match ``m`` for the player at ``seat``."""
    total, won, margin = _result(m.totals, m.winners, seat, _chips(m.rules))
    return MatchPoint(m.id, m.finished_at, total, won, margin)


def _player_match(m: MatchRecord, seat: int) -> _PlayerMatch:
    total, won, margin = _result(m.totals, m.winners, seat, _chips(m.rules))
    own_hints = m.human_seats == (seat,)
    return _PlayerMatch(
        id=m.id,
        finished_at=m.finished_at,
        size=len(m.seats),
        opponents=tuple(sorted({s.kind for i, s in enumerate(m.seats) if i != seat})),
        total=total,
        won=won,
        margin=margin,
        rounds=player_rounds(m.rounds, seat, own_hints=own_hints),
    )


#: A person's matches whose kept results have their types and are in their ranges (what
#: :func:`_update_results` writes; sums of up to 10**9 matches of them cannot overflow), for
#: :meth:`History.summary`; the one parameter is the person.
_PERSON_MATCHES = f"""
FROM player_results r JOIN matches m ON m.id = r.match_id
WHERE r.person = ? AND m.demo = 0 AND typeof(r.seat) = 'integer' AND r.seat BETWEEN 0 AND 7
    AND typeof(m.started_at) = 'text' AND length(m.started_at) <= 64
    AND (m.finished_at IS NULL OR (typeof(m.finished_at) = 'text' AND length(m.finished_at) <= 64))
    AND typeof(r.size) = 'integer' AND r.size BETWEEN 1 AND 8
    AND typeof(r.opponents) = 'text' AND length(r.opponents) <= {8 * (KIND_MAX + 1)}
    AND typeof(r.total) = 'integer' AND r.total BETWEEN -{_BIG} AND {_BIG}
    AND typeof(r.won) = 'integer' AND r.won IN (0, 1)
    AND typeof(r.margin) = 'integer' AND r.margin BETWEEN -{2 * _BIG} AND {2 * _BIG}
    AND typeof(r.rounds) = 'integer' AND r.rounds BETWEEN 0 AND {_BIG}
    AND typeof(r.rounds_won) = 'integer' AND r.rounds_won BETWEEN 0 AND r.rounds
    AND typeof(r.penalty) = 'integer' AND r.penalty BETWEEN 0 AND {_BIG}
    AND typeof(r.hints) = 'integer' AND r.hints BETWEEN 0 AND {_BIG}
    AND typeof(r.undos) = 'integer' AND r.undos BETWEEN 0 AND {_BIG}
"""
#: By (opponents, table size): the sums :func:`_summary` adds up.
_SUMMARY_GROUPS_SQL = f"""
SELECT r.opponents, r.size, COUNT(*), SUM(m.finished_at IS NOT NULL),
    SUM(m.finished_at IS NOT NULL AND r.won != 0), SUM(r.rounds), SUM(r.rounds_won),
    SUM(r.penalty), SUM(r.hints), SUM(r.undos)
{_PERSON_MATCHES}
GROUP BY r.opponents, r.size
"""
#: The finished matches, in the order they ended.
_SUMMARY_POINTS_SQL = f"""
SELECT m.id, m.finished_at, r.total, r.won != 0, r.margin
{_PERSON_MATCHES} AND m.finished_at IS NOT NULL
ORDER BY m.finished_at, m.started_at, m.id, r.seat
"""
_SUMMARY_COUNT_SQL = (
    "SELECT COUNT(*) FROM player_results r JOIN matches m ON m.id = r.match_id WHERE r.person = ? AND m.demo = 0"
)
#: The people who played (no demos), most matches first: name and matches.
_PEOPLE_SQL = f"""
SELECT r.person, COUNT(DISTINCT r.match_id) AS n
FROM player_results r JOIN matches m ON m.id = r.match_id
WHERE m.demo = 0 AND typeof(r.person) = 'text' AND length(r.person) <= {NAME_MAX}
GROUP BY r.person ORDER BY n DESC, r.person
"""

#: The sums kept for one (opponents, table size): matches, finished, won, rounds, rounds won,
#: penalty, hints, undos.
_Sums = list[int]


def people_of(matches: Iterable[MatchRecord]) -> list[str]:
    """The names of the humans who played ``matches`` (demos left out), most matches first (then
    by name)."""
    counts: dict[str, int] = {}
    for m in matches:
        if not m.demo:
            for name in {m.seats[i].name for i in m.human_seats}:
                counts[name] = counts.get(name, 0) + 1
    return sorted(counts, key=lambda name: (-counts[name], name))


def summarize(matches: Sequence[MatchRecord], person: str | None = None) -> Summary:
    """The statistics of ``person`` (the human seats of that name; None: the person who played most,
    :func:`people_of`) over ``matches`` (records with their rounds, in any order). Demos and
    matches without the person are left out. :meth:`History.summary` gives the same from the
    database without reading the rounds."""
    if person is None:
        people = people_of(matches)
        if not people:
            return Summary()
        person = people[0]
    combos: dict[tuple[tuple[str, ...], int], _Sums] = {}
    points: list[MatchPoint] = []
    for m in sorted(matches, key=lambda m: (m.finished_at or m.started_at, m.started_at, m.id)):
        if m.demo:
            continue
        for seat in m.seats_of(person):
            pm = _player_match(m, seat)
            sums = combos.setdefault((pm.opponents, pm.size), [0] * 8)
            finished = pm.finished_at is not None
            r = pm.rounds
            for i, x in enumerate(
                (1, finished, finished and pm.won, r.rounds, r.rounds_won, r.penalty, r.hints, r.undos)
            ):
                sums[i] += x
            if finished:
                points.append(MatchPoint(pm.id, pm.finished_at, pm.total, pm.won, pm.margin))
    return _summary(combos, points)


def _summary(combos: dict[tuple[tuple[str, ...], int], _Sums], points: list[MatchPoint]) -> Summary:
    """The statistics from the sums of every (opponents, table size) and the finished matches'
    points in the order they ended."""
    overall = _Tally()
    groups: dict[tuple[str, int], _Tally] = {}
    unfinished = 0
    for (opponents, size), (n, finished, won, rounds, rounds_won, penalty, hints, undos) in combos.items():
        unfinished += n - finished
        for t in [overall, *(groups.setdefault((k, size), _Tally()) for k in opponents)]:
            t.matches += finished
            t.matches_won += won
            t.rounds += rounds
            t.rounds_won += rounds_won
            t.penalty_total += penalty
            t.hints += hints
            t.undos += undos
    streak = longest = 0
    for p in points:
        streak = streak + 1 if p.won else 0
        longest = max(longest, streak)
    best = max(points, key=lambda p: (p.margin, p.won), default=None)
    worst = min(points, key=lambda p: (p.margin, p.won), default=None)
    return Summary(
        groups=tuple(t.freeze(k, size) for (k, size), t in sorted(groups.items())),
        overall=overall.freeze("all", 0),
        best=best,
        worst=worst,
        current_streak=streak,
        longest_streak=longest,
        points=tuple(points),
        unfinished=unfinished,
    )
