"""Several people at one keyboard: who sits there now, and the handoff screen between them.

A table of two or more humans keeps each hand for its owner. :class:`Seating` knows which human
confirmed being at the keyboard; the game screen draws a hand only for the human on turn once
that person has confirmed (:meth:`Seating.open_seat`). :class:`HandoffScreen` fills the terminal
between two turns of different humans, at every deal and when a match is resumed: nobody's cards
are drawn while it shows. With one human nothing of this applies: that player's hand is always
open, as at any table. The same screen hands the keyboard over outside a turn too (``about``:
a replay seen from one person's seat), and then Esc goes back instead.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Center, Vertical
from textual.screen import Screen
from textual.widgets import Button, Static

from kc_tui.i18n import N_, _
from kc_tui.match.seating import Seating
from kc_tui.ui.literal_text import fill, plain
from kc_tui.util.printable import is_you, possessive


def handoff_line(name: str) -> str:
    """The handoff's request: "Ben's turn: press Enter when Ben is at the keyboard" ("Your
    turn: press Enter when you are at the keyboard" for You)."""
    if is_you(name):
        return _("Your turn: press Enter when you are at the keyboard")
    # Translators: {whose} is {name} with "'s" ("Ben's"); either may be used.
    return _("{whose} turn: press Enter when {name} is at the keyboard").format(whose=possessive(name), name=name)


def here_label(name: str) -> str:
    """The handoff's button: "Ben is here", "You are here" (the name as written)."""
    if is_you(name):
        # Translators: {name} is "You" as the player wrote it (any case).
        return _("{name} are here").format(name=name)
    return _("{name} is here").format(name=name)


def pass_line(name: str) -> str:
    """The request outside a turn: "Pass the keyboard to Ben: press Enter when Ben is at the keyboard"."""
    return _("Pass the keyboard to {name}: press Enter when {name} is at the keyboard").format(name=name)


class HandoffScreen(Screen[bool]):
    """Fills the terminal with whose turn it is; Enter (or the button) says that person is at
    the keyboard (dismissed with True). No hand is drawn anywhere while it shows."""

    CSS_PATH = "handoff.tcss"
    #: Focused when the screen shows (and never looked for once it is leaving: a quick Enter).
    AUTO_FOCUS = "#handoff-ready"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "ready", N_("Ready")),
        Binding("escape", "back", N_("Back"), show=False),
    ]

    def __init__(self, name: str, round_number: int | None = None, *, about: str | None = None) -> None:
        """``name``: the person to come to the keyboard; ``round_number``: the round just dealt
        (said above the request), or None in the middle of a round. ``about``: what opens for
        that person, outside a turn ("Round 2's replay, as Ben saw it"; said above the request,
        and Esc goes back: dismissed with False)."""
        super().__init__()
        self.player = name
        self.round_number = round_number
        self.about = about

    def compose(self) -> ComposeResult:
        with Vertical(id="handoff"):
            if self.about is not None:
                yield Static(plain(self.about), id="handoff-round")
            elif self.round_number is not None:
                yield Static(plain(_("Round {round} is dealt").format(round=self.round_number)), id="handoff-round")
            line = handoff_line(self.player) if self.about is None else pass_line(self.player)
            yield Static(plain(line), id="handoff-line")
            # Translators: $whose is "your" or a name with "'s" ("Ben's"); keep $whose as it is.
            note = _("The others look away: $whose hand opens on the table next.")
            if self.about is not None:
                # Translators: $whose is "your" or a name with "'s" ("Ben's"); keep $whose as it is.
                note = _("The others look away: $whose hand opens next. Esc goes back.")
            yield Static(fill(note, whose=possessive(self.player, start=False)), id="handoff-note")
            with Center():
                yield Button(plain(here_label(self.player)), variant="primary", id="handoff-ready")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_ready()

    def action_ready(self) -> None:
        self.dismiss(True)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.about is not None if action == "back" else True

    def action_back(self) -> None:
        self.dismiss(False)


__all__ = ["HandoffScreen", "Seating", "handoff_line", "pass_line"]
