"""The fault fallback: an AI that raises, overruns 2x its budget or returns an illegal move
loses that turn to greedy, the fault is logged, and the game goes on."""

from __future__ import annotations

import logging
import time

import pytest

from ai import make_player
from ai.base import AIPlayer
from ai.safe import SafePlayer
from ai.search.planning import greedy_move
from kc_tui.engine import Move, PlayerView, Round, Rules
from kc_tui.engine.cards import card_str, cards_of
from kc_tui.engine.moves import play
from kc_tui.match.autoplay import play_out
from tests.timingkit import TIMED, within

from .helpers import Raises

pytestmark = pytest.mark.real_ai_timeouts  # the fallback's own tests: the game's time limit


class Sleeping(AIPlayer):
    kind = "sleeping"
    budget_ms = 20.0

    def __init__(self, seed: int = 0, **params: object) -> None:
        super().__init__(seed)
        self.calls = 0

    def choose(self, view: PlayerView) -> Move:
        self.calls += 1
        time.sleep(0.3)
        return view.legal_moves()[0]


class Illegal(AIPlayer):
    kind = "illegal"

    def choose(self, view: PlayerView) -> Move:
        return 3 * 8 + 4  # a non-king to a corner: never legal


class Junk(AIPlayer):
    kind = "junk"

    def choose(self, view: PlayerView) -> Move:
        return "end"  # type: ignore[return-value]


def _view() -> PlayerView:
    r = Round.deal(2, Rules(), 4, dealer=0)
    return r.view(r.to_move)


def _greedy(view: PlayerView) -> Move:
    return greedy_move(view.hand_mask, view.piles, True, False)


@pytest.mark.parametrize("bad", [Raises, Illegal, Junk])
def test_a_faulty_ai_falls_back_to_greedy_and_logs(bad: type[AIPlayer], caplog: pytest.LogCaptureFixture) -> None:
    view = _view()
    safe = SafePlayer(bad(1))
    with caplog.at_level(logging.WARNING, logger="ai.safe"):
        m = safe.choose(view)
    assert m == _greedy(view)
    assert m in view.legal_moves()
    assert safe.faults == 1
    assert any(bad.kind in rec.getMessage() for rec in caplog.records)


@pytest.mark.parametrize("timed", TIMED)
def test_an_overrun_is_cut_off_at_twice_the_budget(caplog: pytest.LogCaptureFixture, timed: bool) -> None:
    view = _view()
    inner = Sleeping(1)
    safe = SafePlayer(inner)
    assert safe.budget_ms == 20.0
    with caplog.at_level(logging.WARNING, logger="ai.safe"), within(0.2, timed, "the slow AI's turn"):
        m = safe.choose(view)
    assert m == _greedy(view)
    assert safe.faults == 1 and "2x its budget" in caplog.text
    # The rest of the turn is greedy's: the slow AI is not asked again this turn.
    assert safe.choose(view) == _greedy(view)
    assert inner.calls == 1


def test_the_game_allows_twice_the_budget_and_a_factor_can_be_given() -> None:
    assert SafePlayer(Sleeping(1)).timeout_factor == 2.0
    assert SafePlayer(Sleeping(1), timeout_factor=5).timeout_factor == 5.0


def test_an_overrun_without_a_thread_is_caught_after_the_call() -> None:
    view = _view()
    safe = SafePlayer(Sleeping(1), threaded=False)
    assert safe.choose(view) == _greedy(view)
    assert safe.faults == 1


def test_a_good_ai_is_left_alone() -> None:
    view = _view()
    safe = SafePlayer(make_player("lookahead", 1))
    assert safe.choose(view) == make_player("lookahead", 1).choose(view)
    assert safe.faults == 0


def test_a_whole_round_with_a_raising_ai_ends_normally() -> None:
    r = Round.deal(3, Rules(), 8, dealer=0)
    players = [SafePlayer(Raises(0)), SafePlayer(make_player("greedy", 1)), SafePlayer(Illegal(2))]
    # Every move is applied as chosen: IllegalMove if the wrapper let an illegal one through.
    assert not play_out(r, players, max_moves=5000)
    assert r.over
    assert players[0].faults > 0 and players[2].faults > 0 and players[1].faults == 0


class TellsItsHand(AIPlayer):
    """Fails naming every card it holds (a bug's message may say anything)."""

    kind = "tells"

    def choose(self, view: PlayerView) -> Move:
        raise ValueError("holding " + " ".join(card_str(c) for c in cards_of(view.hand_mask)))


class PlaysItsOwnCardBadly(AIPlayer):
    kind = "plays-badly"

    def choose(self, view: PlayerView) -> Move:
        """One of its own cards, not a king, to the empty corner NE: never legal."""
        card = next(c for c in cards_of(view.hand_mask) if not card_str(c).startswith("K"))
        return play(card, 4)


@pytest.mark.parametrize("bad", [TellsItsHand, PlaysItsOwnCardBadly])
def test_a_fault_names_no_card_of_the_ai_s_hand(bad: type[AIPlayer], caplog: pytest.LogCaptureFixture) -> None:
    view = _view()
    hand = [card_str(c) for c in cards_of(view.hand_mask)]
    safe = SafePlayer(bad(1))
    with caplog.at_level(logging.WARNING, logger="ai.safe"):
        safe.choose(view)
    said = " ".join(rec.getMessage() for rec in caplog.records) + " ".join(safe.fault_log)
    assert safe.faults == 1 and bad.kind in said
    for label in hand:
        assert label not in said, f"the fault names {label}, a card of the AI's hand"
