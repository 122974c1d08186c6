"""Every lesson checked against the engine, as a tutorial's steps are tested: its position file
is valid (``kings-corners check`` accepts it), each step's expected move is legal in its
position, each goal accepts its own solution (and every move it names), each chosen wrong move is
refused with the expected words, and a lesson plays the same every time."""

from __future__ import annotations

import re

import pytest

import ai
from kc_tui.cli import main
from kc_tui.engine import END, dump_position, parse_move
from kc_tui.engine.position import load_position
from kc_tui.learn import coach
from kc_tui.learn.coach import READ_FIRST, position_at, reply, verdict, words
from kc_tui.learn.lessons import BY_ID, CONDITIONS, LEARNER, LESSONS, Goal, Lesson, Step

NAMES = ("You", "Lena")
STEPS = [(lesson, i, step) for lesson in LESSONS for i, step in enumerate(lesson.steps)]
PLAYED = [(lesson, i, step) for lesson, i, step in STEPS if step.goal is not Goal.READ]


def _id(value: object) -> str:
    return value.id if isinstance(value, Lesson) else str(value) if isinstance(value, int) else ""


@pytest.mark.parametrize("lesson", LESSONS, ids=_id)
def test_check_accepts_every_lesson_file(
    lesson: Lesson, tmp_path: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / f"{lesson.id}.json"  # type: ignore[operator]
    path.write_text(lesson.position_text(), encoding="utf-8")
    assert main(["check", str(path)]) == 0
    out, err = capsys.readouterr()
    assert out.strip() == f"{path}: valid position, 2 players, seat 0 to move"
    assert err == ""


@pytest.mark.parametrize(("lesson", "index", "step"), PLAYED, ids=lambda v: _id(v))
def test_each_expected_move_is_legal_and_meets_its_goal(lesson: Lesson, index: int, step: Step) -> None:
    r = position_at(lesson, index)
    assert r.to_move == LEARNER and not r.over
    solution = step.solution_move()
    assert solution is not None
    assert r.why_illegal(solution) is None, f"{lesson.id} step {index + 1}: its solution is not legal"
    assert verdict(step, r, solution, NAMES) is None
    for text in step.moves:  # any of several: every one is legal and accepted
        assert r.why_illegal(parse_move(text)) is None
        assert verdict(step, r, parse_move(text), NAMES) is None
    if step.goal is Goal.REACH:
        assert not CONDITIONS[step.reach](r), "the condition holds before the move"
        assert CONDITIONS[step.reach](r.child(solution))


@pytest.mark.parametrize(("lesson", "index", "step"), PLAYED, ids=lambda v: _id(v))
def test_each_wrong_move_gets_its_words_and_is_not_made(lesson: Lesson, index: int, step: Step) -> None:
    r = position_at(lesson, index)
    before = dump_position(r)
    assert step.tries, "every step names the wrong moves it is checked with"
    illegal = [t for t in step.tries if r.why_illegal(parse_move(t)) is not None]
    legal = [t for t in step.tries if t not in illegal]
    assert illegal, "every step tries an illegal move"
    for text in illegal:  # the engine's own refusal, word for word
        assert verdict(step, r, parse_move(text), NAMES) == r.why_illegal(parse_move(text))
    for text in legal:  # the step's correction, filled from the position
        said = verdict(step, r, parse_move(text), NAMES)
        assert said == words(step.wrong, step, r, NAMES)
        assert said and "{" not in said
    assert dump_position(r) == before


@pytest.mark.parametrize(("lesson", "index", "step"), STEPS, ids=lambda v: _id(v))
def test_every_step_says_its_move_with_the_rule_and_fills_every_placeholder(
    lesson: Lesson, index: int, step: Step
) -> None:
    r = position_at(lesson, index)
    text = words(step.text, step, r, NAMES)
    assert "{" not in text and "}" not in text
    last = (lesson, index) == (LESSONS[-1], len(lesson.steps) - 1)  # the hand-over names no rule
    assert re.search(r"\bR\d+\b", text) or last, f"{lesson.id} step {index + 1} names no rule"
    for place in step.places():
        assert 0 <= place < 8


def test_a_step_to_read_takes_no_move() -> None:
    lesson = BY_ID["out"]
    r = position_at(lesson, 1)
    assert r.over and r.winner == LEARNER
    assert verdict(lesson.steps[1], r, END, NAMES) == READ_FIRST
    assert words(lesson.steps[1].text, lesson.steps[1], r, NAMES) == (
        "You won the round. Lena keeps 2C 7D KS: 12 penalty points (a king 10, any other card 1, R15)."
    )


def test_the_draw_lesson_shows_the_card_drawn_after_the_scripted_reply() -> None:
    lesson = BY_ID["draw"]
    r = position_at(lesson, 1)
    assert r.to_move == LEARNER
    assert [m for _seat, m in r.history] == [END, END]  # the opponent's scripted turn: it ends
    assert "5D" in words(lesson.steps[1].text, lesson.steps[1], r, NAMES)


@pytest.mark.parametrize("lesson", LESSONS, ids=_id)
def test_a_lesson_plays_the_same_every_time(lesson: Lesson) -> None:
    for index in range(len(lesson.steps) + 1):
        assert dump_position(position_at(lesson, index)) == dump_position(position_at(lesson, index))
    assert dump_position(position_at(lesson, 0)) == dump_position(load_position(lesson.position_text()))


def test_the_scripted_opponent_plays_its_legal_replies_then_ends() -> None:
    legal = [parse_move("play 2H E"), END]
    assert reply(legal, ("play 9S N", "play 2H E")) == parse_move("play 2H E")
    assert reply(legal, ("play 9S N",)) == END
    assert reply([END], ()) == END


def test_the_scripted_opponent_is_never_offered() -> None:
    assert coach.ScriptedPlayer.kind not in {k.name for k in ai.kinds()}
    assert not coach.ScriptedPlayer.offered
