"""At a match's end the summary says how the match moved the player's rating, before → after:
the rating kc_tui.records.rating gives for the player's results (the Stats screen's), worked out off the
UI thread. A first rated match gives the first rating; a demo shows no rating; a history that
cannot be read or opened is said in plain words and never stops the game."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from textual.widgets import Static

from kc_tui.engine import Rules
from kc_tui.match.recorder import Recorder
from kc_tui.records.rating import ai_anchors, player_rating
from kc_tui.records.rows import HistoryError, MatchRecord, default_history_path
from kc_tui.records.stats_shown import finished, player_matches, rating_view
from kc_tui.records.store import History
from kc_tui.ui.app import KingsCornersApp, StartOptions
from kc_tui.ui.dialogs.summary import RATING_PENDING, MatchSummary
from tests import waiting

from ..historykit import T0, play_recorded
from .conftest import wait_for
from .gamekit import ONE_ROUND, make_config, play_app, play_until, screen_text

SMALL = (80, 24)
#: A target low enough for a match of a round or two.
QUICK = Rules(target=5)


def games_of(totals: Sequence[int], kinds: Sequence[str], me: int = 0) -> list[tuple[str, float]]:
    """The player's score against every AI seat of a points match with these final totals
    (the lower total is better: 1 ahead, 0.5 level, 0 behind)."""
    out: list[tuple[str, float]] = []
    for seat, kind in enumerate(kinds):
        if seat != me:
            mine, theirs = totals[me], totals[seat]
            out.append((kind, 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0))
    return out


def earlier_records() -> list[MatchRecord]:
    """Three finished matches of the player (seat 0) against AIs, recorded in the history."""
    records = [
        play_recorded(["greedy", "greedy"], 21, QUICK, start=T0),
        play_recorded(["king-aware", "greedy", "random"], 22, QUICK, start=T0.replace(day=2)),
        play_recorded(["lookahead", "king-aware"], 23, QUICK, start=T0.replace(day=3)),
    ]
    history, problem = History.open(default_history_path())
    assert problem is None, problem
    with history:
        history.add_matches(records)
    return records


def kinds_of(record: MatchRecord) -> list[str]:
    return [s.kind for s in record.seats]


async def rating_shown(pilot: Any) -> tuple[MatchSummary, str]:
    """The match's summary once its rating line is worked out, and the line."""
    summary = await play_until(pilot, MatchSummary)
    assert isinstance(summary, MatchSummary)
    await wait_for(pilot, lambda: summary.rating != RATING_PENDING)
    await pilot.pause()
    line = str(summary.query_one("#rating", Static).render())
    return summary, line


def this_match(app: KingsCornersApp) -> tuple[list[int], list[str]]:
    game = app.game
    assert game is not None
    s = game.session
    return list(s.match.live_chips()), [seat.kind for seat in s.seats]


async def test_the_end_of_a_match_shows_the_rating_before_and_after_it() -> None:
    earlier = earlier_records()
    app = play_app(config=make_config(rules=ONE_ROUND))
    async with app.run_test(size=SMALL) as pilot:
        _summary, line = await rating_shown(pilot)
        totals, kinds = this_match(app)
        text = screen_text(app)
    anchors = ai_anchors()
    past = [g for r in earlier for g in games_of(r.totals, kinds_of(r))]
    before = player_rating(past, anchors)
    after = player_rating(past + games_of(totals, kinds), anchors)
    old, new = round(before.value), round(after.value)
    expected = f"Rating {old} → {new} ({new - old:+d})"
    assert line == expected
    assert expected in text, "the rating line is not on screen at 80x24"
    # The rating after the match is the Stats screen's, once the history has the match.
    history, _ = History.open(default_history_path())
    with history:
        done = [m for m in player_matches(history.matches()) if finished(m)]
    assert len(done) == 4
    stats = rating_view(done)
    assert stats.value is not None and round(stats.value) == new


async def test_the_first_rated_match_gives_the_first_rating() -> None:
    app = play_app(config=make_config(rules=ONE_ROUND))
    async with app.run_test(size=SMALL) as pilot:
        _summary, line = await rating_shown(pilot)
        totals, kinds = this_match(app)
    first = player_rating(games_of(totals, kinds), ai_anchors())
    assert line == f"Your first rating: {round(first.value)} ± {first.sd:.0f}"


@pytest.mark.parametrize("known", [True, False], ids=["by-its-id", "by-its-seed-and-start"])
async def test_the_match_counts_once_when_the_history_has_it_already(
    monkeypatch: pytest.MonkeyPatch, known: bool
) -> None:
    """The history may have recorded the match by the time its end reads it (the recorder's id
    for it known, or not yet): it counts once all the same."""
    earlier = earlier_records()
    real = History.matches
    app = play_app(config=make_config(rules=ONE_ROUND))

    def once_recorded(self: History, **kwargs: Any) -> list[MatchRecord]:
        recorder, game = app.recorder, app.game
        assert recorder is not None and game is not None
        uid, rounds = game.session.record.uid, len(game.session.match.results)
        waiting.wait_for(lambda: recorder.recorded(uid, rounds), what="the match recorded")
        return real(self, **kwargs)

    monkeypatch.setattr(History, "matches", once_recorded)
    if not known:
        monkeypatch.setattr(Recorder, "match_id", lambda self, uid: None)
    async with app.run_test(size=(120, 40)) as pilot:
        _summary, line = await rating_shown(pilot)
        totals, kinds = this_match(app)
    anchors = ai_anchors()
    past = [g for r in earlier for g in games_of(r.totals, kinds_of(r))]
    old = round(player_rating(past, anchors).value)
    new = round(player_rating(past + games_of(totals, kinds), anchors).value)
    assert line == f"Rating {old} → {new} ({new - old:+d})"


async def test_a_demo_shows_no_rating() -> None:
    options = StartOptions(seed=5, seats=["greedy", "king-aware"], pace="instant")
    app = KingsCornersApp(make_config(rules=QUICK), None, "demo", options)
    async with app.run_test(size=SMALL) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, MatchSummary), 60)
        await app.workers.wait_for_complete()  # anything that could work out a rating is done
        await pilot.pause()
        summary = app.screen
        assert isinstance(summary, MatchSummary)
        assert summary.rating is None
        assert not summary.query_one("#rating", Static).display
        assert "rating" not in screen_text(app).lower()


async def test_a_history_that_cannot_be_read_is_said_in_plain_words(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: History, **_: Any) -> list[MatchRecord]:
        raise HistoryError("the game history could not be read: the disk is failing")

    monkeypatch.setattr(History, "matches", broken)
    app = play_app(config=make_config(rules=ONE_ROUND))
    async with app.run_test(size=SMALL) as pilot:
        _summary, line = await rating_shown(pilot)
        assert line == "Your rating cannot be worked out: the game history could not be read: the disk is failing"
        assert "Traceback" not in screen_text(app)
        await pilot.press("m")  # the summary still answers
        await pilot.pause()
        assert not isinstance(app.screen, MatchSummary)


async def test_a_history_that_is_not_open_is_said_in_plain_words(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Recorder, "wait_open", lambda self, timeout: None)
    app = play_app(config=make_config(rules=ONE_ROUND))
    async with app.run_test(size=SMALL) as pilot:
        _summary, line = await rating_shown(pilot)
        assert line == "Your rating cannot be worked out: the game history is not available."


async def test_the_summary_shows_at_once_while_the_rating_is_worked_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """The summary does not wait for the history: the rating line comes when it is known."""
    import threading

    release = threading.Event()
    real = History.matches

    def slow(self: History, **kwargs: Any) -> list[MatchRecord]:
        release.wait(10)
        return real(self, **kwargs)

    monkeypatch.setattr(History, "matches", slow)
    app = play_app(config=make_config(rules=ONE_ROUND))
    async with app.run_test(size=SMALL) as pilot:
        summary = await play_until(pilot, MatchSummary)
        assert isinstance(summary, MatchSummary)
        assert str(summary.query_one("#rating", Static).render()) == RATING_PENDING
        release.set()
        await wait_for(pilot, lambda: summary.rating != RATING_PENDING)
        await pilot.pause()
        assert str(summary.query_one("#rating", Static).render()).startswith("Your first rating: ")
