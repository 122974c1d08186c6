"""Every language the game speaks at 80x24, screen by screen: a round's summary and the match's,
the keys page and the quit question over the table, the settings scrolled through, and every tab
of the Stats screen over a history. Each text, button, table cell and plot title is read whole on
the screen where it is drawn (a longer word wraps, never runs off its place or into its
neighbour), every key of the footer is whole."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.cells import cell_len
from textual.containers import VerticalScroll
from textual.widgets import Header, Label, OptionList, Select, Static, Tab

from kc_tui.config import Config, Opponent
from kc_tui.engine import Rules
from kc_tui.i18n import _, use
from kc_tui.records.stats_shown import NO_RATING, RESULTS, result_word
from kc_tui.records.store import History
from kc_tui.ui.dialogs.confirm import QuitDialog
from kc_tui.ui.dialogs.help import KEYS, MARKS, HelpDialog
from kc_tui.ui.dialogs.help import shown as translated
from kc_tui.ui.dialogs.summary import RATING_PENDING, MatchSummary, RoundSummary
from kc_tui.ui.screens.rules import ContentsDialog, RulesScreen
from kc_tui.ui.screens.settings import SettingsBody
from kc_tui.ui.screens.stats import EMPTY, MATCH_COLUMNS, MatchList
from kc_tui.ui.widgets.plot import LegendPlot
from tests.i18n.layoutkit import (
    LANGUAGES,
    SMALL,
    RulesHost,
    cropped,
    cut,
    cut_plot_words,
    cut_scrolling,
    footer_ready,
    footer_whole,
    reads,
    scrolled,
    seen,
    seen_in,
    seen_lines,
    view_of,
    whole,
)
from tests.ui.conftest import wait_for
from tests.ui.fitkit import EXPERTS, on_screen, shown
from tests.ui.gamekit import TWO_ROUNDS, SettingsHost, make_config, play_app, play_until, settle, until_gone
from tests.ui.statskit import StatsHost, full_history, loaded

pytestmark = pytest.mark.usefixtures("fixed_world")


# ---------------------------------------------------------------------------- the summaries
@pytest.mark.parametrize("code", LANGUAGES)
async def test_a_round_summary_and_the_match_summary_are_whole_at_80x24(code: str) -> None:
    use(code)
    app = play_app(config=make_config(rules=TWO_ROUNDS))
    async with app.run_test(size=SMALL) as pilot:
        summary = await play_until(pilot, RoundSummary)
        await footer_ready(pilot)
        assert seen(_("Continue")) in seen_in(app, summary.query_one("#continue"))
        whole(app, summary)
        footer_whole(app)
        summary.action_close()
        match = await play_until(pilot, MatchSummary)
        await wait_for(pilot, lambda: match.rating not in (None, RATING_PENDING), what="the rating line")
        await pilot.pause()
        await footer_ready(pilot)
        assert seen(match.rating or "") in seen_in(app, match.query_one("#rating"))
        assert len(match.query("Button")) == 3
        whole(app, match)
        footer_whole(app)


#: Four seats under chips (R16): the round summary at its widest (five columns of chips) and tallest.
CHIPS = make_config(
    opponents=(Opponent("Greedy", "greedy"), Opponent("Kingsley", "king-aware"), Opponent("Bob", "greedy")),
    rules=Rules(scoring="chips"),
)


@pytest.mark.parametrize("code", LANGUAGES)
async def test_a_chips_round_summary_of_four_seats_is_whole_at_80x24(code: str) -> None:
    use(code)
    app = play_app(config=CHIPS)
    async with app.run_test(size=SMALL) as pilot:
        summary = await play_until(pilot, RoundSummary)
        await footer_ready(pilot)
        assert len(summary.query_one("#body", Static).content.columns) >= 6
        whole(app, summary)
        footer_whole(app)


# ---------------------------------------------------------------------------- the keys and quit
@pytest.mark.parametrize("code", LANGUAGES)
async def test_the_keys_page_and_the_quit_question_are_whole_at_80x24(code: str) -> None:
    use(code)
    app = play_app()
    async with app.run_test(size=SMALL) as pilot:
        game = await settle(pilot)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpDialog))
        await footer_ready(pilot)
        footer_whole(app)
        body = app.screen.query_one(VerticalScroll)
        rows = {f"{translated(keys)} {translated(what)}" for keys, what in (*KEYS, *MARKS)}
        rows |= {_("Keys and mouse"), _("What the marks mean")}
        async for view in scrolled(pilot, body):
            rows -= {row for row in rows if reads(row, seen_in(app, view))}
        assert not rows, rows
        help_page = app.screen
        await pilot.press("escape")
        await until_gone(pilot, help_page)
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: isinstance(app.screen, QuitDialog))
        await footer_ready(pilot)
        assert app.screen.query_one("#saved")
        whole(app, app.screen)
        footer_whole(app)
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is game)


# ---------------------------------------------------------------------------- the settings
@pytest.mark.parametrize("code", LANGUAGES)
async def test_every_setting_and_its_value_are_whole_at_80x24(code: str) -> None:
    use(code)
    app = SettingsHost(Config(opponents=EXPERTS))
    async with app.run_test(size=SMALL) as pilot:
        await footer_ready(pilot)
        footer_whole(app)
        screen = app.screen
        body = screen.query_one(SettingsBody)
        assert await cut_scrolling(pilot, body) == []
        # Each label ends before its control starts, and each choice shows its value whole.
        for label in body.query(Label).filter(".label").results(Label):
            row = label.parent
            assert row is not None
            fields = [w for w in row.children if w is not label and w.display]
            assert fields and label.region.right <= fields[0].region.x, (str(label.content), fields[0])
        cut = []
        for select in body.query(Select).results(Select):
            if not shown(select):
                continue
            prompt = next(str(p) for p, v in select._options if v == select.value)
            select.scroll_visible(animate=False)
            await pilot.pause()
            await pilot.pause()
            value = seen_lines(app, select)
            if not on_screen(app, select) or not any(seen(prompt) in line for line in value):
                cut.append((select.id, prompt, value))
        assert not cut, cut
        # And any other choice would show whole in its place.
        longer = []
        for select in body.query(Select).results(Select):
            room = select.query_one("SelectCurrent #label").content_region.width
            longer += [(select.id, str(p), room) for p, _v in select._options if cell_len(seen(str(p))) > room]
        assert not longer, longer
        whole(app, screen.query_one("#settings-buttons"))


# ---------------------------------------------------------------------------- the statistics
@pytest.mark.parametrize("code", LANGUAGES)
async def test_every_stats_tab_is_whole_at_80x24(code: str, tmp_path: Path) -> None:
    use(code)
    app = StatsHost(full_history(tmp_path / "h.sqlite3"))
    async with app.run_test(size=SMALL) as pilot:
        screen = await loaded(pilot)
        await footer_ready(pilot)
        footer_whole(app)
        for part in ("#stats-title", "#rating"):
            assert cut(app, screen.query_one(part)) is None, cut(app, screen.query_one(part))
        for tab in screen.query(Tab).results(Tab):
            assert on_screen(app, tab) and seen(str(tab.label)) in seen_in(app, tab), tab.label
        # Summary: the table, the streaks and the rating's plot, scrolled through.
        body = screen.query_one("#summary-body")
        assert await cut_scrolling(pilot, body) == []
        plot = screen.query_one("#rating-plot", LegendPlot)
        plot.scroll_visible(animate=False)
        await wait_for(pilot, lambda: not cut_plot_words(app, plot), what="the rating plot's words whole")
        # Plots: both plots and the line under them.
        await pilot.press("2")
        await wait_for(pilot, lambda: on_screen(app, screen.query_one("#match-plot")), what="the Plots tab")
        for pid in ("#margin-plot", "#match-plot"):
            one = screen.query_one(pid, LegendPlot)

            def drawn(p: LegendPlot = one) -> bool:
                return bool(p.title) and not cut_plot_words(app, p)

            await wait_for(pilot, drawn, what=f"{pid}'s words whole")
        whole(app, screen.query_one("#plots-body"))
        # Matches: every heading, and every cell but the opponents' (scrolled to with ← →).
        await pilot.press("3")
        table = screen.query_one(MatchList)
        await wait_for(pilot, lambda: table.row_count > 0 and on_screen(app, table), what="the Matches tab")
        await pilot.pause()
        lines = seen_lines(app, view_of(table))
        heading = lines[0]
        for column in MATCH_COLUMNS:
            assert seen(_(column)) in heading, (column, heading)
        words = {result_word(key) for key in RESULTS}
        for row in range(table.row_count):
            cells = table.get_row_at(row)
            assert str(cells[1]) in words, (str(cells[1]), words)  # the result in the language
            for cell in cells[:-1]:
                assert seen(str(cell)) in lines[1 + row], (str(cell), lines[1 + row])
        foot = screen.query_one("#list-foot")
        assert cut(app, foot) is None, cut(app, foot)
        footer_whole(app)


@pytest.mark.parametrize("code", LANGUAGES)
async def test_an_empty_stats_screen_is_whole_and_translated_at_80x24(code: str, tmp_path: Path) -> None:
    use(code)
    history, message = History.open(tmp_path / "h.sqlite3")
    assert message is None
    app = StatsHost(history)
    async with app.run_test(size=SMALL) as pilot:
        screen = await loaded(pilot)
        await footer_ready(pilot)
        footer_whole(app)
        assert screen.total == 0
        for part, text in (("#rating", _(NO_RATING)), ("#empty", _(EMPTY))):
            widget = screen.query_one(part)
            assert cut(app, widget) is None, cut(app, widget)
            assert reads(text, seen_in(app, widget)), (part, text, seen_in(app, widget))
        shown_text = seen_in(app)
        assert seen(NO_RATING) not in shown_text and seen(EMPTY) not in shown_text, shown_text


# ---------------------------------------------------------------------------- the rules
@pytest.mark.parametrize("code", ["en", *LANGUAGES])
async def test_the_rules_are_whole_at_80x24(code: str) -> None:
    use(code)
    app = RulesHost()
    async with app.run_test(size=SMALL) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, RulesScreen))
        screen = app.screen
        assert isinstance(screen, RulesScreen)
        await footer_ready(pilot)
        footer_whole(app)
        assert reads(f"Kings Corners — {_(RulesScreen.SUB_TITLE)}", seen_in(app, screen.query_one(Header)))
        # Every part is drawn at its width with nothing of it cropped, and its heading is read whole.
        headings = {part.title for part in screen.parts}
        async for view in scrolled(pilot, screen.query_one("#rules-scroll")):
            headings -= {h for h in headings if reads(h, seen_in(app, view))}
        assert not headings, headings
        for i in range(len(screen.parts)):
            drawn = screen.part(i)
            assert screen.region.x <= drawn.region.x and drawn.region.right <= screen.region.right, drawn
            assert not cropped(drawn), (screen.parts[i].title, cropped(drawn))
        # The contents: every heading whole (a long one wraps).
        await pilot.press("t")
        await wait_for(pilot, lambda: isinstance(app.screen, ContentsDialog))
        contents = app.screen.query_one(OptionList)
        await pilot.pause()
        for index, part in enumerate(screen.parts):
            contents.highlighted = index
            contents.scroll_to_highlight()
            await pilot.pause()
            assert reads(part.title, seen_in(app, contents.content_region)), part.title
        whole(app, app.screen)
