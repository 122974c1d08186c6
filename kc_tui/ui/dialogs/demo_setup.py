"""The demo set-up dialog: choose 2 to 4 AI seats to watch play each other."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, HorizontalGroup, Vertical
from textual.widgets import Button, Label, Select, Static

from ai import ai_kinds, kind_shown
from kc_tui.config import Config
from kc_tui.i18n import N_, _
from kc_tui.ui.dialogs.modal import Modal
from kc_tui.ui.literal_text import plain

EMPTY = "-"
SEATS = 4


def available_kinds() -> tuple[str, ...]:
    """The AI kinds a demo can seat: every kind of the AI registry, weakest first."""
    return ai_kinds()


class DemoSetupDialog(Modal[list[str] | None]):
    """Pick the AI kind of each seat (2 to 4); dismisses with the kinds, or None."""

    DEFAULT_CSS = """
    DemoSetupDialog #demo-setup {
        width: 56;
        border: thick $accent 70%;
        background: $surface;
        padding: 1 2;
    }
    DemoSetupDialog #demo-title {
        text-style: bold;
        width: 1fr;
        content-align: center middle;
    }
    DemoSetupDialog .hint {
        color: $text-muted;
        margin-bottom: 1;
    }
    DemoSetupDialog .seat {
        height: 1;
        margin-bottom: 1;
    }
    DemoSetupDialog .seat Label {
        width: 10;
    }
    DemoSetupDialog .seat Select {
        width: 1fr;
    }
    DemoSetupDialog #demo-error {
        color: $text-error;
        height: auto;
    }
    DemoSetupDialog #demo-buttons {
        height: auto;
        align-horizontal: center;
    }
    DemoSetupDialog #demo-buttons Button {
        margin: 0 1;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", N_("Cancel")),
        Binding("ctrl+s", "start", N_("Start"), priority=True),
    ]

    def __init__(self, config: Config) -> None:
        super().__init__()
        self.config = config

    def compose(self) -> ComposeResult:
        kinds = available_kinds()
        # Start from the user's table: their opponents' kinds, plus an expert in the user's seat.
        start = [o.kind for o in self.config.opponents] + ["expert"]
        start = [k for k in start if k in kinds][:SEATS] or ["greedy", "expert"]
        if len(start) < 2:
            start.append("expert")
        with Vertical(id="demo-setup"):
            yield Static(_("Watch a demo"), id="demo-title")
            yield Static(_("Choose 2 to 4 AI players. In the demo, h shows every hand."), classes="hint")
            for i in range(SEATS):
                options = [(kind_shown(k), k) for k in kinds]
                if i >= 2:
                    options.insert(0, (_("(empty seat)"), EMPTY))
                value = start[i] if i < len(start) else EMPTY
                with HorizontalGroup(classes="seat"):
                    yield Label(plain(_("Seat {number}").format(number=i + 1)))
                    yield Select(options, value=value, allow_blank=False, id=f"seat-{i}", compact=True)
            yield Static("", id="demo-error")
            with Horizontal(id="demo-buttons"):
                yield Button(_("Start"), id="start", variant="primary")
                yield Button(_("Cancel"), id="cancel")

    def on_mount(self) -> None:
        self.query_one("#seat-0", Select).focus()

    def seats(self) -> list[str]:
        """The kinds chosen, in seat order, empty seats left out."""
        out: list[str] = []
        for i in range(SEATS):
            value = self.query_one(f"#seat-{i}", Select).value
            if isinstance(value, str) and value != EMPTY:
                out.append(value)
        return out

    @on(Button.Pressed, "#start")
    def action_start(self) -> None:
        seats = self.seats()
        if not 2 <= len(seats) <= SEATS:
            # Translators: {most} is the most seats a demo has (4).
            error = _("A demo needs 2 to {most} players.").format(most=SEATS)
            self.query_one("#demo-error", Static).update(plain(error))
            self.app.bell()
            return
        self.dismiss(seats)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
