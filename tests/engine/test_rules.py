"""One or more tests for every rule R1..R16 of RULES.md, on hand-built positions and seeded deals.

Colours: clubs and spades are black, diamonds and hearts red.
"""

from __future__ import annotations

import pytest

from kc_tui.engine import (
    END,
    IllegalMove,
    PositionError,
    Round,
    RoundOver,
    Rules,
    card_str,
    cards_of,
    is_king,
    parse_position,
)

from .helpers import PLACE_NAMES, build, c, hand_text, move_texts, mv, pile_text, position

# ---------------------------------------------------------------------------------------- R1


@pytest.mark.parametrize("n", [2, 3, 4])
def test_R1_two_to_four_players_can_be_dealt(n: int) -> None:
    r = Round.deal(n, Rules(), seed=7)
    assert r.n == n
    assert len(r.hands) == n


@pytest.mark.parametrize("n", [0, 1, 5, 6])
def test_R1_other_player_counts_are_refused(n: int) -> None:
    with pytest.raises(ValueError, match="R1"):
        Round.deal(n, Rules(), seed=1)


@pytest.mark.parametrize("n", [1, 5])
def test_R1_position_with_wrong_player_count_is_refused(n: int) -> None:
    hands = [["2C"]] + [[] for _ in range(n - 1)]
    with pytest.raises(PositionError, match="R1"):
        parse_position(position(hands))


def test_R1_match_refuses_wrong_player_count() -> None:
    from kc_tui.engine import Match

    with pytest.raises(ValueError, match="R1"):
        Match(5)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_R1_seats_take_turns_clockwise(n: int) -> None:
    # Nobody can move: the stock is empty and every turn just ends; seats follow 0, 1, .., n-1.
    r = build([["2C"], [], ["3C"], ["4C"]][:n], rest=1, to_move=0)
    order = []
    for _ in range(n - 1):
        order.append(r.to_move)
        r.apply(END)
    order.append(r.to_move)
    assert order == list(range(n))


# ---------------------------------------------------------------------------------------- R2


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("hand_size", [7, 5, 1])
def test_R2_every_player_is_dealt_hand_size_cards(n: int, hand_size: int) -> None:
    # draw = end: no card is drawn before the first move, so the hands are exactly the deal.
    for seed in range(5):
        r = Round.deal(n, Rules(draw="end", hand_size=hand_size), seed=seed, dealer=seed % n)
        assert r.hand_sizes() == [hand_size] * n
        assert r.card_count() == 52


@pytest.mark.parametrize("n", [2, 3, 4])
def test_R2_deal_is_one_card_at_a_time_clockwise_from_the_dealers_left(n: int) -> None:
    """Dealing one more card each takes the next n cards of the deck, one per seat, starting
    left of the dealer.  With ``layout_kings = stay`` the next cards after an h-card deal are
    the face-up sides N, E, S, W in order, so they must be what an (h+1)-card deal adds."""
    rules_h = Rules(draw="end", layout_kings="stay", hand_size=6)
    rules_h1 = Rules(draw="end", layout_kings="stay", hand_size=7)
    for seed in range(6):
        for dealer in range(n):
            small = Round.deal(n, rules_h, seed=seed, dealer=dealer)
            big = Round.deal(n, rules_h1, seed=seed, dealer=dealer)
            layout = [small.piles[p][0] for p in range(4)] + small.stock_top_first()
            for k in range(n):
                seat = (dealer + 1 + k) % n
                assert small.hands[seat] & ~big.hands[seat] == 0, "a bigger deal keeps the smaller one"
                extra = cards_of(big.hands[seat] & ~small.hands[seat])
                assert extra == [layout[k]], f"seat {seat} should get card {k} of the next round of dealing"


def test_R2_same_seed_same_deal_other_seed_other_deal() -> None:
    a = Round.deal(4, Rules(), seed=123, dealer=1)
    b = Round.deal(4, Rules(), seed=123, dealer=1)
    other = Round.deal(4, Rules(), seed=124, dealer=1)
    assert a.hands == b.hands and a.piles == b.piles and a.stock == b.stock
    assert (a.hands, a.piles) != (other.hands, other.piles)


# ---------------------------------------------------------------------------------------- R3


def _layout_pair(seed: int, n: int = 3) -> tuple[Round, Round]:
    base = Rules(draw="end")
    stay = Round.deal(n, base.with_(layout_kings="stay"), seed=seed)
    corner = Round.deal(n, base.with_(layout_kings="to_corner"), seed=seed)
    return stay, corner


def test_R3_four_side_cards_face_up_and_no_corner_with_stay() -> None:
    for seed in range(30):
        stay, _ = _layout_pair(seed)
        assert all(len(stay.piles[p]) == 1 for p in range(4))
        assert all(stay.piles[p] == () for p in range(4, 8))
        assert len(stay.stock) == 52 - 3 * 7 - 4


def test_R3_to_corner_moves_turned_up_kings_and_refills_sides() -> None:
    seen_king = seen_refill_king = False
    for seed in range(400):
        stay, corner = _layout_pair(seed)
        assert stay.hands == corner.hands, "the layout comes after the deal"
        stay_sides = [stay.piles[p][0] for p in range(4)]
        kings_on_sides = [x for x in stay_sides if is_king(x)]
        corner_cards = [p for p in corner.piles[4:] if p]
        # every corner holds exactly one king and nothing else; sides hold non-kings
        assert all(len(p) == 1 and is_king(p[0]) for p in corner_cards)
        assert all(len(corner.piles[p]) == 1 and not is_king(corner.piles[p][0]) for p in range(4))
        j = len(corner_cards)
        # the refills are the top j cards of the stock the stay layout would have left
        layout_cards = set(stay_sides) | set(stay.stock_top_first()[:j])
        now_cards = {corner.piles[p][0] for p in range(4)} | {p[0] for p in corner_cards}
        assert now_cards == layout_cards
        assert corner.stock_top_first() == stay.stock_top_first()[j:]
        if kings_on_sides:
            seen_king = True
            assert j >= len(kings_on_sides)
        if j > len(kings_on_sides):
            seen_refill_king = True  # a refill was a king too and went on to a corner
    assert seen_king and seen_refill_king


def test_R3_stay_keeps_kings_on_sides_and_they_may_move_to_a_corner() -> None:
    for seed in range(400):
        stay, _ = _layout_pair(seed)
        king_sides = [p for p in range(4) if is_king(stay.piles[p][0])]
        if king_sides:
            break
    else:  # pragma: no cover - some seed turns up a king
        pytest.fail("no seed turned up a king")
    side = PLACE_NAMES[king_sides[0]]
    assert f"move {side} NE" in move_texts(stay)  # R9: an ordinary move
    stay.apply(mv(f"move {side} NE"))
    assert stay.piles[4] and is_king(stay.piles[4][0])
    assert stay.piles[king_sides[0]] == ()


# ---------------------------------------------------------------------------------------- R4


def test_R4_a_view_shows_own_hand_sizes_piles_stock_size_only() -> None:
    r = Round.deal(3, Rules(), seed=11)
    for seat in range(3):
        v = r.view(seat)
        assert v.hand_mask == r.hands[seat]
        assert v.hand_sizes == tuple(r.hand_sizes())
        assert v.stock_size == len(r.stock)
        assert v.piles == tuple(r.piles)
        others = 0
        for s in range(3):
            if s != seat:
                others |= r.hands[s]
        for x in r.stock:
            others |= 1 << x
        assert v.unseen_mask == others
        assert v.hand_mask & others == 0


def test_R4_view_does_not_change_when_hidden_cards_are_swapped() -> None:
    r = Round.deal(2, Rules(), seed=4)
    other = r.clone()
    # swap one card between seat 1's hand and the stock: seat 0 must not be able to tell
    h1 = cards_of(other.hands[1])[0]
    s0 = other.stock[0]
    other.hands[1] ^= (1 << h1) | (1 << s0)
    other.stock[0] = h1
    assert r.view(0) == other.view(0)
    assert r.view(1) != other.view(1)


# ---------------------------------------------------------------------------------------- R5


@pytest.mark.parametrize("n", [2, 3, 4])
def test_R5_left_of_dealer_starts_and_play_goes_clockwise(n: int) -> None:
    for dealer in range(n):
        r = Round.deal(n, Rules(), seed=dealer, dealer=dealer)
        assert r.dealer == dealer
        assert r.to_move == (dealer + 1) % n
        for k in range(2, n + 2):
            r.apply(END)
            assert r.to_move == (dealer + k) % n


def test_R5_first_dealer_is_seeded_and_varies_with_the_seed() -> None:
    from kc_tui.engine import Match

    firsts = {Match(4, Rules(), seed=s).first_dealer for s in range(60)}
    assert firsts == {0, 1, 2, 3}
    assert Match(4, Rules(), seed=9).first_dealer == Match(4, Rules(), seed=9).first_dealer


@pytest.mark.parametrize("n", [2, 3, 4])
def test_R5_deal_passes_clockwise_each_round(n: int) -> None:
    import random

    from kc_tui.engine import Match

    m = Match(n, Rules(target=15), seed=3 + n)
    rng = random.Random(n)
    dealers = []
    starters = []
    for _ in range(200):
        dealers.append(m.dealer)
        starters.append(m.round.to_move)
        assert m.round.dealer == m.dealer  # no one is out in points scoring: round seat == match seat
        while not m.round.over:
            ms = m.round.legal_moves()
            m.round.apply(ms[rng.randrange(len(ms))])
        m.finish_round()
        if m.over:
            break
    assert m.over and len(dealers) >= 2
    assert dealers == [(m.first_dealer + k) % n for k in range(len(dealers))]
    assert starters == [(d + 1) % n for d in dealers]
    assert [res.dealer for res in m.results] == dealers


# ---------------------------------------------------------------------------------------- R6


def test_R6_start_the_turn_begins_with_a_draw_from_the_top() -> None:
    r = build([["5C"], ["6C"]], {"N": ["9H"]}, stock=["2D", "3D"], to_move=0, drawn=False)
    assert hand_text(r, 0) == {"5C", "2D"}
    r.apply(END)
    assert hand_text(r, 1) == {"6C", "3D"}


def test_R6_start_dealt_round_first_player_holds_one_extra_card() -> None:
    for n in (2, 3, 4):
        r = Round.deal(n, Rules(draw="start"), seed=n, dealer=0)
        sizes = r.hand_sizes()
        assert sizes[1] == 8 and sum(sizes) == 7 * n + 1


def test_R6_start_with_empty_stock_play_goes_on_without_drawing() -> None:
    r = build([["5C", "AH"], ["6C"]], {"N": ["9H"]}, rest=1, to_move=0, drawn=False)
    assert hand_text(r, 0) == {"5C", "AH"}
    r.apply(END)
    assert r.to_move == 1 and not r.over
    assert r.hand_sizes()[1] == 52 - 3


def test_R6_end_draws_after_playing() -> None:
    rules = {"draw": "end"}
    r = build([["8S", "2H"], ["6C"]], {"N": ["9H"]}, stock=["3D", "4D"], rules=rules, drawn=False)
    assert hand_text(r, 0) == {"8S", "2H"}, "no draw at the start of the turn"
    r.apply(mv("play 8S N"))
    assert hand_text(r, 0) == {"2H"}
    r.apply(END)
    assert hand_text(r, 0) == {"2H", "3D"}
    assert hand_text(r, 1) == {"6C"}, "the next player draws only at the end of their turn"


def test_R6_end_a_player_who_made_no_move_draws_one_and_the_turn_passes() -> None:
    r = build([["8S", "2H"], ["6C"]], {"N": ["9H"]}, stock=["3D"], rules={"draw": "end"})
    r.apply(END)
    assert hand_text(r, 0) == {"8S", "2H", "3D"}
    assert r.to_move == 1


def test_R6_end_with_empty_stock_no_draw() -> None:
    r = build([["8S", "2H"], ["6C"]], {"N": ["9H"]}, rest=1, rules={"draw": "end"})
    r.apply(END)
    assert hand_text(r, 0) == {"8S", "2H"}


def test_R6_when_stuck_no_routine_draw_when_a_move_exists() -> None:
    r = build([["8S", "2H"], ["6C"]], {"N": ["9H"]}, stock=["3D"], rules={"draw": "when_stuck"}, drawn=False)
    assert hand_text(r, 0) == {"8S", "2H"}
    r.apply(END)
    assert hand_text(r, 0) == {"8S", "2H"}, "no draw at the end either"


def test_R6_when_stuck_draws_until_a_card_can_be_played() -> None:
    # All sides filled, nothing fits: 2H, then 3D do not fit; 8C fits on the 9H at N.
    piles = {"N": ["9H"], "E": ["5C"], "S": ["5S"], "W": ["JC"]}
    r = build(
        [["2C"], ["4C"]], piles, stock=["2H", "3D", "8C", "7D"], rules={"draw": "when_stuck"}, to_move=0, drawn=False
    )
    assert hand_text(r, 0) == {"2C", "2H", "3D", "8C"}
    assert r.stock_top_first()[0] == c("7D")
    assert "play 8C N" in move_texts(r)


def test_R6_when_stuck_draws_until_the_stock_is_empty() -> None:
    piles = {"N": ["9H"], "E": ["5C"], "S": ["5S"], "W": ["JC"]}
    r = build([["2C"], ["4C"]], piles, stock=["2H", "3D"], rest=1, rules={"draw": "when_stuck"}, drawn=False)
    assert hand_text(r, 0) == {"2C", "2H", "3D"}
    assert r.stock == []
    assert move_texts(r) == {"end"}


def test_R6_when_stuck_next_player_is_checked_at_the_start_of_their_turn() -> None:
    piles = {"N": ["9H"], "E": ["5C"], "S": ["5S"], "W": ["JC"]}
    r = build([["8C"], ["2C"]], piles, stock=["AH", "4D"], rules={"draw": "when_stuck"})
    r.apply(END)  # seat 1 holds 2C: stuck; AH does not fit, 4D fits on 5C
    assert hand_text(r, 1) == {"2C", "AH", "4D"}
    assert hand_text(r, 0) == {"8C"}


# ---------------------------------------------------------------------------------------- R7


def test_R7_any_number_of_moves_in_any_order_then_end() -> None:
    piles = {"N": ["9H"], "E": ["6D"], "W": ["KC"]}
    r = build([["8S", "7D", "5C", "QH", "4C"], []], piles, rest=1)
    for text in ("play 5C E", "play 8S N", "play QH W", "play 7D N"):
        assert r.to_move == 0
        r.apply(mv(text))
    assert pile_text(r, "N") == ["9H", "8S", "7D"]
    assert pile_text(r, "E") == ["6D", "5C"]
    assert hand_text(r, 0) == {"4C"}
    r.apply(END)
    assert r.to_move == 1


def test_R7_end_is_always_legal_and_listed_last() -> None:
    for seed in range(20):
        r = Round.deal(2 + seed % 3, Rules(), seed=seed)
        ms = r.legal_moves()
        assert ms[-1] == END and ms.count(END) == 1
        assert r.is_legal(END)


# ---------------------------------------------------------------------------------------- R8


def _r8_round() -> Round:
    piles = {"N": ["KS"], "E": ["5D"], "S": ["2H"], "W": ["2C", "AH"], "NE": ["KC"]}
    return build([["QH", "QS", "4C", "AS", "3C", "9D", "4H"], []], piles, rest=1)


def test_R8_card_goes_on_one_rank_higher_other_colour() -> None:
    ms = move_texts(_r8_round())
    assert "play QH N" in ms  # red queen on black king
    assert "play 4C E" in ms  # black 4 on red 5
    assert "play AS S" in ms  # black ace on red 2
    assert "play QH NE" in ms  # corner piles are built on like sides


def test_R8_same_colour_or_wrong_rank_is_refused() -> None:
    r = _r8_round()
    ms = move_texts(r)
    for bad in ("play QS N", "play 4H E", "play 3C E", "play 9D E", "play QS NE"):
        assert bad not in ms
        with pytest.raises(IllegalMove, match="R8"):
            r.apply(mv(bad))


def test_R8_nothing_is_ever_played_on_an_ace() -> None:
    r = _r8_round()
    assert not any(t.startswith("play") and t.endswith(" W") for t in move_texts(r))
    with pytest.raises(IllegalMove, match="ace"):
        r.apply(mv("play AS W"))


def test_R8_play_moves_the_card_from_hand_to_the_top() -> None:
    r = _r8_round()
    r.apply(mv("play 4C E"))
    assert pile_text(r, "E") == ["5D", "4C"]
    assert "4C" not in hand_text(r, 0)


# ---------------------------------------------------------------------------------------- R9


def _r9_round() -> Round:
    piles = {"N": ["6H", "5S", "4D"], "E": ["7C"], "S": ["7H"], "W": ["9S"], "NE": ["KD"]}
    return build([["2C", "JC"], []], piles, rest=1)


def test_R9_whole_pile_moves_onto_one_rank_higher_other_colour() -> None:
    r = _r9_round()
    assert "move N E" in move_texts(r)
    r.apply(mv("move N E"))
    assert pile_text(r, "E") == ["7C", "6H", "5S", "4D"]
    assert pile_text(r, "N") == []


def test_R9_same_colour_target_is_refused() -> None:
    r = _r9_round()
    assert "move N S" not in move_texts(r)
    with pytest.raises(IllegalMove, match="colour"):
        r.apply(mv("move N S"))


def test_R9_a_pile_never_moves_onto_an_empty_side() -> None:
    r = _r9_round()
    r.apply(mv("move N E"))
    assert not any(t.endswith(" N") and t.startswith("move") for t in move_texts(r))
    with pytest.raises(IllegalMove, match="R9"):
        r.apply(mv("move E N"))


def test_R9_king_based_side_pile_may_move_to_an_empty_corner() -> None:
    piles = {"N": ["KD", "QS"], "E": ["7C"], "S": ["7H"], "W": ["9S"], "NE": ["KH"]}
    r = build([["2C"], []], piles, rest=1)
    ms = move_texts(r)
    assert {"move N SE", "move N SW", "move N NW"} <= ms
    assert "move N NE" not in ms
    assert not any(t.startswith("move E") for t in ms), "only king-based piles go to empty corners"
    r.apply(mv("move N SW"))
    assert pile_text(r, "SW") == ["KD", "QS"] and pile_text(r, "N") == []


def test_R9_other_piles_never_move_to_an_empty_corner() -> None:
    r = _r9_round()
    with pytest.raises(IllegalMove, match="king"):
        r.apply(mv("move E SE"))
    with pytest.raises(IllegalMove, match="corner"):
        r.apply(mv("move NE SE"))  # a corner pile stays in its corner


def test_R9_a_pile_can_move_onto_a_corner_pile() -> None:
    piles = {"N": ["QS", "JD"], "E": ["7C"], "S": ["7H"], "W": ["9S"], "NE": ["KH"]}
    r = build([["2C"], []], piles, rest=1)
    r.apply(mv("move N NE"))
    assert pile_text(r, "NE") == ["KH", "QS", "JD"]


# ---------------------------------------------------------------------------------------- R10


def test_R10_king_from_hand_to_empty_corner() -> None:
    piles = {"N": ["9H"], "E": ["7C"], "S": ["7H"], "W": ["9S"], "SE": ["KS"]}
    r = build([["KH", "QC", "8C"], []], piles, rest=1)
    ms = move_texts(r)
    assert {"play KH NE", "play KH SW", "play KH NW"} <= ms
    assert "play KH SE" not in ms
    r.apply(mv("play KH NW"))
    assert pile_text(r, "NW") == ["KH"]


def test_R10_only_kings_start_a_corner() -> None:
    piles = {"N": ["9H"], "E": ["7C"], "S": ["7H"], "W": ["9S"]}
    r = build([["KH", "QC", "8C"], []], piles, rest=1)
    for bad in ("play QC NE", "play 8C SW"):
        assert bad not in move_texts(r)
        with pytest.raises(IllegalMove, match="R10"):
            r.apply(mv(bad))


# ---------------------------------------------------------------------------------------- R11


def test_R11_any_card_may_fill_an_empty_side() -> None:
    piles = {"N": ["9H"], "E": ["7C"], "S": ["7H"]}
    r = build([["KH", "5C", "AD"], []], piles, rest=1)
    assert {"play KH W", "play 5C W", "play AD W"} <= move_texts(r)
    r.apply(mv("play 5C W"))
    assert pile_text(r, "W") == ["5C"]


def test_R11_filling_is_optional() -> None:
    r = build([["KH", "5C", "AD"], []], {"N": ["9H"], "E": ["7C"], "S": ["7H"]}, rest=1)
    r.apply(END)
    assert r.to_move == 1 and pile_text(r, "W") == []


def test_R11_kings_on_sides_forbid_keeps_kings_off_empty_sides() -> None:
    piles = {"N": ["9H"], "E": ["7C"], "S": ["7H"]}
    r = build([["KH", "5C"], []], piles, rest=1, rules={"kings_on_sides": "forbid"})
    ms = move_texts(r)
    assert "play KH W" not in ms and "play 5C W" in ms
    assert "play KH NE" in ms, "an empty corner still takes the king"
    with pytest.raises(IllegalMove, match="R11"):
        r.apply(mv("play KH W"))


def test_R11_kings_on_sides_allow_is_the_default() -> None:
    assert Rules().kings_on_sides == "allow"
    r = build([["KH"], []], {"N": ["9H"], "E": ["7C"], "S": ["7H"]}, rest=1)
    assert "play KH W" in move_texts(r)


def test_R11_a_card_filling_a_side_may_be_followed_by_ordinary_plays() -> None:
    r = build([["9H", "8C", "7D"], []], {"N": ["9S"], "E": ["7C"], "S": ["7S"]}, rest=1)
    for t in ("play 9H W", "play 8C W", "play 7D W"):
        r.apply(mv(t))
    assert pile_text(r, "W") == ["9H", "8C", "7D"]


# ---------------------------------------------------------------------------------------- R12

FULL_TO_2 = ["KS", "QH", "JC", "TD", "9S", "8H", "7C", "6D", "5S", "4H", "3C", "2D"]


def _r12(rule: str, seed: int = 0) -> Round:
    return build(
        [["AS", "5H"], ["9C"]],
        {"N": FULL_TO_2, "E": ["7H"], "S": ["7S"]},
        stock=["3H", "4S"],
        rest=1,
        rules={"completed_piles": rule},
        seed=seed,
    )


def test_R12_to_stock_a_completed_pile_is_shuffled_into_the_stock() -> None:
    r = _r12("to_stock")
    r.apply(mv("play AS N"))
    assert pile_text(r, "N") == []
    assert len(r.stock) == 15
    assert {card_str(x) for x in r.stock} == {*FULL_TO_2, "AS", "3H", "4S"}
    assert r.card_count() == 52
    assert not r.over and r.to_move == 0


def test_R12_to_stock_shuffle_is_seeded() -> None:
    orders = []
    for seed in range(6):
        a, b = _r12("to_stock", seed), _r12("to_stock", seed)
        a.apply(mv("play AS N"))
        b.apply(mv("play AS N"))
        assert a.stock == b.stock, "same seed, same shuffle"
        orders.append(tuple(a.stock))
    assert len(set(orders)) > 1, "different seeds shuffle differently (so the pile is not just stacked)"


def test_R12_to_stock_completion_by_a_pile_move() -> None:
    r = build(
        [["5H"], ["9C"]],
        {"N": FULL_TO_2[:6], "E": [*FULL_TO_2[6:], "AS"], "S": ["7S"]},
        stock=["3H"],
        rest=1,
    )
    r.apply(mv("move E N"))
    assert pile_text(r, "N") == [] and pile_text(r, "E") == []
    assert len(r.stock) == 14


def test_R12_stay_a_completed_pile_stays_closed() -> None:
    r = _r12("stay")
    r.apply(mv("play AS N"))
    assert pile_text(r, "N") == [*FULL_TO_2, "AS"]
    assert len(r.stock) == 2
    assert "move N NE" not in move_texts(r)
    with pytest.raises(IllegalMove, match="R12"):
        r.apply(mv("move N NE"))


def test_R12_stay_an_unfinished_king_pile_may_still_move_to_a_corner() -> None:
    r = _r12("stay")
    assert "move N NE" in move_texts(r)


# ---------------------------------------------------------------------------------------- R13


def test_R13_emptying_the_hand_ends_the_round_and_wins_it() -> None:
    r = build([["QH"], ["2C"]], {"N": ["KS"], "E": ["7C"]}, stock=["3D"], rest=1)
    r.apply(mv("play QH N"))
    assert r.over and r.winner == 0 and not r.blocked
    assert r.legal_moves() == []
    with pytest.raises(RoundOver):
        r.apply(END)


def test_R13_out_with_open_side_end_is_default_even_with_an_empty_side() -> None:
    r = build([["QH"], ["2C"]], {"N": ["KS"]}, stock=["3D"], rest=1)
    assert Rules().out_with_open_side == "end"
    r.apply(mv("play QH N"))
    assert r.over and r.winner == 0


def test_R13_draw3_going_out_with_an_empty_side_draws_three_and_goes_on() -> None:
    rules = {"out_with_open_side": "draw3"}
    r = build([["QH"], ["2C"]], {"N": ["KS"], "E": ["7C"]}, stock=["3D", "4D", "5D", "6D"], rest=1, rules=rules)
    r.apply(mv("play QH N"))
    assert not r.over
    assert hand_text(r, 0) == {"3D", "4D", "5D"}
    assert r.to_move == 0, "the player goes on with the turn"
    assert r.stock_top_first()[0] == c("6D")


def test_R13_draw3_draws_only_what_the_stock_has() -> None:
    rules = {"out_with_open_side": "draw3"}
    r = build([["QH"], ["2C"]], {"N": ["KS"], "E": ["7C"]}, stock=["3D", "4D"], rest=1, rules=rules)
    r.apply(mv("play QH N"))
    assert not r.over and hand_text(r, 0) == {"3D", "4D"} and r.stock == []


def test_R13_draw3_with_empty_stock_ends_as_usual() -> None:
    rules = {"out_with_open_side": "draw3"}
    r = build([["QH"], ["2C"]], {"N": ["KS"], "E": ["7C"]}, rest=1, rules=rules)
    r.apply(mv("play QH N"))
    assert r.over and r.winner == 0


def test_R13_draw3_without_an_empty_side_ends_as_usual() -> None:
    rules = {"out_with_open_side": "draw3"}
    piles = {"N": ["KS"], "E": ["7C"], "S": ["7D"], "W": ["9D"]}
    r = build([["QH"], ["2C"]], piles, stock=["3D"], rest=1, rules=rules)
    r.apply(mv("play QH N"))
    assert r.over and r.winner == 0


@pytest.mark.parametrize("draw", ["start", "end", "when_stuck"])
def test_R13_going_out_ends_the_round_in_every_draw_variant(draw: str) -> None:
    r = build([["QH"], ["2C"]], {"N": ["KS"], "E": ["7C"]}, stock=["3D"], rest=1, rules={"draw": draw})
    r.apply(mv("play QH N"))
    assert r.over and r.winner == 0
    assert r.hand_sizes()[0] == 0, "draw = end does not draw after going out"


# ---------------------------------------------------------------------------------------- R14


def _blocked_table(n: int, rules: dict[str, str] | None = None, idle: int = 0) -> Round:
    piles = {"N": ["9H"], "E": ["7C"], "S": ["7H"], "W": ["9S"]}
    hands: list[list[str]] = [["2C", "8S"], [], ["3C"], ["4C"]][:n]
    return build(hands, piles, rest=1, rules=rules, idle_turns=idle)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_R14_a_full_circle_without_a_move_and_empty_stock_is_a_block(n: int) -> None:
    r = _blocked_table(n)
    for _ in range(n - 1):
        r.apply(END)
        assert not r.over
    r.apply(END)
    assert r.over and r.winner is None and r.blocked
    assert r.legal_moves() == []


def test_R14_a_move_restarts_the_circle() -> None:
    r2 = _blocked_table(3)
    r2.apply(mv("play 8S N"))
    r2.apply(END)
    r2.apply(END)
    r2.apply(END)
    assert not r2.over, "the circle started after seat 0's move"
    r2.apply(END)
    assert r2.over and r2.winner is None


def test_R14_idle_turns_from_the_position_file_count() -> None:
    r = _blocked_table(3, idle=2)
    assert not r.over
    r.apply(END)
    assert r.over and r.winner is None


def test_R14_no_block_while_the_stock_can_be_drawn() -> None:
    piles = {"N": ["9H"], "E": ["7C"], "S": ["7H"], "W": ["9S"]}
    r = build([["2C"], ["3C"]], piles, stock=["2D", "3D", "4H"], rest=1)
    for _ in range(4):  # every turn begins with a draw: not a turn without anything happening
        r.apply(END)
        assert not r.over
    assert r.stock == []
    r.apply(END)
    assert not r.over
    r.apply(END)
    assert r.over and r.winner is None


@pytest.mark.parametrize("draw", ["end", "when_stuck"])
def test_R14_block_in_other_draw_variants(draw: str) -> None:
    r = _blocked_table(2, rules={"draw": draw})
    r.apply(END)
    assert not r.over
    r.apply(END)
    assert r.over and r.blocked


# ---------------------------------------------------------------------------------------- R15


def test_R15_penalty_is_ten_per_king_one_per_other_card() -> None:
    r = build([["QH"], ["KD", "KC", "2C", "9H"], ["5S"]], {"N": ["KS"]}, stock=["3D"], rest="stock")
    r.apply(mv("play QH N"))
    assert r.penalties() == [0, 22, 1]


def _out_round(loser_hands: list[list[str]], winner: int = 0) -> Round:
    """A round in which ``winner`` goes out with its one move ``play QH N``."""
    hands = [list(h) for h in loser_hands]
    hands.insert(winner, ["QH"])
    return build(hands, {"N": ["KS"]}, to_move=winner)


def _finish_with(m: object, r: Round) -> None:
    from kc_tui.engine import Match

    assert isinstance(m, Match)
    m.round = r
    r.apply(mv("play QH N"))
    m.finish_round()


def test_R15_points_carry_over_and_the_match_ends_at_the_target() -> None:
    from kc_tui.engine import Match

    m = Match(2, Rules(), seed=1)
    _finish_with(m, _out_round([["KD", "KC", "KH", "2C", "3C", "4C", "5C", "6C", "7C", "8C"]]))  # 37
    assert m.points == [0, 37] and not m.over
    _finish_with(m, _out_round([["2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "JD", "QD", "2S"]]))
    assert m.points == [0, 49] and not m.over, "49 has not reached 50"
    _finish_with(m, _out_round([["2H"]]))
    assert m.points == [0, 50] and m.over, "reaching the target exactly ends the match"
    assert m.winners == [0]


def test_R15_target_25_variant() -> None:
    from kc_tui.engine import Match

    m = Match(2, Rules(target=25), seed=1)
    _finish_with(m, _out_round([["KD", "KC", "2C", "3C"]]))  # 22
    assert not m.over
    _finish_with(m, _out_round([["2H", "3H", "4H"]]))  # 25
    assert m.over and m.points == [0, 25] and m.winners == [0]


def test_R15_lowest_total_wins_and_ties_share_the_win() -> None:
    from kc_tui.engine import Match

    m = Match(3, Rules(target=25), seed=2)
    _finish_with(m, _out_round([["2C", "3C", "4C", "5C", "6C"], ["2D", "3D", "4D", "5D", "6D"]], winner=0))
    assert m.points == [0, 5, 5]
    _finish_with(m, _out_round([["2C", "3C", "4C", "5C", "6C"], ["KD", "KC", "KH", "2D"]], winner=1))
    assert m.points == [5, 5, 36]
    assert m.over and m.winners == [0, 1]


def test_R15_penalties_are_scored_after_a_block_too() -> None:
    from kc_tui.engine import Match

    m = Match(2, Rules(), seed=1)
    r = build([["KD", "2C"], ["3C"]], {"N": ["9H"], "E": ["7C"], "S": ["7H"], "W": ["9S"]}, rest=1)
    m.round = r
    r.apply(END)
    r.apply(END)
    assert r.blocked
    res = m.finish_round()
    assert res.blocked and res.winner is None
    assert m.points[0] == 11 and m.points[1] == r.penalties()[1] > 0


# ---------------------------------------------------------------------------------------- R16


def _chips_round(rules: dict[str, object]) -> Round:
    # W is empty, so every player holding a card can always move: when_stuck never draws.
    piles = {"N": ["KS"], "E": ["6H"], "S": ["9S"]}
    hands = [["QH"], ["KD", "2C", "9H"], ["5C", "9D"]]
    return build(hands, piles, stock=["3D"], rules=rules)


def _play_chips_round(r: Round) -> None:
    r.apply(END)  # seat 0: no card played, a fine
    r.apply(END)  # seat 1: a fine
    r.apply(mv("play 5C E"))
    r.apply(END)  # seat 2 played a card: no fine
    r.apply(mv("play QH N"))  # seat 0 goes out
    assert r.over and r.winner == 0


def test_R16_every_player_antes_one_chip() -> None:
    from kc_tui.engine import Match

    m = Match(3, Rules(scoring="chips", chips_start=50), seed=0)
    assert m.chips == [49, 49, 49] and m.pot == 3


def test_R16_fines_for_turns_without_a_card_and_the_winner_takes_the_pot() -> None:
    from kc_tui.engine import Match

    rules = Rules(scoring="chips", draw="when_stuck")
    m = Match(3, rules, seed=0, first_dealer=2)
    m.round = _chips_round(rules.to_dict())
    _play_chips_round(m.round)
    assert m.round.fines == [1, 1, 0]
    res = m.finish_round()
    # pot = 3 antes + 2 fines = 5, all to seat 0
    assert res.totals == (49 - 1 + 5, 49 - 1, 49)
    assert sum(res.totals) == 150
    assert res.winner == 0
    # next round: everyone antes again
    assert m.chips == [52, 47, 48] and m.pot == 3


def test_R16_chips_per_card_losers_pay_for_their_cards() -> None:
    from kc_tui.engine import Match

    rules = Rules(scoring="chips", draw="when_stuck", chips_per_card=True)
    m = Match(3, rules, seed=0, first_dealer=2)
    m.round = _chips_round(rules.to_dict())
    _play_chips_round(m.round)
    res = m.finish_round()
    # seat 1 owes 1 fine + KD 9H 2C = 12 -> 13; seat 2 owes 9D = 1; pot = 3 + 1 + 13 + 1 = 18
    assert res.totals == (49 - 1 + 18, 49 - 13, 49 - 1)


def test_R16_after_a_block_the_pot_stays_for_the_next_round() -> None:
    from kc_tui.engine import Match

    rules = Rules(scoring="chips")
    m = Match(2, rules, seed=0, first_dealer=1)
    m.round = build([["2C"], ["3C"]], {"N": ["9H"], "E": ["7C"], "S": ["7H"], "W": ["9S"]}, rest=1)
    m.round.apply(END)
    m.round.apply(END)
    assert m.round.blocked
    res = m.finish_round()
    assert res.totals == (48, 48)
    assert m.pot == 4 + 2, "the 4 chips stay, then both ante for round 2"
    assert m.chips == [47, 47]
    # round 2: seat 0 goes out at once and takes the whole pot
    m.round = build([["QH"], ["2C"]], {"N": ["KS"]}, stock=["3D"])
    m.round.apply(mv("play QH N"))
    res2 = m.finish_round()
    assert res2.totals == (47 + 6, 47)


def test_R16_a_player_who_cannot_pay_pays_what_they_have_and_is_out() -> None:
    from kc_tui.engine import Match

    rules = Rules(scoring="chips", chips_start=5, chips_per_card=True)
    m = Match(3, rules, seed=0, first_dealer=0)
    assert m.chips == [4, 4, 4]
    # seat 1 is left holding 3 kings: owes 30 but has 4
    m.round = build([["QH"], ["KD", "KC", "KH"], ["2S"]], {"N": ["KS"]}, stock=["3D"], to_move=0)
    m.round.apply(mv("play QH N"))
    res = m.finish_round()
    assert res.totals == (4 + 3 + 4 + 1, 0, 3)
    assert m.out == [False, True, False]
    assert not m.over
    # seat 1 sits out: the next round has two players, the deal skips seat 1
    assert m.seats == [0, 2] and m.round.n == 2
    assert m.dealer == 2
    assert m.chips == [11, 0, 2]


def test_R16_match_ends_when_one_player_holds_chips() -> None:
    from kc_tui.engine import Match

    rules = Rules(scoring="chips", chips_start=3, chips_per_card=True)
    m = Match(2, rules, seed=0)
    m.round = build([["QH"], ["KD"]], {"N": ["KS"]}, stock=["3D"], to_move=0)
    m.round.apply(mv("play QH N"))
    m.finish_round()
    assert m.chips == [6, 0] and m.over and m.winners == [0]


def test_R16_match_ends_after_chips_rounds_and_ties_share() -> None:
    from kc_tui.engine import Match

    rules = Rules(scoring="chips", chips_rounds=1)
    m = Match(2, rules, seed=0)
    m.round = build([["2C"], ["3C"]], {"N": ["9H"], "E": ["7C"], "S": ["7H"], "W": ["9S"]}, rest=1)
    m.round.apply(END)
    m.round.apply(END)
    m.finish_round()
    assert m.over and m.chips == [48, 48] and m.winners == [0, 1]
    with pytest.raises(ValueError):
        m.finish_round()


def test_R16_most_chips_wins_after_the_last_round() -> None:
    from kc_tui.engine import Match

    rules = Rules(scoring="chips", chips_rounds=2)
    m = Match(2, rules, seed=0)
    m.round = build([["QH"], ["2C"]], {"N": ["KS"]}, stock=["3D"], to_move=0)
    m.round.apply(mv("play QH N"))
    m.finish_round()
    assert not m.over
    m.round = build([["2C"], ["QH"]], {"N": ["KS"]}, rest=0, to_move=0)
    m.round.apply(END)
    m.round.apply(mv("play QH N"))
    m.finish_round()
    # round 1: 49+2 vs 49; round 2 antes 50/48, pot 2 + fine of seat 0 -> seat 1
    assert m.chips == [49, 51] and m.over and m.winners == [1]


def test_R16_points_scoring_has_no_chips() -> None:
    from kc_tui.engine import Match

    m = Match(2, Rules(), seed=0)
    assert m.pot == 0 and m.chips == [0, 0]


def test_R16_a_turn_with_only_a_pile_move_still_pays_a_fine() -> None:
    # R16 fines a turn "without having played a card from hand (R8, R10, R11)": a pile move (R9) is no excuse.
    piles = {"N": ["6H", "5S"], "E": ["7C"], "S": ["9D"], "W": ["JH"]}
    r = build([["2C"], ["8C"]], piles, rest=1, rules={"scoring": "chips"})
    r.apply(mv("move N E"))
    r.apply(END)
    assert r.fines[0] == 1
    r.apply(mv("play 8C S"))
    r.apply(END)
    assert r.fines[1] == 0
    r.apply(END)
    assert r.fines == [2, 0]


@pytest.mark.parametrize("kings", ["allow", "forbid"])
@pytest.mark.parametrize("completed", ["to_stock", "stay"])
def test_a_round_and_a_players_view_read_the_same_move_flags_from_the_rules(kings: str, completed: str) -> None:
    rules = Rules(kings_on_sides=kings, completed_piles=completed)
    assert rules.kings_on_sides_allowed is (kings == "allow")
    assert rules.completed_piles_stay is (completed == "stay")
    r = build(
        [["KH", "AS", "5C"], ["9C"]],
        {"N": FULL_TO_2, "E": ["7H"], "S": ["7S"]},
        stock=["3H", "4S"],
        rest=1,
        rules={"kings_on_sides": kings, "completed_piles": completed},
    )
    r.apply(mv("play AS N"))
    assert r.view(0).legal_moves() == r.legal_moves()
    ms = move_texts(r)
    assert ("play KH W" in ms) is (kings == "allow")
    assert (pile_text(r, "N") != []) is (completed == "stay")
    assert not any(m.startswith("move N ") for m in ms), "a completed pile is gone or closed"
