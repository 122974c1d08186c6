"""The rules screen for the UI tests: an app that shows it, its contents dialog, what its
Markdown says as plain text, and what the screen shows of it, in any language."""

from __future__ import annotations

import re
from typing import Any

from markdown_it import MarkdownIt
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.pilot import Pilot
from textual.widgets import Static

from kc_tui.engine import Rules
from kc_tui.ui import linebreak
from kc_tui.ui.screens.rules import ContentsDialog, RulesScreen

from .fitkit import screen_lines, visible_footer

ZWSP = "\u200b"
#: What the screen draws around a text and not of it: the bar of a quote.
_DECORATION = re.compile(rf"[\s{ZWSP}▌]+")


class Host(App[None]):
    """The rules screen for ``rules`` over a plain screen, with the game's line breaking."""

    def __init__(self, rules: Rules | None = None) -> None:
        super().__init__()
        linebreak.install(self)
        self.rules = rules or Rules(kings_on_sides="forbid")

    def compose(self) -> ComposeResult:
        yield Static("under")

    def on_mount(self) -> None:
        self.push_screen(RulesScreen(self.rules))


def rules_screen(app: App[Any]) -> RulesScreen:
    screen = app.screen
    assert isinstance(screen, RulesScreen), screen
    return screen


async def open_contents(pilot: Pilot[Any]) -> ContentsDialog:
    """Press ``t`` on the rules screen: the contents open."""
    await pilot.press("t")
    await pilot.pause()
    dialog = pilot.app.screen
    assert isinstance(dialog, ContentsDialog), dialog
    return dialog


def seen(text: str) -> str:
    """``text`` as the screen shows it: a Thai word break takes no cell, and lines are flat."""
    return " ".join(text.replace(ZWSP, "").split())


def squeezed(text: str) -> str:
    """``text`` without its spaces, line breaks, Thai break marks and quote bars: what is left
    of a text however the screen wraps it."""
    return _DECORATION.sub("", text)


def markdown_texts(markdown: str) -> list[str]:
    """The texts a Markdown document shows, as plain text: each paragraph, list item and
    heading (its emphasis and code marks left out), and each line of a code block."""
    out: list[str] = []
    for token in MarkdownIt("commonmark").parse(markdown):
        if token.type == "inline":
            pieces = []
            for child in token.children or []:
                if child.type in ("text", "code_inline"):
                    pieces.append(child.content)
                elif child.type in ("softbreak", "hardbreak"):
                    pieces.append(" ")
            out.append("".join(pieces))
        elif token.type in ("fence", "code_block"):
            out += [line for line in token.content.splitlines() if line.strip()]
    return [text for text in out if text.strip()]


async def read_document(pilot: Pilot[Any], screen: RulesScreen) -> str:
    """All the rules screen shows as PgDn scrolls it from the top to its end, each line once."""
    scroll = screen.query_one("#rules-scroll", VerticalScroll)
    app = pilot.app
    scroll.scroll_home(animate=False)
    await pilot.pause()
    rows: dict[int, str] = {}
    for _ in range(500):
        top = round(scroll.scroll_y)
        for i, line in enumerate(screen_lines(app, scroll.scrollable_content_region)):
            rows.setdefault(top + i, line)
        if scroll.scroll_y >= scroll.max_scroll_y:
            break
        await pilot.press("pagedown")
        await pilot.pause()
        assert round(scroll.scroll_y) > top, "PgDn scrolls on"
    return "\n".join(rows[k] for k in sorted(rows))


def footer_whole(app: App[Any]) -> None:
    """Every key of the footer on screen is inside the screen and read whole on its line."""
    footer = visible_footer(app)
    line = seen(" ".join(screen_lines(app, footer)))
    keys = footer.spots()
    assert keys
    for key in keys:
        assert app.screen.region.contains_region(key.region), (key.description, line)
        assert seen(f"{key.key_display} {key.description}") in line, (key.description, line)
