"""MatchSession without Textual: log words, undo, stale AI decisions, save and resume."""

from __future__ import annotations

import json
from pathlib import Path

from kc_tui.engine import END, PLACES, is_play, play_card, target
from kc_tui.match.saves import SaveError
from kc_tui.match.session import MatchSession, load_or_quarantine
from tests.match.kit import step

from .gamekit import make_config, position


def _to_human(s: MatchSession) -> None:
    while s.ai_to_move:
        s.step_ai()


def test_log_in_plain_words_and_undo(tmp_path: Path) -> None:
    s = MatchSession.from_config(make_config(), 3, save_path=tmp_path / "m.json")
    _to_human(s)
    before = position(s)
    m = next(m for m in s.match.round.legal_moves() if is_play(m))
    top = s.match.round.piles[target(m)]
    assert s.play_human(m) is None
    word = "played" if top else "put"
    assert s.log[-1].startswith(f"You {word} {s.fmt(play_card(m))}")
    assert PLACES[target(m)] in s.log[-1]
    assert s.undo()
    assert position(s) == before
    assert not s.undo()


def test_stale_ai_decision_is_discarded() -> None:
    s = MatchSession.from_config(make_config(), 3, save_path=None)
    _to_human(s)
    s.play_human(END)
    turn = s.prepare_ai_turn()
    m = turn.think()
    s.generation += 1  # e.g. a reload
    assert not s.apply_ai_turn(turn, m)
    fresh = s.prepare_ai_turn()
    assert s.apply_ai_turn(fresh, fresh.think())


def test_save_round_trip_is_exact_and_corrupt_saves_move_aside(tmp_path: Path) -> None:
    path = tmp_path / "current-match.json"
    s = MatchSession.from_config(make_config(), 11, save_path=path)
    for _ in range(40):
        step(s)
    loaded = MatchSession.load(path)
    assert loaded is not None
    assert position(loaded) == position(s)
    assert loaded.log == s.log and loaded.match.live_chips() == s.match.live_chips()
    doc = json.loads(path.read_text())
    assert doc["format"] == "kings-corners/position/1" and "match" in doc
    doc["to_move"] = (doc["to_move"] + 1) % len(doc["players"])
    path.write_text(json.dumps(doc))
    try:
        MatchSession.load(path)
    except SaveError as exc:
        assert "does not match" in str(exc)
    else:
        raise AssertionError("a tampered save was accepted")
    session, message = load_or_quarantine(path)
    assert session is None and message and "moved aside" in message
    assert not path.exists() and list(tmp_path.glob("current-match.json.corrupt-*"))


def test_all_ai_session_plays_a_match_and_never_saves(tmp_path: Path) -> None:
    s = MatchSession.all_ai(["greedy", "king-aware"], seed=5)
    assert s.all_ai_seats and s.save_path is None
    while not s.match.over:
        if s.match.round.over:
            s.finish_round()
        else:
            s.step_ai()
    assert s.match.winners and max(s.match.live_chips()) >= s.match.rules.target


def test_undo_after_resume_takes_back_exactly_this_turns_moves(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    s = MatchSession.from_config(make_config(), 8, save_path=path)
    # Find a turn of the human with at least two plays in it (not the first of the round).
    for _ in range(2000):
        if s.match.round.over:
            s.finish_round()
            continue
        if s.ai_to_move:
            s.step_ai()
            continue
        start, start_log = position(s), list(s.log)
        played = 0
        while played < 2 and s.human_to_move:
            plays = [m for m in s.match.round.legal_moves() if m != END]
            if not plays:
                break
            s.play_human(plays[0])
            played += 1
        if played == 2 and s.human_to_move and len(s.match.round.history) > 2:
            break
        if s.human_to_move:
            s.play_human(END)
    else:
        raise AssertionError("no turn with two plays")
    mid = position(s)
    earlier = s.match.round.history[:-2]
    resumed = MatchSession.load(path)
    assert resumed is not None and position(resumed) == mid and resumed.log == s.log
    assert resumed.can_undo
    assert resumed.undo()
    assert resumed.undo()
    assert position(resumed) == start
    assert resumed.log == start_log
    assert resumed.match.round.history == earlier
    assert not resumed.can_undo and not resumed.undo()  # nothing of earlier turns
    # The undone state was saved: resuming again gives the start of the turn, with no undo.
    again = MatchSession.load(path)
    assert again is not None and position(again) == start and not again.can_undo


def test_no_undo_after_resume_at_the_start_of_a_turn(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    s = MatchSession.from_config(make_config(), 8, save_path=path)
    _to_human(s)
    resumed = MatchSession.load(path)
    assert resumed is not None and resumed.human_to_move
    assert not resumed.can_undo
