"""The AIs play for the match: the standing reaches them through the view, what a round's end is
worth is read in the match's terms (ai.search.stakes), and a king is shed or kept as the bet it is."""

from __future__ import annotations

from typing import Any

import pytest

from ai import make_player
from ai.advice.hint import HintAI, free_plays
from ai.search.stakes import Stakes, end_risk
from kc_tui.engine import (
    END,
    Match,
    PlayerView,
    Round,
    Rules,
    Standing,
    determinize,
    is_play,
    mask_of,
    parse_card,
    play,
    play_card,
)
from kc_tui.engine.moves import Move
from tests.ai.helpers import turn_of

FAST = {"expert": {"iterations": 60}}


def _mask(*cards: str) -> int:
    return mask_of(parse_card(c) for c in cards)


def _turn(kind: str, r: Round) -> list[Move]:
    """The moves a fresh AI of ``kind`` makes in the turn of the player to move."""
    return turn_of(make_player(kind, 3, **FAST.get(kind, {})), r, limit=40)


def _position(n: int, mine: tuple[str, ...], sizes: list[int], standing: Standing | None = None) -> Round:
    """Seat 0 to move with ``mine``; the table: sides 9♣ 9♠ 4♣ 4♠ (nothing of ``mine`` fits),
    corners empty but the first, which holds K♣; the other seats hold ``sizes`` cards from the
    rest, the stock the remainder."""
    piles: list[tuple[int, ...]] = [(parse_card(c),) for c in ("9C", "9S", "4C", "4S")]
    piles += [(parse_card("KC"),), (), (), ()]
    used = _mask(*mine, "9C", "9S", "4C", "4S", "KC")
    # The cards that fit a side (red eights and threes) and the queens stay in the stock, so no
    # opponent's hand changes what the tests look at.
    keep_back = _mask("8H", "8D", "3H", "3D", "QH", "QD", "QS", "QC")
    rest = [c for c in range(52) if not (used >> c) & 1 and not (keep_back >> c) & 1]
    hands = [_mask(*mine)]
    for size in sizes:
        hands.append(mask_of(rest[:size]))
        rest = rest[size:]
    stock = rest + [c for c in range(52) if (keep_back >> c) & 1]
    r = Round.from_parts(Rules(), hands, piles, stock, 0)
    r.standing = standing
    return r


# ------------------------------------------------------------------ the standing reaches the AIs
def test_the_match_standing_is_in_every_view_in_round_seat_order() -> None:
    m = Match(3, Rules(), seed=4)
    m.points = [12, 3, 40]
    m.round = m._start_round()
    for seat in range(3):
        st = m.round.view(seat).standing
        assert st is not None
        assert st.totals == (12, 3, 40) and not st.chips and st.target == 50
    # A determinized deal keeps it (the expert's search scores its playouts with it).
    assert determinize(m.round.view(1), 5).standing == m.round.standing


def test_chips_standing_shows_the_pot_and_rounds_left() -> None:
    m = Match(4, Rules.from_pairs(["scoring=chips", "chips_rounds=6"]), seed=2)
    st = m.round.view(0).standing
    assert st is not None and st.chips
    assert st.pot == 4  # every player anted one chip (R16)
    assert st.totals == (49, 49, 49, 49) and st.rounds_left == 5


def test_a_round_alone_has_no_standing_and_the_ais_still_play() -> None:
    r = Round.deal(2, Rules(), seed=1)
    assert r.view(0).standing is None
    assert Stakes.of(r.view(0)).totals == (0, 0)
    assert _turn("king-aware", r)


# ------------------------------------------------------------------ stakes
def test_early_in_a_match_a_point_of_ones_own_costs_one_and_an_opponents_is_shared() -> None:
    r = _position(4, ("KD", "7C"), [5, 5, 5], Standing((0, 0, 0, 0), False, 50))
    s = Stakes.of(r.view(0))
    base = s.points_value([0, 0, 0, 0])
    assert s.points_value([1, 0, 0, 0]) - base == pytest.approx(-1.0, abs=0.05)
    assert s.points_value([0, 3, 0, 0]) - base == pytest.approx(1.0, abs=0.1)  # a third of 3 points


def test_a_penalty_that_ends_the_match_against_you_costs_more_than_its_points() -> None:
    # Seat 0 on 44, seat 1 on 42, target 50: five points more leave the match going, six end it
    # with seat 0 the loser, so the sixth point costs far more than the fifth.
    s = Stakes.of(_position(2, ("KD",), [5], Standing((44, 42), False, 50)).view(0))
    assert s.penalty_cost(6) > 2 * s.penalty_cost(5)
    # Seat 0 leading on 20 against 44: six points for seat 1 end the match with seat 0 the winner.
    lead = Stakes.of(_position(2, ("KD",), [5], Standing((20, 44), False, 50)).view(0))
    assert lead.points_value([0, 6]) == lead.scale
    assert lead.points_value([0, 5]) < lead.scale


def test_a_king_held_risks_more_as_an_opponent_nears_going_out() -> None:
    st = Standing((0, 0, 0, 0), False, 50)
    s = Stakes.of(_position(4, ("KD", "7C"), [6, 6, 6], st).view(0))
    assert s.king_cost(2, [6, 6, 6]) < s.king_cost(2, [1, 6, 6]) < s.king_cost(2, [1, 1, 1])
    assert end_risk([1, 1, 1]) > end_risk([1]) > end_risk([7])


def test_in_chips_scoring_a_card_left_costs_nothing_unless_chips_per_card() -> None:
    st = Standing((49, 49), True, 50, pot=2, rounds_left=9)
    s = Stakes.of(_position(2, ("KD",), [1], st).view(0))
    assert s.king_cost(1, [1]) == 0.0
    assert s.value([_mask("KD"), 0], winner=1) == 0.0  # the loser keeps its king for free
    assert s.value([0, _mask("5C")], winner=0, fines=(0, 2)) == 4.0  # the pot and the other's fines
    paying = Stakes.of(_position(2, ("KD",), [1], Standing((49, 49), True, 50, pot=2, chips_per_card=True)).view(0))
    assert paying.king_cost(1, [1]) > 0
    assert paying.value([_mask("KD", "5C"), 0], winner=1) == -11.0


# ------------------------------------------------------------------ choices on constructed positions
KD_TO_EMPTY_CORNER = play(parse_card("KD"), 5)


def _plays_kd(m: Move) -> bool:
    return is_play(m) and play_card(m) == parse_card("KD")


@pytest.mark.parametrize("kind", ["king-aware", "lookahead", "expert"])
def test_shed_the_king_when_an_opponent_is_about_to_go_out(kind: str) -> None:
    # Four seats, the next player down to one card: a king kept risks ten points.
    r = _position(4, ("KD", "7C", "2H"), [1, 6, 6], Standing((10, 10, 10, 10), False, 50))
    moves = _turn(kind, r)
    assert any(_plays_kd(m) for m in moves), moves


@pytest.mark.parametrize("kind", ["king-aware", "lookahead"])
def test_keep_the_king_heads_up_while_the_opponent_holds_many_cards(kind: str) -> None:
    # Heads-up, the opponent holds 7 cards and the stock is large: the king is safe to hold,
    # and holding it keeps the opponent's black queens off the corner. Greedy plays it at once.
    r = _position(2, ("KD", "7C", "2H"), [7], Standing((10, 10), False, 50))
    assert not any(_plays_kd(m) for m in _turn(kind, r))
    assert _turn("greedy", r)[0] == KD_TO_EMPTY_CORNER


def test_the_same_king_is_shed_when_holding_it_would_lose_the_match() -> None:
    # Heads-up, the opponent still holds 7 cards, but seat 0 is on 41 of 50 and behind: ten
    # points more end the match against it, so even a small risk is not worth taking.
    safe = _position(2, ("KD", "7C", "2H"), [7], Standing((10, 10), False, 50))
    late = _position(2, ("KD", "7C", "2H"), [3], Standing((41, 30), False, 50))
    s_safe, s_late = Stakes.of(safe.view(0)), Stakes.of(late.view(0))
    assert s_late.king_cost(3, [3]) > 10 * s_safe.king_cost(3, [7])
    assert any(_plays_kd(m) for m in _turn("king-aware", late))
    assert not any(_plays_kd(m) for m in _turn("king-aware", safe))


# ------------------------------------------------------------------ the hint
def test_a_free_play_opens_nothing_for_the_unseen_cards() -> None:
    # 5♡ fits on 6♠ and opens the place for 4♠ and 4♣, both on the table already: free.
    # K♢ on an empty corner opens it for the black queens, which are unseen: not free.
    r = _position(2, ("KD", "5H"), [7], Standing((10, 10), False, 50))
    r.piles[6] = (parse_card("6S"),)
    assert free_plays(r.view(0)) == [play(parse_card("5H"), 6)]


def test_the_hint_never_ends_the_turn_while_a_card_can_be_shed_for_free(monkeypatch: pytest.MonkeyPatch) -> None:
    from ai.players.lookahead import LookaheadAI

    # Whatever the planner thinks, an end of turn with a free play in hand is not the hint.
    monkeypatch.setattr(LookaheadAI, "plan_turn", lambda self, view, legal: ())
    r = _position(2, ("KD", "5H"), [7], Standing((10, 10), False, 50))
    r.piles[6] = (parse_card("6S"),)
    assert HintAI(7).choose(r.view(0)) == play(parse_card("5H"), 6)
    # With only the king, whose play opens a corner to unseen queens, ending the turn may stand.
    only_king = _position(2, ("KD",), [7], Standing((10, 10), False, 50))
    assert HintAI(7).choose(only_king.view(0)) == END


def test_the_hint_is_match_aware_and_sheds_the_king_before_an_opponent_goes_out() -> None:
    r = _position(4, ("KD", "7C", "2H"), [1, 6, 6], Standing((10, 10, 10, 10), False, 50))
    assert HintAI(7).choose(r.view(0)) != END


def test_the_tournament_plays_matches_with_the_standing_in_every_view(registry: dict[str, Any]) -> None:
    import argparse

    from ai.players.greedy import GreedyAI
    from kc_tui.lab.options import parse_options
    from kc_tui.lab.play import play_match

    seen: list[Standing | None] = []

    class Watching(GreedyAI):
        def choose(self, view: PlayerView) -> Move:
            seen.append(view.standing)
            return super().choose(view)

    registry["greedy"] = Watching
    args = argparse.Namespace(
        seats="greedy,greedy",
        deals=None,
        matches=1,
        seed=5,
        jobs=1,
        rules=["target=15"],
        json=None,
        think_ms=None,
        iterations=None,
        param=[],
        max_turns=1000,
        quiet=True,
    )
    rec = play_match(parse_options(args), 0, 0)
    assert rec.rounds >= 2 and seen and all(st is not None for st in seen)
    totals = {st.totals for st in seen if st is not None}
    assert (0, 0) in totals and len(totals) >= 2  # the totals the AIs see move with the match
