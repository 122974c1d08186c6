"""Learn to play in the plain mode (``tutorial --plain``): each lesson's steps told in lines, the
coach's words (:mod:`kc_tui.learn.coach`) and the step's goal, a move checked by the coach before
it is made, the scripted opponent's turns told as they are played. The progress is kept at every
step, as the app keeps it; ``quit`` (or the end of the input) leaves with the place kept."""

from __future__ import annotations

from kc_tui.config import Config
from kc_tui.engine import END, Move
from kc_tui.i18n import N_, _
from kc_tui.learn import coach
from kc_tui.learn.coach import lesson_session
from kc_tui.learn.lessons import BY_ID, LESSONS, Goal, Lesson, Step
from kc_tui.learn.progress import Progress, load_progress, save_progress
from kc_tui.match.starting import Start
from kc_tui.match.table import TableDriver
from kc_tui.match.view import TableSnapshot
from kc_tui.plain.local_rules import rules_lines
from kc_tui.plain.local_talk import Conversation, Quit
from kc_tui.plain.reading import Command, Play, Refused, help_lines, legal_order, read_input
from kc_tui.plain.telling import Teller

#: What ``undo`` says in a lesson.
NO_UNDO = N_("The coach takes no moves back: each step is one move.")


class LessonRun:
    """One lesson, from ``step`` on, told in lines."""

    def __init__(self, talk: Conversation, lesson: Lesson, step: int, config: Config, progress: Progress) -> None:
        self.talk = talk
        self.lesson = lesson
        self.step_index = max(0, min(step, len(lesson.steps)))
        self.session = lesson_session(lesson, self.step_index, config)
        self.driver = TableDriver(self.session)
        self.teller = Teller(self.session.fmt, rules=self.driver.rules)
        self.progress = progress.at(lesson.id, self.step_index)
        self._scored = False

    @property
    def step(self) -> Step | None:
        """The step being taught (None: the lesson is learnt)."""
        return self.lesson.steps[self.step_index] if self.step_index < len(self.lesson.steps) else None

    def keep(self) -> None:
        problem = save_progress(self.progress)
        if problem is not None:
            self.talk.say(problem)

    def next_step(self) -> None:
        self.step_index += 1
        self.progress = self.progress.at(self.lesson.id, self.step_index)
        if self.step is None:
            self.progress = self.progress.learnt(self.lesson.id)
        self.keep()

    def snapshot(self) -> TableSnapshot:
        return self.driver.snapshot(self.session.log_owner)

    def run(self) -> Progress:
        """The lesson to its end: the progress then (:class:`Quit` when the person leaves)."""
        number = LESSONS.index(self.lesson) + 1
        self.talk.say(
            _("Lesson {number}/{count}: {title}").format(number=number, count=len(LESSONS), title=_(self.lesson.title))
        )
        self.keep()
        driver, s = self.driver, self.session
        while True:
            self.talk.say(*self.teller.news(self.snapshot()))
            if s.ai_to_move and not driver.round_over:
                driver.decide(driver.ai_job().run())
                continue
            if driver.round_over and not self._scored:
                self._scored = True
                s.count_penalties()  # the round's end counted in the totals told (R15)
                self.talk.say(*self.teller.scores(self.snapshot()))
            step = self.step
            if step is None:
                self.talk.say(_(coach.LESSON_DONE))
                self.answer_or_go_on()
                return self.progress
            if step.goal is Goal.READ:
                self.talk.say(coach.words_at(step.text, step, s))
                self.answer_or_go_on(_(coach.READ_ON))
                self.next_step()
            else:
                self.move(step)

    def answer_or_go_on(self, prompt: str = "") -> None:
        """Wait for Enter; a command typed meanwhile is carried out first."""
        while True:
            snap = self.snapshot()
            answer = read_input(self.talk.ask(prompt), snap, self.driver.rules, fmt=self.session.fmt)
            if not isinstance(answer, Command) or answer is Command.HINT:
                return
            self.command(answer, snap)

    def move(self, step: Step) -> None:
        """A step that asks for a move: the table, the coach's words, then moves asked until the
        coach takes one (it is then made)."""
        snap = self.snapshot()
        self.talk.say(*self.teller.turn(snap))
        self.talk.say(coach.words_at(step.text, step, self.session))
        m, order = step.solution_move(), legal_order(snap)
        if m is not None and m in order:
            # Translators: the plain mode's lesson: the move that makes the step, by its number
            # in the list of moves and in words ("The step's move: 2, play 6♥ on 7♠ at North").
            self.talk.say(
                _("The step's move: {number}, {move}").format(number=order.index(m) + 1, move=self.teller.move(m, snap))
            )
        while True:
            answer = read_input(self.talk.ask(_("Your move:")), snap, self.driver.rules, fmt=self.session.fmt)
            if isinstance(answer, Refused):
                self.talk.say(answer.line)
            elif isinstance(answer, Play):
                said = coach.verdict_at(step, self.session, answer.move)
                if said is not None:
                    self.talk.say(said)
                    continue
                self.next_step()
                reason = self.driver.play(answer.move)
                if reason is not None:  # pragma: no cover - the coach let only a legal move through
                    self.talk.say(reason)
                return
            elif answer is Command.HINT:
                self.hint(step, snap)
            else:
                self.command(answer, snap)

    def hint(self, step: Step, snap: TableSnapshot) -> None:
        """The step's own move, as the game's hint says a move."""
        m: Move | None = step.solution_move()
        if m is None:
            return
        words = _("end your turn") if m == END else self.session.suggest(m)
        order = legal_order(snap)
        if m in order:
            self.talk.say(_("Hint (move {number}): {words}").format(number=order.index(m) + 1, words=words))
        else:
            self.talk.say(_("Hint: {words}").format(words=words))

    def command(self, command: Command, snap: TableSnapshot) -> None:
        talk, teller = self.talk, self.teller
        if command is Command.QUIT:
            self.keep()
            talk.say(_("Your place in the lesson is kept: kings-corners tutorial --plain comes back to it."))
            raise Quit
        told = teller.told(command, snap)
        if told is not None:
            talk.say(*told)
        elif command is Command.UNDO:
            talk.say(_(NO_UNDO))
        elif command is Command.RULES:
            talk.say(*rules_lines())
        elif command is Command.HELP:
            talk.say(*help_lines())


def tutorial(talk: Conversation, start: Start) -> int:
    """``tutorial --plain``: the lessons from where the person left them."""
    progress, problem = load_progress()
    if problem is not None:
        talk.say(problem)
    lesson = BY_ID.get(progress.lesson) or LESSONS[0]
    step = progress.step if progress.lesson == lesson.id else 0
    while True:
        progress = LessonRun(talk, lesson, step, start.config, progress).run()
        following = LESSONS.index(lesson) + 1
        if following >= len(LESSONS):
            talk.say(_("Every lesson is learnt: kings-corners play --plain starts a match."))
            return 0
        lesson, step = LESSONS[following], 0


__all__ = ["NO_UNDO", "LessonRun", "tutorial"]
