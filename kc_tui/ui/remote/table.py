"""The table a remote seat shows: the game screen's widgets (the piles and corners, the hand,
the other seats' panels, the scores, the move log, the footer) drawn from the server's latest
``state``, with the message area and the status line of the connection (who the table waits for,
who is connected, "reconnecting…"). :class:`~kc_tui.ui.remote.screen.RemoteScreen` adds the
keys and the messages from the network.

Everything from the network (names, log lines, scores) is shown literally.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from kc_tui.config import Config
from kc_tui.engine import PLACES, Card, Move, Rules, is_pile_move, is_play, target
from kc_tui.i18n import _, ngettext
from kc_tui.net.client import RemoteSeat
from kc_tui.net.schema import StateMsg
from kc_tui.ui.cards import CardLook
from kc_tui.ui.remote.view import (
    card_targets,
    chips_scoring,
    is_my_turn,
    link_line,
    pile_targets,
    round_results,
    seat_kind,
)
from kc_tui.ui.table.parts import fit_message, say, seat_label, show_too_small, table_parts
from kc_tui.ui.table.picking import HandPicking
from kc_tui.ui.text import visible
from kc_tui.ui.widgets import HandView, MoveLog, OpponentPanel, Scoreboard, TableView
from kc_tui.ui.widgets.footer import Footer
from kc_tui.ui.widgets.pile import PLACE_KEYS


class RemoteTable(HandPicking, Screen[None]):
    """The table of ``seat``'s latest state, and what is picked on it."""

    CSS_PATH: ClassVar[list[str | PurePath]] = ["../screens/game.tcss", "remote.tcss"]
    AUTO_FOCUS = ""

    def __init__(self, seat: RemoteSeat, config: Config) -> None:
        super().__init__()
        self.seat = seat
        self.config = config
        self.look = CardLook.of(config)
        self.watching = seat.watching
        self.rules = Rules()
        self.state: StateMsg | None = None
        #: The legal moves of the state (the engine's reading of its ``legal`` list).
        self.moves: list[Move] = []
        self.selected_card: Card | None = None
        self.source_pile: int | None = None
        self.hint_move: Move | None = None
        self.too_small = False
        #: Each round's winner (None: blocked) by its number, from the ``round`` messages seen.
        self.round_winners: dict[int, str | None] = {}
        #: The state the table shows instead of the latest (the round as it ended, while its
        #: summary is open); None: the latest.
        self.held: StateMsg | None = None

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        table = TableView(self.look, self.rules, show_keys=not self.watching, id="table")
        yield from table_parts(table, HandView(self.look, id="hand"), link=Static(id="link"))
        yield Footer(compact=True, show_command_palette=False)

    # ------------------------------------------------------------------ drawing
    def refresh_view(self) -> None:
        """Draw the table from the latest state, or the one held (nothing before the first)."""
        state = self.held or self.state
        if state is None:
            return
        table = self.query_one(TableView)
        table.show(state.piles, state.stock, round_number=state.round, pot=state.pot, look=self.look, rules=self.rules)
        hint_places = {target(self.hint_move)} if self.hint_move is not None and self.hint_move_is_move else set()
        table.highlight(self._targets(), self.source_pile, hint_places)
        if not self.watching:
            hand = list(state.hand or ())
            keys = self.card_keys(hand, state.round if is_my_turn(state) else None)
            self.query_one(HandView).show(
                hand, drawn=state.drawn, selected=self.selected_card, look=self.look, keys=keys
            )
            self._show_me(state)
            self.call_after_refresh(fit_message, self)  # the hand may have taken a line more or less
        for panel in self.query(OpponentPanel):
            if panel.seat >= len(state.seats):
                continue
            seat = state.seats[panel.seat]
            kind = seat_kind(seat.kind, connected=seat.connected, stand_in=seat.stand_in)
            if kind != panel.kind:
                panel.kind = kind
                for neighbour in panel.row():  # the row's panels are fitted together
                    neighbour.refresh()
            panel.show(
                cards=seat.cards,
                total=seat.total,
                score=visible(seat.score),
                target=state.target,
                to_move=seat.to_move,
                dealer=seat.dealer,
                look=self.look,
            )
        chips = chips_scoring(self.rules)
        self.query_one(Scoreboard).show(
            [s.name for s in state.seats],
            round_results(state, self.round_winners, chips=chips),
            [s.total for s in state.seats],
            self.rules.target,
            state.round,
            chips=chips,
            pot=state.pot,
        )
        self.query_one(MoveLog).sync([visible(line) for line in state.log])  # control characters as escapes
        self._show_link()
        self.refresh_bindings()

    @property
    def hint_move_is_move(self) -> bool:
        m = self.hint_move
        return m is not None and (is_play(m) or is_pile_move(m))

    def _show_me(self, state: StateMsg) -> None:
        if state.seat is None or not 0 <= state.seat < len(state.seats):
            return
        me = state.seats[state.seat]
        n = len(state.hand or ())
        if is_my_turn(state):
            turn = (_("your turn"), "bold #ffd75f")
        else:
            turn = (ngettext("{n} card", "{n} cards", n).format(n=n), "dim")
        seat_label(self.query_one("#me-label", Static), me.name, me.score, turn)

    def _show_link(self) -> None:
        text, kind = link_line(self.seat.link, self.state, watching=self.watching)
        line = self.query_one("#link", Static)
        line.update(text)
        for k in ("ok", "wait", "down", "ended"):
            line.set_class(k == kind, f"-{k}")

    def say(self, text: str | Text, kind: str = "info") -> None:
        """``text`` in the message area (:func:`~kc_tui.ui.table.parts.say`)."""
        say(self, text, kind)

    def _prompt(self) -> None:
        state = self.state
        if self.seat.ended:
            return
        if state is None:
            self.say(_("Connecting to the table…"))
        elif state.over:
            self.say(state.end_text or _("The match is over."))
        elif self.watching:
            if state.waiting_for:
                # Translators: {who} says who the table waits for ("Ben is playing…").
                self.say(_("Watching: {who}").format(who=self._who_plays(state)))
            else:
                self.say(_("Watching the table."))
        elif is_my_turn(state):
            if self.selected_card is not None:
                self._say_targets(self.look.label(self.selected_card), self._targets(), card=True)
            elif self.source_pile is not None:
                # Translators: {pile} is a pile's place on the table ("NW", "E").
                pile = _("Pile {pile}").format(pile=PLACES[self.source_pile])
                self._say_targets(pile, self._targets(), card=False)
            else:
                self.say(_("Your turn: pick a card (←→ 1-9) then a pile (its key or click). t: end turn"))
        elif state.waiting_for is not None:
            self.say(self._who_plays(state))
        else:
            self.say(_("Waiting for the next round…"))

    @staticmethod
    def _who_plays(state: StateMsg) -> str:
        """Who the table waits for: "Ben is playing…", or that Ben is away (and the table waits,
        or an AI plays for Ben)."""
        who = state.waiting_for
        seat = next((s for s in state.seats if s.name == who), None)
        if seat is not None and seat.kind == "human" and not seat.connected:
            if seat.stand_in:
                return _("{name} is away: an AI plays for them…").format(name=who)
            return _("{name} is away: the table waits.").format(name=who)
        return _("{name} is playing…").format(name=who)

    def _say_targets(self, what: str, where: set[int], *, card: bool) -> None:
        keys = ", ".join(f"{PLACES[p]} [{PLACE_KEYS[p]}]" for p in sorted(where))
        if card and where:
            # Translators: {what} is a card ("10♥"); {keys} the places it may go, each with its key.
            said = _("{what} selected: it can go on {keys}. Esc to cancel.")
        elif card:
            # Translators: {what} is a card ("10♥").
            said = _("{what} selected: no pile takes it now. Esc to cancel.")
        elif where:
            # Translators: {what} is a pile ("Pile NW"); {keys} the places it may go, each with its key.
            said = _("{what} picked up: it can move onto {keys}. Esc to cancel.")
        else:
            # Translators: {what} is a pile ("Pile NW").
            said = _("{what} picked up: it cannot move anywhere now. Esc to cancel.")
        self.say(said.format(what=what, keys=keys))

    def places_for_card(self, card: Card) -> set[int]:
        return card_targets(self.moves, card)

    def places_for_pile(self, place: int) -> set[int]:
        return pile_targets(self.moves, place)

    # ------------------------------------------------------------------ size
    def on_resize(self, event: events.Resize) -> None:
        self._check_size(event.size.width, event.size.height)
        self.call_after_refresh(fit_message, self)

    def _check_size(self, width: int, height: int) -> None:
        small = show_too_small(self, width, height)
        if small != self.too_small:
            self.too_small = small
            self.refresh_bindings()


__all__ = ["RemoteTable"]
