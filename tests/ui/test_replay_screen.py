"""The replay screen (kc_tui/ui/screens/replay.py): keys and buttons step through a recorded round
and the table shows exactly the recorded positions; hidden cards stay off the screen until the
round's end and 'o'; play at a pace; notes; open_replay's refusals; snapshots."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from textual.widgets import Button, Static

from kc_tui.config import HUMAN
from kc_tui.engine import END, Round, cards_of, play, sort_for_hand
from kc_tui.match.replay import RoundReplay
from kc_tui.records.rows import ENV_HISTORY, MatchRecord, SeatInfo, default_history_path
from kc_tui.ui.app import KingsCornersApp
from kc_tui.ui.cards import CardLook
from kc_tui.ui.dialogs.whose_view import TABLE_VIEW, WhoseView
from kc_tui.ui.screens.replay import PACE_STEP, ReplayScreen, open_replay
from kc_tui.ui.widgets import HandView, MoveLog, OpponentPanel, TableView
from tests.match.kit import direct_round, play_match, store

from .conftest import wait_for
from .fitkit import assert_whole
from .gamekit import choose_view, click_button, menu_app, opened, screen_text

SIZE = (120, 40)
#: The round replayed on screen (of the match played with seed 11 by three AIs, seat 0 "You").
ROUND = 2


@pytest.fixture(scope="module")
def match() -> MatchRecord:
    return play_match(["greedy", "king-aware", "greedy"], 11)


def shows(screen: ReplayScreen, r: Round, match: MatchRecord, viewer: int | None = 0) -> None:
    """The screen draws position ``r``: every pile, the stock, the viewer's hand, the counts."""
    rec = match.rounds[screen.replay.round_number - 1]
    table = screen.query_one(TableView)
    for place in range(8):
        assert table.pile_view(place).pile == tuple(r.piles[place]), f"place {place}"
    if viewer is not None:
        hand = sort_for_hand(cards_of(r.hands[rec.seats.index(viewer)]))
        assert screen.query_one(HandView).cards == hand
    for panel in screen.query(OpponentPanel):
        assert panel.cards == r.hands[rec.seats.index(panel.seat)].bit_count()
        assert panel.to_move == (not r.over and rec.seats[r.to_move] == panel.seat)


def labels(cards: list[int]) -> list[str]:
    look = CardLook()
    return [look.label(c) for c in cards]


def hidden_cards(r: Round, match: MatchRecord, viewer: int) -> list[int]:
    rec = match.rounds[ROUND - 1]
    return [c for rs, s in enumerate(rec.seats) if s != viewer for c in cards_of(r.hands[rs])]


def status(screen: ReplayScreen) -> str:
    return str(screen.query_one("#replay-status", Static).render())


# ---------------------------------------------------------------------- stepping
async def test_keys_step_both_ways_through_the_recorded_positions(recorded: int, match: MatchRecord) -> None:
    moves = match.rounds[ROUND - 1].moves
    app = menu_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot, recorded, ROUND)
        shows(screen, direct_round(match, ROUND, 0), match)
        assert f"Round {ROUND} · move 0 of {len(moves)}" in status(screen)
        for k in range(1, 26):
            await pilot.press("right")
            assert screen.replay.position == k
            shows(screen, direct_round(match, ROUND, k), match)
        assert f"move 25 of {len(moves)}" in status(screen)
        for k in range(24, 9, -1):
            await pilot.press("left")
            shows(screen, direct_round(match, ROUND, k), match)
        # By turn: to the next turn's start, back to this one's.
        await pilot.press("shift+right")
        p = screen.replay.position
        assert moves[p - 1] == END and not any(m == END for m in moves[10 : p - 1])
        shows(screen, direct_round(match, ROUND, p), match)
        await pilot.press("right", "left_square_bracket")
        assert screen.replay.position == p
        await pilot.press("right_square_bracket")
        shows(screen, direct_round(match, ROUND, screen.replay.position), match)
        assert moves[screen.replay.position - 1] == END
        await pilot.press("end")
        last = direct_round(match, ROUND, len(moves))
        assert last.over
        shows(screen, last, match)
        assert "went out" in status(screen) or "blocked" in status(screen)
        # The log follows: the round's last lines are on it, and going back cuts it.
        log = screen.query_one(MoveLog)
        assert log._shown == screen.replay.log_lines and "won the round" in log._shown[-1]
        await pilot.press("home")
        shows(screen, direct_round(match, ROUND, 0), match)
        assert log._shown == screen.replay.log_lines and log._shown[0].startswith(f"Round {ROUND}: ")
        await pilot.press("left")
        assert screen.replay.position == 0 and "This is the deal" in status(screen)


async def test_the_buttons_step_too(recorded: int, match: MatchRecord) -> None:
    moves = match.rounds[ROUND - 1].moves
    app = menu_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot, recorded, ROUND)
        assert screen.query_one("#replay-back", Button).disabled
        for _ in range(3):
            await click_button(pilot, "#replay-forward")
        assert screen.replay.position == 3
        shows(screen, direct_round(match, ROUND, 3), match)
        await pilot.click("#replay-back")
        assert screen.replay.position == 2
        await pilot.click("#replay-turn-forward")
        assert moves[screen.replay.position - 1] == END
        await pilot.click("#replay-end")
        assert screen.replay.at_end and screen.query_one("#replay-forward", Button).disabled
        await pilot.click("#replay-turn-back")
        assert screen.replay.position in screen.replay.turn_starts
        await pilot.click("#replay-start")
        assert screen.replay.position == 0
        # Clicking a pile or a card plays nothing.
        await pilot.click("#pile-n")
        await pilot.click("#hand-row", offset=(1, 1))
        assert screen.replay.position == 0 and app.screen is screen


async def test_space_plays_at_the_pace_to_the_end_and_pauses(recorded: int, match: MatchRecord) -> None:
    moves = match.rounds[ROUND - 1].moves
    app = menu_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot, recorded, ROUND)
        assert screen.pace == "instant"  # the tests' config
        await pilot.press("minus", "minus", "minus")
        assert screen.pace == "slow" and "Pace: slow" in status(screen)
        await pilot.press("right", "space")
        assert screen.playing and "▶ slow" in status(screen) and screen.replay.position == 1
        assert screen.play_interval == PACE_STEP["slow"] > PACE_STEP["normal"]  # the timer of the next move
        await wait_for(pilot, lambda: screen.replay.position == 2)
        assert screen.playing
        await pilot.press("plus", "plus", "plus")  # faster while playing
        assert screen.pace == "instant" and screen.playing
        await wait_for(pilot, lambda: not screen.playing, what="the replay played to its end")
        assert not screen.playing and screen.replay.position == len(moves)
        shows(screen, direct_round(match, ROUND, len(moves)), match)
        await pilot.press("minus", "minus", "minus")
        assert screen.pace == "slow" and "Pace: slow" in status(screen)
        # Space at the end plays from the deal again; space again pauses.
        await pilot.press("space")
        assert screen.playing and screen.replay.position < len(moves) // 2
        await pilot.press("space")
        assert not screen.playing
        stopped = screen.replay.position
        await wait_for(pilot, lambda: screen.play_interval is None, what="no timer playing the moves")
        assert screen.replay.position == stopped
        await pilot.press("plus")
        assert screen.pace == "normal" and "Pace: normal" in status(screen)
        # Escape: back to where the replay was opened from.
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, ReplayScreen)


# ---------------------------------------------------------------------- what the player sees
async def test_hidden_cards_stay_off_screen_until_the_end_and_o(recorded: int, match: MatchRecord) -> None:
    moves = match.rounds[ROUND - 1].moves
    app = menu_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot, recorded, ROUND)
        for k in (0, 7, 20, len(moves) - 1):
            screen.replay.seek(k)
            screen.refresh_view()
            await pilot.pause()
            r = direct_round(match, ROUND, k)
            text = screen_text(app)
            for label in labels(hidden_cards(r, match, 0)):
                assert label not in text, f"{label} shown at move {k}"
            mine = sort_for_hand(cards_of(r.hands[match.rounds[ROUND - 1].seats.index(0)]))
            assert screen.query_one(HandView).cards == mine
        # Before the end 'o' is refused, with a message.
        await pilot.press("o")
        assert "The hands open at the round's end" in status(screen)
        assert not screen.replay.hands_open
        assert all(not p.reveal for p in screen.query(OpponentPanel))
        # At the end: still hidden until 'o', then every hand is on screen.
        await pilot.press("end")
        last = direct_round(match, ROUND, len(moves))
        hidden = hidden_cards(last, match, 0)
        assert hidden, "choose a round where an opponent is left with cards"
        text = screen_text(app)
        assert not any(label in text for label in labels(hidden))
        await pilot.press("o")
        await pilot.pause()
        assert screen.replay.hands_open and "hands open" in status(screen)
        text = screen_text(app)
        for label in labels(hidden):
            assert label in text
        assert str(screen.query_one("#replay-hands", Button).label) == "Hide hands"
        await pilot.press("o")
        await pilot.pause()
        assert not screen.replay.hands_open
        assert not any(label in screen_text(app) for label in labels(hidden))


async def test_the_message_of_o_before_the_end_is_whole_at_80_columns(recorded: int) -> None:
    app = menu_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await opened(pilot, recorded, ROUND)
        await pilot.press("right", "o")
        said = screen.query_one("#replay-status", Static)
        await wait_for(pilot, lambda: "The hands open" in status(screen))
        await pilot.pause()
        assert_whole(app, status(screen), said)


async def test_a_demo_is_seen_as_a_spectator(match: MatchRecord, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_HISTORY, raising=False)
    demo = play_match(["greedy", "random"], 4, human=None)
    match_id = store(default_history_path(), demo)
    app = menu_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot, match_id, 1)
        assert screen.viewer is None
        assert not screen.query("#replay-hand")
        assert {p.seat for p in screen.query(OpponentPanel)} == {0, 1}
        await pilot.press("right", "right")
        shows(screen, direct_round(demo, 1, 2), demo, viewer=None)
        r = direct_round(demo, 1, 2)
        text = screen_text(app)
        assert not any(label in text for label in labels([c for h in r.hands for c in cards_of(h)]))


async def test_notes_show_on_their_turn_literally(recorded: int, match: MatchRecord) -> None:
    app = menu_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        replay = RoundReplay.from_record(match, ROUND, 0)
        second = replay.turn_starts[1]
        note = "Kept the [b]king[/b] too long"
        screen = ReplayScreen.of_record(match, ROUND, 0, notes={second: note})
        app.push_screen(screen)
        await pilot.pause()
        line = screen.query_one("#replay-note", Static)
        assert "Note:" not in str(line.render())
        await pilot.press("right_square_bracket")
        assert screen.replay.position == second
        assert f"Note: {note}" in str(line.render())
        await pilot.press("right")
        if screen.replay.turn_start == second:
            assert f"Note: {note}" in str(line.render())
        await pilot.press("right_square_bracket")
        assert "Note:" not in str(line.render()) and "Last move:" in str(line.render())


# ---------------------------------------------------------------------- open_replay
async def test_open_replay_says_why_it_cannot(match: MatchRecord, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_HISTORY, raising=False)
    moves = match.rounds[0].moves
    r = direct_round(match, 1, 3)
    stranger = next(c for c in range(52) if not (r.hands[r.to_move] >> c) & 1 and all(c not in p for p in r.piles))
    rounds = list(match.rounds)
    rounds[0] = dataclasses.replace(rounds[0], moves=(*moves[:3], play(stranger, 0), *moves[4:]))
    bad_id = store(default_history_path(), dataclasses.replace(match, rounds=tuple(rounds)))
    app = menu_app()
    told: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.notify = lambda message, **kw: told.append(message)  # type: ignore[method-assign]
        open_replay(app, bad_id + 100, 1)
        open_replay(app, bad_id, 99)
        open_replay(app, bad_id, 1)
        open_replay(app, bad_id, 2)
        history, app.history = app.history, None
        open_replay(app, bad_id, 1)
        app.history = history
        await pilot.pause()
        assert not isinstance(app.screen, ReplayScreen)
    assert told[0] == f"Match {bad_id + 100} is not in the game history."
    assert told[1] == "Round 99 of this match was not recorded."
    assert told[2].startswith("Round 1 cannot be replayed: round 1, move 4 (")
    assert told[3].startswith("Round 2 cannot be replayed: round 1, move 4 (")
    assert told[4] == "The game history is not available, so no round can be replayed."


async def test_a_round_played_in_the_app_replays_from_the_history() -> None:
    """A round played on screen and recorded by the app is replayed move for move."""
    from kc_tui.ui.dialogs.summary import RoundSummary

    from .gamekit import play_app, play_until

    app = play_app()
    async with app.run_test(size=SIZE) as pilot:
        await play_until(pilot, RoundSummary)
        assert app.history is not None
        (record,) = app.history.matches()
        full = app.history.match(record.id)
        assert full is not None and len(full.rounds) == 1
        app.screen.dismiss(None)
        await pilot.pause()
        open_replay(app, record.id, 1)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ReplayScreen) and screen.viewer == 0
        await pilot.press("end")
        shows(screen, direct_round(full, 1, len(full.rounds[0].moves)), full)


# ---------------------------------------------------------------------- snapshots
def _snap_app(match_id: int, keys: tuple[str, ...]) -> tuple[KingsCornersApp, Any]:
    async def run_before(pilot: Any) -> None:
        await opened(pilot, match_id, ROUND)
        await pilot.press(*keys)
        await pilot.pause()

    return menu_app(), run_before


def test_snapshot_replay_mid_round(snap_compare: Any, recorded: int) -> None:
    app, run_before = _snap_app(recorded, ("right_square_bracket",) * 5 + ("right", "right"))
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_snapshot_replay_end_hands_open(snap_compare: Any, recorded: int) -> None:
    app, run_before = _snap_app(recorded, ("end", "o"))
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


async def test_a_match_of_several_people_replays_as_the_person_chosen(
    match: MatchRecord, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a person, a round of two people asks whose view: the table's draws no hand; with a
    person, from that person's seat."""
    people = (SeatInfo("Ana", HUMAN), SeatInfo("Ben", HUMAN), match.seats[2])
    monkeypatch.delenv(ENV_HISTORY, raising=False)
    match_id = store(default_history_path(), dataclasses.replace(match, seats=people))
    app = menu_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await wait_for(pilot, lambda: app.history is not None, what="the history")
        open_replay(app, match_id, ROUND)
        await wait_for(pilot, lambda: isinstance(app.screen, WhoseView))
        await choose_view(pilot, TABLE_VIEW)
        screen = app.screen
        assert isinstance(screen, ReplayScreen) and screen.viewer is None
        assert not screen.query(HandView), "a spectator's replay draws no hand"
        await pilot.press("escape")
        await pilot.pause()
        open_replay(app, match_id, ROUND, person="Ben")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ReplayScreen) and screen.viewer == 1
        shows(screen, direct_round(match, ROUND, 0), match, viewer=1)
