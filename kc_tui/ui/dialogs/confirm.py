"""Yes/no dialogs: quit, leave a game for the menu, and resume a saved match."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Static

from kc_tui.i18n import N_, _
from kc_tui.match.recorder import RecorderStatus
from kc_tui.ui.dialogs.modal import Modal
from kc_tui.ui.literal_text import plain

CSS = """
{name} > Vertical {{
    width: 60; padding: 1 2;
}}
{name} .question {{ text-style: bold; margin-bottom: 1; }}
{name} .detail {{ color: $text-muted; margin-bottom: 1; }}
{name} Horizontal {{ height: auto; align-horizontal: center; }}
{name} Button {{ margin: 0 1; }}
"""


class QuitDialog(Modal[bool]):
    """Quit? The match is saved after every move, so nothing is lost; when the last save failed
    (``problem``) or the history could not record yet (``unrecorded``), the dialog says so."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y,ctrl+q", "answer(True)", N_("Quit")),
        Binding("n,escape", "answer(False)", N_("Stay")),
    ]
    DEFAULT_CSS = CSS.format(name="QuitDialog")
    QUESTION = N_("Quit Kings Corners?")
    YES = N_("Quit (y)")

    def __init__(
        self,
        saved: bool = True,
        problem: str | None = None,
        unrecorded: RecorderStatus | None = None,
        *,
        over: bool = False,
    ) -> None:
        super().__init__()
        self.saved = saved
        self.problem = problem
        self.unrecorded = unrecorded
        #: The match is over (its summary is up): there is nothing to resume.
        self.over = over

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(_(self.QUESTION), classes="question")
            if self.over:
                detail = _("The match is over.")
            elif not self.saved:
                detail = _("This game is not saved.")
            elif self.problem is not None:
                # Translators: {problem} is why the last save failed (a file system's words).
                detail = _(
                    "Your match is NOT saved: {problem}. Quitting now loses the moves since the last save;"
                    " Resume would go back there."
                ).format(problem=self.problem)
            else:
                detail = _("Your match is saved: choose Resume next time to carry on exactly here.")
            yield Static(plain(detail), classes="detail", id="saved")
            waiting = self.unrecorded
            if waiting is not None:
                why = waiting.problem or _("still being recorded")
                if waiting.on_disk:
                    # Translators: {why} is why the history could not record (or "still being recorded").
                    untold = _(
                        "The game history has not recorded the last rounds yet ({why}):"
                        " they are kept on disk and recorded next time."
                    )
                else:
                    # Translators: {why} is why the history could not record (or "still being recorded").
                    untold = _(
                        "The game history has not recorded the last rounds yet ({why}):"
                        " they could not be kept on disk either, so quitting now loses them."
                    )
                yield Static(
                    plain(untold.format(why=why)),
                    classes="detail",
                    id="unrecorded",
                )
            with Horizontal():
                yield Button(_(self.YES), variant="error", id="yes")
                yield Button(_("Stay (n)"), variant="primary", id="no")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class MenuDialog(QuitDialog):
    """Leave this game for the main menu? (Asked only when the game is not saved.)"""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", N_("Leave")),
        Binding("n,escape", "answer(False)", N_("Stay")),
    ]
    DEFAULT_CSS = CSS.format(name="MenuDialog")
    QUESTION = N_("Leave this game for the main menu?")
    YES = N_("Leave (y)")

    def __init__(self) -> None:
        super().__init__(saved=False)


class ResumeDialog(Modal[bool | None]):
    """A match in progress was saved: resume it (True) or start a new one (False).

    With ``replacing`` (the player asked for a new game while a match is saved) the dialog
    warns that a new match replaces the saved one, and Escape cancels (None) instead of resuming.
    Resume is ``c``, as in the menu (``r`` is the rules everywhere).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "answer(True)", N_("Resume")),
        Binding("n", "answer(False)", N_("New match")),
        Binding("escape", "cancel", N_("Cancel"), show=False),
    ]
    DEFAULT_CSS = CSS.format(name="ResumeDialog")

    def __init__(self, summary: str, *, replacing: bool = False) -> None:
        super().__init__()
        self.summary = summary
        self.replacing = replacing

    def compose(self) -> ComposeResult:
        with Vertical():
            if self.replacing:
                yield Static(_("Start a new match?"), classes="question")
                # Translators: {summary} describes the saved match (its players, round and scores).
                saved = _("Your saved match: {summary}").format(summary=self.summary)
                yield Static(plain(saved), classes="detail", id="summary")
                yield Static(_("A new match replaces it."), classes="detail")
            else:
                yield Static(_("Resume your match?"), classes="question")
                yield Static(plain(self.summary), classes="detail", id="summary")
            with Horizontal():
                yield Button(_("Resume (c)"), variant="primary", id="yes")
                yield Button(_("New match (n)"), variant="warning" if self.replacing else "default", id="no")
                if self.replacing:
                    yield Button(_("Cancel (esc)"), id="cancel")

    def on_mount(self) -> None:
        self.query_one("#yes", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "cancel":
            self.action_cancel()
        else:
            self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

    def action_cancel(self) -> None:
        """Escape: back where the player was (a plain resume dialog resumes)."""
        self.dismiss(None if self.replacing else True)
