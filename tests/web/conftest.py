"""The browser tests' fixture: a real ``kings-corners serve`` (:mod:`tests.web.servekit`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .servekit import Served, serving


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    """``kings-corners serve`` on a free loopback port, its root ``tmp_path/root``."""
    with serving(tmp_path) as running:
        yield running
