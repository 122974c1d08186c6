"""Several people at one keyboard while the save fails (a full disk, made for real on a tmpfs and
by hand everywhere): the table holds. A move is refused with the reason, the AI's move waits,
and play goes on by itself once a save works; so the save on disk always holds every card
shown, and a resume from it deals no one a card they were shown before."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from kc_tui.config.store import data_dir
from kc_tui.engine import END, Card
from kc_tui.match.saves import default_save_path
from kc_tui.match.session import MatchSession
from kc_tui.ui.app import KingsCornersApp
from kc_tui.ui.screens import driven
from kc_tui.ui.screens.game import GameScreen
from kc_tui.ui.screens.handoff import HandoffScreen

from ..faultkit import FullDisk, fill, small_disk
from .conftest import wait_for
from .gamekit import game_of, hot_seat_app, until_gone

#: Cy, the AI of :func:`hot_seat_app`'s table.
CY = 2


def listen(app: KingsCornersApp) -> list[str]:
    notes: list[str] = []
    app.notify = lambda message, **_: notes.append(str(message))  # type: ignore[method-assign]
    return notes


def note_shown(game: GameScreen, seen: dict[int, set[Card]]) -> None:
    """Add the cards the screen shows now to what the person whose hand is open has seen."""
    seat = game.seating.open_seat()
    if seat is None:
        return
    snap = game.driver.snapshot(seat)
    seen.setdefault(seat, set()).update(snap.seats[seat].hand or (), *snap.piles)


async def at_a_person(pilot: Any, seen: dict[int, set[Card]]) -> GameScreen:
    """Hand the keyboard over (Enter on the handoff) until a person's hand is open and theirs to
    play; what each is shown on the way is noted in ``seen``."""
    app = pilot.app

    def ready() -> bool:
        screen, game = app.screen, app.game
        if isinstance(screen, HandoffScreen):
            return True
        return screen is game and game is not None and game.seating.may_act() and not game.thinking

    while True:
        await wait_for(pilot, ready)
        await pilot.pause()
        screen = app.screen
        if isinstance(screen, HandoffScreen):
            await pilot.press("enter")
            await until_gone(pilot, screen)
            continue
        game = game_of(app)
        note_shown(game, seen)
        return game


async def end_turns(pilot: Any, count: int, seen: dict[int, set[Card]]) -> list[str]:
    """``count`` tries of whoever is at the keyboard to end their turn (the next seat draws); the
    messages the screen said for them."""
    said: list[str] = []
    for _ in range(count):
        game = await at_a_person(pilot, seen)
        before = game.session.stamp
        game.action_end_turn()
        await pilot.pause()
        if game.session.stamp == before:
            said.append(str(game.query_one("#status", Static).render()))
        note_shown(game, seen)
    await at_a_person(pilot, seen)
    return said


def drawn_again(seen: dict[int, set[Card]]) -> dict[int, set[Card]]:
    """By person: the cards they were shown that the stock of the save on disk holds."""
    saved = MatchSession.load(default_save_path())
    assert saved is not None
    stock = set(saved.match.round.stock)
    return {seat: cards & stock for seat, cards in seen.items()}


async def an_episode(pilot: Any, full: Callable[[bool], None]) -> dict[str, Any]:
    """Turns played, the disk made full (``full(True)``) and turns tried, what the save on disk
    would deal again; then the disk freed (the table saved again by itself) and a turn played."""
    app = pilot.app
    notes = listen(app)
    seen: dict[int, set[Card]] = {}
    await end_turns(pilot, 2, seen)
    full(True)
    said = await end_turns(pilot, 3, seen)
    game = game_of(app)
    out: dict[str, Any] = {
        "drawn_again": drawn_again(seen),
        "said": said,
        "holding": game.session.save_problem is not None,
    }
    full(False)  # no move is asked for: the table tries the save by itself
    await wait_for(pilot, lambda: any("saved again" in n for n in notes), what="told the match is saved again")
    out["saved_again"] = not game_of(app).session.holding
    await end_turns(pilot, 1, seen)
    out["notes"] = notes
    return out


def test_only_a_saved_table_of_several_people_saves_first(tmp_path: Path) -> None:
    people = hot_seat_app().config
    assert MatchSession.from_config(people, 3, save_path=tmp_path / "s.json").save_first
    assert not MatchSession.from_config(people, 3, save_path=None).save_first
    solo = people.with_(opponents=people.opponents[1:])
    assert not MatchSession.from_config(solo, 3, save_path=tmp_path / "s.json").save_first


@pytest.fixture
def quick_retry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(driven, "SAVE_RETRY", 0.05, raising=False)


async def test_a_failing_save_holds_a_hot_seat_table_and_no_card_shown_is_dealt_again(
    monkeypatch: pytest.MonkeyPatch, quick_retry: None
) -> None:
    disk = FullDisk(data_dir())
    monkeypatch.setattr(os, "replace", disk.replace)

    def full(now: bool) -> None:
        disk.full = now

    app = hot_seat_app()
    async with app.run_test(size=(120, 40)) as pilot:
        told = await an_episode(pilot, full)
    assert told["drawn_again"] == {0: set(), 1: set()}
    assert told["holding"]
    assert len(told["said"]) == 3 and all("cannot be saved (the disk is full)" in s for s in told["said"])
    assert any("no move is made until it can be" in n for n in told["notes"]) and told["saved_again"]


async def test_a_full_disk_holds_a_hot_seat_table_and_no_card_shown_is_dealt_again(
    monkeypatch: pytest.MonkeyPatch, quick_retry: None
) -> None:
    with small_disk() as disk:
        monkeypatch.setenv("KINGS_CORNERS_DATA", str(disk / "data"))
        filler: list[Path] = []

        def full(now: bool) -> None:
            if now:
                filler.append(fill(disk))
            else:
                filler.pop().unlink()

        app = hot_seat_app()
        async with app.run_test(size=(120, 40)) as pilot:
            told = await an_episode(pilot, full)
    assert told["drawn_again"] == {0: set(), 1: set()}
    assert told["holding"]
    assert len(told["said"]) == 3 and all("cannot be saved (the disk is full)" in s for s in told["said"])


async def test_the_ais_move_waits_while_the_save_fails_and_goes_on_by_itself(
    monkeypatch: pytest.MonkeyPatch, quick_retry: None
) -> None:
    disk = FullDisk(data_dir())
    monkeypatch.setattr(os, "replace", disk.replace)
    app = hot_seat_app()
    seen: dict[int, set[Card]] = {}
    async with app.run_test(size=(120, 40)) as pilot:
        game = await at_a_person(pilot, seen)
        while game.session.to_move != 1:  # Ben is on turn, Cy next
            await end_turns(pilot, 1, seen)
            game = game_of(app)
        disk.fill_after(1)  # Ben's end of turn is saved; Cy's move is not
        game.action_end_turn()
        await wait_for(pilot, lambda: game.session.holding and disk.refused >= 2, what="Cy's move held")
        assert game.session.to_move == CY and game.session.match.round.history[-1] == (1, END)
        disk.full = False
        await wait_for(pilot, lambda: game.session.to_move != CY and not game.session.holding, what="Cy moved")
