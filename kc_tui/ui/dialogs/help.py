"""The keys and the mouse, on one page."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

KEYS: tuple[tuple[str, str], ...] = (
    ("← →  or  1-9, 0", "pick a card in your hand (again to drop it)"),
    ("q w e / a d / z x c", "pick a pile: the keys sit like the table (NW N NE / W E / SW S SE)"),
    ("", "with a card picked: play it there · with no card: pick a pile to move, then its target"),
    ("click", "a card, then a pile: the same as the keys"),
    ("t", "end your turn"),
    ("u", "undo your last move this turn"),
    ("h", "hint: what the lookahead AI would do"),
    ("esc", "drop the selection"),
    ("p", "pause / resume the AI players"),
    ("r  or  F1", "the rules"),
    ("?", "this page"),
    ("ctrl+q", "quit (the match is saved after every move)"),
)


class HelpDialog(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,question_mark,enter,q", "close", "Close")]
    DEFAULT_CSS = """
    HelpDialog { align: center middle; }
    HelpDialog > VerticalScroll {
        width: 84; max-width: 95%; height: auto; max-height: 90%;
        border: thick $accent; background: $panel; padding: 1 2;
    }
    HelpDialog #title { text-style: bold; margin-bottom: 1; }
    HelpDialog #foot { color: $text-muted; margin-top: 1; }
    """

    def compose(self) -> ComposeResult:
        t = Table(box=None, show_header=False, padding=(0, 2))
        t.add_column(style="bold #ffd75f", no_wrap=True)
        t.add_column()
        for k, what in KEYS:
            t.add_row(k, what)
        with VerticalScroll():
            yield Static("Keys and mouse", id="title")
            yield Static(t)
            yield Static(
                "Legal targets of what you picked are highlighted in green. "
                "An illegal try is refused with the rule it breaks, and nothing changes. Esc closes.",
                id="foot",
            )

    def action_close(self) -> None:
        self.dismiss(None)
