"""Whose view a replay shows, at a table of several people: each person's (their hand and their
draws, after the keyboard is handed to them) or the table's (no hand, no drawn card named)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from kc_tui.i18n import N_, _
from kc_tui.ui.dialogs.modal import Modal
from kc_tui.ui.literal_text import plain

#: The spectator's choice, after the people's names.
TABLE_VIEW = N_("Table (no hand)")


@dataclass(frozen=True, slots=True)
class View:
    """A choice of :class:`WhoseView`: a person's match seat and name, or the table's view
    (``seat`` and ``name`` None)."""

    seat: int | None = None
    name: str | None = None


class WhoseView(Modal[View | None]):
    """Which view of round ``round_number`` to replay: one of ``people`` (their match seat and
    name, in seat order) or the table's. Enter chooses (dismissed with the :class:`View`); Esc goes
    back (None)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q", "back", N_("Back"))]
    DEFAULT_CSS = """
    WhoseView > Vertical {
        width: 60; max-width: 100%; max-height: 100%; padding: 0 2;
    }
    WhoseView #whose-title { text-style: bold; margin-top: 1; }
    WhoseView #whose-note { color: $text-muted; margin: 1 0; }
    WhoseView #whose-views { height: auto; max-height: 8; }
    WhoseView #whose-keys { color: $text-muted; margin: 1 0; }
    """

    def __init__(self, round_number: int, people: Sequence[tuple[int, str]]) -> None:
        super().__init__()
        self.round_number = round_number
        self.people = tuple(people)

    def compose(self) -> ComposeResult:
        with Vertical():
            title = _("Replay round {number}: whose view?").format(number=self.round_number)
            yield Static(plain(title), id="whose-title")
            yield Static(
                plain(_("A person's view shows their hand and their draws only, once the keyboard is theirs.")),
                id="whose-note",
            )
            options = [Option(plain(name), id=f"seat-{seat}") for seat, name in self.people]
            yield OptionList(*options, Option(plain(_(TABLE_VIEW)), id="table-view"), id="whose-views")
            yield Static(plain(_("Enter chooses · Esc goes back")), id="whose-keys")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        for seat, name in self.people:
            if event.option.id == f"seat-{seat}":
                self.dismiss(View(seat, name))
                return
        self.dismiss(View())

    def action_back(self) -> None:
        self.dismiss(None)


__all__ = ["TABLE_VIEW", "View", "WhoseView"]
