"""Textual's own texts in the player's language.

Textual (8.2.8, the version the game pins) writes a few texts of its own in English: the
descriptions of its widgets' keys (the Keys panel lists them), the command palette's (its Escape
key, "No matches found"), the footer's palette key ("palette") and the screenshot's toasts. They
are marked here with :func:`~kc_tui.i18n.N_`, in one place, so the catalogs hold them; each is
translated where it is drawn:

- a key's description and tooltip: by the footer (:func:`kc_tui.ui.widgets.footer.shown_text`)
  and by the Keys panel's table (:class:`KeysTable`, in :class:`KeysPanel`);
- the palette's "No matches found": by :class:`Palette`, the game's command palette;
- the screenshot's toasts and the hint that Ctrl+C does not quit: by the app
  (:mod:`kc_tui.ui.app`), which gives them in place of Textual's.

``tests/i18n/test_textual_translated.py`` checks that every key description of a Textual class the
game uses is here, so a newer Textual's new key is found.
"""

from __future__ import annotations

from typing import Final

from rich.align import Align
from rich.console import RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.command import CommandList, CommandPalette
from textual.widgets import HelpPanel, Markdown
from textual.widgets._key_panel import BindingsTable, KeyPanel
from textual.widgets.option_list import Option

from kc_tui.i18n import N_, _

#: The descriptions of the keys of Textual's classes the game uses (App, Screen, the command
#: palette, Button, DataTable, Input, OptionList, ScrollableContainer, Select and its open list,
#: Switch, Tabs).
KEY_WORDS: Final = (
    # App, Screen
    N_("Quit"),
    N_("Quit the app and return to the command prompt."),
    N_("Focus Next"),
    N_("Focus Previous"),
    N_("Copy selected text"),
    N_("palette"),
    N_("Open the command palette"),
    # The command palette
    N_("Exit the command palette"),
    N_("Next command"),
    N_("Previous command"),
    N_("Next page"),
    N_("Previous page"),
    N_("Go to top"),
    N_("Go to bottom"),
    # Button, Switch, Select, Tabs
    N_("Press button"),
    N_("Toggle"),
    N_("Show menu"),
    N_("Dismiss menu"),
    N_("Previous tab"),
    N_("Next tab"),
    # ScrollableContainer (VerticalScroll and the others)
    N_("Scroll Up"),
    N_("Scroll Down"),
    N_("Scroll Left"),
    N_("Scroll Right"),
    N_("Scroll Home"),
    N_("Scroll End"),
    N_("Page Up"),
    N_("Page Down"),
    N_("Page Left"),
    N_("Page Right"),
    # OptionList
    N_("Up"),
    N_("Down"),
    N_("First"),
    N_("Last"),
    N_("Select"),
    # DataTable
    N_("Cursor up"),
    N_("Cursor down"),
    N_("Cursor left"),
    N_("Cursor right"),
    N_("Page up"),
    N_("Page down"),
    N_("Top"),
    N_("Bottom"),
    N_("Home"),
    N_("End"),
    # Input
    N_("Move cursor left"),
    N_("Move cursor left and select"),
    N_("Move cursor left a word"),
    N_("Move cursor left a word and select"),
    N_("Move cursor right or accept the completion suggestion"),
    N_("Move cursor right and select"),
    N_("Move cursor right a word"),
    N_("Move cursor right a word and select"),
    N_("Go to start"),
    N_("Go to end"),
    N_("Select line start"),
    N_("Select line end"),
    N_("Submit"),
    N_("Delete character left"),
    N_("Delete character right"),
    N_("Delete left to start of word"),
    N_("Delete right to start of word"),
    N_("Delete all to the left"),
    N_("Delete all to the right"),
    N_("Cut selected text"),
    N_("Paste text from the clipboard"),
    N_("Select all"),
)

NO_MATCHES = N_("No matches found")
SCREENSHOT = N_("Screenshot")
SCREENSHOT_SAVED = N_("Saved screenshot")
# Translators: {path} is the file the screenshot was saved to, in quotes.
SCREENSHOT_SAVED_TO = N_("Saved screenshot to {path}")
SCREENSHOT_FAILED = N_("Failed to save screenshot")
QUIT_QUESTION = N_("Do you want to quit?")
# Translators: {key} is the key that quits (ctrl+q); Ctrl+C was pressed.
QUIT_HINT = N_("Press {key} to quit the app")


def key_words(binding: Binding) -> Text:
    """What the Keys panel says of ``binding``: its description and its tooltip (dim), as
    Textual's table writes them, in the current language."""
    text = Text.from_markup(_(binding.description) if binding.description else "", end="")
    if binding.tooltip:
        if binding.description:
            text.append(" ")
        text.append(_(binding.tooltip), "dim")
    return text


class KeysTable(BindingsTable):
    """Textual's table of the keys, its descriptions, tooltips and group titles in the current
    language (Textual's table is drawn, then its words are put in the language)."""

    def render_bindings_table(self) -> Table:
        table = super().render_bindings_table()
        english: dict[str, Text] = {}
        for namespace, binding, _enabled, _tooltip in self.screen.active_bindings.values():
            if binding.description or binding.tooltip:
                said = key_words(binding)
                english.setdefault(_english_words(binding), said)
            title = namespace.BINDING_GROUP_TITLE
            if title:
                english.setdefault(title, Text(_(title), end=""))
        if len(table.columns) > 1:
            column = table.columns[1]
            column._cells = [self._in_language(cell, english) for cell in column._cells]
        return table

    @staticmethod
    def _in_language(cell: RenderableType, words: dict[str, Text]) -> RenderableType:
        if not isinstance(cell, Text) or cell.plain not in words:
            return cell
        shown = words[cell.plain].copy()
        shown.style = cell.style
        for span in cell.spans:  # the title's underline, the description's colour
            if span.start == 0 and span.end >= len(cell.plain):
                shown.stylize(span.style)
        return shown


def _english_words(binding: Binding) -> str:
    """The plain text of Textual's own cell for ``binding`` (description, space, tooltip)."""
    text = Text.from_markup(binding.description or "", end="")
    if binding.tooltip:
        if binding.description:
            text.append(" ")
        text.append(binding.tooltip)
    return text.plain


class KeysList(KeyPanel):
    """Textual's panel of the keys, with :class:`KeysTable`."""

    def compose(self) -> ComposeResult:
        yield KeysTable(shrink=True, expand=False)


class KeysPanel(HelpPanel):
    """Textual's Keys panel (the palette's *Keys*), its words in the player's language."""

    def compose(self) -> ComposeResult:
        yield Markdown(id="widget-help")
        yield KeysList(id="keys-help")


class Palette(CommandPalette):
    """Textual's command palette, its "No matches found" in the player's language."""

    def _start_no_matches_countdown(self, search_value: str) -> None:
        self._stop_no_matches_countdown()

        def show_no_matches() -> None:
            # Only for a search: an empty one lists what there is (as Textual does).
            if search_value:
                self.query_one(CommandList).add_option(
                    Option(Align.center(Text(_(NO_MATCHES), style="not bold")), disabled=True, id=self._NO_MATCHES)
                )
                self._list_visible = True
            else:
                self._list_visible = False

        self._no_matches_timer = self.set_timer(self._NO_MATCHES_COUNTDOWN, show_no_matches)
