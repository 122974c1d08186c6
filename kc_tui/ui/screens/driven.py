"""The one worker pattern between a screen and its :class:`~kc_tui.match.table.TableDriver`.

:class:`DrivenScreen` is the base of the game and the demo screens. It waits the driver's pace,
then runs the driver's :class:`~kc_tui.match.table.AIJob` in a thread worker that only posts a
:class:`DrivenScreen.Decided` message (AI threads never touch a widget or the session); the
decision is handed back to the driver on the UI thread. A decision for another table (a replaced
game or demo) is dropped; one for an older position makes the AI think again. A decision that
arrives while the screen cannot show it (covered by a dialog, paused, too small) is held back
and applied when it can. A table that saves first (several people at one keyboard:
:attr:`~kc_tui.match.session.MatchSession.save_first`) holds while its save fails (:meth:`hold`):
the AI's move waits, and the save is tried again every :data:`SAVE_RETRY` seconds until it
works; then the table is drawn again and goes on.

Subclasses say when the table may advance (:meth:`may_advance`), what a round's end shows
(:meth:`round_over_reached`) and how they redraw (:meth:`refresh_view`, :meth:`after_change`).
"""

from __future__ import annotations

from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer

from kc_tui.i18n import _
from kc_tui.match.session import MatchSession
from kc_tui.match.table import AIJob, Decision, TableDriver
from kc_tui.match.view import TableSnapshot
from kc_tui.ui.cards import CardLook
from kc_tui.ui.table.draw import draw_panels, draw_scoreboard

#: Seconds between the tries of a save while the table holds (its save failed).
SAVE_RETRY = 2.0


class DrivenScreen(Screen[None]):
    """A screen over a table driver: pacing timers, AI decisions in a thread worker, held decisions."""

    class Decided(Message):
        """An AI decision or a hint, posted from the worker thread."""

        def __init__(self, decision: Decision) -> None:
            super().__init__()
            self.decision = decision

    look: CardLook

    def __init__(self, driver: TableDriver) -> None:
        super().__init__()
        self.driver = driver
        self.paused = False
        self.thinking = False
        self._held: Decision | None = None
        self._timer: Timer | None = None
        self._retry: Timer | None = None
        self._stopped_table = 0

    @property
    def session(self) -> MatchSession:
        return self.driver.session

    # ------------------------------------------------------------------ for subclasses
    def may_advance(self) -> bool:
        """Whether the table may take its next step now (the screen is shown, not paused...)."""
        return self.is_current and not self.paused

    def round_over_reached(self) -> None:
        """The round is over and the screen may show it (score it, show a summary...)."""

    def refresh_view(self) -> None:
        """Draw the table from the driver."""

    def show_thinking(self) -> None:
        """An AI started thinking (draw its sign)."""
        self.refresh_view()

    def after_change(self) -> None:
        """A move was made: redraw and take the next step."""
        self.refresh_view()
        self.schedule()

    def hint_arrived(self, decision: Decision) -> None:
        """A hint job finished (it may be out of date: ask the driver)."""

    # ------------------------------------------------------------------ drawing (shared)
    def show_seats(self, snap: TableSnapshot) -> None:
        """Every seat's panel from a snapshot (:func:`~kc_tui.ui.table.draw.draw_panels`)."""
        draw_panels(self, snap, self.look, me=None, thinking=self.thinking)

    def show_scoreboard(self, snap: TableSnapshot | None = None) -> None:
        """The scoreboard from ``snap`` (None: the table's as it is now, given as the log is)."""
        draw_scoreboard(self, snap if snap is not None else self.driver.snapshot(self.session.log_owner))

    def tell_history_problem(self) -> None:
        """Say once that the game history stopped recording (the game goes on)."""
        problem, self.driver.history_problem = self.driver.history_problem, None
        if problem:
            self.app.notify(problem, title=_("Game history"), severity="warning", timeout=15)

    def action_rules(self) -> None:
        from kc_tui.ui.screens.rules import RulesScreen

        self.app.push_screen(RulesScreen(self.driver.rules))

    # ------------------------------------------------------------------ the flow
    def stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def schedule(self, delay: float | None = None) -> None:
        """Take the table's next step after ``delay`` seconds (default: the driver's pace)."""
        self.stop_timer()
        if self.driver.over or self.thinking or not self.may_advance():
            return  # resumed by whatever lets it advance again (unpause, resume, resize)
        if delay is None:
            delay = self.driver.next_delay()
        if delay > 0:
            self._timer = self.set_timer(delay, self.advance)
        else:
            self.call_later(self.advance)

    def advance(self) -> None:
        """One step: apply a held decision, show a round's end, or let the AI to move think."""
        self._timer = None
        driver = self.driver
        if self.thinking or driver.over or not self.may_advance():
            return
        if driver.session.holding:
            self.hold()
            return
        if self._held is not None:
            held, self._held = self._held, None
            self._apply(held)
        elif driver.round_over:
            self.round_over_reached()
        elif driver.session.ai_to_move:
            self.think(driver.ai_job())

    def think(self, job: AIJob) -> None:
        """Run ``job`` in a thread worker; its decision comes back as a :class:`Decided` message."""
        if not job.hint:
            self.thinking = True
            self.show_thinking()
        self.run_worker(
            lambda: self.post_message(self.Decided(job.run())),
            name="hint" if job.hint else "ai",
            group="hint" if job.hint else "ai",
            thread=True,
            exit_on_error=False,
        )

    def on_driven_screen_decided(self, message: DrivenScreen.Decided) -> None:
        decision = message.decision
        if not self.driver.owns(decision) or self._stopped_table == self.driver.table_id:
            return  # made for a table that has been replaced or stopped: never applied
        if decision.hint:
            self.hint_arrived(decision)
            return
        self.thinking = False
        if not self.may_advance():
            self._held = decision  # applied when the screen can show it
            self.refresh_view()
            return
        self._apply(decision)

    def _apply(self, decision: Decision) -> None:
        if self.driver.decide(decision):
            self.after_change()
        elif self.session.holding:
            self._held = decision  # its save failed: made once a save works
            self.refresh_view()
            self.hold()
        else:
            self.schedule()  # stale: think again about the position as it is now

    def hold(self) -> None:
        """The table holds (its save failed): the save is tried again every :data:`SAVE_RETRY`
        seconds until it works; then the table is drawn again (which says so) and goes on."""
        if self._retry is None:
            self._retry = self.set_timer(SAVE_RETRY, self._retry_save)

    def _retry_save(self) -> None:
        self._retry = None
        if not self.session.holding:
            return
        if not self.session.retry_save():
            self.hold()
            return
        self.refresh_view()
        self.schedule()

    def release_held(self) -> bool:
        """Apply a held decision now if there is one and the screen may show it."""
        if self._held is None or not self.may_advance():
            return False
        held, self._held = self._held, None
        self._apply(held)
        return True

    def stop(self) -> None:
        """Stop the table: no next step, and nothing in flight or held is applied."""
        self.stop_timer()
        if self._retry is not None:
            self._retry.stop()
            self._retry = None
        self.workers.cancel_group(self, "ai")
        self.workers.cancel_group(self, "hint")
        self.thinking = False
        self._held = None
        self._stopped_table = self.driver.table_id

    def replace_driver(self, driver: TableDriver) -> None:
        """Drive a new table: anything in flight for the old one is dropped."""
        self.stop()
        self.driver = driver

    def on_screen_resume(self) -> None:
        if not self.release_held() and not self.thinking:
            self.schedule()
