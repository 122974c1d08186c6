"""A replay opened from a summary at a table of several people: it asks whose view, hands the
keyboard to that person, and then shows that person's hand and draws only (the table's view: no
hand, no drawn card); nothing of another hand before the round's end is rendered anywhere in the
replay's widgets, in the replay or in its review."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from textual.pilot import Pilot

from kc_tui.engine import Rules, cards_of
from kc_tui.match.replay import RoundReplay
from kc_tui.ui.app import KingsCornersApp
from kc_tui.ui.dialogs.match_detail import MatchDetail
from kc_tui.ui.dialogs.summary import MatchSummary, RoundSummary
from kc_tui.ui.dialogs.whose_view import TABLE_VIEW, WhoseView
from kc_tui.ui.screens.handoff import HandoffScreen, pass_line
from kc_tui.ui.screens.replay import ReplayScreen
from kc_tui.ui.widgets import HandView, MoveLog

from .conftest import wait_for
from .fitkit import assert_whole
from .gamekit import (
    HOT_SEAT_PEOPLE,
    SEED,
    choose_view,
    hot_seat_app,
    play_hot_seat_until,
    rendered_text,
    screen_text,
    view_choices,
    widget_text,
)

#: With SEED, Ana and Ben play a first round that Cy wins, both of them drawing and left with
#: cards; the match is then over (the round summary, then the match summary).
RULES = Rules(target=5, hand_size=5)
ANA, BEN = HOT_SEAT_PEOPLE
#: A line of the log that names a drawn card ("Ana drew 7♡"); counted draws end in "a card" or "cards".
NAMED_DRAW = re.compile(r"^(?P<who>.+) drew (?!a card$)(?!\d+ cards$)")


def app() -> KingsCornersApp:
    return hot_seat_app(SEED, RULES)


async def chooser(pilot: Pilot[Any]) -> WhoseView:
    """``v`` on the round summary: the question whose view, once it is up."""
    await play_hot_seat_until(pilot, RoundSummary)
    await pilot.press("v")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, WhoseView))
    screen = pilot.app.screen
    assert isinstance(screen, WhoseView)
    return screen


async def replay_as(pilot: Pilot[Any], name: str) -> ReplayScreen:
    """``name``'s view chosen, the handoff to ``name`` confirmed: the replay."""
    await choose_view(pilot, name)
    handoff = pilot.app.screen
    assert isinstance(handoff, HandoffScreen) and handoff.player == name
    assert pass_line(name) in screen_text(pilot.app)
    assert not handoff.query(HandView)
    await pilot.press("enter")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ReplayScreen))
    replay = pilot.app.screen
    assert isinstance(replay, ReplayScreen)
    return replay


def hand_at(replay: ReplayScreen, name: str, position: int | None = None) -> list[int]:
    """``name``'s hand at ``position`` of the replay (None: at its position)."""
    rp = replay.replay
    assert isinstance(rp, RoundReplay)
    r = rp.round_at(rp.position if position is None else position)
    return cards_of(r.hands[rp.seats.index(rp.names.index(name))])


def shown_cards(replay: ReplayScreen, cards: list[int]) -> list[tuple[str, str]]:
    """Which of ``cards`` any widget of the replay renders (shown or not), and where; and the
    screen itself."""
    texts = rendered_text(replay)
    texts["the screen"] = screen_text(replay.app)
    labels = [replay.look.label(c) for c in cards]
    return [(where, label) for where, text in texts.items() for label in labels if label in text]


def named_draws(replay: ReplayScreen) -> set[str]:
    """Whose drawn cards the replay's log names."""
    lines = replay.query_one(MoveLog).shown
    return {m["who"] for line in lines if (m := NAMED_DRAW.match(line)) is not None}


async def each_position(pilot: Pilot[Any], replay: ReplayScreen) -> list[int]:
    """Every position of the replay from the deal to the round's end, stepped by → (each drawn
    before it is returned)."""
    await pilot.press("home")
    await pilot.pause()
    out = [replay.replay.position]
    while not replay.replay.at_end:
        await pilot.press("right")
        await pilot.pause()
        out.append(replay.replay.position)
    return out


async def check_only_own_hand(pilot: Pilot[Any], replay: ReplayScreen, me: str, other: str) -> None:
    """At every position: ``me``'s hand in the hand row and rendered, none of ``other``'s cards
    rendered anywhere, no draw named but ``me``'s."""
    for position in await each_position(pilot, replay):
        mine = hand_at(replay, me)
        assert sorted(replay.query_one(HandView).cards) == sorted(mine)
        assert {label for _, label in shown_cards(replay, mine)} == {replay.look.label(c) for c in mine}
        theirs = hand_at(replay, other)
        assert not shown_cards(replay, theirs), f"{other}'s cards at position {position}"
        assert named_draws(replay) <= {me}


async def test_the_round_summary_asks_whose_view_and_hands_the_keyboard_over() -> None:
    a = app()
    async with a.run_test(size=(120, 40)) as pilot:
        question = await chooser(pilot)
        assert view_choices(question) == [ANA, BEN, TABLE_VIEW]
        summary = a.screen_stack[-2]
        assert isinstance(summary, RoundSummary)
        # Esc on the question, or on the handoff, goes back to the summary.
        await pilot.press("escape")
        await wait_for(pilot, lambda: a.screen is summary)
        await pilot.press("v")
        await wait_for(pilot, lambda: isinstance(a.screen, WhoseView))
        await choose_view(pilot, BEN)
        assert isinstance(a.screen, HandoffScreen) and a.screen.player == BEN
        await pilot.press("escape")
        await wait_for(pilot, lambda: a.screen is summary)
        await pilot.press("v")
        await wait_for(pilot, lambda: isinstance(a.screen, WhoseView))
        replay = await replay_as(pilot, BEN)
        assert replay.viewer == HOT_SEAT_PEOPLE.index(BEN)
        await pilot.press("escape")
        await wait_for(pilot, lambda: a.screen is summary)


async def test_bens_view_shows_his_hand_and_draws_only_in_the_replay_and_its_review() -> None:
    a = app()
    async with a.run_test(size=(120, 40)) as pilot:
        await chooser(pilot)
        replay = await replay_as(pilot, BEN)
        rp = replay.replay
        assert isinstance(rp, RoundReplay) and rp.draws_private
        assert not any("shuffled into the stock" in line for line in rp.log_lines)  # no card comes back
        await check_only_own_hand(pilot, replay, BEN, ANA)
        assert BEN in named_draws(replay)
        # Ana drew during the round: those cards were hers alone.
        assert any(line == f"{ANA} drew a card" for line in replay.query_one(MoveLog).shown)
        # At the round's end o opens every hand, the cards left, as the summary shows them...
        ana_left = hand_at(replay, ANA)
        assert ana_left
        await pilot.press("o")
        await pilot.pause()
        assert {label for _, label in shown_cards(replay, ana_left)} == {replay.look.label(c) for c in ana_left}
        assert named_draws(replay) <= {BEN}
        # ...there only: a step back shows Ana's hand as it was no more.
        await pilot.press("left")
        await pilot.pause()
        assert not rp.hands_open and not shown_cards(replay, hand_at(replay, ANA))
        await pilot.press("end")  # the end again: the hands opened there show again, until o
        await pilot.pause()
        assert rp.hands_open
        await pilot.press("o")
        await pilot.pause()
        assert not rp.hands_open
        # The review of Ben's turns: every position again, and every better plan move by move.
        await pilot.press("v")
        await wait_for(pilot, lambda: replay.review is not None and not replay.reviewing, 120)
        assert replay.review is not None and replay.review.turns
        await check_only_own_hand(pilot, replay, BEN, ANA)
        # A better plan on the table, move by move: Ben's longest turn marked (its plan is his
        # own, so it plays from that turn's start), whatever the expert found of his turns.
        start, turn = max(replay.reviewed.items(), key=lambda item: len(item[1].best_plan))
        assert turn.best_plan
        replay.reviewed[start] = dataclasses.replace(turn, mark="mistake")
        rp.seek(start)
        replay.refresh_view()
        await pilot.press("b")
        await pilot.pause()
        plan = replay._better
        assert plan is not None and len(plan) == len(turn.best_plan) + 1
        for at in range(len(plan)):
            assert replay._better_at == at
            assert sorted(replay.query_one(HandView).cards) == sorted(
                cards_of(plan[at].hands[rp.seats.index(HOT_SEAT_PEOPLE.index(BEN))])
            )
            assert not shown_cards(replay, hand_at(replay, ANA, start)), f"Ana's cards in the plan's move {at}"
            await pilot.press("right")
            await pilot.pause()


async def test_the_tables_view_shows_no_hand_and_names_no_drawn_card() -> None:
    a = app()
    async with a.run_test(size=(120, 40)) as pilot:
        await chooser(pilot)
        await choose_view(pilot, TABLE_VIEW)
        await wait_for(pilot, lambda: isinstance(a.screen, ReplayScreen))  # no handoff: no hand opens
        replay = a.screen
        assert isinstance(replay, ReplayScreen) and replay.viewer is None
        assert not replay.query(HandView)
        for position in await each_position(pilot, replay):
            for name in (*HOT_SEAT_PEOPLE, "Cy"):
                assert not shown_cards(replay, hand_at(replay, name)), f"{name}'s cards at position {position}"
            assert not named_draws(replay)
        await pilot.press("o")
        await pilot.pause()
        assert replay.replay.hands_open and not named_draws(replay)
        # The review looks at a player's own turns: the table has none.
        await pilot.press("v")
        await pilot.pause()
        assert replay.review is None and not replay.reviewing
        assert "the table's view holds none" in widget_text(replay.query_one("#replay-status"))


async def test_the_match_summarys_rounds_ask_whose_view_too() -> None:
    a = app()
    async with a.run_test(size=(120, 40)) as pilot:
        await play_hot_seat_until(pilot, MatchSummary)
        await pilot.press("v")
        await wait_for(pilot, lambda: isinstance(a.screen, MatchDetail))
        detail = a.screen
        await pilot.press("enter")  # the first round
        await wait_for(pilot, lambda: isinstance(a.screen, WhoseView))
        assert isinstance(a.screen, WhoseView) and view_choices(a.screen) == [ANA, BEN, TABLE_VIEW]
        replay = await replay_as(pilot, ANA)
        assert replay.viewer == HOT_SEAT_PEOPLE.index(ANA)
        await check_only_own_hand(pilot, replay, ANA, BEN)
        await pilot.press("escape")
        await wait_for(pilot, lambda: a.screen is detail)


async def test_the_question_and_the_handoff_are_whole_at_80x24() -> None:
    a = app()
    async with a.run_test(size=(80, 24)) as pilot:
        question = await chooser(pilot)
        await pilot.pause()
        for where, text in (
            ("#whose-title", "Replay round 1: whose view?"),
            ("#whose-note", "A person's view shows their hand and their draws only, once the keyboard is theirs."),
            *(("#whose-views", view) for view in view_choices(question)),
            ("#whose-keys", "Enter chooses · Esc goes back"),
        ):
            assert_whole(a, text, question.query_one(where))
        await choose_view(pilot, BEN)
        await pilot.pause()
        for text in (
            "Round 1's replay, as Ben saw it",
            pass_line(BEN),
            "The others look away: Ben's hand opens next. Esc goes back.",
            "Ben is here",
        ):
            assert_whole(a, text)


# ---------------------------------------------------------------------------- snapshots (80×24)
async def _question(pilot: Pilot[Any]) -> None:
    await chooser(pilot)
    await pilot.pause()


async def _handoff(pilot: Pilot[Any]) -> None:
    await chooser(pilot)
    await choose_view(pilot, BEN)
    assert isinstance(pilot.app.screen, HandoffScreen)
    await pilot.pause()


def test_snapshot_whose_view_80x24(snap_compare: Any) -> None:
    assert snap_compare(app(), terminal_size=(80, 24), run_before=_question)


def test_snapshot_replay_handoff_80x24(snap_compare: Any) -> None:
    assert snap_compare(app(), terminal_size=(80, 24), run_before=_handoff)
