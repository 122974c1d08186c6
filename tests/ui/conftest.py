"""UI tests never touch the user's real settings or saved games."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kc_tui.match.cardtext import ENV_ASCII, decide_again


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point the settings file and the data directory at a fresh temporary folder."""
    monkeypatch.setenv("KINGS_CORNERS_CONFIG", str(tmp_path / "config" / "settings.toml"))
    monkeypatch.setenv("KINGS_CORNERS_DATA", str(tmp_path / "data"))
    yield tmp_path


@pytest.fixture
def ascii_terminal(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A terminal that cannot show suit symbols (``KINGS_CORNERS_ASCII=1``), decided afresh."""
    monkeypatch.setenv(ENV_ASCII, "1")
    decide_again()
    yield
    monkeypatch.delenv(ENV_ASCII)
    decide_again()
