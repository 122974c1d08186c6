"""The table's first frame parses each source of CSS once (the app's, the table's file, every
widget's), and the table's own CSS file is applied from that frame on."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from textual.css import parse as css_parse
from textual.css import stylesheet
from textual.widgets import Static

from kc_tui.ui.screens.game import GameScreen

from .gamekit import play_app, settle


async def test_the_first_frame_parses_each_css_source_once(monkeypatch: Any) -> None:
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
        assert any(path.endswith("game.tcss") for path, _ in parsed), parsed
        twice = {source: n for source, n in parsed.items() if n > 1}
        assert not twice, twice
        assert game.query_one("#me-label", Static).outer_size.width == 14  # a rule of game.tcss
