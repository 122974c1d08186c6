"""One round summary and one match summary for every table: a round told by a table's server
(a remote seat's) and a round scored here show in the same dialog, its replay offered with its
review only where there is one; a match's end from a table's view shows the same dialog as at
home, with the table to go back to at a remote seat instead of playing again."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Button, Static

from kc_tui.match.view import RoundRow, SeatSnapshot, TableSnapshot
from kc_tui.ui.cards import CardLook
from kc_tui.ui.dialogs.summary import MatchSummary, RoundSummary, match_end, told_round

from .conftest import wait_for
from .gamekit import screen_text, widget_text

SIZE = (80, 24)


class Host(App[None]):
    """A bare app that shows ``dialog`` and keeps what it was dismissed with."""

    def __init__(self, dialog: Screen[Any]) -> None:
        super().__init__()
        self.dialog = dialog
        self.results: list[object] = []

    def compose(self) -> ComposeResult:
        yield Static("the table")

    def on_mount(self) -> None:
        self.push_screen(self.dialog, self.results.append)


def footer_keys(dialog: Screen[Any]) -> list[str]:
    """The descriptions of the dialog's keys that act now (what its footer shows)."""
    shown = [b.binding.description for b in dialog.active_bindings.values() if b.enabled and b.binding.show]
    return list(dict.fromkeys(shown))


def told(lines: int = 3) -> RoundSummary:
    names = ["Ana", "Ben", "Cy"]
    said = ["Round 1: Ben went out", *(f"{names[i % 3]}: line {i}" for i in range(lines))]
    end = told_round(1, "Ben", said, cards=[(1, 14), (), (30,)], names=names, look=CardLook())
    return RoundSummary(end, replay=lambda: None, review=False)


async def test_a_round_told_by_a_server_offers_its_replay_without_a_review() -> None:
    summary = told()
    app = Host(summary)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.screen is summary)
        assert summary.number == 1 and summary.cards == ((1, 14), (), (30,))
        assert footer_keys(summary) == ["Continue", "Replay"]
        assert str(summary.query_one("#replay", Button).label) == "Replay this round  (v)"
        text = screen_text(app)
        assert "Round 1: Ben went out" in text and "no cards left" in text and "Left in hand" in text
        summary.note("Fetching round 1's replay…")
        await pilot.pause()
        assert "Fetching round 1's replay…" in screen_text(app)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.results == [None])


async def test_a_round_summary_taller_than_the_screen_opens_at_its_title() -> None:
    summary = told(lines=40)
    app = Host(summary)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.screen is summary)
        await pilot.pause()
        box = summary.query_one(Vertical)
        assert box.max_scroll_y > 0, "the summary fits: it shows nothing of this"
        assert box.scroll_y == 0, "the summary opened scrolled down"
        assert widget_text(summary.query_one("#title", Static)) in screen_text(app)


def ended(viewer: int) -> TableSnapshot:
    seats = tuple(
        SeatSnapshot(i, name, kind, 0, total, False, i == 0, i == 1, None, f"{total}/10 pts")
        for i, (name, kind, total) in enumerate([("Ana", "human", 12), ("Ben", "human", 4)])
    )
    return TableSnapshot(
        viewer=viewer,
        piles=((),) * 8,
        stock=0,
        round_number=2,
        to_move=None,
        target=10,
        seats=seats,
        results=(RoundRow(1, 1, (5, 0)), RoundRow(2, 1, (7, 4))),
        round_over=True,
        over=True,
        winners=("Ben",),
        end_text="Ana reached 12: the match is over. Ben wins with 4.",
    )


async def test_a_remote_seats_match_end_is_the_match_summary_with_its_table_to_go_back_to() -> None:
    summary = MatchSummary(match_end(ended(1), you=1), table=True)
    app = Host(summary)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.screen is summary)
        text = screen_text(app)
        assert "You win the match!" in text and "Ana reached 12: the match is over." in text
        assert "*4" in text and "Play again" not in text and "Back to the table" in text
        assert not summary.check_action("again", ())
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.results == [None])


async def test_the_other_seat_reads_who_won_by_name() -> None:
    summary = MatchSummary(match_end(ended(0), you=0), table=True)
    app = Host(summary)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.screen is summary)
        assert "Ben wins the match" in screen_text(app)
        await pilot.press("m")
        await wait_for(pilot, lambda: app.results == ["menu"])
