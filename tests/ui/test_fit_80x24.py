"""Every text readable whole at 80x24: the hint, the replay and its review, the demo, the menu
with a saved match, the settings, the list of matches. Each text is read on the screen's
rendered lines: whole (wrapped if need be), or scrolled to its end with a key the screen shows;
every key of the footer is whole. Snapshots of each at 80x24."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest
from textual.widgets import Button, Header, Input, Static

from kc_tui.config import Config, Opponent
from kc_tui.engine import END, target
from kc_tui.match.session import MatchSession
from kc_tui.records.rows import MatchRecord
from kc_tui.records.store import History
from kc_tui.ui.dialogs.help import HelpDialog
from kc_tui.ui.screens import replay_keys
from kc_tui.ui.screens.demo import DemoScreen
from kc_tui.ui.screens.game import MESSAGE_LINES, GameScreen
from kc_tui.ui.screens.menu import MenuScreen
from kc_tui.ui.screens.replay import ReplayScreen
from kc_tui.ui.screens.stats import MATCH_COLUMNS, MatchList
from kc_tui.ui.table.parts import fit_message
from kc_tui.ui.widgets.pile import PLACE_KEYS
from tests.match.kit import play_match

from .conftest import wait_for
from .fitkit import (
    EXPERTS,
    assert_footer_whole,
    assert_whole,
    content,
    flat,
    footer_keys,
    on_screen,
    read_every_text,
    read_scrolling,
    screen_lines,
    shows_whole,
)
from .gamekit import DemoHost, SettingsHost, make_config, menu_app, opened, play_app, settle, stage_long_piles
from .statskit import T0, StatsHost, full_history, loaded, record_match

pytestmark = pytest.mark.usefixtures("fixed_world")

SMALL = (80, 24)
#: The round of the recorded match whose review has explanations longer than their lines.
REVIEW_ROUND = 2
#: Names as long as a name may be (24 characters): the saved match's line wraps.
LONG_NAMES = ("Bartholomew the Third", "Kingsley Longname II", "Lucy In The Sky Diamond")


async def footer_ready(pilot: Any) -> None:
    """Wait until the footer has drawn its keys (a loaded machine draws it late)."""
    await wait_for(pilot, lambda: bool(footer_keys(pilot.app)) and footer_keys(pilot.app)[0].region.width > 0)
    await pilot.pause()


# ---------------------------------------------------------------------------- the hint
async def hinted(pilot: Any, *, long_piles: bool = False) -> GameScreen:
    game = await settle(pilot)
    if long_piles:
        stage_long_piles(game.session)
        game.refresh_view()
        await pilot.pause()
    await pilot.press("h")
    game = await settle(pilot)
    await pilot.pause()
    await footer_ready(pilot)
    return game


def hint_key(game: GameScreen) -> str:
    m = game.hint_move
    assert m is not None and m != END, "the hint plays a card"
    return PLACE_KEYS[target(m)]


async def test_the_hint_reads_whole_at_80x24_with_its_key_first() -> None:
    app = play_app()
    async with app.run_test(size=SMALL) as pilot:
        game = await hinted(pilot)
        text = content(game.query_one("#status", Static))
        head = f"Hint (press {hint_key(game)} to play it; h: more):"
        assert text.startswith(head), text
        message = game.query_one("#message")
        assert on_screen(app, message)
        # The table keeps its rows: the hint has the lines the table spares, and h shows the rest.
        assert message.region.height == fit_message(game) < MESSAGE_LINES
        assert shows_whole(app, head, message)
        assert await read_scrolling(pilot, message, "h") == text
        assert_footer_whole(app, "Hint", "End turn", "Keys", "Menu")


async def test_a_hint_longer_than_its_lines_says_so_and_h_shows_the_rest() -> None:
    app = play_app()
    async with app.run_test(size=SMALL) as pilot:
        game = await hinted(pilot, long_piles=True)
        text = content(game.query_one("#status", Static))
        head = f"Hint (press {hint_key(game)} to play it; h: more):"
        assert text.startswith(head), text
        message = game.query_one("#message")
        assert on_screen(app, message) and message.region.height == fit_message(game)
        assert shows_whole(app, head, message), "the key and the sign of more are on the first line"
        assert not shows_whole(app, text, message), "the hint is longer than its lines"
        hint = game.hint_move
        assert await read_scrolling(pilot, message, "h") == text
        # From its last lines h goes back to its first; the hint stays the same.
        await pilot.press("h")
        await pilot.pause()
        assert message.scroll_y == 0 and game.hint_move == hint
        assert_whole(app, head, message)
        assert_footer_whole(app, "Hint")


def test_snapshot_hint_80x24(snap_compare: Any) -> None:
    async def run_before(pilot: Any) -> None:
        await hinted(pilot)

    assert snap_compare(play_app(), terminal_size=SMALL, run_before=run_before)


# ---------------------------------------------------------------------------- the replay and its review
@pytest.fixture(scope="module")
def match() -> MatchRecord:
    """The match ``recorded`` (the replay tests' fixture) records here: a beginner ("random")
    in seat 0, whose review has long explanations."""
    return play_match(["random", "king-aware", "greedy"], 11)


async def reviewed(pilot: Any, match_id: int) -> ReplayScreen:
    """The round reviewed, on the reviewed turn with the longest explanation."""
    replay = await opened(pilot, match_id, REVIEW_ROUND)
    await pilot.press("v")
    await wait_for(pilot, lambda: replay.review is not None and not replay.reviewing, 120)
    start = max(replay.reviewed, key=lambda s: len(replay._review_line(replay.reviewed[s]).plain))
    replay.replay.seek(start)
    replay.refresh_view()
    await pilot.pause()
    await pilot.pause()
    await footer_ready(pilot)
    return replay


REPLAY_KEYS = ("Move", "Turn", "Play", "Hands", "Review", "Better", "Keys", "Back")


async def test_the_review_and_a_long_explanation_are_whole_at_80x24(recorded: int) -> None:
    app = menu_app()
    async with app.run_test(size=SMALL) as pilot:
        replay = await reviewed(pilot, recorded)
        review = replay.review
        assert review is not None
        status = replay.query_one("#replay-status", Static)
        assert on_screen(app, status)
        assert review.summary in content(status)
        assert_whole(app, content(status), status)
        box = replay.query_one("#replay-note-box")
        note = content(replay.query_one("#replay-note", Static))
        assert on_screen(app, box)
        assert not shows_whole(app, note, box), "the explanation is longer than its lines"
        # The key that shows the rest is in the footer, with the replay's main keys.
        assert_footer_whole(app, *REPLAY_KEYS, "More")
        assert await read_scrolling(pilot, box, "pagedown") == note
        await pilot.press("pageup")
        await pilot.pause()
        assert box.scroll_y < box.max_scroll_y
        for part in ("#replay-table", "#replay-hand", "#replay-seats"):
            assert on_screen(app, replay.query_one(part)), part


async def test_the_replay_footer_is_whole_and_its_keys_page_lists_every_key(recorded: int) -> None:
    app = menu_app()
    async with app.run_test(size=SMALL) as pilot:
        replay = await opened(pilot, recorded, REVIEW_ROUND)
        await footer_ready(pilot)
        assert_footer_whole(app, *REPLAY_KEYS)
        assert "More" not in {k.description for k in footer_keys(app)}, "a one-line note has no more"
        note = replay.query_one("#replay-note", Static)
        assert_whole(app, content(note), replay.query_one("#replay-note-box"))
        assert_whole(app, content(replay.query_one("#replay-status", Static)), replay.query_one("#replay-status"))
        # At 24 rows the buttons leave their row to the table: the footer's keys are clicked.
        assert not replay.query_one("#replay-controls").display
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpDialog)
        body = app.screen.query_one("VerticalScroll")
        for keys, what in replay_keys.KEYS:
            row = flat(f"{keys} {what}")
            while not shows_whole(app, row, body.scrollable_content_region) and body.scroll_y < body.max_scroll_y:
                await pilot.press("pagedown")
                await pilot.pause()
            assert shows_whole(app, row, body.scrollable_content_region), row
        await pilot.press("escape")
        await pilot.pause()
        assert cast(object, app.screen) is replay


async def test_the_replay_buttons_fit_80_columns(recorded: int) -> None:
    app = menu_app()
    async with app.run_test(size=(80, 40)) as pilot:
        replay = await opened(pilot, recorded, REVIEW_ROUND)
        await pilot.press("end")
        await pilot.pause()
        buttons = list(replay.query_one("#replay-controls").query(Button))
        assert len(buttons) == len(replay_keys.CONTROLS)
        for b in buttons:
            assert on_screen(app, b), (b.id, b.region)
            assert_whole(app, str(b.label), b)


def test_snapshot_replay_80x24(snap_compare: Any, recorded: int) -> None:
    async def run_before(pilot: Any) -> None:
        await opened(pilot, recorded, REVIEW_ROUND)
        await pilot.press("right_square_bracket", "right_square_bracket", "right")
        await footer_ready(pilot)

    assert snap_compare(menu_app(), terminal_size=SMALL, run_before=run_before)


def test_snapshot_review_long_explanation_80x24(snap_compare: Any, recorded: int) -> None:
    async def run_before(pilot: Any) -> None:
        await reviewed(pilot, recorded)

    assert snap_compare(menu_app(), terminal_size=SMALL, run_before=run_before)


# ---------------------------------------------------------------------------- the demo
def paused_demo(kinds: list[str]) -> tuple[DemoScreen, DemoHost]:
    demo = DemoScreen(kinds, 3, "slow", Config())
    return demo, DemoHost(demo)


async def pause_at_deal(pilot: Any, demo: DemoScreen) -> None:
    await wait_for(pilot, lambda: demo.is_current)
    await pilot.press("space")
    await wait_for(pilot, lambda: demo.paused)
    await footer_ready(pilot)


THREE_AIS = ["greedy", "king-aware", "lookahead"]


@pytest.mark.parametrize("kinds", [THREE_AIS, [*THREE_AIS, "random"]], ids=["3 seats", "4 seats"])
async def test_the_demo_title_status_and_footer_are_whole_at_80x24(kinds: list[str]) -> None:
    demo, app = paused_demo(kinds)
    async with app.run_test(size=SMALL) as pilot:
        await pause_at_deal(pilot, demo)
        header = demo.query_one(Header)
        assert f"seed {demo.seed}" in (demo.sub_title or "")
        assert_whole(app, f"{demo.TITLE} — {demo.sub_title}", header)
        status = demo.query_one("#demo-status", Static)
        assert on_screen(app, status)
        assert_whole(app, content(status), status)
        for seat in range(len(kinds)):
            panel = demo.query_one(f"#demo-seat-{seat}")
            assert on_screen(app, panel)
            assert demo.session.names[seat] in flat(" ".join(screen_lines(app, panel)))
        assert on_screen(app, demo.query_one("#demo-table"))
        assert_footer_whole(app, "Resume", "Step", "Hands", "New demo", "Rules", "Back")


def test_snapshot_demo_80x24(snap_compare: Any) -> None:
    demo, app = paused_demo(THREE_AIS)

    async def run_before(pilot: Any) -> None:
        await pause_at_deal(pilot, demo)

    assert snap_compare(app, terminal_size=SMALL, run_before=run_before)


# ---------------------------------------------------------------------------- the menu
def save_long_match() -> None:
    config = make_config(opponents=tuple(Opponent(n, "greedy") for n in LONG_NAMES), player_name="Maximilian Sebastian")
    MatchSession.from_config(config, 5).save()


async def test_the_menu_with_a_saved_match_is_whole_at_80x24() -> None:
    save_long_match()
    app = play_app(mode="menu")
    async with app.run_test(size=SMALL) as pilot:
        await footer_ready(pilot)
        menu = app.screen
        assert isinstance(menu, MenuScreen)
        saved = menu.query_one("#saved", Static)
        text = content(saved)
        assert "target 50" in text and all(name in text for name in LONG_NAMES), text
        assert on_screen(app, saved)
        assert_whole(app, text, saved)
        buttons = [b for b in menu.query(Button) if b.display]
        assert len(buttons) == 10
        for b in buttons:
            assert on_screen(app, b), (b.id, b.region)
            assert_whole(app, str(b.label), b)
        assert menu.max_scroll_y == 0, "the menu does not scroll"
        assert_footer_whole(app, "New game", "Resume", "Demo", "Stats", "Settings", "Rules", "Quit")


def test_snapshot_menu_saved_match_80x24(snap_compare: Any) -> None:
    save_long_match()

    async def run_before(pilot: Any) -> None:
        await footer_ready(pilot)

    assert snap_compare(play_app(mode="menu"), terminal_size=SMALL, run_before=run_before)


# ---------------------------------------------------------------------------- the settings
async def test_the_settings_texts_and_footer_are_whole_at_80x24() -> None:
    app = SettingsHost(Config(opponents=EXPERTS))
    async with app.run_test(size=SMALL) as pilot:
        await footer_ready(pilot)
        assert_footer_whole(app, "More", "Save", "Cancel")
        assert await read_every_text(pilot, app) == []


def test_snapshot_settings_80x24(snap_compare: Any) -> None:
    async def run_before(pilot: Any) -> None:
        for field in pilot.app.screen.query(Input):
            field.cursor_blink = False  # the focused field's cursor stays drawn
        await footer_ready(pilot)

    assert snap_compare(SettingsHost(Config(opponents=EXPERTS)), terminal_size=SMALL, run_before=run_before)


# ---------------------------------------------------------------------------- Stats → Matches
def long_history(path: Path) -> History:
    """The stats tests' history and a four-seat match: its opponents are wider than the screen."""
    history = full_history(path)
    record_match(
        history,
        [("Greedy", "greedy"), ("Kingsley", "king-aware"), ("Lucy", "lookahead")],
        [(0, [0, 12, 9, 30]), (2, [8, 17, 0, 5])],
        start=T0,
    )
    return history


async def matches_tab(pilot: Any) -> MatchList:
    await loaded(pilot)
    await pilot.press("3")
    await pilot.pause()
    table: MatchList = pilot.app.screen.query_one(MatchList)
    await wait_for(pilot, lambda: table.row_count > 0 and table.has_focus)
    await pilot.pause()
    await footer_ready(pilot)
    return table


async def test_every_match_column_heading_and_result_is_on_screen_at_80x24(tmp_path: Path) -> None:
    app = StatsHost(long_history(tmp_path / "h.sqlite3"))
    async with app.run_test(size=SMALL) as pilot:
        table = await matches_tab(pilot)
        assert on_screen(app, table)
        view = table.region.intersection(table.scrollable_content_region)
        heading = flat(screen_lines(app, view)[0])
        assert heading.split() == list(MATCH_COLUMNS), heading
        # Every cell but the opponents' is whole in view, row by row.
        lines = screen_lines(app, view)
        for row in range(table.row_count):
            cells = table.get_row_at(row)
            line = flat(lines[1 + row])
            for column, cell in zip(MATCH_COLUMNS, cells, strict=True):
                if column != "Opponents":
                    assert flat(str(cell)) in line, (column, str(cell), line)
        # The opponents are wider than the screen: the line under the list says how to see them.
        foot = app.screen.query_one("#list-foot", Static)
        assert table.max_scroll_x > 0
        assert "← → scroll" in content(foot)
        assert_whole(app, content(foot), foot)
        widest = max((str(table.get_row_at(r)[-1]) for r in range(table.row_count)), key=len)
        assert not shows_whole(app, widest, view)
        while table.scroll_x < table.max_scroll_x:
            before = table.scroll_x
            await pilot.press("right")

            def scrolled(start: float = before) -> bool:
                return table.scroll_x > start

            await wait_for(pilot, scrolled, what="→ scrolled the list")
            assert table.scroll_x > before, "→ scrolls the list"
        assert_whole(app, widest, table.region.intersection(table.scrollable_content_region))
        assert_footer_whole(app, "Back", "Summary", "Plots", "Matches")


def test_snapshot_stats_matches_80x24(snap_compare: Any, tmp_path: Path) -> None:
    history = long_history(tmp_path / "h.sqlite3")

    async def run_before(pilot: Any) -> None:
        await matches_tab(pilot)

    assert snap_compare(StatsHost(history), terminal_size=SMALL, run_before=run_before)
