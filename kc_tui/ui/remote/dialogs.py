"""The remote seat's dialogs: a round's summary and the match's end as the server words them, and
the main menu's "Join a table" (the address the host printed).

The summaries are the server's plain lines, shown literally; closing one only uncovers the table
(the server never waits for it). A round's summary offers its replay (``v``), as the server sends
it for this seat."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Static

from kc_tui.engine import Card, sort_for_hand
from kc_tui.i18n import N_, _
from kc_tui.net.allowlist import served_tables
from kc_tui.net.client import AddressError, table_address
from kc_tui.ui.cards import CardLook
from kc_tui.ui.dialogs.confirm import CSS, QuitDialog
from kc_tui.ui.dialogs.modal import Modal
from kc_tui.ui.dialogs.summary import NAME_WIDTH
from kc_tui.ui.text import plain, visible

SUMMARY_CSS = """
{name} > Vertical {{
    width: 76; max-width: 100%; max-height: 100%; padding: 0 2; overflow-y: auto;
}}
{name} #title {{ text-style: bold; width: 100%; content-align: center middle; margin-top: 1; }}
{name} #body {{ width: 100%; margin: 1 0; }}
{name} #caught {{ width: 100%; margin-bottom: 1; }}
{name} #next {{ color: $text-muted; margin-bottom: 1; }}
{name} #replay-note {{ margin-bottom: 1; }}
{name} Button {{ width: 100%; margin-bottom: 1; }}
"""


def lines_text(lines: Sequence[str]) -> Text:
    """Lines from the server, each shown literally (never markup)."""
    return Text("\n").join(Text(visible(line)) for line in lines)


class RemoteRoundSummary(Modal[None]):
    """A round scored at the table: who went out (or that it was blocked), the server's summary
    lines and the cards left in every hand, face up (``cards`` by seat, ``names`` the seats';
    none from a server that sends no cards). Enter, Space or Escape go back to the table; ``v``
    asks for the round's replay through ``replay`` (called with the round's number; the screen
    that asked says how it goes with :meth:`note`)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,space,escape", "close", N_("Continue")),
        Binding("v", "replay", N_("Replay")),
    ]
    DEFAULT_CSS = SUMMARY_CSS.format(name="RemoteRoundSummary")
    AUTO_FOCUS = ""  # on_mount focuses its button, leaving the summary at its title

    def __init__(
        self,
        number: int,
        winner: str | None,
        lines: Sequence[str],
        *,
        cards: Sequence[Sequence[Card]] = (),
        names: Sequence[str] = (),
        look: CardLook | None = None,
        replay: Callable[[int], None] | None = None,
    ) -> None:
        super().__init__()
        self.number = number
        self.winner = winner
        self.lines = list(lines)
        self.cards = [tuple(hand) for hand in cards]
        self.names = list(names)
        self.look = look or CardLook()
        self.replay = replay

    def caught_text(self) -> Text:
        """Every seat's cards left, face up, a seat a line ("went out" for none); empty
        without the cards."""
        if not self.cards or len(self.names) != len(self.cards):
            return Text()
        width = min(NAME_WIDTH, max(len(visible(name)) for name in self.names))
        rows = []
        for name, hand in zip(self.names, self.cards, strict=True):
            row = Text(visible(name)[:width].ljust(width) + "  ", style="bold")
            row.append_text(self.look.fan(sort_for_hand(list(hand))) if hand else Text(_("no cards left"), style="dim"))
            rows.append(row)
        return Text("\n").join([Text(_("Cards left"), style="bold"), *rows])

    def title_text(self) -> str:
        """The summary's first line when it names the round, else one made of the winner."""
        if self.lines and self.lines[0].startswith(f"Round {self.number}"):
            return self.lines[0]
        if self.winner is None:
            return _("Round {number} was blocked").format(number=self.number)
        return _("Round {number}: {name} went out").format(number=self.number, name=self.winner)

    def compose(self) -> ComposeResult:
        body = self.lines[1:] if self.lines and self.lines[0] == self.title_text() else self.lines
        with Vertical():
            yield Static(plain(self.title_text()), id="title")
            yield Static(lines_text(body), id="body")
            caught = self.caught_text()
            if caught:
                yield Static(caught, id="caught")
            yield Static(_("The table goes on meanwhile: the next round is dealt there."), id="next")
            yield Static("", id="replay-note")
            if self.replay is not None:
                yield Button(_("Replay this round  (v)"), id="replay")
            yield Button(_("Back to the table  (Enter)"), variant="primary", id="close")

    def on_mount(self) -> None:
        # Focused without scrolling to it: the summary opens at its title (it scrolls when taller).
        self.query_one("#close", Button).focus(scroll_visible=False)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "replay":
            self.action_replay()
        else:
            self.action_close()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.replay is not None if action == "replay" else True

    def note(self, text: str) -> None:
        """One line under the summary about its replay (text from the network shown literally)."""
        if self.is_attached:
            self.query_one("#replay-note", Static).update(plain(text))

    def action_replay(self) -> None:
        if self.replay is not None:
            self.replay(self.number)

    def action_close(self) -> None:
        self.dismiss(None)


class RemoteMatchEnd(Modal[str | None]):
    """The match is over: the server's line about its end and its winners. Enter goes back to
    the table (dismissed with None), m to the main menu ("menu")."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,space,escape", "close", N_("Table")),
        Binding("m", "menu", N_("Main menu")),
    ]
    DEFAULT_CSS = SUMMARY_CSS.format(name="RemoteMatchEnd")

    def __init__(self, end_text: str, winners: Sequence[str]) -> None:
        super().__init__()
        self.end_text = end_text
        self.winners = list(winners)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(_("The match is over"), id="title")
            if self.end_text:
                body = self.end_text
            elif self.winners:
                # Translators: {names} are the winners' names, joined by commas.
                body = _("Won by {names}.").format(names=", ".join(self.winners))
            else:
                body = _("The table has finished its match.")
            yield Static(plain(body), id="body")
            with Horizontal():
                yield Button(_("Back to the table  (Enter)"), variant="primary", id="close")
                yield Button(_("Main menu  (m)"), id="menu")

    def on_mount(self) -> None:
        self.query_one("#close", Button).focus(scroll_visible=False)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss("menu" if event.button.id == "menu" else None)

    def action_close(self) -> None:
        self.dismiss(None)

    def action_menu(self) -> None:
        self.dismiss("menu")


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


__all__ = ["JoinDialog", "RemoteMatchEnd", "RemoteQuitDialog", "RemoteRoundSummary", "lines_text"]
