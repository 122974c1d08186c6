"""The settings screen's manners: Esc asks before dropping changes, a field that does not apply is
hidden, the think time shows its unit, and every text can be read whole at 80x24."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App
from textual.widgets import Input, Label, Select, Static, Switch

from kc_tui.config import Config, Opponent
from kc_tui.config.store import load_config
from kc_tui.engine import Rules
from kc_tui.ui.screens.settings import DiscardDialog, SettingsBody, SettingsScreen

from .conftest import wait_for
from .fitkit import EXPERTS, flat, on_screen, read_every_text, screen_lines, shown, texts
from .gamekit import SettingsHost as Host
from .gamekit import saved_settings_host, type_into

SMALL = (80, 24)
SIZE = (100, 40)


def error_text(app: App[Any]) -> str:
    return str(app.screen.query_one("#error", Static).render())


# ------------------------------------------------------------------ (a) Esc asks before dropping changes


async def test_escape_without_changes_leaves_at_once() -> None:
    app = Host(Config())
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, SettingsScreen | DiscardDialog)
    assert app.results == [None]


async def test_a_change_typed_back_to_what_it_was_is_no_change() -> None:
    app = Host(Config(player_name="Kim"))
    async with app.run_test(size=SMALL) as pilot:
        await type_into(pilot, app, "player-name", "Kimberly")
        await type_into(pilot, app, "player-name", "Kim")
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, SettingsScreen | DiscardDialog)
    assert app.results == [None]


async def test_escape_with_changes_asks_and_n_keeps_them_on_screen() -> None:
    before, app = saved_settings_host()
    async with app.run_test(size=SMALL) as pilot:
        await type_into(pilot, app, "player-name", "Changed")
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, DiscardDialog)
        assert "Discard your changes? y / n" in "\n".join(screen_lines(app))
        await pilot.press("n")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SettingsScreen)
        assert screen.query_one("#player-name", Input).value == "Changed"
        # Esc on the question keeps editing too.
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, DiscardDialog)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen
        assert app.results == []
    assert load_config()[0] == before


async def test_y_discards_the_changes_and_the_theme_preview() -> None:
    before, app = saved_settings_host()
    async with app.run_test(size=SMALL) as pilot:
        theme = app.theme
        app.screen.query_one("#theme", Select).value = "dracula"
        await pilot.pause()
        assert app.theme == "dracula"
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, DiscardDialog)
        await pilot.press("y")
        await pilot.pause()
        assert not isinstance(app.screen, SettingsScreen | DiscardDialog)
        assert app.theme == theme
    assert app.results == [None]
    assert load_config()[0] == before


async def test_every_kind_of_field_counts_as_a_change_and_the_cancel_button_asks_too() -> None:
    changes: dict[str, Callable[[SettingsScreen], object]] = {
        "scoring": lambda s: setattr(s.query_one("#scoring", Select), "value", "chips"),
        "four_colour": lambda s: setattr(s.query_one("#four_colour", Switch), "value", True),
        "hand_size": lambda s: setattr(s.query_one("#hand_size", Input), "value", "6"),
        "defaults": lambda s: s.action_defaults(),
    }
    for what, change in changes.items():
        app = Host(Config(player_name="Kim", rules=Rules(hand_size=8)))
        async with app.run_test(size=SIZE) as pilot:
            screen = app.screen
            assert isinstance(screen, SettingsScreen)
            change(screen)
            await pilot.pause()
            assert screen.edited(), what
            await pilot.click("#cancel")
            await pilot.pause()
            assert isinstance(app.screen, DiscardDialog), what
            await pilot.click("#yes")
            await pilot.pause()
            assert app.results == [None], what


# ------------------------------------------------------------------ (b) the target score with points only


async def test_the_target_score_is_hidden_with_chips_and_shown_again_with_points() -> None:
    app = Host(Config())
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        target = screen.query_one("#target", Input)
        scoring = screen.query_one("#scoring", Select)
        assert shown(target) and not shown(screen.query_one("#chips_start"))
        assert target in screen.focus_chain
        assert "Target score" in "\n".join(screen_lines(app))
        scoring.value = "chips"
        await pilot.pause()
        assert not shown(target) and not shown(screen.query_one("#target-25"))
        assert target not in screen.focus_chain and screen.query_one("#target-25") not in screen.focus_chain
        assert shown(screen.query_one("#chips_start"))
        assert "Target score" not in "\n".join(screen_lines(app))
        scoring.value = "points"
        await pilot.pause()
        assert shown(target) and target in screen.focus_chain
        assert not shown(screen.query_one("#chips_start"))
        assert "Target score" in "\n".join(screen_lines(app))


async def test_a_chips_match_opens_with_the_target_hidden_and_keeps_it() -> None:
    cfg = Config(rules=Rules(scoring="chips", target=120))
    app = Host(cfg)
    async with app.run_test(size=SIZE) as pilot:
        assert not shown(app.screen.query_one("#target"))
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert app.results == [cfg]


async def test_a_bad_target_stops_mattering_once_hidden_and_the_old_one_is_kept() -> None:
    app = Host(Config(rules=Rules(target=75)))
    async with app.run_test(size=SIZE) as pilot:
        await type_into(pilot, app, "target", "9999")
        assert "Target score" in error_text(app)
        app.screen.query_one("#scoring", Select).value = "chips"
        await pilot.pause()
        assert "valid" in error_text(app)
        await pilot.press("ctrl+s")
        await pilot.pause()
    saved = app.results[-1]
    assert saved is not None and saved.rules.scoring == "chips" and saved.rules.target == 75


# ------------------------------------------------------------------ (c) the think time's unit


async def test_the_think_time_shows_its_unit_at_80_columns() -> None:
    app = Host(Config(opponents=EXPERTS))
    async with app.run_test(size=SMALL) as pilot:
        screen = app.screen
        for i in range(3):
            row = screen.query_one(f"#opponent-{i}")
            assert f"Ace{i}" in flat(" ".join(screen_lines(app, row)))
            assert "Expert" in flat(" ".join(screen_lines(app, row)))
            assert "think 1000 ms" in flat(" ".join(screen_lines(app, row))), screen_lines(app, row)
        # The longest think time fits too.
        await type_into(pilot, app, "opp-think-0", "10000")
        row = screen.query_one("#opponent-0")
        assert "think 10000 ms" in flat(" ".join(screen_lines(app, row))), screen_lines(app, row)
        assert "valid" in error_text(app)


# ------------------------------------------------------------------ (d) every text readable at 80x24


async def test_every_text_is_readable_at_80x24_with_points() -> None:
    app = Host(Config(opponents=EXPERTS))
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        assert await read_every_text(pilot, app) == []
        assert flat(error_text(app)) in flat(" ".join(screen_lines(app)))


async def test_every_text_is_readable_at_80x24_with_chips() -> None:
    app = Host(Config(opponents=EXPERTS, rules=Rules(scoring="chips")))
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        assert await read_every_text(pilot, app) == []


async def test_the_number_rules_explain_themselves_below_their_field() -> None:
    app = Host(Config())
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        all_texts = [flat(str(w.render())) for w in texts(app)]
        assert "1-10, usually 7" in all_texts
        assert "R2: cards dealt to each player" in all_texts
        assert any(t.startswith("R3: ") and t.endswith("; usually to_corner") for t in all_texts)
        assert "keep AI demos in the game history (marked as demos)" in all_texts


async def test_pgdn_is_offered_only_while_the_fields_do_not_fit() -> None:
    app = Host(Config(opponents=(Opponent("Greedy", "greedy"),)))
    async with app.run_test(size=(100, 120)) as pilot:
        await pilot.pause()
        assert app.screen.query_one(SettingsBody).max_scroll_y == 0
        assert "PgDn" not in screen_lines(app)[-1]
        await pilot.resize_terminal(100, 24)
        await pilot.pause()
        assert "PgDn More" in screen_lines(app)[-1]


async def test_pgdn_in_an_open_list_moves_in_the_list() -> None:
    app = Host(Config())
    async with app.run_test(size=SMALL) as pilot:
        screen = app.screen
        body = screen.query_one(SettingsBody)
        theme = screen.query_one("#theme", Select)
        theme.focus()
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()  # the fields scroll the theme into view
        at = body.scroll_y
        await pilot.press("enter")  # open the list of themes
        await pilot.pause()
        await pilot.press("pagedown", "enter")
        await pilot.pause()
        assert body.scroll_y == at, "the fields did not scroll"
        assert theme.value != Config().theme, "PgDn moved down the list"


async def test_every_label_is_whole_and_apart_from_its_field_at_80x24() -> None:
    """At 80 columns a label never runs into its value ("Kings in the layout to_corner: ..."):
    its words are whole in its column and the column's last two cells are blank."""
    app = Host(Config(opponents=EXPERTS))
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        body = app.screen.query_one(SettingsBody)
        labels = [w for w in body.query("HorizontalGroup.row > Label.label").results(Label) if shown(w)]
        assert len(labels) > 10
        for label in labels:
            label.scroll_visible(animate=False)
            await wait_for(pilot, lambda label=label: on_screen(app, label))  # type: ignore[misc]
            lines = screen_lines(app, label)
            assert flat(" ".join(lines)) == flat(str(label.render())), lines
            assert all(line[-2:] == "  " for line in lines), f"the label runs into its field: {lines}"
