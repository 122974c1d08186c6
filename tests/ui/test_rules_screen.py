"""The rules screen: the shipped RULES.md, active variants marked, Escape/q close it."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from kc_tui.data import rules_markdown
from kc_tui.engine import Rules
from kc_tui.ui.screens.rules import ACTIVE, RulesScreen, mark_active, rules_document


def test_the_rules_ship_inside_the_package() -> None:
    text = rules_markdown()
    assert "**R8 Play a card from hand onto a pile**" in text
    for key in ("layout_kings", "draw", "completed_piles", "kings_on_sides", "out_with_open_side"):
        assert f"Variant `{key}`" in text


def test_every_variant_marks_exactly_its_active_choice() -> None:
    choices = {
        "layout_kings": ("to_corner", "stay"),
        "draw": ("start", "end", "when_stuck"),
        "completed_piles": ("to_stock", "stay"),
        "kings_on_sides": ("allow", "forbid"),
        "out_with_open_side": ("end", "draw3"),
    }
    text = rules_markdown()
    for key, values in choices.items():
        for value in values:
            marked = mark_active(text, Rules(**{key: value}))
            start = marked.index(f"Variant `{key}`")
            end = marked.find("\n- **R", start)
            block = marked[start:end]
            assert f"`{value}` {ACTIVE}" in block, (key, value)
            for other in values:
                if other != value:
                    assert f"`{other}` {ACTIVE}" not in block, (key, value, other)


def test_the_header_lists_the_current_settings() -> None:
    doc = rules_document(Rules(draw="when_stuck", target=25))
    head = doc[: doc.index("## Cards and notation")]
    assert "`when_stuck` *(house rule)*" in head
    assert "target **25**" in head
    assert "**R15 Penalty points** " + ACTIVE in doc
    chips = rules_document(Rules(scoring="chips", chips_start=70))
    assert "**R16 Chips** " + ACTIVE in chips and "70 chips" in chips


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("under")

    def on_mount(self) -> None:
        self.push_screen(RulesScreen(Rules(kings_on_sides="forbid")))


async def test_the_screen_renders_and_closes_with_escape_or_q() -> None:
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, RulesScreen)
        screen = app.screen
        assert "`forbid` *(house rule)*" in screen.document
        scroll = screen.query_one("#rules-scroll", VerticalScroll)
        assert scroll.has_focus
        await pilot.press("pagedown")
        await pilot.pause()
        assert scroll.scroll_y > 0
        await pilot.press("end")
        await pilot.pause()
        assert scroll.scroll_y == scroll.max_scroll_y
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, RulesScreen)
        app.push_screen(RulesScreen(Rules()))
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
        assert not isinstance(app.screen, RulesScreen)
