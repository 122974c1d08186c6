"""The table: a match against AI opponents, played with keys or the mouse."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType

from kc_tui.config import Config
from kc_tui.engine import Move
from kc_tui.i18n import N_, _
from kc_tui.match.rating_line import rating_line
from kc_tui.match.recorder import Recorder
from kc_tui.match.session import MatchSession
from kc_tui.match.table import Decision, TableDriver
from kc_tui.match.view import TableSnapshot, not_your_turn
from kc_tui.ui.cards import CardLook
from kc_tui.ui.literal_text import visible
from kc_tui.ui.screens.driven import DrivenScreen
from kc_tui.ui.screens.game_hint import hint_shown
from kc_tui.ui.screens.game_records import replay_round, show_rounds
from kc_tui.ui.screens.handoff import HandoffScreen, Seating
from kc_tui.ui.table.draw import behind_summary, draw_table, move_made, turn_prompt
from kc_tui.ui.table.parts import (
    MESSAGE_LINES,
    fit_message,
    more_of_message,
    say,
    show_too_small,
    table_parts,
)
from kc_tui.ui.table.picking import PICKING_KEYS, TABLE_KEYS, HandPicking
from kc_tui.ui.widgets import HandView, OpponentPanel, PileView, TableView
from kc_tui.ui.widgets.footer import Footer

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
        self.too_small = False
        self._summary_open = False
        #: The round's last position as the table shows it under the round's summary, and the
        #: seat the hand's row was labelled with then.
        self._ended: tuple[TableSnapshot, int | None] | None = None
        self._hint_busy = False
        #: The turn the setting ``auto_hint`` last showed a hint at (:meth:`_turn`).
        self._auto_hinted: tuple[int, int | None, int] | None = None
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
        table = TableView(self.look, s.rules, id="table")
        yield from table_parts(table, HandView(self.look, id="hand"), opponents)
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self._check_size(self.app.size.width, self.app.size.height)
        self.refresh_view()
        self.schedule()

    # ------------------------------------------------------------------ drawing
    def refresh_view(self) -> None:
        """Draw the whole table from the driver's snapshot (never from a worker); under the round's
        summary, the round's last position with the scores as they are now."""
        human = self.seating.open_seat()
        snap = self.driver.snapshot(human)
        label = self.seating.label_seat()
        if self._summary_open and self._ended is not None:
            snap, label = behind_summary(self._ended[0], snap), self._ended[1]
        self.view = snap
        mine = self.seating.may_act() and not self._summary_open
        keys = None
        if human is not None or self.seating.hot_seat:
            hand = list(snap.hand or ())
            turn = self._turn(snap) if mine else None
            start = self.session.turn_hand(human) if turn is not None and human is not None else None
            keys = self.card_keys(hand, turn, start)
        draw_table(self, snap, self.look, self.picked(), me=label, mine=mine, keys=keys, thinking=self.thinking)
        self.refresh_bindings()
        self.tell_save()
        self.call_after_refresh(fit_message, self)  # the hand may have taken a line more or less

    @staticmethod
    def _turn(snap: TableSnapshot) -> tuple[int, int | None, int]:
        """The turn being played: the round, the seat on turn and the turns ended before it."""
        return snap.round_number, snap.to_move, snap.turns_ended

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

    def say(self, text: str | Text, kind: str = "info") -> None:
        """``text`` in the message area (:func:`~kc_tui.ui.table.parts.say`)."""
        say(self, text, kind)

    def _prompt(self) -> None:
        if self.view is None:
            return
        line, kind = turn_prompt(
            self.view,
            self.look,
            self.picked(),
            hot_seat=self.seating.hot_seat,
            paused=self.paused,
            handoff=self.seating.needs_handoff(),
        )
        self.say(line, kind)

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
        turn = self._turn(self.view) if self.view is not None else None
        if turn is None or turn == self._auto_hinted or not self.check_action("hint", ()):
            return
        self._auto_hinted = turn
        self.action_hint()

    def _hand_off(self) -> None:
        """The handoff screen for the human on turn; their hand opens once they confirm."""
        s, seating = self.session, self.seating
        seating.handing_off = True
        dealt = s.stamp[1] if s.moves_made == 0 and seating.at_keyboard is None else None

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
        from kc_tui.ui.dialogs.summary import RoundSummary, scored_round

        if self.view is not None:  # the table keeps showing the round's last position meanwhile...
            self._ended = (self.view, self.seating.label_seat())
        ended = self.driver.finish_round()
        self.seating.new_deal()  # nobody's hand of the next deal opens before its handoff
        self.tell_history_problem()
        self._summary_open = True
        self.refresh_view()  # ...but the scoreboard behind the summary already counts the round
        number = ended.result.number
        replay = None if self.driver.recorder is None else lambda: replay_round(self.app, self.driver, number)
        if self.session.match_over:
            self._work_out_rating()
        self.app.push_screen(
            RoundSummary(
                scored_round(self.session, ended.result, look=self.look),
                replay=replay,
                review=self.view is not None and self.view.review,
            ),
            self._round_summary_closed,
        )

    def _round_summary_closed(self, _: object = None) -> None:
        s = self.session
        if s.match_over:
            from kc_tui.ui.dialogs.summary import MatchSummary, match_end

            you = s.human_seat if not self.seating.hot_seat else None
            end = match_end(self.driver.snapshot(self.seating.open_seat()), you=you)
            self._match_summary = MatchSummary(end, lambda: show_rounds(self.app, self.driver), self._rating)
            self.app.push_screen(self._match_summary, self._match_summary_closed)
            return
        self._summary_open = False
        self._ended = None
        self.selected_card = self.source_pile = self.hint_move = None
        self.refresh_view()
        self.schedule()

    def _work_out_rating(self) -> None:
        """How the finished match moved the player's rating, worked out in a thread (the history
        is read there, never on the UI thread) and shown on the match's summary once known."""
        from kc_tui.match.rating_line import played_record
        from kc_tui.ui.dialogs.summary import RATING_PENDING

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
            playing = s.ai_to_move and not self._summary_open
            return playing and self.paused == (action == "resume")
        if action in ("card", "pile"):
            return mine  # the footer shows only the keys that act now
        return True

    def _my_turn_or_say(self) -> bool:
        if self.too_small:
            return False  # paused: nothing on the table is visible
        if self.seating.may_act() and not self._summary_open:
            return True
        self.say(not_your_turn(self.view), "info")
        return False

    # ------------------------------------------------------------------ picking (HandPicking)
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
        self.after_change()
        if self.session.human_to_move and self.view is not None and self.view.log:
            self.say(move_made(self.view.log[-1]), "ok")

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
        self.say(hint_shown(self, key, self.session.hint_words(m, note)), "hint")

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
        if s.save_path is not None and not s.match_over:
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
                over=s.match_over,
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
        between = self.driver.to_move is None  # the round is over
        return self.thinking or (self.session.ai_to_move and not self.paused) or (between and not self._summary_open)


__all__ = ["MESSAGE_LINES", "GameScreen", "RoundResult"]
