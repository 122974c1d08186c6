"""Snapshots of the table mid-round, the round summary and the match summary (seeded,
pace instant, fixed terminal size)."""

from __future__ import annotations

from typing import Any

from kc_tui.engine import Rules, is_play, play_card
from kc_tui.ui.dialogs.summary import RATING_PENDING, MatchSummary, RoundSummary

from .conftest import wait_for
from .gamekit import make_config, play_app, play_until, settle

SIZE = (120, 40)


def test_snapshot_table_mid_round(snap_compare: Any) -> None:
    async def run_before(pilot: Any) -> None:
        game = await settle(pilot)
        game.action_end_turn()  # one circle of AI turns, so the log and piles have content
        game = await settle(pilot)
        s = game.session
        m = next(m for m in s.match.round.legal_moves() if is_play(m))
        await pilot.press("1234567890"[s.hand(0).index(play_card(m))])
        await pilot.pause()

    assert snap_compare(play_app(), terminal_size=SIZE, run_before=run_before)


def test_snapshot_round_summary(snap_compare: Any) -> None:
    async def run_before(pilot: Any) -> None:
        await play_until(pilot, RoundSummary)

    assert snap_compare(play_app(), terminal_size=SIZE, run_before=run_before)


def test_snapshot_match_summary(snap_compare: Any) -> None:
    config = make_config(rules=Rules(target=5))

    async def run_before(pilot: Any) -> None:
        summary = await play_until(pilot, MatchSummary)
        # the rating line, worked out in a thread
        await wait_for(pilot, lambda: summary.rating != RATING_PENDING, what="the rating worked out")
        await pilot.pause()

    assert snap_compare(play_app(config=config), terminal_size=SIZE, run_before=run_before)
