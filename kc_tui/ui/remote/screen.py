"""A remote seat: a table hosted by ``kings-corners host``, played from this app over the network.

The server is the only authority: this screen draws what its ``state`` messages say (the same
widgets as the game screen: the piles and corners, the hand, the other seats' panels, the
scores, the move log, the footer), and sends what its person wants to do (a move, undo, a hint)
with the state's stamp. Legal targets come from the state's ``legal`` list; a refusal is the
server's one line. A status line says who the table waits for, who is connected, and
"reconnecting…" while the connection is down (after the host stopped the table: that it waits
for the host to serve it again; the seat is back by itself then): the connection runs as a task
on the app's loop (:class:`~kc_tui.net.client.RemoteSeat`), so the screen never waits on the
network. With ``watch`` it is a spectator's view: every seat's panel, no hand, no moves.

A round's summary offers the round's replay (``v``): the server sends it in pages built from
this seat's view of every position (:mod:`kc_tui.net.replays`), and the replay screen steps
through it while this screen goes on taking the table's states underneath.

Everything from the network (names, log lines, summaries, refusals) is shown literally.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import ModalScreen

from kc_tui.config import Config
from kc_tui.engine import (
    END,
    PLACES,
    Card,
    Move,
    MoveError,
    move_str,
    parse_move,
)
from kc_tui.i18n import N_, _
from kc_tui.match.replay import ReplayError
from kc_tui.match.view import TableSnapshot, not_your_turn, who_plays
from kc_tui.net.client import Link, RemoteSeat, Status, trusting
from kc_tui.net.replays import RemoteRoundReplay, ReplayPages
from kc_tui.net.schema import (
    MALFORMED,
    ClockMsg,
    ErrorMsg,
    HintMsg,
    RefusedMsg,
    ReplayMsg,
    RoundMsg,
    ServerMessage,
    StateMsg,
    WelcomeMsg,
)
from kc_tui.ui.dialogs.help import PICKING_HELP
from kc_tui.ui.literal_text import rich_fill, visible
from kc_tui.ui.remote.table import CLOCK_TICK, RemoteTable
from kc_tui.ui.remote.view import is_my_turn, table_rules
from kc_tui.ui.screens.game_hint import hint_shown
from kc_tui.ui.table.draw import move_made
from kc_tui.ui.table.parts import more_of_message
from kc_tui.ui.table.picking import PICKING_KEYS, TABLE_KEYS
from kc_tui.ui.widgets import HandView, OpponentPanel, PileView

if TYPE_CHECKING:
    from kc_tui.ui.dialogs.summary import RoundSummary

#: The actions that work while the terminal is too small, or the connection has ended.
ALWAYS = frozenset({"quit", "help", "menu", "leave"})
#: The game's keys as they work at a remote seat (no pause: the table's pace is the host's).
SEAT_KEYS: tuple[tuple[str, str], ...] = (
    *PICKING_HELP,
    ("h", N_("hint: the server's lookahead AI says what it would do")),
    ("esc", N_("drop the selection")),
    (N_("r  or  F1"), N_("the rules of this table")),
    ("?", N_("this page")),
    ("m", N_("leave for the main menu: your seat waits for you (the same address takes it back)")),
    ("ctrl+q", N_("quit (the table goes on; join again with the same address)")),
)
#: The line under the seat's keys.
SEAT_FOOT = N_(
    "The host's server checks every move: legal targets of what you picked are highlighted in green with a"
    " heavy edge, and a refused try says why. The line above your hand says who the table waits for. Esc closes."
)
#: The keys of a spectator's view, for its help.
WATCH_KEYS: tuple[tuple[str, str], ...] = (
    ("r  F1", N_("the rules of this table")),
    ("m  q  Esc", N_("leave for the main menu")),
    ("?", N_("these keys")),
    ("Ctrl+Q", N_("quit")),
)


class RemoteScreen(RemoteTable):
    """A seat (or a spectator's place) at a table on a server; ``url`` from
    :func:`~kc_tui.net.client.table_address`."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *PICKING_KEYS,
        Binding("u", "undo", N_("Undo")),
        Binding("h", "hint", N_("Hint")),
        *TABLE_KEYS,
    ]
    #: Ctrl+Q asks first, whatever is shown over this screen (the app's quit looks for it).
    ASKS_BEFORE_QUIT: ClassVar[bool] = True

    def __init__(self, url: str, config: Config, *, watch: bool = False, seat: RemoteSeat | None = None) -> None:
        super().__init__(seat or RemoteSeat(url, watch=watch), config)
        self.seat.on_message = self._received
        self.seat.on_link = self._link_changed
        self.seat.on_problem = self._problem
        self.welcome: WelcomeMsg | None = None
        self._hint_asked: int | None = None
        #: The undo asked for (its request's id) and the stamp of the state it was asked at:
        #: the next state of another stamp answers it.
        self._undo_asked: tuple[int, int] | None = None
        self._told_over = False
        self._panels_for: tuple[tuple[str, str], ...] | None = None
        #: The round's summary on show (the match's end waits for it).
        self._summary: ModalScreen[None] | None = None
        #: Every round's cards left, by its number, as its ``round`` message showed them.
        self._round_cards: dict[int, tuple[tuple[Card, ...], ...]] = {}
        #: The replay being fetched: its pages so far, the request waiting for an answer, and
        #: the summary that asked for it (None: no replay on its way).
        self._replay_pages: ReplayPages | None = None
        self._replay_asked: int | None = None
        self._replay_for: RoundSummary | None = None
        #: The stamp of the state this seat's turn began at (None: not its turn yet), and the
        #: turn the setting ``auto_hint`` last showed a hint at.
        self._turn_began: int | None = None
        self._auto_hinted: int | None = None

    def on_mount(self) -> None:
        self.query_one("#me").display = not self.watching
        self._check_size(self.app.size.width, self.app.size.height)
        self._show_link()
        self.set_interval(CLOCK_TICK, self.tick_clock)
        self.say(_("Connecting to the table…"))
        self.run_worker(self.seat.run(), name="remote-seat", group="net", exit_on_error=False)

    def on_unmount(self) -> None:
        seat = self.seat
        seat.on_message = seat.on_link = seat.on_problem = None
        seat.close()

    # ------------------------------------------------------------------ from the network
    def _received(self, message: ServerMessage) -> None:
        if not self.is_attached:
            return
        if isinstance(message, ReplayMsg | RefusedMsg | ErrorMsg) and self._answers_replay(message):
            self._replay_answer(message)
        elif isinstance(message, WelcomeMsg):
            self._welcomed(message)
        elif isinstance(message, StateMsg):
            self._new_state(message)
        elif isinstance(message, RefusedMsg):
            self._hint_asked = None if message.id == self._hint_asked else self._hint_asked
            if self._undo_asked is not None and message.id == self._undo_asked[0]:
                self._undo_asked = None
            self.say(Text.assemble(("✗ ", "bold red"), visible(message.reason)), "error")
            self.app.bell()
        elif isinstance(message, HintMsg):
            self._hint_arrived(message)
        elif isinstance(message, RoundMsg):
            self._round_scored(message)
        elif isinstance(message, ClockMsg):
            self._show_link()
        elif isinstance(message, ErrorMsg) and message.code != self.seat.link.code:
            # (an error that ended the seat, or the host's stop, is said in the player's words
            # with the way out: see _link_changed)
            self.say(Text.assemble(("✗ ", "bold red"), visible(message.message)), "error")

    def _welcomed(self, message: WelcomeMsg) -> None:
        self.welcome = message
        self.rules, problem = table_rules(message.rules)
        if problem is not None:
            self._problem(problem)
        self._ensure_panels([(s.name, s.kind) for s in message.seats])

    def _ensure_panels(self, seats: list[tuple[str, str]]) -> None:
        """One panel for every seat but this one (every seat for a spectator), made again only
        when the table's seats change."""
        key = tuple(seats)
        if key == self._panels_for:
            return
        self._panels_for = key
        row = self.query_one("#opponents", Horizontal)
        row.remove_children()
        welcome = self.welcome.seat if self.welcome is not None else None
        mine = self.latest.viewer if self.latest is not None else welcome
        row.mount_all(
            [OpponentPanel(i, name, kind) for i, (name, kind) in enumerate(seats) if i != mine or self.watching]
        )

    def _new_state(self, state: StateMsg) -> None:
        before, stamp = self.latest, self.state.stamp if self.state is not None else None
        self.take_state(state)
        view = self.latest
        assert view is not None
        self._ensure_panels([(s.name, s.kind) for s in view.seats])
        changed = before is None or stamp != state.stamp
        if changed:
            self.hint_move = None
            mine = is_my_turn(view)
            if mine and (before is None or not is_my_turn(before) or before.round_number != view.round_number):
                self._turn_began = state.stamp
            hand = view.hand or ()
            if self.selected_card is not None and (self.selected_card not in hand or not mine):
                self.selected_card = None
            self.source_pile = None  # the piles changed: a pile is picked up again from the new table
        self.refresh_view()
        was_saved = before is None or before.save_problem is None
        if view.save_problem is not None and was_saved:
            # Translators: {problem} is why the host cannot save (its file system's words).
            unsaved = _("The host cannot save the table ({problem}): the table holds, no move is made until it can.")
            self._problem(unsaved.format(problem=view.save_problem))
        elif view.save_problem is None and not was_saved:
            self._problem(_("The host saves the table again: every move so far is kept."))
        if changed:
            self._after_state(before, view)
        elif self._summary is None and self._waiting_words(before) != self._waiting_words(view):
            self._prompt()  # the person waited for came or went: the line says so at once

    @staticmethod
    def _waiting_words(view: TableSnapshot | None) -> str | None:
        """What the message area says of the person the table waits for (another seat's)."""
        if view is None or view.waiting_for is None or is_my_turn(view) or view.over:
            return None
        return who_plays(view)

    def _after_state(self, before: TableSnapshot | None, view: TableSnapshot) -> None:
        """Say what changed: the seat's own move done, its turn, the match's end."""
        if view.over and not self._told_over:
            self._told_over = True
            self.say(view.end_text or _("The match is over."))
            if self._summary is None:
                self._show_match_end()  # else once the round's summary is closed
            return
        mine = is_my_turn(view)
        undo, self._undo_asked = self._undo_asked, None
        if undo is not None and self.state is not None and undo[1] != self.state.stamp:
            self.say(Text.assemble(("↶ ", "bold green"), _("Took back your last move.")), "ok")
            return
        new_line = view.log[-1] if view.log and (before is None or view.log != before.log) else ""
        if mine and before is not None and is_my_turn(before) and new_line:
            self.say(move_made(new_line), "ok")
        else:
            self._prompt()
            self._hint_at_turn_start()

    def _round_scored(self, message: RoundMsg) -> None:
        from kc_tui.ui.dialogs.summary import RoundSummary, told_round

        self.round_winners[message.number] = message.winner
        self._round_cards[message.number] = message.cards
        if self.state is not None:
            self.take_state(self.state)  # its scoreboard marks who went out
        self.selected_card = self.source_pile = self.hint_move = None
        # The table under the summary shows the round as it ended (the next deal waits for it).
        latest = self.latest
        self.held = latest if latest is not None and latest.round_number == message.number else None
        self.refresh_view()
        names = [s.name for s in latest.seats] if latest is not None else []
        told = told_round(
            message.number, message.winner, message.lines, cards=message.cards, names=names, look=self.look
        )
        review = self.latest is not None and self.latest.review
        summary = RoundSummary(told, replay=lambda: self._ask_replay(message.number, summary), review=review)
        self._summary = summary

        def closed(_: object = None) -> None:
            if self._summary is summary:
                self._summary = None
                self.held = None
                self.refresh_view()
                if self._told_over:
                    self._show_match_end()
                else:
                    self._prompt()
                    self._hint_at_turn_start()

        self.app.push_screen(summary, closed)

    # ------------------------------------------------------------------ a round's replay
    def _ask_replay(self, number: int, summary: RoundSummary) -> None:
        """Ask the server for round ``number``'s replay (its first page); ``summary`` says how it goes."""
        if self._replay_pages is not None:
            summary.note(_("The replay is on its way…"))
            return
        seat = self.welcome.seat if self.welcome is not None else None
        rid = self.seat.replay(number, 0) if self.seat.connected else None
        if rid is None:
            summary.note(_("The connection is down: the replay cannot be fetched now."))
            return
        self._replay_pages, self._replay_asked, self._replay_for = ReplayPages(number, seat), rid, summary
        summary.note(_("Fetching round {number}'s replay…").format(number=number))

    def _answers_replay(self, message: ReplayMsg | RefusedMsg | ErrorMsg) -> bool:
        """Whether ``message`` answers the replay's request, or is an error that names no
        request (a slow-down that dropped it)."""
        if self._replay_asked is None:
            return False
        return message.id == self._replay_asked or (isinstance(message, ErrorMsg) and message.id is None)

    def _replay_answer(self, message: ReplayMsg | RefusedMsg | ErrorMsg) -> None:
        """A page of the replay (ask for the next, or show it once whole), or why there is none."""
        pages, summary = self._replay_pages, self._replay_for
        if pages is None or summary is None:
            return
        if isinstance(message, RefusedMsg):
            # Translators: {reason} is the server's words for why it sends no replay.
            self._replay_done(_("No replay: {reason}").format(reason=message.reason))
            return
        if isinstance(message, ErrorMsg):
            if message.code == MALFORMED and message.id is not None:
                self._replay_done(_("This table's server sends no replays: it is an older version."))
            else:
                self._replay_done(_("No replay: {reason}").format(reason=message.message))
            return
        try:
            start = pages.add(message)
        except ReplayError as exc:
            self._replay_done(_("The replay cannot be shown: {problem}").format(problem=exc))
            return
        if start is not None:
            self._replay_asked = self.seat.replay(pages.number, start)
            if self._replay_asked is None:
                self._replay_done(_("The connection is down: the replay cannot be fetched now."))
            return
        self._replay_done("")
        if summary.is_attached:
            self._show_replay(pages, summary)

    def _replay_done(self, note: str) -> None:
        summary = self._replay_for
        self._replay_pages = self._replay_asked = self._replay_for = None
        if summary is not None:
            summary.note(note)

    def _show_replay(self, pages: ReplayPages, summary: RoundSummary) -> None:
        from kc_tui.ui.screens.replay import ReplayScreen

        seats = self.welcome.seats if self.welcome is not None else ()
        results = self.latest.results if self.latest is not None else ()
        try:
            replay = RemoteRoundReplay(
                pages,
                names=[s.name for s in seats],
                kinds=[s.kind for s in seats],
                rules=self.rules,
                results=results,
                cards_left=self._round_cards.get(pages.number, ()),
            )
        except ReplayError as exc:
            summary.note(_("The replay cannot be shown: {problem}").format(problem=exc))
            return
        self.app.push_screen(ReplayScreen(replay, look=self.look, pace=self.config.pace))

    def _show_match_end(self) -> None:
        from kc_tui.ui.dialogs.summary import MatchSummary, match_end

        view = self.latest
        if view is None:
            return
        self.say(view.end_text or _("The match is over."), "info")

        def closed(choice: str | None) -> None:
            if choice == "menu":
                self.action_menu()

        self.app.push_screen(MatchSummary(match_end(view, you=view.viewer), table=True), closed)

    def _hint_arrived(self, message: HintMsg) -> None:
        if message.id != self._hint_asked:
            return  # an answer for a request given up (the table moved on)
        self._hint_asked = None
        try:
            m = parse_move(message.move)
        except MoveError:
            # Translators: {hint} is the server's words for its hint.
            self.say(rich_fill(_("Hint: {hint}"), lead="bold", hint=Text(visible(message.text))), "hint")
            return
        key = self.pick_hint(m)
        self.say(hint_shown(self, key, visible(message.text.removeprefix("Hint: "))), "hint")

    def _hint_at_turn_start(self) -> None:
        """With the setting ``auto_hint`` on, the hint (as ``h`` shows it) once at the start of
        each of the person's turns, as at home."""
        if not self.config.auto_hint or self.latest is None or self._summary is not None or self.too_small:
            return
        if self._turn_began == self._auto_hinted or not self.check_action("hint", ()):
            return
        self._auto_hinted = self._turn_began
        self.action_hint()

    def _link_changed(self, link: Link) -> None:
        if not self.is_attached:
            return
        self._show_link()
        if link.status is not Status.CONNECTED and self._replay_pages is not None:
            self._replay_done(_("The connection was lost before the replay arrived: v asks again."))
        if link.status is Status.ENDED and link.code is not None:
            reason = Text(visible(link.reason))
            # Translators: {reason} is why the seat has left the table.
            ended = _("{reason}. Esc, q or m: main menu")
            self.say(Text.assemble(("✗ ", "bold red"), rich_fill(ended, reason=reason)), "error")
        elif link.status is Status.RECONNECTING:
            self.selected_card = self.source_pile = self.hint_move = None
            self._hint_asked = None
            self.refresh_view()
            if self.seat.host_away:
                self.say(
                    _("The host stopped the table; you'll be reconnected when they serve it again. m: main menu"),
                    "error",
                )
            else:
                self.say(_("The connection is down: reconnecting… Moves can be made again once it is back."))
        elif link.status is Status.CONNECTED:
            self._prompt()
        self.refresh_bindings()

    def _problem(self, reason: str) -> None:
        if self.is_attached:
            self.app.notify(reason, title=_("Table"), severity="warning", timeout=8)

    # ------------------------------------------------------------------ actions
    def _may_act(self) -> bool:
        return not self.watching and self.seat.connected and is_my_turn(self.latest)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ALWAYS:
            return True
        if self.seat.ended:  # Esc and q leave a table that ended (q is a pile's key, not shown then)
            return action in ("clear", "rules") or (action == "pile" and parameters == (7,))
        if self.too_small:
            return False
        mine = self._may_act()
        if action in ("end_turn", "hint"):
            return mine
        if action == "undo":
            return mine and self.latest is not None and self.latest.can_undo
        if action in ("card", "pile"):
            return mine  # the footer shows only the keys that act now
        if action == "pick":
            return True if mine else None
        return True

    def _my_turn_or_say(self) -> bool:
        if self.too_small or self.watching:
            return False
        if self._may_act():
            return True
        if not self.seat.connected:
            self.say(_("The connection is down: your move waits until it is back."), "info")
        else:
            self.say(not_your_turn(self.latest), "info")
        return False

    # ------------------------------------------------------------------ picking (HandPicking)
    def submit_move(self, m: Move) -> None:
        self._send(m)

    def why_not_pick_up(self, place: int) -> str | None:
        if self.places_for_pile(place):
            return None
        empty = self.latest is None or not self.latest.piles[place]
        if empty:
            # Translators: {pile} is a pile's place on the table ("NW", "E").
            return _("Pile {pile} is empty.").format(pile=PLACES[place])
        # Translators: {pile} is a pile's place on the table ("NW", "E").
        return _("Pile {pile} cannot move anywhere now.").format(pile=PLACES[place])

    def end_turn_now(self) -> None:
        self._send(END)

    def action_pile(self, place: int) -> None:
        if self.seat.ended:
            if place == 7:  # q
                self.action_leave()
            return
        super().action_pile(place)

    def _send(self, m: Move) -> None:
        """Ask the server for ``m`` (it answers with the next state, or a refusal)."""
        if self.seat.move(move_str(m)) is None:
            self.say(_("The connection is down: the move was not sent."), "error")
            return
        # Translators: {move} is the move in the game's notation.
        self.say(_("Sent: {move}…").format(move=move_str(m)))

    def action_undo(self) -> None:
        if not self._my_turn_or_say():
            return
        view, state = self.latest, self.state
        if view is None or state is None or not view.can_undo:
            self.say((view.undo_note if view else "") or _("Nothing to undo this turn."), "info")
            return
        rid = self.seat.undo()
        if rid is None:
            self.say(_("The connection is down: nothing was sent."), "error")
            return
        self._undo_asked = (rid, state.stamp)
        self.selected_card = self.source_pile = self.hint_move = None
        self.say(_("Taking back your last move…"))

    def action_hint(self) -> None:
        if not self._my_turn_or_say() or self._hint_asked is not None:
            return
        if self.hint_move is not None and more_of_message(self):
            return  # the hint on show is longer than its area: h shows its next lines
        rid = self.seat.hint()
        if rid is None:
            self.say(_("The connection is down: no hint now."), "error")
            return
        self._hint_asked = rid
        self.say(_("Thinking of a hint…"), "hint")

    def action_clear(self) -> None:
        if self.seat.ended:
            self.action_leave()
            return
        super().action_clear()

    def action_rules(self) -> None:
        from kc_tui.ui.screens.rules import RulesScreen

        self.app.push_screen(RulesScreen(self.rules))

    def action_help(self) -> None:
        from kc_tui.ui.dialogs.help import HelpDialog

        self.app.push_screen(HelpDialog(SEAT_KEYS, title=N_("Keys at a remote seat"), foot=SEAT_FOOT))

    def action_menu(self) -> None:
        self.action_leave()

    def action_leave(self) -> None:
        """Back to the main menu; a seat stays at the table for its person (the same address
        takes it back)."""
        was_seat = not self.watching and not self.seat.ended
        self.seat.close()
        self.workers.cancel_group(self, "net")
        self.app.pop_screen()
        if was_seat:
            self.app.notify(
                _("You left the table: your seat waits for you (join again with the same address)."), title=_("Table")
            )

    def action_quit(self) -> None:
        """Quit the app, once its person says so (the table goes on without this client)."""
        from kc_tui.ui.remote.dialogs import RemoteQuitDialog

        def done(yes: bool | None) -> None:
            if yes:
                self.seat.close()
                self.app.exit()

        self.app.push_screen(RemoteQuitDialog(watching=self.watching), done)

    # ------------------------------------------------------------------ mouse
    @on(HandView.CardClicked)
    def _card_clicked(self, event: HandView.CardClicked) -> None:
        self.card_clicked(event.card)

    @on(PileView.Clicked)
    def _pile_clicked(self, event: PileView.Clicked) -> None:
        if not self.watching:
            self.action_pile(event.place)


class WatchScreen(RemoteScreen, inherit_bindings=False):
    """A spectator's view of a table: every seat's panel, the piles, the scores and the log,
    no hand and no moves. Escape, q or m leave for the main menu."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r,f1", "rules", N_("Rules")),
        Binding("question_mark", "help", N_("Keys"), key_display="?"),
        Binding("m,q,escape", "leave", N_("Menu"), key_display="m"),
        Binding("ctrl+q", "quit", N_("Quit"), priority=True),
    ]

    def __init__(self, url: str, config: Config, *, seat: RemoteSeat | None = None) -> None:
        super().__init__(url, config, watch=True, seat=seat)

    def action_help(self) -> None:
        from kc_tui.ui.dialogs.help import HelpDialog

        self.app.push_screen(HelpDialog(WATCH_KEYS, (), title=N_("Watching a table"), foot=""))


def remote_screen(url: str, config: Config, *, watch: bool = False, cafile: str | None = None) -> RemoteScreen:
    """The screen for a table's address: a spectator's (``/watch``, or ``watch``) or a seat's;
    ``cafile``: certificates a ``wss://`` server is trusted by (:func:`~kc_tui.net.client.trusting`)."""
    seat = RemoteSeat(url, watch=watch, ssl_context=trusting(cafile) if cafile is not None else None)
    return WatchScreen(seat.url, config, seat=seat) if seat.watching else RemoteScreen(seat.url, config, seat=seat)


__all__ = ["RemoteScreen", "WatchScreen", "remote_screen"]
