"""A plain match saved and resumed like the app's: quit (or the end of the input) keeps the
save, ``play --plain`` offers to resume it, and the resumed match is recorded in the history."""

from __future__ import annotations

from kc_tui.match.saves import default_save_path
from tests.plain.plainkit import MOVE, QUIT, RESUME, PlainRun, Player, recorded_matches


def start(*args: str) -> tuple[PlainRun, list[str]]:
    run = PlainRun("play", "--plain", *args)
    question, lines = run.next_question()
    assert question in (MOVE, RESUME), lines
    return run, lines


def test_quit_saves_and_play_resumes_at_the_same_turn() -> None:
    run, lines = start("--seed", "3", "--opponents", "greedy", "--target", "5")
    player = Player(run)
    player.answer(MOVE, lines)  # one move made
    question, lines = run.next_question()
    assert question == MOVE
    hand = next(line for line in lines if line.startswith("Your hand"))
    run.type("quit")
    question, _lines = run.next_question()
    assert question == QUIT
    run.type("n")  # stays
    question, _lines = run.next_question()
    assert question == "Your move:"
    run.type("quit")
    run.next_question()
    run.type("y")
    question, lines = run.next_question()
    assert question is None and lines[-1].startswith("Your match is saved")
    assert run.wait_end() == 0
    run.check_lines()
    assert default_save_path().exists()

    again, lines = start("--opponents", "random")
    assert lines[-2].startswith("Your saved match: Round 1")
    assert lines[-1] == RESUME
    again.type("maybe")
    question, lines = again.next_question()
    assert lines[0] == "Type y for yes or n for no." and question == RESUME
    again.type("y")
    question, lines = again.next_question()
    assert question == MOVE
    assert hand in lines  # the same hand, at the same turn
    player = Player(again)
    player.answer(MOVE, lines)
    said = player.play_to_end()
    assert again.wait_end() == 0
    again.check_lines()
    assert "the match is over" in said[-2]
    assert said[-1].startswith("Rating ") or said[-1].startswith("Your first rating: "), said[-1]
    [match] = recorded_matches()
    assert [seat["name"] for seat in match["seats"]] == ["You", "Greedy"]  # type: ignore[attr-defined]
    assert match["finished_at"]
    assert not default_save_path().exists()  # recorded: the save goes


def test_the_end_of_the_input_quits_with_the_save_kept() -> None:
    run, lines = start("--seed", "6", "--opponents", "greedy")
    run.close_input()
    question, lines = run.next_question()
    assert question is None
    assert run.wait_end() == 0
    run.check_lines()
    assert lines[-1].startswith("Your match is saved")
    assert default_save_path().exists()

    again, lines = start()
    assert lines[-1] == RESUME
    again.type("n")  # a new match replaces it
    question, _lines = again.next_question()
    assert question == MOVE
    again.close_input()
    assert again.wait_end() == 0


def test_sigterm_at_a_turn_ends_the_game_with_the_match_saved() -> None:
    import signal

    run, lines = start("--seed", "6", "--opponents", "greedy")
    run.proc.send_signal(signal.SIGTERM)
    question, lines = run.next_question()
    assert question is None
    assert run.wait_end() == 0
    assert lines[-1].startswith("Your match is saved")
    run.check_lines()
    assert default_save_path().exists()
