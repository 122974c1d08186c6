"""The main menu: New game, Resume, Learn to play, Watch a demo, Statistics, Settings, Rules, Quit (and o: Play
online, j: Join a table, where the app may join one)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Center, Vertical
from textual.screen import Screen
from textual.widgets import Button, Static

from kc_tui.i18n import N_, _
from kc_tui.match.saves import save_exists
from kc_tui.ui.literal_text import plain
from kc_tui.ui.widgets.footer import Footer

#: The menu's buttons are this wide (its CSS); a label has it less its edges and a blank each side.
BUTTON_WIDTH = 32
BUTTON_LABEL_CELLS = BUTTON_WIDTH - 4

TITLE = r"""
 _  ___                   ___
| |/ (_)_ _  __ _ ___    / __|___ _ _ _ _  ___ _ _ ___
| ' <| | ' \/ _` (_-<   | (__/ _ \ '_| ' \/ -_) '_(_-<
|_|\_\_|_||_\__, /__/    \___\___/_| |_||_\___|_| /__/
            |___/
"""


class MenuScreen(Screen[None]):
    """Buttons call the app's actions (the same ones the command palette uses)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "app.new_game", N_("New game")),
        Binding("l", "app.learn", N_("Learn to play"), show=False),
        Binding("c", "resume", N_("Resume")),
        Binding("d", "app.demo", N_("Demo")),
        Binding("j", "app.join", N_("Join a table"), show=False),
        Binding("o", "app.online", N_("Play online"), show=False),
        Binding("t", "app.stats", N_("Stats")),
        Binding("s", "app.settings", N_("Settings")),
        Binding("r", "app.rules", N_("Rules")),
        Binding("q", "app.quit", N_("Quit")),
        Binding("up", "app.focus_previous", show=False),
        Binding("down", "app.focus_next", show=False),
    ]
    DEFAULT_CSS = (
        """
    MenuScreen { align: center middle; }
    MenuScreen #box { width: 100%; max-width: 80; height: auto; align-horizontal: center; }
    MenuScreen #title { color: $accent; width: 100%; content-align: center middle; }
    MenuScreen #suits { width: 100%; content-align: center middle; margin-bottom: 1; }
    MenuScreen Button { width: BUTTON_WIDTH; margin: 0 0 0 0; }
    MenuScreen #saved { color: $text-muted; width: 100%; height: auto; text-align: center; margin: 0 1 1 1; }
    MenuScreen.-short Button { margin: 0 0 1 0; }
    MenuScreen.-tight Button { margin: 0; }
    """
    ).replace("BUTTON_WIDTH", str(BUTTON_WIDTH))
    #: The rows the menu takes besides its buttons and the saved match's lines: the title and
    #: the suits with the line under them, the line under the saved match, the footer.
    FRAME_ROWS = 9

    def compose(self) -> ComposeResult:
        with Vertical(id="box"):
            yield Static(TITLE.strip("\n"), id="title")
            yield Static(
                Text.assemble(("♠ ", "bold"), ("♡ ", "bold #e05050"), ("♢ ", "bold #e05050"), ("♣", "bold")),
                id="suits",
            )
            # Above the buttons: a toast (in the bottom right corner) never covers it.
            yield Static("", id="saved")
            with Center():
                yield Button(_("Resume match  (c)"), id="resume", variant="success")
            with Center():
                yield Button(_("New game  (n)"), id="new_game", variant="primary")
            with Center():
                yield Button(_("Learn to play  (l)"), id="learn")
            with Center():
                yield Button(_("Watch a demo  (d)"), id="demo")
            with Center():
                yield Button(_("Play online  (o)"), id="online")
            with Center():
                yield Button(_("Join a table  (j)"), id="join")
            with Center():
                yield Button(_("Statistics  (t)"), id="stats")
            with Center():
                yield Button(_("Settings  (s)"), id="settings")
            with Center():
                yield Button(_("Rules  (r)"), id="rules")
            with Center():
                yield Button(_("Quit  (q)"), id="quit")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.refresh_menu()

    def on_resize(self, event: events.Resize) -> None:
        self.fit_buttons()

    def fit_buttons(self) -> None:
        """Bordered buttons when they fit the terminal's height, else compact ones (a line each)
        with a line between them, else without it (e.g. 80x24 with a saved match: seven
        buttons, and the saved match's line wrapped): the menu never scrolls."""
        buttons = [b for b in self.query(Button) if b.display]
        saved = self.query_one("#saved", Static)
        width = max(1, min(self.size.width, 80) - 2)
        lines = len(Text(str(saved.render())).wrap(self.app.console, width))
        frame = self.FRAME_ROWS + lines
        short = self.size.height < frame + 3 * len(buttons)
        tight = self.size.height < frame + 2 * len(buttons)
        self.set_class(short and not tight, "-short")
        self.set_class(tight, "-tight")
        for b in buttons:
            b.compact = short

    def on_screen_resume(self) -> None:
        self.refresh_menu()

    def refresh_menu(self) -> None:
        has_save = save_exists()
        resume = self.query_one("#resume", Button)
        resume.display = has_save
        can_join = getattr(self.app, "can_join", lambda: True)
        self.query_one("#join", Button).display = bool(can_join())
        self.query_one("#online", Button).display = bool(can_join())
        summary = getattr(self.app, "saved_summary", lambda: None)() if has_save else None
        saved = _("Saved match: {summary}").format(summary=summary) if summary else ""
        if not saved and getattr(self.app, "offers_learning", lambda: False)():
            saved = _("New to the game? Learn to play (l) teaches it in a few minutes.")
        self.query_one("#saved", Static).update(plain(saved))
        (resume if has_save else self.query_one("#new_game", Button)).focus()
        self.fit_buttons()
        self.refresh_bindings()

    async def action_resume(self) -> None:
        await self.app.run_action("resume")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "resume":
            return save_exists()
        return True

    async def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id:
            await self.app.run_action(event.button.id)
