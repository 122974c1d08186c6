"""A first check that a seeded round deals 52 cards and plays to its end."""

import random

from kc_tui.engine import Round, Rules


def test_R2_deal_gives_every_player_seven_cards_and_keeps_52() -> None:
    r = Round.deal(4, Rules(), seed=3, dealer=2)
    sizes = r.hand_sizes()
    # R6 start: the first player (left of the dealer) has drawn one card.
    assert sizes[3] == 8 and sizes[0] == sizes[1] == sizes[2] == 7
    assert r.card_count() == 52


def test_random_round_ends() -> None:
    rr = random.Random(1)
    r = Round.deal(3, Rules(), seed=1)
    for _ in range(5000):
        if r.over:
            break
        ms = r.legal_moves()
        r.apply(ms[rr.randrange(len(ms))])
    assert r.over
