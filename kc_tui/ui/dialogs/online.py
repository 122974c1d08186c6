"""The lobby's dialogs (:mod:`kc_tui.ui.remote.lobby`): a new table (its seats: people and AI
kinds, its target, private or listed, its turn time), quick play (how many players, how long to
wait before AIs fill the empty seats), the server's address, another name when the one asked for
is held on the server, and the rematch offered at a match's end. The rules are the player's
settings. Every name from the network is shown literally."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, HorizontalGroup, Vertical
from textual.widgets import Button, Input, Label, Select, Static, Switch

from kc_tui.config import HUMAN, NAME_MAX, TARGET_RANGE, Config, ai_kind_names, name_problem, seat_kind_title
from kc_tui.i18n import N_, _
from kc_tui.net.client import AddressError
from kc_tui.net.lobby_client import lobby_address
from kc_tui.net.lobby_schema import MAX_FILL_AFTER, MAX_TURN_SECONDS, CreateTable, QuickPlay, RematchMsg
from kc_tui.ui.dialogs.modal import Modal
from kc_tui.ui.literal_text import plain
from kc_tui.ui.widgets.rule_fields import number_problem, number_value

#: The wait before quick play fills the empty seats with AIs, unless the player says otherwise.
DEFAULT_FILL_AFTER = 30

CSS = """
{name} > Vertical {{ width: 72; max-width: 100%; padding: 0 2; }}
{name} .title {{ text-style: bold; margin: 1 0; }}
{name} .row {{ height: auto; }}
{name} .label {{ width: 20; }}
{name} Input {{ width: 12; }}
{name} Input.wide {{ width: 1fr; }}
{name} Select {{ width: 24; }}
{name} .detail {{ color: $text-muted; margin-bottom: 1; }}
{name} .problem {{ color: $error; height: auto; }}
{name} Switch {{ height: 1; border: none; padding: 0 1; width: 8; }}
{name} Switch:focus {{ background: $accent 60%; }}
{name} .buttons {{ height: auto; align-horizontal: center; margin: 1 0 0 0; }}
{name} Button {{ margin: 0 1; }}
"""


def _row(
    label: str, *widgets: Label | Input | Select[str] | Select[int] | Switch, wid: str | None = None
) -> HorizontalGroup:
    return HorizontalGroup(Label(label, classes="label"), *widgets, classes="row", id=wid)


def _seat_choices(first: bool) -> list[tuple[str, str]]:
    """A seat's kinds: a person's seat, or an AI kind (the first seat is the creator's)."""
    if first:
        return [(seat_kind_title(HUMAN), HUMAN)]
    return [(seat_kind_title(HUMAN), HUMAN), *((seat_kind_title(k), k) for k in ai_kind_names())]


class _Form(Modal[object]):
    """A dialog of fields, the first problem said under them; Enter or its button takes them,
    Escape cancels."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", N_("Cancel"))]

    def problem(self, text: str) -> None:
        self.query_one("#problem", Static).update(plain(text))

    def buttons(self, ok: str) -> Horizontal:
        return Horizontal(
            Button(ok, variant="primary", id="ok"), Button(_("Cancel  (Esc)"), id="cancel"), classes="buttons"
        )

    @on(Button.Pressed, "#ok")
    def _ok(self, event: Button.Pressed) -> None:
        event.stop()
        self.take()

    @on(Button.Pressed, "#cancel")
    def _cancel(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_cancel()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.take()

    def take(self) -> None:
        raise NotImplementedError

    def action_cancel(self) -> None:
        self.dismiss(None)

    def number(self, wid: str, what: str, lo: int, hi: int) -> int | None:
        """The whole number of field ``wid``, or None (its problem said)."""
        text = self.query_one(f"#{wid}", Input).value
        value = number_value(text, lo, hi)
        if value is None:
            self.problem(number_problem(text, what, lo, hi) or "")
            self.query_one(f"#{wid}", Input).focus()
        return value


class NewTableDialog(_Form):
    """A new table: dismissed with its :class:`CreateTable` request, or None."""

    DEFAULT_CSS = CSS.format(name="NewTableDialog")

    def __init__(self, config: Config) -> None:
        super().__init__()
        self.config = config

    def compose(self) -> ComposeResult:
        cfg = self.config
        count = min(4, len(cfg.opponents) + 1)
        with Vertical():
            yield Static(_("New table"), classes="title")
            seats = [(str(n), n) for n in (2, 3, 4)]
            yield _row(_("Seats"), Select(seats, value=count, allow_blank=False, id="count", compact=True))
            for i in range(1, 4):
                kind = cfg.opponents[i - 1].kind if i - 1 < len(cfg.opponents) else HUMAN
                choices = _seat_choices(False)
                value = kind if kind in {v for _label, v in choices} else HUMAN
                select = Select(choices, value=value, allow_blank=False, id=f"seat-{i}", compact=True)
                yield _row(_("Seat {n}").format(n=i + 1), select, wid=f"seat-row-{i}")
            yield _row(_("Target"), Input(str(cfg.rules.target), id="target", compact=True))
            yield _row(_("Turn time (s)"), Input("0", id="turn", compact=True))
            yield _row(_("Private"), Switch(False, id="private"))
            yield Static(
                _(
                    "Seat 1 is yours. People's seats wait for players; the rules are your settings'."
                    " Turn time 0: no clock."
                ),
                classes="detail",
            )
            yield Static("", id="problem", classes="problem")
            yield self.buttons(_("Create  (Enter)"))

    def on_mount(self) -> None:
        self._show_seats()
        self.query_one("#target", Input).focus()  # Enter creates; the seats are a Shift+Tab away

    @on(Select.Changed, "#count")
    def _count_changed(self) -> None:
        self._show_seats()

    def _show_seats(self) -> None:
        count = self.query_one("#count", Select).value
        for i in range(1, 4):
            self.query_one(f"#seat-row-{i}").display = isinstance(count, int) and i < count

    def take(self) -> None:
        lo, hi = TARGET_RANGE
        target = self.number("target", _("Target"), lo, hi)
        if target is None:
            return
        turn = self.number("turn", _("Turn time (s)"), 0, MAX_TURN_SECONDS)
        if turn is None:
            return
        count = self.query_one("#count", Select).value
        count = count if isinstance(count, int) else 2
        seats = [HUMAN, *(str(self.query_one(f"#seat-{i}", Select).value) for i in range(1, count))]
        rules = self.config.rules.with_(target=target).to_dict()
        private = self.query_one("#private", Switch).value
        self.dismiss(CreateTable(tuple(seats), target, rules, private=private, turn_seconds=turn))


class QuickPlayDialog(_Form):
    """Quick play: dismissed with its :class:`QuickPlay` request, or None."""

    DEFAULT_CSS = CSS.format(name="QuickPlayDialog")

    def __init__(self, config: Config, fill_after: int = DEFAULT_FILL_AFTER) -> None:
        super().__init__()
        self.config = config
        self.fill_after = fill_after

    def compose(self) -> ComposeResult:
        count = min(4, len(self.config.opponents) + 1)
        with Vertical():
            yield Static(_("Quick play"), classes="title")
            players = [(str(n), n) for n in (2, 3, 4)]
            yield _row(_("Players"), Select(players, value=count, allow_blank=False, id="players", compact=True))
            yield _row(_("AIs fill after (s)"), Input(str(self.fill_after), id="fill", compact=True))
            yield Static(
                _(
                    "You join the fullest open table of your rules and size, or open one. After the wait,"
                    " AIs near the players' rating take the empty seats."
                ),
                classes="detail",
            )
            yield Static("", id="problem", classes="problem")
            yield self.buttons(_("Play  (Enter)"))

    def on_mount(self) -> None:
        self.query_one("#fill", Input).focus()  # Enter plays; the players are a Shift+Tab away

    def take(self) -> None:
        fill = self.number("fill", _("AIs fill after (s)"), 0, MAX_FILL_AFTER)
        if fill is None:
            return
        players = self.query_one("#players", Select).value
        rules = self.config.rules.to_dict()
        self.dismiss(
            QuickPlay(players if isinstance(players, int) else 2, self.config.rules.target, rules, fill_after=fill)
        )


class NameDialog(_Form):
    """The name to sign in with: dismissed with it, or None. ``held``: the name the server
    refused (another player's), ``suggestion`` its free one."""

    DEFAULT_CSS = CSS.format(name="NameDialog")

    def __init__(self, name: str, *, held: str | None = None) -> None:
        super().__init__()
        self.name_text = name
        self.held = held

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(_("Your name online"), classes="title")
            if self.held is not None:
                # Translators: {name} is a player's name, as the server has it.
                text = _("The name {name} is another player's on this server: choose another.")
                yield Static(plain(text.format(name=self.held)), classes="detail")
            else:
                yield Static(_("The other players see you by this name."), classes="detail")
            yield Input(self.name_text, id="name", max_length=NAME_MAX, classes="wide")
            yield Static("", id="problem", classes="problem")
            yield self.buttons(_("Sign in  (Enter)"))

    def on_mount(self) -> None:
        self.query_one("#name", Input).focus()

    def take(self) -> None:
        name = self.query_one("#name", Input).value.strip()
        problem = name_problem(name, _("your name"))
        if problem is not None:
            self.problem(problem)
            return
        self.dismiss(name)


class ServerDialog(_Form):
    """The server's address (``ws://HOST:PORT``): dismissed with its lobby's address, or None."""

    DEFAULT_CSS = CSS.format(name="ServerDialog")

    def __init__(self, address: str = "") -> None:
        super().__init__()
        self.address = address

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(_("Play online"), classes="title")
            yield Static(
                _("The server's address, as 'kings-corners server' prints it (ws://HOST:PORT), or an invite link."),
                classes="detail",
            )
            yield Input(self.address, placeholder="ws://HOST:PORT", id="address", classes="wide")
            yield Static("", id="problem", classes="problem")
            yield self.buttons(_("Open the lobby  (Enter)"))

    def on_mount(self) -> None:
        self.query_one("#address", Input).focus()

    def take(self) -> None:
        from kc_tui.net.lobby_client import parse_invite

        text = self.query_one("#address", Input).value.strip()
        if parse_invite(text) is not None:
            self.dismiss(text)
            return
        try:
            lobby_address(text)
        except AddressError as exc:
            self.problem(str(exc))
            return
        self.dismiss(text)


class RematchDialog(Modal[None]):
    """The rematch offered at a match's end: its people, and who accepted so far. ``r`` says yes
    (``answer(True)``; the dialog stays, showing who else did, until the new table starts),
    Escape says no and goes back to the lobby (``answer(False)``)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "accept", N_("Rematch")),
        Binding("escape", "back", N_("Lobby")),
    ]
    DEFAULT_CSS = CSS.format(name="RematchDialog")

    def __init__(self, offer: RematchMsg, answer: Callable[[bool], None]) -> None:
        super().__init__()
        self.offer = offer
        self.answer = answer
        self.accepted = False

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(_("Rematch?"), classes="title")
            yield Static("", id="progress", classes="detail")
            with Horizontal(classes="buttons"):
                yield Button(_("Rematch  (r)"), variant="primary", id="accept")
                yield Button(_("Back to the lobby  (Esc)"), id="back")

    def on_mount(self) -> None:
        self.show(self.offer)

    def show(self, offer: RematchMsg) -> None:
        """The offer's progress: who is asked, who said yes."""
        self.offer = offer
        # Translators: {people} are the players' names; {accepted} and {count} are numbers.
        line = _("Same players, same rules: {people}. {accepted} of {count} said yes.").format(
            people=", ".join(offer.people), accepted=len(offer.accepted), count=len(offer.people)
        )
        if offer.accepted:
            # Translators: {names} are the names of the players who accepted the rematch.
            line += " " + _("Yes: {names}.").format(names=", ".join(offer.accepted))
        if self.accepted:
            line += " " + _("You said yes: waiting for the others.")
        self.query_one("#progress", Static).update(plain(line))
        self.query_one("#accept", Button).disabled = self.accepted

    @on(Button.Pressed, "#accept")
    def _accept_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_accept()

    @on(Button.Pressed, "#back")
    def _back_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_back()

    def action_accept(self) -> None:
        if self.accepted:
            return
        self.accepted = True
        self.answer(True)
        self.show(self.offer)

    def action_back(self) -> None:
        self.answer(False)
        self.dismiss(None)


__all__ = ["DEFAULT_FILL_AFTER", "NameDialog", "NewTableDialog", "QuickPlayDialog", "RematchDialog", "ServerDialog"]
