"""A terminal that cannot show the UI's glyphs (``LC_ALL=C``, a Latin-1 locale): the app is
drawn in ASCII, suits as letters, card backs as ``#``, borders in ``+-|``."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

from kc_tui.engine import card_str
from kc_tui.match.card_format import ENV_ASCII, ascii_only, can_show
from kc_tui.ui.app import KingsCornersApp
from kc_tui.ui.launch import build_app
from kc_tui.ui.literal_text import AsciiFilter, as_ascii
from kc_tui.ui.screens.menu import MenuScreen

from .conftest import wait_for
from .fitkit import screen_lines
from .gamekit import settle

SIZE = (80, 24)
SUITS = "♠♡♢♣♥♦"


def ascii_start(encoding: str, **env: str) -> bool:
    """Whether a fresh interpreter with ``env`` decides on ASCII (its streams in ``encoding``)."""
    code = "from kc_tui.match.card_format import ascii_only; print(ascii_only())"
    full = {k: v for k, v in os.environ.items() if k != ENV_ASCII}
    full |= {"PYTHONIOENCODING": encoding, **env}
    out = subprocess.run([sys.executable, "-c", code], env=full, capture_output=True, text=True, check=True)
    return out.stdout.strip() == "True"


def test_the_switch_follows_the_terminals_encoding() -> None:
    assert not can_show("ascii") and not can_show("latin-1") and can_show("utf-8")
    assert ascii_start("ascii") and ascii_start("latin-1")
    assert not ascii_start("utf-8")
    assert ascii_start("utf-8", **{ENV_ASCII: "1"}) and not ascii_start("latin-1", **{ENV_ASCII: "0"})
    # What LC_ALL=C gives Python when it is told not to coerce the locale to UTF-8.
    c_locale = {"LC_ALL": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0"}
    code = "from kc_tui.match.card_format import ascii_only; print(ascii_only())"
    env = {k: v for k, v in os.environ.items() if k not in (ENV_ASCII, "PYTHONIOENCODING")} | c_locale
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"
    assert not ascii_only()  # this test run's terminal (UTF-8)


def test_glyphs_become_look_alikes_of_the_same_width() -> None:
    drawn = "┌─┐│└┘╭╮╰╯━┃▒♠♡♢♣♥♦▶◀…·✓✗漢"
    out = as_ascii(drawn)
    assert out == "+-+|++++++-|#SHDCHD><.*vx??"
    out.encode("ascii")
    assert as_ascii("·±×", "latin-1") == "·±×"  # what the terminal can show stays


async def test_the_menu_is_drawn_in_ascii(ascii_terminal: None) -> None:
    app = build_app("menu", argparse.Namespace())
    assert isinstance(app, KingsCornersApp)
    assert any(isinstance(f, AsciiFilter) for f in app.get_line_filters())
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen) and "Quit" in "\n".join(screen_lines(app)))
        assert isinstance(app.screen, MenuScreen)
        text = "\n".join(screen_lines(app))
        text.encode("ascii")
        assert "Statistics" in text and "Quit" in text


async def test_the_table_is_drawn_in_ascii_with_suits_as_letters(ascii_terminal: None) -> None:
    app = build_app("play", argparse.Namespace(seed=3))
    assert isinstance(app, KingsCornersApp)
    async with app.run_test(size=SIZE) as pilot:
        game = await settle(pilot)
        lines = screen_lines(app)
        text = "\n".join(lines)
        text.encode("ascii")
        assert not any(s in text for s in SUITS)
        seat = game.session.human_seat
        assert seat is not None
        hand = game.session.hand(seat)
        assert hand, "the player holds cards"
        assert all(card_str(c) in text for c in hand[:3]), (hand, text)
        assert "#" in text and "+" in text  # card backs and ASCII borders
