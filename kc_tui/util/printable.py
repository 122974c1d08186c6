"""Text shown to the user made safe to show: one printable line, cut to a length."""

from __future__ import annotations

import os
import unicodedata
from typing import TextIO

from kc_tui.i18n import BREAK_MARK, _, marks_kept

#: Longest reason quoted in a warning (the file's path and where it went are never cut).
PROBLEM_MAX = 300


def one_line(text: str, limit: int | None = None) -> str:
    """``text`` as one plain line: every non-printable character (newlines, escapes, other
    control, format such as U+202E, and surrogate characters) written as its escape sequence
    (``\\n``, ``\\xNN``, ``\\uNNNN``...); cut to ``limit`` characters, ending in "...", if given.

    A Thai break mark (U+200B) is kept while translations keep theirs (:func:`kc_tui.i18n.marks_kept`:
    a screen, which breaks lines there and draws nothing for it); on the command line, whose
    translations carry none, one is escaped like the others: it came from a player or a file."""
    if not text.isprintable():
        kept = BREAK_MARK if marks_kept() else ""
        text = "".join(
            ch if ch.isprintable() or ch == kept else ch.encode("unicode_escape").decode("ascii") for ch in text
        )
    return text if limit is None or len(text) <= limit else text[: limit - 3] + "..."


def write_line(stream: TextIO, line: str) -> None:
    """Write ``line`` and a newline so that no character can raise an encoding error: one the
    stream's encoding lacks (an ASCII terminal's ``ë``) is written as its escape (``\\xeb``)."""
    try:
        stream.write(line + "\n")
    except UnicodeEncodeError:
        encoding = getattr(stream, "encoding", None) or "ascii"
        stream.write((line + "\n").encode(encoding, "backslashreplace").decode(encoding, "replace"))
    stream.flush()


def cells(text: str) -> int:
    """The terminal cells ``text`` takes: a wide letter (CJK) two, a combining mark (Thai's
    vowels and tone marks above and below) or a zero-width sign none, any other letter one."""
    width = 0
    for ch in text:
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


def wrap_cells(text: str, width: int) -> list[str]:
    """``text``'s words in lines of at most ``width`` cells (:func:`cells`), broken at a space
    or at a Thai break mark (U+200B, the catalogs' mark between two words written without a
    space), which no line keeps; a word wider than ``width`` takes a line of its own. Runs of
    spaces count as one, as :func:`textwrap.wrap` has them."""
    lines: list[str] = []
    line, used = "", 0
    for word in text.split():
        for i, piece in enumerate(p for p in word.split(BREAK_MARK) if p):
            gap = " " if i == 0 and line else ""
            size = cells(piece)
            if line and used + len(gap) + size > width:
                lines.append(line)
                line, used, gap = "", 0, ""
            line += gap + piece
            used += len(gap) + size
    if line:
        lines.append(line)
    return lines


def is_you(name: str) -> bool:
    """Whether ``name`` is "You" (the default player's name), whatever its case and spaces."""
    return name.strip().casefold() == "you"


def name_shown(name: str) -> str:
    """A player's name as the screen shows it: the default "You" in the language in use, any
    other name as it is."""
    if is_you(name):
        you = _("You")
        return name if you == "You" else you
    return name


def possessive(name: str, *, start: bool = True) -> str:
    """Whose, in words: "Your" for You (:func:`is_you`; "your" inside a sentence, ``start``
    false), else the name and "'s" ("Ana's", "James's")."""
    if is_you(name):
        # Translators: whose, for the player called You: "Your turn" (start), "your turn".
        return _("Your") if start else _("your")
    # Translators: whose, for a player's name: "Ana's".
    return _("{name}'s").format(name=name)


def show_path(path: str) -> str:
    """A file name as the user typed it, made printable: bytes that are not UTF-8 (kept by
    Python as surrogate escapes) are shown as ``\\xNN``, control characters escaped."""
    try:
        text = os.fsencode(path).decode("utf-8", "backslashreplace")
    except UnicodeError:
        text = path
    return one_line(text, 300)
