"""The table: a match against AI opponents, played with keys or the mouse."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Static

from kc_tui.config import Config
from kc_tui.engine import END, PLACES, Card, Move, target
from kc_tui.i18n import N_, _, ngettext
from kc_tui.match import logwords
from kc_tui.match.recorder import Recorder
from kc_tui.match.session import MatchSession
from kc_tui.match.table import Decision, RoundEnded, TableDriver
from kc_tui.ui.cards import CardLook
from kc_tui.ui.screens.driven import DrivenScreen
from kc_tui.ui.screens.game_records import rating_line, replay_round, show_rounds
from kc_tui.ui.screens.game_text import hint_body, hint_text
from kc_tui.ui.screens.handoff import HandoffScreen, Seating
from kc_tui.ui.table.parts import (
    MESSAGE_LINES,
    fit_message,
    message_lines,
    more_of_message,
    say,
    seat_label,
    show_too_small,
    table_parts,
)
from kc_tui.ui.table.picking import PICKING_KEYS, TABLE_KEYS, HandPicking
from kc_tui.ui.text import visible
from kc_tui.ui.widgets import HandView, MoveLog, OpponentPanel, PileView, TableView
from kc_tui.ui.widgets.footer import Footer
from kc_tui.ui.widgets.pile import PLACE_KEYS

if TYPE_CHECKING:
    from kc_tui.engine import RoundResult
    from kc_tui.ui.dialogs.summary import MatchSummary

#: How long the quit dialog waits for the last move's save before it says whether it is on disk.
QUIT_SAVE_WAIT = 0.3

#: The actions that still work while the terminal is too small (everything else is paused).
ALWAYS = frozenset({"quit", "help", "menu"})


class GameScreen(HandPicking, DrivenScreen):
    """One match. Its humans play at the keyboard (a hand opens for its owner only: :class:`Seating`);
    AIs move in worker threads."""

    CSS_PATH = "game.tcss"
    AUTO_FOCUS = ""

    BINDINGS: ClassVar[list[BindingType]] = [
        *PICKING_KEYS,
        Binding("u", "undo", N_("Undo")),
        Binding("h", "hint", N_("Hint")),
        Binding("p", "pause", N_("Pause")),
        Binding("p", "resume", N_("Resume")),
        *TABLE_KEYS,
    ]

    def __init__(self, session: MatchSession, config: Config, recorder: Recorder | None = None) -> None:
        super().__init__(TableDriver.for_config(config, session, recorder))
        self.config = config
        self.look = CardLook.of(config)
        self.selected_card: Card | None = None
        self.source_pile: int | None = None
        self.hint_move: Move | None = None
        self.too_small = False
        self._summary_open = False
        #: The seat the hand's row was labelled with when the round ended, and its end (shown
        #: under the round's summary).
        self._ended: tuple[int | None, RoundEnded] | None = None
        self._hint_busy = False
        #: The turn the setting ``auto_hint`` last showed a hint at (:meth:`_turn`).
        self._auto_hinted: tuple[int, int, int] | None = None
        #: ``t`` was pressed with a card or pile picked: the next ``t`` ends the turn.
        self._end_asked = False
        #: The save problem last told (each is said once, and so is its end).
        self._told_save: str | None = None
        #: The match's end: how it moved the player's rating (None: not known, or no line).
        self._rating: str | None = None
        self._match_summary: MatchSummary | None = None
        self.seating = Seating(session)

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        s = self.session
        opponents = [
            OpponentPanel(seat, info.name, info.kind)
            for seat, info in enumerate(s.seats)
            if seat != s.human_seat or self.seating.hot_seat
        ]
        table = TableView(self.look, s.match.rules, id="table")
        yield from table_parts(table, HandView(self.look, id="hand"), opponents)
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self._check_size(self.app.size.width, self.app.size.height)
        self.refresh_view()
        self.schedule()

    # ------------------------------------------------------------------ drawing
    def refresh_view(self) -> None:
        """Draw the whole table from the session (never from a worker)."""
        s = self.session
        human = self.seating.open_seat()
        snap = self.driver.snapshot(human)
        table = self.query_one(TableView)
        table.show(
            snap.piles, snap.stock, round_number=snap.round_number, pot=snap.pot, look=self.look, rules=s.match.rules
        )
        table.highlight(self._targets(), self.source_pile, self.lit_places())
        if human is not None or self.seating.hot_seat:
            hand = list(snap.seats[human].hand or ()) if human is not None else []
            turn = self._turn() if self.seating.may_act() and not self._summary_open else None
            start = s.turn_hand(human) if turn is not None and human is not None else None
            keys = self.card_keys(hand, turn, start)
            self.query_one(HandView).show(
                hand, drawn=snap.drawn, selected=self.selected_card, look=self.look, keys=keys
            )
        for panel in self.query(OpponentPanel):
            panel.display = panel.seat != self.seating.label_seat()
        self.show_seats(snap)
        self._show_scores()
        self.query_one(MoveLog).sync(snap.log)
        self.refresh_bindings()
        self.tell_save()
        self.call_after_refresh(fit_message, self)  # the hand may have taken a line more or less

    def lit_places(self) -> set[int]:
        """The places lit as a hint's are: where the hint on show plays."""
        if self.hint_move is not None and self.hint_move != END:
            return {target(self.hint_move)}
        return set()

    def _turn(self) -> tuple[int, int, int]:
        """The turn being played: the round, the seat on turn and the turns ended before it."""
        r = self.session.match.round
        return self.session.match.number, self.session.to_move, sum(1 for _seat, m in r.history if m == END)

    def end_turn_cost(self) -> str | None:
        """R16: under chips scoring a turn ended without a card played from the hand costs a chip
        (while the player has one)."""
        s = self.session
        m = s.match
        if not m.chips_scoring or m.round.played_card or m.live_chips()[s.to_move] <= 0:
            return None
        return _("Ending your turn now costs a chip (R16: no card played from your hand yet)")

    def tell_save(self) -> None:
        """Say at once when the save fails (the screen is then ahead of the file; at a table that
        saves first, the table holds instead), and when it works again."""
        problem = self.session.save_problem
        if problem == self._told_save:
            return
        if problem is not None:
            # Translators: {problem} is why the save failed (an error's text).
            unsaved = _(
                "The match could not be saved ({problem}). The game goes on; quitting now loses the moves"
                " since the last save."
            ).format(problem=problem)
            self.app.notify(
                visible(self.session.hold_text if self.session.save_first else unsaved),
                title=_("Saved match"),
                severity="error",
                timeout=20,
            )
        else:
            self.app.notify(_("The match is saved again."), title=_("Saved match"))
        self._told_save = problem

    def _show_scores(self) -> None:
        """Totals everywhere they appear: the scoreboard, the opponents' panels, your label."""
        s = self.session
        human = self.seating.label_seat()
        # The table behind the summary shows the round that ended: the hand's row as it ended.
        ended = self._ended if self._summary_open else None
        if ended is not None:
            human = ended[0]
        if human is not None:
            n = ended[1].hands[human][0] if ended is not None else s.hand_size(human)
            mine = self.seating.may_act() and ended is None
            cards = ngettext("{n} card", "{n} cards", n).format(n=n)
            turn = (_("your turn"), "bold #ffd75f") if mine else (cards, "dim")
            seat_label(self.query_one("#me-label", Static), s.names[human], self.driver.score_text(human), turn)
        for panel in self.query(OpponentPanel):
            score = self.driver.score_text(panel.seat)
            if (panel.total, panel.score) != (s.match.live_chips()[panel.seat], score):
                panel.total, panel.score = s.match.live_chips()[panel.seat], score
                panel.refresh()
        self.show_scoreboard()

    def say(self, text: str | Text, kind: str = "info") -> None:
        """``text`` in the message area (:func:`~kc_tui.ui.table.parts.say`)."""
        say(self, text, kind)

    def _prompt(self) -> None:
        s = self.session
        if s.match.round.over:
            self.say(_("The round is over."))
        elif self.paused:
            self.say(_("Paused. Press p to go on."), "hint")
        elif self.seating.needs_handoff():
            self.say(_("Waiting for {name} at the keyboard.").format(name=s.names[s.to_move]))
        elif s.human_to_move:
            if self.selected_card is not None:
                where = self._targets()
                if where:
                    keys = ", ".join(f"{PLACES[p]} [{PLACE_KEYS[p]}]" for p in sorted(where))
                    # Translators: {card} is a card ("7♥"); {places} are places with their keys ("N [w], E [d]").
                    self.say(
                        _("{card} selected: it can go on {places}. Esc to cancel.").format(
                            card=self.look.label(self.selected_card), places=keys
                        )
                    )
                else:
                    self.say(
                        _("{card} selected: no pile takes it now. Esc to cancel.").format(
                            card=self.look.label(self.selected_card)
                        )
                    )
            elif self.source_pile is not None:
                where = self._targets()
                name = PLACES[self.source_pile]
                if where:
                    keys = ", ".join(f"{PLACES[p]} [{PLACE_KEYS[p]}]" for p in sorted(where))
                    # Translators: {pile} is a place ("NW"); {places} are places with their keys ("N [w], E [d]").
                    self.say(
                        _("Pile {pile} picked up: it can move onto {places}. Esc to cancel.").format(
                            pile=name, places=keys
                        )
                    )
                else:
                    self.say(_("Pile {pile} picked: it cannot move anywhere now. Esc to cancel.").format(pile=name))
            else:
                costs = self.end_turn_cost() is not None  # one line at 80 columns, the cost in it
                if self.seating.hot_seat and costs:
                    line = _("{name}, your turn: pick a card (←→ 1-9) then a pile. t: end turn (costs a chip)")
                elif self.seating.hot_seat:
                    line = _("{name}, your turn: pick a card (←→ 1-9) then a pile (its key or click). t: end turn")
                elif costs:
                    line = _("Your turn: pick a card (←→ 1-9) then a pile. t: end turn (costs a chip)")
                else:
                    line = _("Your turn: pick a card (←→ 1-9) then a pile (its key or click). t: end turn")
                self.say(line.format(name=s.names[s.to_move]))
        else:
            self.say(_("{name} is playing…").format(name=s.names[s.to_move]))

    def places_for_card(self, card: Card) -> set[int]:
        return self.session.targets_for_card(card)

    def places_for_pile(self, place: int) -> set[int]:
        return self.session.targets_for_pile(place)

    # ------------------------------------------------------------------ size
    def on_resize(self, event: events.Resize) -> None:
        self._check_size(event.size.width, event.size.height)
        self.call_after_refresh(fit_message, self)

    def _check_size(self, width: int, height: int) -> None:
        was = self.too_small
        self.too_small = small = show_too_small(self, width, height)
        if small != was:
            self.refresh_bindings()
        if was and not small:
            self.on_screen_resume()

    # ------------------------------------------------------------------ the flow (see DrivenScreen)
    def may_advance(self) -> bool:
        return self.is_current and not self.too_small and not self.paused and not self._summary_open

    def schedule(self, delay: float | None = None) -> None:
        """After any change: say whose turn it is, then show the round's end or let the AI think."""
        self._prompt()
        self._hint_at_turn_start()
        if self.seating.needs_handoff() and not self.seating.handing_off and self.may_advance():
            self._hand_off()
            return
        super().schedule(delay)

    def _hint_at_turn_start(self) -> None:
        """With the setting ``auto_hint`` on, the hint (as ``h`` shows it) once at the start of
        each of the person's turns."""
        if not self.config.auto_hint or not self.seating.may_act() or self._summary_open or self.too_small:
            return
        turn = self._turn()
        if turn == self._auto_hinted or not self.check_action("hint", ()):
            return
        self._auto_hinted = turn
        self.action_hint()

    def _hand_off(self) -> None:
        """The handoff screen for the human on turn; their hand opens once they confirm."""
        s, seating = self.session, self.seating
        seating.handing_off = True
        dealt = s.match.number if not s.match.round.history and seating.at_keyboard is None else None

        def confirmed(_: bool | None) -> None:
            seating.handing_off = False
            seating.at_keyboard = s.to_move if s.human_to_move else None
            self.selected_card = self.source_pile = self.hint_move = None
            self.refresh_view()
            self.schedule()

        self.app.push_screen(HandoffScreen(s.names[s.to_move], dealt), confirmed)

    def after_change(self) -> None:
        self.hint_move = None
        if not self.session.human_to_move:
            self.selected_card = None
            self.source_pile = None
        super().after_change()

    # ------------------------------------------------------------------ round end
    def round_over_reached(self) -> None:
        from kc_tui.ui.dialogs.summary import RoundSummary

        label = self.seating.label_seat()
        ended = self.driver.finish_round()
        self._ended = (label, ended)
        self.seating.new_deal()  # nobody's hand of the next deal opens before its handoff
        self.tell_history_problem()
        self._summary_open = True  # the table keeps showing the round's last position meanwhile
        self._show_scores()  # ...but the scoreboard behind the summary already counts the round
        self.refresh_bindings()
        number = ended.result.number
        replay = None if self.driver.recorder is None else lambda: replay_round(self.app, self.driver, number)
        if self.session.match.over:
            self._work_out_rating()
        self.app.push_screen(
            RoundSummary(self.session, ended.result, ended.hands, look=self.look, replay=replay),
            self._round_summary_closed,
        )

    def _round_summary_closed(self, _: object = None) -> None:
        s = self.session
        if s.match.over:
            from kc_tui.ui.dialogs.summary import MatchSummary

            self._match_summary = MatchSummary(s, lambda: show_rounds(self.app, self.driver), self._rating)
            self.app.push_screen(self._match_summary, self._match_summary_closed)
            return
        self._summary_open = False
        self.selected_card = self.source_pile = self.hint_move = None
        self.refresh_view()
        self.schedule()

    def _work_out_rating(self) -> None:
        """How the finished match moved the player's rating, worked out in a thread (the history
        is read there, never on the UI thread) and shown on the match's summary once known."""
        from kc_tui.ui.dialogs.summary import RATING_PENDING, played_record

        if self.session.human_seat is None or self.seating.hot_seat:
            return  # the rating line is the one player's
        self._rating = RATING_PENDING
        this = played_record(self.session)
        recorder, uid, app = self.driver.recorder, self.session.record.uid, self.app

        def work() -> None:
            line = rating_line(this, recorder, uid)
            with contextlib.suppress(RuntimeError):  # the app has closed meanwhile
                app.call_from_thread(self._rating_known, line)

        self.run_worker(work, thread=True, group="rating", exit_on_error=False)

    def _rating_known(self, line: str | None) -> None:
        self._rating = line
        if self._match_summary is not None and self._match_summary.is_attached:
            self._match_summary.show_rating(line)

    def _match_summary_closed(self, choice: str | None) -> None:
        app = self.app
        if choice == "again":
            app.call_later(app.run_action, "new_game(False)")  # the same opponents and target again
        else:
            app.pop_screen()

    # ------------------------------------------------------------------ actions
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.too_small and action not in ALWAYS:
            return False  # the game is paused behind the "enlarge the terminal" notice
        s = self.session
        mine = self.seating.may_act() and not self._summary_open
        if action == "end_turn":
            return mine
        if action == "undo":
            return mine and s.can_undo
        if action == "hint":
            return mine
        if action in ("pause", "resume"):
            playing = not s.human_to_move and not s.match.round.over and not self._summary_open
            return playing and self.paused == (action == "resume")
        if action in ("card", "pile"):
            return mine  # the footer shows only the keys that act now
        return True

    def _my_turn_or_say(self) -> bool:
        s = self.session
        if self.too_small:
            return False  # paused: nothing on the table is visible
        if self.seating.may_act() and not self._summary_open:
            return True
        if s.match.round.over:
            self.say(_("The round is over."), "info")
        else:
            self.say(_("Wait for your turn: {name} is playing.").format(name=s.names[s.to_move]), "info")
        return False

    # ------------------------------------------------------------------ picking (HandPicking)
    def picking_hand(self) -> list[Card]:
        return self.session.hand(self.session.to_move)

    def submit_move(self, m: Move) -> None:
        self._try(m)

    def why_not_pick_up(self, place: int) -> str | None:
        return self.driver.session.why_not_pick_up(place)

    def end_turn_now(self) -> None:
        reason = self.driver.end_turn()
        if reason is not None:
            self.say(Text.assemble(("✗ ", "bold red"), reason), "error")
            self.app.bell()
            self._held_by_save()
            return
        self.after_change()

    def _try(self, m: Move) -> None:
        reason = self.driver.play(m)
        if reason is not None:
            self.say(Text.assemble(("✗ ", "bold red"), reason), "error")
            self.app.bell()
            self._held_by_save()
            return
        self.selected_card = None
        self.source_pile = None
        line = logwords.shown(self.session.log[-1]) if self.session.log else ""
        self.after_change()
        if self.session.human_to_move:
            self.say(Text.assemble(("✓ ", "bold green"), line, _(". Go on, or t to end your turn.")), "ok")

    def _held_by_save(self) -> None:
        """After a refused move: when its save failing made the table hold, say so and try the
        save again until it works."""
        self.tell_save()
        if self.session.holding:
            self.hold()

    def action_undo(self) -> None:
        if not self._my_turn_or_say():
            return
        if self.driver.undo():
            self.selected_card = self.source_pile = self.hint_move = None
            self.refresh_view()
            self.say(_("Took back your last move."), "ok")
        else:
            self.say(self.session.why_no_undo, "info")
            self._held_by_save()

    def action_hint(self) -> None:
        if not self._my_turn_or_say() or self._hint_busy:
            return
        if self.hint_move is not None and more_of_message(self):
            return  # the hint on show is longer than its area: h shows its next lines
        self._hint_busy = True
        self.say(_("Thinking of a hint…"), "hint")
        self.think(self.driver.hint_job())

    def hint_arrived(self, decision: Decision) -> None:
        self._hint_busy = False
        if self.driver.hint_ready(decision):
            self._show_hint(decision.move, decision.note)

    def _show_hint(self, m: Move, note: str | None = None) -> None:
        key = self.pick_hint(m)
        body = hint_body(self.session, m, note)
        # The key that plays the first move comes first: it shows whatever the hint's length.
        keys = [_("press {key} to play it").format(key=key)] if key is not None else []
        text = hint_text(keys, body)
        if message_lines(self, text) > fit_message(self):
            text = hint_text([*keys, _("h: more")], body)
        self.say(text, "hint")

    def action_pause(self) -> None:
        self.paused = not self.paused
        self.refresh_bindings()
        if self.paused:
            self._prompt()
            return
        if not self.release_held():
            self.schedule()

    def action_resume(self) -> None:
        """Go on after a pause (the pause's key, named for what it does then)."""
        if self.paused:
            self.action_pause()

    def action_help(self) -> None:
        from kc_tui.ui.dialogs.help import HelpDialog

        self.app.push_screen(HelpDialog())

    def action_menu(self) -> None:
        """Back to the main menu. The match is saved after every move, so Resume carries on
        exactly here; a game that is not saved asks first."""
        from kc_tui.ui.dialogs.confirm import MenuDialog

        if self.session.save_path is not None:
            self._to_menu(True)
        else:
            self.app.push_screen(MenuDialog(), self._to_menu)

    def _to_menu(self, ok: bool | None) -> None:
        if not ok:
            return
        s = self.session
        self.stop()
        self.app.pop_screen()
        if s.save_path is not None and not s.match.over:
            if s.saved:
                self.app.notify(_("Your match is saved: choose Resume to carry on."), title=_("Main menu"))
            else:
                self.app.notify(
                    visible(
                        _("Your match is not saved ({problem}): Resume would go back to the last save.").format(
                            problem=s.save_problem
                        )
                    ),
                    title=_("Main menu"),
                    severity="error",
                )

    def action_quit(self) -> None:
        from kc_tui.ui.dialogs.confirm import QuitDialog

        def done(ok: bool | None) -> None:
            if ok:
                self.app.exit()

        s, recorder = self.session, self.driver.recorder
        if s.writer is not None:
            s.writer.flush(QUIT_SAVE_WAIT)  # the last move's save is usually on disk by now
        waiting = recorder.status if recorder is not None else None
        self.app.push_screen(
            QuitDialog(
                saved=s.save_path is not None,
                problem=s.save_problem or (None if s.saved else _("the last move is still being written")),
                unrecorded=waiting if waiting is not None and waiting.waiting else None,
                over=s.match.over,
            ),
            done,
        )

    # ------------------------------------------------------------------ mouse
    @on(HandView.CardClicked)
    def _card_clicked(self, event: HandView.CardClicked) -> None:
        self.card_clicked(event.card)

    @on(PileView.Clicked)
    def _pile_clicked(self, event: PileView.Clicked) -> None:
        self.action_pile(event.place)

    # ------------------------------------------------------------------ for tests
    @property
    def busy(self) -> bool:
        """True while an AI is to move or thinking, or a round end is pending."""
        s = self.session
        return self.thinking or (s.ai_to_move and not self.paused) or (s.match.round.over and not self._summary_open)


__all__ = ["MESSAGE_LINES", "GameScreen", "RoundResult"]
