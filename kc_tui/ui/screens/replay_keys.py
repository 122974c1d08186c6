"""The replay's controls: the buttons under its table and every key of its keys page (?)."""

from __future__ import annotations

#: The buttons under the table: (id, label, action). They fit 80 columns.
CONTROLS: tuple[tuple[str, str, str], ...] = (
    ("replay-start", "|◀", "start"),
    ("replay-turn-back", "◀◀ Turn", "turn(-1)"),
    ("replay-back", "◀ Move", "step(-1)"),
    ("replay-play", "▶ Play", "play"),
    ("replay-forward", "Move ▶", "step(1)"),
    ("replay-turn-forward", "Turn ▶▶", "turn(1)"),
    ("replay-end", "▶|", "end"),
    ("replay-hands", "Open hands", "hands"),
    ("replay-review", "Review", "review"),
)
#: Every key of the replay, for its keys page (?): the footer shows the main ones.
KEYS: tuple[tuple[str, str], ...] = (
    ("← →", "the previous / the next move"),
    ("[ ]  or  shift+← →", "the previous / the next turn"),
    ("Home  End", "the deal / the round's end"),
    ("space", "play from here at the pace, or pause"),
    ("+  -", "faster / slower"),
    ("o", "open every hand (at the round's end), or hide them"),
    ("v", "review your turns against the expert (esc cancels)"),
    ("b", "on a reviewed turn: its better plan on the table, move by move (b again: back)"),
    ("PgDn  PgUp", "the rest of a note longer than its lines"),
    ("click", "the buttons under the table (on a short screen: the keys at the bottom)"),
    ("?", "this page"),
    ("esc  or  q", "back"),
)

__all__ = ["CONTROLS", "KEYS"]
