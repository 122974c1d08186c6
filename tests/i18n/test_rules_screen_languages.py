"""The rules screen in every language the game speaks: the guide and the rules of that language
(GUIDE.<code>.md, RULES.<code>.md), read in a player's words as the English ones are (setting
titles for keys, no notes about the sources, the choice in use marked), whole on screen at 80×24
and 120×40, with its contents, Home and End working."""

from __future__ import annotations

import re
from typing import Any, cast

import pytest
from textual.containers import VerticalScroll
from textual.widgets import OptionList

from kc_tui.data import guide_markdown, has_translation, rules_markdown
from kc_tui.data.rules_words import WORDS, rules_words
from kc_tui.engine import VARIANTS, Rules
from kc_tui.engine.rules import SCORING
from kc_tui.i18n import _, use
from kc_tui.ui.screens.rules import ACTIVE, HOUSE_RULE, RULES_TITLE, VARIANT_ORDER, rules_document, sections
from tests.ui.fitkit import screen_lines
from tests.ui.ruleskit import (
    Host,
    footer_whole,
    markdown_texts,
    open_contents,
    read_document,
    rules_screen,
    seen,
    squeezed,
)

LANGUAGES = ("en", "sw", "th", "vi", "it")
TRANSLATED = ("sw", "th", "vi", "it")
SIZES = ((80, 24), (120, 40))
#: The first section of the exact rules, in each language (docs/GLOSSARY.md).
CARDS = {
    "en": "Cards and notation",
    "sw": "Karata na uandishi wake",
    "th": "ไพ่และการเขียน",
    "vi": "Lá bài và cách ghi",
    "it": "Carte e notazione",
}
#: Every word-valued variant's choices other than its default, and chips for the scoring.
NOT_DEFAULT = [(v.key, c.value) for v in VARIANT_ORDER for c in v.choices if c.value != v.default]


def titles_of(markdown: str) -> list[str]:
    """The headings (``#`` and ``##``) of a Markdown file, outside its code blocks, without marks."""
    out: list[str] = []
    fenced = False
    for line in markdown.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and (m := re.match(r"#{1,2} (.+)", line)):
            out.append(re.sub(r"[*`]", "", m.group(1)).strip())
    return out


def rule_names(markdown: str) -> list[str]:
    """The bold names of the rules: ``R8 Play a card from hand onto a pile``."""
    return re.findall(r"\*\*(R\d+ [^*\n]+)\*\*", markdown)


def exact_part(document: str) -> str:
    """The exact rules: the screen's document from its second title on."""
    return document[document.index(f"\n# {_(RULES_TITLE)}\n") :]


def mark() -> str:
    """The active mark as the screen shows it (no Markdown, no Thai break marks)."""
    return seen(_(ACTIVE).strip("*"))


def variant_block(exact: str, key: str) -> str:
    """The choices of variant ``key`` in the exact rules: from the title that stands for its key
    to the end of its rule."""
    v = next(v for v in VARIANTS if v.key == key)
    head = rules_words().variant_head.format(title=_(v.title))
    start = exact.index(head)
    ends = [i for i in (exact.find("\n- **R", start), exact.find("\n## ", start)) if i >= 0]
    return exact[start : min(ends, default=len(exact))]


@pytest.mark.parametrize("code", TRANSLATED)
def test_every_translation_of_the_rules_has_its_words(code: str) -> None:
    assert has_translation("RULES", code) and code in WORDS
    use(code)
    assert rules_words() is WORDS[code]
    words, rules = WORDS[code], rules_markdown()
    assert f"{words.variant} `" in rules
    for said, _shown in words.rewrites:
        assert re.search(r"\s+".join(map(re.escape, said.split())), rules), said


@pytest.mark.parametrize("code", TRANSLATED)
def test_the_document_holds_the_languages_guide_and_rules(code: str) -> None:
    use(code)
    document = rules_document(Rules())
    parts = sections(document)
    titles = [p.title for p in parts]
    guide, rules = guide_markdown(), rules_markdown()
    assert guide != guide_markdown("en") and rules != rules_markdown("en")
    assert titles[0] == titles_of(guide)[0] and parts[0].level == 1
    for heading in titles_of(guide)[1:]:
        assert heading in titles, heading
    # The rules' own title and the note closing the last heading are left out, as in English.
    for heading in titles_of(rules)[1:]:
        assert re.sub(r" \([^()]*\)$", "", heading) in titles, heading
    assert CARDS[code] in titles and [p.title for p in parts if p.level == 1][1] == _(RULES_TITLE)
    english = set(titles_of(guide_markdown("en")) + titles_of(rules_markdown("en")))
    translated = set(titles_of(guide) + titles_of(rules))
    assert not [t for t in titles if t in english and t not in translated], "an English heading"
    for name in rule_names(rules):
        assert f"**{name}**" in document, name


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_rules_read_in_a_players_words(code: str) -> None:
    use(code)
    words = WORDS[code]
    exact = exact_part(rules_document(Rules(scoring="chips")))
    for v in VARIANTS:
        assert not re.search(rf"`{v.key}( = \w+)?`", exact), v.key
    assert f"{words.variant} `" not in exact
    for v in VARIANT_ORDER:
        assert words.variant_head.format(title=_(v.title)) in exact, v.key
    # No note about the sources or the project's choices, by word or by number.
    for word in words.source_words:
        found = re.search(rf"\b{word}\b" if words.spaced else word, exact, flags=re.I)
        assert found is None, (word, exact[max(0, found.start() - 80) : found.end() + 80])
    assert not re.search(r"(?<!\d)00[0-3](?!\d)", exact)
    for said, shown in words.rewrites:
        assert seen(said) not in seen(exact), said
        assert "`" in shown or shown in exact, shown  # a setting in it is in its title's words
    # Every rule, under its name in the language.
    for name in rule_names(rules_markdown()):
        assert f"**{name}**" in exact, name
    assert not re.search(r"\*\*R15 [^*]+\*\* " + re.escape(_(ACTIVE)), exact)


@pytest.mark.parametrize("code", LANGUAGES)
@pytest.mark.parametrize(("key", "value"), NOT_DEFAULT)
def test_every_variant_marks_the_choice_in_use(code: str, key: str, value: str) -> None:
    use(code)
    document = rules_document(Rules(**{key: cast(Any, value)}))
    exact = exact_part(document)
    v = next(v for v in VARIANT_ORDER if v.key == key)
    block = variant_block(exact, key)
    assert f"`{value}` {_(ACTIVE)}" in block, block
    for other in v.values:
        if other != value:
            assert f"`{other}` {_(ACTIVE)}" not in block, (other, block)
    # The table's settings say it is a house rule, in the Settings screen's words.
    assert f"- **{_(v.title)}** ({v.rule}): {v.label(value)}{_(HOUSE_RULE)}" in exact
    # The other variants mark their defaults.
    for w in VARIANT_ORDER:
        if w is not v:
            assert f"`{w.default}` {_(ACTIVE)}" in variant_block(exact, w.key), w.key


@pytest.mark.parametrize("code", LANGUAGES)
def test_chips_are_marked_on_their_rule(code: str) -> None:
    use(code)
    names = dict(name.split(" ", 1) for name in rule_names(rules_markdown()))
    exact = exact_part(rules_document(Rules(scoring="chips")))
    assert f"**R16 {names['R16']}** {_(ACTIVE)}" in exact
    assert f"**R15 {names['R15']}** {_(ACTIVE)}" not in exact
    points = exact_part(rules_document(Rules()))
    assert f"**R15 {names['R15']}** {_(ACTIVE)}" in points
    assert f"**R16 {names['R16']}** {_(ACTIVE)}" not in points
    assert f"- **{_(SCORING.title)}** (R16): " in exact


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_mark_is_the_one_the_guide_names(code: str) -> None:
    use(code)
    assert mark() in seen(guide_markdown())
    head = exact_part(rules_document(Rules()))
    assert seen(_(ACTIVE)) in seen(head[: head.index(f"## {CARDS[code]}")])


RULES_ON_SCREEN = Rules(draw="when_stuck", scoring="chips", kings_on_sides="forbid")


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("code", LANGUAGES)
async def test_the_screen_shows_all_of_it_whole(code: str, size: tuple[int, int]) -> None:
    use(code)
    app = Host(RULES_ON_SCREEN)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = rules_screen(app)
        top = seen(" ".join(screen_lines(app)[:3]))
        assert seen(_(screen.SUB_TITLE)) in top, top
        footer_whole(app)
        shown = squeezed(await read_document(pilot, screen))
        missing = [
            text for part in screen.parts for text in markdown_texts(part.markdown) if squeezed(text) not in shown
        ]
        assert not missing, missing
        assert squeezed(f"when_stuck {mark()}") in shown and squeezed(f"forbid {mark()}") in shown
        assert squeezed(CARDS[code]) in shown
        footer_whole(app)


def index_of(titles: list[str], title: str) -> int:
    return [seen(t) for t in titles].index(seen(title))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("code", LANGUAGES)
async def test_the_contents_home_and_end_work(code: str, size: tuple[int, int]) -> None:
    use(code)
    app = Host(RULES_ON_SCREEN)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = rules_screen(app)
        scroll = screen.query_one("#rules-scroll", VerticalScroll)
        dialog = await open_contents(pilot)
        options = dialog.query_one(OptionList)
        prompts = [str(options.get_option_at_index(i).prompt).strip() for i in range(options.option_count)]
        assert [seen(p) for p in prompts] == [seen(p.title) for p in screen.parts]
        for where, text in (
            ("#contents-title", _("Contents")),
            ("#contents-foot", _("Enter or a click jumps there · Esc closes")),
        ):
            assert seen(text) in seen(" ".join(screen_lines(app, dialog.query_one(where)))), text
        # Each heading is read whole in the contents when it is the one highlighted.
        for i, prompt in enumerate(prompts):
            assert options.highlighted == i
            assert seen(prompt) in seen(" ".join(screen_lines(app, options))), prompt
            if i < len(prompts) - 1:
                await pilot.press("down")
        await pilot.press("home")
        await pilot.pause()
        # "A turn": the second section of the rules.
        target = index_of(prompts, titles_of(rules_markdown())[3])
        for _step in range(target):
            await pilot.press("down")
        await pilot.press("enter")
        await pilot.pause()
        assert rules_screen(app) is screen
        assert scroll.scroll_y == min(screen.part(target).virtual_region.y, scroll.max_scroll_y) > 0
        assert screen.current_part() == target
        view = seen(" ".join(screen_lines(app, scroll)))
        assert seen(screen.parts[target].title) in view, view
        assert (await open_contents(pilot)).query_one(OptionList).highlighted == target
        await pilot.press("escape")
        await pilot.pause()
        assert rules_screen(app) is screen
        await pilot.press("end")
        await pilot.pause()
        assert scroll.scroll_y == scroll.max_scroll_y > 0
        await pilot.press("home")
        await pilot.pause()
        assert scroll.scroll_y == 0
        await pilot.press("q")
        await pilot.pause()
        assert app.screen is not screen
