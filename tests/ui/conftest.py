"""The UI tests' fixtures, and how they wait for the app (:func:`wait_for`, over :mod:`tests.waiting`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import pytest
from textual.pilot import Pilot

from kc_tui.match.card_format import ENV_ASCII, decide_again
from kc_tui.records.rows import ENV_HISTORY, MatchRecord, default_history_path
from tests.match.kit import store
from tests.waiting import WAIT, wait_until

from .gamekit import advised as advised

T = TypeVar("T")
#: How often a wait looks (seconds): each look lets the app handle its messages first.
LOOK = 0.05


@pytest.fixture
def ascii_terminal(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A terminal that cannot show suit symbols (``KINGS_CORNERS_ASCII=1``), decided afresh."""
    monkeypatch.setenv(ENV_ASCII, "1")
    decide_again()
    yield
    monkeypatch.delenv(ENV_ASCII)
    decide_again()


@pytest.fixture
def recorded(match: MatchRecord, monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    """The test module's ``match`` fixture recorded in the app's history (a temporary folder): its id."""
    monkeypatch.delenv(ENV_HISTORY, raising=False)
    yield store(default_history_path(), match)


def showing(pilot: Pilot[Any]) -> str:
    """What the app shows: its screens, and the lines of the one on top."""
    app = pilot.app
    try:
        lines = ["".join(seg.text for seg in strip).rstrip() for strip in app.screen._compositor.render_strips()]
    except Exception as exc:  # not drawn yet
        lines = [f"(not drawn: {exc!r})"]
    return f"the screens {app.screen_stack}, the top one showing:\n" + "\n".join(lines)


async def wait_for(
    pilot: Pilot[Any], condition: Callable[[], T | None], timeout: float = WAIT, what: str | None = None
) -> T:
    """Wait until ``condition()`` holds, letting the app run (:func:`tests.waiting.wait_until`):
    its value. Its failure names what was waited for and what the app shows."""
    return await wait_until(
        condition, timeout=timeout, what=what, showing=lambda: showing(pilot), pause=pilot.pause, poll=LOOK
    )
