"""The game screen's words: its hints."""

from __future__ import annotations

from rich.text import Text

from kc_tui.engine import END, Move
from kc_tui.i18n import _
from kc_tui.match.session import MatchSession


def hint_body(session: MatchSession, m: Move, note: str | None) -> str:
    """A hint ``m`` for the seat on turn in words: the planner's ``note`` (its plan and why) when
    it gave one, else what the move does."""
    if note is not None:
        # The planner's note starts "Hint: ", in English or in the player's language.
        return note.removeprefix("Hint: ").removeprefix(_("Hint: "))
    if m == END:
        if len(session.view(session.to_move).legal_moves()) > 1:
            return _("keep your cards: every play you have would open a place for the others; end your turn (t).")
        return _("nothing you hold can be played; end your turn (t).")
    return session.suggest(m)


def hint_text(keys: list[str], body: str) -> Text:
    """A hint as the message area shows it: the keys that play it, then its words."""
    # Translators: {keys} say the keys of the hint, e.g. "press 3 to play it; h: more".
    head = _("Hint ({keys}): ").format(keys="; ".join(keys)) if keys else _("Hint: ")
    return Text.assemble((head, "bold"), body)


__all__ = ["hint_body", "hint_text"]
