"""A remote seat in the plain mode: ``kings-corners join --plain URL`` (and ``--watch``).

The seat's connection is the app's (:class:`kc_tui.net.client.RemoteSeat`: its hello, its
requests with the state's stamp, connecting again by itself); what it receives is told as it
comes, in lines (:class:`kc_tui.plain.telling.Teller` reads each ``state``'s view, the same
:class:`~kc_tui.match.view.TableSnapshot` the screen draws): what happened, at the seat's turn its
hand, the table and the numbered moves, a round's summary, the match's end. What is typed is read
by :func:`kc_tui.plain.reading.read_input` and sent as the screen sends it; the server's refusal
is one line. The lines typed are read in a thread of their own (:class:`Typed`), so the table's
news is told while the person thinks; the end of the input leaves the table (the seat waits for
its person, as the screen's "leave" does).

Everything from the network (names, log lines, reasons) is data: :class:`kc_tui.plain.lines.Lines`
writes it printable, never as an escape sequence.
"""

from __future__ import annotations

import asyncio
import enum
import functools
import threading
from collections.abc import Callable

from kc_tui.config import Config
from kc_tui.engine import VARIANTS, Rules, move_str
from kc_tui.i18n import _, pgettext
from kc_tui.match.card_format import card_formatter, cards_text
from kc_tui.match.view import TableSnapshot, not_your_turn, who_plays
from kc_tui.net.client import HOST_STOPPED, Link, RemoteSeat, Status
from kc_tui.net.listings import rules_of
from kc_tui.net.schema import (
    CLOSED,
    RATE_PER_SECOND,
    SLOW_DOWN,
    ClockMsg,
    ErrorMsg,
    HintMsg,
    RefusedMsg,
    RoundMsg,
    ServerMessage,
    StateMsg,
    WelcomeMsg,
)
from kc_tui.plain.lines import Lines
from kc_tui.plain.local_rules import rules_lines as game_rules
from kc_tui.plain.reading import Command, Play, Refused, fold, read_input
from kc_tui.plain.reading import help_lines as typing_help
from kc_tui.plain.telling import Teller
from kc_tui.util.printable import name_shown

#: How long a request the server dropped for coming too fast waits before it is sent again (s).
AGAIN_AFTER = 2 / RATE_PER_SECOND


class Typed:
    """The lines typed, read in a daemon thread (a blocked read never holds the program's end)
    and handed to the event loop as they come; None once the input has ended, and ever after."""

    def __init__(self, lines: Lines) -> None:
        self.lines = lines
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._next: asyncio.Task[str | None] | None = None
        self.ended = False

    def start(self) -> None:
        """Start reading (on the running loop)."""
        loop = asyncio.get_running_loop()

        def read() -> None:
            while True:
                line = self.lines.ask("")
                try:
                    loop.call_soon_threadsafe(self._queue.put_nowait, line)
                except RuntimeError:  # the loop has closed: the program is ending
                    return
                if line is None:
                    return

        threading.Thread(target=read, name="plain-input", daemon=True).start()

    def next(self) -> asyncio.Task[str | None]:
        """The next line, as a task that stays the same until it is taken (:meth:`take`): a
        wait given up keeps its line for the next."""
        if self._next is None:
            self._next = asyncio.ensure_future(self._get())
        return self._next

    def take(self) -> str | None:
        """The line of the finished :meth:`next`."""
        task, self._next = self._next, None
        assert task is not None and task.done()
        return task.result()

    async def get(self) -> str | None:
        """Wait for the next line."""
        await self.next()
        return self.take()

    async def _get(self) -> str | None:
        if self.ended:
            return None
        line = await self._queue.get()
        if line is None:
            self.ended = True
        return line

    def cancel(self) -> None:
        """Stop waiting (the program ends)."""
        if self._next is not None:
            self._next.cancel()
            self._next = None


class Left(enum.Enum):
    """How a table was left."""

    #: The match is over (told).
    OVER = "over"
    #: The person typed quit.
    QUIT = "quit"
    #: The input ended.
    INPUT_ENDED = "input ended"
    #: The server ended the seat (a wrong address, the seat given to another...).
    ENDED = "ended"


def rules_lines(rules: Rules) -> list[str]:
    """A table's settings, a line for each that applies, in the Settings' words (the ``rules``
    command tells them before the game's rules)."""
    out = [_("The rules of this table:")]
    for v in VARIANTS:
        if v.only_with is not None and str(getattr(rules, v.only_with[0])) != v.only_with[1]:
            continue
        value = getattr(rules, v.key)
        if v.choices:
            shown = v.label(value)
        elif isinstance(value, bool):
            shown = _("yes") if value else _("no")
        else:
            shown = str(value)
        # Translators: a rule setting in the plain mode: "Draw (R7): at the start of the turn".
        out.append(_("{title} ({rule}): {value}").format(title=_(v.title), rule=v.rule, value=shown))
    return out


def typed_words() -> dict[str, str]:
    """The command words as typed in the language in use (:mod:`kc_tui.plain.reading`'s), by
    their English word."""
    return {
        "table": pgettext("typed command", "table"),
        "scores": pgettext("typed command", "scores"),
        "rules": pgettext("typed command", "rules"),
        "help": pgettext("typed command", "help"),
        "quit": pgettext("typed command", "quit"),
    }


def typing_hint() -> str:
    """How to learn what may be typed."""
    # Translators: {help} is the word typed for the help.
    return _("Type {help} for what you can type.").format(**typed_words())


def help_lines(*, watching: bool) -> list[str]:
    """What may be typed at a remote table."""
    if watching:
        return [
            _("You are watching: the table is told as it plays."),
            _("Type {table}, {scores} or {rules} to hear them again, {help} for this, {quit} to leave.").format(
                **typed_words()
            ),
        ]
    # Translators: {quit} is the word typed to leave the table.
    away = _("At a remote table {quit} leaves it: your seat waits for you (join again to take it).")
    return [*typing_help(), away.format(**typed_words())]


def waiting_words(snap: TableSnapshot) -> str:
    """Who the table waits for, or why nobody is on turn."""
    if snap.over:
        return snap.end_text or _("The match is over.")
    if snap.waiting_for is None:
        return _("The round is over.")
    return who_plays(snap)


def sentence(text: str) -> str:
    """``text`` (a reason, a status in lower case) as a sentence: its first letter a capital."""
    return text[:1].upper() + text[1:]


def mine(snap: TableSnapshot | None) -> bool:
    """The viewer is on turn (a spectator never is)."""
    return snap is not None and snap.my_turn and not snap.over


class PlainTable:
    """A remote seat (or a spectator's place) told in lines: what its connection receives, and
    what is typed sent. :meth:`play` runs until the table is left (:class:`Left`)."""

    def __init__(self, seat: RemoteSeat, lines: Lines, typed: Typed, config: Config) -> None:
        self.seat = seat
        self.lines = lines
        self.typed = typed
        self.fmt = card_formatter(config.card_style)
        self.teller = Teller(self.fmt)
        self.watching = seat.watching
        self.rules = Rules()
        self.welcome: WelcomeMsg | None = None
        self.snap: TableSnapshot | None = None
        self.stamp: int | None = None
        self.left: Left | None = None
        self._done = asyncio.Event()
        #: The stamp of the state this seat's turn began at (its hand and table told then).
        self._turn_began: int | None = None
        self._waiting_told: str | None = None
        self._hint_asked: int | None = None
        #: The request sent and not yet answered (a move, undo or hint), to send again when the
        #: server dropped it for coming too fast.
        self._request: Callable[[], int | None] | None = None
        self._warned: int | None = None
        seat.on_message = self._received
        seat.on_link = self._link_changed
        seat.on_problem = self._problem

    def say(self, *lines: str) -> None:
        self.lines.say(*lines)

    # ------------------------------------------------------------------ the table's run
    async def play(self) -> Left:
        """Connect, tell the table and send what is typed, until it is left."""
        self.say(_("Connecting to the table…"))
        runner = asyncio.ensure_future(self.seat.run())
        done = asyncio.ensure_future(self._done.wait())
        try:
            while not self._done.is_set():
                line_task = self.typed.next()
                await asyncio.wait({line_task, done, runner}, return_when=asyncio.FIRST_COMPLETED)
                if line_task.done():
                    self._typed(self.typed.take())
                elif runner.done() and not self._done.is_set():
                    self._leave(Left.ENDED)
        finally:
            done.cancel()
            self.seat.close()
            self.seat.on_message = self.seat.on_link = self.seat.on_problem = None
            runner.cancel()
            await asyncio.gather(runner, return_exceptions=True)
        assert self.left is not None
        return self.left

    def _leave(self, how: Left) -> None:
        if self.left is None:
            self.left = how
        self._done.set()

    # ------------------------------------------------------------------ from the network
    def _received(self, message: ServerMessage) -> None:
        if self._done.is_set():
            return
        if isinstance(message, WelcomeMsg):
            self._welcomed(message)
        elif isinstance(message, StateMsg):
            self._new_state(message)
        elif isinstance(message, RefusedMsg):
            self._request = None
            if message.id == self._hint_asked:
                self._hint_asked = None
            # Translators: the server refused what was asked; {reason} is its one line.
            self.say(_("Refused: {reason}").format(reason=message.reason))
        elif isinstance(message, HintMsg):
            if message.id == self._hint_asked:
                self._hint_asked = None
                text = message.text.removeprefix("Hint: ")
                self.say(_("Hint: {hint}").format(hint=text))
        elif isinstance(message, RoundMsg):
            self._round_scored(message)
        elif isinstance(message, ClockMsg):
            self._clock(message)
        elif isinstance(message, ErrorMsg) and message.code == SLOW_DOWN:
            self._again()
        elif isinstance(message, ErrorMsg) and message.code != self.seat.link.code:
            self.say(message.message)

    def _welcomed(self, message: WelcomeMsg) -> None:
        first = self.welcome is None
        self.welcome = message
        self.rules, problem = rules_of(message.rules)
        self.teller.rules = self.rules
        if problem is not None:
            self.say(problem)
        if not first:
            return
        names = ", ".join(s.name for s in message.seats)
        if self.watching or message.seat is None:
            # Translators: {names} are the seats' names at the table watched.
            self.say(_("You are watching the table of {names}.").format(names=names))
        else:
            # Translators: {name} is the seat's name at the table, {names} every seat's.
            self.say(_("You sit at the table as {name}; the seats: {names}.").format(name=message.name, names=names))
        self.say(typing_hint())

    def _new_state(self, state: StateMsg) -> None:
        before, snap = self.snap, state.view
        changed = state.stamp != self.stamp
        self.snap, self.stamp = snap, state.stamp
        if not changed:
            self._tell_waiting(snap)
            return
        self._hint_asked = None
        self._request = None
        self.say(*self.teller.news(snap))
        if snap.over:
            self.say(*self.teller.scores(snap))
            self._leave(Left.OVER)
            return
        if mine(snap):
            if not mine(before) or self._turn_began is None or (before and before.round_number != snap.round_number):
                self._turn_began = state.stamp
                self.say(*self.teller.turn(snap))
            else:
                self.say(*self.teller.moves(snap))
            # Translators: the prompt at the player's turn; {help} is the word typed for the help.
            self.say(_("Your move (its number, or {help}):").format(**typed_words()))
            self._waiting_told = None
        else:
            self._turn_began = None
            self._tell_waiting(snap)

    def _tell_waiting(self, snap: TableSnapshot) -> None:
        """Who the table waits for, when it is a person (an AI's turn is told by its move)."""
        who = snap.waiting_for
        seat = next((s for s in snap.seats if s.name == who), None)
        if mine(snap) or seat is None or seat.kind != "human":
            self._waiting_told = None
            return
        words = waiting_words(snap)
        if words != self._waiting_told:
            self._waiting_told = words
            self.say(words)

    def _round_scored(self, message: RoundMsg) -> None:
        """A round's end: the cards every hand held, face up now (who went out and the scores
        are told with the next state's news)."""
        names = [s.name for s in self.welcome.seats] if self.welcome is not None else []
        for i, hand in enumerate(message.cards):
            if hand and i < len(names):
                # Translators: a round's end in the plain mode: {name} held {cards} (the cards
                # left in their hand).
                self.say(_("{name} held {cards}.").format(name=name_shown(names[i]), cards=cards_text(hand, self.fmt)))

    def _clock(self, message: ClockMsg) -> None:
        """The turn clock's warning at this seat's turn, once a turn."""
        snap = self.snap
        if snap is None or message.seat != snap.viewer or not message.warning or self._warned == self.stamp:
            return
        self._warned = self.stamp
        # Translators: {seconds} is the whole seconds left of your turn.
        self.say(_("{seconds} s left: then an AI plays this turn").format(seconds=message.left))

    def _again(self) -> None:
        """The server dropped a message for coming too fast: the request waiting for its answer
        is sent again after a pause (the server's rate allows it then)."""
        if self._request is None:
            return
        request = self._request

        def send() -> None:
            if self._request is request and not self._done.is_set():
                rid = request()
                if rid is not None and self._hint_asked is not None:
                    self._hint_asked = rid

        asyncio.get_running_loop().call_later(AGAIN_AFTER, send)

    def _link_changed(self, link: Link) -> None:
        if self._done.is_set():
            return
        if link.status is Status.ENDED:
            if link.code == CLOSED:
                self.say(sentence(link.reason))
                self._leave(Left.OVER)
            elif link.code is not None:
                # Translators: {reason} is why the seat is not at the table any more.
                self.say(_("You are not at the table: {reason}.").format(reason=link.reason))
                self._leave(Left.ENDED)
        elif link.status is Status.RECONNECTING:
            self._hint_asked = None
            self._waiting_told = None
            if self.seat.host_away:
                self.say(sentence(_(HOST_STOPPED)))
            else:
                self.say(_("The connection is down: reconnecting… Moves can be made again once it is back."))
        elif link.status is Status.CONNECTED and self.seat.connections > 1:
            self.say(_("Connected again."))

    def _problem(self, reason: str) -> None:
        if not self._done.is_set():
            self.say(reason)

    # ------------------------------------------------------------------ what is typed
    def _typed(self, text: str | None) -> None:
        if text is None:
            if not self.watching and self.snap is not None:
                self.say(_("You left the table: your seat waits for you (join again with the same address)."))
            self._leave(Left.INPUT_ENDED)
            return
        snap = self.snap
        if not text.strip():
            self._status(snap)
            return
        if snap is None:
            if fold(text).strip() in ("q", Command.QUIT.value, fold(pgettext("typed command", "quit"))):
                self._leave(Left.QUIT)
            else:
                self.say(_("Connecting to the table…"))
            return
        read = read_input(text, snap, self.rules, fmt=self.fmt)
        if isinstance(read, Refused):
            self.say(read.line)
        elif isinstance(read, Play):
            self._send(read)
        else:
            self._command(read, snap)

    def _status(self, snap: TableSnapshot | None) -> None:
        """An empty line: the moves again at the seat's turn, else who the table waits for."""
        if snap is None:
            self.say(_("Connecting to the table…"))
        elif mine(snap) and not self.watching:
            self.say(*self.teller.moves(snap))
        else:
            self.say(waiting_words(snap))

    def _send(self, play: Play) -> None:
        if self.watching:
            self.say(_("You are watching: you have no moves."))
        elif not mine(self.snap):
            self.say(self._not_now())
        elif self._ask(functools.partial(self.seat.move, move_str(play.move))) is None:
            self.say(_("The connection is down: the move was not sent."))

    def _ask(self, request: Callable[[], int | None]) -> int | None:
        """Send ``request`` (the seat's move, undo or hint); its id, None when it was not sent."""
        rid = request()
        self._request = request if rid is not None else None
        return rid

    def _not_now(self) -> str:
        """Why the seat may not act now."""
        if not self.seat.connected:
            return _("The connection is down: your move waits until it is back.")
        return not_your_turn(self.snap)

    def _command(self, command: Command, snap: TableSnapshot) -> None:
        if command is Command.QUIT:
            if not self.watching:
                self.say(_("You left the table: your seat waits for you (join again with the same address)."))
            self._leave(Left.QUIT)
        elif command is Command.HELP:
            self.say(*help_lines(watching=self.watching))
        elif command is Command.RULES:
            self.say(*rules_lines(self.rules), "", *game_rules())
        elif command is Command.MOVES and not mine(snap):
            self.say(self._not_now())
        elif (told := self.teller.told(command, snap)) is not None:
            self.say(*told)
        elif self.watching:
            self.say(_("You are watching: you have no moves."))
        elif command is Command.HINT:
            self._hint(snap)
        elif command is Command.UNDO:
            self._undo(snap)

    def _hint(self, snap: TableSnapshot) -> None:
        if not mine(snap) or not self.seat.connected:
            self.say(self._not_now())
            return
        if self._hint_asked is not None:
            return
        rid = self._ask(self.seat.hint)
        if rid is None:
            self.say(_("The connection is down: no hint now."))
            return
        self._hint_asked = rid
        self.say(_("Thinking of a hint…"))

    def _undo(self, snap: TableSnapshot) -> None:
        if not mine(snap) or not self.seat.connected:
            self.say(self._not_now())
            return
        if not snap.can_undo:
            self.say(snap.undo_note or _("Nothing to undo this turn."))
            return
        if self._ask(self.seat.undo) is None:
            self.say(_("The connection is down: nothing was sent."))
            return
        self.say(_("Taking back your last move…"))


async def join_table(url: str, lines: Lines, config: Config, *, cafile: str | None = None) -> int:
    """Sit at the table of ``url`` (a seat's address, or a ``/watch`` one) until it is left; the
    exit code: 0 when the match ended or the person left, 1 when the server ended the seat."""
    from kc_tui.net.client import trusting

    seat = RemoteSeat(url, ssl_context=trusting(cafile) if cafile is not None else None)
    typed = Typed(lines)
    typed.start()
    try:
        left = await PlainTable(seat, lines, typed, config).play()
    finally:
        typed.cancel()
    return 1 if left is Left.ENDED else 0


__all__ = ["Left", "PlainTable", "Typed", "help_lines", "join_table", "rules_lines", "waiting_words"]
