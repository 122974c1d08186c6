"""The parts of the table as the game screen and the remote seat lay them out (game.tcss), the
message area's height (:func:`fit_message`), and the notice shown in their place while the
terminal is too small (their CSS hides the ``.table-part`` widgets then and shows it)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from kc_tui.i18n import _
from kc_tui.ui.literal_text import cut, plain
from kc_tui.ui.widgets import HandView, MoveLog, Scoreboard, TableView
from kc_tui.util.printable import name_shown

#: The smallest terminal the table fits in.
MIN_WIDTH = 80
MIN_HEIGHT = 24


def too_small_text(width: int, height: int) -> Text:
    return Text.assemble(
        (_("The terminal is too small for the table.") + "\n\n", "bold"),
        _("Please enlarge it to at least {width}×{height}").format(width=MIN_WIDTH, height=MIN_HEIGHT) + "\n",
        # Translators: the terminal's size now, under "Please enlarge it to at least 80×24".
        (_("(it is {width}×{height} now).").format(width=width, height=height) + "\n\n", "dim"),
        (_("The game is paused and will be here, untouched, when it fits."), "italic"),
        justify="center",
    )


#: The most lines the message area grows to; a longer message scrolls there (the hint says so).
MESSAGE_LINES = 4

#: The cells of a line of the player's label beside the hand (its CSS: 14 wide, padding 1).
LABEL_WIDTH = 12


def seat_label(label: Static, name: str, score: str, last: tuple[str, str]) -> None:
    """Show in ``label`` (the one beside the hand) the player's ``name`` in bold, ``score`` and
    ``last`` (text, style: "your turn", the count of cards), a line each, each cut to the
    label's width: a long name never wraps and pushes the last line out of sight."""
    width = label.content_region.width or LABEL_WIDTH
    text, style = last
    label.update(Text("\n").join([cut(name_shown(name), width, "bold"), cut(score, width), cut(text, width, style)]))


def table_parts(
    table: TableView, hand: HandView, opponents: Iterable[Widget] = (), *, link: Static | None = None
) -> ComposeResult:
    """The opponents' row, the table with the scoreboard and the log beside it, the message area,
    ``link`` (a status line of the connection) when given, then the player's label and hand."""
    with Horizontal(id="opponents", classes="table-part"):
        yield from opponents
    with Horizontal(id="middle", classes="table-part"):
        yield table
        with Vertical(id="side"):
            yield Scoreboard(id="scoreboard")
            yield MoveLog(id="log")
    with VerticalScroll(id="message", classes="table-part") as message:
        message.can_focus = False
        yield Static(id="status")
    if link is not None:
        link.add_class("table-part")
        yield link
    with Horizontal(id="me", classes="table-part"):
        yield Static(id="me-label")
        yield hand


def show_too_small(screen: Screen[Any], width: int, height: int) -> bool:
    """Whether a terminal of ``width`` × ``height`` is too small for the table. When it is, the
    screen shows the notice (made the first time it is needed) in place of the table."""
    small = width < MIN_WIDTH or height < MIN_HEIGHT
    if small:
        text = too_small_text(width, height)
        found = screen.query("#too-small")
        if found:
            found.first(Static).update(text)
        else:
            screen.mount(Static(text, id="too-small"))
    screen.set_class(small, "-too-small")
    return small


def fit_message(screen: Screen[Any]) -> int:
    """Cap the message area (``#message``) at the lines the table can spare
    (:meth:`TableView.spare_lines`), at least 1 and at most :data:`MESSAGE_LINES`: a longer
    message scrolls there, and the table keeps its look whatever the message's length. Returns
    the cap, or 0 for a screen that is gone (a refresh it asked for can come after it was replaced)."""
    if not screen.is_attached or not screen.query("#message") or not screen.query(TableView):
        return 0  # (a screen being taken apart loses its widgets one by one)
    message = screen.query_one("#message", VerticalScroll)
    spare = screen.query_one(TableView).spare_lines()
    room = max(1, min(MESSAGE_LINES, message.outer_size.height + spare))
    cap = message.styles.max_height
    if cap is None or cap.value != room:
        message.styles.max_height = room
    return room


def message_lines(screen: Screen[Any], text: Text) -> int:
    """How many lines ``text`` takes in ``screen``'s message area at the screen's width."""
    width = max(1, screen.size.width - 3)  # its padding and a scrollbar
    return len(text.wrap(screen.app.console, width))


def more_of_message(screen: Screen[Any]) -> bool:
    """Scroll ``screen``'s message area to the message's next lines (from the last, back to the
    first); False when it shows the whole message."""
    message = screen.query_one("#message", VerticalScroll)
    if message.max_scroll_y <= 0:
        return False
    if message.scroll_y >= message.max_scroll_y:
        message.scroll_home(animate=False, immediate=True)
    else:
        message.scroll_page_down(animate=False)
    return True


def say(screen: Screen[Any], text: str | Text, kind: str = "info") -> None:
    """``text`` in ``screen``'s message area (a plain string shown literally), of kind ``info``,
    ``error``, ``hint`` or ``ok``: at most the lines the table can spare (:func:`fit_message`),
    then it scrolls, from its first line."""
    fit_message(screen)
    status = screen.query_one("#status", Static)
    status.update(plain(text) if isinstance(text, str) else text)
    for k in ("info", "error", "hint", "ok"):
        status.set_class(k == kind, f"-{k}")
    screen.query_one("#message", VerticalScroll).scroll_home(animate=False, immediate=True)
