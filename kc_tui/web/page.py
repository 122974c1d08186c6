"""The pages ``kings-corners serve`` answers: the app's page (textual-serve's terminal, made for
a screen reader) and the plain page (the plain mode's lines, :mod:`kc_tui.web.bridge`).

Both are templates of this package (``templates/``), in the player's language (``<html lang>``,
every word on them translated), each with a link to the other one. The app's page runs
textual-serve's page script with one change: its terminal is made with xterm.js'
``screenReaderMode`` on, so the terminal keeps an accessibility tree of its rows and a live
region a screen reader reads (:func:`reader_script`). The script is changed by one exact
replacement, checked: a textual-serve whose script is not the one expected is refused when serve
starts, in one line (:class:`PageError`), rather than served without the screen reader's mode.

Only ``kings-corners serve`` imports this module (it loads aiohttp's templates).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from kc_tui.i18n import _, current
from kc_tui.util.files import describe_os_error

#: This package's page templates.
TEMPLATES = Path(__file__).resolve().parent / "templates"
APP_PAGE = "app.html"
PLAIN_PAGE = "plain.html"
#: Where the app's page and the plain page are served.
APP_PATH = "/"
PLAIN_PATH = "/plain"
#: Where the plain page's WebSocket is served.
PLAIN_SOCKET_PATH = "/plain/ws"
#: Where the changed page script is served.
SCRIPT_PATH = "/page/textual.js"
#: textual-serve's page script, in its static folder.
SCRIPT_NAME = "js/textual.js"
#: Where textual-serve's page script makes its terminal (the instance kept, the options opened),
#: in textual-serve 1.1's build: exactly once.
TERMINAL_MADE = re.compile(r"this\.terminal=new [A-Za-z_$][\w$]*\.Terminal\(\{")
#: The option added first among the terminal's options.
READER_OPTION = "screenReaderMode:!0,"
#: The longest line the plain page sends (characters): the plain mode reads nothing longer.
LINE_MAX = 200
#: The game's name, the title of both pages.
TITLE = "Kings Corners"


class PageError(Exception):
    """textual-serve's page script cannot be changed as this module knows how; one line."""


def reader_script(script: str) -> str:
    """textual-serve's page ``script`` with its terminal made in the screen reader's mode;
    :class:`PageError` when the place it makes the terminal is not found exactly once."""
    found = TERMINAL_MADE.findall(script)
    if len(found) != 1:
        raise PageError(
            _(
                "textual-serve's page script is not one this version knows (it does not make its"
                " terminal where this version looks): install the textual-serve this version names"
            )
        )
    made = found[0]
    return script.replace(made, made + READER_OPTION, 1)


def load_reader_script(statics: Path) -> bytes:
    """The page script of textual-serve's static folder ``statics``, changed (:func:`reader_script`),
    as UTF-8; :class:`PageError` when it cannot be read or changed."""
    try:
        script = (statics / SCRIPT_NAME).read_text(encoding="utf-8")
    except OSError as exc:
        raise PageError(
            _("textual-serve's page script cannot be read: {reason}").format(reason=describe_os_error(exc))
        ) from None
    except UnicodeDecodeError:
        raise PageError(_("textual-serve's page script cannot be read: it is not UTF-8 text")) from None
    return reader_script(script).encode("utf-8")


def page_words() -> dict[str, str]:
    """What both pages say, in the language in use."""
    return {
        "lang": current(),
        "title": TITLE,
        # Translators: a link on the browser's page to the game as lines of text, for a screen
        # reader or a braille display.
        "plain_link": _("Plain text mode (for screen readers)"),
        # Translators: a link on the plain page back to the game's usual page (its table drawn).
        "app_link": _("Full screen mode (the table drawn)"),
    }


def app_context(font_size: int, websocket_url: str, static_url: str) -> dict[str, Any]:
    """The app's page's values: textual-serve's (the terminal's font size, its WebSocket, the
    static files) and the page's words."""
    return {
        **page_words(),
        "font_size": font_size,
        "app_websocket_url": websocket_url,
        "config": {"static": {"url": static_url}},
        "script_url": SCRIPT_PATH,
        "plain_url": PLAIN_PATH,
        # Translators: said on the browser's page while the app starts.
        "start": _("Start"),
        # Translators: said on the browser's page when the tab's app has ended.
        "ended": _("Session ended."),
        # Translators: a button on the browser's page that starts the app again.
        "restart": _("Restart"),
    }


def plain_context() -> dict[str, Any]:
    """The plain page's values: its words and its limits."""
    return {
        **page_words(),
        "app_url": APP_PATH,
        "socket_path": PLAIN_SOCKET_PATH,
        "line_max": LINE_MAX,
        # Translators: the heading of the plain page: the game as lines of text.
        "heading": _("Kings Corners in plain text"),
        # Translators: the name a screen reader gives the plain page's lines of the game.
        "log_label": _("The game"),
        # Translators: the label of the plain page's line to type a move or a command in.
        "input_label": _("Your move or command"),
        # Translators: the button that sends the typed line.
        "send": _("Send"),
        # Translators: said on the plain page when its game has ended (the tab's process ended).
        "ended": _("The game has ended. Reload the page to start again."),
        # Translators: said on the plain page when a typed line is longer than {most} characters.
        "too_long": _("Not sent: a line is at most {most} characters.").format(most=LINE_MAX),
    }


__all__ = [
    "APP_PAGE",
    "LINE_MAX",
    "PLAIN_PAGE",
    "PLAIN_PATH",
    "PLAIN_SOCKET_PATH",
    "SCRIPT_PATH",
    "TEMPLATES",
    "PageError",
    "app_context",
    "load_reader_script",
    "page_words",
    "plain_context",
    "reader_script",
]
