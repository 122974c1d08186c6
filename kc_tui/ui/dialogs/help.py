"""The keys and the mouse, on one page."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Static

from kc_tui.i18n import N_, _
from kc_tui.ui.dialogs.modal import Modal

#: The keys that pick, play, end the turn and undo: the same at the game's table and at a remote
#: seat (the first rows of both keys pages).
PICKING_HELP: tuple[tuple[str, str], ...] = (
    (N_("← →  or  1-9, 0"), N_("pick a card in your hand (again to drop it)")),
    ("q w e / a d / z x c", N_("pick a pile: the keys sit like the table (NW N NE / W E / SW S SE)")),
    ("", N_("with a card picked: play it there · with no card: pick a pile to move, then its target")),
    (N_("click"), N_("a card, then a pile: the same as the keys")),
    ("t", N_("end your turn (with a card still picked: press t twice)")),
    ("u", N_("undo your last move this turn")),
)

#: The game's keys.
KEYS: tuple[tuple[str, str], ...] = (
    *PICKING_HELP,
    ("h", N_("hint: what the lookahead AI would do")),
    ("esc", N_("drop the selection")),
    ("p", N_("pause / resume the AI players")),
    (N_("r  or  F1"), N_("the rules")),
    ("?", N_("this page")),
    ("m", N_("back to the main menu (the match is saved: Resume carries on)")),
    ("ctrl+p", N_("the command palette: every command by name")),
    ("ctrl+q", N_("quit (the match is saved after every move)")),
)

#: What the marks on the table mean.
MARKS: tuple[tuple[str, str], ...] = (
    ("┌──┌──┌───┐", N_("a pile: its cards overlap from the bottom one, the top card is whole")),
    ("+9", N_("nine cards of a long pile folded away between its bottom and its newest cards")),
    # Translators: the left texts are marks as the table draws them: translate them as it does.
    (N_("11 cards"), N_("on a pile's border: how many cards it holds")),
    (N_("next: red 7"), N_("under a pile: what it takes next (a card one lower, the other colour)")),
    (N_("╭┄┄┄╮ K / any"), N_("an empty place: a corner takes a king; a side takes any card")),
    ("▒▒▒", N_("cards face down: the stock, and the backs of an opponent's hand")),
    ("♡ ♢  ♠ ♣", N_("a card's colour, told by its suit's mark: red suits in outline, black suits solid")),
    ("H D  S C", N_("in ASCII cards, the suit's letter: H and D are red, S and C are black")),
    (N_("┌1──┐ new"), N_("your hand: the card's key on its top edge; the card you just drew")),
    (N_("▶ Name"), N_("whose turn it is; 'dealer' marks the dealer of the round")),
)


#: The line under the game's keys.
FOOT = N_(
    "Legal targets of what you picked are highlighted in green, with a heavy edge. "
    "An illegal try is refused with the rule it breaks, and nothing changes. Esc closes."
)


def shown(text: str) -> str:
    """``text`` in the current language (an empty text stays empty: it is no msgid)."""
    return _(text) if text else text


def two_columns(rows: Sequence[tuple[str, str]], key_style: str) -> Table:
    """``rows`` (what, what it means) as a table without borders, the first column in ``key_style``;
    each text is translated as it is drawn (the rows are declared with ``N_``)."""
    table = Table(box=None, show_header=False, padding=(0, 2))
    table.add_column(style=key_style, no_wrap=True)
    table.add_column()
    for key, what in rows:
        table.add_row(shown(key), shown(what))
    return table


class HelpDialog(Modal[None]):
    """A screen's keys (the game's by default) and what its marks mean (``marks`` empty: none)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,question_mark,enter,q", "close", N_("Close"))]
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
        title: str = N_("Keys and mouse"),
        foot: str = FOOT,
    ) -> None:
        super().__init__()
        self.keys, self.marks, self.title_text, self.foot = keys, marks, title, foot

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(shown(self.title_text), id="title")
            yield Static(two_columns(self.keys, "bold #ffd75f"))
            if self.marks:
                yield Static(_("What the marks mean"), classes="subtitle")
                yield Static(two_columns(self.marks, "bold"))
            yield Static(shown(self.foot), id="foot")

    def action_close(self) -> None:
        self.dismiss(None)
