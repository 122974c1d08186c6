"""The demo: AI players play each other, round after round to the target.

Keys pause and resume, step one move, change the speed and show every hand (open hands are
allowed here and only here). Each AI decision is computed in a worker thread that touches no
widget and no session state: it posts a :class:`DemoScreen.Decided` message, and the screen
applies the move on the main thread. A decision carries the demo's token and the session's
stamp, so a decision made for an older demo (or an older position) is never applied.
"""

from __future__ import annotations

import time
from typing import ClassVar

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Header, Static
from textual.worker import Worker, WorkerState

from kc_tui.config import PACE_SECONDS, PACES, Config
from kc_tui.engine import END, Move
from kc_tui.session import AITurn, MatchSession, new_seed
from kc_tui.ui.cards import CardLook
from kc_tui.ui.text import visible
from kc_tui.ui.widgets import MoveLog, OpponentPanel, Scoreboard, TableView

#: The expert's think time in the demo, per pace: a fast demo keeps moving.
DEMO_THINK_MS: dict[str, int] = {"slow": 1000, "normal": 800, "fast": 300, "instant": 100}
#: Seconds the end of a round stays on screen before the next deal, per pace.
ROUND_PAUSE: dict[str, float] = {"slow": 3.0, "normal": 2.0, "fast": 1.0, "instant": 0.0}
#: Rows the demo needs besides the seats (header, table, status, footer) for full-size seats.
COMFORT_ROWS = 21
#: At the instant pace the table is redrawn at most this often (seconds).
REDRAW_EVERY = 0.3


class DemoScreen(Screen[None]):
    """AI vs AI with open hands on request. ``seats``: 2-4 AI kinds; ``seed`` None for a random one."""

    CSS_PATH = "demo.tcss"
    TITLE = "Kings Corners"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space,p", "pause", "Pause/Go", key_display="space"),
        Binding("n,period", "step", "Step", key_display="n"),
        Binding("plus,equals_sign,f", "faster", "Faster", key_display="+"),
        Binding("minus,s", "slower", "Slower", key_display="-"),
        Binding("h", "hands", "Hands"),
        Binding("a", "again", "New demo"),
        Binding("r,f1", "rules", "Rules"),
        Binding("escape,q", "leave", "Back"),
    ]

    class Decided(Message):
        """An AI decision, posted from the worker thread."""

        def __init__(self, token: int, session: MatchSession, turn: AITurn, move: Move) -> None:
            super().__init__()
            self.token = token
            self.session = session
            self.turn = turn
            self.move = move

    def __init__(self, seats: list[str], seed: int | None, pace: str, config: Config) -> None:
        super().__init__()
        if not 2 <= len(seats) <= 4:
            raise ValueError(f"a demo takes 2 to 4 AI players, not {len(seats)}")
        self.kinds = list(seats)
        self.config = config
        self.pace = pace if pace in PACES else "normal"
        self.look = CardLook.of(config)
        self.show_hands = False
        self.paused = False
        self.thinking = False
        self.stepping = False
        self._token = 0
        self._timer: Timer | None = None
        self._last_draw = 0.0
        self._redraw: Timer | None = None
        self._summary_open = False
        self.session = self._new_session(seed)

    def _new_session(self, seed: int | None) -> MatchSession:
        self.seed = new_seed() if seed is None else seed
        return MatchSession.all_ai(
            self.kinds,
            self.config.rules,
            self.seed,
            think_ms=DEMO_THINK_MS[self.pace],
            card_style=self.config.card_style,
        )

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield Header(icon="♠")
        with Horizontal(id="demo"):
            with Vertical(id="demo-left"):
                with Vertical(id="demo-seats"):
                    yield from self._panels()
                yield TableView(self.look, self.session.rules, show_keys=False, id="demo-table")
                yield Static(id="demo-status")
            with Vertical(id="demo-side"):
                yield Scoreboard(id="demo-score")
                yield MoveLog(id="demo-log")
        yield Footer()

    def _panels(self) -> list[OpponentPanel]:
        return [
            OpponentPanel(seat, info.name, info.kind, reveal=self.show_hands, id=f"demo-seat-{seat}")
            for seat, info in enumerate(self.session.seats)
        ]

    def on_mount(self) -> None:
        # RichLog renders lines at least 78 cells wide and crops them in a narrower column.
        self.query_one(MoveLog).min_width = 20
        self._fit(self.app.size.height)
        self._update_title()
        self.refresh_view()
        self._schedule(0.3 if PACE_SECONDS[self.pace] else 0.0)

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.height)

    def _fit(self, height: int) -> None:
        """In a short terminal the seats shrink to two lines each so the table keeps its room."""
        self.set_class(height < COMFORT_ROWS + 3 * self.session.n, "-compact")

    def _update_title(self) -> None:
        vs = " vs ".join(self.session.names)
        self.sub_title = f"Demo · {vs} · seed {self.seed}"

    # ------------------------------------------------------------------ drawing
    def refresh_view(self) -> None:
        """Draw everything from the session (main thread only)."""
        self._last_draw = time.monotonic()
        s = self.session
        r = s.round
        self.query_one(TableView).show(r.piles, len(r.stock), round_number=s.round_number, look=self.look)
        to_move = s.to_move if not r.over else None
        target = 0 if s.rules.scoring == "chips" else s.rules.target
        for panel in self.query(OpponentPanel):
            panel.reveal = self.show_hands
            panel.show(
                cards=s.hand_size(panel.seat),
                total=s.totals[panel.seat],
                target=target,
                to_move=panel.seat == to_move and not s.match_over,
                thinking=self.thinking and panel.seat == to_move,
                dealer=panel.seat == s.match.dealer,
                hand=s.hand(panel.seat) if self.show_hands else None,
                look=self.look,
            )
            panel.set_class(s.match_over and panel.seat in s.winners, "-winner")
        self.query_one(Scoreboard).show(
            s.names, s.results, s.totals, s.rules.target, s.round_number, chips=s.rules.scoring == "chips"
        )
        self.query_one(MoveLog).sync(s.log)
        self._show_status()
        self.refresh_bindings()

    def _maybe_refresh(self) -> None:
        """Redraw now, or soon when moves come faster than the eye (instant pace)."""
        if PACE_SECONDS[self.pace] or self.paused or time.monotonic() - self._last_draw >= REDRAW_EVERY:
            self.refresh_view()
        elif self._redraw is None:
            self._redraw = self.set_timer(REDRAW_EVERY, self._trailing_redraw)

    def _trailing_redraw(self) -> None:
        self._redraw = None
        self.refresh_view()

    def _show_status(self) -> None:
        s = self.session
        out = Text()
        if s.match_over:
            names = " and ".join(s.names[w] for w in s.winners)
            out.append(f"Match over after {len(s.results)} rounds: {names} won. ", "bold green")
            out.append("a: new demo · Esc: back")
        else:
            state = ("■ paused", "bold #e0a030") if self.paused else ("▶ playing", "bold green")
            out.append(state[0], state[1])
            out.append(f" · round {s.round_number} · pace {self.pace}")
            if s.round_over:
                out.append(" · round over", "bold")
            elif self.thinking:
                out.append(f" · {s.names[s.to_move]} is thinking…")
            out.append(" · hands open" if self.show_hands else " · hands hidden (h shows them)", "dim")
        status = self.query_one("#demo-status", Static)
        status.update(out)
        status.set_class(self.paused and not s.match_over, "-paused")

    # ------------------------------------------------------------------ the flow
    def _schedule(self, delay: float) -> None:
        """Take the next step after ``delay`` seconds unless paused (a pending step runs anyway)."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if self.session.match_over or self.thinking or (self.paused and not self.stepping):
            return
        if delay > 0:
            self._timer = self.set_timer(delay, self._advance)
        else:
            self.call_later(self._advance)

    def _advance(self) -> None:
        """One step: finish a round that is over, or let the AI to move think (in a thread)."""
        self._timer = None
        s = self.session
        if self.thinking or s.match_over or (self.paused and not self.stepping) or self._summary_open:
            return
        if not self.is_attached or not self.is_current:
            return  # covered (rules, a dialog): on_screen_resume carries on
        if s.round_over:
            self._finish_round()
            return
        turn = s.prepare_ai_turn()
        self.thinking = True
        if PACE_SECONDS[self.pace]:
            self.refresh_view()  # the "thinking" sign
        self._think(self._token, s, turn)

    @work(thread=True, group="demo-ai", exit_on_error=False)
    def _think(self, token: int, session: MatchSession, turn: AITurn) -> None:
        # A worker thread: computes the move and posts it; touches no widget and no session.
        self.post_message(self.Decided(token, session, turn, turn.think()))

    def on_demo_screen_decided(self, message: DemoScreen.Decided) -> None:
        if message.token != self._token or message.session is not self.session:
            return  # a decision for a demo that has been replaced: never applied
        self.thinking = False
        self.session.apply_ai_turn(message.turn, message.move)
        self._after_move()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "demo-ai" or event.state != WorkerState.ERROR:
            return
        # An AI crashed: end its turn so the demo goes on.
        self.log.error(f"demo AI failed: {event.worker.error!r}")
        self.thinking = False
        s = self.session
        if s.ai_to_move:
            s.apply_ai_turn(s.prepare_ai_turn(), END)
        self._after_move()

    def _after_move(self) -> None:
        self._maybe_refresh()
        if self.stepping:
            self.stepping = False
            self.refresh_view()
            return
        self._schedule(PACE_SECONDS[self.pace])

    def _finish_round(self) -> None:
        s = self.session
        result = s.finish_round()
        self.stepping = False
        self.refresh_view()
        if s.match_over:
            self._match_over()
            return
        who = "blocked: no one went out" if result.winner is None else f"{s.names[result.winner]} went out"
        if PACE_SECONDS[self.pace]:
            self.notify(visible(f"Round {result.number}: {who}."), title="Demo", timeout=ROUND_PAUSE[self.pace] + 1)
        self._schedule(ROUND_PAUSE[self.pace])

    def _match_over(self) -> None:
        from kc_tui.ui.dialogs.summary import MatchSummary

        self._summary_open = True

        def closed(choice: str | None) -> None:
            self._summary_open = False
            if choice == "again":
                self.call_later(self.action_again)
            elif choice == "menu":
                self.action_leave()

        if self.is_current:
            self.app.push_screen(MatchSummary(self.session), closed)
        else:
            self._summary_open = False

    # ------------------------------------------------------------------ actions
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        over = self.session.match_over
        if action in ("pause", "step"):
            return None if over else True
        if action == "faster":
            return PACES.index(self.pace) < len(PACES) - 1
        if action == "slower":
            return PACES.index(self.pace) > 0
        return True

    def action_pause(self) -> None:
        if self.session.match_over:
            return
        self.paused = not self.paused
        self.stepping = False
        self.refresh_view()
        if not self.paused:
            self._schedule(0)

    def action_step(self) -> None:
        """Pause (if playing) and make exactly one move, or end the round when it is over."""
        if self.session.match_over:
            return
        if not self.paused:
            self.paused = True
            if self._timer is not None:
                self._timer.stop()
                self._timer = None
        if self.thinking:
            self.stepping = False  # the move being thought about is the step
            self.refresh_view()
            return
        self.stepping = True
        self._advance()

    def _set_pace(self, pace: str) -> None:
        self.pace = pace
        self.refresh_view()
        if not self.thinking and not self.paused:
            self._schedule(PACE_SECONDS[pace])

    def action_faster(self) -> None:
        i = PACES.index(self.pace)
        if i < len(PACES) - 1:
            self._set_pace(PACES[i + 1])

    def action_slower(self) -> None:
        i = PACES.index(self.pace)
        if i > 0:
            self._set_pace(PACES[i - 1])

    def action_hands(self) -> None:
        self.show_hands = not self.show_hands
        self.refresh_view()

    async def action_again(self) -> None:
        """A new demo with the same seats and a new seed; any decision in flight is dropped."""
        self._token += 1
        self.workers.cancel_group(self, "demo-ai")
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.thinking = False
        self.stepping = False
        self.paused = False
        self._summary_open = False
        self.session = self._new_session(None)
        self._update_title()
        seats = self.query_one("#demo-seats", Vertical)
        await seats.remove_children()
        await seats.mount_all(self._panels())
        self.query_one(MoveLog).sync(self.session.log)
        self.call_after_refresh(self._restart)

    def _restart(self) -> None:
        self.refresh_view()
        self._schedule(0.3 if PACE_SECONDS[self.pace] else 0.0)

    def action_rules(self) -> None:
        from kc_tui.ui.screens.rules import RulesScreen

        self.app.push_screen(RulesScreen(self.session.rules))

    def action_leave(self) -> None:
        self._token += 1
        self.workers.cancel_group(self, "demo-ai")
        self.dismiss(None)

    def on_screen_resume(self) -> None:
        if not self.thinking and not self._summary_open:
            self._schedule(0.2)
