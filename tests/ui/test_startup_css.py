"""The table's first frame parses the app's CSS and the table's CSS file once each, and the
table's file is applied from that frame on."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from textual.css import parse as css_parse
from textual.css import stylesheet
from textual.widgets import Static

from kc_tui.ui.screens.game import GameScreen

from .gamekit import play_app, settle


async def test_the_first_frame_parses_the_apps_and_the_tables_css_once(monkeypatch: Any) -> None:
    parsed: Counter[tuple[str, str]] = Counter()
    parse = css_parse.parse

    def counting(scope: str, css: str, read_from: tuple[str, str], **kwargs: Any) -> Iterable[Any]:
        parsed[read_from] += 1
        return parse(scope, css, read_from, **kwargs)

    monkeypatch.setattr(stylesheet, "parse", counting)
    app = play_app()
    async with app.run_test(size=(120, 40)) as pilot:
        game = await settle(pilot)
        assert isinstance(game, GameScreen)
        # The app's CSS and the table's file, each once. (Textual parses a widget's CSS again
        # when a widget deeper below it in the class tree shares it: a rule of its own, not here.)
        ours = {source: n for source, n in parsed.items() if source[0].endswith("game.tcss")}
        app_css = {source: n for source, n in parsed.items() if source[1] == "App.DEFAULT_CSS"}
        assert list(ours.values()) == [1] and list(app_css.values()) == [1], parsed
        assert game.query_one("#me-label", Static).outer_size.width == 14  # a rule of game.tcss
