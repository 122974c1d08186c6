"""Where the terminal's cursor stands after each frame: on what a player looks at, so that a
braille display (BRLTTY) or a screen reader that follows the cursor shows it.

Textual moves the terminal's cursor to :attr:`App.cursor_position` at the end of every frame
(hidden: ``\\x1b[?25l``; a braille display follows a hidden cursor as well). :class:`ReaderCursor`
makes that position the one :func:`reader_spot` finds on the screen as it is drawn:

- at a table (the game, a remote seat, the tutorial: a :class:`HandPicking` screen), the label of
  the card picked in the hand, else the label of the top card of the pile picked, else the label
  of the first card of the hand in sight;
- elsewhere, and at a table without a hand, the focused widget: an input's own cursor, an option
  list's highlighted option, else the first letter the widget shows (a button's label).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from textual.geometry import Offset, Region
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, OptionList

from kc_tui.ui.table.picking import HandPicking
from kc_tui.ui.widgets import HandView, PileView

if TYPE_CHECKING:
    from textual.app import App

    _App = App[Any]
else:
    _App = object


def _clamped(spot: Offset, region: Region) -> Offset:
    """``spot`` moved into ``region`` (the part of a widget in sight)."""
    return Offset(
        min(max(spot.x, region.x), region.right - 1),
        min(max(spot.y, region.y), region.bottom - 1),
    )


def text_spot(widget: Widget, text: str) -> Offset | None:
    """The screen cell where ``widget`` shows the first cell of ``text`` (its first line that
    holds it; "" : the first letter it shows), or None when it shows nothing of it."""
    content = widget.content_region
    for y in range(content.height):
        line = widget.render_line(y).text
        index = line.find(text) if text else len(line) - len(line.lstrip())
        if 0 <= index < len(line):
            return Offset(content.x + cell_len(line[:index]), content.y + y)
    return None


def _in_sight(widget: Widget) -> Region | None:
    """The part of ``widget`` on the screen now (None: none)."""
    if not (widget.is_attached and widget.display):
        return None
    region = widget.region.intersection(widget.screen.region)
    return region if region.area else None


def picking_spot(screen: HandPicking) -> Offset | None:
    """On a table: the label of the card picked in the hand, of the top card of the pile picked,
    or of the first card of the hand in sight (None: no hand and nothing picked in sight)."""
    look = screen.look
    if screen.source_pile is not None:
        for pile in screen.query(PileView):
            sight = _in_sight(pile)
            if pile.place == screen.source_pile and pile.pile and sight is not None:
                spot = text_spot(pile, look.label(pile.pile[-1]))
                return _clamped(spot or pile.content_region.offset, sight)
    hands = screen.query(HandView)
    hand = hands.first() if hands else None
    if hand is None or not hand.cards or (sight := _in_sight(hand)) is None:
        return None
    shown = hand.shown()
    card = next((c for c in shown if c.card == screen.selected_card), None)
    if card is None:
        card = next((c for c in shown if sight.contains_region(c.region)), shown[0])
    # A card's label is on its second line, after its left edge (:meth:`CardLook.face`).
    spot = Offset(card.region.x + 1, card.region.y + 1)
    drawn = text_spot(hand.row, look.label(card.card))
    if drawn is not None and card.region.contains_point(drawn):
        spot = drawn
    return _clamped(spot, sight)


def focus_spot(screen: Screen[Any]) -> Offset | None:
    """The focused widget's place: an input's cursor, an option list's highlighted option, else
    the first letter it shows (None: nothing focused in sight)."""
    widget = screen.focused
    if widget is None or (sight := _in_sight(widget)) is None:
        return None
    if isinstance(widget, Input):
        return _clamped(widget.cursor_screen_offset, sight)
    spot: Offset | None = None
    if isinstance(widget, OptionList) and (option := widget.highlighted_option) is not None:
        words = str(option.prompt).strip().splitlines()
        spot = text_spot(widget, words[0].strip()) if words else None
    if spot is None:
        spot = text_spot(widget, "")
    return _clamped(spot or widget.content_region.offset, sight)


def reader_spot(screen: Screen[Any]) -> Offset | None:
    """Where a reader looks on ``screen``: what is picked at a table, else the focused widget."""
    if isinstance(screen, HandPicking) and (spot := picking_spot(screen)) is not None:
        return spot
    return focus_spot(screen)


class ReaderCursor(_App):
    """An app (mixed in before Textual's :class:`App`) whose cursor, after each frame, stands
    where :func:`reader_spot` finds it on the screen shown (else where it was put last, as a
    widget of Textual's puts it)."""

    _put_cursor = Offset(0, 0)

    @property
    def cursor_position(self) -> Offset:
        """Where Textual puts the terminal's cursor at the end of a frame."""
        stack = self.screen_stack
        if stack:
            spot = reader_spot(stack[-1])
            if spot is not None:
                return spot
        return self._put_cursor

    @cursor_position.setter
    def cursor_position(self, value: Offset) -> None:
        self._put_cursor = value


__all__ = ["ReaderCursor", "focus_spot", "picking_spot", "reader_spot", "text_spot"]
