"""The replay's controls: the buttons under its table and every key of its keys page (?)."""

from __future__ import annotations

from kc_tui.i18n import N_

#: The buttons under the table: (id, label, action), the labels translated where shown. They fit 80 columns.
CONTROLS: tuple[tuple[str, str, str], ...] = (
    ("replay-start", "|◀", "start"),
    ("replay-turn-back", N_("◀◀ Turn"), "turn(-1)"),
    ("replay-back", N_("◀ Move"), "step(-1)"),
    ("replay-play", N_("▶ Play"), "play"),
    ("replay-forward", N_("Move ▶"), "step(1)"),
    ("replay-turn-forward", N_("Turn ▶▶"), "turn(1)"),
    ("replay-end", "▶|", "end"),
    ("replay-hands", N_("Open hands"), "hands"),
    ("replay-review", N_("Review"), "review"),
)
#: Every key of the replay, for its keys page (?), translated there: the footer shows the main ones.
#: A round a server sent has no review: its page leaves out :data:`REVIEW_KEYS`.
KEYS: tuple[tuple[str, str], ...] = (
    ("← →", N_("the previous / the next move")),
    (N_("[ ]  or  shift+← →"), N_("the previous / the next turn")),
    ("Home  End", N_("the deal / the round's end")),
    ("space", N_("play from here at the pace, or pause")),
    ("+  -", N_("faster / slower")),
    ("o", N_("open every hand (at the round's end), or hide them")),
    ("v", N_("review your turns against the expert (esc cancels)")),
    ("b", N_("on a reviewed turn: its better plan on the table, move by move (b again: back)")),
    ("PgDn  PgUp", N_("the rest of a note longer than its lines")),
    (N_("click"), N_("the buttons under the table (on a short screen: the keys at the bottom)")),
    ("?", N_("this page")),
    (N_("esc  or  q"), N_("back")),
)

#: The keys of the review, which only a round of the history has.
REVIEW_KEYS = frozenset({"v", "b"})

__all__ = ["CONTROLS", "KEYS", "REVIEW_KEYS"]
