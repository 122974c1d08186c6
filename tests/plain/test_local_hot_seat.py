"""``play --plain --seats`` with several people at one keyboard: a handoff before each person's
turn, nobody's hand told before it, and no line naming another person's drawn card."""

from __future__ import annotations

import re

from tests.plain.plainkit import DREW_CARD, PlainRun, Player, plain_env


def test_hot_seat_hands_the_keyboard_over_before_every_hand_is_told() -> None:
    run = PlainRun(
        "play", "--plain", "--seed", "4", "--seats", "human:Ana,human:Ben,greedy", "--target", "5", env=plain_env()
    )
    player = Player(run, words=True)
    said = player.play_to_end()
    assert run.wait_end() == 0
    run.check_lines()
    player.check_moves_made()
    assert {"Ana", "Ben"} <= set(player.handoffs)
    # Every hand told was told after a handoff, to the person on turn then.
    assert player.hands_told_to and None not in player.hands_told_to
    # A hand is told only after the handoff to its owner: never between a turn's end and the next handoff.
    handoff = re.compile(r"Pass the keyboard to (\w+)\.")
    holder: str | None = None
    for line in said:
        found = handoff.match(line)
        if found:
            holder = found.group(1)
        elif line.startswith(("Ana ended the turn", "Ben ended the turn")) or " went out" in line:
            holder = None
        elif line.startswith("Your hand"):
            assert holder is not None, line
    assert not [line for line in said if DREW_CARD.search(line)]
    assert "the match is over" in said[-1]


def test_quit_at_a_handoff_asks_first_and_keeps_the_match() -> None:
    run = PlainRun("play", "--plain", "--seed", "4", "--seats", "human:Ana,human:Ben", "--target", "5")
    question, lines = run.next_question()
    assert question is not None and question.startswith("Pass the keyboard to ")
    assert not [line for line in lines if line.startswith("Your hand")]
    handoff = question
    run.type("quit")
    question, _lines = run.next_question()
    assert question == "Quit Kings Corners? (y/n)"
    run.type("n")  # stays: the handoff is asked again, and still no hand is told
    question, lines = run.next_question()
    assert question == handoff and lines == [handoff]
    run.type("quit")
    run.next_question()
    run.type("y")
    question, lines = run.next_question()
    assert question is None
    assert run.wait_end() == 0
    assert lines[-1].startswith("Your match is saved")
    run.check_lines()
