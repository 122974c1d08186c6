"""The game screen's words: the notice of a terminal too small for the table, and hints."""

from __future__ import annotations

from rich.text import Text

from kc_tui.engine import END, Move
from kc_tui.match.session import MatchSession

#: The smallest terminal the table fits in.
MIN_WIDTH = 80
MIN_HEIGHT = 24


def too_small_text(width: int, height: int) -> Text:
    return Text.assemble(
        ("The terminal is too small for the table.\n\n", "bold"),
        f"Please enlarge it to at least {MIN_WIDTH}×{MIN_HEIGHT}\n",
        (f"(it is {width}×{height} now).\n\n", "dim"),
        ("The game is paused and will be here, untouched, when it fits.", "italic"),
        justify="center",
    )


def hint_body(session: MatchSession, m: Move, note: str | None) -> str:
    """A hint ``m`` for the seat on turn in words: the planner's ``note`` (its plan and why) when
    it gave one, else what the move does."""
    if note is not None:
        return note.removeprefix("Hint: ")
    if m == END:
        if len(session.view(session.to_move).legal_moves()) > 1:
            return "keep your cards: every play you have would open a place for the others; end your turn (t)."
        return "nothing you hold can be played; end your turn (t)."
    return session.suggest(m)


def hint_text(keys: list[str], body: str) -> Text:
    """A hint as the message area shows it: the keys that play it, then its words."""
    head = f"Hint ({'; '.join(keys)}): " if keys else "Hint: "
    return Text.assemble((head, "bold"), body)


__all__ = ["MIN_HEIGHT", "MIN_WIDTH", "hint_body", "hint_text", "too_small_text"]
