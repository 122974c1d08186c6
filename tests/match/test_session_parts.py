"""The session's parts, each on its own: roster, narration, cards as text, the save file."""

from __future__ import annotations

import pytest

import ai as ai_pkg
from ai.safe import SafePlayer, budget_of
from kc_tui.config import HUMAN, Config, Opponent
from kc_tui.engine import END, Match, Rules, card_str, card_symbol, parse_card
from kc_tui.match.card_format import card_formatter, cards_text
from kc_tui.match.narration import Narrator, describe_move, fault_reason
from kc_tui.match.roster import KIND_NAMES, Seat, build_ai, build_players, default_name, default_names
from kc_tui.match.saves import SaveError, check_position, read_document, save_document
from kc_tui.match.session import MatchSession


def test_default_names_come_from_the_registry() -> None:
    for info in ai_pkg.kinds():
        assert default_name(info.name) == info.player_name == KIND_NAMES[info.name]
    assert default_name("king-aware", ["Kingsley"]) == "Kingsley 2"
    assert default_names(["greedy", "greedy", "greedy"]) == ["Greedy", "Greedy 2", "Greedy 3"]
    assert set(KIND_NAMES) == set(ai_pkg.ai_kinds())
    assert default_name("no-such-kind") == "No Such Kind"


def test_think_time_goes_to_the_kinds_that_take_one() -> None:
    for info in ai_pkg.kinds():
        player = build_ai(info.name, 1, think_ms=333)
        assert player.kind == info.name
        if info.takes_think_time:
            assert budget_of(player) == 333
        else:
            assert "think_ms" not in player.params
    assert build_ai("no-such-kind", 1).kind == "random"


def test_every_ai_seat_plays_behind_safe_player() -> None:
    seats = [Seat("You", HUMAN), Seat("Greedy", "greedy"), Seat("Ace", "expert", 200)]
    players = build_players(seats, 7)
    assert set(players) == {1, 2}
    assert all(isinstance(p, SafePlayer) for p in players.values())
    assert [p.inner.kind for p in players.values() if isinstance(p, SafePlayer)] == ["greedy", "expert"]


def test_fault_reasons_in_plain_words() -> None:
    assert fault_reason("greedy (seat 1): raised ValueError: x; greedy plays") == "it raised an error"
    assert fault_reason("greedy (seat 1): no move within 500 ms (2x its budget)") == "it ran out of time"
    assert fault_reason("greedy (seat 1): took 900 ms (over 2x its budget)") == "it ran out of time"
    assert fault_reason("greedy (seat 1): returned an illegal move (x)") == "it chose an illegal move"
    assert fault_reason("greedy (seat 1): still busy with an earlier move") == "it was still busy with an earlier move"


def test_narration_names_only_the_humans_draws() -> None:
    match = Match(2, Rules(), 3)
    narrator = Narrator(match, ["You", "Greedy"], [True, False], card_symbol)
    lines = narrator.round_started()
    assert lines[0] == f"Round 1: {['You', 'Greedy'][match.dealer]} dealt"
    assert narrator.ai_fault(1, "it ran out of time") == (
        "Greedy's AI failed (it ran out of time); a simple fallback played instead"
    )
    assert narrator.match_over([0, 1]) == "The match is over: You and Greedy won"
    r = match.round
    who = ["You", "Greedy"][match.match_seat(r.to_move)]
    assert describe_move(r, END, who) == f"{who} ended the turn"
    played = narrator.play(r.clone(), END)
    assert played[0] == f"{who} ended the turn"


def test_one_card_formatter_for_the_log_and_the_screen() -> None:
    from kc_tui.ui.cards import CardLook

    ten = parse_card("TH")
    assert card_formatter("ascii") is card_str and card_formatter("symbols") is card_symbol
    assert CardLook("ascii").label(ten) == "TH" and CardLook("symbols").label(ten) == card_symbol(ten)
    assert cards_text([ten, parse_card("9S")], card_str) == "TH 9S"


def test_a_save_document_reads_back_and_its_position_is_checked() -> None:
    cfg = Config(opponents=(Opponent("Greedy", "greedy"),))
    s = MatchSession.from_config(cfg, 4, save_path=None)
    while s.ai_to_move:
        s.step_ai()
    doc = save_document(s.match, s.seats, s.log)
    match, seats, log_lines = read_document(doc)
    assert seats == list(s.seats) and log_lines == s.log and match.to_dict() == s.match.to_dict()
    check_position(doc, match.round, [s.names[x] for x in match.seats])
    with pytest.raises(SaveError, match="differs"):
        check_position({**doc, "stock": []}, match.round, [s.names[x] for x in match.seats])
    with pytest.raises(SaveError, match="not a Kings Corners save"):
        read_document({**doc, "save_format": "other"})


def test_an_illegal_ai_move_is_logged_without_the_card(caplog: pytest.LogCaptureFixture) -> None:
    from kc_tui.engine import move_str, play

    s = MatchSession.all_ai(["greedy", "greedy"], Rules(), seed=5)
    turn = s.prepare_ai_turn()
    legal = set(s.match.round.legal_moves())
    bad = next(play(c, p) for c in s.hand(turn.seat) for p in range(8) if play(c, p) not in legal)
    with caplog.at_level("ERROR", logger="kc_tui.match.session"):
        assert s.apply_ai_turn(turn, bad)
    (record,) = [r for r in caplog.records if r.name == "kc_tui.match.session"]
    card = bad // 8
    said = record.getMessage()
    assert "illegal move" in said
    assert card_str(card) not in said and move_str(bad) not in said and str(bad) not in said
