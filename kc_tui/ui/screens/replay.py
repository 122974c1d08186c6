"""Looking back at a recorded round: the same table as the game, stepped by move or by turn, to
the start or the end, or played at a pace; the move log follows the position.

The screen is a view over :class:`~kc_tui.match.replay.RoundReplay` (every position, step and what the
viewer may see is decided there), or over the frames a table's server sent a remote seat
(:class:`~kc_tui.net.replays.RemoteRoundReplay`, the same positions and snapshots, without the
review); it draws each position from the replay's snapshot, a
:class:`~kc_tui.match.view.TableSnapshot` as every table's screen does. The viewer sees what
they saw then: their own hand, the others' counts of cards; at the end of the round ``o`` opens
every hand.

Entry point for the other screens: :func:`open_replay` (``app``, a match id of the game history,
a round number) loads the match and pushes the screen, or says in a toast why it cannot. A match
of several people at one keyboard asks first whose view to show, and hands the keyboard to that
person: nobody sees another's hand or draws (the table's view shows no hand at all).

``notes`` (optional): a remark per turn, keyed by the position where the turn starts
(:attr:`RoundReplay.turn_starts`), shown on the note line while that turn is on the table (a
review's marks, say).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from rich.text import Text
from textual import events, on, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Button, ProgressBar, Static
from textual.worker import get_current_worker

from ai.advice.review import RoundReview, TurnReview, match_turns, review_round
from kc_tui.config import PACES, pace_name
from kc_tui.engine import END, Round, Rules, is_pile_move, is_play, source, target
from kc_tui.i18n import N_, _, ngettext
from kc_tui.match import log_lines
from kc_tui.match.card_format import card_formatter
from kc_tui.match.replay import ReplayError, RoundReplay
from kc_tui.match.roster import hint_seed
from kc_tui.match.view import ReplayPlace, TableSnapshot
from kc_tui.net.replays import RemoteRoundReplay
from kc_tui.records.rows import HistoryError, MatchRecord
from kc_tui.ui.cards import CardLook
from kc_tui.ui.dialogs.whose_view import View, WhoseView
from kc_tui.ui.literal_text import visible
from kc_tui.ui.screens.handoff import HandoffScreen
from kc_tui.ui.screens.replay_keys import CONTROLS, KEYS, REVIEW_KEYS
from kc_tui.ui.table.draw import draw_scoreboard
from kc_tui.ui.table.parts import seat_label
from kc_tui.ui.widgets import HandView, MoveLog, OpponentPanel, PileView, Scoreboard, TableView
from kc_tui.ui.widgets.footer import Footer

#: Seconds between moves when playing, per pace (the game's pace names; "instant" still shows
#: every position for a moment).
PACE_STEP: dict[str, float] = {"slow": 1.2, "normal": 0.6, "fast": 0.2, "instant": 0.05}
#: The colour of each review mark.
MARK_STYLE: dict[str, str] = {"good": "green", "inaccuracy": "#e0a030", "mistake": "red"}
#: Screens shorter than this leave the buttons out (the footer's keys are clicked instead):
#: the table keeps its rows for a review's longer lines.
CONTROLS_ROWS = 28
#: The most lines the status line and a marked note take (when the table can spare them).
STATUS_LINES = 2
NOTE_LINES = 3


class ReplayScreen(Screen[None]):
    """A round seen by ``replay``'s viewer (None: a spectator, who sees no hand until the end):
    a round of the history (:class:`~kc_tui.match.replay.RoundReplay`, with its ``record`` for the
    review) or a round a table's server sent (:class:`~kc_tui.net.replays.RemoteRoundReplay`, no
    review: its hidden cards stay the host's). :meth:`of_record` builds the first; it raises
    :class:`~kc_tui.match.replay.ReplayError` when the record does not replay (see :func:`open_replay`)."""

    CSS_PATH = "replay.tcss"
    AUTO_FOCUS = ""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "step(-1)", N_("Move"), key_display="←→"),
        Binding("right", "step(1)", N_("Move"), show=False),
        Binding("shift+left,left_square_bracket", "turn(-1)", N_("Turn"), key_display="[ ]"),
        Binding("shift+right,right_square_bracket", "turn(1)", N_("Turn"), show=False),
        Binding("home", "start", N_("Start"), show=False),
        Binding("end", "end", N_("End"), show=False),
        Binding("space", "play", N_("Play"), key_display="space"),
        Binding("plus,equals_sign", "faster", N_("Faster"), show=False),
        Binding("minus", "slower", N_("Slower"), show=False),
        Binding("o", "hands", N_("Hands")),
        Binding("v", "review", N_("Review")),
        Binding("b", "better", N_("Better")),
        Binding("pagedown", "note(1)", N_("More"), key_display="PgDn"),
        Binding("pageup", "note(-1)", N_("Back"), show=False),
        Binding("question_mark", "keys", N_("Keys"), key_display="?"),
        Binding("escape,q", "leave", N_("Back")),
    ]

    def __init__(
        self,
        replay: RoundReplay | RemoteRoundReplay,
        *,
        record: MatchRecord | None = None,
        notes: Mapping[int, str] | None = None,
        look: CardLook | None = None,
        pace: str = "normal",
    ) -> None:
        super().__init__()
        self.look = look or CardLook()
        self.replay = replay
        #: The match of the history the round is from (None: a round a server sent, no review).
        self.record = record
        self.viewer = replay.viewer
        self.notes: dict[int, str] = dict(notes or {})
        self.pace = pace if pace in PACES else "normal"
        self.playing = False
        self._timer: Timer | None = None
        #: The review of the viewer's turns, once made (see :meth:`action_review`).
        self.review: RoundReview | None = None
        #: Each reviewed turn by the position where it starts.
        self.reviewed: dict[int, TurnReview] = {}
        self.reviewing = False
        #: The better plan being shown: the rounds after each of its moves, and which is shown.
        self._better: list[Round] | None = None
        self._better_at = 0
        #: A one-off message on the status line (a refusal), cleared by the next step.
        self._message: tuple[str, str] | None = None

    @classmethod
    def of_record(
        cls,
        history_match: MatchRecord,
        round_number: int,
        viewer: int | None,
        *,
        notes: Mapping[int, str] | None = None,
        card_style: str = "symbols",
        look: CardLook | None = None,
        pace: str = "normal",
    ) -> ReplayScreen:
        """Round ``round_number`` of ``history_match`` (a record with its rounds) as match seat
        ``viewer`` saw it; ReplayError when the record does not replay."""
        look = look or CardLook(card_style)
        replay = RoundReplay.from_record(history_match, round_number, viewer, card_style=look.style)
        return cls(replay, record=history_match, notes=notes, look=look, pace=pace)

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        rp = self.replay
        with Vertical(id="replay"):
            with Horizontal(id="replay-seats"):
                for seat in rp.snapshot().seats:
                    if seat.seat != self.viewer:
                        yield OpponentPanel(seat.seat, seat.name, seat.kind, id=f"replay-seat-{seat.seat}")
            with Horizontal(id="replay-middle"):
                yield TableView(self.look, rp.rules, show_keys=False, id="replay-table")
                with Vertical(id="replay-side"):
                    yield Scoreboard(id="replay-score")
                    yield MoveLog(id="replay-log")
            yield Static(id="replay-status")
            with VerticalScroll(id="replay-note-box") as box:
                box.can_focus = False
                yield Static(id="replay-note")
            yield ProgressBar(id="replay-progress", show_eta=False)
            if self.viewer is not None:
                with Horizontal(id="replay-me"):
                    yield Static(id="replay-me-label")
                    yield HandView(self.look, id="replay-hand")
            with Horizontal(id="replay-controls"):
                for ident, label, _action in CONTROLS:
                    if ident == "replay-review" and self.record is None:
                        continue  # a server's round has no review here
                    button = Button(_(label), id=ident, compact=True)
                    button.can_focus = False  # the arrow keys and space stay the replay's
                    yield button
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.query_one(MoveLog).min_width = 20
        self._fit(self.app.size.height)
        self.refresh_view()

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.height)

    def _fit(self, height: int) -> None:
        self.set_class(height < CONTROLS_ROWS, "-short")
        self.call_after_refresh(self._fit_lines)

    def _fit_lines(self) -> None:
        """The status and the note take only the lines the table can spare
        (:meth:`TableView.spare_lines`), a line each at least: the status its second line first,
        then the note its mark's lines. A longer note scrolls (PgDn), a status of one line ends
        in "…", and the table keeps its look whatever the review says."""
        if not self.is_attached:
            return
        status = self.query_one("#replay-status", Static)
        box = self.query_one("#replay-note-box", VerticalScroll)
        room = status.outer_size.height + box.outer_size.height + self.query_one(TableView).spare_lines()
        extra = max(0, room - 2)
        head = 1 + min(STATUS_LINES - 1, extra)
        note = 1 + min(NOTE_LINES - 1 if box.has_class("-marked") else 0, extra - (head - 1))
        status.set_class(head == 1, "-one-line")
        for widget, lines in ((status, head), (box, note)):
            cap = widget.styles.max_height
            if cap is None or cap.value != lines:
                widget.styles.max_height = lines

    # ------------------------------------------------------------------ drawing
    def refresh_view(self) -> None:
        """Draw the position from the replay."""
        rp = self.replay
        snap = rp.snapshot(self._better[self._better_at] if self._better is not None else None)
        table = self.query_one(TableView)
        table.show(snap.piles, snap.stock, round_number=snap.round_number, pot=snap.pot, look=self.look)
        table.highlight(hint=self._moved_places())
        for panel in self.query(OpponentPanel):
            seat = snap.seats[panel.seat]
            panel.reveal = seat.hand is not None
            panel.show(
                cards=seat.cards,
                total=seat.total,
                score=seat.score if seat.playing else _("{score} · out").format(score=seat.score),
                target=snap.target,
                to_move=seat.to_move,
                dealer=seat.dealer,
                hand=list(seat.hand) if seat.hand is not None else None,
                look=self.look,
            )
            panel.set_class(seat.winner, "-winner")
        if self.viewer is not None:
            me = snap.seats[self.viewer]
            self.query_one(HandView).show(list(me.hand or ()), drawn=snap.drawn, look=self.look)
            turn = (_("to play"), "bold #ffd75f") if me.to_move else ("", "")
            if me.winner:
                turn = (_("went out"), "bold green")
            count = ngettext("{n} card", "{n} cards", me.cards).format(n=me.cards) if me.playing else _("sat out")
            last = turn if turn[0] else (count, "dim")
            seat_label(self.query_one("#replay-me-label", Static), me.name, me.score, last)
        draw_scoreboard(self, snap)
        self.query_one(MoveLog).sync([visible(line) for line in rp.log_lines])  # a server's lines are data
        self._show_status(snap)
        self._show_note(snap)
        self._show_controls(snap)
        self.refresh_bindings()

    def _moved_places(self) -> set[int]:
        """The places the move just made went to (and came from): marked on the table."""
        rp = self.replay
        if self._better is not None:
            if self._better_at == 0:
                return set()
            turn = self._turn_review()
            mv = turn.best_plan[self._better_at - 1] if turn is not None else END
        elif rp.position == 0:
            return set()
        else:
            mv = rp.moves[rp.position - 1]
        if mv == END:
            return set()
        places = {target(mv)}
        if is_pile_move(mv):
            places.add(source(mv))
        return places if is_play(mv) or is_pile_move(mv) else set()

    @staticmethod
    def _place(snap: TableSnapshot) -> ReplayPlace:
        """Where the replay stands (every replay's snapshot says)."""
        if snap.replay is None:
            raise ValueError("a replay's snapshot says where it stands")
        return snap.replay

    def _show_status(self, snap: TableSnapshot) -> None:
        out = Text()
        if self.playing:
            out.append(f"▶ {self.pace}", "bold green")
        else:
            out.append("■", "bold #e0a030")
        out.append(" ")
        out.append(visible(self.replay.status_text()))
        place = self._place(snap)
        out.append(_(" · turn {turn} of {turns}").format(turn=place.turn, turns=place.turns), "dim")
        if self.reviewing:
            out.append(_(" · reviewing… esc cancels"), "bold #e0a030")
        elif self.review is not None:
            out.append(_(" · review: "), "bold")
            out.append(visible(self.review.summary))
        if snap.hands_open:
            out.append(_(" · hands open"), "bold")
        elif self.replay.may_open_hands:
            out.append(_(" · o opens every hand"), "dim")
        status = self.query_one("#replay-status", Static)
        kind = "info"
        if self._message is not None:
            text, kind = self._message
            out = Text(visible(text))
        status.update(out)
        for k in ("info", "error"):
            status.set_class(k == kind, f"-{k}")
        status.set_class(self.playing, "-playing")

    def _show_note(self, snap: TableSnapshot) -> None:
        """The review's note on the turn on the table, else the move that led here."""
        note = self.notes.get(self.replay.turn_start)
        line = self.query_one("#replay-note", Static)
        line.set_class(note is not None, "-note")
        turn = self._turn_review()
        for mark in MARK_STYLE:
            line.set_class(turn is not None and turn.mark == mark, f"-{mark}")
        if self._better is not None and turn is not None:
            at, plan = self._better_at, turn.best_plan
            head = (
                _("Better plan, the position before it")
                if at == 0
                else _("Better plan, move {at} of {moves}").format(at=at, moves=len(plan))
            )
            # The keys come first: they show whatever the plan's length.
            line.update(
                Text.assemble(
                    (head, "bold"), (_(" (←→ its moves · b or esc back)"), "dim"), ": ", visible(turn.best_text)
                )
            )
        elif turn is not None:
            line.update(self._review_line(turn))
        elif note is not None:
            line.update(Text.assemble((_("Note: "), "bold"), visible(note)))
        elif (last := self._place(snap).last_move) is not None:
            line.update(Text.assemble((_("Last move: "), "dim"), visible(log_lines.shown(last))))
        else:
            line.update(Text(_("The deal: nothing played yet. → steps, space plays."), "dim"))
        box = self.query_one("#replay-note-box", VerticalScroll)
        box.set_class(line.has_class("-note") or turn is not None, "-marked")
        box.scroll_home(animate=False, immediate=True)
        self.call_after_refresh(self._fit_lines)
        self.call_after_refresh(self.refresh_bindings)  # PgDn shows once the note is laid out

    def _show_controls(self, snap: TableSnapshot) -> None:
        place = self._place(snap)
        at_start, at_end = place.position == 0, place.position == place.length
        for ident, disabled in (
            ("#replay-start", at_start),
            ("#replay-turn-back", at_start),
            ("#replay-back", at_start),
            ("#replay-forward", at_end),
            ("#replay-turn-forward", at_end),
            ("#replay-end", at_end),
        ):
            self.query_one(ident, Button).disabled = disabled
        self.query_one("#replay-play", Button).label = _("‖ Pause") if self.playing else _("▶ Play")
        hands = self.query_one("#replay-hands", Button)
        hands.label = _("Hide hands") if snap.hands_open else _("Open hands")

    def say(self, text: str, kind: str = "error") -> None:
        """A one-off message on the status line until the next step."""
        self._message = (text, kind)
        self._show_status(self.replay.snapshot())

    # ------------------------------------------------------------------ actions
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("review", "better"):
            return self.record is not None  # a server's round has no review here
        if action == "note":
            return self.query_one("#replay-note-box", VerticalScroll).max_scroll_y > 0
        return True

    def action_note(self, direction: int) -> None:
        """The next (1) or the previous (-1) lines of a note longer than its lines."""
        box = self.query_one("#replay-note-box", VerticalScroll)
        if direction > 0:
            box.scroll_page_down(animate=False)
        else:
            box.scroll_page_up(animate=False)

    def action_keys(self) -> None:
        from kc_tui.ui.dialogs.help import HelpDialog

        shown = [(key, what) for key, what in KEYS if self.record is not None or key not in REVIEW_KEYS]
        keys = [(_(key) if key else key, _(what)) for key, what in shown]
        self.app.push_screen(HelpDialog(keys, (), title=_("Replay: keys and mouse"), foot=_("Esc closes.")))

    def _moved(self) -> None:
        self._message = None
        self.refresh_view()

    def action_step(self, delta: int) -> None:
        self._stop_playing()
        if self._better is not None:
            self._better_at = min(max(self._better_at + delta, 0), len(self._better) - 1)
            self.refresh_view()
            return
        if self.replay.step(delta):
            self._moved()
        else:
            self._edge(delta)

    def action_turn(self, direction: int) -> None:
        self._stop_playing()
        self._better = None
        if self.replay.step_turn(direction):
            self._moved()
        else:
            self._edge(direction)

    def _edge(self, direction: int) -> None:
        where = _("This is the deal: nothing was played before it.") if direction < 0 else _("This is the round's end.")
        self.say(where, "info")

    def action_start(self) -> None:
        self._stop_playing()
        self.replay.to_start()
        self._moved()

    def action_end(self) -> None:
        self._stop_playing()
        self.replay.to_end()
        self._moved()

    def action_play(self) -> None:
        """Play from here at the pace (from the start again at the end), or pause."""
        if self.playing:
            self._stop_playing()
            self.refresh_view()
            return
        if self.replay.at_end:
            self.replay.to_start()
        self.playing = True
        self._message = None
        self._start_timer()
        self.refresh_view()

    @property
    def play_interval(self) -> float | None:
        """Seconds between moves of the timer that plays them now (None: not playing)."""
        return None if self._timer is None else float(self._timer._interval)

    def _start_timer(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_interval(PACE_STEP[self.pace], self._tick)

    def _tick(self) -> None:
        if not self.playing:
            return
        self.replay.step(1)
        if self.replay.at_end:
            self._stop_playing()
        self._moved()

    def _stop_playing(self) -> None:
        self.playing = False
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _set_pace(self, step: int) -> None:
        """One pace faster (``step`` 1) or slower (-1), within the game's paces."""
        i = min(max(PACES.index(self.pace) + step, 0), len(PACES) - 1)
        self.pace = PACES[i]
        if self.playing:
            self._start_timer()
        self.say(_("Pace: {pace} (+ faster, - slower).").format(pace=pace_name(self.pace)), "info")

    def action_faster(self) -> None:
        self._set_pace(1)

    def action_slower(self) -> None:
        self._set_pace(-1)

    def action_hands(self) -> None:
        """Open every hand (at the end of the round only), or hide them again."""
        rp = self.replay
        if rp.hands_open:
            rp.close_hands()
            self._moved()
            return
        if rp.open_hands():
            self._stop_playing()
            self._moved()
            return
        if rp.finished:
            self.say(_("The hands open at the round's end: press End, then o."))
        else:
            self.say(_("This round was recorded without its end: the hands stay hidden."))
        self.app.bell()

    def action_leave(self) -> None:
        if self.reviewing:
            self.workers.cancel_group(self, "review")
            return
        if self._better is not None:
            self.action_better()
            return
        self._stop_playing()
        self.dismiss(None)

    # ------------------------------------------------------------------ the review
    def _turn_review(self) -> TurnReview | None:
        """The review of the turn on the table (the viewer's, once reviewed), or None."""
        return self.reviewed.get(self.replay.turn_start)

    @staticmethod
    def _review_line(turn: TurnReview) -> Text:
        words = {"good": _("Good"), "inaccuracy": _("Inaccuracy"), "mistake": _("Mistake")}[turn.mark]
        out = Text.assemble((f"{words}", f"bold {MARK_STYLE[turn.mark]}"))
        if turn.forced:
            out.append(_(": the only plan there was."))
            return out
        # Translators: {loss} is how much the turn lost against the expert's, e.g. "3 points".
        out.append(_(" (about {loss} lost): ").format(loss=turn.loss_text) if turn.mark != "good" else ": ")
        out.append(visible(turn.why))
        if turn.better_plan_exists:
            out.append(_("  b shows the better plan"), "dim")
        return out

    def action_review(self) -> None:
        """Review the viewer's turns of this round against the expert (in a worker, with a
        progress bar; esc cancels)."""
        if self.reviewing:
            return
        if self.viewer is None:
            self.say(_("A review looks at a player's own turns: the table's view holds none."), "info")
            return
        rec = self.record
        if rec is None or not isinstance(self.replay, RoundReplay):
            return
        rounds = [r.moves for r in sorted(rec.rounds, key=lambda r: r.number)]
        try:
            turns = match_turns(
                len(rec.seats),
                Rules.from_dict(rec.rules),
                rec.seed,
                rec.first_dealer,
                rounds,
                self.replay.round_number,
                self.viewer,
            )
        except ValueError as exc:
            self.say(_("This round cannot be reviewed: {problem}").format(problem=exc))
            return
        if not turns:
            self.say(_("You had no turn in this round: there is nothing to review."), "info")
            return
        self.reviewing = True
        bar = self.query_one(ProgressBar)
        bar.update(total=len(turns), progress=0)
        bar.display = True
        self._stop_playing()
        self.refresh_view()
        starts = [len(view.history) for view, _plan in turns]
        self._review(turns, starts, card_formatter(self.look.style), hint_seed(rec.seed))

    @work(thread=True, exclusive=True, group="review")
    def _review(self, turns: list[Any], starts: list[int], fmt: Any, hints: int) -> None:
        """The review itself, off the UI thread: it reports through messages only. ``hints`` is
        the seed of the hint the player was offered in the match: a turn played as it said is
        never marked."""
        worker = get_current_worker()

        def progress(done: int, total: int) -> None:
            self.post_message(self.ReviewProgress(done, total))

        result = review_round(turns, progress=progress, cancelled=lambda: worker.is_cancelled, fmt=fmt, hint_seed=hints)
        self.post_message(self.ReviewDone(result, starts))

    class ReviewProgress(Message):
        def __init__(self, done: int, total: int) -> None:
            super().__init__()
            self.done, self.total = done, total

    class ReviewDone(Message):
        def __init__(self, review: RoundReview, starts: list[int]) -> None:
            super().__init__()
            self.review, self.starts = review, starts

    def on_replay_screen_review_progress(self, message: ReviewProgress) -> None:
        self.query_one(ProgressBar).update(total=message.total, progress=message.done)

    def on_replay_screen_review_done(self, message: ReviewDone) -> None:
        self.reviewing = False
        self.query_one(ProgressBar).display = False
        self.review = message.review
        self.reviewed = {message.starts[t.index]: t for t in message.review.turns}
        self.refresh_view()
        if message.review.cancelled:
            self.say(_("Review cancelled: {summary}").format(summary=message.review.summary), "info")
        else:
            # Said on its own until the next step: a one-line status cuts the summary short.
            self.say(_("Reviewed: {summary}").format(summary=message.review.summary), "info")

    def action_better(self) -> None:
        """Show the reviewed turn's better plan on the table, move by move (again: back)."""
        self._message = None
        if self._better is not None:
            self._better = None
            self.refresh_view()
            return
        turn = self._turn_review()
        if turn is None:
            self.say(_("Review the round first (v), then b on a marked turn shows the better plan."), "info")
            return
        if not turn.better_plan_exists:
            self.say(_("This turn was as good as the expert's: there is no better plan to show."), "info")
            return
        if not isinstance(self.replay, RoundReplay):
            return
        try:
            self._better = self.replay.plan_rounds(self.replay.turn_start, turn.best_plan)
        except ReplayError as exc:
            self.say(_("The better plan cannot be shown: {problem}").format(problem=exc))
            return
        self._stop_playing()
        self._better_at = 0
        self.refresh_view()

    # ------------------------------------------------------------------ mouse
    @on(Button.Pressed)
    async def _button(self, event: Button.Pressed) -> None:
        event.stop()
        for ident, _label, action in CONTROLS:
            if event.button.id == ident:
                await self.run_action(action)
                return

    @on(PileView.Clicked)
    @on(HandView.CardClicked)
    def _ignore_click(self, event: Message) -> None:
        event.stop()  # nothing is played in a replay


def open_replay(
    app: App[Any],
    match_id: int,
    round_number: int,
    *,
    notes: Mapping[int, str] | None = None,
    person: str | None = None,
) -> None:
    """Show round ``round_number`` of match ``match_id`` of ``app.history`` as ``person`` saw it,
    or say in a toast why it cannot be. Without a person: as the one human of the match saw it (a
    demo is seen as a spectator, who sees no hand until the round's end); a match of several
    people asks whose view (:class:`~kc_tui.ui.dialogs.whose_view.WhoseView`) and hands the
    keyboard to that person (:class:`~kc_tui.ui.screens.handoff.HandoffScreen`) before their hand
    shows."""
    history = getattr(app, "history", None)
    if history is None:
        _tell(app, _("The game history is not available, so no round can be replayed."))
        return
    try:
        record = history.match(match_id)
    except HistoryError as exc:
        _tell(app, _("The game history could not be read ({problem}).").format(problem=exc))
        return
    if record is None:
        _tell(app, _("Match {match} is not in the game history.").format(match=match_id))
        return
    if not any(r.number == round_number for r in record.rounds):
        _tell(app, _("Round {round} of this match was not recorded.").format(round=round_number))
        return
    if person is None and len(record.human_seats) > 1:
        _ask_whose_view(app, record, round_number, notes)
        return
    screen = _replay_screen(app, record, round_number, _viewer(record, person), notes)
    if screen is not None:
        app.push_screen(screen)


def _replay_screen(
    app: App[Any], record: MatchRecord, round_number: int, viewer: int | None, notes: Mapping[int, str] | None
) -> ReplayScreen | None:
    """The replay of ``record``'s round as ``viewer`` saw it, or None (and a toast) when the
    record does not replay."""
    config = getattr(app, "config", None)
    try:
        return ReplayScreen.of_record(
            record,
            round_number,
            viewer,
            notes=notes,
            look=CardLook.of(config) if config is not None else None,
            pace=getattr(config, "pace", "normal"),
        )
    except ReplayError as exc:
        _tell(app, _("Round {round} cannot be replayed: {problem}").format(round=round_number, problem=exc))
        return None


def _ask_whose_view(app: App[Any], record: MatchRecord, round_number: int, notes: Mapping[int, str] | None) -> None:
    """At a table of several people: whose view of the round (a person's or the table's), then
    the handoff to that person, then the replay. Esc on either goes back."""
    people = [(seat, record.seats[seat].name) for seat in record.human_seats]

    def chosen(view: View | None) -> None:
        if view is None:
            return
        screen = _replay_screen(app, record, round_number, view.seat, notes)
        if screen is None:
            return
        if view.name is None:
            app.push_screen(screen)
            return

        def handed(ready: bool | None) -> None:
            if ready:
                app.push_screen(screen)

        # Translators: {name} is a player's name.
        about = _("Round {round}'s replay, as {name} saw it").format(round=round_number, name=view.name)
        app.push_screen(HandoffScreen(view.name, about=about), handed)

    app.push_screen(WhoseView(round_number, people), chosen)


def _viewer(record: MatchRecord, person: str | None) -> int | None:
    """The seat a replay of ``record`` is seen from (None: a spectator's view)."""
    if person is not None:
        return record.seat_of(person)
    humans = record.human_seats
    return humans[0] if len(humans) == 1 else None


def _tell(app: App[Any], message: str) -> None:
    app.notify(visible(message), title=_("Replay"), severity="warning", timeout=8, markup=False)


__all__ = ["PACE_STEP", "ReplayScreen", "open_replay"]
