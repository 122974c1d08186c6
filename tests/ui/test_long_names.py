"""Names as long as a name may be (24 characters) at 80x24: the label beside the hand cuts the
name and keeps "your turn" and the count in sight; the scoreboard keeps room for the names."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from kc_tui.config import NAME_MAX
from kc_tui.records.rows import MatchRecord
from kc_tui.ui.widgets import Scoreboard
from tests.historykit import play_recorded

from .conftest import wait_for
from .fitkit import screen_lines
from .gamekit import make_config, menu_app, opened, play_app, settled_game

SMALL = (80, 24)
NAMES = ("Gregory Kingsley Lemaire", "Kingsley Abernathy Smyth", "Leopold Fitzgerald Quinn")
#: The characters of each name the scoreboard shows at least, at 80 columns.
SHOWN = 9


@pytest.fixture(scope="module")
def match() -> MatchRecord:
    """A match of three AIs with long names (seat 0 the human), many rounds long."""
    return play_recorded(["greedy", "king-aware", "greedy"], 11, seat_name=lambda i, _kind: NAMES[i])


def test_the_names_are_as_long_as_a_name_may_be() -> None:
    assert {len(n) for n in NAMES} == {NAME_MAX}


async def test_a_long_name_leaves_your_turn_and_the_count_beside_the_hand() -> None:
    app = play_app(config=make_config(player_name=NAMES[0]))
    async with settled_game(app, SMALL) as (pilot, game):
        label = game.query_one("#me-label", Static)
        await wait_for(pilot, lambda: "your turn" in screen_lines(app, label)[-1])
        name, score, turn = (line.strip() for line in screen_lines(app, label))
        assert name.startswith(NAMES[0][:8]) and name.endswith("…"), name
        assert score == game.driver.score_text(0) and turn == "your turn"
        game.action_end_turn()
        n = game.session.hand_size(0)
        await wait_for(pilot, lambda: f"{n} cards" in screen_lines(app, label)[-1])
        assert screen_lines(app, label)[0].strip() == name


async def test_the_replays_scoreboard_shows_the_start_of_every_name_at_80x24(recorded: int, match: MatchRecord) -> None:
    app = menu_app()
    async with app.run_test(size=SMALL) as pilot:
        screen = await opened(pilot, recorded, len(match.rounds))
        board = screen.query_one(Scoreboard)
        await wait_for(pilot, lambda: len(board.results) == len(match.rounds) - 1)
        await pilot.pause()
        rows = screen_lines(app, board)
        # The replay names the player's seat "You".
        for shown in ("You", *(name[:SHOWN] for name in NAMES[1:])):
            assert any(shown in row for row in rows), f"{shown!r} is not on the scoreboard:\n" + "\n".join(rows)
        assert any("Tot" in row for row in rows), "\n".join(rows)
