"""Learn to play's list of lessons with their state: a lesson played or skipped, or the whole
tutorial started again; once every lesson is behind the player, it says so and offers a game."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from kc_tui.i18n import N_, _
from kc_tui.learn.lessons import LESSONS
from kc_tui.learn.progress import DONE, SKIPPED, Progress, load_progress, save_progress
from kc_tui.ui.dialogs.confirm import CSS
from kc_tui.ui.dialogs.modal import Modal
from kc_tui.ui.literal_text import plain

#: Each lesson's state as the list shows it.
STATES = {DONE: N_("learnt"), SKIPPED: N_("skipped")}
#: What the toast says as a lesson is left (taken down once the lessons are chosen from again).
KEPT = N_("Learn to play keeps your place: choose it again to carry on.")
#: What the dialog dismisses with for a real match's set-up (no lesson has this id).
GAME = "game"
#: What the list says once every lesson is learnt or skipped.
ALL_BEHIND = N_("Every lesson is behind you: Enter plays one again, n sets up a game.")


def take_down_kept(app: App[object]) -> None:
    """The toast said as a lesson was left (:data:`KEPT`): out of the way once the player is
    back at the lessons."""
    said = _(KEPT)
    for note in list(app._notifications):
        if note.message == said:
            app._unnotify(note)


class LessonsDialog(Modal[str | None]):
    """The lessons, each with its state; dismisses with the lesson to play, :data:`GAME` for a
    real match's set-up, or None."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "skip", N_("Skip")),
        Binding("n", "game", N_("New game")),
        Binding("r", "reset", N_("Start again")),
        Binding("escape", "close", N_("Back")),
    ]
    DEFAULT_CSS = (
        CSS.format(name="LessonsDialog")
        + """
    LessonsDialog OptionList { height: auto; max-height: 12; border: none; padding: 0; margin-bottom: 1; }
    """
    )

    def __init__(self, progress: Progress | None = None) -> None:
        super().__init__()
        self.progress = progress or load_progress()[0]

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(_("Learn to play"), classes="question")
            yield Static(id="behind", classes="detail")
            yield OptionList(*self._options(), id="lessons")
            yield Static(_("Enter plays a lesson · s skips it · r starts again · Esc back"), classes="detail")

    def _options(self) -> list[Option]:
        options = []
        for number, lesson in enumerate(LESSONS, 1):
            state = self.progress.state(lesson.id)
            if lesson.id == self.progress.lesson:
                # Translators: the lesson the tutorial comes back to, in the list of lessons.
                mark, word = "▶", _("next")
            else:
                mark, word = ("✓" if state == DONE else "·"), _(STATES[state]) if state else ""
            line = Text.assemble(
                f"{mark} {number}. ", plain(_(lesson.title)).plain, (f"  {word}" if word else "", "dim")
            )
            options.append(Option(line, id=lesson.id))
        return options

    def on_mount(self) -> None:
        take_down_kept(self.app)
        self._show()
        self.query_one(OptionList).focus()

    def _show(self) -> None:
        """The lessons with their state, the one the tutorial comes back to highlighted."""
        found = self.query_one(OptionList)
        found.clear_options()
        found.add_options(self._options())
        ids = [lesson.id for lesson in LESSONS]
        found.highlighted = ids.index(self.progress.lesson) if self.progress.lesson in ids else 0
        behind = self.query_one("#behind", Static)
        behind.display = not self.progress.lesson
        behind.update(_(ALL_BEHIND))

    def _keep(self, progress: Progress) -> None:
        self.progress = progress
        problem = save_progress(progress)
        if problem is not None:
            self.app.notify(problem, title=_("Learn to play"), severity="warning")
        self._show()

    def action_skip(self) -> None:
        at = self.query_one(OptionList).highlighted
        if at is not None:
            self._keep(self.progress.skipped(LESSONS[at].id))

    def action_reset(self) -> None:
        self._keep(self.progress.reset())
        self.app.notify(_("Every lesson is to learn again."), title=_("Learn to play"), timeout=4)

    def action_close(self) -> None:
        self.dismiss(None)

    def action_game(self) -> None:
        self.dismiss(GAME)

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)


__all__ = ["GAME", "KEPT", "LessonsDialog", "take_down_kept"]
