"""Play online: a server's lobby (``kings-corners server``), from the menu's "Play online" or
``kings-corners online [URL]``.

The screen lists the server's open tables, live (its :class:`~kc_tui.net.lobby_client.LobbyClient`
keeps the listing current from the server's deltas): each table's rules, target, seats (who
sits, the free ones, the AIs), spectators, what it is doing and its clock. ``n`` opens a new
table, ``q`` quick play, ``j`` joins the table under the cursor, ``w`` watches it, Enter does
whichever it can. Once the player has a seat, a panel says how many seats are taken (and, at a
quick table, when AIs fill the empty ones), and gives the creator the invite link (``c`` copies
it). When the table starts, its seat opens as a remote seat (the same screen ``join`` shows); at
the match's end the rematch is offered there. The lobby's connection runs as a task on the app's
loop and connects again by itself; a server that is not there is one line, ``r`` tries again.

Everything from the network (names, reasons, links) is shown literally.
"""

from __future__ import annotations

import time
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Static

from kc_tui.config import Config
from kc_tui.i18n import N_, _, ngettext
from kc_tui.net.client import AddressError, Link, Status
from kc_tui.net.listings import clock_text, free_seats, phase_text, rules_text, seats_text
from kc_tui.net.lobby_client import LobbyClient, Signer
from kc_tui.net.lobby_place import LobbyPlace, lobby_client, player_key, quick_request, waiting_line, why_not_sent
from kc_tui.net.lobby_schema import (
    NAME_TAKEN,
    OPEN,
    WATCH_ONLY,
    AcceptInvite,
    Challenge,
    CreateTable,
    JoinedMsg,
    JoinTable,
    LobbyErrorMsg,
    LobbyMsg,
    LobbyRefusedMsg,
    LobbyServerMessage,
    QuickPlay,
    Rematch,
    RematchMsg,
    SignedIn,
    StartMsg,
    TableGoneMsg,
    TableListing,
    TableMsg,
    WatchingMsg,
    WatchTable,
)
from kc_tui.ui.dialogs.online import DEFAULT_FILL_AFTER, NameDialog, NewTableDialog, QuickPlayDialog, RematchDialog
from kc_tui.ui.literal_text import cut, plain, rich_plain
from kc_tui.ui.widgets.footer import Footer
from kc_tui.util.printable import is_you

#: The widest a table's seats and rules are shown in the list (cells) at 80 columns; the
#: seats take every column a wider screen adds.
SEATS_CELLS = 20
NARROWEST = 80
RULES_CELLS = 14
PHASE_CELLS = 18
#: The lobby's keys, for its help page.
LOBBY_KEYS: tuple[tuple[str, str], ...] = (
    ("n", N_("a new table: its seats (people and AIs), target, turn time, private or listed")),
    ("q", N_("quick play: the fullest open table of your rules, AIs fill the empty seats after a wait")),
    ("j", N_("join the table under the cursor (a free person's seat)")),
    ("w", N_("watch the table under the cursor")),
    ("Enter", N_("join the table (back to your seat at one you play at), or watch it when no seat is free")),
    ("c", N_("copy the invite link of your table")),
    ("r", N_("connect again now")),
    ("Esc", N_("leave your seat at a table not yet started; else back to the menu")),
)


#: The actions a lobby for watching only has no use for.
WATCH_ONLY_HIDES = frozenset({"new_table", "quick", "join", "copy", "retry"})


class LobbyScreen(Screen[None]):
    """A server's lobby. ``address``: the server's (``ws://HOST:PORT``) or an invite link (its
    table's seat is taken once signed in). ``name``: the name to sign in with (the settings' by
    default); ``quick``: quick play at once, its AIs filling after ``fill_after`` seconds.
    ``key``: the player key (the install's, from the data folder, by default)."""

    CSS_PATH = "lobby.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "new_table", N_("New table")),
        Binding("q", "quick", N_("Quick play")),
        Binding("j", "join", N_("Join")),
        Binding("w", "watch", N_("Watch")),
        Binding("c", "copy", N_("Copy invite")),
        Binding("r", "retry", N_("Retry")),
        Binding("question_mark", "help", N_("Keys"), key_display="?"),
        Binding("escape", "back", N_("Back")),
    ]

    def __init__(
        self,
        address: str,
        config: Config,
        *,
        name: str | None = None,
        quick: bool = False,
        fill_after: int = DEFAULT_FILL_AFTER,
        key: Signer | None = None,
        cafile: str | None = None,
    ) -> None:
        super().__init__()
        self.config = config
        self.name_asked = name or config.player_name
        self.fill_after = fill_after
        self.cafile = cafile
        self.place = LobbyPlace.at(address, quick=quick)
        self.address = self.place.address
        self.key = key
        self.client: LobbyClient | None = None
        #: The table the player plays at (its seat open), and the rematch offered there.
        self.playing: str | None = None
        self.rematch: RematchDialog | None = None
        #: When each listed table's quick fill comes due (time.monotonic()).
        self._fill_due: dict[str, float] = {}

    @property
    def seated(self) -> JoinedMsg | None:
        """The seat the player holds at a table not started yet (None: none)."""
        return self.place.seated

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield Static("", id="title")
        yield Static("", id="lobby-status")
        table: DataTable[Text] = DataTable(id="tables", cursor_type="row", zebra_stripes=True)
        yield table
        yield Static(_("No open tables yet: n opens one, q finds players for you."), id="empty")
        with Vertical(id="waiting"):
            yield Static("", id="waiting-text")
            yield Static("", id="invite")
        yield Static("", id="lobby-message")
        help_line = _("n new table · q quick play · j join · w watch · Enter join or watch · ? keys · Esc back")
        yield Static(help_line, id="help")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        table = self.query_one("#tables", DataTable)
        for label in (_("Rules"), _("Target"), _("Seats"), _("Watch"), _("Playing"), _("Clock")):
            table.add_column(Text(label))
        self.query_one("#waiting").display = False
        self.query_one("#title", Static).update(plain(_("Play online: {server}").format(server=self.address), "bold"))
        self.set_interval(1.0, self._tick)
        if is_you(self.name_asked):
            self.app.push_screen(NameDialog(""), self._first_name)
        else:
            self._start()

    def _first_name(self, name: object) -> None:
        if not isinstance(name, str):
            self.app.pop_screen()
            return
        self.name_asked = name
        self._start()

    def _start(self) -> None:
        """Open the lobby's connection (again, after it ended for good)."""
        self.key, problem = player_key(self.key)
        if problem is not None:
            self.say(problem)
        try:
            client = lobby_client(
                self.address,
                self.key,
                self.name_asked,
                cafile=self.cafile,
                on_event=self._received,
                on_link=self._link_changed,
                on_problem=self._problem,
            )
        except AddressError as exc:
            self._show_status(Text.assemble(("✗ ", "bold red"), rich_plain(str(exc))))
            return
        self.client = client
        self._show_status(rich_plain(_("Connecting to {server}…").format(server=client.url)))
        self.run_worker(client.run(), name="lobby", group="lobby", exit_on_error=False)

    def on_unmount(self) -> None:
        """The lobby left: its connection ends with its worker (cancelled with the screen)."""
        client = self.client
        if client is not None:
            client.on_event = client.on_link = client.on_problem = None
        self.workers.cancel_group(self, "lobby")

    # ------------------------------------------------------------------ from the network
    def _received(self, message: LobbyServerMessage) -> None:
        if not self.is_attached:
            return
        if isinstance(message, LobbyMsg | TableMsg | TableGoneMsg):
            self._note_fill(message)
            self._show_tables()
            self._show_waiting()
        elif isinstance(message, Challenge) and self.key is None:
            self._show_status(rich_plain(_("Watching the lobby (not signed in).")))
        elif isinstance(message, SignedIn):
            self._signed_in(message)
        elif isinstance(message, JoinedMsg):
            self._joined(message)
        elif isinstance(message, StartMsg):
            self._started(message)
        elif isinstance(message, WatchingMsg):
            self._open_table(message.url)
        elif isinstance(message, RematchMsg):
            self._rematch_offered(message)
        elif isinstance(message, LobbyRefusedMsg):
            self._refused(message)
        elif isinstance(message, LobbyErrorMsg):
            self.say(Text.assemble(("✗ ", "bold red"), rich_plain(message.message)))

    def _joined(self, message: JoinedMsg) -> None:
        """A seat at a table not started yet: the answer to a request, or the server naming
        the player's seat again after a sign-in."""
        self.place.joined(message)
        if message.id is not None:
            self.say("")
        self._show_waiting()

    def _signed_in(self, message: SignedIn) -> None:
        # The seats are the server's to name after each sign-in (``joined`` for a table not
        # started, ``start`` for one playing): a seat it does not name again is gone.
        asked = self.place.signed_in()
        self._show_waiting()
        self.refresh_bindings()
        games = ngettext("{games} match", "{games} matches", message.games).format(games=message.games)
        # Translators: {name} is the player's name on the server, {rating} a number, {games} "5 matches".
        line = _("Signed in as {name} · rating {rating} · {games}").format(
            name=message.name, rating=message.rating, games=games
        )
        self._show_status(rich_plain(line, "bold"))
        if isinstance(asked, AcceptInvite):
            self._ask(asked)
        elif asked:
            self._ask(quick_request(self.config, self.fill_after))

    def _refused(self, message: LobbyRefusedMsg) -> None:
        client = self.client
        if message.code == NAME_TAKEN and client is not None and client.name_refused is message:
            held = client.name
            self.app.push_screen(NameDialog(message.suggestion or "", held=held), self._renamed)
            return
        if message.code == WATCH_ONLY:
            self._show_status(rich_plain(_("Watching the lobby: this server has no sign-in (w watches a table).")))
            self.say(rich_plain(message.reason))
            self.query_one("#help", Static).update(rich_plain(_("w or Enter watch the table · ? keys · Esc back")))
            self._show_tables()
            self.refresh_bindings()
            return
        self.say(Text.assemble(("✗ ", "bold red"), rich_plain(message.reason)))
        self.app.bell()

    def _renamed(self, name: object) -> None:
        if isinstance(name, str) and self.client is not None:
            self.name_asked = name
            self.client.sign_in(name)
        elif self.client is not None:
            self._show_status(rich_plain(_("Not signed in: the lobby is only watched (r signs in again).")))

    def _note_fill(self, message: LobbyMsg | TableMsg | TableGoneMsg) -> None:
        """When each quick table's AIs come, counted from now."""
        now = time.monotonic()
        listings = message.tables if isinstance(message, LobbyMsg) else ()
        if isinstance(message, TableMsg):
            listings = (message.listing,)
        if isinstance(message, LobbyMsg):
            self._fill_due.clear()
        for listing in listings:
            if listing.fill_in is None:
                self._fill_due.pop(listing.table, None)
            else:
                self._fill_due[listing.table] = now + listing.fill_in
        if isinstance(message, TableGoneMsg):
            self._fill_due.pop(message.table, None)
            self.place.gone(message.table)

    def _fill_in(self, table: str) -> int | None:
        due = self._fill_due.get(table)
        return None if due is None else max(0, round(due - time.monotonic()))

    def _started(self, message: StartMsg) -> None:
        opens = self.place.started(message)
        self._show_waiting()
        if not opens:
            # The server names the seat again after a sign-in: its table, open or not, stays
            # as it is (the seat there connects again by itself; Enter in the list opens it).
            return
        self.say("")
        self._back_here()
        self.playing = message.table
        self._open_table(message.url)

    def _open_table(self, url: str) -> None:
        from kc_tui.ui.remote.screen import remote_screen

        try:
            screen = remote_screen(url, self.config, cafile=self.cafile)
        except (AddressError, OSError) as exc:
            self.say(Text.assemble(("✗ ", "bold red"), rich_plain(str(exc))))
            return
        if self.client is not None:
            self.client.follow(False)
        self.app.push_screen(screen)

    def on_screen_resume(self) -> None:
        """Back in the lobby (a table closed over it): its listing followed again."""
        if self.client is not None:
            self.client.follow(True)

    def _back_here(self) -> None:
        """Every screen over the lobby closed (a table, its summaries, the rematch)."""
        self.rematch = None
        while self.app.screen is not self and self in self.app.screen_stack:
            self.app.pop_screen()

    def _rematch_offered(self, offer: RematchMsg) -> None:
        if offer.declined:
            if self.rematch is not None or self.playing == offer.table:
                self._back_here()
                self.playing = None
                self.say(_("No rematch: a player left or said no."))
            return
        if self.rematch is not None and self.rematch.is_attached:
            self.rematch.show(offer)
            return

        def answer(accept: bool) -> None:
            if self.client is not None:
                self.client.send(Rematch(offer.table, accept))
            if not accept:
                self.rematch = None
                self.playing = None
                self.call_later(self._back_here)

        self.rematch = RematchDialog(offer, answer)
        self.app.push_screen(self.rematch)

    def _link_changed(self, link: Link) -> None:
        if not self.is_attached:
            return
        if link.status is Status.RECONNECTING:
            # Translators: {reason} is why the connection dropped or could not be made.
            line = _("✗ {reason}: connecting again… (r: now)").format(reason=link.reason)
            self._show_status(rich_plain(line, "bold red"))
        elif link.status is Status.ENDED and link.code is not None:
            line = _("✗ {reason}. r: try again · Esc: back").format(reason=link.reason)
            self._show_status(rich_plain(line, "bold red"))
        elif link.status is Status.CONNECTED and self.client is not None and self.client.signed_in is None and self.key:
            self._show_status(rich_plain(_("Connected: signing in…")))
        self.refresh_bindings()

    def _problem(self, reason: str) -> None:
        if self.is_attached:
            self.app.notify(reason, title=_("Lobby"), severity="warning", timeout=8)

    # ------------------------------------------------------------------ what is shown
    def _show_status(self, text: Text) -> None:
        self.query_one("#lobby-status", Static).update(text)

    def say(self, text: str | Text) -> None:
        """One line under the list: what happened (a refusal, a problem)."""
        self.query_one("#lobby-message", Static).update(text if isinstance(text, Text) else rich_plain(text))

    def _show_tables(self) -> None:
        client = self.client
        if client is None:
            return
        table = self.query_one("#tables", DataTable)
        at = self._cursor_table()
        table.clear()
        seats_cells = SEATS_CELLS + max(0, self.size.width - NARROWEST)
        for listing in sorted(client.listings.values(), key=lambda t: (t.phase != OPEN, -free_seats(t) == 0, t.table)):
            table.add_row(
                cut(rules_text(listing), RULES_CELLS),
                rich_plain(listing.target),
                cut(seats_text(listing), seats_cells),
                rich_plain(listing.spectators),
                cut(phase_text(listing, self._fill_in(listing.table)), PHASE_CELLS),
                rich_plain(clock_text(listing)),
                key=listing.table,
            )
        if at is not None and at in client.listings:
            table.move_cursor(row=table.get_row_index(at))
        empty = self.query_one("#empty", Static)
        empty.display = not client.listings
        if client.watch_only is not None:
            empty.update(rich_plain(_("No table is being played here yet.")))

    def on_resize(self) -> None:
        self._show_tables()

    def _tick(self) -> None:
        if self._fill_due:
            self._show_tables()
            self._show_waiting()

    def _show_waiting(self) -> None:
        panel = self.query_one("#waiting")
        seated = self.seated
        panel.display = seated is not None
        self.refresh_bindings()
        if seated is None or self.client is None:
            return
        listing = self.client.listings.get(seated.table)
        line = waiting_line(seated, listing, None if listing is None else self._fill_in(listing.table))
        line += " " + _("Esc leaves the seat.")
        self.query_one("#waiting-text", Static).update(rich_plain(line))
        invite = self.query_one("#invite", Static)
        invite.display = seated.invite is not None
        if seated.invite is not None:
            # Translators: {link} is the table's invite link.
            invite.update(rich_plain(_("Invite: {link}  (c copies it)").format(link=seated.invite)))

    def _cursor_table(self) -> str | None:
        table = self.query_one("#tables", DataTable)
        if not table.row_count:
            return None
        try:
            key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
        except Exception:
            return None
        return None if key.value is None else str(key.value)

    # ------------------------------------------------------------------ actions
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The footer shows c only with an invite to copy, r only while not signed in; a lobby
        for watching shows only what watches."""
        if self.client is not None and self.client.watch_only is not None and action in WATCH_ONLY_HIDES:
            return False
        if action == "copy":
            return self.seated is not None and self.seated.invite is not None
        if action == "retry":
            return self.client is None or self.client.signed_in is None
        return True

    def _ask(self, message: object) -> bool:
        """Send a request; False (said) when it cannot be sent now."""
        problem = why_not_sent(self.client, message, _("Not signed in yet: wait for the lobby, or r to connect again."))
        if problem is not None:
            self.say(problem)
            return False
        return True

    def _free_to_sit(self) -> bool:
        if self.seated is not None:
            self.say(_("You have a seat at a table already: Esc leaves it."))
            return False
        return True

    def action_new_table(self) -> None:
        if not self._free_to_sit():
            return

        def made(request: object) -> None:
            if isinstance(request, CreateTable) and self._ask(request):
                self.say(_("Opening a table…"))

        self.app.push_screen(NewTableDialog(self.config), made)

    def action_quick(self) -> None:
        if not self._free_to_sit():
            return

        def chosen(request: object) -> None:
            if isinstance(request, QuickPlay) and self._ask(request):
                self.say(_("Looking for a table…"))

        self.app.push_screen(QuickPlayDialog(self.config, self.fill_after), chosen)

    def _listing(self) -> TableListing | None:
        table = self._cursor_table()
        if table is None or self.client is None:
            self.say(_("No table chosen: the list is empty."))
            return None
        return self.client.listings.get(table)

    def action_join(self) -> None:
        listing = self._listing()
        if listing is None:
            return
        url = self.place.own_seat(listing)
        if url is not None:
            self._open_table(url)  # back to one's own seat
            return
        if not self._free_to_sit():
            return
        if not self.place.has_free_seat(listing):
            self.say(_("No free seat at this table: w watches it."))
            return
        self._ask(JoinTable(listing.table))

    def action_watch(self) -> None:
        listing = self._listing()
        if listing is None:
            return
        client = self.client
        if client is None or client.send(WatchTable(listing.table)) is None:
            self.say(_("The connection is down: nothing was sent."))

    @on(DataTable.RowSelected)
    def _row_chosen(self, event: DataTable.RowSelected) -> None:
        event.stop()
        listing = self._listing()
        if listing is None:
            return
        watch_only = self.client is not None and self.client.watch_only is not None
        if self.place.own_seat(listing) is not None or (
            self.place.has_free_seat(listing) and self.seated is None and not watch_only
        ):
            self.action_join()
        else:
            self.action_watch()

    def action_copy(self) -> None:
        if self.seated is None or self.seated.invite is None:
            return
        self.app.copy_to_clipboard(self.seated.invite)
        self.app.notify(_("Invite link copied."), title=_("Lobby"), timeout=3)

    def action_retry(self) -> None:
        client = self.client
        if client is None or client.ended:
            self.workers.cancel_group(self, "lobby")
            self.client = None
            self._start()
        elif client.signed_in is None and client.connected and self.key is not None:
            client.sign_in(self.name_asked)
        else:
            client.retry_now()

    def action_help(self) -> None:
        from kc_tui.ui.dialogs.help import HelpDialog

        self.app.push_screen(HelpDialog(LOBBY_KEYS, (), title=N_("Keys in the lobby"), foot=""))

    def action_back(self) -> None:
        leaving = self.place.leave()
        if leaving is not None:
            if self.client is not None:
                self.client.send(leaving)
            self._show_waiting()
            self.say(_("You left the table."))
            return
        self.app.pop_screen()


__all__ = ["LobbyScreen", "clock_text", "free_seats", "phase_text", "rules_text", "seats_text"]
