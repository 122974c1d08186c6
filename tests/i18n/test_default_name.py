"""The default player's name, "You", in every language: the saved match's line (the menu's and
the resume question's) and the Settings screen's name field show the language's word, as the
table does; what is stored stays "You" until the player types another name."""

from __future__ import annotations

import pytest

from kc_tui.config import Config
from kc_tui.i18n import _, use
from kc_tui.match.session import MatchSession
from kc_tui.ui.dialogs.confirm import ResumeDialog
from tests.i18n.layoutkit import LANGUAGES, seen, seen_in
from tests.ui.gamekit import SettingsHost, type_into

SIZE = (100, 40)


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_saved_matchs_line_names_you_in_the_language(code: str) -> None:
    use(code)
    line = MatchSession.from_config(Config(), 5, save_path=None).summary()
    assert f"{_('You')} 0" in line, line
    assert "You" not in line, line


def test_the_saved_matchs_line_keeps_a_players_own_name() -> None:
    use("sw")
    line = MatchSession.from_config(Config(player_name="Kim"), 5, save_path=None).summary()
    assert "Kim 0" in line and _("You") not in line, line


@pytest.mark.parametrize("code", LANGUAGES)
async def test_the_resume_question_names_you_in_the_language(code: str) -> None:
    use(code)
    line = MatchSession.from_config(Config(), 5, save_path=None).summary()
    app = SettingsHost(Config())
    async with app.run_test(size=SIZE) as pilot:
        await app.push_screen(ResumeDialog(line))
        await pilot.pause()
        shown = seen_in(app)
        assert seen(_("You")) in shown and "You " not in shown, shown


@pytest.mark.parametrize("code", LANGUAGES)
async def test_settings_show_the_default_name_in_the_language_and_store_you(code: str) -> None:
    use(code)
    app = SettingsHost(Config())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.screen.query_one("#player-name").value == _("You")  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert app.results[-1] is not None and app.results[-1].player_name == "You"


@pytest.mark.parametrize("code", LANGUAGES)
async def test_defaults_in_settings_show_you_in_the_language_and_store_you(code: str) -> None:
    use(code)
    app = SettingsHost(Config(player_name="Kim"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("f5")
        await pilot.pause()
        assert app.screen.query_one("#player-name").value == _("You")  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert app.results[-1] == Config()


async def test_a_name_the_player_types_is_stored_as_typed() -> None:
    use("sw")
    app = SettingsHost(Config())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await type_into(pilot, app, "player-name", "Juma")
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert app.results[-1] is not None and app.results[-1].player_name == "Juma"


async def test_english_shows_and_stores_you_as_it_is() -> None:
    app = SettingsHost(Config(player_name="you"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.screen.query_one("#player-name").value == "you"  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert app.results[-1] is not None and app.results[-1].player_name == "you"
