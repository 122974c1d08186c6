"""Whose statistics the Stats screen shows, when several people played: a list of their names
(most matches first) to pick one from. Names are shown literally, never as markup."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from kc_tui.i18n import N_, _
from kc_tui.records.bounded import short_text
from kc_tui.ui.dialogs.modal import Modal
from kc_tui.ui.literal_text import plain, rich_plain
from kc_tui.ui.widgets.footer import Footer


class PersonPicker(Modal[str | None]):
    """Pick one of ``people`` (``current`` highlighted); Enter or a click picks, Escape keeps
    the one shown. Dismissed with the name picked, or None."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q", "close", N_("Close"))]
    DEFAULT_CSS = """
    PersonPicker > Vertical {
        width: 50; max-width: 100%; max-height: 80%; padding: 0 1;
    }
    PersonPicker #people-title { text-style: bold; margin-bottom: 1; }
    PersonPicker #people { height: auto; max-height: 20; }
    """

    def __init__(self, people: Sequence[str], current: str | None) -> None:
        super().__init__()
        self.people = tuple(people)
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(plain(_("Whose statistics?")), id="people-title")
            # Options are named by position: a name is any text.
            yield OptionList(
                *(Option(rich_plain(short_text(p)), id=str(i)) for i, p in enumerate(self.people)), id="people"
            )
        yield Footer()

    def on_mount(self) -> None:
        options = self.query_one("#people", OptionList)
        if self.current in self.people:
            options.highlighted = self.people.index(self.current)
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.dismiss(self.people[int(event.option.id)])

    def action_close(self) -> None:
        self.dismiss(None)
