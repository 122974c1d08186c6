"""Text from a player or a file, shown literally: the one way the UI turns data into text.

Names, AI kinds, file paths, and messages that quote them are *data*. Textual and Rich parse a
plain ``str`` as markup almost everywhere (``Static``, ``Label``, ``Button``, border titles,
toasts, Rich tables), so a name like ``[/]`` would crash the app and ``[@click=app.quit]x[/]``
would become a clickable action. Every piece of text that is not a literal written in this
package goes through one of these helpers instead:

- :func:`plain`: a whole string shown as it is (a Textual ``Content``, never parsed);
- :func:`fill`: markup written *here*, with ``$name`` slots filled in literally;
- :func:`rich_plain`: the same as :func:`plain` for Rich renderables (``Table`` cells).

Control characters (escape sequences, newlines, bidi overrides) are shown as visible escapes,
so a file cannot move the cursor, recolour the terminal or split a line.
``tests/ui/test_text_is_data.py`` checks that the UI never formats text into markup by hand.
"""

from __future__ import annotations

import unicodedata

from rich.text import Text
from textual.content import Content

__all__ = ["fill", "plain", "rich_plain", "visible"]


def _escape(ch: str) -> str:
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def visible(value: object, *, newlines: bool = False) -> str:
    """``value`` as a string with control and format characters (``\\x1b``, ``\\x00``, ``\\r``,
    U+202E, ...) written as escapes; ``\\n`` is kept only when ``newlines`` is true."""
    text = value if isinstance(value, str) else str(value)
    if text.isprintable():
        return text
    out = []
    for ch in text:
        if ch.isprintable() or (ch == "\n" and newlines) or (ch == " "):
            out.append(ch)
        elif unicodedata.category(ch) == "Zs":
            out.append(" ")
        else:
            out.append(_escape(ch))
    return "".join(out)


def plain(value: object, style: str = "", *, newlines: bool = False) -> Content:
    """``value`` as literal Textual content (optionally in one ``style``): never markup."""
    content = Content(visible(value, newlines=newlines))
    return content.stylize(style) if style else content


def fill(markup: str, **values: object) -> Content:
    """Markup written in this package with ``$name`` slots; each value is inserted literally.

    ``fill("[b]$name[/b] went out", name=player)`` is bold whatever ``player`` holds.
    """
    return Content.from_markup(markup, **{k: plain(v) for k, v in values.items()})


def rich_plain(value: object, style: str = "") -> Text:
    """``value`` as a literal Rich ``Text`` (for Rich tables and renderables): never markup."""
    return Text(visible(value), style=style)
