"""One test per item of "Things people get wrong" in RULES.md."""

from __future__ import annotations

import random

import pytest

from kc_tui.engine import END, IllegalMove, Round, Rules, is_king, move_str

from .helpers import all_rule_combos, build, hand_text, invariant_problems, move_texts, mv, pile_text


def test_pitfall_queen_goes_on_a_king_of_the_other_colour_in_a_corner_or_a_side() -> None:
    piles = {"N": ["KS"], "E": ["7C"], "S": ["7H"], "W": ["9S"], "NE": ["KH"]}
    r = build([["QH", "QD", "QS", "QC"], []], piles, rest=1)
    ms = move_texts(r)
    assert {"play QH N", "play QD N", "play QS NE", "play QC NE"} <= ms
    for same_colour in ("play QS N", "play QC N", "play QH NE", "play QD NE"):
        assert same_colour not in ms
        with pytest.raises(IllegalMove, match="colour"):
            r.apply(mv(same_colour))
    r.apply(mv("play QD N"))
    r.apply(mv("play QC NE"))
    assert pile_text(r, "N") == ["KS", "QD"] and pile_text(r, "NE") == ["KH", "QC"]


@pytest.mark.parametrize("kings_on_sides", ["allow", "forbid"])
def test_pitfall_only_kings_start_corners_and_kings_fill_sides_only_when_allowed(kings_on_sides: str) -> None:
    piles = {"N": ["9H"], "E": ["7C"], "S": ["7H"]}  # W empty, all corners empty
    hand = ["KH", "QC", "JD", "5S", "AC"]
    r = build([hand, []], piles, rest=1, rules={"kings_on_sides": kings_on_sides})
    ms = move_texts(r)
    corners = ("NE", "SE", "SW", "NW")
    assert {f"play KH {p}" for p in corners} <= ms
    for card in hand[1:]:
        for p in corners:
            assert f"play {card} {p}" not in ms
            with pytest.raises(IllegalMove):
                r.apply(mv(f"play {card} {p}"))
    assert ("play KH W" in ms) == (kings_on_sides == "allow")
    assert {"play QC W", "play JD W", "play 5S W", "play AC W"} <= ms


def test_pitfall_a_moved_pile_carries_all_its_cards_and_splitting_is_illegal() -> None:
    # N is 9H 8S 7H; E is 8C.  Moving just the 7H of N onto the 8C would split N: never legal.
    # The whole pile (bottom 9H) does not fit on 8C, so N cannot move onto E at all.
    piles = {"N": ["9H", "8S", "7H"], "E": ["8C"], "S": ["TS"], "W": ["2D"]}
    r = build([["3C"], []], piles, rest=1)
    assert "move N E" not in move_texts(r)
    with pytest.raises(IllegalMove):
        r.apply(mv("move N E"))
    assert pile_text(r, "N") == ["9H", "8S", "7H"] and pile_text(r, "E") == ["8C"]
    # The whole pile fits on the black 10 at S: every card goes, in order.
    r.apply(mv("move N S"))
    assert pile_text(r, "S") == ["TS", "9H", "8S", "7H"]
    assert pile_text(r, "N") == []
    assert r.card_count() == 52


def test_pitfall_a_king_based_side_pile_moves_to_an_empty_corner_never_onto_a_pile() -> None:
    piles = {"N": ["KD", "QS", "JH"], "E": ["7C"], "S": ["7H"], "W": ["9S"], "NE": ["KC"], "SE": ["KS"]}
    r = build([["2C"], []], piles, rest=1)
    ms = move_texts(r)
    assert {"move N SW", "move N NW"} <= ms
    for onto in ("E", "S", "W", "NE", "SE"):
        assert f"move N {onto}" not in ms
        with pytest.raises(IllegalMove):
            r.apply(mv(f"move N {onto}"))
    r.apply(mv("move N NW"))
    assert pile_text(r, "NW") == ["KD", "QS", "JH"]


def test_pitfall_nothing_goes_on_an_ace_but_an_ace_topped_pile_still_moves() -> None:
    piles = {"N": ["3H", "2S", "AH"], "E": ["4S"], "S": ["4H"], "W": ["9S"]}
    r = build([["AC", "AD", "2D"], []], piles, rest=1)
    ms = move_texts(r)
    assert not any(t.startswith("play") and t.endswith(" N") for t in ms)
    for card in ("AC", "AD", "2D"):
        with pytest.raises(IllegalMove):
            r.apply(mv(f"play {card} N"))
    assert "move N E" in ms  # the bottom 3H fits on the black 4
    assert "move N S" not in ms  # but not on the red one
    r.apply(mv("move N E"))
    assert pile_text(r, "E") == ["4S", "3H", "2S", "AH"]


@pytest.mark.parametrize("out_with_open_side", ["end", "draw3"])
def test_pitfall_going_out_on_the_card_drawn_at_the_start_of_the_turn_ends_the_round_at_once(
    out_with_open_side: str,
) -> None:
    # Seat 0 holds QH and draws JS at the start of the turn; QH on KS, then JS on QH empties the hand.
    piles = {"N": ["KS"], "E": ["7C"], "S": ["7H"], "W": ["9S"]}
    rules = {"draw": "start", "out_with_open_side": out_with_open_side}
    r = build([["QH"], ["2C"], ["3C"]], piles, stock=["JS", "4D", "5D"], rest=1, rules=rules, drawn=False)
    assert hand_text(r, 0) == {"QH", "JS"}
    r.apply(mv("play QH N"))
    assert not r.over
    r.apply(mv("play JS N"))
    assert r.over and r.winner == 0
    assert r.to_move == 0, "nobody else gets a turn"
    assert len(r.stock) > 0, "the round ends even with cards left in the stock"
    assert r.legal_moves() == []


@pytest.mark.parametrize("n", [2, 3, 4])
def test_pitfall_the_52_cards_are_always_all_somewhere(n: int) -> None:
    rng = random.Random(n)
    combos = all_rule_combos()
    for k in range(12):
        rules = combos[(k * 7 + n) % len(combos)]
        r = Round.deal(n, rules, seed=1000 * n + k)
        steps = 0
        while not r.over and steps < 5000:
            assert invariant_problems(r) == [], (rules, steps)
            ms = r.legal_moves()
            m = ms[rng.randrange(len(ms))] if rng.random() < 0.7 else ms[0]
            r.apply(m)
            steps += 1
        assert r.over
        assert invariant_problems(r) == []
        in_hands = sum(r.hand_sizes())
        assert in_hands + len(r.stock) + sum(len(p) for p in r.piles) == 52


def test_pitfall_kings_never_start_anything_but_a_corner_or_an_allowed_side() -> None:
    # Over random rounds with kings_on_sides = forbid, no side pile ever starts with a king that a
    # player put there (only layout_kings = stay can leave one there at the deal).
    rng = random.Random(5)
    rules = Rules(kings_on_sides="forbid", layout_kings="to_corner")
    for seed in range(10):
        r = Round.deal(3, rules, seed=seed)
        while not r.over:
            for p in range(4):
                assert not (r.piles[p] and is_king(r.piles[p][0])), "a king on a side with kings_on_sides = forbid"
            ms = r.legal_moves()
            r.apply(ms[rng.randrange(len(ms))])


def test_pitfall_move_text_round_trips() -> None:
    r = build([["KH", "QC"], []], {"N": ["9H"]}, rest=1)
    for m in r.legal_moves():
        assert mv(move_str(m)) == m
    assert mv("end") == END
    assert mv("PLAY 10h n") == mv("play TH N")
