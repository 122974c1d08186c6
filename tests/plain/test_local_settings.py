"""The setting ``plain``: checked and kept like the others, and with it on, ``kings-corners``,
``play``, ``demo`` and ``tutorial`` start the plain mode (no terminal needed)."""

from __future__ import annotations

import pytest

from kc_tui.config import Config, ConfigError
from kc_tui.config.store import load_config, save_config
from tests.plain.plainkit import MOVE, PlainRun


def test_the_setting_is_checked_and_kept() -> None:
    assert not Config().plain
    assert Config.from_dict({"plain": True}).plain
    with pytest.raises(ConfigError, match="plain must be true or false"):
        Config.from_dict({"plain": 1})
    save_config(Config(plain=True))
    config, warning = load_config()
    assert warning is None and config.plain


def test_with_the_setting_play_starts_the_plain_mode() -> None:
    save_config(Config(plain=True))
    run = PlainRun("play", "--seed", "3", "--opponents", "greedy")
    question, lines = run.next_question()
    assert question == MOVE and lines[0] == "Round 1: You dealt"
    run.close_input()
    assert run.wait_end() == 0
    run.check_lines()


def test_with_the_setting_the_command_alone_opens_the_plain_menu() -> None:
    save_config(Config(plain=True))
    run = PlainRun()
    wait_menu = run.next_question
    run.type("7")  # not a choice
    run.type("5")  # quit
    question, lines = wait_menu()
    assert question is None
    assert run.wait_end() == 0
    assert lines[:2] == ["Kings Corners", "1. Play a match"]
    assert "Type a number from 1 to 5." in lines
    run.check_lines()


def test_without_the_setting_play_needs_a_terminal() -> None:
    run = PlainRun("play", "--opponents", "greedy")
    question, _lines = run.next_question()
    assert question is None
    assert run.wait_end() == 2
    assert b"the app needs a terminal" in b"".join(run.errors)


def test_with_hints_on_each_turn_starts_with_a_hint() -> None:
    save_config(Config(auto_hint=True))
    run = PlainRun("play", "--plain", "--seed", "3", "--opponents", "greedy")
    question, lines = run.next_question()
    moves = max(i for i, line in enumerate(lines) if line[0].isdigit())
    assert question == MOVE and lines[moves + 1].startswith("Hint (move ")
    run.type("hand")  # the same turn: no second hint
    question, lines = run.next_question()
    assert question == MOVE and not [line for line in lines if line.startswith("Hint")]
    run.close_input()
    assert run.wait_end() == 0


def test_another_window_holding_the_data_folder_starts_no_match() -> None:
    from kc_tui.config.store import data_dir
    from kc_tui.records import datalock

    lock, refused = datalock.acquire(data_dir())
    assert lock is not None and refused is None
    try:
        run = PlainRun("play", "--plain", "--opponents", "greedy")
        question, lines = run.next_question()
        assert question is None
        assert run.wait_end() == 1
        assert lines[0].startswith("The match you asked for was not started: ")
        run.check_lines()
    finally:
        lock.release()


@pytest.mark.parametrize(
    ("args", "first"),
    [
        (("join", "ws://127.0.0.1:9/seat/abc"), "Connecting to the table…"),
        (("online", "ws://127.0.0.1:9", "--name", "Zed"), "Connecting to ws://127.0.0.1:9/lobby…"),
    ],
)
def test_with_the_setting_join_and_online_start_the_plain_mode(args: tuple[str, ...], first: str) -> None:
    save_config(Config(plain=True))
    run = PlainRun(*args)
    run.close_input()
    assert run.wait_end() == 0
    run.check_lines()
    assert run.shown().splitlines()[0] == first
