"""A table of several people at one keyboard: each person's hints and undos are theirs (in the
history and in their statistics), and the round's summary shows the table as the round ended."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from kc_tui.cli import main
from kc_tui.engine import Rules
from kc_tui.records.rows import default_history_path
from kc_tui.records.store import History
from kc_tui.ui.dialogs.summary import RoundSummary

from .conftest import wait_for
from .gamekit import HOT_SEAT_PEOPLE, game_of, hot_seat_app, play_hot_seat_until, widget_text

ANA, BEN = HOT_SEAT_PEOPLE


async def test_each_persons_hints_are_theirs_and_the_summary_shows_the_round_as_it_ended(
    capsys: pytest.CaptureFixture[str],
) -> None:
    app = hot_seat_app(rules=Rules(target=200))
    async with app.run_test(size=(120, 40)) as pilot:
        summary = await play_hot_seat_until(pilot, RoundSummary, hints={ANA: 3, BEN: 1})
        game = game_of(app)
        s = game.session
        assert s.match.number == 2 and not s.match.over  # the next round is dealt under the summary
        label = widget_text(game.query_one("#me-label", Static))
        name = label.splitlines()[0].strip()
        seat = s.names.index(name)
        left = summary.result.cards_left[seat]
        assert name in (ANA, BEN) and left != s.hand_size(seat), "the deal gives the same count again"
        assert f"{left} card" in label.splitlines()[2], label
        recorder = game.driver.recorder
        assert recorder is not None
        await wait_for(pilot, lambda: recorder.recorded(s.record.uid, 1))
    history, problem = History.open(default_history_path())
    assert problem is None, problem
    (m,) = history.matches()
    full = history.match(m.id)
    assert full is not None
    (first,) = full.rounds
    ana, ben = s.names.index(ANA), s.names.index(BEN)
    assert first.seat_hints is not None and (first.seat_hints[ana], first.seat_hints[ben]) == (3, 1)
    assert first.hints == 4
    assert history.summary(ANA).overall.hints_per_round == 3.0
    assert history.summary(BEN).overall.hints_per_round == 1.0
    history.close()
    capsys.readouterr()
    for person, rate in ((ANA, "3.00"), (BEN, "1.00")):
        assert main(["stats", "--player", person]) == 0
        rows = [line.split() for line in capsys.readouterr().out.splitlines() if line.startswith("all ")]
        assert [row[-1] for row in rows] == [rate], f"{person}'s hints a round"
