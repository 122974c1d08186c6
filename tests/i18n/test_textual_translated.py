"""Textual's own texts in the player's language (kc_tui/ui/textual_translated.py): the Keys panel's
key descriptions, the command palette's Escape key and "No matches found", the footer's palette
key, the screenshot's toasts and the Ctrl+C hint; and every key description of a Textual class
the game uses is among the marked ones."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import pytest
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.dom import DOMNode
from textual.widgets import Select
from textual.widgets._select import SelectOverlay

import kc_tui.ui
from kc_tui.i18n import _, catalog, use
from kc_tui.ui import textual_translated
from kc_tui.ui.textual_translated import KEY_WORDS, NO_MATCHES, KeysPanel, KeysTable, Palette
from tests.i18n.catalogkit import ROOT
from tests.i18n.layoutkit import LANGUAGES, seen, seen_in
from tests.ui.conftest import wait_for
from tests.ui.gamekit import menu_app, open_settings

SIZE = (120, 40)
IMPORTS = re.compile(r"^\s*from (textual[\w.]*) import (\([^)]*\)|[^\n]+)", re.MULTILINE)


def textual_bases() -> set[type]:
    """Every Textual class the game uses: each one its modules import from Textual, and the
    bases of those and of the game's own widgets, screens and app."""
    for info in pkgutil.walk_packages(kc_tui.ui.__path__, "kc_tui.ui."):
        importlib.import_module(info.name)
    used: set[type] = set()
    for path in (ROOT / "kc_tui").rglob("*.py"):
        for module, names in IMPORTS.findall(path.read_text(encoding="utf-8")):
            for name in re.findall(r"\w+", names):
                obj = getattr(importlib.import_module(module), name, None)
                if isinstance(obj, type) and issubclass(obj, DOMNode):
                    used.add(obj)
    todo: list[type] = [DOMNode]
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if cls.__module__.startswith("kc_tui."):
            used.add(cls)
    bases = {base for cls in used for base in cls.__mro__ if base.__module__.startswith("textual.")}
    return bases | {inner for cls in bases for inner in INSIDE.get(cls, ())}


#: The widgets Textual composes inside one the game uses, whose keys show in the footer too.
INSIDE: dict[type, tuple[type, ...]] = {Select: (SelectOverlay,)}


def textual_key_words(classes: set[type]) -> set[str]:
    words: set[str] = set()
    for cls in classes:
        for binding in vars(cls).get("BINDINGS", ()):
            if isinstance(binding, Binding):
                words.update(w for w in (binding.description, binding.tooltip) if w)
            elif isinstance(binding, tuple) and len(binding) > 2 and binding[2]:
                words.add(binding[2])  # (keys, action, description)
    return words


def test_every_key_of_textuals_classes_the_game_uses_is_marked() -> None:
    classes = textual_bases()
    names = {cls.__name__ for cls in classes}
    used = {"App", "Screen", "CommandPalette", "Input", "DataTable", "OptionList", "ScrollableContainer", "Tabs"}
    assert used | {"Button", "Select", "Switch"} <= names, used - names
    words = textual_key_words(classes)
    missing = sorted(words - set(KEY_WORDS))
    assert not missing, missing


@pytest.mark.parametrize("code", LANGUAGES)
async def test_an_open_list_of_choices_says_its_escape_key_in_the_language(code: str) -> None:
    use(code)
    app = menu_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_settings(pilot)
        screen.query_one("#opponent-count", Select).focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.query_one("#opponent-count", Select).expanded, what="the list open")
        await wait_for(pilot, lambda: seen(_("Dismiss menu")) in seen_in(app), what="its Escape key in the language")
        assert "Dismiss menu" not in seen_in(app)


@pytest.mark.parametrize("code", LANGUAGES)
def test_textuals_words_are_translated(code: str) -> None:
    shown = catalog(code)
    others = [v for n, v in vars(textual_translated).items() if n.isupper() and isinstance(v, str)]
    untranslated = [w for w in (*KEY_WORDS, *others) if shown.gettext(w) == w and (code, w) not in SAME]
    assert not untranslated, untranslated


#: The words a language writes as English does.
SAME = {("it", "Screenshot")}


def table_words(table: KeysTable) -> list[str]:
    rendered = table.render_bindings_table()
    return [cell.plain for cell in rendered.columns[1]._cells if isinstance(cell, Text)]


@pytest.mark.parametrize("code", LANGUAGES)
async def test_the_keys_panel_speaks_the_language(code: str) -> None:
    use(code)
    app = menu_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_settings(pilot)
        screen.query_one("#player-name").focus()
        await pilot.pause()
        app.action_show_help_panel()
        await wait_for(pilot, lambda: bool(screen.query(KeysTable)), what="the Keys panel")
        await pilot.pause()
        assert isinstance(screen.query_one(KeysPanel), KeysPanel)
        words = table_words(screen.query_one(KeysTable))
        assert _("Move cursor left") in words and _("Go to start") in words, words
        english = {"Move cursor left", "Go to start", "Scroll Up", "Page Up", "Page Left", "Save"}
        assert not english & set(words), english & set(words)
        assert seen(_("Go to start")) in seen_in(app) or _("Go to start") in words


@pytest.mark.parametrize("code", LANGUAGES)
async def test_the_palette_and_its_keys_speak_the_language(code: str) -> None:
    use(code)
    app = menu_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert seen(_("palette")) in seen_in(app), seen_in(app)
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, Palette), what="the command palette")
        await pilot.press(*"zzqqxx")
        await wait_for(pilot, lambda: seen(_(NO_MATCHES)) in seen_in(app), what="no matches, in the language")
        shown = seen_in(app)
        assert "No matches found" not in shown and "Exit the command palette" not in shown, shown


@pytest.mark.parametrize("code", LANGUAGES)
async def test_the_screenshot_toasts_and_the_quit_hint_speak_the_language(code: str) -> None:
    use(code)
    app = menu_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.post_message(events.DeliveryComplete(key="a", path=Path("/tmp/shot.svg"), name="screenshot"))
        app.post_message(events.DeliveryComplete(key="b", path=None, name="screenshot"))
        app.post_message(events.DeliveryFailed(key="c", exception=OSError("full"), name="screenshot"))
        app.action_help_quit()
        await pilot.pause()
        told = [(n.title, n.message) for n in app._notifications]
    screenshot = _(textual_translated.SCREENSHOT)
    assert (screenshot, _(textual_translated.SCREENSHOT_SAVED_TO).format(path="'/tmp/shot.svg'")) in told, told
    assert (screenshot, _(textual_translated.SCREENSHOT_SAVED)) in told, told
    assert (screenshot, _(textual_translated.SCREENSHOT_FAILED)) in told, told
    assert (_(textual_translated.QUIT_QUESTION), _(textual_translated.QUIT_HINT).format(key="q")) in told, told
    english = ("Saved screenshot", "Failed to save screenshot", "Press ")
    assert not [t for t in told if t[1].startswith(english)], told
