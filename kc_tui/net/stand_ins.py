"""The AIs that stand in for people whose clients are away from a served table: one per seat,
seeded from the match, told of each new round. Plain Python (no Textual, no Rich)."""

from __future__ import annotations

from ai import AIPlayer
from ai.safe import SafePlayer
from kc_tui.i18n import _
from kc_tui.match.roster import build_ai, seat_seed
from kc_tui.match.session import MatchSession

#: The kind of AI that stands in for a person whose client is away.
STAND_IN_KIND = "lookahead"


class StandIns:
    """The stand-in AIs of ``session``'s person seats, built when first needed."""

    def __init__(self, session: MatchSession, think_ms: int) -> None:
        self.session = session
        self.think_ms = think_ms
        self._players: dict[int, AIPlayer] = {}
        self._round: dict[int, int] = {}

    def player(self, seat: int) -> AIPlayer:
        """``seat``'s stand-in, ready for the round being played."""
        s = self.session
        player = self._players.get(seat)
        if player is None:
            player = SafePlayer(build_ai(STAND_IN_KIND, seat_seed(s.match.seed, seat) + 1000, self.think_ms))
            self._players[seat] = player
        if self._round.get(seat) != s.match.number:
            self._round[seat] = s.match.number
            player.new_round()
        return player

    def choose_seat(self, name: str, seated: set[int], standing_in: set[int]) -> tuple[int | None, str]:
        """The host's ``ai NAME``: the seat an AI may stand in for now (None: none), and the one
        line saying why not, or what happens."""
        s = self.session
        wanted = name.strip().casefold()
        seat = next((i for i, n in enumerate(s.names) if n.casefold() == wanted), None)
        if seat is None:
            # Translators: {name} is the name the host typed (quoted), {names} the seats' names.
            return None, _("no seat is named {name}: the seats are {names}").format(
                name=repr(name.strip()[:40]), names=", ".join(s.names)
            )
        if not s.seats[seat].is_human:
            return None, _("{name} is an AI already").format(name=s.names[seat])
        if seat in seated:
            return None, _("{name} is connected: their seat stays theirs").format(name=s.names[seat])
        if seat in standing_in:
            return None, _("an AI stands in for {name} already").format(name=s.names[seat])
        return seat, _("an AI stands in for {name}").format(name=s.names[seat])


__all__ = ["STAND_IN_KIND", "StandIns"]
