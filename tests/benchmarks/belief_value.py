"""What a truer belief about the hidden cards is worth in play, at a real table.

    python tests/benchmarks/belief_value.py --seats greedy,king-aware,lookahead,expert \\
        --deals 90 --seed 9201 --iterations 16 --share 0.1 --share 0.25 --share 1

plays every deal (single rounds) once per rotation of the seats with the expert as it is, then
again for every ``--share Q`` with the expert's searched deals *pinned* to the truth: each card of
each opponent's real hand is, with chance Q on every searched deal, put in that opponent's hand
(the rest of the deal is the expert's own, inference and all; a card displaced goes where the
pinned card was). So Q = 1 deals every hand right (the oracle of ``skill_ceiling.py --know hands``)
and a small Q makes the expert's beliefs a little truer, as better inference could. The opponents,
their seeds and the deals are the same in every arm, so per deal the difference of the expert's
share of rounds won (averaged over the rotations) and of its penalty points is paired; means with
95% intervals over the deals. It prints, for every Q, how many of the opponents' real cards the
searched deals put in the right hand (the same measure as ``belief_quality.py``).

It cheats (the pinned cards are read from the real round), so it exists only in this script's
process: a measurement of how much better play a given gain in belief accuracy could buy,
that is, how large a gain an inference would need before a match could show it. It plays in one
process (the accuracy is counted there): run two on other ``--share`` values side by side, and
``--pool RUN.json ...`` (with ``--seats``) pairs every share of the runs with its own run's base.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import ai.safe
from ai.players.expert import ExpertAI
from ai.registry import register
from kc_tui.engine import PlayerView, Round, Rules
from kc_tui.engine.cards import cards_of
from kc_tui.lab.options import TournamentOptions, seat_names
from tests.benchmarks.paired_ablation import EXPERT, UNHURRIED, mean_ci, per_deal, seated
from tests.benchmarks.skill_ceiling import _VIEW, _recording_view, real_round

#: The chance each real card of an opponent is pinned, for the arm being played.
_SHARE = [0.0]
#: Cards of the opponents' real hands dealt to the right opponent, and all of them, over the arm.
_RIGHT = [0, 0]


def pin(deal: Round, real: Round, me: int, share: float, rng: random.Random) -> Round:
    """``deal`` with each card of each opponent's real hand moved, with chance ``share``, into
    that opponent's hand; the card it displaces (one not pinned there) takes the pinned card's
    place, in another hand or in the stock. Hand sizes and the stock's size are kept."""
    pinned: dict[int, int] = {}
    for s in range(real.n):
        if s != me:
            for c in cards_of(real.hands[s]):
                if rng.random() < share:
                    pinned[c] = s
    for c, s in pinned.items():
        if (deal.hands[s] >> c) & 1:
            continue
        free = [x for x in cards_of(deal.hands[s]) if pinned.get(x) != s]
        x = free[rng.randrange(len(free))]
        deal.hands[s] &= ~(1 << x)
        deal.hands[s] |= 1 << c
        holder = next((t for t in range(deal.n) if t != s and (deal.hands[t] >> c) & 1), None)
        if holder is not None:
            deal.hands[holder] &= ~(1 << c)
            deal.hands[holder] |= 1 << x
        else:
            deal.stock[deal.stock.index(c)] = x
    return deal


@register
class PinnedExpertAI(ExpertAI):
    kind = "pinned-expert"
    title = "Pinned expert"
    description = "the expert with some real cards pinned in its deals (a measurement, never offered)"
    strength = 98
    offered = False

    def _deal(self, view: PlayerView, seed: int, allowed: Callable[[int, int], bool] | None) -> Round:
        deal = super()._deal(view, seed, allowed)
        real = real_round(view, "the pinned expert")
        if _SHARE[0] > 0:
            deal = pin(deal, real, view.seat, _SHARE[0], random.Random(seed ^ 0x5EED))
        for s in range(real.n):
            if s != view.seat:
                _RIGHT[0] += (deal.hands[s] & real.hands[s]).bit_count()
                _RIGHT[1] += real.hands[s].bit_count()
        return deal


def pooled(files: list[str], expert: int) -> dict[str, Any]:
    """Every ``--share`` of several runs' ``--json`` (other seeds, or other shares side by side),
    each paired with the base arm of its own run."""
    diffs: dict[str, tuple[list[float], list[float]]] = {}
    for f in files:
        rows = json.loads(Path(f).read_text())["rows"]
        base = rows["0.0"]
        for share, arm in rows.items():
            if share != "0.0":
                wins, points = diffs.setdefault(share, ([], []))
                wins += [b[0][expert] - a[0][expert] for a, b in zip(base, arm, strict=True)]
                points += [b[1][expert] - a[1][expert] for a, b in zip(base, arm, strict=True)]
    return {
        share: {"share": mean_ci(wins), "points_a_round": mean_ci(points), "deals": len(wins)}
        for share, (wins, points) in sorted(diffs.items(), key=lambda kv: float(kv[0]))
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pool", nargs="+", default=None, help="pool these runs' --json instead of playing")
    p.add_argument("--seats", required=True)
    p.add_argument("--deals", type=int, default=0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--iterations", type=int, default=16)
    p.add_argument("--share", type=float, action="append", default=[])
    p.add_argument("--json", default=None)
    args = p.parse_args(argv)
    kinds, e = seated(p, args.seats)
    if args.pool:
        print(json.dumps(pooled(args.pool, e)))
        return 0
    if args.deals < 1 or not args.share:
        p.error("give --deals and at least one --share (or --pool)")
    played = tuple("pinned-expert" if k == EXPERT else k for k in kinds)
    ai.safe.TIMEOUT_FACTOR = UNHURRIED  # the runs do not depend on the machine's load
    Round.view = _recording_view  # type: ignore[method-assign]
    out: dict[str, Any] = {}
    rows: dict[str, Any] = {}
    try:
        for share in [0.0, *args.share]:
            _SHARE[0] = share
            _RIGHT[:] = [0, 0]
            cfg = TournamentOptions(
                kinds=played,
                names=tuple(seat_names(list(kinds))),
                params=tuple((("iterations", args.iterations),) if k == EXPERT else () for k in kinds),
                deals=args.deals,
                seed=args.seed,
                jobs=1,
                rules=Rules(),
                max_turns=1000,
                matches=None,
            )
            t0 = time.monotonic()
            arm = per_deal(cfg, None)
            rows[str(share)] = arm
            out[str(share)] = {
                "right": round(_RIGHT[0] / max(1, _RIGHT[1]), 4),
                "share": mean_ci([s[e] for s, _p in arm]),
                "seconds": round(time.monotonic() - t0, 1),
            }
            if share > 0:
                base = rows["0.0"]
                out[str(share)]["minus_base"] = {
                    "share": mean_ci([b[0][e] - a[0][e] for a, b in zip(base, arm, strict=True)]),
                    "points_a_round": mean_ci([b[1][e] - a[1][e] for a, b in zip(base, arm, strict=True)]),
                }
            print(json.dumps({str(share): out[str(share)]}), flush=True)
    finally:
        Round.view = _VIEW  # type: ignore[method-assign]
    if args.json:
        Path(args.json).write_text(json.dumps({"args": vars(args), "arms": out, "rows": rows}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
