"""Records read back from the history made fit to show, whatever a damaged or hostile file
holds: names and kinds cut to one short line, rule values checked, totals, margins and counts
clamped to finite bounds, so every figure and plot range the Stats screen and ``kings-corners
stats`` show stays small. A sound record passes through unchanged (the same object)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Any

from kc_tui.config import NAME_MAX
from kc_tui.engine import Rules
from kc_tui.records.rows import MatchRecord, RoundRecord, SeatInfo
from kc_tui.records.summaries import GroupStats, MatchPoint, Summary
from kc_tui.util.printable import one_line

#: The largest total, margin or count shown or plotted (a bigger one, from a damaged history, is
#: shown as this): a plot's range stays finite and small enough to tick.
VALUE_MAX = 10**6
#: The longest rule value shown (a word such as "chips"); the longest line of totals or winners.
RULE_TEXT_MAX = 24
LINE_MAX = 80
#: The rules whose values are whole numbers (from the engine's defaults): another value in a
#: record means "the default".
INT_RULES: dict[str, int] = {
    k: v for k, v in Rules().to_dict().items() if isinstance(v, int) and not isinstance(v, bool)
}


def short_text(value: object, limit: int = NAME_MAX) -> str:
    """``value`` as one line of at most ``limit`` characters (:func:`kc_tui.util.printable.one_line`),
    cut before it is escaped, so a name of millions of characters costs no more than a short one."""
    text = value if isinstance(value, str) else str(value)
    return one_line(text[: limit + 1], limit)


def clamp(value: object, bound: int = VALUE_MAX) -> int:
    """``value`` as a whole number from ``-bound`` to ``bound`` (not a number: 0)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    if isinstance(value, float):
        if not math.isfinite(value):
            return bound if value > 0 else -bound if value < 0 else 0
        value = int(value)
    return max(-bound, min(bound, value))


def rule_int(rules: Mapping[str, Any], key: str, default: int | None = None) -> int:
    """Rule ``key`` of a record as a whole number within the engine's bounds; its default (the
    engine's, or ``default``) when it is missing or not a whole number."""
    fallback = INT_RULES.get(key, 0) if default is None else default
    value = rules.get(key, fallback)
    if isinstance(value, bool) or not isinstance(value, int) or abs(value) > VALUE_MAX:
        return fallback
    return value


def _safe_rules(rules: object) -> dict[str, Any]:
    """The rules of a record with every value checked: a whole-number rule that is not one is
    left out (the default applies), a word is cut to :data:`RULE_TEXT_MAX`, anything else dropped."""
    if not isinstance(rules, Mapping):
        return {}
    out: dict[str, Any] = {}
    for key, value in list(rules.items())[:64]:
        if not isinstance(key, str) or len(key) > RULE_TEXT_MAX:
            continue
        if key in INT_RULES:
            if not isinstance(value, bool) and isinstance(value, int) and abs(value) <= VALUE_MAX:
                out[key] = value
        elif isinstance(value, bool) or (isinstance(value, int) and abs(value) <= VALUE_MAX):
            out[key] = value
        elif isinstance(value, str):
            out[key] = short_text(value, RULE_TEXT_MAX)
    return out


def _safe_seat(seat: SeatInfo) -> SeatInfo:
    name, kind = short_text(seat.name), short_text(seat.kind)
    if name == seat.name and kind == seat.kind:
        return seat
    return SeatInfo(name, kind, seat.think_ms)


def _ints(values: Sequence[int], most: int = 16) -> tuple[int, ...]:
    return tuple(clamp(v) for v in values[:most])


def _safe_round(r: RoundRecord) -> RoundRecord:
    totals = _ints(r.totals)
    if totals == r.totals:
        return r
    return dataclasses.replace(r, totals=totals)


def safe_record(m: MatchRecord) -> MatchRecord:
    """``m`` fit to show: names and kinds cut to :data:`~kc_tui.config.NAME_MAX` characters (on
    one line), rule values checked (:func:`_safe_rules`), totals within :data:`VALUE_MAX`, winners
    only seats that exist. ``m`` itself when it needs nothing (the usual case)."""
    seats = tuple(_safe_seat(s) for s in m.seats[:16])
    rules = _safe_rules(m.rules)
    totals = _ints(m.totals)
    winners = tuple(w for w in m.winners[:16] if isinstance(w, int) and 0 <= w < len(seats))
    rounds = tuple(_safe_round(r) for r in m.rounds)
    if (
        seats == m.seats
        and rules == m.rules
        and totals == m.totals
        and winners == m.winners
        and all(a is b for a, b in zip(rounds, m.rounds, strict=True))
    ):
        return m
    return dataclasses.replace(m, seats=seats, rules=rules, totals=totals, winners=winners, rounds=rounds)


def _safe_point(p: MatchPoint) -> MatchPoint:
    total, margin = clamp(p.total), clamp(p.margin)
    if total == p.total and margin == p.margin:
        return p
    return dataclasses.replace(p, total=total, margin=margin)


def _safe_group(g: GroupStats) -> GroupStats:
    counts = {
        f.name: clamp(getattr(g, f.name), 10**12)
        for f in dataclasses.fields(g)
        if f.name not in ("opponent", "table_size")
    }
    return GroupStats(short_text(g.opponent), clamp(g.table_size, 99), **counts)


def safe_summary(summary: Summary) -> Summary:
    """``summary`` fit to show: kinds cut to :data:`~kc_tui.config.NAME_MAX` characters, counts
    and margins clamped (:func:`clamp`), so every figure and plot range stays finite and small."""
    return Summary(
        groups=tuple(_safe_group(g) for g in summary.groups),
        overall=_safe_group(summary.overall),
        best=None if summary.best is None else _safe_point(summary.best),
        worst=None if summary.worst is None else _safe_point(summary.worst),
        current_streak=clamp(summary.current_streak, 10**12),
        longest_streak=clamp(summary.longest_streak, 10**12),
        points=tuple(_safe_point(p) for p in summary.points),
        unfinished=clamp(summary.unfinished, 10**12),
    )


__all__ = [
    "LINE_MAX",
    "RULE_TEXT_MAX",
    "VALUE_MAX",
    "clamp",
    "rule_int",
    "safe_record",
    "safe_summary",
    "short_text",
]
