"""``demo --plain`` told to the match's end (or stopped by quit), and ``tutorial --plain`` through
its first lesson: the coach's words, a move it refuses in one line, the step's move by its hint."""

from __future__ import annotations

import json
import re

from kc_tui.learn.lessons import LESSONS, WRONG
from tests.plain.plainkit import LESSON_DONE, MOVE, READ_ON, PlainRun, data_folder, plain_env


def test_the_demo_is_told_to_the_match_end() -> None:
    run = PlainRun("demo", "--plain", "--seed", "3", "--seats", "greedy,greedy,random", "--target", "5")
    question, lines = run.next_question()  # the input stays open: the demo does not wait for it
    assert question is None
    assert run.wait_end() == 0
    run.check_lines()
    assert lines[0] == "The demo plays by itself: type quit to stop it."
    assert lines[1].startswith("Round 1: ")
    assert "the match is over" in lines[-1]
    assert not [line for line in lines if line.startswith("Your hand")]


def test_quit_stops_the_demo() -> None:
    run = PlainRun("demo", "--plain", "--seats", "lookahead,lookahead", "--target", "500")
    run.type("quit")
    question, lines = run.next_question()
    assert question is None
    assert run.wait_end() == 0
    assert lines[-1] == "The demo is stopped."


def test_the_first_lesson_is_learnt_in_lines() -> None:
    run = PlainRun("tutorial", "--plain", env=plain_env(COLUMNS="60", TERM="dumb"))
    said: list[str] = []
    refused = False
    while True:
        question, lines = run.next_question()
        said += lines
        assert question is not None, said
        if question == LESSON_DONE:
            run.type("")
            break
        if question == READ_ON:
            run.type("")
        elif question == MOVE and not refused:
            refused = True
            run.type("end")  # not this step's move: the coach says why, in one line
            question, lines = run.next_question()
            said += lines
            assert question == MOVE and " ".join(lines[:-1]) == WRONG, lines
            run.type("hint")
        elif question == MOVE and lines[0].startswith("Hint (move "):
            found = re.match(r"Hint \(move (\d+)\)", lines[0])
            assert found is not None
            run.type(found.group(1))
        elif question == MOVE:
            run.type("hint")
        else:
            raise AssertionError(question)
    assert said[0] == f"Lesson 1/{len(LESSONS)}: {LESSONS[0].title}"
    assert any(line.startswith("The step's move: 1, play ") for line in said)
    question, lines = run.next_question()
    assert lines[0] == f"Lesson 2/{len(LESSONS)}: {LESSONS[1].title}"
    run.type("quit")
    question, lines = run.next_question()
    assert question is None
    assert " ".join(lines[-2:]).endswith(
        "Your place in the lesson is kept: kings-corners tutorial --plain comes back to it."
    )
    assert run.wait_end() == 0
    run.check_lines(60)
    progress = json.loads((data_folder() / "tutorial.json").read_text(encoding="utf-8"))
    assert progress["lessons"][LESSONS[0].id] == "done"
    assert progress["lesson"] == LESSONS[1].id
