"""The rules screen: the player's guide first, then the shipped RULES.md in a player's words with
the active variants marked; ``t`` shows the contents, Escape/q close it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, cast

from textual.containers import VerticalScroll
from textual.widgets import OptionList

from kc_tui.data import guide_markdown, rules_markdown
from kc_tui.engine import VARIANTS, Rules
from kc_tui.ui.screens.game import GameScreen
from kc_tui.ui.screens.rules import (
    ACTIVE,
    RULES_TITLE,
    RulesScreen,
    mark_active,
    rules_document,
    sections,
)

from .conftest import wait_for
from .fitkit import flat, screen_lines, shows_whole
from .ruleskit import Host, open_contents, rules_screen

PLAYING = Path(__file__).resolve().parents[2] / "docs" / "PLAYING.md"


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
            marked = mark_active(text, Rules(**{key: cast(Any, value)}))
            start = marked.index(f"Variant `{key}`")
            end = marked.find("\n- **R", start)
            block = marked[start:end]
            assert f"`{value}` {ACTIVE}" in block, (key, value)
            for other in values:
                if other != value:
                    assert f"`{other}` {ACTIVE}" not in block, (key, value, other)


def test_the_header_lists_the_current_settings() -> None:
    doc = rules_document(Rules(draw="when_stuck", target=25))
    head = doc[doc.index(f"# {RULES_TITLE}") : doc.index("## Cards and notation")]
    assert "**Drawing** (R6): draw only when stuck *(house rule)*" in head
    assert "**Kings on sides** (R11): a king may fill an empty side\n" in head
    assert "target **25**" in head
    assert "**R15 Penalty points** " + ACTIVE in doc
    chips = rules_document(Rules(scoring="chips", chips_start=70))
    assert "**R16 Chips** " + ACTIVE in chips and "70 chips" in chips


def split(doc: str) -> tuple[str, str]:
    """The guide part and the exact rules part of the screen's document."""
    at = doc.index(f"# {RULES_TITLE}")
    return doc[:at], doc[at:]


def test_the_guide_comes_first_in_a_players_words() -> None:
    doc = rules_document(Rules())
    guide, exact = split(doc)
    assert guide.startswith("# How to play Kings Corners")
    first_rule = doc.index("**R1 ")
    for heading in ("## The aim", "## A turn, step by step", "## Scoring", "## An example table", "## The keys"):
        assert guide.count(heading + "\n") == 1, heading
        assert doc.index(heading) < first_rule, heading
    assert "**R8 Play a card from hand onto a pile**" in exact
    lowered = guide.lower()
    assert "project choice" not in lowered and "seed" not in lowered and "must exist" not in lowered
    for v in VARIANTS:
        assert not re.search(rf"\b{v.key}\b", guide) or v.key in ("draw", "target", "scoring"), v.key
        assert f"`{v.key}`" not in guide, v.key
    assert not re.search(r"\bR\d+\b", guide), "no rule ids in the guide's prose"
    # The drawn example: a fenced block with the cross, the corners and the stock, and its reading.
    block = re.search(r"```text\n(.*?)```", guide, flags=re.S)
    assert block is not None
    table = block.group(1)
    for place in ("NW", "N (w)", "NE", "W (a)", "E (d)", "SW", "S (x)", "SE", "stock"):
        assert place in table, place
    assert "K♠" in table and "K♢" in table
    assert "North ends in 8♣: it takes a red 7" in guide


def test_the_guide_states_the_default_game() -> None:
    guide = guide_markdown()
    default = Rules()
    assert default.target == 50 and "(50, or what you set)" in guide
    assert "**10 for each king, 1 for any other card**" in guide
    assert "**lowest total wins**" in guide and "**chips**" in guide
    assert default.hand_size == 7 and "seven cards" in guide
    # The keys it names are the game's keys.
    keys = {b.key for b in GameScreen.BINDINGS if not isinstance(b, tuple)}
    for key in ("left", "w", "t", "u", "h", "p", "r,f1", "question_mark", "escape"):
        assert key in keys, key
    for shown in ("`t` end your turn", "`u` undo", "`h` hint", "`r` or `F1`", "`?` all the keys"):
        assert shown in guide, shown


def test_a_table_with_house_rules_is_told_so_in_the_guide() -> None:
    guide, _ = split(rules_document(Rules(draw="end", target=25)))
    assert "house rules: draw after playing; a target of 25" in guide
    assert "house rules" not in split(rules_document(Rules()))[0].split("## The aim")[0]


def test_the_exact_rules_are_shown_without_setting_keys_or_source_notes() -> None:
    _, exact = split(rules_document(Rules(scoring="chips")))
    assert "project choice" not in exact and "must exist" not in exact
    assert not re.search(r"\b00[0-3]\b|\bseeds?\b", exact)
    for v in VARIANTS:
        assert not re.search(rf"`{v.key}( = \w+)?`", exact), v.key
    assert "In Settings, **Kings in the layout**:" in exact
    assert "`to_corner` " + ACTIVE + " (default):" in exact
    assert "**R16 Chips** " + ACTIVE in exact
    assert "*Pay per card* on (default off)" in exact
    # Every rule of RULES.md is still there, under its heading.
    for rule in re.findall(r"\*\*(R\d+ [^*]+)\*\*", rules_markdown()):
        assert f"**{rule}**" in exact, rule
    # The defaults, in the titles of Settings.
    defaults = exact[exact.index("## Defaults in one place") :]
    assert "- **Target score** (R15): 50" in defaults and "- **Players** (R1): 2 to 4" in defaults


def test_the_document_is_cut_at_its_headings() -> None:
    parts = sections(rules_document(Rules()))
    titles = [p.title for p in parts]
    assert titles[0] == "How to play Kings Corners" and parts[0].level == 1
    assert titles.index("The aim") < titles.index(RULES_TITLE) < titles.index("Scoring and the match")
    assert [p.title for p in parts if p.level == 1] == ["How to play Kings Corners", RULES_TITLE]
    example = parts[titles.index("An example table")].markdown
    assert "```text" in example and example.count("```") == 2, "a code block is never cut"


def test_the_players_doc_tells_what_t_does_on_the_rules_screen() -> None:
    text = " ".join(PLAYING.read_text(encoding="utf-8").split())
    sentence = text[text.index("**Rules** (`r`") :]
    sentence = sentence[: sentence.index(" closes it.")]
    assert "`t` shows the contents" in sentence
    assert any(b.key == "t" and b.action == "contents" for b in RulesScreen.BINDINGS if not isinstance(b, tuple))


async def test_the_screen_renders_and_closes_with_escape_or_q() -> None:
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, RulesScreen)
        screen = app.screen
        assert "kings only ever start corners *(house rule)*" in screen.document
        assert "`forbid` " + ACTIVE in screen.document
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


def _visible(screen: RulesScreen, index: int) -> bool:
    scroll = screen.query_one("#rules-scroll", VerticalScroll)
    part = screen.part(index)
    return scroll.region.contains_point(part.region.offset)


async def test_t_opens_the_contents_and_a_choice_scrolls_there() -> None:
    app = Host(Rules(draw="when_stuck"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = rules_screen(app)
        scroll = screen.query_one("#rules-scroll", VerticalScroll)
        assert scroll.scroll_y == 0 and _visible(screen, 0)
        options = (await open_contents(pilot)).query_one(OptionList)
        titles = [str(options.get_option_at_index(i).prompt).strip() for i in range(options.option_count)]
        assert titles == [p.title for p in screen.parts]
        target = titles.index("A turn")
        for _ in range(target):
            await pilot.press("down")
        await pilot.press("enter")
        await pilot.pause()
        assert rules_screen(app) is screen
        assert scroll.scroll_y > 0
        assert scroll.scroll_y == screen.part(target).virtual_region.y
        assert _visible(screen, target) and not _visible(screen, 0)
        assert screen.current_part() == target
        # The marks are on the screen's text as before.
        assert "`when_stuck` " + ACTIVE in screen.parts[target].markdown

        # Opened again, the contents start at the part in view; Escape closes them and stays.
        assert (await open_contents(pilot)).query_one(OptionList).highlighted == target
        await pilot.press("escape")
        await pilot.pause()
        assert rules_screen(app) is screen and scroll.scroll_y == screen.part(target).virtual_region.y

        # The mouse: a click on the first entry goes back to the top.
        options = (await open_contents(pilot)).query_one(OptionList)
        options.scroll_home(animate=False)
        await pilot.pause()
        assert await pilot.click(OptionList, offset=(3, 1))  # under the border
        await pilot.pause()
        assert rules_screen(app) is screen
        assert scroll.scroll_y == 0


async def test_a_tiny_terminal_does_not_crash() -> None:
    app = Host(Rules(scoring="chips"))
    async with app.run_test(size=(40, 12)) as pilot:
        await pilot.pause()
        screen = rules_screen(app)
        await pilot.press("pagedown", "end")
        await open_contents(pilot)
        await pilot.press("end", "enter")
        await pilot.pause()
        assert rules_screen(app) is screen
        scroll = screen.query_one("#rules-scroll", VerticalScroll)
        last = len(screen.parts) - 1
        assert scroll.scroll_y == screen.part(last).virtual_region.y > 0
        assert screen.current_part() == last
        await pilot.press("q")
        await pilot.pause()
        assert not isinstance(app.screen, RulesScreen)


async def test_a_setting_as_a_condition_reads_as_a_sentence() -> None:
    app = Host(Rules())
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        screen = rules_screen(app)
        index = next(i for i, p in enumerate(screen.parts) if p.title.startswith("Things people get wrong"))
        screen.part(index).scroll_visible(animate=False, top=True)
        sentence = (
            "A king in hand can go to an empty corner, or to an empty side while Kings on sides is set to"
            " “a king may fill an empty side”; no other card ever goes to a corner."
        )
        await wait_for(pilot, lambda: shows_whole(app, sentence, screen.part(index)))
        assert "while Kings on sides:" not in flat(" ".join(screen_lines(app)))
