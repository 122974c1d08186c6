"""What the plain mode's ``help`` says at a table of this machine."""

from __future__ import annotations

from kc_tui.i18n import _
from kc_tui.plain.reading import Command


def help_lines() -> list[str]:
    """How to type a move, and the commands."""
    return [
        _("Type a move by its number in the list of moves, or in words: 7h north, move east to north, end."),
        # Translators: {commands} are the commands' words as typed (hand, table, moves ...).
        _("Commands: {commands}.").format(commands=", ".join(c.value for c in Command)),
    ]


__all__ = ["help_lines"]
