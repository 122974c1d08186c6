"""Faults while a match is played, made for real: a full disk, the history write-locked by another
process, a second window on the same data folder. Each test asserts three things: no traceback,
a truthful one-line message, and nothing lost (the save on disk is the position on screen, or the
screen says it is not; every finished round is in the history exactly once once the fault clears)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from kc_tui.config.store import data_dir
from kc_tui.match.saves import default_save_path
from kc_tui.records.datalock import LOCK_NAME
from kc_tui.records.rows import default_history_path
from kc_tui.records.store import History
from kc_tui.ui.app import KingsCornersApp
from kc_tui.ui.dialogs.confirm import QuitDialog
from kc_tui.ui.dialogs.summary import MatchSummary, RoundSummary
from kc_tui.ui.screens.game import GameScreen

from ..faultkit import data_folder_held, fill, lock_held, small_disk
from .conftest import wait_for
from .gamekit import (
    TWO_ROUNDS,
    first_move,
    make_config,
    past_the_first_round,
    play_app,
    play_until,
    screen_text,
    settle,
)


def listen(app: KingsCornersApp) -> list[str]:
    notes: list[str] = []
    app.notify = lambda message, **_: notes.append(message)  # type: ignore[method-assign]
    return notes


def saved_position(path: Path) -> dict[str, Any]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    return {k: v for k, v in doc.items() if k not in ("log",)}


def shown_position(game: GameScreen) -> dict[str, Any]:
    return {k: v for k, v in game.session.to_dict().items() if k not in ("log",)}


def recorded_rounds() -> list[tuple[int, int]]:
    with History.open_read_only(default_history_path()) as h:
        return [(m.id, r.number) for m in h.matches(rounds=True) for r in m.rounds]


async def wait_for_note(pilot: Any, notes: list[str], text: str) -> str:
    """The first message said with ``text`` in it, once one is."""
    return await wait_for(pilot, lambda: next((n for n in notes if text in n), None), what=f"a message with {text!r}")


async def test_a_full_disk_mid_match_is_said_at_once_and_quit_says_the_match_is_not_saved(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with small_disk() as disk:
        monkeypatch.setenv("KINGS_CORNERS_DATA", str(disk / "data"))
        app = play_app()
        notes = listen(app)
        async with app.run_test(size=(120, 40)) as pilot:
            game = await settle(pilot)
            save = default_save_path()
            assert saved_position(save) == shown_position(game)
            before = save.read_bytes()
            filler = fill(disk)
            first_move(game)
            game = await settle(pilot)
            note = await wait_for_note(pilot, notes, "could not be saved")
            assert "\n" not in note and "quitting now loses" in note
            assert game.session.save_problem is not None and not game.session.saved
            assert save.read_bytes() == before, "a failed save changed the file"
            assert [p.name for p in save.parent.iterdir() if ".tmp" in p.name] == []
            await pilot.press("ctrl+q")
            await pilot.pause()
            assert isinstance(app.screen, QuitDialog)
            assert "NOT saved" in screen_text(app)
            await pilot.press("n")
            filler.unlink()
            game = await settle(pilot)
            first_move(game)
            game = await settle(pilot)
            await wait_for_note(pilot, notes, "saved again")
            assert game.session.saved and saved_position(save) == shown_position(game)
        # a traceback would have ended run_test with the exception


async def test_a_history_write_locked_at_a_rounds_end_never_freezes_and_loses_no_round() -> None:
    config = make_config(rules=TWO_ROUNDS)
    History.open(default_history_path())[0].close()
    with lock_held(default_history_path(), "write"):
        app = play_app(config=config)
        notes = listen(app)
        async with app.run_test(size=(120, 40)) as pilot:
            await play_until(pilot, RoundSummary)
            note = await wait_for_note(pilot, notes, "cannot record yet")
            assert "locked" in note and "kept on disk" in note
            await pilot.press("ctrl+q")
            await pilot.pause()
            assert isinstance(app.screen, QuitDialog)
            assert "not recorded the last rounds yet" in screen_text(app)
            await pilot.press("y")
        outbox = default_history_path().parent / "outbox"
        assert len(list(outbox.iterdir())) == 1, "the waiting round is not kept on disk"
    # The lock is gone: the next session records the round (once) and the resumed match goes on.
    app2 = KingsCornersApp(config, None, "menu")
    async with app2.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        app2.action_resume()
        await play_until(pilot, MatchSummary)
    rounds = recorded_rounds()
    assert [n for _, n in rounds] == list(range(1, len(rounds) + 1)) and len(rounds) >= 2
    assert len({m for m, _ in rounds}) == 1, "the resumed match was recorded as two"
    assert list(outbox.iterdir()) == []


async def test_a_second_window_on_the_same_data_folder_only_looks() -> None:
    config = make_config(rules=TWO_ROUNDS)
    first = play_app(config=config)
    async with first.run_test(size=(120, 40)) as pilot:
        await past_the_first_round(pilot)
        second = KingsCornersApp(config, None, "play")
        notes = listen(second)
        async with second.run_test(size=(120, 40)) as pilot2:
            await pilot2.pause()
            assert second.look_only is not None and "Another Kings Corners window" in second.look_only
            assert second.game is None and not second.can_resume()
            second.action_resume()
            second.action_new_game()
            assert sum("Another Kings Corners window" in n for n in notes) >= 2
            assert second.recorder is None
            await wait_for(pilot2, lambda: second.history is not None, what="the second window's history")
            assert second.history is not None and second.history.read_only
            assert second.history.count_matches() == 1
        await play_until(pilot, MatchSummary)
    rounds = recorded_rounds()
    assert len({m for m, _ in rounds}) == 1 and [n for _, n in rounds] == list(range(1, len(rounds) + 1))


async def test_a_data_folder_left_by_a_killed_window_is_taken_over_and_the_window_says_so() -> None:
    with data_folder_held(data_dir()) as holder:
        holder.kill()
        holder.wait(10)
    app = play_app()
    notes = listen(app)
    async with app.run_test(size=(120, 40)) as pilot:
        note = await wait_for_note(pilot, notes, "takes it over")
        assert f"(process {holder.pid}), which has ended" in note
        assert app.look_only is None and app.game is not None  # this window saves and records
        assert (data_dir() / LOCK_NAME).read_text() == str(os.getpid())
