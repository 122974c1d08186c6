"""The UI tests' fixtures, and the one way they wait for the app (:func:`wait_for`)."""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from textual.pilot import Pilot

from kc_tui.match.cardtext import ENV_ASCII, decide_again
from kc_tui.records.rows import ENV_HISTORY, MatchRecord, default_history_path
from tests.match.kit import store


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


def _described(condition: Callable[[], object]) -> str:
    try:
        return inspect.getsource(condition).strip()
    except (OSError, TypeError):
        return repr(condition)


async def wait_for(
    pilot: Pilot[Any], condition: Callable[[], object], timeout: float = 20.0, what: str | None = None
) -> None:
    """Wait until ``condition()`` holds, letting the app run; fail after ``timeout`` seconds
    naming what was waited for (``what``, or the condition's source) and the screens that are up."""
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() >= end:
            waited = what or _described(condition)
            screens = pilot.app.screen_stack
            raise AssertionError(f"timed out after {timeout} s waiting for {waited}; the screens: {screens}")
        await pilot.pause(0.05)
