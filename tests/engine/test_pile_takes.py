"""What a place takes next, as the table shows it under each pile (R8, R10, R11, R12)."""

from __future__ import annotations

import pytest

from kc_tui.engine import CORNERS, SIDES, Rules, parse_card, pile_takes
from kc_tui.engine.rules import KingsOnSides


def cards(*texts: str) -> tuple[int, ...]:
    return tuple(parse_card(t) for t in texts)


@pytest.mark.parametrize(
    ("pile", "words"),
    [(("8C",), "red 7"), (("KH", "QS", "JD"), "black 10"), (("JS", "TH"), "black 9"), (("3D", "2C"), "red A")],
)
def test_r8_a_pile_takes_one_rank_lower_in_the_other_colour(pile: tuple[str, ...], words: str) -> None:
    assert pile_takes(SIDES[0], cards(*pile), Rules()) == words


def test_r12_a_pile_ending_in_an_ace_takes_nothing() -> None:
    full = cards("KS", "QH", "JC", "TD", "9S", "8H", "7C", "6D", "5S", "4H", "3C", "2D", "AS")
    assert pile_takes(CORNERS[0], full, Rules()) == "nothing (ends in A)"


def test_r10_r11_an_empty_place_says_what_it_takes() -> None:
    assert pile_takes(CORNERS[1], (), Rules()) == "K only"
    assert pile_takes(SIDES[2], (), Rules()) == "any card"
    assert pile_takes(SIDES[2], (), Rules(kings_on_sides=KingsOnSides.FORBID)) == "any card but K"
