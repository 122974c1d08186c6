"""Where the plain mode writes and reads: :class:`Lines`.

Every line written is printable (a name from a player or the network shows its control
characters as escapes, :func:`kc_tui.util.printable.one_line`), wrapped at spaces (and Thai's
word marks) to the width, and flushed at once, so a screen reader or a braille display reads it
as it comes; nothing written is ever an escape sequence or a cursor movement. A line read is
one line of input: None at its end (a closed pipe, Ctrl+D).
"""

from __future__ import annotations

import os
import shutil
from typing import TextIO

from kc_tui.util.printable import one_line, wrap_cells, write_line

#: The width when the output is not a terminal and $COLUMNS does not say one.
DEFAULT_WIDTH = 80
#: The narrowest width a line is wrapped to.
MIN_WIDTH = 20
#: The longest line read: anything longer is cut (the rest of it is read and dropped).
MAX_INPUT = 200


def output_width(stream: TextIO) -> int:
    """The columns of the terminal ``stream`` writes to, else $COLUMNS, else 80."""
    try:
        if stream.isatty():
            return max(MIN_WIDTH, os.get_terminal_size(stream.fileno()).columns)
    except (OSError, ValueError, AttributeError):
        pass
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns > 0:
        return max(MIN_WIDTH, columns)
    return max(MIN_WIDTH, shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns if stream.isatty() else DEFAULT_WIDTH)


class Lines:
    """The plain mode's output and input: ``say`` lines, ``ask`` for one."""

    def __init__(self, out: TextIO, inp: TextIO, width: int | None = None) -> None:
        self.out = out
        self.inp = inp
        self.width = max(MIN_WIDTH, width) if width else output_width(out)

    def say(self, *lines: str) -> None:
        """Write each of ``lines`` made printable, wrapped to the width; an empty one as a blank line."""
        for line in lines:
            text = one_line(line)
            for part in wrap_cells(text, self.width) or [""]:
                write_line(self.out, part)

    def curtain(self) -> None:
        """On a terminal, blank lines enough to move every line shown off its screen (a hand told
        to one person, before the keyboard passes to another); nothing on a pipe, which no one
        looks at over a shoulder. Blank lines only: a reader says nothing for them."""
        try:
            if not self.out.isatty():
                return
            rows = os.get_terminal_size(self.out.fileno()).lines
        except (OSError, ValueError, AttributeError):
            return
        self.out.write("\n" * max(1, rows))
        self.out.flush()

    def ask(self, prompt: str) -> str | None:
        """Say ``prompt`` (a line of its own), then read one line: its text without the line's
        end, cut to :data:`MAX_INPUT` characters; None when the input has ended."""
        if prompt:
            self.say(prompt)
        try:
            line = self.inp.readline(MAX_INPUT + 1)
        except (OSError, ValueError, UnicodeDecodeError):
            return None
        if not line:
            return None
        if len(line) > MAX_INPUT and not line.endswith("\n"):
            while True:
                rest = self.inp.readline(4096)
                if not rest or rest.endswith("\n"):
                    break
        return line.rstrip("\r\n")[:MAX_INPUT]


__all__ = ["DEFAULT_WIDTH", "MAX_INPUT", "Lines", "output_width"]
