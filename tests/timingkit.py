"""Wall-clock claims, kept out of the default run: a test that also bounds how long something
takes runs twice, ``untimed`` (its behaviour, in the default run) and ``timed`` (the bound too,
under the ``timing`` marker: ``python -m pytest -m timing``, run by CI on its own after the
default run). A loaded machine can slow anything down; only the timed runs say by how much."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

#: ``@pytest.mark.parametrize("timed", TIMED)``: the test's ``timed`` is True only in its timed run.
TIMED = [pytest.param(False, id="untimed"), pytest.param(True, id="timed", marks=pytest.mark.timing)]


@contextmanager
def within(seconds: float, timed: bool, what: str) -> Iterator[None]:
    """The block takes less than ``seconds`` (checked in the timed run only)."""
    start = time.perf_counter()
    yield
    took = time.perf_counter() - start
    if timed:
        assert took < seconds, f"{what} took {took:.2f} s (at most {seconds} s)"


@contextmanager
def at_least(seconds: float, timed: bool, what: str) -> Iterator[None]:
    """The block takes ``seconds`` or more (checked in the timed run only)."""
    start = time.perf_counter()
    yield
    took = time.perf_counter() - start
    if timed:
        assert took >= seconds, f"{what} took {took:.2f} s (at least {seconds} s)"
