"""The conversation of a plain run at this machine: lines said, questions asked, and the end of
the input (a closed pipe, Ctrl+D) as :class:`Quit`. While a demo plays, the input is read in a
thread of its own (:meth:`Conversation.read_aside`), so the demo never waits for it."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator

from kc_tui.i18n import _, pgettext
from kc_tui.plain.lines import Lines


class Quit(Exception):
    """The person quit, the input ended, or a signal asked the game to end."""


def yes_or_no(text: str) -> bool | None:
    """A typed answer: True for yes, False for no (in English or the language in use), else None."""
    word = text.strip().casefold()
    if word in ("y", "yes", "n", "no"):  # the English answers first: a translation never turns them around
        return word in ("y", "yes")
    # Translators: answers to a yes/no question of the plain mode, as typed (short: y, yes).
    yes = {"y", "yes", pgettext("answer", "y").casefold(), pgettext("answer", "yes").casefold()}
    # Translators: answers to a yes/no question of the plain mode, as typed (short: n, no).
    no = {"n", "no", pgettext("answer", "n").casefold(), pgettext("answer", "no").casefold()}
    if word in yes:
        return True
    if word in no:
        return False
    return None


class Conversation:
    """The lines of one run (see the module docs)."""

    def __init__(self, lines: Lines) -> None:
        self.lines = lines
        self._aside: queue.Queue[str | None] | None = None

    def say(self, *text: str) -> None:
        self.lines.say(*text)

    def curtain(self) -> None:
        """Every line shown moved off a terminal's screen (:meth:`Lines.curtain`)."""
        self.lines.curtain()

    def read_aside(self) -> None:
        """From now on the input is read in a thread of its own (:meth:`typed` gives what came)."""
        if self._aside is not None:
            return
        aside: queue.Queue[str | None] = queue.Queue()
        self._aside = aside

        def read() -> None:
            while True:
                line = self.lines.ask("")
                aside.put(line)
                if line is None:
                    return

        threading.Thread(target=read, name="plain-input", daemon=True).start()

    def typed(self) -> Iterator[str | None]:
        """The lines read aside and not yet taken (None: the input ended), without waiting."""
        while self._aside is not None:
            try:
                yield self._aside.get_nowait()
            except queue.Empty:
                return

    def ask(self, prompt: str) -> str:
        """Say ``prompt`` (when not empty) and read a line; :class:`Quit` at the input's end."""
        if self._aside is None:
            answer = self.lines.ask(prompt)
        else:
            if prompt:
                self.say(prompt)
            answer = self._aside.get()
            if answer is None:
                self._aside.put(None)  # the end stays the end for every later question
        if answer is None:
            raise Quit
        return answer

    def confirm(self, question: str) -> bool:
        """``question`` asked until it is answered yes or no."""
        while True:
            answer = yes_or_no(self.ask(question))
            if answer is not None:
                return answer
            self.say(_("Type y for yes or n for no."))


__all__ = ["Conversation", "Quit", "yes_or_no"]
