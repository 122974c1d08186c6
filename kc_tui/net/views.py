"""A viewer's ``state`` message: only an encoding of what that viewer may see, made by the
table's one view function (:meth:`kc_tui.match.table.TableDriver.snapshot`) and nothing else
(docs/PROTOCOL.md, docs/SECURITY.md); and a viewer's ``replay`` of a finished round: only an
encoding of that viewer's view of each position (:meth:`kc_tui.match.replay.RoundReplay.snapshot`,
the hands never opened). Plain Python."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from kc_tui.engine import Card, card_str, move_str
from kc_tui.net.codec import encode
from kc_tui.net.schema import LOG_LINES, MAX_MESSAGE, PROTOCOL_VERSION

if TYPE_CHECKING:
    from kc_tui.match.replay import RoundReplay
    from kc_tui.match.table import TableDriver
    from kc_tui.match.view import TableSnapshot


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
        "results": [list(r.scores) for r in snap.results],
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


def replay_frames(replay: RoundReplay) -> list[str]:
    """Every position of ``replay`` (a finished round, seen by its viewer) as the JSON text of a
    frame of ``replay`` (docs/PROTOCOL.md): only an encoding of the viewer's snapshot there, its
    own hand and draws, the others' counts; the hands are never opened (ValueError if they are)."""
    frames: list[str] = []
    replay.close_hands()
    for position in range(replay.length + 1):
        replay.seek(position)
        snap = replay.snapshot()
        if snap.hands_open or any(seat.hand is not None and seat.seat != snap.viewer for seat in snap.seats):
            raise ValueError("a replay's frames hold the viewer's own hand only")
        frame = {
            "move": None if position == 0 else move_str(replay.moves[position - 1]),
            "log": replay.lines_of(position),
            "piles": [cards_text(pile) for pile in snap.piles],
            "stock": snap.stock,
            "cards": [seat.cards if seat.playing else None for seat in snap.seats],
            "to_move": snap.to_move,
            "hand": None if snap.hand is None else cards_text(snap.hand),
            "drawn": None if snap.drawn is None else card_str(snap.drawn),
            "totals": list(snap.totals),
            "pot": snap.pot,
        }
        frames.append(encode(frame))
    return frames


def replay_page(
    frames: Sequence[str], start: int, *, id: int | None, number: int, seat: int | None, dealer: int, winner: int | None
) -> str:
    """The ``replay`` message of ``frames`` (every position's, :func:`replay_frames`) from
    ``start`` on: as many as fit in :data:`MAX_MESSAGE` bytes, one at least (ValueError if one
    alone does not fit, or ``start`` is no position)."""
    if not 0 <= start < len(frames):
        raise ValueError(f"the round has positions 0 to {len(frames) - 1}, not {start}")
    fields = {"id": id, "round": number, "seat": seat, "length": len(frames) - 1, "start": start}
    head = encode({"v": PROTOCOL_VERSION, "type": "replay", **fields, "dealer": dealer, "winner": winner})
    head = head[:-1] + ',"frames":['
    room = MAX_MESSAGE - len(head.encode("utf-8")) - len("]}")
    taken: list[str] = []
    for frame in frames[start:]:
        size = len(frame.encode("utf-8")) + (1 if taken else 0)
        if size > room:
            break
        taken.append(frame)
        room -= size
    if not taken:
        raise ValueError(f"position {start} of round {number} does not fit in a message")
    return head + ",".join(taken) + "]}"


__all__ = ["cards_text", "own_fields", "public_fields", "replay_frames", "replay_page", "state", "states"]
