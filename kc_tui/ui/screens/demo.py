"""The demo: AI players play each other, round after round to the target.

Keys pause and resume, step one move, change the speed and show every hand (open hands are
allowed here and only here). The match runs on a :class:`~kc_tui.match.table.TableDriver` through
:class:`~kc_tui.ui.screens.driven.DrivenScreen`, as the game does: each AI decision is computed in
a worker thread that touches no widget and no session state and posts a
:class:`DemoScreen.Decided` message; a decision made for an older demo (or an older position) is
never applied.
"""

from __future__ import annotations

import time
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.timer import Timer
from textual.widgets import Header, Static

from kc_tui.config import PACES, Config, pace_name
from kc_tui.engine import is_secret
from kc_tui.i18n import N_, _, ngettext
from kc_tui.match.recorder import Recorder
from kc_tui.match.table import DEMO_THINK_MS, ROUND_PAUSE, TableDriver
from kc_tui.match.view import TableSnapshot
from kc_tui.ui.cards import CardLook
from kc_tui.ui.literal_text import visible
from kc_tui.ui.screens.driven import DrivenScreen
from kc_tui.ui.widgets import MoveLog, OpponentPanel, Scoreboard, TableView
from kc_tui.ui.widgets.footer import Footer

#: Rows the demo needs besides the seats (header, table, status, footer) for full-size seats.
COMFORT_ROWS = 21
#: Rows a full-size seat takes: its border and its line, and a line of cards when hands are open.
SEAT_ROWS = 3
OPEN_SEAT_ROWS = 4
#: At the instant pace the table is redrawn at most this often (seconds).
REDRAW_EVERY = 0.3


class DemoScreen(DrivenScreen):
    """AI vs AI with open hands on request. ``seats``: 2-4 AI kinds; ``seed`` None for a random one."""

    CSS_PATH = "demo.tcss"
    TITLE = "Kings Corners"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space,p", "pause", N_("Pause"), key_display="space"),
        Binding("space,p", "resume", N_("Resume"), key_display="space"),
        Binding("n,period", "step", N_("Step"), key_display="n"),
        Binding("plus,equals_sign,f", "faster", N_("Faster"), key_display="+"),
        Binding("minus,s", "slower", N_("Slower"), key_display="-"),
        Binding("h", "hands", N_("Hands")),
        Binding("a", "again", N_("New demo")),
        Binding("r,f1", "rules", N_("Rules")),
        Binding("escape,q", "leave", N_("Back")),
    ]
    #: Columns the header takes besides its title (its icon and the room on its right).
    HEADER_ROOM = 18

    def __init__(
        self, seats: list[str], seed: int | None, pace: str, config: Config, recorder: Recorder | None = None
    ) -> None:
        if not 2 <= len(seats) <= 4:
            raise ValueError(f"a demo takes 2 to 4 AI players, not {len(seats)}")
        self.kinds = list(seats)
        self.config = config
        #: Where the demo's rounds are recorded (marked as a demo), or None.
        self.recorder = recorder
        super().__init__(self._new_driver(seed, pace if pace in PACES else "normal"))
        self.look = CardLook.of(config)
        self.show_hands = False
        self.stepping = False
        self._last_draw = 0.0
        self._redraw: Timer | None = None
        self._summary_open = False

    def _new_driver(self, seed: int | None, pace: str) -> TableDriver:
        driver = TableDriver.for_demo(
            self.kinds, self.config.rules, seed, pace, card_style=self.config.card_style, recorder=self.recorder
        )
        self.seed = driver.seed
        return driver

    @property
    def pace(self) -> str:
        return self.driver.pace

    @pace.setter
    def pace(self, pace: str) -> None:
        self.driver.pace = pace

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield Header(icon="♠")
        with Horizontal(id="demo"):
            with Vertical(id="demo-left"):
                with Vertical(id="demo-seats"):
                    yield from self._panels()
                yield TableView(self.look, self.driver.rules, show_keys=False, id="demo-table")
                yield Static(id="demo-status")
            with Vertical(id="demo-side"):
                yield Scoreboard(id="demo-score")
                yield MoveLog(id="demo-log")
        yield Footer(compact=True, show_command_palette=False)

    def _panels(self) -> list[OpponentPanel]:
        return [
            OpponentPanel(seat, info.name, info.kind, reveal=self.show_hands, id=f"demo-seat-{seat}")
            for seat, info in enumerate(self.session.seats)
        ]

    def on_mount(self) -> None:
        # RichLog renders lines at least 78 cells wide and crops them in a narrower column.
        self.query_one(MoveLog).min_width = 20
        self._fit(self.app.size.height)
        self._update_title(self.app.size.width)
        self.refresh_view()
        self.schedule(0.3 if self.driver.ai_delay else 0.0)

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.height)
        self._update_title(event.size.width)

    def _fit(self, height: int) -> None:
        """In a short terminal the seats shrink to two lines each so the table keeps its room
        (an open hand then shares its seat's one line)."""
        rows = OPEN_SEAT_ROWS if self.show_hands else SEAT_ROWS
        self.set_class(height < COMFORT_ROWS + rows * self.driver.seat_count, "-compact")

    def _update_title(self, width: int) -> None:
        """The players and the seed asked for, or (when that does not fit ``width``) the seed
        only: the seats show the players' names. A secret deal shows no number."""
        # Translators: put between the players' names in the demo's title ("Ana vs Ben vs Cleo").
        vs = _(" vs ").join(self.session.names)
        n = self.driver.seat_count
        if is_secret(self.seed):
            full = _("Demo · {players}").format(players=vs)
            short = ngettext("Demo · {n} AI player", "Demo · {n} AI players", n).format(n=n)
        else:
            full = _("Demo · {players} · seed {seed}").format(players=vs, seed=self.seed)
            short = ngettext("Demo · {n} AI player · seed {seed}", "Demo · {n} AI players · seed {seed}", n).format(
                n=n, seed=self.seed
            )
        fits = len(f"{self.TITLE} — {full}") <= width - self.HEADER_ROOM
        self.sub_title = full if fits else short

    # ------------------------------------------------------------------ drawing
    def refresh_view(self) -> None:
        """Draw everything from the driver (main thread only)."""
        self._last_draw = time.monotonic()
        snap = self.driver.snapshot(None, open_hands=self.show_hands)
        self.query_one(TableView).show(
            snap.piles, snap.stock, round_number=snap.round_number, pot=snap.pot, look=self.look
        )
        for panel in self.query(OpponentPanel):
            panel.reveal = self.show_hands
        self.show_seats(snap)
        for panel in self.query(OpponentPanel):
            panel.set_class(snap.seats[panel.seat].winner, "-winner")
        self.show_scoreboard(snap)
        self.query_one(MoveLog).sync(snap.log)
        self._show_status(snap)
        self.refresh_bindings()

    def _maybe_refresh(self) -> None:
        """Redraw now, or soon when moves come faster than the eye (instant pace)."""
        if self.driver.ai_delay or self.paused or time.monotonic() - self._last_draw >= REDRAW_EVERY:
            self.refresh_view()
        elif self._redraw is None:
            self._redraw = self.set_timer(REDRAW_EVERY, self._trailing_redraw)

    def _trailing_redraw(self) -> None:
        self._redraw = None
        self.refresh_view()

    def _show_status(self, snap: TableSnapshot) -> None:
        out = Text()
        if snap.over:
            # Translators: put between the winners' names ("Ana and Ben").
            names = _(" and ").join(snap.winners)
            rounds = len(snap.results)
            # Translators: {names} are the winners. The English says "rounds" for one round too.
            won = ngettext(
                "Match over after {n} rounds: {names} won. ", "Match over after {n} rounds: {names} won. ", rounds
            )
            out.append(won.format(n=rounds, names=names), "bold green")
            out.append(_("a: new demo · Esc: back"))
        else:
            state = (_("■ paused"), "bold #e0a030") if self.paused else (_("▶ playing"), "bold green")
            out.append(state[0], state[1])
            out.append(_(" · round {round} · pace {pace}").format(round=snap.round_number, pace=pace_name(self.pace)))
            if snap.round_over:
                out.append(_(" · round over"), "bold")
            elif self.thinking and snap.to_move is not None:
                out.append(_(" · {name} is thinking…").format(name=snap.seats[snap.to_move].name))
            out.append(_(" · hands open") if self.show_hands else _(" · hands hidden"), "dim")
        status = self.query_one("#demo-status", Static)
        status.update(out)
        status.set_class(self.paused and not snap.over, "-paused")

    # ------------------------------------------------------------------ the flow (see DrivenScreen)
    def may_advance(self) -> bool:
        return self.is_attached and self.is_current and (not self.paused or self.stepping) and not self._summary_open

    def show_thinking(self) -> None:
        if self.driver.ai_delay:
            self.refresh_view()  # the "thinking" sign

    def after_change(self) -> None:
        self._maybe_refresh()
        if self.stepping:
            self.stepping = False
            self.refresh_view()
            return
        self.schedule()

    def round_over_reached(self) -> None:
        ended = self.driver.finish_round()
        self.tell_history_problem()
        self.stepping = False
        self.refresh_view()
        if self.driver.over:
            self._match_over()
            return
        result = ended.result
        if result.winner is None:
            told = _("Round {round}: blocked: no one went out.").format(round=result.number)
        else:
            name = self.session.names[result.winner]
            told = _("Round {round}: {name} went out.").format(round=result.number, name=name)
        pause = self.driver.next_round_delay
        if self.driver.ai_delay:
            self.notify(visible(told), title=_("Demo"), timeout=pause + 1)
        self.schedule(pause)

    def _match_over(self) -> None:
        from kc_tui.ui.dialogs.summary import MatchSummary, match_end

        self._summary_open = True

        def closed(choice: str | None) -> None:
            self._summary_open = False
            if choice == "again":
                self.call_later(self.action_again)
            elif choice == "menu":
                self.action_leave()

        if self.is_current:
            self.app.push_screen(MatchSummary(match_end(self.driver.snapshot(None, open_hands=True))), closed)
        else:
            self._summary_open = False

    # ------------------------------------------------------------------ actions
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        over = self.driver.over
        if action == "pause":
            return not over and not self.paused
        if action == "resume":
            return not over and self.paused
        if action == "step":
            return not over
        if action == "faster":
            return PACES.index(self.pace) < len(PACES) - 1
        if action == "slower":
            return PACES.index(self.pace) > 0
        return True

    def action_pause(self) -> None:
        if self.driver.over:
            return
        self.paused = not self.paused
        self.stepping = False
        self.refresh_view()
        if not self.paused:
            self.schedule(0)

    def action_resume(self) -> None:
        """Go on after a pause (the same key as the pause, named for what it does then)."""
        if self.paused:
            self.action_pause()

    def action_step(self) -> None:
        """Pause (if playing) and make exactly one move, or end the round when it is over."""
        if self.driver.over:
            return
        if not self.paused:
            self.paused = True
            self.stop_timer()
        self.stepping = True  # the move being thought about, if any, is the step
        if self.thinking:
            self.refresh_view()
            return
        self.advance()

    def _set_pace(self, pace: str) -> None:
        self.pace = pace
        self.refresh_view()
        if not self.thinking and not self.paused:
            self.schedule(self.driver.ai_delay)

    def action_faster(self) -> None:
        i = PACES.index(self.pace)
        if i < len(PACES) - 1:
            self._set_pace(PACES[i + 1])

    def action_slower(self) -> None:
        i = PACES.index(self.pace)
        if i > 0:
            self._set_pace(PACES[i - 1])

    def action_hands(self) -> None:
        """Show every hand, or hide them all again."""
        self.show_hands = not self.show_hands
        self._fit(self.app.size.height)
        self.refresh_view()

    async def action_again(self) -> None:
        """A new demo with the same seats and a new seed; any decision in flight is dropped."""
        self.replace_driver(self._new_driver(None, self.pace))
        self.stepping = False
        self.paused = False
        self._summary_open = False
        self._update_title(self.app.size.width)
        seats = self.query_one("#demo-seats", Vertical)
        await seats.remove_children()
        await seats.mount_all(self._panels())
        self.query_one(MoveLog).sync(self.session.log)
        self.call_after_refresh(self._restart)

    def _restart(self) -> None:
        self.refresh_view()
        self.schedule(0.3 if self.driver.ai_delay else 0.0)

    def action_leave(self) -> None:
        self.stop()  # nothing in flight is applied any more
        self.dismiss(None)

    def on_screen_resume(self) -> None:
        if not self.release_held() and not self.thinking and not self._summary_open:
            self.schedule(0.2)


__all__ = ["COMFORT_ROWS", "DEMO_THINK_MS", "REDRAW_EVERY", "ROUND_PAUSE", "DemoScreen"]
