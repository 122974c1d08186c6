"""The replay pages a table server answers: a finished round of its match as the asking seat saw
it (a spectator: as the table did), each position's frame an encoding of that viewer's view there
(:func:`~kc_tui.net.views.replay_frames`), built off the loop and kept for the rounds asked last.

Plain Python and asyncio (no Textual, no Rich).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from kc_tui.engine import card_str
from kc_tui.i18n import _
from kc_tui.match.recorder import match_record
from kc_tui.net import schema, views
from kc_tui.net.protocol import write

if TYPE_CHECKING:
    from kc_tui.match.session import MatchSession
    from kc_tui.records.rows import MatchRecord

#: The rounds whose replay frames are kept (by round and viewer), the latest asked.
REPLAYS_KEPT = 8

Built = tuple[list[str], int, int | None]


class ServedReplays:
    """The replay pages of ``session``'s finished rounds."""

    def __init__(self, session: MatchSession) -> None:
        self.session = session
        #: The frames of the rounds replayed lately, by round and viewer (a finished round never changes).
        self._built: dict[tuple[int, int | None], Built] = {}
        self._lock = asyncio.Lock()

    async def answer(self, request: schema.ReplayRequest, viewer: int | None) -> str:
        """The answer to ``request`` from ``viewer`` (a match seat, None: a spectator): a page of
        frames from the position asked on, or ``refused`` in one line."""
        s = self.session
        number = request.round
        if number > len(s.match.results):
            if number == len(s.match.results) + 1 and not s.match.over:
                why = _("round {number} is still being played: its replay comes once it has ended")
            else:
                why = _("this match has no round {number}")
            return write(schema.RefusedMsg(request.id, why.format(number=number)))
        from kc_tui.match.replay import ReplayError  # the history's records load with the first replay

        try:
            frames, dealer, winner = await self.frames(number, viewer)
        except ReplayError as exc:
            why = _("round {number} cannot be replayed: {problem}")
            return write(schema.RefusedMsg(request.id, why.format(number=number, problem=exc)))
        if request.start >= len(frames):
            # Translators: {last} is the round's last position (its number of moves).
            why = _("round {number} has positions 0 to {last}, not {start}")
            last = len(frames) - 1
            return write(schema.RefusedMsg(request.id, why.format(number=number, last=last, start=request.start)))
        return views.replay_page(
            frames, request.start, id=request.id, number=number, seat=viewer, dealer=dealer, winner=winner
        )

    async def frames(self, number: int, viewer: int | None) -> Built:
        """Round ``number``'s frames for ``viewer``, its dealer and who went out: built off the
        loop, one round at a time, and kept for the rounds asked last (a finished round never
        changes). ReplayError when the match's record does not replay."""
        key = (number, viewer)
        async with self._lock:
            built = self._built.get(key)
            if built is None:
                s = self.session
                record = match_record(s.match, s.seats, s.record)
                style = "ascii" if s.fmt is card_str else "symbols"
                built = await asyncio.to_thread(_replay_of, record, number, viewer, style)
                self._built[key] = built
                while len(self._built) > REPLAYS_KEPT:
                    self._built.pop(next(iter(self._built)))
            return built


def _replay_of(record: MatchRecord, number: int, viewer: int | None, style: str) -> Built:
    """Round ``number`` of ``record`` as ``viewer`` saw it: every position's frame, the dealer and
    who went out (None: blocked). ReplayError when the record does not replay."""
    from kc_tui.match.replay import RoundReplay

    replay = RoundReplay.from_record(record, number, viewer, card_style=style)
    frames = views.replay_frames(replay)
    replay.to_end()
    return frames, replay.dealer, replay.snapshot().winner


__all__ = ["REPLAYS_KEPT", "ServedReplays"]
