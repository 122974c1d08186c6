"""The player's statistics from the history: by opponent and table size (:class:`GroupStats`), match
by match (:class:`MatchPoint`), the whole (:class:`Summary`); the player's results kept with every
match (:func:`_update_player`). Plain Python: the connection is handed in."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from kc_tui.config import HUMAN
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
    """The player's statistics (:func:`summarize`); demos are never in it."""

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


def player_rounds(rounds: Iterable[RoundRecord], seat: int) -> PlayerRounds:
    """What the player at match seat ``seat`` did in ``rounds`` (only the rounds it played count)."""
    played = won = penalty = hints = undos = 0
    for r in rounds:
        if seat not in r.seats:
            continue
        played += 1
        won += r.winner == seat
        penalty += r.penalties[seat] if seat < len(r.penalties) else 0
        hints += r.hints
        undos += r.undos
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


def _update_player(con: sqlite3.Connection, match_id: int) -> None:
    """Work out the player's (the human seat's) results of match ``match_id`` into its ``player_*``
    columns (version 2), as :func:`summarize` would from its record: what :meth:`History.summary`
    reads. A match with no human seat, or one that cannot be read, gets ``player_seat`` NULL
    (left out of the statistics); rounds that cannot be read are left out."""
    row = con.execute(f"{_MATCH_SELECT} WHERE m.id = ?", (match_id,)).fetchone()
    if row is None:
        return
    try:
        record = _match_from_row(row)
    except _UNREADABLE:
        con.execute("UPDATE matches SET player_seat = NULL WHERE id = ?", (match_id,))
        return
    seat = record.human_seat()
    if seat is None:
        con.execute("UPDATE matches SET player_seat = NULL WHERE id = ?", (match_id,))
        return
    rows = con.execute(f"SELECT {_ROUND_SELECT_NO_MOVES} FROM rounds WHERE match_id = ?", (match_id,)).fetchall()
    rounds: list[RoundRecord] = []
    for r in rows:
        try:
            rounds.append(_round_from_row(r, len(record.seats), with_moves=False))
        except _UNREADABLE:
            continue
    pm = _player_match(_replace_rounds(record, tuple(rounds)), seat)
    t = pm.rounds
    con.execute(
        "UPDATE matches SET player_seat = ?, player_size = ?, player_opponents = ?, player_total = ?,"
        " player_won = ?, player_margin = ?, player_rounds = ?, player_rounds_won = ?, player_penalty = ?,"
        " player_hints = ?, player_undos = ? WHERE id = ?",
        (
            seat,
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
            match_id,
        ),
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
    return _PlayerMatch(
        id=m.id,
        finished_at=m.finished_at,
        size=len(m.seats),
        opponents=tuple(sorted({s.kind for i, s in enumerate(m.seats) if i != seat})),
        total=total,
        won=won,
        margin=margin,
        rounds=player_rounds(m.rounds, seat),
    )


#: The player's matches whose kept results have their types and are in their ranges (what
#: :func:`_update_player` writes; sums of up to 10**9 matches of them cannot overflow), for
#: :meth:`History.summary`.
_PLAYER_MATCHES = f"""
FROM matches
WHERE demo = 0 AND typeof(player_seat) = 'integer' AND player_seat BETWEEN 0 AND 7
    AND typeof(started_at) = 'text' AND length(started_at) <= 64
    AND (finished_at IS NULL OR (typeof(finished_at) = 'text' AND length(finished_at) <= 64))
    AND typeof(player_size) = 'integer' AND player_size BETWEEN 1 AND 8
    AND typeof(player_opponents) = 'text' AND length(player_opponents) <= {8 * (KIND_MAX + 1)}
    AND typeof(player_total) = 'integer' AND player_total BETWEEN -{_BIG} AND {_BIG}
    AND typeof(player_won) = 'integer' AND player_won IN (0, 1)
    AND typeof(player_margin) = 'integer' AND player_margin BETWEEN -{2 * _BIG} AND {2 * _BIG}
    AND typeof(player_rounds) = 'integer' AND player_rounds BETWEEN 0 AND {_BIG}
    AND typeof(player_rounds_won) = 'integer' AND player_rounds_won BETWEEN 0 AND player_rounds
    AND typeof(player_penalty) = 'integer' AND player_penalty BETWEEN 0 AND {_BIG}
    AND typeof(player_hints) = 'integer' AND player_hints BETWEEN 0 AND {_BIG}
    AND typeof(player_undos) = 'integer' AND player_undos BETWEEN 0 AND {_BIG}
"""
#: By (opponents, table size): the sums :func:`_summary` adds up.
_SUMMARY_GROUPS_SQL = f"""
SELECT player_opponents, player_size, COUNT(*), SUM(finished_at IS NOT NULL),
    SUM(finished_at IS NOT NULL AND player_won != 0), SUM(player_rounds), SUM(player_rounds_won),
    SUM(player_penalty), SUM(player_hints), SUM(player_undos)
{_PLAYER_MATCHES}
GROUP BY player_opponents, player_size
"""
#: The finished matches, in the order they ended.
_SUMMARY_POINTS_SQL = f"""
SELECT id, finished_at, player_total, player_won != 0, player_margin
{_PLAYER_MATCHES} AND finished_at IS NOT NULL
ORDER BY finished_at, started_at, id
"""
_SUMMARY_COUNT_SQL = "SELECT COUNT(*) FROM matches WHERE demo = 0 AND player_seat IS NOT NULL"

#: The sums kept for one (opponents, table size): matches, finished, won, rounds, rounds won,
#: penalty, hints, undos.
_Sums = list[int]


def summarize(matches: Sequence[MatchRecord], human: str = HUMAN) -> Summary:
    """The statistics of the player (the seat whose kind is ``human``) over ``matches`` (records
    with their rounds, in any order). Demos and matches with no such seat are left out.
    :meth:`History.summary` gives the same from the database without reading the rounds."""
    combos: dict[tuple[tuple[str, ...], int], _Sums] = {}
    points: list[MatchPoint] = []
    for m in sorted(matches, key=lambda m: (m.finished_at or m.started_at, m.started_at, m.id)):
        seat = m.human_seat(human)
        if m.demo or seat is None:
            continue
        pm = _player_match(m, seat)
        sums = combos.setdefault((pm.opponents, pm.size), [0] * 8)
        finished = pm.finished_at is not None
        r = pm.rounds
        for i, x in enumerate((1, finished, finished and pm.won, r.rounds, r.rounds_won, r.penalty, r.hints, r.undos)):
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
