"""``kings-corners play --plain`` through pipes: whole matches played by reading the lines alone,
2 and 4 seats, chips, draw 3, moves typed by number and in words, every line within the width
and none with an escape character, in a dumb terminal too."""

from __future__ import annotations

import re

import pytest

from tests.plain.plainkit import PlainRun, Player, plain_env, recorded_matches, write_settings


def play_match(*args: str, width: int = 80, words: bool = False, **env: str) -> tuple[PlainRun, Player, list[str]]:
    run = PlainRun("play", "--plain", *args, env=plain_env(COLUMNS=str(width), **env))
    player = Player(run, words=words)
    said = player.play_to_end()
    assert run.wait_end() == 0
    run.check_lines(width)
    player.check_moves_made()
    return run, player, said


def test_two_seats_play_a_whole_match_by_number_and_in_words() -> None:
    _run, player, said = play_match("--seed", "3", "--opponents", "greedy", "--target", "5", words=True)
    assert player.moves_typed >= 4
    assert said[0] == "Round 1: You dealt"
    assert any(line.startswith("Scores of round 1:") for line in said)
    assert "the match is over" in said[-2]
    assert re.fullmatch(r"Your first rating: \d+ ± \d+", said[-1]), said[-1]  # the one player's, as the summary's
    [match] = recorded_matches()
    assert match["finished_at"] and not match["demo"]
    assert [seat["name"] for seat in match["seats"]] == ["You", "Greedy"]  # type: ignore[attr-defined]
    assert match["rules"]["target"] == 5  # type: ignore[index]


def test_four_seats_in_a_narrow_dumb_terminal() -> None:
    _run, player, said = play_match(
        "--seed", "11", "--opponents", "greedy,random,greedy", "--target", "5", width=60, TERM="dumb"
    )
    assert player.moves_typed >= 1
    [match] = recorded_matches()
    names = [seat["name"] for seat in match["seats"]]  # type: ignore[attr-defined]
    assert len(names) == 4
    at = said.index("Scores of round 1:")
    assert [line.split(":")[0] for line in said[at + 1 : at + 5]] == names


def test_chips_are_played_to_the_match_end() -> None:
    write_settings('[rules]\nscoring = "chips"\nchips_start = 3\nchips_rounds = 2\n')
    _run, _player, said = play_match("--seed", "5", "--opponents", "greedy")
    assert any("chip" in line for line in said if line.startswith(("You:", "Greedy:")))
    assert any(line.startswith("Pot: ") for line in said)
    [match] = recorded_matches()
    assert match["rules"]["scoring"] == "chips"  # type: ignore[index]
    assert match["finished_at"]


def test_the_draw_three_variant_plays_to_the_end() -> None:
    write_settings('[rules]\nout_with_open_side = "draw3"\n')
    _run, _player, said = play_match("--seed", "8", "--opponents", "greedy,greedy", "--target", "5", words=True)
    assert "the match is over" in said[-2]
    [match] = recorded_matches()
    assert match["rules"]["out_with_open_side"] == "draw3"  # type: ignore[index]


@pytest.mark.parametrize("command", ["hand", "table", "moves", "scores", "hint", "undo", "rules", "help"])
def test_each_command_answers_and_the_turn_goes_on(command: str) -> None:
    run = PlainRun("play", "--plain", "--seed", "3", "--opponents", "greedy", "--target", "5")
    question, _lines = run.next_question()
    assert question == "Your move:"
    run.type(command)
    question, lines = run.next_question()
    assert question == "Your move:" and len(lines) >= 2
    run.close_input()
    assert run.wait_end() == 0
    run.check_lines()
    if command == "undo":
        assert lines[0] == "Nothing to undo this turn."
    if command == "hint":
        assert lines[0].startswith("Hint (move ")
    if command == "rules":
        assert any(line.startswith("R8 Play a card from hand onto a pile") for line in lines)
        assert not any(mark in line for line in lines for mark in ("**", "`", "## "))
