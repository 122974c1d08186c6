"""Fixtures shared by the whole suite: no test touches the user's real settings or saved games,
so tests run side by side (pytest-xdist); every test starts in English."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import ai as ai_pkg
import kc_tui.records.rating
from ai.base import AIPlayer
from kc_tui.i18n import SOURCE, use
from tests.historykit import ANCHORS


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The slow sweeps and soaks run as long as they need: the run's ``timeout`` (pyproject.toml),
    which fails a hung test, is for the default run's tests."""
    for item in items:
        if item.get_closest_marker("slow") is not None and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(0))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: half as many workers again as there are cores. A UI test waits on its app's
    timers and workers part of the time, and the extra worker fills those waits."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, cores + cores // 2)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Workers steal tests from each other's queues, so a long test near the end keeps one
    worker busy while the others finish the rest (a plain ``--dist`` option would break runs
    without xdist)."""
    from xdist.scheduler import WorkStealingScheduling

    return WorkStealingScheduling(config, log)


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point the settings file and the data directory at the test's own temporary folder; no list
    of tables to join (the app is not a served tab's)."""
    monkeypatch.setenv("KINGS_CORNERS_CONFIG", str(tmp_path / "config" / "settings.toml"))
    monkeypatch.setenv("KINGS_CORNERS_DATA", str(tmp_path / "data"))
    monkeypatch.delenv("KINGS_CORNERS_ALLOW_JOIN", raising=False)
    # English, whatever the machine's locale (the command line chooses the language from it):
    # the expected texts are the source's. A test of another language chooses it itself.
    monkeypatch.setenv("LANGUAGE", "en")
    yield tmp_path
    use(SOURCE)


@pytest.fixture
def fixed_world(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Times shown in UTC and the fixed AI ratings (:data:`tests.historykit.ANCHORS`), whatever the machine."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    monkeypatch.setattr(kc_tui.records.rating, "ai_anchors", lambda: dict(ANCHORS))
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def registry() -> Iterator[dict[str, type[AIPlayer]]]:
    """The AI registry, restored after the test (replace a kind's class in it freely)."""
    ai_pkg.kinds()  # every kind registered before one is replaced
    saved = dict(ai_pkg.registry._REGISTRY)
    yield ai_pkg.registry._REGISTRY
    ai_pkg.registry._REGISTRY.clear()
    ai_pkg.registry._REGISTRY.update(saved)


#: The time an AI may take in tests, as a multiple of its budget: wide, so no seeded game, demo
#: or snapshot changes when a busy machine (or a garbage collection) stalls an AI thread past
#: twice its budget and greedy plays for it. Tests of the fallback itself are marked
#: ``real_ai_timeouts`` and keep the game's factor.
TEST_TIMEOUT_FACTOR = 50.0


@pytest.fixture(autouse=True)
def steady_ai_timeouts(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    import ai.safe

    if request.node.get_closest_marker("real_ai_timeouts") is None:
        monkeypatch.setattr(ai.safe, "TIMEOUT_FACTOR", TEST_TIMEOUT_FACTOR)
