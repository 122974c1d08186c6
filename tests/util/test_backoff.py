"""The pauses between tries: doubling from the first up to the last, from the first again after a reset."""

from __future__ import annotations

import pytest

from kc_tui.util.backoff import Backoff


def test_pauses_double_up_to_the_last_and_start_again_after_a_reset() -> None:
    b = Backoff(0.5, 5.0)
    assert [b.next() for _ in range(6)] == [0.5, 1.0, 2.0, 4.0, 5.0, 5.0]
    b.reset()
    assert b.next() == 0.5


@pytest.mark.parametrize(("first", "last"), [(0.0, 1.0), (-1.0, 1.0), (2.0, 1.0)])
def test_pauses_that_cannot_grow_are_refused(first: float, last: float) -> None:
    with pytest.raises(ValueError, match="pauses"):
        Backoff(first, last)
