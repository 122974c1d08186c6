"""What the table's first frame waits for: only what it shows. The screens, dialogs and AIs it
does not show load when they are opened, the game history's store (and SQLite) loads in the
recorder's thread, the menu is made when a match started at once is left,
and the footer redraws its keys only when they change."""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from textual.strip import Strip

from kc_tui import cli
from kc_tui.config.args import CliError
from kc_tui.engine import is_play, play_card, target
from kc_tui.ui import launch
from kc_tui.ui.screens.game import GameScreen
from kc_tui.ui.screens.menu import MenuScreen
from kc_tui.ui.widgets import PLACE_KEYS
from kc_tui.ui.widgets.footer import Footer, FooterSpot

from .conftest import wait_for
from .gamekit import new_match_from_the_table, play_app, settle

SIZE = (120, 40)

#: Modules a seeded table does not show at its first frame.
NOT_AT_START = (
    "kc_tui.ui.screens.stats",
    "kc_tui.ui.screens.settings",
    "kc_tui.ui.screens.rules",
    "kc_tui.ui.screens.demo",
    "kc_tui.ui.screens.replay",
    "kc_tui.records.stats_shown",
    "kc_tui.ui.widgets.plot",
    "kc_tui.ui.dialogs.summary",
    "kc_tui.ui.dialogs.help",
    "kc_tui.ui.dialogs.match_detail",
    "kc_tui.ui.dialogs.demo_setup",
    "kc_tui.match.replay",
    "ai.advice.review",
    "kc_tui.lab.tournament",
    "ai.players.expert",
    "ai.players.lookahead",
    "kc_tui.records.store",
    "kc_tui.records.opening",
    "kc_tui.records.files",
    "kc_tui.records.schema",
    "sqlite3",
    "kc_tui.ui.remote.screen",
    "kc_tui.net.client",
    "kc_tui.net.server",
    "kc_tui.web.site",
    "websockets",
    "textual_serve",
    "aiohttp",
    "textual_plotext",
    "plotext",
    "ai.search.leaf",
    "ai.search.inference",
    # Textual's Keys panel and its Markdown (markdown-it): made when the player asks for the keys.
    "kc_tui.ui.textual_translated",
    "textual.widgets._help_panel",
    "textual.widgets._markdown",
    "markdown_it",
)

#: What neither first frame (the table of ``play``, the menu) loads on the way from the command
#: line: the modules above but the history's (its thread may open it soon after the first frame),
#: and the options of ``serve``.
NOT_AT_FIRST_FRAME = (
    *(name for name in NOT_AT_START if not name.startswith(("kc_tui.records.", "sqlite3"))),
    "kc_tui.web.options",
)

#: What the table of ``play`` does not load either: the tutorial's lessons and the list of tables
#: a browser tab may join (the menu asks for them).
NOT_AT_THE_TABLE = ("kc_tui.learn.progress", "kc_tui.learn.lessons", "kc_tui.net.allowlist")

#: Runs the command line in a fresh interpreter, its app headless until ``screen`` is drawn, and
#: prints the modules loaded by then.
FIRST_FRAME_PROBE = """
import asyncio, json, sys
import kc_tui.ui.launch as launch

def first_frame(app):
    async def drawn():
        async with app.run_test(size=(80, 24)) as pilot:
            while type(app.screen).__name__ != {screen!r}:
                await pilot.pause()
            await pilot.pause()
            return sorted(sys.modules)
    print(json.dumps(asyncio.run(drawn())))
    return 0

launch.run = first_frame
from kc_tui.cli import main
main({argv!r})
"""


def _modules_after(code: str) -> set[str]:
    """The modules loaded in a fresh interpreter after running ``code``."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    return set(json.loads(out.strip().splitlines()[-1]))


def test_importing_the_app_and_the_table_loads_no_screen_the_table_does_not_show() -> None:
    loaded = _modules_after("import kc_tui.ui.app, kc_tui.ui.screens.game")
    assert "kc_tui.ui.screens.game" in loaded and "kc_tui.ui.screens.menu" in loaded
    assert sorted(loaded & set(NOT_AT_START)) == []


@pytest.mark.parametrize(
    ("argv", "screen", "not_loaded"),
    [
        (["play", "--seed", "3", "--opponents", "greedy"], "GameScreen", NOT_AT_FIRST_FRAME + NOT_AT_THE_TABLE),
        ([], "MenuScreen", NOT_AT_FIRST_FRAME),
    ],
)
def test_the_command_line_reaches_the_first_frame_without_what_it_does_not_show(
    argv: list[str], screen: str, not_loaded: tuple[str, ...]
) -> None:
    probe = FIRST_FRAME_PROBE.format(screen=screen, argv=argv)
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120)
    loaded = set(json.loads(out.stdout.strip().splitlines()[-1]))
    assert f"kc_tui.ui.screens.{screen.removesuffix('Screen').lower()}" in loaded
    assert sorted(loaded & set(not_loaded)) == []


def test_the_collector_waits_while_the_app_loads_and_is_made_and_runs_again_after(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    enabled: list[bool] = []
    make = launch.build_app

    def build_app(mode: str, args: argparse.Namespace) -> object:
        enabled.append(gc.isenabled())
        return make(mode, args)

    def run(app: Any) -> int:
        enabled.append(gc.isenabled())
        return 0

    monkeypatch.setattr(launch, "build_app", build_app)
    monkeypatch.setattr(launch, "run", run)
    assert launch.launch("play", cli.build_parser().parse_args(["play", "--seed", "3"])) == 0
    assert enabled == [False, True]  # the app holds it again for its first screen (below)
    with pytest.raises(CliError):  # a bad command line lets it go too
        launch.launch("play", cli.build_parser().parse_args(["play", "--target", "0"]))
    assert gc.isenabled()


def test_making_players_loads_their_kinds_only_and_listing_kinds_loads_all() -> None:
    loaded = _modules_after(
        "import ai\n"
        "assert ai.make_player('greedy', 1).kind == 'greedy'\n"
        "assert ai.kind_info('King_Aware').name == 'king-aware'"
    )
    assert {"ai.players.greedy", "ai.players.king_aware"} <= loaded
    assert not {"ai.players.expert", "ai.players.lookahead", "ai.search.leaf"} & loaded
    loaded = _modules_after("import ai\nai.make_player('greedy', 1)\nprint(ai.ai_kinds())")
    assert {"ai.players.expert", "ai.players.lookahead", "ai.players.king_aware"} <= loaded


async def test_a_match_started_at_once_has_the_menu_made_when_it_is_left() -> None:
    app = play_app()
    async with app.run_test(size=SIZE) as pilot:
        game = await settle(pilot)
        assert app.screen_stack == [game]  # the table is the first screen: nothing below it
        # A new match from the table (command palette): the menu is below the new one.
        new = await new_match_from_the_table(pilot)
        assert new is not game and new.session.record.uid != game.session.record.uid  # a new match
        assert [type(s) for s in app.screen_stack] == [MenuScreen, GameScreen]
        # Leaving it shows that menu, with the match to resume.
        await pilot.press("m")
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        assert app.game is None and len(app.screen_stack) == 1


async def test_leaving_the_first_match_shows_the_menu_with_resume() -> None:
    app = play_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("m")
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        menu = app.screen
        assert len(app.screen_stack) == 1 and app.game is None
        assert menu.query_one("#resume").display
        await pilot.press("c")
        await settle(pilot)
        assert app.screen_stack[0] is menu  # the menu stays below the resumed match


async def test_the_collector_waits_for_the_first_frame_and_runs_again_after_it() -> None:
    app = play_app()
    async with app.run_test(size=SIZE) as pilot:
        assert not gc.isenabled() or isinstance(app.screen, GameScreen)  # held until drawn
        await settle(pilot)
        assert gc.isenabled()
    assert gc.isenabled()
    gc.disable()  # one that was off before the app stays off after it
    try:
        app = play_app(mode="menu")
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        assert not gc.isenabled()
    finally:
        gc.enable()


def _footer_keys(app: Any) -> list[FooterSpot]:
    footer: Footer = app.screen.query_one(Footer)
    return footer.spots()


async def test_the_footer_follows_the_keys_and_keeps_them_while_they_do_not_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = play_app()
    async with app.run_test(size=SIZE) as pilot:
        game = await settle(pilot)
        footer = game.query_one(Footer)
        drawn: list[int] = []
        draw = footer.render_line

        def counted(y: int) -> Strip:
            drawn.append(y)
            return draw(y)

        monkeypatch.setattr(footer, "render_line", counted)
        keys = _footer_keys(app)
        assert "undo" not in {k.action for k in keys}  # nothing to undo yet: Undo is not shown
        assert {"end_turn", "hint", "menu"} <= {k.action for k in keys if not k.disabled}
        for _ in range(3):
            game.refresh_bindings()
        await pilot.pause()
        await pilot.pause()
        assert _footer_keys(app) == keys
        assert not drawn, "the footer was drawn again for the same keys"
        s = game.session
        m = next(m for m in s.match.round.legal_moves() if is_play(m))
        await pilot.press("1234567890"[s.hand(0).index(play_card(m))], PLACE_KEYS[target(m)])
        await wait_for(pilot, lambda: "undo" in {k.action for k in _footer_keys(app)})
        assert "undo" in {k.action for k in _footer_keys(app) if not k.disabled}
        assert drawn, "the footer shows its new keys"


def test_what_the_first_screen_made_is_out_of_the_collectors_reach_once_it_is_drawn(tmp_path: Path) -> None:
    probe = """
import asyncio, gc, json
from kc_tui.config import Config
from kc_tui.ui.app import KingsCornersApp, StartOptions
from kc_tui.ui.screens.game import GameScreen

async def main():
    app = KingsCornersApp(Config(), None, "play", StartOptions(seed=3))
    frozen = gc.get_freeze_count()
    async with app.run_test(size=(120, 40)) as pilot:
        while not isinstance(app.screen, GameScreen):
            await asyncio.sleep(0.01)
        await pilot.pause()
        game = app.screen
        tracked = {id(o) for o in gc.get_objects()}
        print(json.dumps([gc.isenabled(), gc.get_freeze_count() > frozen, id(game) in tracked]))

asyncio.run(main())
"""
    env = {**os.environ, "KINGS_CORNERS_DATA": str(tmp_path / "data"), "KINGS_CORNERS_CONFIG": str(tmp_path / "s.toml")}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=env)
    enabled, froze, tracked = json.loads(out.stdout.strip().splitlines()[-1])
    assert enabled and froze and not tracked
