"""A hint in words, as the game screen and a remote seat show it."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.screen import Screen

from kc_tui.i18n import _
from kc_tui.ui.table.parts import fit_message, message_lines


def hint_text(keys: list[str], body: str) -> Text:
    """A hint as the message area shows it: the keys that play it, then its words."""
    # Translators: {keys} say the keys of the hint, e.g. "press 3 to play it; h: more".
    head = _("Hint ({keys}): ").format(keys="; ".join(keys)) if keys else _("Hint: ")
    return Text.assemble((head, "bold"), body)


def hint_shown(screen: Screen[Any], key: str | None, body: str) -> Text:
    """A hint as ``screen``'s message area shows it, at the game screen and a remote seat alike:
    the key that plays its first move first (it shows whatever the hint's length), and "h: more"
    when the words are longer than the area."""
    keys = [_("press {key} to play it").format(key=key)] if key is not None else []
    text = hint_text(keys, body)
    if message_lines(screen, text) > fit_message(screen):
        text = hint_text([*keys, _("h: more")], body)
    return text


__all__ = ["hint_shown", "hint_text"]
