"""The AIs' choices are pinned: on 40 seeded mid-round positions (default and varied rules),
every kind plays the same turn as when ``choices.json`` was recorded. This guards refactors of
the AI package (renames, moved constants, a new registry) against changing how any AI plays.

A deliberate change of an AI's play re-records the fixture::

    python -m tests.ai.test_choices_unchanged
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from ai import make_player
from kc_tui.engine import END, Round, Rules, move_str
from tests.ai.helpers import CHOICES, pinned_choices, pinned_round, turn_of

#: The AI seed of every recorded turn.
AI_SEED = 7
#: Each kind's settings; the expert's fixed iteration count makes it deterministic.
SETTINGS: dict[str, dict[str, Any]] = {
    "random": {},
    "greedy": {},
    "king-aware": {},
    "lookahead": {},
    "expert": {"iterations": 4},
}
#: Rule variants besides the defaults (completed piles stay, kings forbidden on sides, draw3...).
VARIANTS: tuple[dict[str, Any], ...] = (
    {},
    {"completed_piles": "stay", "kings_on_sides": "forbid"},
    {"draw": "end", "out_with_open_side": "draw3"},
    {"draw": "when_stuck", "layout_kings": "stay", "completed_piles": "stay"},
)
POSITIONS = 40


def _positions() -> list[dict[str, Any]]:
    """Seeded mid-round positions, each as the deal and the moves that reach it (greedy plays a
    few turns first). Only used to record: the fixture keeps the moves, so the test does not
    depend on greedy staying the same."""
    out: list[dict[str, Any]] = []
    k = 0
    while len(out) < POSITIONS:
        n = 2 + k % 3
        rules = VARIANTS[k % len(VARIANTS)]
        seed, dealer = 9_000 + k, k % n
        r = Round.deal(n, Rules(**rules), seed, dealer=dealer)
        players = [make_player("greedy", s) for s in range(n)]
        turns = 1 + (k * 5) % 8
        while not r.over and turns:
            m = players[r.to_move].choose(r.view(r.to_move))
            r.apply(m)
            turns -= m == END
        if not r.over:
            moves = [move_str(m) for _, m in r.history]
            out.append({"players": n, "rules": rules, "seed": seed, "dealer": dealer, "moves": moves})
        k += 1
    return out


def play_turn(kind: str, r: Round) -> list[str]:
    """The moves a fresh AI of ``kind`` makes in the turn of the player to move (``end`` included)."""
    return [move_str(m) for m in turn_of(make_player(kind, AI_SEED, **SETTINGS[kind]), r)]


def record() -> None:
    rows = []
    for pos in _positions():
        r = pinned_round(pos)
        rows.append({**pos, "turns": {kind: play_turn(kind, r) for kind in SETTINGS}})
    text = json.dumps({"ai_seed": AI_SEED, "settings": SETTINGS, "positions": rows}, indent=1)
    # Lists of moves on one line each, so a changed turn shows as one changed line.
    text = re.sub(r"\[\s+([^\[\]{}]*?)\s+\]", lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]", text)
    CHOICES.write_text(text + "\n")


def _rows() -> list[dict[str, Any]]:
    data = pinned_choices()
    assert data["ai_seed"] == AI_SEED and data["settings"] == SETTINGS
    rows: list[dict[str, Any]] = data["positions"]
    return rows


def test_the_fixture_covers_every_kind_and_rule_variant() -> None:
    rows = _rows()
    assert len(rows) == POSITIONS
    assert {json.dumps(row["rules"], sort_keys=True) for row in rows} == {
        json.dumps(v, sort_keys=True) for v in VARIANTS
    }
    assert {row["players"] for row in rows} == {2, 3, 4}
    for row in rows:
        assert set(row["turns"]) == set(SETTINGS)
    # The turns are real choices, not all "end": most kinds shed cards on most positions.
    played = sum(t != ["end"] for row in rows for t in row["turns"].values())
    assert played > len(rows) * len(SETTINGS) // 2


@pytest.mark.parametrize("kind", list(SETTINGS))
def test_every_kind_plays_the_recorded_turns(kind: str) -> None:
    for i, row in enumerate(_rows()):
        assert play_turn(kind, pinned_round(row)) == row["turns"][kind], f"position {i}: {kind} changed its turn"


if __name__ == "__main__":
    record()
