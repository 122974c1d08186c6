"""Pilot tests of a match against AI opponents (issue: play a match in the terminal)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from kc_tui.config.store import data_dir
from kc_tui.engine import END, PLACES, Move, is_pile_move, is_play, play_card, source, target
from kc_tui.match.session import MatchSession
from kc_tui.ui.dialogs.confirm import QuitDialog, ResumeDialog
from kc_tui.ui.dialogs.summary import MatchSummary, RoundSummary
from kc_tui.ui.screens.game import GameScreen
from kc_tui.ui.screens.menu import MenuScreen
from kc_tui.ui.widgets import PLACE_KEYS, HandView, PileView

from .conftest import wait_for
from .fitkit import shows_whole
from .gamekit import (
    ONE_ROUND,
    SEED,
    click_card,
    game_of,
    make_config,
    play_app,
    play_until,
    position,
    screen_text,
    settle,
    settled_game,
)

SIZE = (120, 40)


def _first(moves: list[Move], pred: Any) -> Move:
    for m in moves:
        if pred(m):
            return m
    raise AssertionError("no such move")


async def test_start_seeded_match_shows_table_hand_and_opponents() -> None:
    app = play_app()
    async with settled_game(app, SIZE) as (_pilot, game):
        s = game.session
        assert s.match.seed == SEED
        assert s.human_to_move
        assert s.names == ["You", "Greedy", "Kingsley"]
        hand = game.query_one(HandView)
        assert hand.cards == s.hand(0)
        text = screen_text(app)
        assert "Greedy" in text and "Kingsley" in text and "stock" in text
        for seat in (1, 2):
            assert f"{s.hand_size(seat)} cards" in text
        # The same seed deals the same match.
        again = MatchSession.from_config(make_config(), SEED, save_path=None)
        assert again.match.round.hands[0] != 0
        assert MatchSession.from_config(make_config(), SEED, save_path=None).match.round.piles[:4] is not None


async def test_hidden_information_opponent_cards_never_on_screen() -> None:
    app = play_app()
    async with settled_game(app, SIZE) as (_pilot, game):
        s = game.session
        text = screen_text(app)
        for seat in (1, 2):
            for card in s.hand(seat):
                assert game.look.label(card) not in text, f"opponent card {game.look.label(card)} is visible"
        for card in s.hand(0):
            assert game.look.label(card) in text


@pytest.mark.parametrize("by", ["keys", "mouse"])
async def test_play_a_legal_card(by: str) -> None:
    app = play_app()
    async with settled_game(app, SIZE) as (pilot, game):
        s = game.session
        m = _first(s.match.round.legal_moves(), is_play)
        card, dst = play_card(m), target(m)
        index = s.hand(0).index(card)
        pile = f"#pile-{PLACES[dst].lower()}"
        if by == "keys":
            await pilot.press("1234567890"[index])
        else:
            await click_card(pilot, index)
        assert game.selected_card == card
        assert game.query_one(pile, PileView).has_class("-target")
        if by == "keys":
            await pilot.press(PLACE_KEYS[dst])
        else:
            await pilot.click(pile)
        await pilot.pause()
        assert card not in s.hand(0)
        assert s.match.round.piles[dst][-1] == card
        assert s.log[-1].startswith("You ")
        assert game.look.label(card) in s.log[-1]


def _seed_with_pile_move() -> tuple[int, Move]:
    for seed in range(200):
        s = MatchSession.from_config(make_config(), seed, save_path=None)
        while s.ai_to_move:
            s.step_ai()
        if s.human_to_move:
            for m in s.match.round.legal_moves():
                if is_pile_move(m) and s.match.round.piles[target(m)]:
                    return seed, m
    raise AssertionError("no seed with a pile move")


async def test_move_a_pile_by_keys() -> None:
    seed, m = _seed_with_pile_move()
    app = play_app(seed)
    async with settled_game(app, SIZE) as (pilot, game):
        s = game.session
        src, dst = source(m), target(m)
        moving, onto = s.match.round.piles[src], s.match.round.piles[dst]
        await pilot.press(PLACE_KEYS[src])
        assert game.source_pile == src
        assert game.query_one(f"#pile-{PLACES[dst].lower()}", PileView).has_class("-target")
        await pilot.press(PLACE_KEYS[dst])
        await pilot.pause()
        assert s.match.round.piles[src] == ()
        assert s.match.round.piles[dst] == onto + moving
        assert "moved" in s.log[-1] and f"from {PLACES[src]}" in s.log[-1]


async def test_illegal_attempt_says_why_and_changes_nothing() -> None:
    app = play_app()
    async with settled_game(app, SIZE) as (pilot, game):
        s = game.session
        hand = s.hand(0)
        legal = set(s.match.round.legal_moves())
        piles = s.match.round.piles
        bad = next((i, p) for i, c in enumerate(hand) for p in range(8) if piles[p] and c * 8 + p not in legal)
        before = position(s)
        log_len = len(s.log)
        await pilot.press("1234567890"[bad[0]], PLACE_KEYS[bad[1]])
        await pilot.pause()
        status = str(game.query_one("#status").render())
        assert "✗" in status and "(R" in status, status
        assert position(s) == before
        assert len(s.log) == log_len


async def test_undo_takes_back_the_moves_of_this_turn() -> None:
    app = play_app()
    async with settled_game(app, SIZE) as (pilot, game):
        s = game.session
        before = position(s)
        m = _first(s.match.round.legal_moves(), is_play)
        await pilot.press("1234567890"[s.hand(0).index(play_card(m))], PLACE_KEYS[target(m)])
        await pilot.pause()
        assert position(s) != before
        await pilot.press("u")
        await pilot.pause()
        assert position(s) == before
        assert not s.can_undo


async def test_hint_suggests_a_legal_move_and_highlights_it() -> None:
    app = play_app()
    async with settled_game(app, SIZE) as (pilot, game):
        await pilot.press("h")
        game = await settle(pilot)
        hint = game.hint_move
        assert hint is not None and hint in game.session.match.round.legal_moves()
        assert "Hint" in str(game.query_one("#status").render())
        if hint != END:
            assert game.query_one(f"#pile-{PLACES[target(hint)].lower()}", PileView).has_class("-hint")


async def test_the_hint_names_its_plan_and_says_why() -> None:
    """The hint gives its plan and a reason from the planner's evaluation, whole on
    screen (the status line grows for it, and h shows the rest), with the key that plays its
    first move."""
    from ai.advice.hint import HintAI

    app = play_app()
    async with settled_game(app, (80, 24)) as (pilot, game):
        s = game.session
        advice = HintAI(s.match.seed + 7).advice(s.view(0), s.fmt)
        await pilot.press("h")
        game = await settle(pilot)
        status = game.query_one("#status")
        text = str(status.render())
        assert game.hint_move == advice.move
        assert advice.text in text and advice.reason in text
        assert text.startswith("Hint") and "Hint: Hint:" not in text
        if advice.move != END:
            assert text.startswith(f"Hint (press {PLACE_KEYS[target(advice.move)]} to play it")
        assert status.size.height >= 2 or len(text) <= status.size.width, "the reason is cut off"


async def test_end_turn_the_ais_play_and_it_is_your_turn_again() -> None:
    app = play_app()
    async with settled_game(app, SIZE) as (pilot, game):
        s = game.session
        moves_before = len(s.match.round.history)
        await pilot.press("t")
        game = await settle(pilot)
        if app.screen is not game:
            return  # an AI went out at once: covered by the round test
        assert s.human_to_move
        seats = [seat for seat, _ in s.match.round.history[moves_before:]]
        assert seats[0] == 0 and {1, 2} <= set(seats)
        assert sum(1 for line in s.log if line.endswith("ended the turn")) >= 3
        assert "Your turn" in str(game.query_one("#status").render())


async def test_seeded_round_to_its_summary() -> None:
    app = play_app()
    async with app.run_test(size=SIZE) as pilot:
        summary = await play_until(pilot, RoundSummary)
        s = game_of(app).session
        res = summary.result
        assert res.number == 1 and len(s.match.results) == 1
        text = screen_text(app)
        assert "Round 1:" in text
        for seat, name in enumerate(s.names):
            assert name in text
            assert str(res.totals[seat]) in text
        assert "Target 50" in text
        assert f"{s.names[s.match.dealer]} deals" in text
        if res.winner is not None:
            assert res.penalties[res.winner] == 0
        await pilot.press("enter")
        game = await settle(pilot)
        assert game.session.match.number == 2


async def test_the_round_summary_names_its_columns_in_words() -> None:
    app = play_app()
    async with app.run_test(size=SIZE) as pilot:
        summary = await play_until(pilot, RoundSummary)
        assert shows_whole(app, "Player Left in hand Penalty Total", summary)
        loser = next(seat for seat in summary.result.seats if seat != summary.result.winner)
        assert summary.result.cards_left[loser] > 0, "the column holds what a loser has left in hand"


async def test_a_match_to_the_target_and_play_again() -> None:
    app = play_app(config=make_config(rules=ONE_ROUND))
    async with app.run_test(size=SIZE) as pilot:
        await play_until(pilot, MatchSummary)
        s = game_of(app).session
        assert s.match.over
        totals = s.match.live_chips()
        assert max(totals) >= 5
        assert s.match.winners == [i for i, t in enumerate(totals) if t == min(totals)]
        text = screen_text(app)
        assert "wins the match" in text or "You win" in text or "shared win" in text
        assert not (data_dir() / "current-match.json").exists()  # nothing left to resume
        await pilot.press("a")
        game = await settle(pilot)
        # A fresh match (on a new, random seed): at most its first round played, since that
        # round can end before the human's first turn (an AI may go out at once).
        new = game.session
        assert new is not s and len(new.match.results) <= 1 and new.match.number <= 2


async def test_quit_and_resume_the_exact_position() -> None:
    app = play_app()
    async with settled_game(app, SIZE) as (pilot, game):
        s = game.session
        m = _first(s.match.round.legal_moves(), is_play)
        piles_before = list(s.match.round.piles)
        await pilot.press("1234567890"[s.hand(0).index(play_card(m))], PLACE_KEYS[target(m)])
        await pilot.pause()
        saved = position(s)
        log = list(s.log)
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert isinstance(app.screen, QuitDialog)
        await pilot.press("y")
        await pilot.pause()
    assert app.return_code == 0
    on_disk = json.loads((data_dir() / "current-match.json").read_text())
    assert on_disk["piles"] == saved["piles"]

    app2 = play_app(mode="menu")
    async with app2.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app2.screen, MenuScreen)
        assert app2.screen.query_one("#resume").display
        await pilot.press("c")
        game = await settle(pilot)
        assert position(game.session) == saved
        assert game.session.log == log
        assert game.session.human_to_move
        # The move played before quitting can still be taken back: undo works after a resume.
        assert game.session.can_undo
        await pilot.press("u")
        await pilot.pause()
        assert play_card(m) in game.session.hand(0)
        assert game.session.match.round.piles == piles_before
        assert not game.session.can_undo
        saved = position(game.session)  # the undo is saved too

    app3 = play_app(seed=99)  # `play` with a save offers to resume it
    async with app3.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app3.screen, ResumeDialog)
        await pilot.press("c")
        game = await settle(pilot)
        assert position(game.session) == saved


async def test_a_corrupt_save_is_reported_and_moved_aside() -> None:
    path: Path = data_dir() / "current-match.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"save_format": "kings-corners/save/1", "match": {"rounds": [[1,2,3]]')
    app = play_app(mode="menu")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        messages = [n.message for n in app._notifications]
        assert any("could not be resumed" in msg for msg in messages), messages
        assert not path.exists()
        assert list(path.parent.glob("current-match.json.corrupt-*"))
        assert isinstance(app.screen, MenuScreen)
        assert not app.screen.query_one("#resume").display


async def test_a_tiny_terminal_asks_to_enlarge_and_the_game_comes_back_untouched() -> None:
    app = play_app()
    async with settled_game(app, SIZE) as (pilot, game):
        await pilot.press("t")  # the AIs are to move when the terminal shrinks
        await pilot.resize_terminal(60, 20)
        await wait_for(pilot, lambda: "enlarge it to at least 80×24" in screen_text(app), what="the ask to enlarge")
        assert game.too_small
        text = screen_text(app)
        assert "enlarge it to at least 80×24" in text
        frozen = position(game.session)
        await app.workers.wait_for_complete()  # an AI's thought in flight has come back
        await pilot.pause()
        assert game._timer is None and not game.thinking, "nothing left that could move the game"
        assert position(game.session) == frozen  # nothing moves while it is too small
        await pilot.resize_terminal(*SIZE)
        game = await settle(pilot)
        assert not game.too_small
        assert "enlarge" not in screen_text(app)
        assert all(part.display for part in game.query(".table-part"))


async def test_screen_stays_live_while_an_ai_thinks_and_stale_moves_are_dropped(monkeypatch: Any) -> None:
    import ai as ai_pkg
    from ai.base import AIPlayer

    armed, release, answered = threading.Event(), threading.Event(), threading.Event()

    class SlowAI(AIPlayer):
        kind = "greedy"
        budget_ms = 60_000.0  # slow but within its budget: the fallback (at 2x) does not step in

        def choose(self, view: Any) -> Move:
            if armed.is_set():
                release.wait(30)  # thinks until the test lets it answer
                answered.set()
            return END

    monkeypatch.setitem(ai_pkg.registry._REGISTRY, "greedy", SlowAI)
    monkeypatch.setattr(ai_pkg.registry, "_load_all", lambda: None)
    app = play_app(seed=SEED)
    async with settled_game(app, SIZE) as (pilot, game):
        old = game.session
        armed.set()
        await pilot.press("t")
        await wait_for(pilot, lambda: game.thinking)
        await pilot.press("question_mark")  # help answers at once, while the AI still thinks
        await pilot.pause()
        assert type(app.screen).__name__ == "HelpDialog"
        assert game.thinking
        await pilot.press("escape")
        await pilot.press("p")  # pause answers too
        assert game.paused and game.thinking
        await pilot.press("p")
        moves_then = len(old.match.round.history)
        app.start_game(seed=5)  # a new game mid-thought
        release.set()
        await wait_for(pilot, answered.is_set)
        await settle(pilot)  # the stale answer was handled
        assert len(old.match.round.history) == moves_then, "a stale AI move was applied"
        new = game_of(app)
        assert new.session is not old
        assert isinstance(new, GameScreen)
