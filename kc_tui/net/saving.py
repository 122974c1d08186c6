"""What the host's console is told of a served table's save and history: when the table starts
holding because its save fails, when a save works again, when the history cannot record a round
(every state says the save's problem too: ``save_problem``).

Plain Python (no Textual, no Rich).
"""

from __future__ import annotations

from collections.abc import Callable

from kc_tui.i18n import _
from kc_tui.match.recorder import Recorder
from kc_tui.match.session import MatchSession


def hold_line(problem: str) -> str:
    """The host's line for a table that holds because its save fails with ``problem``."""
    # Translators: {problem} is why the table cannot be saved ("the disk is full").
    return _(
        "The table holds: it cannot be saved ({problem}). No move is made until it can be;"
        " the save is tried again by itself"
    ).format(problem=problem)


class SaveNotices:
    """Tells ``say`` each change of the save's and the history's problems, once."""

    def __init__(self, say: Callable[[str], None]) -> None:
        self._say = say
        #: The save's problem last told (None: the table is saved).
        self.save_told: str | None = None
        #: The history's problem last told.
        self.history_told: str | None = None

    def tell(self, session: MatchSession, recorder: Recorder | None) -> None:
        problem = session.save_problem if session.saves else None
        if problem is not None and problem != self.save_told:
            self._say(hold_line(problem))
        elif problem is None and self.save_told is not None:
            self._say(_("The table is saved again: play goes on"))
        self.save_told = problem
        history = recorder.status.problem if recorder is not None else None
        if history != self.history_told and history is not None:
            # Translators: {problem} is why the history cannot be written.
            self._say(
                _("The game history could not record the round yet ({problem}): it is kept and tried again").format(
                    problem=history
                )
            )
        self.history_told = history


__all__ = ["SaveNotices", "hold_line"]
