"""Fixtures shared by the whole suite."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import ai as ai_pkg
from ai.base import AIPlayer


@pytest.fixture
def registry() -> Iterator[dict[str, type[AIPlayer]]]:
    """The AI registry, restored after the test (replace a kind's class in it freely)."""
    ai_pkg.kinds()  # every kind registered before one is replaced
    saved = dict(ai_pkg.registry._REGISTRY)
    yield ai_pkg.registry._REGISTRY
    ai_pkg.registry._REGISTRY.clear()
    ai_pkg.registry._REGISTRY.update(saved)
