"""Thirty malformed lines typed at a turn through the pipe: each is answered in one line (at a
width that wraps none), the turn is asked again, and nothing of the match changes."""

from __future__ import annotations

from tests.plain.plainkit import MOVE, PlainRun, plain_env

MALFORMED = [
    "",
    "   ",
    "xyzzy",
    "7x north",
    "play",
    "move",
    "move north",
    "move n n",
    "play zz n",
    "99",
    "0",
    "-1",
    "1.5",
    "7h",
    "kh",
    "ks nowhere",
    "end now please",
    "\x1b[31mred\x1b[0m",
    "👍",
    "a" * 300,
    "hand table",
    "1 2",
    "move e to",
    "to n",
    "play 7h on",
    "北",
    "help me now",
    "quitt",
    "undo 3",
    "[bold]7c[/bold] n",
]


def test_thirty_malformed_lines_are_each_answered_in_one_line() -> None:
    assert len(MALFORMED) == 30
    run = PlainRun("play", "--plain", "--seed", "3", "--opponents", "greedy", env=plain_env(COLUMNS="400"))
    question, lines = run.next_question()
    assert question == MOVE
    table = lines[lines.index(next(line for line in lines if line.startswith("Your hand"))) : -1]
    for text in MALFORMED:
        run.type(text)
        question, lines = run.next_question()
        assert question == MOVE, (text, lines)
        assert len(lines) == 2, (text, lines)
    run.type("table")
    question, lines = run.next_question()
    assert lines[:-1] == table[1 : len(lines)]  # the table as it was: nothing was played
    run.close_input()
    assert run.wait_end() == 0
    run.check_lines(400)
