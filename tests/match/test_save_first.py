"""A table where another person's cards are at stake (several people at one keyboard, a hosted
table) saves first: a move, an undo or an AI's move whose save fails is not made, and the match
is exactly as it was; the table holds until a save works. One person against the AIs plays on
unsaved, and is told so. Plain Python: the session and the table driver, the save failing by
hand (:class:`tests.faultkit.FullDisk`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from kc_tui.config import HUMAN, Config, Opponent
from kc_tui.engine import END, Move, Rules
from kc_tui.match.session import MatchSession
from kc_tui.match.table import TableDriver
from tests.faultkit import FullDisk

PEOPLE = Config("Ana", (Opponent("Ben", HUMAN), Opponent("Greedy", "greedy")), rules=Rules(target=30))
SOLO = Config("Ana", (Opponent("Greedy", "greedy"),), rules=Rules(target=30))


@pytest.fixture
def disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FullDisk:
    full = FullDisk(tmp_path)
    monkeypatch.setattr(os, "replace", full.replace)
    return full


def as_it_is(s: MatchSession) -> tuple[Any, ...]:
    return s.to_dict(), s.stamp, s.lines_written, s.can_undo, s.hand(s.to_move)


def to_a_person(s: MatchSession) -> MatchSession:
    """``s`` once a person is on turn (the AIs played meanwhile)."""
    while s.ai_to_move:
        s.step_ai()
    return s


def a_play(s: MatchSession) -> Move:
    return next(m for m in s.match.round.legal_moves() if m != END)


def test_a_move_whose_save_fails_is_not_made_and_is_made_once_a_save_works(tmp_path: Path, disk: FullDisk) -> None:
    s = to_a_person(MatchSession.from_config(PEOPLE, 5, save_path=tmp_path / "save.json"))
    assert s.save_first and not s.holding
    seat = s.to_move
    disk.full = True
    before = as_it_is(s)
    reason = s.play_human(END)
    assert reason == s.hold_text and "cannot be saved (the disk is full)" in reason
    assert as_it_is(s) == before and s.holding and not s.saved
    assert not s.retry_save() and s.holding
    disk.full = False
    assert s.retry_save() and not s.holding
    assert s.play_human(END) is None and s.to_move != seat


def test_an_undo_whose_save_fails_is_not_made(tmp_path: Path, disk: FullDisk) -> None:
    s = to_a_person(MatchSession.from_config(PEOPLE, 5, save_path=tmp_path / "save.json"))
    assert s.play_human(a_play(s)) is None and s.can_undo
    disk.full = True
    before = as_it_is(s)
    assert not s.undo()
    assert as_it_is(s) == before and s.why_no_undo == s.hold_text
    disk.full = False
    assert s.undo() and not s.holding


def test_an_ais_move_whose_save_fails_waits(tmp_path: Path, disk: FullDisk) -> None:
    s = MatchSession.from_config(PEOPLE, 5, save_path=tmp_path / "save.json")
    driver = TableDriver(s, pace="instant")
    while s.to_move != 2:
        assert driver.play(END) is None if s.human_to_move else driver.decide(driver.ai_job().run())
    disk.full = True
    before = as_it_is(s)
    decision = driver.ai_job().run()
    assert not driver.decide(decision)
    assert as_it_is(s) == before and s.holding
    disk.full = False
    assert s.retry_save() and driver.decide(decision) and s.stamp != before[1]


def test_one_person_against_the_ais_plays_on_unsaved_and_is_told(tmp_path: Path, disk: FullDisk) -> None:
    s = to_a_person(MatchSession.from_config(SOLO, 5, save_path=tmp_path / "save.json"))
    assert not s.save_first
    disk.full = True
    assert s.play_human(END) is None and s.to_move == 1
    assert s.save_problem == "the disk is full" and not s.holding


def test_a_table_never_saved_is_not_held(disk: FullDisk) -> None:
    s = to_a_person(MatchSession.from_config(PEOPLE, 5, save_path=None))
    disk.full = True
    assert not s.save_first and s.play_human(END) is None
