"""The keys and the mouse, on one page."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Static

from kc_tui.ui.dialogs.modal import Modal

#: The keys that pick, play, end the turn and undo: the same at the game's table and at a remote
#: seat (the first rows of both keys pages).
PICKING_HELP: tuple[tuple[str, str], ...] = (
    ("← →  or  1-9, 0", "pick a card in your hand (again to drop it)"),
    ("q w e / a d / z x c", "pick a pile: the keys sit like the table (NW N NE / W E / SW S SE)"),
    ("", "with a card picked: play it there · with no card: pick a pile to move, then its target"),
    ("click", "a card, then a pile: the same as the keys"),
    ("t", "end your turn (with a card still picked: press t twice)"),
    ("u", "undo your last move this turn"),
)

#: The game's keys.
KEYS: tuple[tuple[str, str], ...] = (
    *PICKING_HELP,
    ("h", "hint: what the lookahead AI would do"),
    ("esc", "drop the selection"),
    ("p", "pause / resume the AI players"),
    ("r  or  F1", "the rules"),
    ("?", "this page"),
    ("m", "back to the main menu (the match is saved: Resume carries on)"),
    ("ctrl+p", "the command palette: every command by name"),
    ("ctrl+q", "quit (the match is saved after every move)"),
)

#: What the marks on the table mean.
MARKS: tuple[tuple[str, str], ...] = (
    ("┌──┌──┌───┐", "a pile: its cards overlap from the bottom one, the top card is whole"),
    ("…9", "nine cards of a long pile folded away between its bottom and its newest cards"),
    ("11 cards", "on a pile's border: how many cards it holds"),
    ("next: red 7", "under a pile: what it takes next (a card one lower, the other colour)"),
    ("╭┄┄┄╮ K / any", "an empty place: a corner takes a king; a side takes any card"),
    ("▒▒▒", "cards face down: the stock, and the backs of an opponent's hand"),
    ("┌1──┐ new", "your hand: the card's key on its top edge; the card you just drew"),
    ("▶ Name", "whose turn it is; 'dealer' marks the dealer of the round"),
)


#: The line under the game's keys.
FOOT = (
    "Legal targets of what you picked are highlighted in green. "
    "An illegal try is refused with the rule it breaks, and nothing changes. Esc closes."
)


def two_columns(rows: Sequence[tuple[str, str]], key_style: str) -> Table:
    """``rows`` (what, what it means) as a table without borders, the first column in ``key_style``."""
    table = Table(box=None, show_header=False, padding=(0, 2))
    table.add_column(style=key_style, no_wrap=True)
    table.add_column()
    for key, what in rows:
        table.add_row(key, what)
    return table


class HelpDialog(Modal[None]):
    """A screen's keys (the game's by default) and what its marks mean (``marks`` empty: none)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,question_mark,enter,q", "close", "Close")]
    DEFAULT_CSS = """
    HelpDialog > VerticalScroll {
        width: 84; max-width: 95%; max-height: 90%; padding: 1 2;
    }
    HelpDialog #title { text-style: bold; margin-bottom: 1; }
    HelpDialog .subtitle { text-style: bold; margin: 1 0; }
    HelpDialog #foot { color: $text-muted; margin-top: 1; }
    """

    def __init__(
        self,
        keys: Sequence[tuple[str, str]] = KEYS,
        marks: Sequence[tuple[str, str]] = MARKS,
        *,
        title: str = "Keys and mouse",
        foot: str = FOOT,
    ) -> None:
        super().__init__()
        self.keys, self.marks, self.title_text, self.foot = keys, marks, title, foot

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(self.title_text, id="title")
            yield Static(two_columns(self.keys, "bold #ffd75f"))
            if self.marks:
                yield Static("What the marks mean", classes="subtitle")
                yield Static(two_columns(self.marks, "bold"))
            yield Static(self.foot, id="foot")

    def action_close(self) -> None:
        self.dismiss(None)
