"""The plain mode's lines: wrapped to the width, printable, and on a terminal a curtain of blank
lines between one person's hand and the next person at the same keyboard."""

from __future__ import annotations

import fcntl
import io
import os
import re
import struct
import termios
from pathlib import Path

from kc_tui.plain.lines import Lines
from tests.ptykit import app_env, on_pty


def test_a_line_is_wrapped_to_the_width_and_its_control_characters_shown_as_escapes() -> None:
    out = io.StringIO()
    Lines(out, io.StringIO(), width=30).say("Ben\x1b[31m played 7♠ on 8♡ at North; Ben has 4 cards")
    lines = out.getvalue().splitlines()
    assert len(lines) > 1
    assert all(len(line) <= 30 for line in lines)
    assert "\x1b" not in out.getvalue()
    assert "\\x1b[31m" in out.getvalue()


def test_the_curtain_writes_nothing_on_a_pipe() -> None:
    read, write = os.pipe()
    with os.fdopen(write, "w") as out:
        Lines(out, io.StringIO(), width=40).curtain()
    with os.fdopen(read) as back:
        assert back.read() == ""


def test_the_curtain_moves_a_terminals_whole_screen_up() -> None:
    master, follower = os.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 17, 60, 0, 0))
    try:
        with open(follower, "w", closefd=False) as out:
            Lines(out, io.StringIO()).curtain()
        written = os.read(master, 4096)
    finally:
        os.close(follower)
        os.close(master)
    assert written.replace(b"\r\n", b"\n") == b"\n" * 17


def test_at_a_shared_keyboard_a_hand_leaves_the_screen_before_the_next_handoff(tmp_path: Path) -> None:
    rows = 24
    args = ["play", "--plain", "--seed", "4", "--seats", "human:Ana,human:Ben", "--target", "5"]
    with on_pty(args, app_env(tmp_path), size=(80, rows)) as run:
        assert run.read_until(b"Pass the keyboard to Ana."), run.output
        os.write(run.master or -1, b"\n")
        assert run.read_until(b"Your move:"), run.output
        told = len(run.output)
        os.write(run.master or -1, b"end\n")
        assert run.read_until(b"Pass the keyboard to Ben."), run.output
        between = bytes(run.output[told : run.output.rfind(b"Pass the keyboard to Ben.")]).replace(b"\r\n", b"\n")
    assert b"Your hand" in run.output[:told]
    # Ana's hand and moves are followed by a screenful of blank lines: none of it stays in sight.
    assert re.search(b"\n{%d}" % rows, between), between
    assert b"\x1b" not in run.output
