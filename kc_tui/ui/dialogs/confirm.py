"""Yes/no dialogs: quit, and resume a saved match."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

CSS = """
{name} {{ align: center middle; }}
{name} > Vertical {{
    width: 60; height: auto; border: thick $accent; background: $panel; padding: 1 2;
}}
{name} .question {{ text-style: bold; margin-bottom: 1; }}
{name} .detail {{ color: $text-muted; margin-bottom: 1; }}
{name} Horizontal {{ height: auto; align-horizontal: center; }}
{name} Button {{ margin: 0 1; }}
"""


class QuitDialog(ModalScreen[bool]):
    """Quit? The match is saved after every move, so nothing is lost."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y,ctrl+q", "answer(True)", "Quit"),
        Binding("n,escape", "answer(False)", "Stay"),
    ]
    DEFAULT_CSS = CSS.format(name="QuitDialog")

    def __init__(self, saved: bool = True) -> None:
        super().__init__()
        self.saved = saved

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Quit Kings Corners?", classes="question")
            detail = (
                "Your match is saved: choose Resume next time to carry on exactly here."
                if self.saved
                else "This game is not saved."
            )
            yield Static(detail, classes="detail")
            with Horizontal():
                yield Button("Quit (y)", variant="error", id="yes")
                yield Button("Stay (n)", variant="primary", id="no")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class ResumeDialog(ModalScreen[bool]):
    """A match in progress was saved: resume it (True) or start a new one (False)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r,enter", "answer(True)", "Resume"),
        Binding("n", "answer(False)", "New match"),
        Binding("escape", "answer(True)", show=False),
    ]
    DEFAULT_CSS = CSS.format(name="ResumeDialog")

    def __init__(self, summary: str) -> None:
        super().__init__()
        self.summary = summary

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Resume your match?", classes="question")
            yield Static(self.summary, classes="detail", id="summary")
            with Horizontal():
                yield Button("Resume (r)", variant="primary", id="yes")
                yield Button("New match (n)", id="no")

    def on_mount(self) -> None:
        self.query_one("#yes", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
