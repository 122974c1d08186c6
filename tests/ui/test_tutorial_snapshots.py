"""Snapshots of Learn to play at 80x24: three steps in English (a move to make with its place
lit, a pile to move with both places lit, the score read after going out) and one in Thai."""

from __future__ import annotations

from typing import Any

import pytest

from kc_tui.i18n import use
from kc_tui.screenshots import SMALL, lesson_at, make_app, shot_config


@pytest.mark.parametrize(("lesson", "step"), [("build", 0), ("move", 0), ("out", 1)])
def test_a_step_at_80x24_snapshot(snap_compare: Any, lesson: str, step: int) -> None:
    assert snap_compare(make_app(shot_config()), terminal_size=SMALL, run_before=lesson_at(lesson, step))


def test_a_step_in_thai_at_80x24_snapshot(snap_compare: Any) -> None:
    use("th")
    assert snap_compare(make_app(shot_config()), terminal_size=SMALL, run_before=lesson_at("side", 0))
