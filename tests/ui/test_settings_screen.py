"""The settings screen: every setting persists across a restart, bad input is refused on the spot."""

from __future__ import annotations

import re
from pathlib import Path
from typing import cast

import pytest
from textual.app import App
from textual.color import Color
from textual.containers import VerticalScroll
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Button, Input, Label, OptionList, Select, Static, Switch
from textual.widgets.select import InvalidSelectValueError

import ai
from kc_tui import i18n
from kc_tui.config import HUMAN, THINK_MS_RANGE, Config, Opponent
from kc_tui.config.store import config_path, load_config
from kc_tui.engine import VARIANTS, Rules
from kc_tui.ui.screens.settings import DiscardDialog, SettingsScreen

from .conftest import wait_for
from .gamekit import SettingsHost as Host
from .gamekit import saved_settings_host, type_into

SIZE = (100, 40)


def error_text(app: App[None]) -> str:
    return str(app.screen.query_one("#error", Static).render())


async def test_every_setting_persists_across_a_restart() -> None:
    app = Host(load_config()[0])
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, SettingsScreen)
        await type_into(pilot, app, "player-name", "Ada")
        screen.query_one("#opponent-count", Select).value = 3
        await pilot.pause()
        assert screen.query_one("#opponent-2").display
        screen.query_one("#opp-kind-0", Select).value = "lookahead"
        screen.query_one("#opp-kind-1", Select).value = "expert"
        screen.query_one("#opp-kind-2", Select).value = "king-aware"
        await type_into(pilot, app, "opp-name-2", "Zoe")
        await type_into(pilot, app, "opp-think-1", "2500")
        await type_into(pilot, app, "target", "25")
        # A rule variant chosen with the keyboard: open the list, go down one, pick.
        screen.query_one("#draw", Select).focus()
        await pilot.press("enter", "down", "enter")
        await pilot.pause()
        assert screen.query_one("#draw", Select).value == "end"
        screen.query_one("#kings_on_sides", Select).value = "forbid"
        screen.query_one("#card_style", Select).value = "ascii"
        screen.query_one("#four_colour", Switch).value = True
        screen.query_one("#record_demos", Switch).value = False
        screen.query_one("#auto_hint", Switch).value = True
        screen.query_one("#pace", Select).value = "fast"
        screen.query_one("#theme", Select).value = "nord"
        await pilot.pause()
        assert "valid" in error_text(app)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert not isinstance(app.screen, SettingsScreen)
    saved = app.results[-1]
    assert saved is not None
    # A restart reads the same file back.
    loaded, warning = load_config()
    assert warning is None
    assert loaded == saved
    assert loaded.player_name == "Ada"
    assert [o.kind for o in loaded.opponents] == ["lookahead", "expert", "king-aware"]
    assert loaded.opponents[2].name == "Zoe"
    assert [o.name for o in loaded.opponents[:2]] == ["Lookout", "Ace"], "default names follow the kind"
    assert loaded.opponents[1].think_ms == 2500
    assert loaded.target == 25
    assert loaded.rules.draw == "end"
    assert loaded.rules.kings_on_sides == "forbid"
    assert loaded.card_style == "ascii"
    assert loaded.four_colour is True
    assert loaded.record_demos is False
    assert loaded.auto_hint is True
    assert loaded.pace == "fast"
    assert loaded.theme == "nord"


async def test_target_presets_and_fewer_opponents() -> None:
    app = Host(Config())
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await pilot.click("#target-25")
        await pilot.pause()
        assert screen.query_one("#target", Input).value == "25"
        screen.query_one("#opponent-count", Select).value = 1
        await pilot.pause()
        assert not screen.query_one("#opponent-1").display
        await pilot.click("#save")
        await pilot.pause()
    saved = app.results[-1]
    assert saved is not None and saved.target == 25 and len(saved.opponents) == 1
    assert load_config()[0] == saved


async def test_chips_scoring_with_a_stake() -> None:
    app = Host(Config())
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert not screen.query_one("#chips-row").display
        screen.query_one("#scoring", Select).value = "chips"
        await pilot.pause()
        assert screen.query_one("#chips-row").display
        await type_into(pilot, app, "chips_start", "80")
        await pilot.press("ctrl+s")
        await pilot.pause()
    saved = load_config()[0]
    assert saved.rules.scoring == "chips" and saved.rules.chips_start == 80


async def test_bad_input_is_refused_with_a_message_and_never_saved() -> None:
    app = Host(Config())
    path = config_path()
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await type_into(pilot, app, "target", "999")
        assert "from 5 to 500" in error_text(app)
        assert screen.query_one("#target", Input).has_class("-invalid")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, SettingsScreen), "a bad value must not close the screen"
        assert not path.exists(), "a bad value must never be saved"
        assert app.screen.focused is screen.query_one("#target", Input)

        await type_into(pilot, app, "target", "4")
        assert "from 5 to 500" in error_text(app)
        await type_into(pilot, app, "target", "x1")
        assert "whole number" in error_text(app)
        await type_into(pilot, app, "target", "30")
        assert "valid" in error_text(app)

        await type_into(pilot, app, "player-name", "   ")
        assert "your name cannot be empty" in error_text(app).lower()
        await type_into(pilot, app, "player-name", "Greedy")
        assert "share the name" in error_text(app)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert not path.exists()

        await type_into(pilot, app, "player-name", "Bo")
        screen.query_one("#opp-kind-0", Select).value = "expert"  # a kind that takes a think time
        await pilot.pause()
        await type_into(pilot, app, "opp-think-0", "5")
        assert "think time" in error_text(app)
        await type_into(pilot, app, "opp-think-0", "300")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert path.exists()
    assert app.results[-1] is not None and app.results[-1].target == 30


async def test_cancel_keeps_the_old_settings_and_theme() -> None:
    before, app = saved_settings_host()
    async with app.run_test(size=SIZE) as pilot:
        theme = app.theme
        await type_into(pilot, app, "player-name", "Changed")
        app.screen.query_one("#theme", Select).value = "dracula"
        await pilot.pause()
        assert app.theme == "dracula"  # previewed
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, DiscardDialog), "changes on screen: asked first"
        await pilot.press("y")
        await pilot.pause()
        assert app.theme == theme
    assert app.results == [None]
    assert load_config()[0] == before


async def test_defaults_button_resets_the_fields() -> None:
    custom = Config(
        player_name="Lee",
        opponents=(Opponent("Ex", "expert", 3000),),
        rules=Rules(target=100, draw="when_stuck"),
        pace="slow",
    )
    app = Host(custom)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f5")
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert app.results[-1] == Config()


async def test_a_save_that_fails_is_reported(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    app = Host(Config(), blocker / "settings.toml")  # its folder is a file: cannot write
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, SettingsScreen)
        assert "Could not save" in error_text(app)
    assert app.results == []


# ---------------------------------------------------------------------- think time, Tab, focus,
# messages, the random kind


def shown(app: App[None], wid: str) -> bool:
    """Whether the widget ``wid`` and every container around it are displayed."""
    widget = app.screen.query_one(f"#{wid}")
    return all(node.display for node in widget.ancestors_with_self if isinstance(node, Widget))


async def test_the_think_time_is_shown_only_for_kinds_that_take_one_and_kept_for_the_others() -> None:
    path = config_path()
    cfg = Config(opponents=(Opponent("Greedy", "greedy", 3000), Opponent("Ace", "expert", 2000)))
    app = Host(cfg)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert not shown(app, "opp-think-0") and shown(app, "opp-think-1")
        think_labels = screen.query("#opponent-0 .think")
        assert len(think_labels) == 3, "the word 'think', the field and 'ms'"
        kind = screen.query_one("#opp-kind-0", Select)
        offered = [k for k in ai.kinds() if k.offered]
        assert {k.takes_think_time for k in offered} == {True, False}, "the test needs both sorts of kind"
        for k in [*offered, *reversed(offered)]:
            kind.value = k.name
            await pilot.pause()
            assert shown(app, "opp-think-0") is k.takes_think_time, k.name
            assert all(w.display is k.takes_think_time for w in think_labels), k.name
        # A bad think time typed for the expert stops mattering once the kind ignores it.
        kind.value = "expert"
        await pilot.pause()
        await type_into(pilot, app, "opp-think-0", "5")
        assert "think time" in error_text(app)
        kind.value = "greedy"
        await pilot.pause()
        assert "valid" in error_text(app)
        await pilot.press("ctrl+s")
        await pilot.pause()
    saved = app.results[-1]
    assert saved is not None
    assert saved.opponents[0] == Opponent("Greedy", "greedy", 3000), "the saved think time is kept as it was"
    assert saved.opponents[1].think_ms == 2000
    assert "think_ms = 3000" in path.read_text(encoding="utf-8")
    assert load_config()[0] == saved


async def test_a_think_time_saved_for_a_kind_that_ignores_it_survives_an_untouched_save() -> None:
    cfg = Config(opponents=(Opponent("Rando", "random", 7000),))
    app = Host(cfg)
    async with app.run_test(size=SIZE) as pilot:
        assert not shown(app, "opp-think-0")
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert app.results[-1] == cfg
    assert load_config()[0] == cfg


def controls(app: App[None]) -> list[str]:
    return [w.id or "" for w in app.screen.focus_chain]


async def focused_after_each(pilot: Pilot[None], key: str, times: int) -> list[str | None]:
    """``key`` pressed ``times`` times: the id of the control focused after each press."""
    seen = []
    for _ in range(times):
        await pilot.press(key)
        await pilot.pause()
        focused = pilot.app.screen.focused
        assert focused is not None
        seen.append(focused.id)
    return seen


async def test_tab_and_shift_tab_walk_every_control_once_and_leave_the_target_row() -> None:
    cfg = Config()  # points scoring: the target row is in the chain, the chips fields are not
    app = Host(cfg)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        chain = controls(app)
        assert all(isinstance(w, Input | Select | Switch | Button) for w in screen.focus_chain), chain
        assert chain[:3] == ["player-name", "opponent-count", "opp-name-0"]
        assert chain[-3:] == ["save", "cancel", "defaults"]
        start = chain.index("target")
        assert chain[start : start + 4] == ["target", "target-25", "target-50", "scoring"]
        assert "chips_start" not in chain and "chips_per_card" not in chain
        # Tab from the target goes through every control once, in order, and comes back.
        screen.query_one("#target", Input).focus()
        await pilot.pause()
        assert await focused_after_each(pilot, "tab", len(chain)) == chain[start + 1 :] + chain[: start + 1]
        # Shift+Tab walks the same controls backwards.
        assert await focused_after_each(pilot, "shift+tab", len(chain)) == (chain[start:] + chain[:start])[::-1]
        # A preset pressed with the keyboard sets the target and keeps the focus: Tab goes on.
        screen.query_one("#target-25", Button).focus()
        await pilot.press("enter")
        await pilot.pause()
        assert screen.query_one("#target", Input).value == "25"
        assert screen.focused is screen.query_one("#target-25", Button)
        await pilot.press("tab")
        assert screen.focused is screen.query_one("#target-50", Button)
        await pilot.press("enter", "tab")
        await pilot.pause()
        assert screen.query_one("#target", Input).value == "50"
        assert cast(object, screen.focused) is screen.query_one("#scoring", Select)
        await pilot.press("shift+tab", "shift+tab", "shift+tab", "shift+tab")
        assert cast(object, screen.focused) is screen.query_one("#opp-kind-1", Select)


async def test_the_body_still_scrolls_from_the_keyboard() -> None:
    app = Host(Config())
    async with app.run_test(size=(100, 24)) as pilot:
        body = app.screen.query_one("#settings-body", VerticalScroll)
        assert body.max_scroll_y > 0, "the screen is short enough to scroll"
        await pilot.press("pagedown")
        await pilot.pause()
        assert body.scroll_y > 0


def background_of(widget: Widget) -> Color:
    """The colour behind the widget's text, as drawn (a select draws its value in a child)."""
    if isinstance(widget, Select):
        widget = widget.query_one("SelectCurrent")  # the select's face
    return widget.background_colors[1]


def distance(a: Color, b: Color) -> int:
    return abs(a.r - b.r) + abs(a.g - b.g) + abs(a.b - b.b)


async def test_the_focused_control_stands_out() -> None:
    app = Host(Config(rules=Rules(scoring="chips")))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        for wid in ("player-name", "opp-kind-0", "target", "target-25", "scoring", "chips_per_card", "four_colour"):
            widget = screen.query_one(f"#{wid}")
            label = widget.parent.query_one(".label", Label) if widget.parent else None
            screen.query_one("#save", Button).focus()
            await pilot.pause()
            before, label_before = background_of(widget), label.styles.color if label else None
            widget.focus()
            await pilot.pause()
            assert screen.focused is widget
            after = background_of(widget)
            # Textual's own focus tint is 5%: far too faint on a compact field.
            assert distance(before, after) >= 60, f"{wid}: {before} -> {after}"
            if label is not None:
                assert label.styles.color != label_before, f"{wid}: its row's label marks the row"
        save = screen.query_one("#save", Button)
        screen.query_one("#cancel", Button).focus()
        await pilot.pause()
        before_save = background_of(save)
        save.focus()
        await pilot.pause()
        assert distance(before_save, background_of(save)) >= 60


#: Whatever is typed that is not a whole number in range, the field is refused with one message
#: that names it and the numbers allowed.
JUNK: tuple[str, ...] = (
    "",
    "   ",
    "0",
    "-1",
    "+7",
    "1e9",
    "nan",
    "inf",
    "-inf",
    "7.5",
    "0x7",
    "7_0",
    "9" * 40,
    "9" * 5000,
    "[b]x[/b]",
    "[@click=app.quit]q[/]",
    "\x01\x1b[31m",
    "7\n",
    "²",
    "٣",
    "７",
)


def number_fields() -> list[tuple[str, str, tuple[int, int]]]:
    """Every whole-number field: its id, its name in messages and its range (from the declarations)."""
    fields = [(v.key, v.title, v.settings_range) for v in VARIANTS if v.bounds is not None]
    fields += [(f"opp-think-{i}", f"Opponent {i + 1}'s think time (ms)", THINK_MS_RANGE) for i in range(3)]
    return fields


async def test_every_number_field_refuses_junk_with_one_message_naming_the_range() -> None:
    path = config_path()
    experts = tuple(Opponent(f"Ace{i}", "expert") for i in range(3))
    app = Host(Config(opponents=experts, rules=Rules(scoring="chips")))
    fields = number_fields()
    assert {f[0] for f in fields} >= {"target", "hand_size", "chips_start", "chips_rounds", "opp-think-0"}
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        scoring = screen.query_one("#scoring", Select)
        for wid, title, (lo, hi) in fields:
            scoring.value = "points" if wid == "target" else "chips"  # the field applies, on screen
            await pilot.pause()
            inp = screen.query_one(f"#{wid}", Input)
            good = inp.value
            message = f"✗ {title}: a whole number from {lo} to {hi}."
            for text in (*JUNK, str(lo - 1), str(hi + 1), f"{hi}0"):
                inp.value = text
                await pilot.pause()
                assert error_text(app) == message, (wid, text)
                assert inp.has_class("-invalid"), (wid, text)
            await pilot.press("ctrl+s")
            await pilot.pause()
            assert isinstance(app.screen, SettingsScreen) and not path.exists(), wid
            assert screen.focused is inp, "Save points at the bad field"
            for text in (str(lo), str(hi), f"  {lo} ", f"0{lo}"):
                inp.value = text
                await pilot.pause()
                assert "valid" in error_text(app), (wid, text)
            inp.value = good
            await pilot.pause()
        # Typed key by key too: an empty field and 0 say the same thing.
        await type_into(pilot, app, "hand_size", "")
        assert error_text(app) == "✗ Hand size: a whole number from 1 to 10."
        await type_into(pilot, app, "hand_size", "0")
        assert error_text(app) == "✗ Hand size: a whole number from 1 to 10."
        await type_into(pilot, app, "hand_size", " 7 ")
        assert "valid" in error_text(app)
        scoring.value = "points"
        await type_into(pilot, app, "target", "0")
        assert error_text(app) == "✗ Target score: a whole number from 5 to 500."
        await type_into(pilot, app, "target", "50")
        assert "valid" in error_text(app)
        await pilot.press("ctrl+s")
        await pilot.pause()
    saved = app.results[-1]
    assert saved is not None and saved.rules.hand_size == 7 and saved.target == 50
    assert load_config()[0] == saved


async def test_random_is_offered_weakest_first_a_person_last_and_hint_is_not() -> None:
    app = Host(Config())
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        kind = screen.query_one("#opp-kind-0", Select)
        kind.focus()
        await pilot.press("enter")
        await pilot.pause()
        overlay = kind.query_one(OptionList)  # the open list
        options = [str(overlay.get_option_at_index(i).prompt) for i in range(overlay.option_count)]
        assert options == [*(k.title_shown for k in ai.kinds() if k.offered), HUMAN]
        assert options[0] == "Random" and not {"hint", "Hint"} & set(options)
        await pilot.press("escape")
        with pytest.raises(InvalidSelectValueError):
            kind.value = "hint"
        help_text = " ".join(str(w.render()) for w in screen.query(".help"))
        assert "Random: plays a random legal move" in help_text
        assert "hint" not in help_text


async def test_a_random_opponent_is_saved_and_read_back() -> None:
    path = config_path()
    app = Host(Config())
    async with app.run_test(size=SIZE) as pilot:
        app.screen.query_one("#opp-kind-1", Select).value = "random"
        await pilot.pause()
        assert app.screen.query_one("#opp-name-1", Input).value == "Rando", "the kind's default name"
        await pilot.press("ctrl+s")
        await pilot.pause()
    saved = app.results[-1]
    assert saved is not None and saved.opponents[1] == Opponent("Rando", "random", 1000)
    assert 'kind = "random"' in path.read_text(encoding="utf-8")
    loaded, warning = load_config()
    assert warning is None and loaded == saved
    # Opened again, the screen shows the random opponent and saves it unchanged.
    again = Host(loaded)
    async with again.run_test(size=SIZE) as pilot:
        assert again.screen.query_one("#opp-kind-1", Select).value == "random"
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert again.results[-1] == loaded


async def test_a_person_in_a_seat_has_a_name_no_think_time_and_is_saved() -> None:
    path = config_path()
    app = Host(Config())
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        screen.query_one("#opp-kind-0", Select).value = HUMAN
        await pilot.pause()
        assert screen.query_one("#opp-name-0", Input).value == "Player", "a person's seat is offered a name"
        assert not any(w.display for w in screen.query("#opponent-0 .think")), "no think time for a person"
        assert "each needs a name: not 'You'" in error_text(app), "several people: no one is 'you'"
        await type_into(pilot, app, "player-name", "Ana")
        await type_into(pilot, app, "opp-name-0", "ana")
        assert "cannot share the name 'ana'" in error_text(app), "two people with one name (case aside) are refused"
        await type_into(pilot, app, "opp-name-0", "Ben")
        assert "All settings are valid" in error_text(app)
        await pilot.press("ctrl+s")
        await pilot.pause()
    saved = app.results[-1]
    assert saved is not None and saved.opponents[0] == Opponent("Ben", HUMAN, 1000)
    assert saved.human_names == ("Ana", "Ben")
    assert 'kind = "human"' in path.read_text(encoding="utf-8")
    loaded, warning = load_config()
    assert warning is None and loaded == saved
    again = Host(loaded)
    async with again.run_test(size=SIZE) as pilot:
        assert again.screen.query_one("#opp-kind-0", Select).value == HUMAN
        assert not any(w.display for w in again.screen.query("#opponent-0 .think"))
        again.screen.query_one("#opp-kind-0", Select).value = "expert"
        await pilot.pause()
        assert again.screen.query_one("#opp-name-0", Input).value == "Ben", "a name typed is kept"
        assert all(w.display for w in again.screen.query("#opponent-0 .think"))


async def test_no_help_line_names_a_rule_twice() -> None:
    app = Host(Config(rules=Rules(scoring="chips")))
    async with app.run_test(size=SIZE):
        texts = [str(w.render()) for w in app.screen.query("#settings-body Static, #settings-body Label")]
        chips = [t for t in texts if t.startswith("Chips")]
        assert chips and "R16" in chips[0]
        for text in texts:
            ids = re.findall(r"\bR\d+\b", text)
            assert len(ids) == len(set(ids)), text


async def test_the_language_is_chosen_by_its_own_name_and_used_from_the_next_start() -> None:
    app = Host(load_config()[0])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, SettingsScreen))
        screen = app.screen
        choice = screen.query_one("#language", Select)
        assert choice.value == ""  # not chosen: the system's language
        offered = [str(prompt) for prompt, _value in choice._options]
        assert offered == ["the system's language", "English", "Kiswahili", "ไทย", "Tiếng Việt", "Italiano"]
        note = str(screen.query_one("#language-note", Static).render())
        assert "next time the game starts" in note
        choice.value = "th"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.results)
    assert app.results[-1] is not None and app.results[-1].language == "th"
    assert load_config()[0].language == "th"
    assert i18n.current() == "en"  # the screens open now keep their language
