"""Keys a player can count on: a card keeps its number key for the whole turn (playing one never
renumbers the others; the next turn numbers the hand afresh), Resume is ``c`` in the menu and
in the "Start a new match?" question, and under chips scoring the first ``t`` of a turn with no
card played says that ending costs a chip (R16) before the second ends it."""

from __future__ import annotations

from textual.widgets import Button, Static

from kc_tui.engine import END, Rules, is_play, play_card, target
from kc_tui.ui.dialogs.confirm import ResumeDialog
from kc_tui.ui.screens.game import GameScreen
from kc_tui.ui.screens.menu import MenuScreen
from kc_tui.ui.widgets import HandView
from kc_tui.ui.widgets.hand import KEYS
from kc_tui.ui.widgets.pile import PLACE_KEYS

from .conftest import wait_for
from .fitkit import content, footer_keys, hand_keys
from .gamekit import make_config, play_app, settle

SIZE = (120, 40)


def keyed(game: GameScreen) -> dict[str, int]:
    """The key on each card of the hand, as the screen shows it: key → card."""
    return hand_keys(game.app, game.query_one(HandView))


async def test_a_card_keeps_its_key_through_the_turn_and_the_next_turn_numbers_afresh() -> None:
    app = play_app()
    async with app.run_test(size=SIZE) as pilot:
        game = await settle(pilot)
        before = keyed(game)
        hand = game.query_one(HandView).cards
        assert list(before) == list(KEYS[: len(hand)]), "a turn begins numbered in order"
        # A card that is not the hand's last: the cards after it would move up a place.
        m = next(m for m in game.session.match.round.legal_moves() if is_play(m) and play_card(m) != hand[-1])
        key = next(k for k, card in before.items() if card == play_card(m))
        await pilot.press(key, PLACE_KEYS[target(m)])
        await wait_for(pilot, lambda: play_card(m) not in game.query_one(HandView).cards)
        await pilot.pause()
        after = keyed(game)
        assert after == {k: c for k, c in before.items() if k != key}, "the others keep their keys"
        # The key pressed means the card shown with it.
        last = list(after)[-1]
        await pilot.press(last)
        await wait_for(pilot, lambda: game.selected_card == after[last])
        await pilot.press("escape")
        # The next turn numbers the hand afresh, in order.
        await pilot.press("t")
        game = await settle(pilot)
        if game.session.human_to_move and not game.session.match.round.over:
            assert list(keyed(game)) == list(KEYS[: len(game.query_one(HandView).cards)])


async def test_resume_is_c_in_the_menu_and_in_the_new_match_question() -> None:
    play = play_app()
    async with play.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+q", "y")
    app = play_app(mode="menu")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen) and bool(footer_keys(app)))
        menu_key = next(k.key for k in footer_keys(app) if k.description == "Resume")
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, ResumeDialog))
        dialog = app.screen
        assert str(dialog.query_one("#yes", Button).label) == f"Resume ({menu_key})"
        await wait_for(pilot, lambda: any(k.description == "Resume" for k in footer_keys(app)))
        assert next(k.key for k in footer_keys(app) if k.description == "Resume") == menu_key
        await pilot.press(menu_key)
        game = await settle(pilot)
        assert game.session.match.round.history, "the saved match carries on"


def message(game: GameScreen) -> str:
    return content(game.query_one("#status", Static))


def turns_ended(game: GameScreen) -> int:
    """The turns ended in the match so far (this round's, and one per earlier round)."""
    m = game.session.match
    return sum(1 for _, move in m.round.history if move == END) + 1000 * m.number


async def test_under_chips_the_first_t_without_a_card_played_says_it_costs_a_chip() -> None:
    app = play_app(config=make_config(rules=Rules(scoring="chips")))
    async with app.run_test(size=SIZE) as pilot:
        game = await settle(pilot)
        s = game.session
        assert "t: end turn (costs a chip)" in message(game)
        seat, chips, ended = s.to_move, s.match.live_chips()[s.to_move], turns_ended(game)
        await pilot.press("t")
        await pilot.pause()
        assert turns_ended(game) == ended and s.to_move == seat, "the first t does not end the turn"
        assert "costs a chip (R16" in message(game) and "press t again" in message(game)
        assert s.match.live_chips()[seat] == chips
        await pilot.press("t")
        await wait_for(pilot, lambda: turns_ended(game) > ended)
        assert s.match.live_chips()[seat] == chips - 1 or s.match.number > 1


async def test_under_chips_a_turn_with_a_card_played_ends_at_the_first_t() -> None:
    app = play_app(config=make_config(rules=Rules(scoring="chips")))
    async with app.run_test(size=SIZE) as pilot:
        game = await settle(pilot)
        s = game.session
        m = next(m for m in s.match.round.legal_moves() if m != END and is_play(m))
        game._select_card(play_card(m))
        game.action_pile(target(m))
        await pilot.pause()
        assert "costs a chip" not in message(game)
        ended = turns_ended(game)
        await pilot.press("t")
        await wait_for(pilot, lambda: turns_ended(game) > ended)
