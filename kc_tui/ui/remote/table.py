"""The table a remote seat shows: the game screen's widgets (the piles and corners, the hand,
the other seats' panels, the scores, the move log, the footer) drawn from the server's latest
``state``, with the message area and the status line of the connection (the turn clock of a
table with a turn time, counting down, who the table waits for, who is connected,
"reconnecting…"). :class:`~kc_tui.ui.remote.screen.RemoteScreen` adds the keys and the messages
from the network.

Everything from the network (names, log lines, scores) is shown literally.
"""

from __future__ import annotations

import asyncio
from pathlib import PurePath
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from kc_tui.config import Config
from kc_tui.engine import Card, Move, Rules
from kc_tui.i18n import _
from kc_tui.match.view import TableSnapshot
from kc_tui.net.client import RemoteSeat
from kc_tui.net.schema import StateMsg
from kc_tui.ui.cards import CardLook
from kc_tui.ui.remote.view import clock_line, is_my_turn, link_line
from kc_tui.ui.table.draw import behind_summary, draw_table, turn_prompt
from kc_tui.ui.table.parts import fit_message, say, show_too_small, table_parts
from kc_tui.ui.table.picking import HandPicking
from kc_tui.ui.widgets import HandView, TableView
from kc_tui.ui.widgets.footer import Footer

#: Seconds between two looks at the turn clock's line while a clock runs.
CLOCK_TICK = 0.25


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
        #: The latest ``state`` (its stamp says which position it is), and the table's view it
        #: holds (its ``view``): all the screen reads of it.
        self.state: StateMsg | None = None
        self.latest: TableSnapshot | None = None
        self.selected_card: Card | None = None
        self.source_pile: int | None = None
        self.hint_move: Move | None = None
        self.too_small = False
        #: Each round's winner (None: blocked) by its number, from the ``round`` messages seen.
        self.round_winners: dict[int, str | None] = {}
        #: The round as it ended, shown while its summary is open (None: the latest view).
        self.held: TableSnapshot | None = None
        #: The status line shown last (the clock's tick redraws it only when it changed).
        self._link_shown: tuple[Text, str] | None = None

    @property
    def moves(self) -> list[Move]:
        """The legal moves of the latest view."""
        return list(self.latest.legal) if self.latest is not None else []

    def take_state(self, state: StateMsg) -> None:
        """``state`` is the latest: its view is what the screen reads from now on."""
        self.state = state
        self.latest = state.view

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        table = TableView(self.look, self.rules, show_keys=not self.watching, id="table")
        yield from table_parts(table, HandView(self.look, id="hand"), link=Static(id="link"))
        yield Footer(compact=True, show_command_palette=False)

    # ------------------------------------------------------------------ drawing
    def refresh_view(self) -> None:
        """Draw the table from the latest view (under a round's summary: the round as it ended,
        with the scores as they are now); nothing before the first."""
        latest = self.latest
        if latest is None:
            return
        snap = behind_summary(self.held, latest) if self.held is not None else latest
        self.view = snap
        self.query_one(TableView).rules = self.rules
        mine = is_my_turn(snap) and self.held is None
        keys = None
        if not self.watching:
            keys = self.card_keys(list(snap.hand or ()), (snap.round_number, snap.turns_ended) if mine else None)
        me = None if self.watching else snap.viewer
        draw_table(self, snap, self.look, self.picked(), me=me, mine=mine, keys=keys)
        if not self.watching:
            self.call_after_refresh(fit_message, self)  # the hand may have taken a line more or less
        self._show_link()
        self.refresh_bindings()

    def _show_link(self) -> None:
        clock = clock_line(self.seat.clock, self.latest, asyncio.get_running_loop().time())
        text, kind = link_line(self.seat.link, self.latest, watching=self.watching, clock=clock)
        if (text, kind) == self._link_shown:
            return
        self._link_shown = (text, kind)
        line = self.query_one("#link", Static)
        line.update(text)
        for k in ("ok", "wait", "down", "ended"):
            line.set_class(k == kind, f"-{k}")

    def tick_clock(self) -> None:
        """The turn clock's seconds shown as they go (every :data:`CLOCK_TICK` seconds)."""
        if self.seat.clock is not None and self.is_attached:
            self._show_link()

    def say(self, text: str | Text, kind: str = "info") -> None:
        """``text`` in the message area (:func:`~kc_tui.ui.table.parts.say`)."""
        say(self, text, kind)

    def _prompt(self) -> None:
        if self.seat.ended:
            return
        if self.latest is None:
            self.say(_("Connecting to the table…"))
            return
        self.say(*turn_prompt(self.latest, self.look, self.picked(), watching=self.watching))

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
