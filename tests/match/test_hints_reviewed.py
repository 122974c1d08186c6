"""A person who plays every step of the hint, asked through the table driver as the game's `h` key
asks it, and the review of the recorded round as the replay runs it: no turn of theirs is marked,
and each is named the hint's plan."""

from __future__ import annotations

import pytest

from ai.advice.review import match_turns, review_round
from kc_tui.config import Config, Opponent
from kc_tui.engine import END, Move, Rules
from kc_tui.match.roster import hint_seed
from kc_tui.match.session import MatchSession
from kc_tui.match.table import TableDriver

ANA = 0


def round_following_hints(driver: TableDriver) -> list[Move]:
    """Play the match's first round, Ana taking every hint (its move, ``END`` included), the AIs
    by their jobs; the round's moves."""
    s = driver.session
    while not s.match.round.over:
        if s.human_to_move:
            decision = driver.hint_job().run()
            assert driver.hint_ready(decision) and decision.note is not None
            assert driver.play(decision.move) is None
        else:
            assert driver.decide(driver.ai_job().run())
    return [m for _seat, m in s.match.round.view(ANA).history]


@pytest.mark.parametrize(
    ("seed", "opponents", "rules"),
    [
        (4, ("greedy",), Rules()),
        (6, ("king-aware", "greedy"), Rules(draw="end")),
        (9, ("greedy", "king-aware", "greedy"), Rules(out_with_open_side="draw3", layout_kings="stay")),
    ],
)
def test_a_round_played_as_the_hints_say_is_reviewed_without_a_mark(
    seed: int, opponents: tuple[str, ...], rules: Rules
) -> None:
    config = Config("Ana", tuple(Opponent(k.title(), k) for k in opponents), rules=rules)
    driver = TableDriver(MatchSession.from_config(config, seed, save_path=None), "instant")
    moves = round_following_hints(driver)
    m = driver.session.match
    turns = match_turns(len(config.opponents) + 1, rules, seed, m.first_dealer, [moves], 1, ANA)
    assert turns and any(plan for _view, plan in turns)
    review = review_round(turns, hint_seed=hint_seed(seed))
    for turn in review.turns:
        assert turn.mark == "good", f"turn {turn.index}: {turn.mark} {turn.loss_text}: {turn.why}"
        assert turn.forced or turn.why.startswith("The hint's plan."), turn.why
    assert END in moves
