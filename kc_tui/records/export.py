"""The history as plain data: a match as JSON (:func:`match_json`), a round as a flat row for CSV
(:func:`round_row`, :data:`EXPORT_COLUMNS`).

A match's seed (a secret, or the ``--seed`` asked for) is exported only once the match is over:
every deal of a match is drawn from it, so an export shared while a match is still played (a
hosted table, served for days) would let its reader compute the hands and the stock of the rounds
to come. An unfinished match's seed is None in JSON and empty in CSV."""

from __future__ import annotations

import json
from typing import Any

from kc_tui.records.rows import (
    MatchRecord,
    RoundRecord,
)

#: The keys of every row :meth:`History.export_rows` gives, in order.
EXPORT_COLUMNS: tuple[str, ...] = (
    "match_id",
    "started_at",
    "finished_at",
    "demo",
    "players",
    "kinds",
    "think_ms",
    "rules",
    "seed",
    "first_dealer",
    "match_winners",
    "round",
    "dealer",
    "round_seats",
    "winner",
    "winner_name",
    "penalties",
    "chips_delta",
    "totals",
    "hints",
    "undos",
    "played_at",
    "moves",
)


def exported_seed(m: MatchRecord) -> int | None:
    """The seed match ``m`` exports: its own once the match is over, else None."""
    return m.seed if m.finished else None


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def round_row(m: MatchRecord, r: RoundRecord) -> dict[str, Any]:
    """The flat export row of round ``r`` of match ``m`` (keys: :data:`EXPORT_COLUMNS`)."""
    seed = exported_seed(m)
    return {
        "match_id": m.id,
        "started_at": m.started_at.isoformat(),
        "finished_at": "" if m.finished_at is None else m.finished_at.isoformat(),
        "demo": m.demo,
        "players": _compact([s.name for s in m.seats]),
        "kinds": _compact([s.kind for s in m.seats]),
        "think_ms": _compact([s.think_ms for s in m.seats]),
        "rules": _compact(m.rules),
        "seed": "" if seed is None else seed,
        "first_dealer": m.first_dealer,
        "match_winners": _compact(list(m.winners)),
        "round": r.number,
        "dealer": r.dealer,
        "round_seats": _compact(list(r.seats)),
        "winner": "" if r.winner is None else r.winner,
        "winner_name": "" if r.winner is None or r.winner >= len(m.seats) else m.seats[r.winner].name,
        "penalties": _compact(list(r.penalties)),
        "chips_delta": _compact(list(r.chips_delta)),
        "totals": _compact(list(r.totals)),
        "hints": r.hints,
        "undos": r.undos,
        "played_at": r.played_at.isoformat(),
        "moves": _compact(list(r.moves)),
    }


def match_json(m: MatchRecord) -> dict[str, Any]:
    """Match ``m`` as plain JSON data: times as ISO 8601 text, tuples as lists."""
    return {
        "id": m.id,
        "started_at": m.started_at.isoformat(),
        "finished_at": None if m.finished_at is None else m.finished_at.isoformat(),
        "demo": m.demo,
        "seats": [{"name": s.name, "kind": s.kind, "think_ms": s.think_ms} for s in m.seats],
        "rules": dict(m.rules),
        "seed": exported_seed(m),
        "first_dealer": m.first_dealer,
        "winners": list(m.winners),
        "totals": list(m.totals),
        "rounds": [
            {
                "number": r.number,
                "dealer": r.dealer,
                "seats": list(r.seats),
                "winner": r.winner,
                "penalties": list(r.penalties),
                "chips_delta": list(r.chips_delta),
                "totals": list(r.totals),
                "moves": list(r.moves),
                "hints": r.hints,
                "undos": r.undos,
                "played_at": r.played_at.isoformat(),
            }
            for r in m.rounds
        ],
    }
