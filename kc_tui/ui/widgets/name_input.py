"""A text field for a player's name that keeps what fits of a long entry and says what was cut.

Textual's :class:`~textual.widgets.Input` refuses a whole edit that would go over its
``max_length`` (a long paste leaves the field as it was, a key past the limit only rings the
bell). :class:`NameInput` keeps the first ``max_length`` characters instead, and posts
:class:`NameInput.Noted` with one line saying what happened ("" once an edit fits again), for
the screen to show beside the field.
"""

from __future__ import annotations

from textual import events
from textual.message import Message
from textual.widgets import Input

from kc_tui.i18n import ngettext, number

__all__ = ["NameInput", "cut_note"]


def cut_note(limit: int, pasted: int | None, kept: int) -> str:
    """What a cut edit says: a paste of ``pasted`` characters of which ``kept`` fit, or typing."""
    if pasted is None:
        cut = ngettext(
            "Names are at most {limit} character: the rest was cut.",
            "Names are at most {limit} characters: the rest was cut.",
            limit,
        )
        return cut.format(limit=limit)
    # Translators: {pasted} is how many characters were pasted (written with a thousands separator).
    pasted_note = ngettext(
        "Pasted {pasted} character: names are at most {limit}; the first {kept} were kept.",
        "Pasted {pasted} characters: names are at most {limit}; the first {kept} were kept.",
        pasted,
    )
    return pasted_note.format(pasted=number(pasted), limit=limit, kept=kept)


class NameInput(Input):
    """An :class:`Input` whose edits past ``max_length`` keep what fits (see the module)."""

    class Noted(Message):
        """The field's note changed: ``note`` says what was cut, or is "" (nothing was)."""

        def __init__(self, field: NameInput, note: str) -> None:
            super().__init__()
            self.field = field
            self.note = note

        @property
        def control(self) -> NameInput:
            return self.field

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        #: What the last edit cut, in words ("" when it fitted).
        self.note = ""
        self._pasted: int | None = None

    def _on_paste(self, event: events.Paste) -> None:
        # Input's own paste handler, with the paste's length known to :meth:`replace`.
        event.prevent_default()
        event.stop()
        if not event.text:
            return
        line = event.text.splitlines()[0] if event.text.splitlines() else ""
        start, end = self.selection
        self._pasted = len(line)
        try:
            self.replace(line, start, end)
        finally:
            self._pasted = None

    def replace(self, text: str, start: int, end: int) -> None:
        limit = self.max_length
        value = self.value
        start, end = sorted((max(0, start), min(len(value), end)))
        new_value = f"{value[:start]}{text}{value[end:]}"
        if not limit or len(new_value) <= limit:
            super().replace(text, start, end)
            if self.value == new_value:
                self._set_note("")
            return
        kept = max(0, min(len(text), limit - start))  # the field keeps its first ``limit`` characters
        self.value = new_value[:limit]
        self.cursor_position = min(start + kept, limit)
        self._set_note(cut_note(limit, self._pasted, kept))

    def clear_note(self) -> None:
        self._set_note("")

    def _set_note(self, note: str) -> None:
        if note != self.note:
            self.note = note
            self.post_message(self.Noted(self, note))
