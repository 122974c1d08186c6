"""A log many people read (a hosted table: ``shared_log``): it names every seat and never a drawn
card, even with one person seated, and the match's end names everyone; kept through a resume."""

from __future__ import annotations

import re
from pathlib import Path

from kc_tui.config import Config, Opponent
from kc_tui.engine import END, Rules
from kc_tui.match.roster import Seat
from kc_tui.match.session import MatchSession, match_end_text

RULES = Rules(target=5, hand_size=4)
DREW_A_CARD = re.compile(r"drew (10|[2-9JQKA])[♠♡♢♣]")


def play_out(s: MatchSession, moves: int = 10_000) -> None:
    """Play the match on (the person ends every turn at once), at most ``moves`` moves."""
    for _ in range(moves):
        if s.match.over:
            return
        if s.match.round.over:
            s.finish_round()
        elif s.human_to_move:
            assert s.play_human(END) is None
        else:
            s.step_ai()


def test_with_one_person_a_shared_log_names_no_drawn_card_and_a_private_one_does() -> None:
    seats = [Seat("Ana", "human"), Seat("Greedy", "greedy")]
    shared = MatchSession.hosted(seats, RULES, seed=3)
    config = Config(player_name="Ana", opponents=(Opponent("Greedy", "greedy"),), rules=RULES)
    private = MatchSession.from_config(config, seed=3, save_path=None)
    play_out(shared)
    play_out(private)
    assert shared.shared_log and not private.shared_log
    assert any(line.startswith("Ana drew a card") for line in shared.log)
    assert not [line for line in shared.log if DREW_A_CARD.search(line)]
    assert [line for line in private.log if line.startswith("Ana drew") and DREW_A_CARD.search(line)]


def test_a_shared_logs_match_end_names_everyone_even_with_one_person() -> None:
    seats = [Seat("Ana", "human"), Seat("Greedy", "greedy")]
    shared = MatchSession.hosted(seats, RULES, seed=3)
    play_out(shared)
    text = match_end_text(shared)
    assert text and "You" not in text and "you" not in text.split()
    winners = [shared.names[w] for w in shared.match.winners]
    assert all(name in text for name in winners)
    config = Config(player_name="Ana", opponents=(Opponent("Greedy", "greedy"),), rules=RULES)
    private = MatchSession.from_config(config, seed=3, save_path=None)
    play_out(private)
    assert "You" in match_end_text(private) or "you" in match_end_text(private)


def test_a_shared_log_is_kept_through_a_resume(tmp_path: Path) -> None:
    save = tmp_path / "hosted.json"
    seats = [Seat("Ana", "human"), Seat("Greedy", "greedy")]
    first = MatchSession.hosted(seats, Rules(target=50), seed=5, save_path=save)
    play_out(first, moves=6)
    again = MatchSession.load(save, shared_log=True)
    assert again is not None and again.shared_log
    assert again.log == first.log
    play_out(again, moves=200)
    assert not [line for line in again.log if DREW_A_CARD.search(line)]
    doc = first.to_dict()
    assert MatchSession.from_dict(doc, shared_log=True).shared_log
    assert not MatchSession.from_dict(doc).shared_log
