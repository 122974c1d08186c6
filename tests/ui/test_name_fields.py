"""The settings' name fields with entries longer than a name may be: a long paste keeps the
first NAME_MAX characters, typing past the limit stops there, and either says so beside the field."""

from __future__ import annotations

from typing import Any

from textual import events
from textual.widgets import Select, Static

from kc_tui.config import NAME_MAX, Config
from kc_tui.ui.screens.settings import SettingsScreen
from kc_tui.ui.widgets.name_input import NameInput

from .gamekit import SettingsHost as Host

SIZE = (80, 24)


async def focused_field(pilot: Any, wid: str) -> NameInput:
    field: NameInput = pilot.app.screen.query_one(f"#{wid}", NameInput)
    field.focus()
    field.value = ""
    await pilot.pause()
    return field


def note_of(pilot: Any, wid: str) -> Static:
    note: Static = pilot.app.screen.query_one(f"#{wid}-note", Static)
    return note


async def test_a_long_paste_keeps_the_first_characters_and_says_so() -> None:
    app = Host(Config())
    async with app.run_test(size=SIZE) as pilot:
        field = await focused_field(pilot, "player-name")
        pasted = "".join(chr(ord("a") + k % 26) for k in range(10_000))
        field.post_message(events.Paste(pasted))
        await pilot.pause()
        assert field.value == pasted[:NAME_MAX]
        note = note_of(pilot, "player-name")
        assert note.display and note.region.height == 1
        shown = str(note.render())
        assert shown == f"Pasted 10,000 characters: names are at most {NAME_MAX}; the first {NAME_MAX} were kept."
        assert note.region.width >= len(shown)  # on one line at 80 columns
        assert isinstance(app.screen, SettingsScreen) and "player-name" not in app.screen.problems()
        # The next edit that fits takes the note away.
        await pilot.press("backspace")
        await pilot.pause()
        assert field.value == pasted[: NAME_MAX - 1] and not note.display


async def test_typing_past_the_limit_stops_there_and_says_so() -> None:
    app = Host(Config())
    async with app.run_test(size=SIZE) as pilot:
        field = await focused_field(pilot, "player-name")
        name = "Bartholomew Fitzwilliams".ljust(28, "x")
        await pilot.press(*name)
        await pilot.pause()
        assert field.value == name[:NAME_MAX]
        note = note_of(pilot, "player-name")
        assert note.display
        assert str(note.render()) == f"Names are at most {NAME_MAX} characters: the rest was cut."


async def test_a_paste_into_the_middle_keeps_the_first_characters() -> None:
    app = Host(Config())
    async with app.run_test(size=SIZE) as pilot:
        field = await focused_field(pilot, "opp-name-0")
        await pilot.press(*"Greedy", "home")
        field.post_message(events.Paste("Sir 0123456789012345678901234567890\nsecond line"))
        await pilot.pause()
        assert field.value == "Sir 01234567890123456789"
        assert len(field.value) == NAME_MAX and field.cursor_position == NAME_MAX
        assert str(note_of(pilot, "opp-name-0").render()).startswith("Pasted 35 characters")


async def test_a_short_paste_adds_no_note_and_a_hidden_opponents_note_hides() -> None:
    app = Host(Config())
    async with app.run_test(size=SIZE) as pilot:
        field = await focused_field(pilot, "opp-name-1")
        field.post_message(events.Paste("Kingsley"))
        await pilot.pause()
        assert field.value == "Kingsley" and not note_of(pilot, "opp-name-1").display
        field.post_message(events.Paste("k" * 40))
        await pilot.pause()
        assert note_of(pilot, "opp-name-1").display
        app.screen.query_one("#opponent-count", Select).value = 1
        await pilot.pause()
        assert not note_of(pilot, "opp-name-1").display
        app.screen.query_one("#opponent-count", Select).value = 2
        await pilot.pause()
        assert note_of(pilot, "opp-name-1").display
