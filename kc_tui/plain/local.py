"""A table of this machine in the plain mode: ``play --plain`` (against AIs, or several people
at one keyboard, each turn after a handoff), ``demo --plain`` and ``tutorial --plain``.

The table runs through the one :class:`~kc_tui.match.table.TableDriver`, the AIs' jobs run on
the spot (no pace: every move is told as it is made). What happened is told after every change
(:meth:`Teller.news`, from the view of the seat whose log it is: nobody's hand or draws reach
another person); at a person's turn their hand, the table and the numbered moves, then "Your
move". The data folder is held as the app holds it (:mod:`kc_tui.match.data_folder`): the match
is saved after every move, resumed from the same save, and recorded in the history. The end of
the input (a closed pipe, Ctrl+D) quits with the save kept.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from types import FrameType

from kc_tui.config import Config
from kc_tui.i18n import _
from kc_tui.match.data_folder import DataFolder, take_data_folder
from kc_tui.match.rating_line import played_record, rating_line
from kc_tui.match.saves import save_exists
from kc_tui.match.seating import Seating
from kc_tui.match.session import MatchSession, load_or_quarantine
from kc_tui.match.starting import Start
from kc_tui.match.table import TableDriver
from kc_tui.match.view import TableSnapshot
from kc_tui.plain.lines import Lines
from kc_tui.plain.local_rules import rules_lines
from kc_tui.plain.local_talk import Conversation, Quit
from kc_tui.plain.local_tutorial import tutorial
from kc_tui.plain.reading import Command, Play, Refused, help_lines, legal_order, read_input
from kc_tui.plain.telling import Teller
from kc_tui.util.signals import handling, known_signals

#: How long quitting waits for the last move's save (seconds).
QUIT_SAVE_WAIT = 5.0
#: How long the end of a match waits for the history to record it (seconds; the rest stays in
#: the outbox and is recorded next time).
RECORD_WAIT = 10.0
#: How long the end waits for the last save and for the history to record what waits (seconds).
SAVE_CLOSE_WAIT = 5.0
RECORDER_CLOSE_WAIT = 2.0
#: Exit codes: done, and a match that could not be started (another window holds the data folder).
EXIT_OK = 0
EXIT_NOT_STARTED = 1


class LocalTable:
    """One match at this machine's table, told in lines (see the module docs)."""

    def __init__(
        self, talk: Conversation, driver: TableDriver, folder: DataFolder | None = None, *, auto_hint: bool = False
    ) -> None:
        self.talk = talk
        #: A hint at the start of each of a person's turns (the setting ``auto_hint``).
        self.auto_hint = auto_hint
        self._hinted: tuple[int, int | None, int] | None = None
        self.driver = driver
        self.folder = folder
        self.teller = Teller(driver.session.fmt, rules=driver.rules)
        #: Who is at the keyboard (several people share it: a handoff before each one's turn).
        self.seating = Seating(driver.session)
        self._told_history: str | None = None

    @property
    def session(self) -> MatchSession:
        return self.driver.session

    def news_viewer(self) -> int | None:
        """The seat the news is told as: the one person whose log it is, else nobody's."""
        return self.session.log_owner

    def tell_news(self) -> None:
        self.talk.say(*self.teller.news(self.driver.snapshot(self.news_viewer())))

    def play(self) -> None:
        """Play the match to its end (:class:`Quit` when the person quits or the input ends)."""
        driver, s = self.driver, self.session
        while True:
            self.close_hand()
            self.tell_news()
            if driver.over:
                self.recorded()
                return
            if s.holding:
                self.hold()
            elif driver.round_over:
                driver.finish_round()
                self.seating.new_deal()  # nobody's hand of the next deal is told before its handoff
                self.tell_history()
            elif s.ai_to_move:
                driver.decide(driver.ai_job().run())
            else:
                self.turn()

    def close_hand(self) -> None:
        """At a keyboard several people share, once the turn has passed from the person at it, their
        hand is moved off the screen before anything else is told (the next person sits there)."""
        at = self.seating.at_keyboard
        if not self.seating.hot_seat or at is None:
            return
        if self.driver.round_over or self.session.to_move != at:
            self.talk.curtain()
            self.seating.at_keyboard = None

    def hold(self) -> None:
        """The save failed and the table holds: say why, and try again when asked."""
        s = self.session
        self.talk.say(s.hold_text)
        self.talk.ask(_("Press Enter to try the save again."))
        s.retry_save()

    def hand_off(self, seat: int) -> None:
        """Before ``seat``'s turn, the keyboard handed to its person: nothing of their hand is told
        until they say they are there (``quit`` asks to quit first)."""
        name = self.session.names[seat]
        handoff = _("Pass the keyboard to {name}. Press Enter when only {name} can see the screen.").format(name=name)
        while read_input(self.talk.ask(handoff), self.driver.snapshot(None), self.driver.rules) is Command.QUIT:
            self.quit()
        self.seating.at_keyboard = seat

    def turn(self) -> None:
        """The person on turn: told their hand, the table and the moves, asked until one is made."""
        s, driver = self.session, self.driver
        if self.seating.needs_handoff():
            self.hand_off(s.to_move)
        snap = driver.snapshot(s.to_move)
        self.talk.say(*self.teller.turn(snap))
        started = (snap.round_number, snap.to_move, snap.turns_ended)
        if self.auto_hint and started != self._hinted:
            self._hinted = started
            self.hint(snap)
        while True:
            answer = read_input(self.talk.ask(_("Your move:")), snap, driver.rules, fmt=s.fmt)
            if isinstance(answer, Play):
                reason = driver.play(answer.move)
                if reason is None:
                    return
                self.talk.say(reason)
            elif isinstance(answer, Refused):
                self.talk.say(answer.line)
            elif self.command(answer, snap):
                return

    def command(self, command: Command, snap: TableSnapshot) -> bool:
        """Carry out ``command`` at a person's turn; True when the table changed (told afresh)."""
        talk = self.talk
        told = self.teller.told(command, snap)
        if told is not None:
            talk.say(*told)
        elif command is Command.HINT:
            self.hint(snap)
        elif command is Command.UNDO:
            return self.undo()
        elif command is Command.RULES:
            talk.say(*rules_lines())
        elif command is Command.HELP:
            talk.say(*help_lines())
        elif command is Command.QUIT:
            self.quit()
        return False

    def hint(self, snap: TableSnapshot) -> None:
        driver = self.driver
        decision = driver.hint_job().run()
        if not driver.hint_ready(decision):
            return
        words = self.session.hint_words(decision.move, decision.note)
        order = legal_order(snap)
        if decision.move in order:
            number = order.index(decision.move) + 1
            self.talk.say(_("Hint (move {number}): {words}").format(number=number, words=words))
        else:
            self.talk.say(_("Hint: {words}").format(words=words))

    def undo(self) -> bool:
        s = self.session
        if not self.driver.undo():
            self.talk.say(s.why_no_undo)
            return False
        self.teller.news(self.driver.snapshot(self.news_viewer()))  # the lines taken back are not news
        self.talk.say(_("Took back your last move."))
        return True

    def quit(self) -> None:
        """Ask to quit; :class:`Quit` once it is confirmed."""
        if self.talk.confirm(_("Quit Kings Corners? (y/n)")):
            raise Quit

    def said_at_quit(self) -> list[str]:
        """Whether the match is kept to resume, said as the game ends."""
        s = self.session
        if s.writer is not None:
            s.writer.flush(QUIT_SAVE_WAIT)
        if s.match.over:
            return [_("The match is over.")]
        if s.save_path is None:
            return [_("This game is not saved.")]
        if s.save_problem is not None:
            return [
                _(
                    "Your match is NOT saved: {problem}. Quitting now loses the moves since the last save;"
                    " Resume would go back there."
                ).format(problem=s.save_problem)
            ]
        return [_("Your match is saved: kings-corners play --plain offers to resume it.")]

    def tell_history(self) -> None:
        """Say once what the history could not record yet (the game goes on)."""
        recorder = self.driver.recorder
        problem = recorder.status.problem if recorder is not None else None
        if problem is not None and problem != self._told_history:
            self.talk.say(
                _(
                    "The game history could not record this round yet ({problem}): it is kept and tried again."
                    " The game goes on."
                ).format(problem=problem)
            )
        self._told_history = problem

    def recorded(self) -> None:
        """At the match's end: wait a while for the history to record it, then say how the match
        moved the one player's rating (nobody's at a keyboard several people share)."""
        recorder = self.driver.recorder
        if recorder is not None:
            recorder.flush(RECORD_WAIT)
        s = self.session
        if s.human_seat is None or self.seating.hot_seat:
            return
        line = rating_line(played_record(s), recorder, s.record.uid)
        if line:
            self.talk.say(line)


# ---------------------------------------------------------------------- play
def offer_resume(talk: Conversation, folder: DataFolder, config: Config) -> MatchSession | None:
    """The saved match, if there is one and the person resumes it (its rounds not yet in the
    history handed to the recorder, as the app does); a save that cannot be used is said."""
    if not save_exists():
        return None
    saved, problem = load_or_quarantine(card_style=config.card_style)
    if problem:
        talk.say(problem)
    if saved is None:
        return None
    if folder.recorder is not None and saved.rounds_played:
        folder.recorder.submit_session(saved)
    talk.say(_("Your saved match: {summary}").format(summary=saved.summary()))
    if not talk.confirm(_("Resume your match? (y/n)")):
        return None
    saved.writer = folder.saver
    return saved


def play(talk: Conversation, start: Start, folder: DataFolder) -> int:
    """``play --plain``: the saved match resumed if the person wants it, else a new one."""
    if folder.look_only is not None:
        talk.say(_("The match you asked for was not started: {why}").format(why=folder.look_only))
        return EXIT_NOT_STARTED
    config = start.config
    session = offer_resume(talk, folder, config)
    if session is None:
        seed, start.seed = start.seed, None  # the command line's seed is the first match's
        session = MatchSession.from_config(config, seed, writer=folder.saver)
    driver = TableDriver.for_config(config, session, folder.recorder)
    table = LocalTable(talk, driver, folder, auto_hint=config.auto_hint)
    try:
        table.play()
    except Quit:
        with suppress(BrokenPipeError):
            talk.say(*table.said_at_quit())
    return EXIT_OK


# ---------------------------------------------------------------------- demo
def demo(talk: Conversation, start: Start, folder: DataFolder) -> int:
    """``demo --plain``: AIs play a match, told as it happens, until its end or ``quit``."""
    config = start.config
    kinds = start.demo_seats or [o.kind for o in config.opponents] + ["greedy"]
    pace = start.pace or config.pace
    recorder = folder.recorder if config.record_demos else None
    driver = TableDriver.for_demo(
        kinds, config.rules, start.seed, pace, card_style=config.card_style, recorder=recorder
    )
    teller = Teller(driver.session.fmt, rules=driver.rules)
    talk.read_aside()
    talk.say(_("The demo plays by itself: type quit to stop it."))
    while True:
        talk.say(*teller.news(driver.snapshot(None)))
        if driver.over:
            if recorder is not None:
                recorder.flush(RECORD_WAIT)
            return EXIT_OK
        for line in talk.typed():
            if line is None or read_input(line, driver.snapshot(None), driver.rules) is Command.QUIT:
                talk.say(_("The demo is stopped."))
                return EXIT_OK
            talk.say(_("The demo plays by itself: type quit to stop it."))
        if driver.round_over:
            driver.finish_round()
        else:
            driver.decide(driver.ai_job().run())


# ---------------------------------------------------------------------- the end
@contextmanager
def signals_quit() -> Iterator[None]:
    """While the block runs, SIGTERM and SIGHUP end the game as a quit does (the save kept)."""

    def stop(_signum: int, _frame: FrameType | None) -> None:
        raise Quit

    with handling(known_signals(("SIGTERM", "SIGHUP")), stop):
        yield


def run_local(mode: str, start: Start, lines: Lines) -> int:
    """Run ``mode`` ('play', 'demo', 'tutorial' or 'menu') in the plain mode, the data folder held
    while it runs."""
    talk = Conversation(lines)
    if start.warning:
        talk.say(start.warning)
    folder = take_data_folder()
    if folder.recorder is not None:
        folder.recorder.start()
    try:
        with signals_quit():
            if folder.taken_over:
                talk.say(folder.taken_over)
            try:
                if mode == "play":
                    return play(talk, start, folder)
                if mode == "demo":
                    return demo(talk, start, folder)
                if mode == "tutorial":
                    return tutorial(talk, start)
                return menu(talk, start, folder)
            except Quit:
                return EXIT_OK
    finally:
        folder.close(SAVE_CLOSE_WAIT, RECORDER_CLOSE_WAIT)


def menu(talk: Conversation, start: Start, folder: DataFolder) -> int:
    """The main menu in lines: a match, the demo, the lessons, the rules, or quit."""
    choices: list[tuple[str, Callable[[], object]]] = [
        (_("Play a match"), lambda: play(talk, start, folder)),
        (_("Watch a demo"), lambda: demo(talk, start, folder)),
        (_("Learn to play"), lambda: tutorial(talk, start)),
        (_("Rules"), lambda: talk.say(*rules_lines())),
    ]
    while True:
        talk.say("Kings Corners")
        talk.say(*(f"{i}. {label}" for i, (label, _do) in enumerate(choices, 1)))
        talk.say(_("{number}. Quit").format(number=len(choices) + 1))
        answer = talk.ask(_("Choose a number:")).strip()
        if answer == str(len(choices) + 1) or answer.casefold() in ("q", Command.QUIT.value):
            return EXIT_OK
        if answer.isdigit() and 1 <= int(answer) <= len(choices):
            choices[int(answer) - 1][1]()
            continue
        talk.say(_("Type a number from 1 to {count}.").format(count=len(choices) + 1))


__all__ = ["EXIT_NOT_STARTED", "EXIT_OK", "LocalTable", "run_local"]
