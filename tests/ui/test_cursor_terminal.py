"""The terminal's cursor in a real terminal (an 80x24 tmux pane, tests/tmuxkit.py): where a
braille display looks, it stands on the label of the card picked, as tmux reads it."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from tests.tmuxkit import Pane, in_tmux, lines_matching, needs_tmux, no_traceback, terminal_env

pytestmark = needs_tmux

#: A card's label on its face: ``│10♣│``, ``│7♣ │``.
FACE = r"│((?:10|[2-9JQKA])[♠♡♢♣♥♦]) *│"


def under_cursor(pane: Pane, length: int) -> str:
    """The ``length`` letters the pane shows from its cursor on (what a braille display follows),
    the screen and the cursor read at one moment (else "")."""
    before = pane.tmux("display", "-p", "-t", "main", "#{cursor_x} #{cursor_y}").split()
    screen = pane.screen()
    after = pane.tmux("display", "-p", "-t", "main", "#{cursor_x} #{cursor_y}").split()
    if before != after:
        return ""
    x, y = map(int, before)
    lines = screen.splitlines()
    return lines[y][x : x + length] if y < len(lines) else ""


def cursor_on(pane: Pane, label: str) -> Callable[[str], bool]:
    """Whether the pane's cursor stands on ``label`` (a test of the screen, for :meth:`Pane.wait_for`)."""
    return lambda _screen: under_cursor(pane, len(label)) == label


def test_the_cursor_stands_on_the_picked_cards_rank_in_a_real_terminal(tmp_path: Path) -> None:
    args = ["play", "--seed", "3", "--opponents", "greedy"]
    with in_tmux(args, terminal_env(tmp_path / "home", LANG="C.UTF-8"), tmp_path) as pane:
        screen = pane.wait_for(lambda s: "your turn" in s and "^q Quit" in s)
        hand = re.findall(FACE, lines_matching(FACE, screen)[-1])  # the hand: the lowest cards
        assert len(hand) >= 3, screen
        # Nothing picked: on the first card; then the card each key picks.
        pane.wait_for(cursor_on(pane, hand[0]))
        for keys, label in ((["2"], hand[1]), (["Right"], hand[2]), (["Escape", "Left"], hand[-1])):
            pane.keys(*keys)
            pane.wait_for(cursor_on(pane, label))
        assert pane.tmux("display", "-p", "-t", "main", "#{cursor_flag}").strip() == "0"  # hidden
        pane.keys("C-q")
        pane.wait_for("Quit Kings Corners?")
        pane.keys("y")
        assert pane.ended() == 0
        no_traceback(pane.screen(history=True))
