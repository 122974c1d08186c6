"""A viewer's ``state`` message: only the encoding of what that viewer may see, made by the
table's one view function (:meth:`kc_tui.match.table.TableDriver.snapshot`) and nothing else
(docs/PROTOCOL.md, docs/SECURITY.md); and a viewer's ``replay`` of a finished round: only an
encoding of that viewer's view of each position (:meth:`kc_tui.match.replay.RoundReplay.snapshot`,
the hands never opened). Plain Python."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from kc_tui.engine import move_str
from kc_tui.net.codec import encode
from kc_tui.net.protocol import write
from kc_tui.net.schema import LOG_LINES, MAX_MESSAGE, ReplayFrame, ReplayMsg, StateMsg
from kc_tui.net.wire import to_wire

if TYPE_CHECKING:
    from kc_tui.match.replay import RoundReplay
    from kc_tui.match.table import TableDriver
    from kc_tui.match.view import TableSnapshot


def served_view(snap: TableSnapshot, *, connected: Sequence[bool], stand_in: Sequence[bool]) -> TableSnapshot:
    """``snap`` as a remote viewer gets it: the log cut to its last :data:`LOG_LINES`, what only
    the server knows of each seat (its person connected, an AI standing in) filled in, and no
    review (the viewer's machine holds its own cards only)."""
    seats = tuple(
        seat
        if (seat.connected, seat.stand_in) == (connected[seat.seat], stand_in[seat.seat])
        else dataclasses.replace(seat, connected=connected[seat.seat], stand_in=stand_in[seat.seat])
        for seat in snap.seats
    )
    if seats == snap.seats and len(snap.log) <= LOG_LINES and not snap.review:
        return snap
    return dataclasses.replace(snap, log=snap.log[-LOG_LINES:], seats=seats, review=False)


def states(
    driver: TableDriver,
    viewers: Iterable[int | None],
    *,
    stamp: int,
    connected: Sequence[bool],
    stand_in: Sequence[bool],
) -> dict[int | None, str]:
    """The ``state`` message of each of ``viewers`` (match seats, None for spectators): each only
    the encoding of that viewer's own view (``driver.snapshot(viewer)``, :func:`served_view`)."""
    out: dict[int | None, str] = {}
    for viewer in viewers:
        if viewer not in out:
            view = served_view(driver.snapshot(viewer), connected=connected, stand_in=stand_in)
            out[viewer] = write(StateMsg(stamp, view))
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
        frame = ReplayFrame(
            move=None if position == 0 else move_str(replay.moves[position - 1]),
            log=tuple(replay.lines_of(position)),
            piles=snap.piles,
            stock=snap.stock,
            cards=tuple(seat.cards if seat.playing else None for seat in snap.seats),
            to_move=snap.to_move,
            hand=snap.hand,
            drawn=snap.drawn,
            totals=tuple(snap.totals),
            pot=snap.pot,
        )
        frames.append(encode(to_wire(frame)))
    return frames


def replay_page(
    frames: Sequence[str], start: int, *, id: int | None, number: int, seat: int | None, dealer: int, winner: int | None
) -> str:
    """The ``replay`` message of ``frames`` (every position's, :func:`replay_frames`) from
    ``start`` on: as many as fit in :data:`MAX_MESSAGE` bytes, one at least (ValueError if one
    alone does not fit, or ``start`` is no position)."""
    if not 0 <= start < len(frames):
        raise ValueError(f"the round has positions 0 to {len(frames) - 1}, not {start}")
    empty = write(ReplayMsg(id, number, seat, len(frames) - 1, start, dealer, winner, ()))
    if not empty.endswith(',"frames":[]}'):  # pragma: no cover - ``frames`` is declared last
        raise ValueError("a replay's frames are its last field")
    head = empty[: -len("]}")]
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


__all__ = ["replay_frames", "replay_page", "served_view", "state", "states"]
