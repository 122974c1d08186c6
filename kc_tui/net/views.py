"""A viewer's ``state`` message: only an encoding of what that viewer may see, made by the
table's one view function (:meth:`kc_tui.match.table.TableDriver.snapshot`) and nothing else
(docs/PROTOCOL.md, docs/SECURITY.md). Plain Python."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from kc_tui.engine import Card, card_str, move_str
from kc_tui.net.codec import encode
from kc_tui.net.schema import LOG_LINES, PROTOCOL_VERSION

if TYPE_CHECKING:
    from kc_tui.match.table import TableDriver, TableSnapshot


def cards_text(cards: Sequence[Card]) -> list[str]:
    return [card_str(c) for c in cards]


def public_fields(
    snap: TableSnapshot, *, stamp: int, connected: Sequence[bool], stand_in: Sequence[bool]
) -> dict[str, Any]:
    """The fields of ``state`` every viewer shares, encoded from a spectator's view (no hand at all)."""
    if snap.viewer is not None or any(seat.hand is not None for seat in snap.seats):
        raise ValueError("the shared fields of a state come from the public view only")
    return {
        "stamp": stamp,
        "round": snap.round_number,
        "stock": snap.stock,
        "target": snap.target,
        "pot": snap.pot,
        "piles": [cards_text(pile) for pile in snap.piles],
        "seats": [
            {
                "name": seat.name,
                "kind": seat.kind,
                "cards": seat.cards,
                "score": seat.score,
                "total": seat.total,
                "to_move": seat.to_move,
                "dealer": seat.dealer,
                "winner": seat.winner,
                "connected": connected[seat.seat],
                "stand_in": stand_in[seat.seat],
            }
            for seat in snap.seats
        ],
        "log": list(snap.log[-LOG_LINES:]),
        "results": [list(r) for r in snap.results],
        "waiting_for": snap.waiting_for,
        "over": snap.over,
        "winners": list(snap.winners),
        "end_text": snap.end_text,
        "save_problem": snap.save_problem,
    }


def own_fields(snap: TableSnapshot | None) -> dict[str, Any]:
    """The fields of ``state`` that are one seat's own, encoded from that seat's view (None: a
    spectator's, which has none)."""
    if snap is None or snap.viewer is None:
        return {"seat": None, "hand": None, "drawn": None, "legal": [], "can_undo": False, "undo_note": ""}
    hand = snap.seats[snap.viewer].hand or ()
    return {
        "seat": snap.viewer,
        "hand": cards_text(hand),
        "drawn": None if snap.drawn is None else card_str(snap.drawn),
        "legal": [move_str(m) for m in snap.legal],
        "can_undo": snap.can_undo,
        "undo_note": snap.undo_note,
    }


def states(
    driver: TableDriver,
    viewers: Iterable[int | None],
    *,
    stamp: int,
    connected: Sequence[bool],
    stand_in: Sequence[bool],
) -> dict[int | None, str]:
    """The ``state`` message of each of ``viewers`` (match seats, None for spectators), each
    only an encoding of that viewer's view (``driver.snapshot``): the shared fields encoded once
    from the spectator's view, each seat's own from its own view."""
    shared = public_fields(driver.snapshot(None), stamp=stamp, connected=connected, stand_in=stand_in)
    tail = encode(shared)[1:]  # '"stamp":...}'
    head = encode({"v": PROTOCOL_VERSION, "type": "state"})[:-1]
    out: dict[int | None, str] = {}
    for viewer in viewers:
        if viewer in out:
            continue
        own = own_fields(None if viewer is None else driver.snapshot(viewer))
        out[viewer] = f"{head},{encode(own)[1:-1]},{tail}"
    return out


def state(
    driver: TableDriver, viewer: int | None, *, stamp: int, connected: Sequence[bool], stand_in: Sequence[bool]
) -> str:
    """The ``state`` message of one viewer (see :func:`states`)."""
    return states(driver, [viewer], stamp=stamp, connected=connected, stand_in=stand_in)[viewer]


__all__ = ["cards_text", "own_fields", "public_fields", "state", "states"]
