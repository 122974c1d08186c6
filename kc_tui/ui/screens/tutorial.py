"""Learn to play: a lesson at the table, the coach's words beside it.

The table is the game screen's (:class:`TutorialScreen` is a :class:`GameScreen` over a session
built from the lesson's position), so the keys, the picking and the opponent's turns are the
game's. The coach (:mod:`kc_tui.learn.coach`) checks every move before it is made: a move that
does not meet the step's goal is not made, and the coach says why. Nothing reaches the saves or
the history: the session has no save path and the table no recorder. The progress is saved at
every step; Esc (with nothing picked) or ``m`` leaves, and coming back resumes at the step.
``h`` shows the step's move as the game's hint; ``u`` takes nothing back and says so.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Static

from kc_tui.config import Config
from kc_tui.engine import END, Move, is_pile_move, is_play, play_card, source, target
from kc_tui.i18n import N_, _
from kc_tui.learn import coach
from kc_tui.learn.coach import lesson_session
from kc_tui.learn.lessons import BY_ID, LEARNER, LESSONS, Goal, Lesson, Step
from kc_tui.learn.progress import Progress, load_progress, save_progress
from kc_tui.match import log_lines
from kc_tui.ui.dialogs.lessons import GAME, KEPT, take_down_kept
from kc_tui.ui.literal_text import plain, visible
from kc_tui.ui.screens.game import GameScreen
from kc_tui.ui.screens.game_hint import hint_text
from kc_tui.ui.widgets import OpponentPanel
from kc_tui.ui.widgets.hand import KEYS
from kc_tui.ui.widgets.pile import PLACE_KEYS

#: How the keys of a step are shown (as "your turn" is beside the hand).
KEYS_STYLE = "bold #ffd75f"
#: What ``u`` says in a lesson.
NO_UNDO = N_("The coach takes no moves back: Esc leaves the lesson, l lists the lessons.")


class TutorialScreen(GameScreen):
    """One lesson of the tutorial at the table (see the module docs)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,space", "go_on", N_("Go on")),
        # Enter at a step that asks for a move (go_on is off then, and out of the footer).
        Binding("enter,space", "ask_move", show=False),
        Binding("l", "lessons", N_("Lessons")),
        # The game's keys, answered by the coach (not shown: the footer keeps to the lesson's keys).
        Binding("u", "undo", N_("Undo"), show=False),
        Binding("h", "hint", N_("Hint"), show=False),
    ]
    DEFAULT_CSS = """
    TutorialScreen #side { width: 32; min-width: 32; max-width: 32; }
    TutorialScreen #scoreboard, TutorialScreen #log { display: none; }
    TutorialScreen #coach-box {
        height: 1fr; padding: 0 1; border: round $accent; border-title-color: $accent;
        background: $boost; scrollbar-size-vertical: 1;
    }
    TutorialScreen #coach { height: auto; }
    """

    def __init__(self, lesson: Lesson, step: int, config: Config, progress: Progress | None = None) -> None:
        self.lesson = lesson
        self.step_index = max(0, min(step, len(lesson.steps)))
        super().__init__(lesson_session(lesson, self.step_index, config), config)
        self.progress = (progress or load_progress()[0]).at(lesson.id, self.step_index)
        #: What the coach said of the last move that was not made (None: nothing to correct).
        self.correction: str | None = None
        #: The coach's panel beside the table (made on mount) and its words.
        self._coach_box: VerticalScroll | None = None
        self._coach: Static | None = None
        #: The log lines written before the player last ended a turn: the coach tells the turns
        #: that follow from there (None: no turn ended here).
        self._turn_ended_at: int | None = None
        #: Whether the round that ended is counted in the totals shown (R15).
        self._scored = False

    # ------------------------------------------------------------------ the step
    @property
    def step(self) -> Step | None:
        """The step being taught (None: the lesson is learnt)."""
        return self.lesson.steps[self.step_index] if self.step_index < len(self.lesson.steps) else None

    @property
    def number(self) -> int:
        return LESSONS.index(self.lesson) + 1

    def on_mount(self) -> None:
        self._coach = Static(id="coach")
        self._coach_box = VerticalScroll(self._coach, id="coach-box")
        self._coach_box.can_focus = False
        self.query_one("#side").mount(self._coach_box, before=0)
        for panel in self.query(OpponentPanel):
            panel.kind = ""  # the lesson's opponent plays a script, not an AI kind
        take_down_kept(self.app)
        super().on_mount()

    def _words(self, text: str, step: Step) -> str:
        return coach.words_at(text, step, self.session)

    def coach_text(self) -> Text:
        """What the coach says now: the step, the keys that make it, the correction of a move."""
        s, step = self.session, self.step
        parts: list[str | tuple[str, str]] = []
        if self.correction is not None:
            parts += [("✗ ", "bold red"), (visible(self.correction), "red"), "\n"]
        if step is None:
            parts.append((_(coach.LESSON_DONE), "bold"))
        elif not s.human_to_move and not self.driver.round_over:
            parts.append(visible(_(coach.OPPONENT_PLAYS).format(name=s.names[1 - LEARNER])))
            parts += ["\n" + visible(line) for line in self.turn_told()]
        else:
            parts += [visible(self._words(step.text, step)), "\n", (self.keys_text(step), KEYS_STYLE)]
        head = Text(visible(_(self.lesson.title)), "bold")
        return Text("\n").join([head, Text.assemble(*[(p, "") if isinstance(p, str) else p for p in parts])])

    def turn_told(self) -> list[str]:
        """What happened since the player last ended a turn, as the log says it (the draws are
        told as the log tells them to this player: the opponent's card is never named)."""
        if self._turn_ended_at is None:
            return []
        return [log_lines.shown(line) for line in self.session.lines_since(self._turn_ended_at)]

    def next_keys(self) -> str:
        """The keys that go on from here, as the coach's panel says them."""
        step = self.step
        return _(coach.NEXT_LESSON) if step is None else self.keys_text(step)

    def keys_text(self, step: Step) -> str:
        """The keys that make the step's move, as the table and the hand show them now."""
        m = step.solution_move()
        if m is None:
            return _(coach.READ_ON)
        if is_play(m) or is_pile_move(m):
            if is_play(m):
                keyed = {card: key for key, card in (self._keyed or {}).items()}
                index = keyed.get(play_card(m))
                first = KEYS[index] if index is not None else "←→"
            else:
                first = PLACE_KEYS[source(m)]
            # Translators: the keys that make a move: {first} picks a card (or a pile), {second} a place.
            return _("Keys: {first}, then {second}").format(first=first, second=PLACE_KEYS[target(m)])
        return _("Key: {key}").format(key="t")

    def lit_places(self) -> set[int]:
        places = super().lit_places()
        step = self.step
        if step is not None and self.session.human_to_move and self.selected_card is None and self.source_pile is None:
            places |= set(step.places())
        return places

    def refresh_view(self) -> None:
        super().refresh_view()
        if self._coach_box is not None and self._coach is not None:
            # Translators: the coach's panel's title: the lesson's number, and of how many.
            title = _("Lesson {number}/{count}").format(number=self.number, count=len(LESSONS))
            self._coach_box.border_title = plain(title)
            self._coach.update(self.coach_text())

    # ------------------------------------------------------------------ moves, checked first
    def submit_move(self, m: Move) -> None:
        if self._refused(m):
            return
        self._next_step()
        written = self.session.lines_written
        super().submit_move(m)
        s = self.session
        if (s.human_to_move or self.driver.round_over) and s.lines_written > written:
            # The move made, then the keys that go on: the same the coach's panel says.
            line = log_lines.shown(s.log[-1])
            self.say(Text.assemble(("✓ ", "bold green"), line, ". ", self.next_keys()), "ok")

    def end_turn_now(self) -> None:
        if self._refused(END):
            return
        self._next_step()
        self._turn_ended_at = self.session.lines_written
        super().end_turn_now()

    def _prompt(self) -> None:
        """The game's prompt; while a step is to be read (or the lesson is learnt), the keys that go on."""
        step, s = self.step, self.session
        reading = step is None or step.goal is Goal.READ
        on_turn = s.human_to_move or self.driver.round_over
        if reading and on_turn and self.selected_card is None and self.source_pile is None:
            self.say(self.next_keys())
            return
        super()._prompt()

    def action_end_turn(self) -> None:
        """``t``: a step to read (or a lesson learnt) refuses it before anything is asked."""
        if self._my_turn_or_say() and (self.step is None or self.step.goal is Goal.READ):
            self._refused(END)
            return
        super().action_end_turn()

    def _refused(self, m: Move) -> bool:
        """Whether the coach refuses ``m`` (it is then not made, and the coach says why)."""
        step, s = self.step, self.session
        said = _(coach.LESSON_DONE) if step is None else coach.verdict_at(step, s, m)
        self.correction = said
        if said is None:
            return False
        self.selected_card = self.source_pile = None
        self.refresh_view()
        self._prompt()
        self.app.bell()
        return True

    def _next_step(self) -> None:
        self.correction = None
        self.step_index += 1
        self.progress = self.progress.at(self.lesson.id, self.step_index)
        if self.step is None:
            self.progress = self.progress.learnt(self.lesson.id)
        self._keep()

    def _keep(self) -> None:
        problem = save_progress(self.progress)
        if problem is not None:
            self.app.notify(problem, title=_("Learn to play"), severity="warning")

    def action_go_on(self) -> None:
        """Enter: past a step to read, or on to the next lesson once this one is learnt."""
        if self.busy:
            return  # the opponent's turn first: the step after it is about what it leads to
        step = self.step
        if step is not None and step.goal is not Goal.READ:
            self.action_ask_move()
            return
        if step is not None and self.step_index + 1 < len(self.lesson.steps):
            self._next_step()
            self.refresh_view()
            return
        if step is not None:
            self._next_step()
        self.next_lesson()

    def action_ask_move(self) -> None:
        """Enter at a step that asks for a move: the coach says where its keys are."""
        self.correction = _("This step asks for a move: the keys are under its words.")
        self.refresh_view()

    def next_lesson(self) -> None:
        """The next lesson in place of this one; after the last, a real match's set-up (hints on)."""
        self.stop()
        following = LESSONS.index(self.lesson) + 1
        if following < len(LESSONS):
            self.app.switch_screen(open_lesson(LESSONS[following].id, self.config, self.progress))
            return
        self.to_a_game()

    def to_a_game(self) -> None:
        """Out of the tutorial, to a real match's set-up (hints on)."""
        self.app.pop_screen()
        hand_over = getattr(self.app, "hand_over", None)
        if callable(hand_over):
            hand_over()

    # ------------------------------------------------------------------ leaving, coming back
    def action_clear(self) -> None:
        """Esc: let go of what is picked; with nothing picked, leave the lesson (kept at its step)."""
        if self.selected_card is not None or self.source_pile is not None:
            super().action_clear()
        else:
            self.action_leave()

    def action_menu(self) -> None:
        self.action_leave()

    def action_leave(self) -> None:
        self.stop()
        self._keep()
        self.app.pop_screen()
        self.app.notify(_(KEPT), title=_("Learn to play"), timeout=6)

    def action_quit(self) -> None:
        """Quit at once: the lesson's place is saved at every step, and a lesson has no match to lose."""
        self._keep()
        self.app.exit()

    def action_lessons(self) -> None:
        from kc_tui.ui.dialogs.lessons import LessonsDialog

        self.stop()
        self._keep()
        self.app.push_screen(LessonsDialog(), self._lesson_chosen)

    def _lesson_chosen(self, chosen: str | None) -> None:
        if chosen == GAME:
            self.to_a_game()
            return
        if chosen is None:  # back to this lesson, with what the list changed (a skip, a reset)
            self.progress = load_progress()[0].at(self.lesson.id, self.step_index)
            self._keep()
            self.schedule()
            return
        self.app.switch_screen(open_lesson(chosen, self.config, load_progress()[0]))

    # ------------------------------------------------------------------ the game's parts, as the coach has them
    def action_undo(self) -> None:
        """``u``: the coach takes no move back (each step is one move): it says so, and what to do."""
        self.say(_(NO_UNDO), "info")

    def action_hint(self) -> None:
        """``h``: the step's own move, picked as the game's hint is; for a step to read (or a
        lesson learnt), the keys that go on."""
        step = self.step
        m = None if step is None else step.solution_move()
        if m is None:
            self.say(hint_text([], self.next_keys()), "hint")
        elif self._my_turn_or_say():
            self._show_hint(m)

    def _hint_at_turn_start(self) -> None:
        """No hint comes unasked in a lesson (the setting ``auto_hint`` is the real match's): the
        step says what to play."""

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("undo", "hint"):
            return not self.too_small
        if action in ("pause", "resume"):
            return False
        if action in ("go_on", "ask_move"):
            reading = self.step is None or self.step.goal is Goal.READ
            return not self.too_small and not self.busy and reading == (action == "go_on")
        return super().check_action(action, parameters)

    def round_over_reached(self) -> None:
        """The lesson's round ended (the player went out): the coach explains the score, the
        totals shown count the round (R15); no summary, and no next deal."""
        if not self._scored:
            self._scored = True
            self.session.count_penalties()
        self.refresh_view()

    @property
    def busy(self) -> bool:
        return self.thinking or (self.session.ai_to_move and not self.paused)


def open_lesson(lesson_id: str | None, config: Config, progress: Progress) -> TutorialScreen:
    """The lesson ``lesson_id`` (None: the one ``progress`` comes back to, or the first), at its
    saved step when it is the one ``progress`` comes back to; the progress then points at it."""
    lesson = BY_ID.get(lesson_id or progress.lesson) or LESSONS[0]
    step = progress.step if progress.lesson == lesson.id else 0
    return TutorialScreen(lesson, step, config, progress)


__all__ = ["TutorialScreen", "lesson_session", "open_lesson"]
