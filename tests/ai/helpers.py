"""Shared helpers of the AI tests."""

from __future__ import annotations

import contextlib
import itertools
import json
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ai import make_player
from ai.base import AIPlayer
from kc_tui.engine import END, Move, PlayerView, Round, Rules, parse_move

#: Fast settings of the searching AIs, so thousands of turns stay quick.
FAST: dict[str, dict[str, Any]] = {
    "random": {},
    "greedy": {},
    "king-aware": {"node_limit": 120},
    "lookahead": {"node_limit": 150, "samples": 2, "top": 3, "rollouts": 2},
    "expert": {"iterations": 2, "node_limit": 150, "samples": 2, "top": 3, "rollouts": 2, "candidates": 3},
}
KINDS = tuple(FAST)

VARIANTS: list[Rules] = [
    Rules(draw=d, layout_kings=lk, completed_piles=cp, kings_on_sides=ks, out_with_open_side=oo)
    for d, lk, cp, ks, oo in itertools.product(
        ("start", "end", "when_stuck"),
        ("to_corner", "stay"),
        ("to_stock", "stay"),
        ("allow", "forbid"),
        ("end", "draw3"),
    )
]


#: The pinned positions and each AI kind's turn on them (tests/ai/test_choices_unchanged.py).
CHOICES = Path(__file__).with_name("choices.json")


def pinned_choices() -> dict[str, Any]:
    """The pinned choices: the AI seed, each kind's settings, and the positions with every kind's turn."""
    data: dict[str, Any] = json.loads(CHOICES.read_text())
    return data


def pinned_round(pos: dict[str, Any]) -> Round:
    """A pinned position: its deal replayed through its moves."""
    moves = [parse_move(t) for t in pos["moves"]]
    return Round.replay(pos["players"], Rules(**pos["rules"]), pos["seed"], pos["dealer"], moves)


def turn_of(ai: AIPlayer, r: Round, limit: int = 60) -> list[Move]:
    """The moves ``ai`` makes in the turn of the player to move of ``r`` (``END`` included; at
    most ``limit``), played on a copy of ``r``."""
    r = r.clone()
    seat = r.to_move
    out: list[Move] = []
    while not r.over and r.to_move == seat and len(out) < limit:
        m = ai.choose(r.view(seat))
        out.append(m)
        r.apply(m)
        if m == END:
            break
    return out


def fast_player(kind: str, seed: int) -> AIPlayer:
    return make_player(kind, seed, **FAST[kind])


def midround_positions(count: int, seed: int = 0, rules: Rules | None = None) -> list[tuple[Round, int]]:
    """Seeded positions in the middle of rounds (greedy plays a few turns first), to move now."""
    out: list[tuple[Round, int]] = []
    k = 0
    while len(out) < count:
        n = 2 + k % 3
        r = Round.deal(n, rules or Rules(), seed * 100_003 + k, dealer=k % n)
        players = [make_player("greedy", s) for s in range(n)]
        turns = 1 + (k * 7) % 9
        while not r.over and turns:
            m = players[r.to_move].choose(r.view(r.to_move))
            r.apply(m)
            if m == END:
                turns -= 1
        if not r.over:
            out.append((r, r.to_move))
        k += 1
    return out


# ---------------------------------------------------------------- faulty AIs (SafePlayer's three faults)
class Raises(AIPlayer):
    kind = "king-aware"

    def choose(self, view: PlayerView) -> Move:
        raise RuntimeError("boom")


class Overruns(AIPlayer):
    kind = "king-aware"
    budget_ms = 20.0

    def choose(self, view: PlayerView) -> Move:
        time.sleep(0.5)
        return END


class Illegal(AIPlayer):
    kind = "king-aware"

    def choose(self, view: PlayerView) -> Move:
        return 10**6


#: Each faulty AI with the reason the move log gives for its fallback.
FAULTS = [
    (Raises, "it raised an error"),
    (Overruns, "it ran out of time"),
    (Illegal, "it chose an illegal move"),
]


# ---------------------------------------------------------------- a new AI kind in one module
NEW_KIND = '''
"""``lowest``: plays the lowest legal move (a test kind, one module)."""

from ai import register
from ai.base import AIPlayer


@register
class LowestAI(AIPlayer):
    kind = "lowest"
    title = "Lowest"
    description = "plays the lowest move"{player_line}
    strength = 15
    offered = {offered}

    def choose(self, view):
        return min(view.legal_moves())
'''


@contextlib.contextmanager
def new_kind_module(
    folder: Path, monkeypatch: pytest.MonkeyPatch, *, offered: bool, player_name: str | None = None
) -> Iterator[str]:
    """A new module ``ai/players/lowest.py`` (in ``folder``, added to the package's path) that declares
    one kind, as adding a kind is done; the registry forgets it afterwards. Yields the kind."""
    import ai.players

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "lowest.py").write_text(
        textwrap.dedent(
            NEW_KIND.format(offered=offered, player_line=f"\n    player_name = {player_name!r}" if player_name else "")
        )
    )
    ai.kinds()  # the shipped kinds first, so the new module is found by a new discovery
    monkeypatch.setattr(ai.players, "__path__", [*ai.players.__path__, str(folder)])
    monkeypatch.setattr(ai.registry, "_loaded", False)
    try:
        yield "lowest"
    finally:
        ai.registry._REGISTRY.pop("lowest", None)
        sys.modules.pop("ai.players.lowest", None)


# ---------------------------------------------------------------- a turn played as the hint says
def follow_hint(hint: Any, r: Round, limit: int = 60) -> tuple[PlayerView, tuple[Move, ...], list[Any]]:
    """The turn of the player to move of ``r`` played as ``hint`` (an
    :class:`ai.advice.hint.HintAI`) advises, asked afresh at every step, on a copy of ``r``: the
    view at the turn's start, the moves played (``END`` excluded) and every step's advice."""
    r = r.clone()
    seat = r.to_move
    start = r.view(seat)
    moves: list[Move] = []
    told: list[Any] = []
    while not r.over and r.to_move == seat and len(told) < limit:
        advice = hint.advice(r.view(seat))
        told.append(advice)
        r.apply(advice.move)
        if advice.move == END:
            break
        moves.append(advice.move)
    return start, tuple(moves), told
