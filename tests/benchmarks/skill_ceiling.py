"""How much of a match is skill: the expert's search given every hidden card, at a real table.

    python tests/benchmarks/skill_ceiling.py [--know all|hands] [tournament options ...]

for example, the 4-seat table with the oracle in the expert's seat:

    python tests/benchmarks/skill_ceiling.py --know all --seats greedy,king-aware,lookahead,oracle \\
        --matches 150 --seed 114 --jobs 1 --iterations 2 --param oracle.margin=0 --quiet

The ``oracle`` is the expert (:class:`ai.players.expert.ExpertAI`, the same candidate plans, the same
simulated opponents and scoring) that searches the *real* round instead of deals guessed from its
view: with ``--know all`` every hand and the stock's order (each searched deal is the round
itself, so two deals and ``margin=0`` pick the plan whose play-out scores best), with
``--know hands`` every hand but a freshly shuffled stock on each deal. It cheats, so it exists
only in this script's process and is never offered: a measurement of how far search with
perfect information gets above the fair AIs, that is of the ceiling any fair AI can hope for
under the same search. Every other option is the tournament's (``kings-corners tournament``),
and the table it prints is the tournament's table.

The oracle learns the real round from the one place the tournament builds views for its players
(:meth:`Round.view`, called only by the tournament's turn loop), and checks every time that the
round it was handed is the one its view was made from.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from ai.players.expert import ExpertAI
from ai.registry import register
from kc_tui.engine import PlayerView, Round
from kc_tui.engine import rng as _rng
from kc_tui.lab import options, tournament

#: The round whose view was built last (by the tournament's turn loop).
_LAST: list[Round] = []
_VIEW = Round.view


def _recording_view(self: Round, seat: int) -> PlayerView:
    _LAST[:] = [self]
    return _VIEW(self, seat)


def real_round(view: PlayerView, who: str) -> Round:
    """The real round ``view`` was made from (by the tournament's turn loop, in this process);
    RuntimeError, naming ``who``, outside such a tournament or for another round."""
    if not _LAST:
        raise RuntimeError(f"{who} plays only inside a tournament of a script that records the views")
    real = _LAST[0]
    same = (
        real.hands[view.seat] == view.hand_mask
        and list(real.piles) == list(view.piles)
        and len(real.stock) == view.stock_size
        and real.to_move == view.seat
    )
    if not same:
        raise RuntimeError(f"{who}'s round is not the one its view was made from")
    return real


KNOW = ("all", "hands")
_know = ["all"]


@register
class OracleAI(ExpertAI):
    kind = "oracle"
    title = "Oracle"
    description = "the expert seeing every hidden card (a measurement, never offered)"
    strength = 99
    offered = False

    def _deal(self, view: PlayerView, seed: int, allowed: Callable[[int, int], bool] | None) -> Round:
        r = real_round(view, "the oracle").clone()
        if _know[0] == "hands":
            r.rng = _rng.shuffle(r.stock, _rng.seed_state(seed))
        return r


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--know", choices=KNOW, default="all", help="what the oracle sees (default: all)")
    options.add_arguments(p)
    args: Any = p.parse_args(argv)
    _know[0] = args.know
    Round.view = _recording_view  # type: ignore[method-assign]
    try:
        return tournament.main(args)
    finally:
        Round.view = _VIEW  # type: ignore[method-assign]


if __name__ == "__main__":
    sys.exit(main())
