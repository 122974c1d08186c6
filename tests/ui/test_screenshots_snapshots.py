"""Snapshot tests of the main menu, the settings screen, the demo and the review (fixed size, seeded)."""

from __future__ import annotations

from typing import Any

from kc_tui.screenshots import DRIVERS, SIZE, make_app, shot_config


def test_menu_snapshot(snap_compare: Any) -> None:
    assert snap_compare(make_app(shot_config()), terminal_size=SIZE, run_before=DRIVERS["main-menu"])


def test_settings_snapshot(snap_compare: Any) -> None:
    assert snap_compare(make_app(shot_config()), terminal_size=SIZE, run_before=DRIVERS["settings"])


async def _settings_with_an_error(pilot: Any) -> None:
    await DRIVERS["settings"](pilot)
    await pilot.press("tab")  # to the opponent count
    pilot.app.screen.query_one("#target").focus()
    await pilot.press("ctrl+a", "ctrl+k", "9", "9", "9")
    await pilot.pause()


def test_settings_refusing_a_bad_target_snapshot(snap_compare: Any) -> None:
    assert snap_compare(make_app(shot_config()), terminal_size=SIZE, run_before=_settings_with_an_error)


def test_demo_with_open_hands_snapshot(snap_compare: Any) -> None:
    assert snap_compare(make_app(shot_config()), terminal_size=SIZE, run_before=DRIVERS["demo"])


def test_review_with_the_better_plan_snapshot(snap_compare: Any) -> None:
    """A beginner's round reviewed (deterministic deal counts, so the marks are the same
    on every run), its costliest turn on the table with the better plan's first move."""
    assert snap_compare(make_app(shot_config()), terminal_size=SIZE, run_before=DRIVERS["review"])
