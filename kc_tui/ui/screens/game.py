"""The table: a match against AI opponents, played with keys or the mouse."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Static
from textual.worker import Worker, WorkerState

from kc_tui.config import PACE_SECONDS, Config
from kc_tui.engine import END, PLACES, Card, Move, is_pile_move, is_play, move, play, play_card, source, target
from kc_tui.session import AITurn, MatchSession, suggest_move
from kc_tui.ui.cards import CardLook
from kc_tui.ui.text import plain
from kc_tui.ui.widgets import HandView, MoveLog, OpponentPanel, PileView, Scoreboard, TableView
from kc_tui.ui.widgets.hand import KEYS
from kc_tui.ui.widgets.pile import PLACE_KEYS

if TYPE_CHECKING:
    from kc_tui.engine import RoundResult

#: The smallest terminal the table fits in.
MIN_WIDTH = 80
MIN_HEIGHT = 24


def too_small_text(width: int, height: int) -> Text:
    return Text.assemble(
        ("The terminal is too small for the table.\n\n", "bold"),
        f"Please enlarge it to at least {MIN_WIDTH}×{MIN_HEIGHT}\n",
        (f"(it is {width}×{height} now).\n\n", "dim"),
        ("The game is paused and will be here, untouched, when it fits.", "italic"),
        justify="center",
    )


#: The actions that still work while the terminal is too small (everything else is paused).
ALWAYS = frozenset({"quit", "help"})


class GameScreen(Screen[None]):
    """One match. The human is the session's human seat; AIs move in worker threads."""

    CSS_PATH = "game.tcss"
    AUTO_FOCUS = ""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "card(-1)", "Card", key_display="←→/1-9"),
        Binding("right", "card(1)", "Card", show=False),
        *[Binding(k, f"pick({i})", show=False) for i, k in enumerate(KEYS)],
        Binding("w", "pile(0)", "Pile", key_display="q w e a d z x c"),
        *[Binding(k, f"pile({p})", show=False) for p, k in PLACE_KEYS.items() if p != 0],
        Binding("t", "end_turn", "End turn"),
        Binding("u", "undo", "Undo"),
        Binding("h", "hint", "Hint"),
        Binding("p", "pause", "Pause"),
        Binding("escape", "clear", "Clear", show=False),
        Binding("r,f1", "rules", "Rules"),
        Binding("question_mark", "help", "Keys", key_display="?"),
        Binding("ctrl+q", "quit", "Quit", priority=True),
    ]

    def __init__(self, session: MatchSession, config: Config) -> None:
        super().__init__()
        self.session = session
        self.config = config
        self.look = CardLook.of(config)
        self.selected_card: Card | None = None
        self.source_pile: int | None = None
        self.hint_move: Move | None = None
        self.paused = False
        self.thinking = False
        self.too_small = False
        self._pending: tuple[MatchSession, AITurn, Move] | None = None
        self._timer: Timer | None = None
        self._summary_open = False
        self._hint_busy = False

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        s = self.session
        with Vertical(id="game"):
            with Horizontal(id="opponents"):
                for seat, info in enumerate(s.seats):
                    if seat != s.human_seat:
                        yield OpponentPanel(seat, info.name, info.kind)
            with Horizontal(id="middle"):
                yield TableView(self.look, s.rules, id="table")
                with Vertical(id="side"):
                    yield Scoreboard(id="scoreboard")
                    yield MoveLog(id="log")
            yield Static(id="status")
            with Horizontal(id="me"):
                yield Static(id="me-label")
                yield HandView(self.look, id="hand")
        yield Static(id="too-small")
        yield Footer()

    def on_mount(self) -> None:
        self._check_size(self.app.size.width, self.app.size.height)
        self.refresh_view()
        self._schedule()

    # ------------------------------------------------------------------ drawing
    def refresh_view(self) -> None:
        """Draw the whole table from the session (never from a worker)."""
        s = self.session
        r = s.round
        table = self.query_one(TableView)
        table.show(r.piles, len(r.stock), round_number=s.round_number, look=self.look, rules=s.rules)
        targets = self._targets()
        hint_places: set[int] = set()
        if self.hint_move is not None and self.hint_move != END:
            hint_places.add(target(self.hint_move))
        table.highlight(targets, self.source_pile, hint_places)
        human = s.human_seat
        if human is not None:
            rs = s.round_seat(human)
            drawn = r.last_drawn[rs] if rs is not None and r.last_drawn[rs] >= 0 else None
            hand = s.hand(human)
            if drawn not in hand:
                drawn = None
            self.query_one(HandView).show(hand, drawn=drawn, selected=self.selected_card, look=self.look)
        to_move = s.to_move if not r.over else None
        for panel in self.query(OpponentPanel):
            panel.show(
                cards=s.hand_size(panel.seat),
                total=s.totals[panel.seat],
                target=s.rules.target,
                to_move=panel.seat == to_move,
                thinking=self.thinking and panel.seat == to_move,
                dealer=panel.seat == s.match.dealer,
                look=self.look,
            )
        self._show_scores()
        self.query_one(MoveLog).sync(s.log)
        self.refresh_bindings()

    def _show_scores(self) -> None:
        """Totals everywhere they appear: the scoreboard, the opponents' panels, your label."""
        s = self.session
        human = s.human_seat
        if human is not None:
            turn = "your turn" if s.human_to_move else ""
            label = Text.assemble(
                (s.names[human], "bold"), "\n", f"{s.totals[human]}/{s.rules.target} pts", "\n", (turn, "bold #ffd75f")
            )
            self.query_one("#me-label", Static).update(label)
        for panel in self.query(OpponentPanel):
            if panel.total != s.totals[panel.seat]:
                panel.total = s.totals[panel.seat]
                panel.refresh()
        self.query_one(Scoreboard).show(
            s.names, s.results, s.totals, s.rules.target, s.round_number, chips=s.rules.scoring == "chips"
        )

    def say(self, text: str | Text, kind: str = "info") -> None:
        status = self.query_one("#status", Static)
        status.update(plain(text) if isinstance(text, str) else text)
        for k in ("info", "error", "hint", "ok"):
            status.set_class(k == kind, f"-{k}")

    def _prompt(self) -> None:
        s = self.session
        if s.round_over:
            self.say("The round is over.")
        elif self.paused:
            self.say("Paused. Press p to go on.", "hint")
        elif s.human_to_move:
            if self.selected_card is not None:
                where = self._targets()
                if where:
                    keys = ", ".join(f"{PLACES[p]} [{PLACE_KEYS[p]}]" for p in sorted(where))
                    self.say(f"{self.look.label(self.selected_card)} selected: it can go on {keys}. Esc to cancel.")
                else:
                    self.say(f"{self.look.label(self.selected_card)} selected: no pile takes it now. Esc to cancel.")
            elif self.source_pile is not None:
                where = self._targets()
                name = PLACES[self.source_pile]
                if where:
                    keys = ", ".join(f"{PLACES[p]} [{PLACE_KEYS[p]}]" for p in sorted(where))
                    self.say(f"Pile {name} picked up: it can move onto {keys}. Esc to cancel.")
                else:
                    self.say(f"Pile {name} picked: it cannot move anywhere now. Esc to cancel.")
            else:
                self.say("Your turn: pick a card (←→ 1-9), then a pile (its key or a click). t: end turn")
        else:
            self.say(f"{s.names[s.to_move]} is playing…")

    def _targets(self) -> set[int]:
        s = self.session
        if not s.human_to_move:
            return set()
        legal = s.legal_moves()
        if self.selected_card is not None:
            return {target(m) for m in legal if is_play(m) and play_card(m) == self.selected_card}
        if self.source_pile is not None:
            return {target(m) for m in legal if is_pile_move(m) and source(m) == self.source_pile}
        return set()

    # ------------------------------------------------------------------ size
    def on_resize(self, event: events.Resize) -> None:
        self._check_size(event.size.width, event.size.height)

    def _check_size(self, width: int, height: int) -> None:
        small = width < MIN_WIDTH or height < MIN_HEIGHT
        if small:
            self.query_one("#too-small", Static).update(too_small_text(width, height))
        was = self.too_small
        self.too_small = small
        self.set_class(small, "-too-small")
        if small != was:
            self.refresh_bindings()
        if was and not small:
            self._schedule()

    # ------------------------------------------------------------------ the flow
    def _schedule(self) -> None:
        """After any change: show the round's end, or let the AI to move think."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        s = self.session
        self._prompt()
        if s.round_over:
            if not self._summary_open:
                delay = max(0.4, PACE_SECONDS.get(self.config.pace, 0.6)) if self.config.pace != "instant" else 0
                self._timer = self.set_timer(delay, self._round_over) if delay else None
                if not delay:
                    self.call_later(self._round_over)
            return
        if s.ai_to_move and not self.thinking:
            delay = PACE_SECONDS.get(self.config.pace, 0.6)
            if delay:
                self._timer = self.set_timer(delay, self._start_ai)
            else:
                self.call_later(self._start_ai)

    @property
    def _can_run(self) -> bool:
        return self.is_current and not self.too_small and not self.paused

    def _start_ai(self) -> None:
        s = self.session
        if not s.ai_to_move or self.thinking:
            return
        if not self._can_run:
            return  # resumed by on_screen_resume / resize / unpause
        turn = s.prepare_ai_turn()
        self.thinking = True
        self.refresh_view()
        session = s

        def think() -> tuple[MatchSession, AITurn, Move]:
            # Runs in a thread: computes only, never touches a widget.
            return session, turn, turn.think()

        self.run_worker(think, name="ai", group="ai", thread=True, exit_on_error=False)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if worker.group == "ai":
            if event.state == WorkerState.SUCCESS and worker.result is not None:
                session, turn, m = worker.result
                self.thinking = False
                if session is not self.session:
                    return  # a stale decision from another match
                if self.paused or not self.is_current or self.too_small:
                    self._pending = (session, turn, m)
                    self.refresh_view()
                    return
                self._apply_ai(session, turn, m)
            elif event.state == WorkerState.ERROR:
                self.thinking = False
                self.log.error(f"AI failed: {worker.error!r}")
                s = self.session
                if s.ai_to_move:
                    turn = s.prepare_ai_turn()
                    s.apply_ai_turn(turn, END)
                self._after_change()
            elif event.state == WorkerState.CANCELLED:
                self.thinking = False
        elif worker.group == "hint" and event.state == WorkerState.SUCCESS and worker.result is not None:
            self._hint_busy = False
            session, turn, m = worker.result
            if session is self.session and turn.stamp == session.stamp and session.human_to_move:
                self._show_hint(m)
        elif worker.group == "hint" and event.state in (WorkerState.ERROR, WorkerState.CANCELLED):
            self._hint_busy = False

    def _apply_ai(self, session: MatchSession, turn: AITurn, m: Move) -> None:
        if session.apply_ai_turn(turn, m):
            self._after_change()
        else:
            self._schedule()  # stale: think again about the position as it is now

    def _after_change(self) -> None:
        self.hint_move = None
        if not self.session.human_to_move:
            self.selected_card = None
            self.source_pile = None
        self.refresh_view()
        self._schedule()

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        if self._pending is not None and self._can_run:
            pending, self._pending = self._pending, None
            self._apply_ai(*pending)
            return
        if not self.thinking:
            self._schedule()

    # ------------------------------------------------------------------ round end
    def _round_over(self) -> None:
        if self._summary_open or not self.session.round_over:
            return
        if not self.is_current or self.too_small:
            self._timer = self.set_timer(0.3, self._round_over)
            return
        from kc_tui.ui.dialogs.summary import RoundSummary

        s = self.session
        penalties_hands = [(s.hand_size(seat), _kings(s, seat)) for seat in range(s.n)]
        result = s.finish_round()
        self._summary_open = True  # the table keeps showing the round's last position meanwhile
        self._show_scores()  # ...but the scoreboard behind the summary already counts the round
        self.refresh_bindings()
        self.app.push_screen(RoundSummary(s, result, penalties_hands), self._round_summary_closed)

    def _round_summary_closed(self, _: object = None) -> None:
        s = self.session
        if s.match_over:
            from kc_tui.ui.dialogs.summary import MatchSummary

            self.app.push_screen(MatchSummary(s), self._match_summary_closed)
            return
        self._summary_open = False
        self.selected_card = self.source_pile = self.hint_move = None
        self.refresh_view()
        self._schedule()

    def _match_summary_closed(self, choice: str | None) -> None:
        app = self.app
        if choice == "again":
            app.call_later(app.run_action, "new_game")
        else:
            app.pop_screen()

    # ------------------------------------------------------------------ actions
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.too_small and action not in ALWAYS:
            return False  # the game is paused behind the "enlarge the terminal" notice
        s = self.session
        mine = s.human_to_move and not self._summary_open
        if action == "end_turn":
            return mine
        if action == "undo":
            return mine and s.can_undo
        if action == "hint":
            return mine
        if action == "pause":
            return not s.human_to_move and not s.round_over and not self._summary_open
        if action in ("card", "pile"):
            return True if mine else None
        return True

    def _my_turn_or_say(self) -> bool:
        s = self.session
        if self.too_small:
            return False  # paused: nothing on the table is visible
        if s.human_to_move and not self._summary_open:
            return True
        if s.round_over:
            self.say("The round is over.", "info")
        else:
            self.say(f"Wait for your turn: {s.names[s.to_move]} is playing.", "info")
        return False

    def action_card(self, delta: int) -> None:
        if not self._my_turn_or_say():
            return
        hand = self.session.hand(self.session.to_move)
        if not hand:
            return
        if self.selected_card in hand:
            i = (hand.index(self.selected_card) + delta) % len(hand)
        else:
            i = 0 if delta > 0 else len(hand) - 1
        self._select_card(hand[i])

    def action_pick(self, index: int) -> None:
        if not self._my_turn_or_say():
            return
        hand = self.session.hand(self.session.to_move)
        if index >= len(hand):
            self.say(f"You have {len(hand)} cards: there is no card {KEYS[index]}.", "error")
            return
        card = hand[index]
        self._select_card(None if card == self.selected_card else card)

    def _select_card(self, card: Card | None) -> None:
        self.selected_card = card
        self.source_pile = None
        self.hint_move = None
        self.refresh_view()
        self._prompt()
        if card is not None:
            chip = self.query_one(HandView).chip_for(card)
            if chip is not None:
                chip.scroll_visible(animate=False)

    def action_pile(self, place: int) -> None:
        if not self._my_turn_or_say():
            return
        s = self.session
        if self.selected_card is not None:
            self._try(play(self.selected_card, place))
        elif self.source_pile is not None:
            if place == self.source_pile:
                self.action_clear()
            else:
                self._try(move(self.source_pile, place))
        elif not s.round.piles[place]:
            what = "a king" if place >= 4 else "a card"
            self.say(f"{PLACES[place]} is empty: pick {what} from your hand first (←→ or 1-9).", "info")
        else:
            self.source_pile = place
            self.hint_move = None
            self.refresh_view()
            self._prompt()

    def _try(self, m: Move) -> None:
        reason = self.session.play_human(m)
        if reason is not None:
            self.say(Text.assemble(("✗ ", "bold red"), reason), "error")
            self.app.bell()
            return
        self.selected_card = None
        self.source_pile = None
        line = self.session.log[-1] if self.session.log else ""
        self._after_change()
        if self.session.human_to_move:
            self.say(Text.assemble(("✓ ", "bold green"), line, ". Go on, or t to end your turn."), "ok")

    def action_end_turn(self) -> None:
        if not self._my_turn_or_say():
            return
        self.selected_card = self.source_pile = None
        self.session.play_human(END)
        self._after_change()

    def action_undo(self) -> None:
        if not self._my_turn_or_say():
            return
        if self.session.undo():
            self.selected_card = self.source_pile = self.hint_move = None
            self.refresh_view()
            self.say("Took back your last move.", "ok")
        else:
            self.say("Nothing to undo this turn.", "info")

    def action_hint(self) -> None:
        if not self._my_turn_or_say() or self._hint_busy:
            return
        s = self.session
        turn = s.hint_turn()
        self._hint_busy = True
        self.say("Thinking of a hint…", "hint")

        def think() -> tuple[MatchSession, AITurn, Move]:
            return s, turn, turn.think()

        self.run_worker(think, name="hint", group="hint", thread=True, exit_on_error=False)

    def _show_hint(self, m: Move) -> None:
        s = self.session
        self.hint_move = m
        if is_play(m):
            self.selected_card, self.source_pile = play_card(m), None
        elif is_pile_move(m):
            self.selected_card, self.source_pile = None, source(m)
        else:
            self.selected_card = self.source_pile = None
        self.refresh_view()
        text = suggest_move(s.round, m, self.look.label)
        tail = "" if m == END else f": press {PLACE_KEYS[target(m)]}" if (is_play(m) or is_pile_move(m)) else ""
        if m == END:
            self.say(Text.assemble(("Hint: ", "bold"), "nothing worth playing, end your turn (t)."), "hint")
        else:
            self.say(Text.assemble(("Hint: ", "bold"), text, tail), "hint")

    def action_clear(self) -> None:
        self.selected_card = self.source_pile = self.hint_move = None
        self.refresh_view()
        self._prompt()

    def action_pause(self) -> None:
        self.paused = not self.paused
        if self.paused:
            self._prompt()
            return
        if self._pending is not None:
            pending, self._pending = self._pending, None
            self._apply_ai(*pending)
        else:
            self._schedule()

    def action_rules(self) -> None:
        try:
            from kc_tui.ui.screens.rules import RulesScreen
        except ImportError:
            self.notify("The rules screen is not available yet.", severity="warning")
            return
        self.app.push_screen(RulesScreen(self.session.rules))

    def action_help(self) -> None:
        from kc_tui.ui.dialogs.help import HelpDialog

        self.app.push_screen(HelpDialog())

    def action_quit(self) -> None:
        from kc_tui.ui.dialogs.confirm import QuitDialog

        def done(ok: bool | None) -> None:
            if ok:
                self.app.exit()

        self.app.push_screen(QuitDialog(saved=self.session.save_path is not None), done)

    # ------------------------------------------------------------------ mouse
    @on(HandView.CardClicked)
    def _card_clicked(self, event: HandView.CardClicked) -> None:
        if not self._my_turn_or_say():
            return
        self._select_card(None if event.card == self.selected_card else event.card)

    @on(PileView.Clicked)
    def _pile_clicked(self, event: PileView.Clicked) -> None:
        self.action_pile(event.place)

    # ------------------------------------------------------------------ for tests
    @property
    def busy(self) -> bool:
        """True while an AI is to move or thinking, or a round end is pending."""
        s = self.session
        return self.thinking or (s.ai_to_move and not self.paused) or (s.round_over and not self._summary_open)


def _kings(s: MatchSession, seat: int) -> int:
    from kc_tui.engine import is_king

    return sum(1 for c in s.hand(seat) if is_king(c))


__all__ = ["MIN_HEIGHT", "MIN_WIDTH", "GameScreen", "RoundResult"]
