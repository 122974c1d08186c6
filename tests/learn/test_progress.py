"""The tutorial's progress file: written atomically and read back; a bad one starts again with
one line and is set aside, never a traceback; lessons skipped, learnt and reset."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kc_tui.learn.lessons import LESSONS
from kc_tui.learn.progress import DONE, SKIPPED, Progress, load_progress, progress_path, save_progress

IDS = [lesson.id for lesson in LESSONS]


def test_progress_round_trips_in_the_data_folder(isolated_dirs: Path) -> None:
    p = Progress().at(IDS[2], 1).learnt(IDS[0]).skipped(IDS[1])
    assert save_progress(p) is None
    assert progress_path() == isolated_dirs / "data" / "tutorial.json"
    assert load_progress() == (p, None)


def test_no_file_is_a_fresh_start_without_a_word() -> None:
    assert load_progress() == (Progress(), None)


@pytest.mark.parametrize(
    "content",
    [
        "{",
        "[]",
        '{"format": "kings-corners/tutorial/1", "step": true}',
        '{"format": "kings-corners/tutorial/1", "lesson": "nope"}',
        '{"format": "kings-corners/tutorial/1", "lesson": "build", "step": 99}',
        '{"format": "kings-corners/tutorial/1", "lessons": {"build": "maybe"}}',
        '{"format": "kings-corners/tutorial/1", "lessons": []}',
        '{"format": "kings-corners/tutorial/1", "step": 1, "step": 0}',
        '{"format": "other"}',
        '{"format": "kings-corners/tutorial/1", "extra": 1}',
        "\udcff",
        '{"format": "kings-corners/tutorial/1", "lesson": "build", "step": 1e400}',
        '{"format": "kings-corners/tutorial/1", "lesson": "build", "step": NaN}',
        '{"format": "kings-corners/tutorial/1", "lesson": "build", "step": 100000000000000000000000000000}',
        '{"format": "kings-corners/tutorial/1", "lesson": "[bold red]build[/]\\u0007"}',
        "[" * 100_000 + "]" * 100_000,
        '{"format": "kings-corners/tutorial/1", "lessons": {"build": "learnt"}, "pad": "' + "x" * 2_000_000 + '"}',
    ],
)
def test_a_bad_file_starts_again_in_one_line_and_is_set_aside(content: str) -> None:
    path = progress_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.encode("utf-8", "surrogateescape"))
    progress, message = load_progress()
    assert progress == Progress()  # started again, from the first lesson
    assert message is not None and "\n" not in message and "starts again" in message
    assert not path.exists() and list(path.parent.glob("tutorial.json.bad*"))


def test_skipping_moves_on_and_learning_marks_the_lesson() -> None:
    p = Progress()
    assert p.lesson == IDS[0]
    p = p.skipped(IDS[0])
    assert (p.lesson, p.step, p.state(IDS[0])) == (IDS[1], 0, SKIPPED)
    p = p.at(IDS[1], 1).skipped(IDS[3])  # another lesson skipped: the current one stays, at its step
    assert (p.lesson, p.step) == (IDS[1], 1)
    p = p.learnt(IDS[1])
    assert (p.lesson, p.state(IDS[1])) == (IDS[2], DONE)
    assert p.learnt(IDS[0]).state(IDS[0]) == DONE
    assert p.learnt(IDS[1]).skipped(IDS[1]).state(IDS[1]) == DONE  # a lesson learnt stays learnt


def test_when_every_lesson_is_behind_there_is_none_to_come_back_to() -> None:
    p = Progress()
    for lesson in IDS:
        p = p.learnt(lesson)
    assert p.lesson == ""
    again = p.reset()
    assert again == Progress() and again.lesson == IDS[0]
    assert json.loads(json.dumps(p.to_dict()))["lesson"] == ""
