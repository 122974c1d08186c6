"""UI tests never touch the user's real settings or saved games."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point the settings file and the data directory at a fresh temporary folder."""
    monkeypatch.setenv("KINGS_CORNERS_CONFIG", str(tmp_path / "config" / "settings.toml"))
    monkeypatch.setenv("KINGS_CORNERS_DATA", str(tmp_path / "data"))
    yield tmp_path
