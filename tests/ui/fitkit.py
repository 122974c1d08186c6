"""Helpers for "this text is whole on screen": what the screen shows, read line by line from the
compositor's render (the cells the terminal gets), never from a widget's own content."""

from __future__ import annotations

from typing import Any

from rich.style import Style
from textual.app import App
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import Input, Select, Static, Switch

from kc_tui.config import Opponent
from kc_tui.ui.screens.settings import SettingsBody
from kc_tui.ui.widgets import HandView, PileView, TableView
from kc_tui.ui.widgets.footer import Footer, FooterSpot
from kc_tui.ui.widgets.pile import StockView

#: Three expert opponents: the settings screen at its longest (a think time for each).
EXPERTS = tuple(Opponent(f"Ace{i}", "expert", 1000) for i in range(3))


def screen_lines(app: App[Any], widget: Widget | Region | None = None) -> list[str]:
    """What the screen shows, line by line (or only the part of it ``widget`` takes: its
    region, cut to the screen)."""
    strips = app.screen._compositor.render_strips()
    if widget is not None:
        r = widget if isinstance(widget, Region) else widget.region
        r = r.intersection(app.screen.region)
        strips = [strip.crop(r.x, r.right) for strip in strips[r.y : r.bottom]]
    return ["".join(seg.text for seg in strip) for strip in strips]


def styles_showing(app: App[Any], text: str) -> list[Style]:
    """The style of each character of ``text`` where a line of the screen first shows it whole
    (an empty list: no line does)."""
    for strip in app.screen._compositor.render_strips():
        line = "".join(seg.text for seg in strip)
        at = line.find(text)
        if at < 0:
            continue
        styles: list[Style] = []
        for seg in strip:
            styles += [seg.style or Style()] * len(seg.text)
        return styles[at : at + len(text)]
    return []


def click_actions(app: App[Any]) -> list[str]:
    """The actions a click on the screen would run (the ``@click`` of every cell that has one)."""
    found = []
    for strip in app.screen._compositor.render_strips():
        for seg in strip:
            action = seg.style.meta.get("@click") if seg.style is not None else None
            if action:
                found.append(f"{action} on {seg.text!r}")
    return found


def flat(text: str) -> str:
    """``text`` as one line of words (wrapping and padding ignored)."""
    return " ".join(text.split())


def content(widget: Widget) -> str:
    """Everything ``widget`` has to show (its whole content, as one line of words)."""
    return flat(str(widget.render()))


def on_screen(app: App[Any], widget: Widget) -> bool:
    """Whether ``widget`` is shown and wholly inside the screen (nothing of it cut off by the
    screen's edges or by a scrolling parent)."""
    if not widget.display or not widget.is_mounted:
        return False
    region = widget.region
    if not app.screen.region.contains_region(region):
        return False
    for parent in widget.ancestors:
        if isinstance(parent, Widget) and parent.is_scrollable and parent is not app.screen:
            view = parent.region.intersection(parent.scrollable_content_region)
            if view.area and not view.contains_region(region):
                return False
    return True


def shows_whole(app: App[Any], text: str, where: Widget | Region | None = None) -> bool:
    """Whether ``text`` is read whole, in order, on screen (within ``where`` when given): its
    words may wrap over lines, none is cut."""
    return flat(text) in flat(" ".join(screen_lines(app, where)))


def assert_whole(app: App[Any], text: str, where: Widget | Region | None = None) -> None:
    assert shows_whole(app, text, where), f"{flat(text)!r} is not whole on screen:\n" + "\n".join(
        screen_lines(app, where)
    )


def visible_footer(app: App[Any]) -> Footer:
    """The footer on screen: the top screen's, or (under a dialog that has none) the one of the
    screen below it."""
    for screen in reversed(app.screen_stack):
        footers: list[Footer] = list(screen.query(Footer).results(Footer))
        if footers:
            return footers[0]
    raise AssertionError(f"no footer on screen; the screens: {app.screen_stack}")


def footer_keys(app: App[Any]) -> list[FooterSpot]:
    """The keys the footer on screen offers."""
    return visible_footer(app).spots()


def footer_words(app: App[Any]) -> list[str]:
    """The descriptions of the keys the footer on screen shows, in their order, each checked to
    be read on the screen's footer line."""
    footer = visible_footer(app)
    line = flat(" ".join(screen_lines(app, footer)))
    keys = footer.spots()
    for key in keys:
        label = flat(f"{key.key_display} {key.description}")
        assert label in line, f"{label!r} is not on the footer's line: {line!r}"
    return [key.description for key in keys]


def assert_footer_whole(app: App[Any], *wanted: str) -> None:
    """Every key of the footer is wholly on screen and read whole on the footer's line; the
    descriptions ``wanted`` are among them."""
    footer = visible_footer(app)
    line = flat(" ".join(screen_lines(app, footer)))
    keys = footer_keys(app)
    assert keys, "the footer shows no key"
    for key in keys:
        label = flat(f"{key.key_display} {key.description}")
        assert app.screen.region.contains_region(key.region), f"{label!r} is off screen: {line!r}"
        assert label in line, f"{label!r} is not whole in the footer: {line!r}"
    descriptions = {k.description for k in keys}
    missing = [w for w in wanted if w not in descriptions]
    assert not missing, f"the footer lacks {missing}: {line!r}"


async def read_scrolling(pilot: Any, box: Widget, key: str, most: int = 20) -> str:
    """All that ``box`` (a scrolling area) shows as ``key`` scrolls it to its end, each line
    once, as one line of words (its scrollbar left out)."""
    app = pilot.app
    rows: dict[int, str] = {}
    for _ in range(most):
        top = round(box.scroll_y)
        for i, line in enumerate(screen_lines(app, box.scrollable_content_region)):
            rows.setdefault(top + i, line)
        if box.scroll_y >= box.max_scroll_y:
            break
        await pilot.press(key)
        await pilot.pause()
        assert round(box.scroll_y) > top, f"{key} does not scroll on"
    return flat(" ".join(rows[k] for k in sorted(rows)))


def shown(widget: Widget) -> bool:
    """Whether ``widget`` and every node above it is displayed."""
    return all(node.display for node in widget.ancestors_with_self if isinstance(node, Widget))


def texts(app: App[Any]) -> list[Static]:
    """Every text of the settings' fields that is shown (labels, explanations; not a control's own)."""
    out: list[Static] = []
    for w in app.screen.query("#settings-body Static").results(Static):
        if any(isinstance(a, Select | Input | Switch) for a in w.ancestors):
            continue
        if shown(w) and flat(str(w.render())):
            out.append(w)
    return out


async def read_every_text(pilot: Any, app: App[Any]) -> list[str]:
    """Page through the fields with the key the footer shows, reading each text where it is
    wholly in view; the texts never read whole."""
    screen = app.screen
    footer = screen_lines(app)[-1]
    assert "PgDn More" in footer, footer
    body = screen.query_one(SettingsBody)
    pending = {id(w): w for w in texts(app)}
    assert len(pending) > 20
    seen: dict[int, str] = {}
    while True:
        view = body.region.intersection(body.scrollable_content_region)
        for key, w in list(pending.items()):
            if view.contains_region(w.region):
                want = flat(str(w.render()))
                got = flat(" ".join(screen_lines(app, w)))
                if want in got:
                    del pending[key]
                else:
                    seen[key] = got
        if body.scroll_y >= body.max_scroll_y:
            break
        before = body.scroll_y
        await pilot.press("pagedown")
        await pilot.pause()
        assert body.scroll_y > before, "PgDn moves on"
    return [f"{flat(str(w.render()))!r} shows as {seen.get(key)!r}" for key, w in pending.items()]


#: What a card drawn as a card has on screen (its top left corner; an empty place's outline's).
CARD_CORNERS = frozenset("┌╭+")


def place_looks(app: App[Any], table: TableView) -> dict[str, str]:
    """How each place of ``table`` shows on screen, by its id: ``"cards"`` (drawn as cards or
    outlines of cards) or ``"text"`` (its cards in words), read from the screen's cells."""
    looks: dict[str, str] = {}
    for pile in table.query(PileView):
        cells = "".join(screen_lines(app, pile.content_region))
        looks[pile.id or ""] = "cards" if CARD_CORNERS & set(cells) else "text"
    return looks


def stock_drawn(app: App[Any], table: TableView) -> bool:
    """Whether the stock is wholly on screen as a face-down card with its count beside it."""
    stock = table.query_one(StockView)
    cells = "".join(screen_lines(app, stock))
    return on_screen(app, stock) and "▒" in cells and "stock" in cells


def hand_keys(app: App[Any], hand: HandView) -> dict[str, int]:
    """The key written on the top edge of each card of ``hand`` on screen: key → card."""
    out: dict[str, int] = {}
    for shown_card in hand.shown():
        r = shown_card.region
        edge = screen_lines(app, Region(r.x, r.y, r.width, 1))[0]
        key = edge[1:2]
        if key.isdigit():
            out[key] = shown_card.card
    return out
