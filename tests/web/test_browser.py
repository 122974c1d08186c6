"""The app in a browser, end to end: a real ``kings-corners serve`` on a free loopback port, a real
headless Chromium driven over its DevTools protocol (:mod:`tests.web.cdp`), a game started and a
card played by keys; each tab's settings and save in a folder of its own under ``--root``.

With ``$KC_SCREENSHOTS`` set, the browser's shot of the game is written there as ``browser.png``
(``KC_SCREENSHOTS=screenshots pytest tests/web/test_browser.py`` makes the one in docs/PLAYING.md)."""

from __future__ import annotations

import functools
import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest

from kc_tui.engine import END, Round, is_play, load_position, play_card, target
from kc_tui.engine.cards import card_str
from kc_tui.match.saves import SAVE_NAME
from kc_tui.ui.widgets.hand import KEYS
from kc_tui.ui.widgets.pile import PLACE_KEYS
from kc_tui.web.folders import DATA_NAME, SETTINGS_NAME
from tests.waiting import wait_until

from .cdp import CHROMIUM, Browser, Page, browser, chromium_available
from .servekit import Served, tab_folders

pytestmark = pytest.mark.skipif(
    not chromium_available(), reason=f"Chromium is not installed at {CHROMIUM} (.ci/run installs Debian's chromium)"
)

#: Page expressions: what the app drew last is the person's turn's message; the round's summary;
#: the message of a card picked.
SHOWS_MY_TURN = (
    "(() => { const t = window.kcText || '';"
    " return t.lastIndexOf('Your turn') > Math.max(t.lastIndexOf(' is playing'), t.lastIndexOf('selected:')); })()"
)
SHOWS_SUMMARY = (
    "(() => { const t = window.kcText || '';"
    " return t.lastIndexOf('Continue') > Math.max(t.lastIndexOf('Your turn'), t.lastIndexOf(' is playing')); })()"
)
SELECTED = (
    "(() => { const t = window.kcText || '';"
    " return t.lastIndexOf('selected: it can go on') > t.lastIndexOf('Your turn'); })()"
)
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
#: The most turns of the person (or rounds won by AIs first) waited through for a card to play.
TURNS = 8


async def open_tab(b: Browser, served: Served, known: set[Path]) -> tuple[Page, Path]:
    """A new tab on the menu, and the folder made for it."""
    page = await b.open(served.url)
    await page.wait_for("document.body && document.body.classList.contains('-first-byte')")
    await page.wait_for_text("New game")
    new = await wait_until(lambda: tab_folders(served.root) - known, what="the tab's folder")
    assert len(new) == 1, new
    await page.evaluate("document.querySelector('.xterm-helper-textarea').focus()")
    return page, new.pop()


def read_save(folder: Path) -> dict[str, Any] | None:
    try:
        data: dict[str, Any] = json.loads((folder / DATA_NAME / SAVE_NAME).read_bytes())
    except (OSError, ValueError):
        return None
    return data


def human_seat(save: dict[str, Any]) -> int:
    """The round seat of the one person at the table."""
    (name,) = [s["name"] for s in save["seats"] if s["kind"] == "human"]
    names = [p["name"] for p in save["players"]]
    return names.index(name)


def my_turn_or_over(folder: Path) -> tuple[dict[str, Any], Round] | None:
    """The save and its position while it is the person's turn (the card drawn) or the round is
    over; else None."""
    save = read_save(folder)
    if save is None:
        return None
    r = load_position(json.dumps(save).encode())
    if r.over or (r.to_move == human_seat(save) and r.drawn):
        return save, r
    return None


def saved_other_than(folder: Path, save: dict[str, Any]) -> bool:
    return read_save(folder) not in (None, save)


async def play_a_card(page: Page, folder: Path) -> tuple[int, str]:
    """On the person's turn (the save says so, and so does the screen), a card of the hand played
    to a pile by its keys (1-9, then the pile's letter); ``t`` ends a turn with no card to play.
    The card and the pile's letter."""
    for _ in range(TURNS):
        save, r = await wait_until(lambda: my_turn_or_over(folder), what="the person's turn")
        if r.over:  # an AI went out first: the round's summary, then the next round
            await page.wait_for(SHOWS_SUMMARY)
            await page.press("enter")
            await wait_until(functools.partial(saved_other_than, folder, save), what="the next round")
            continue
        await page.wait_for(SHOWS_MY_TURN)
        hand = r.hand(r.to_move)
        plays = [m for m in r.legal_moves() if m != END and is_play(m) and hand.index(play_card(m)) < len(KEYS)]
        if not plays:
            await page.press("t")
            await wait_until(functools.partial(saved_other_than, folder, save), what="the turn ended")
            continue
        m = plays[0]
        card = play_card(m)
        await page.press(KEYS[hand.index(card)])
        await page.wait_for(SELECTED)
        await page.press(PLACE_KEYS[target(m)])
        return card, PLACE_KEYS[target(m)]
    raise AssertionError(f"no card to play in {TURNS} turns")


def card_on_pile(folder: Path, card: int) -> bool:
    """Whether the save has ``card`` out of the person's hand and on a pile."""
    save = read_save(folder)
    if save is None:
        return False
    r = load_position(json.dumps(save).encode())
    return card not in r.hand(human_seat(save)) and any(card in pile for pile in r.piles)


async def test_a_game_in_the_browser_is_played_by_keys_in_a_folder_of_its_own(served: Served, tmp_path: Path) -> None:
    async with browser() as b:
        page, folder = await open_tab(b, served, set())
        assert (folder.stat().st_mode & 0o777) == 0o700
        await page.press("n")
        await page.wait_for_text("Opponents")
        await page.press("ctrl+s")
        await wait_until(lambda: read_save(folder), what="the match's save")

        card, pile = await play_a_card(page, folder)
        await wait_until(lambda: card_on_pile(folder, card), what=f"{card_str(card)} played (key {pile}) in the save")
        save = read_save(folder)
        assert save is not None
        assert save["log"][-1].startswith(("You played ", "You put ")), "\n".join(save["log"])

        shot = await page.screenshot()
        (tmp_path / "browser.png").write_bytes(shot)
        assert (tmp_path / "browser.png").read_bytes()[:8] == PNG_MAGIC and len(shot) > 20_000
        if out := os.environ.get("KC_SCREENSHOTS"):
            Path(out).mkdir(parents=True, exist_ok=True)
            (Path(out) / "browser.png").write_bytes(shot)

        # A second tab: a folder of its own, its settings its own, no save of the first tab's.
        second, other = await open_tab(b, served, {folder})
        assert other != folder and other.parent == folder.parent == served.root.resolve()
        assert (other.stat().st_mode & 0o777) == 0o700
        assert (folder / SETTINGS_NAME).is_file()  # the set-up's choices, saved by the first tab
        assert not (other / SETTINGS_NAME).exists() and read_save(other) is None
        assert read_save(folder) == save

        # Closing a tab ends its app and removes its folder; the other tab's stays.
        await b.close_tab(second)
        await wait_until(lambda: not other.exists(), what="the closed tab's folder removed")
        assert read_save(folder) == save
    # Stopping serve ends every tab's app: no folder is left under the root.
    served.process.send_signal(signal.SIGTERM)
    assert served.process.wait(20) == 0
    await wait_until(lambda: not tab_folders(served.root), what="every folder removed")
    assert [line for line in served.lines if not line.startswith("Serving")] == []  # no traceback, no noise


async def test_keys_work_in_a_new_tab_without_a_click(served: Served) -> None:
    """The page gives the terminal the focus itself: the first key pressed reaches the app."""
    async with browser() as b:
        page = await b.open(served.url)
        await page.wait_for("document.body && document.body.classList.contains('-first-byte')")
        await page.wait_for_text("New game")
        await page.wait_for("document.activeElement === document.querySelector('#terminal .xterm-helper-textarea')")
        since = await page.mark()
        await page.press("n")
        await page.wait_for_text("Opponents", since=since)
