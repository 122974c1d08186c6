"""The remote seat's own dialogs: quitting from a table another machine hosts, and the main
menu's "Join a table" (the address the host printed). A round's summary and the match's end are
the table's one summary of each (:mod:`kc_tui.ui.dialogs.summary`)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Static

from kc_tui.i18n import N_, _
from kc_tui.net.allowlist import served_tables
from kc_tui.net.client import AddressError, table_address
from kc_tui.ui.dialogs.confirm import CSS, QuitDialog
from kc_tui.ui.dialogs.modal import Modal
from kc_tui.ui.literal_text import plain


class RemoteQuitDialog(QuitDialog):
    """Quit Kings Corners, from a table another machine hosts? The table goes on without this
    client: a seat waits for its person (the same address takes it back)."""

    DEFAULT_CSS = CSS.format(name="RemoteQuitDialog")

    def __init__(self, *, watching: bool) -> None:
        super().__init__()
        self.watching = watching

    def compose(self) -> ComposeResult:
        if self.watching:
            detail = _("The table goes on without you: join --watch watches it again.")
        else:
            detail = _("The table goes on; your seat waits for you: join again with the same address.")
        with Vertical():
            yield Static(_(self.QUESTION), classes="question")
            yield Static(detail, classes="detail", id="saved")
            with Horizontal():
                yield Button(_(self.YES), variant="error", id="yes")
                yield Button(_("Stay (n)"), variant="primary", id="no")


class JoinDialog(Modal[str | None]):
    """The address of a table (the line the host printed, or only its ws:// address): dismissed
    with the address checked (:func:`~kc_tui.net.client.table_address`), or None (Escape)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", N_("Cancel"))]
    DEFAULT_CSS = """
    JoinDialog > Vertical {
        width: 76; max-width: 100%; padding: 1 2;
    }
    JoinDialog #question { text-style: bold; margin-bottom: 1; }
    JoinDialog #detail { color: $text-muted; margin-bottom: 1; }
    JoinDialog #problem { color: $error; height: auto; margin-top: 1; }
    JoinDialog Horizontal { height: auto; align-horizontal: center; margin-top: 1; }
    JoinDialog Button { margin: 0 1; }
    """

    def compose(self) -> ComposeResult:
        detail = _(
            "Paste the address the host printed for your seat (ws://HOST:PORT/seat/...), or its"
            " /watch address to watch."
        )
        tables = served_tables()
        if tables:
            # Translators: {tables} are the numbers of the tables this server lets a seat join.
            only = _("This server joins only {tables}.").format(tables=", ".join(str(t) for t in sorted(tables)))
            detail += " " + only
        elif tables is not None:
            detail += " " + _("This server joins only no table.")
        with Vertical():
            yield Static(_("Join a table"), id="question")
            yield Static(plain(detail), id="detail")
            yield Input(placeholder="ws://192.168.1.20:8765/seat/...", id="address")
            yield Static("", id="problem")
            with Horizontal():
                yield Button(_("Join  (Enter)"), variant="primary", id="join")
                yield Button(_("Cancel  (Esc)"), id="cancel")

    def on_mount(self) -> None:
        self.query_one("#address", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._join()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "join":
            self._join()
        else:
            self.action_cancel()

    def _join(self) -> None:
        text = self.query_one("#address", Input).value
        words = text.split()
        # The host's whole line may be pasted: "Ana: kings-corners join ws://..." or "... --watch ws://...".
        address = next((w for w in reversed(words) if "://" in w), text)
        watch = "--watch" in words
        try:
            url = table_address(address, watch=watch)
        except AddressError as exc:
            self.query_one("#problem", Static).update(plain(str(exc)))
            return
        self.dismiss(url)

    def action_cancel(self) -> None:
        self.dismiss(None)


__all__ = ["JoinDialog", "RemoteQuitDialog"]
