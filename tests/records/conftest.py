"""The history tests' fixtures: a history file in a temporary folder, and the history opened there."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kc_tui.records.rows import ENV_HISTORY
from kc_tui.records.store import History


@pytest.fixture
def path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A history file in a temporary folder; the user's folders are never touched."""
    monkeypatch.setenv("KINGS_CORNERS_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("KINGS_CORNERS_CONFIG", str(tmp_path / "settings.toml"))
    monkeypatch.delenv(ENV_HISTORY, raising=False)
    return tmp_path / "hist" / "history.sqlite3"


@pytest.fixture
def history(path: Path) -> Iterator[History]:
    h, message = History.open(path)
    assert message is None
    yield h
    h.close()
