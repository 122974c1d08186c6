"""The table driver on its own (no Textual): whole matches, stale decisions, AI faults, events."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest

from ai.base import AIPlayer
from ai.safe import SafePlayer
from kc_tui.config import Config, Opponent
from kc_tui.engine import END, Rules
from kc_tui.match.session import MatchSession
from kc_tui.match.table import (
    AIFault,
    Event,
    LogNotShared,
    MatchEnded,
    MoveMade,
    RoundEnded,
    TableDriver,
    TurnEnded,
)
from tests.ai.helpers import FAULTS


def run_match(driver: TableDriver, limit: int = 20_000) -> None:
    """Drive a whole match synchronously, the way a view does (AI jobs handed back)."""
    for _ in range(limit):
        if driver.session.match.over:
            return
        if driver.session.match.round.over:
            driver.finish_round()
        elif driver.session.human_to_move:
            legal = driver.session.match.round.legal_moves()
            assert driver.play(legal[0]) is None
        else:
            assert driver.decide(driver.ai_job().run())
    raise AssertionError("the match did not end")


def test_the_driver_is_plain_python() -> None:
    code = (
        "import sys, kc_tui.match.table; assert not [m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')]"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_whole_all_ai_match_runs_to_the_end_with_events_in_order() -> None:
    driver = TableDriver.for_demo(["greedy", "king-aware", "lookahead"], Rules(target=30), 4, "instant")
    events: list[Event] = []
    driver.listen(events.append)
    run_match(driver)
    s = driver.session
    assert s.match.over and s.match.winners and max(s.match.live_chips()) >= 30
    assert isinstance(events[-1], MatchEnded) and list(events[-1].winners) == s.match.winners
    assert isinstance(events[-2], RoundEnded) and events[-2].result == s.match.results[-1]
    rounds = [e for e in events if isinstance(e, RoundEnded)]
    assert [e.result for e in rounds] == s.match.results
    # Between two round ends: moves, the last of which ends the round (no TurnEnded after it).
    start = 0
    for e in rounds:
        end = events.index(e, start)
        chunk = events[start:end]
        assert chunk and isinstance(chunk[-1], MoveMade)
        for i, ev in enumerate(chunk):
            if isinstance(ev, TurnEnded):
                prev = chunk[i - 1]
                assert isinstance(prev, MoveMade) and prev.move == END and prev.seat == ev.seat
                assert ev.next_seat != ev.seat
        start = end + 1
    # Every move's log lines are in the log, in order.
    said = [line for e in events if isinstance(e, MoveMade) for line in e.lines]
    assert said and all(line in s.log for line in said[-50:])


def test_a_match_with_the_human_runs_through_the_same_driver() -> None:
    cfg = Config(opponents=(Opponent("Greedy", "greedy"),), rules=Rules(target=20))
    driver = TableDriver(MatchSession.from_config(cfg, 5, save_path=None), "normal")
    run_match(driver)
    assert driver.session.match.over


def test_stale_decisions_are_dropped() -> None:
    cfg = Config(opponents=(Opponent("Greedy", "greedy"), Opponent("Kingsley", "king-aware")))
    driver = TableDriver(MatchSession.from_config(cfg, 3, save_path=None))
    while not driver.session.ai_to_move:
        driver.play(END) if driver.session.human_to_move else driver.finish_round()
    job = driver.ai_job()
    decision = job.run()
    # Another table (a replaced demo or game) with the same position never takes it.
    other = TableDriver(MatchSession.from_config(cfg, 3, save_path=None))
    while not other.session.ai_to_move:
        other.play(END)
    assert not other.owns(decision) and not other.decide(decision)
    # The position moved on (here: a reload bumps the generation): dropped, nothing changes.
    moves = len(driver.session.match.round.history)
    driver.session.generation += 1
    assert not driver.is_current(decision) and not driver.decide(decision)
    assert len(driver.session.match.round.history) == moves
    fresh = driver.ai_job().run()
    assert driver.decide(fresh) and len(driver.session.match.round.history) == moves + 1
    # The same decision twice: the second is stale.
    assert not driver.decide(fresh)
    # A hint is never played for an AI, even for the position as it is.
    hint = dataclasses.replace(driver.ai_job().run(), hint=True)
    assert driver.is_current(hint) and not driver.decide(hint)
    assert len(driver.session.match.round.history) == moves + 1


@pytest.mark.real_ai_timeouts
@pytest.mark.parametrize(("faulty", "reason"), FAULTS)
def test_a_faulty_ai_falls_back_as_in_the_tournament(
    registry: dict[str, type[AIPlayer]], faulty: type[AIPlayer], reason: str
) -> None:
    registry["king-aware"] = faulty
    cfg = Config(opponents=(Opponent("Kingsley", "king-aware"),), rules=Rules(target=20))
    driver = TableDriver(MatchSession.from_config(cfg, 3, save_path=None))
    events: list[Event] = []
    driver.listen(events.append)
    while not driver.session.ai_to_move:
        driver.play(END) if driver.session.human_to_move else driver.finish_round()
    job = driver.ai_job()
    # The tournament's way: the same AI behind SafePlayer answers the same view.
    expected = SafePlayer(faulty(0)).choose(job.turn.view)
    decision = job.run()
    assert decision.move == expected and decision.fault == reason
    assert driver.decide(decision)
    fault = next(e for e in events if isinstance(e, AIFault))
    assert fault == AIFault(1, expected, reason)
    assert isinstance(events[events.index(fault) + 1], MoveMade)
    line = f"Kingsley's AI failed ({reason}); a simple fallback played instead"
    assert line in driver.session.log
    # The match still runs to its end, the fallback playing whenever the AI fails.
    run_match(driver)
    assert driver.session.match.over


@pytest.mark.parametrize("scoring", ["points", "chips"])
def test_both_views_get_the_same_target(scoring: str) -> None:
    rules = Rules(scoring=scoring, target=50)
    demo = TableDriver.for_demo(["greedy", "greedy"], rules, 1, "fast")
    cfg = Config(opponents=(Opponent("Greedy", "greedy"),), rules=rules)
    game = TableDriver(MatchSession.from_config(cfg, 1, save_path=None), "fast")
    want = 0 if scoring == "chips" else 50
    assert demo.shown_target == game.shown_target == want
    assert demo.snapshot(None).target == game.snapshot(0).target == want
    assert game.score_text(0) == (f"{game.session.match.live_chips()[0]} chips" if scoring == "chips" else "0/50 pts")


def test_snapshots_show_only_what_a_seat_may_see() -> None:
    cfg = Config(opponents=(Opponent("Greedy", "greedy"), Opponent("Kingsley", "king-aware")))
    driver = TableDriver(MatchSession.from_config(cfg, 3, save_path=None))
    mine = driver.snapshot(0)
    assert mine.seats[0].hand == tuple(driver.session.hand(0))
    assert mine.seats[1].hand is None and mine.seats[2].hand is None
    assert [s.cards for s in mine.seats] == [driver.session.hand_size(i) for i in range(3)]
    with pytest.raises(LogNotShared, match="theirs alone"):
        driver.snapshot(None)  # this log names the one person's draws
    with pytest.raises(LogNotShared):
        driver.snapshot(1)
    hosted = TableDriver(MatchSession.hosted(driver.session.seats, Rules(), 3))
    spectator = hosted.snapshot(None)
    assert all(s.hand is None for s in spectator.seats) and spectator.drawn is None
    assert spectator.legal == () and not spectator.can_undo
    open_hands = driver.snapshot(None, open_hands=True)
    assert all(s.hand == tuple(driver.session.hand(s.seat)) for s in open_hands.seats)


def test_pacing_follows_the_pace_setting() -> None:
    driver = TableDriver.for_demo(["greedy", "greedy"], Rules(), 1, "slow")
    assert driver.ai_delay == 1.2 and driver.round_end_delay == 1.2 and driver.next_round_delay == 3.0
    driver.pace = "fast"
    assert driver.ai_delay == 0.15 and driver.round_end_delay == 0.4
    driver.pace = "instant"
    assert driver.ai_delay == 0 and driver.round_end_delay == 0 and driver.next_round_delay == 0


def test_targets_refusals_and_hands_come_from_the_session() -> None:
    cfg = Config(opponents=(Opponent("Greedy", "greedy"),))
    driver = TableDriver(MatchSession.from_config(cfg, 3, save_path=None))
    s = driver.session
    while not driver.session.human_to_move:
        driver.decide(driver.ai_job().run())
    from kc_tui.engine import is_pile_move, is_play, play_card, source, target

    legal = s.match.round.legal_moves()
    for card in s.hand(0):
        want = {target(m) for m in legal if is_play(m) and play_card(m) == card}
        assert driver.session.targets_for_card(card) == want
    for place in range(8):
        want = {target(m) for m in legal if is_pile_move(m) and source(m) == place}
        assert driver.session.targets_for_pile(place) == want
        why = driver.session.why_not_pick_up(place)
        assert (why is None) == bool(s.match.round.piles[place])
        if why is not None:
            assert why.startswith("N is empty" if place == 0 else "") and ("a king" in why) == (place >= 4)
    hands = s.hands_to_score()
    assert [h[0] for h in hands] == [s.hand_size(i) for i in range(s.match.n)]
    assert all(0 <= kings <= cards for cards, kings in hands)


def test_the_suites_ais_get_a_wide_time_limit() -> None:
    """Outside the fallback's own tests a stalled AI thread is waited for, so a seeded game (and
    its snapshot) never changes with the machine's load."""
    from ai import make_player
    from tests.conftest import TEST_TIMEOUT_FACTOR

    assert SafePlayer(make_player("greedy", 1)).timeout_factor == TEST_TIMEOUT_FACTOR > 2.0
