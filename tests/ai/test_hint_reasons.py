"""Hints that say why: the plan named move by move in the move log's words, and a short
reason from the planner's evaluation (what it sheds, what it keeps and why, what it leaves open),
on constructed positions."""

from __future__ import annotations

from collections.abc import Sequence

from ai.advice.hint import Advice, HintAI, cards_words, describe_plan, explain, holding, move_words
from kc_tui.engine import (
    END,
    PlayerView,
    Round,
    Rules,
    card_str,
    mask_of,
    move,
    parse_card,
    play,
)
from tests.ai.helpers import midround_positions


def _c(text: str) -> int:
    return parse_card(text)


def _view(
    mine: Sequence[str],
    sides: Sequence[str | None],
    corners: Sequence[str | None] = (None, None, None, None),
    opp: int = 8,
    rules: Rules | None = None,
    held_back: Sequence[str] = (),
) -> PlayerView:
    """Seat 0's view (heads-up, its turn) with ``mine`` and the table as given (None: empty).
    The opponent holds ``opp`` cards of the rest, never one of ``held_back`` (kept in the
    stock, so the test knows where they are not)."""
    piles: list[tuple[int, ...]] = [(_c(x),) if x else () for x in (*sides, *corners)]
    used = mask_of(_c(x) for x in (*mine, *sides, *corners) if x)
    back = mask_of(_c(x) for x in held_back)
    rest = [c for c in range(52) if not (used >> c) & 1 and not (back >> c) & 1]
    hands = [mask_of(_c(x) for x in mine), mask_of(rest[:opp])]
    stock = rest[opp:] + [c for c in range(52) if (back >> c) & 1]
    return Round.from_parts(rules or Rules(), hands, piles, stock, 0).view(0)


# ------------------------------------------------------------------ the plan in words
def test_a_plan_is_named_move_by_move_in_the_move_log_s_words() -> None:
    view = _view(["5D", "KH"], ["6S", "9C", "9S", "4C"], ["KC", None, None, None])
    plan = (play(_c("5D"), 0), play(_c("KH"), 5))
    assert describe_plan(view, plan) == "play 5♢ on 6♠ at N, then put K♡ on the empty corner SE"
    assert describe_plan(view, plan, card_str) == "play 5D on 6S at N, then put KH on the empty corner SE"
    assert describe_plan(view, ()) == describe_plan(view, (END,)) == "end your turn"


def test_a_pile_move_names_the_cards_that_move() -> None:
    # 8♢ at W fits 9♣ at E; then 8♢ 7♣ ... the moved pile is named with its cards.
    view = _view(["3H"], ["6S", "9C", "4C", "8D"])
    assert describe_plan(view, (move(3, 1),)) == "move 8♢ from W onto 9♣ at E"
    assert describe_plan(view, (move(3, 1), play(_c("3H"), 3))) == (
        "move 8♢ from W onto 9♣ at E, then put 3♡ on the empty side W"
    )
    assert move_words(view.piles, END) == "end your turn"


def test_a_long_plan_is_shortened_on_request() -> None:
    view = _view(["8H", "7S", "6D", "5C", "4H"], ["9S", "KC", "KD", "KH"])
    plan = (play(_c("8H"), 0), play(_c("7S"), 0), play(_c("6D"), 0), play(_c("5C"), 0), play(_c("4H"), 0))
    text = describe_plan(view, plan, most=2)
    assert text == "play 8♡ on 9♠ at N, then play 7♠ on 8♡ at N, then 3 more moves"
    assert describe_plan(view, plan).count(", then ") == 4


# ------------------------------------------------------------------ the reasons
def test_going_out_is_the_reason_itself() -> None:
    view = _view(["5D", "KH"], ["6S", "9C", "9S", "4C"], ["KC", None, None, None])
    assert explain(view, (play(_c("5D"), 0), play(_c("KH"), 5))).startswith("It goes out")


def test_the_reason_names_what_the_plan_sheds_and_its_points() -> None:
    view = _view(["5D", "KH", "2C"], ["6S", "9C", "9S", "4C"], ["KC", None, None, None])
    reason = explain(view, (play(_c("5D"), 0), play(_c("KH"), 5)))
    assert reason.startswith("It sheds 5♢ K♡ (11 points).")
    assert explain(view, ()).startswith("It plays nothing.")


def test_a_king_held_while_no_one_is_close_to_going_out_says_so() -> None:
    view = _view(["5D", "KH"], ["6S", "9C", "9S", "4C"], ["KC", None, None, None], opp=9)
    assert holding(view)[0]
    reason = explain(view, (play(_c("5D"), 0),))
    assert "It keeps K♡ back while no one is close to going out" in reason
    assert "opens a corner for the others' queens" in reason


def test_a_king_is_not_held_back_once_an_opponent_is_close_to_going_out() -> None:
    view = _view(["5D", "KH"], ["6S", "9C", "9S", "4C"], ["KC", None, None, None], opp=1)
    held, why = holding(view)
    assert not held and why == "an opponent is close to going out"
    reason = explain(view, (play(_c("5D"), 0),))
    assert "back while" not in reason
    # Played, K♡ would give a place to the black queens (both unseen).
    assert "It keeps K♡: played, it would give the next player a place for Q♣ Q♠" in reason


def test_a_king_that_must_wait_for_a_corner_says_so() -> None:
    view = _view(["5D", "KH"], ["6S", "9C", "9S", "4C"], ["KC", "KD", "KS", "QD"])
    reason = explain(view, (play(_c("5D"), 0),))
    assert "K♡ must wait: no corner is open" in reason


def test_a_card_kept_because_it_would_open_a_place_names_the_cards_it_would_let_in() -> None:
    # 7♣ fits 8♡ at N; the red sixes fit nowhere now and are unseen.
    view = _view(["7C", "2S"], ["8H", "9C", "9S", "4C"], ["KC", "KD", "KS", "KH"])
    reason = explain(view, ())
    assert "It keeps 7♣: played, it would give the next player a place for 6♢ 6♡" in reason


def test_what_is_left_open_is_counted() -> None:
    # On top: 6♠ (5♡; 5♢ is ours), 9♣ and 9♠ (8♢ 8♡), 4♣ (3♢ 3♡), four kings (the four queens).
    view = _view(["5D", "2C"], ["6S", "9C", "9S", "4C"], ["KC", "KD", "KS", "KH"])
    reason = explain(view, ())
    assert reason.endswith("It leaves the next player a place for 9 unseen cards.")
    view = _view(["5D"], ["6S", "9C", None, None], ["KC", "KD", "KS", "KH"])
    assert "and 2 empty sides" in explain(view, ())


def test_the_card_style_is_followed() -> None:
    view = _view(["5D", "KH"], ["6S", "9C", "9S", "4C"], ["KC", None, None, None], opp=9)
    reason = explain(view, (play(_c("5D"), 0),), card_str)
    assert "KH" in reason and "5D" in reason and "♡" not in reason and "♢" not in reason


def test_cards_words_counts_long_lists() -> None:
    mask = mask_of(_c(x) for x in ("2C", "3C", "4C", "5C", "6C"))
    assert cards_words(mask, card_str) == "5 cards"
    assert cards_words(mask, card_str, most=5) == "2C 3C 4C 5C 6C"


# ------------------------------------------------------------------ the hint's advice
def test_advice_starts_with_the_move_the_hint_chooses_and_names_its_plan() -> None:
    for r, seat in midround_positions(8, seed=5):
        view = r.view(seat)
        first = HintAI(3).choose(view)
        advice = HintAI(3).advice(view)
        assert isinstance(advice, Advice)
        assert advice.move == first
        if first == END:
            assert advice.plan == () and advice.text == "end your turn"
        else:
            assert advice.plan[0] == first
            assert advice.text == describe_plan(view, advice.plan)
        assert advice.reason == explain(view, advice.plan)
        assert advice.line == f"Hint: {advice.text}. {advice.reason}"


def test_advice_goes_out_when_it_can() -> None:
    view = _view(["5D", "KH"], ["6S", "9C", "9S", "4C"], ["KC", None, None, None], opp=1)
    advice = HintAI(1).advice(view, card_str)
    assert set(advice.plan) == {play(_c("5D"), 0), play(_c("KH"), 5)}
    assert advice.reason.startswith("It goes out") and "KH" in advice.text
