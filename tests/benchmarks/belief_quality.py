"""How close the expert's deals come to the real hands: each inference against the truth.

    python tests/benchmarks/belief_quality.py --players 4 --rounds 200 --seed 1

plays ``--rounds`` single rounds (greedy, king-aware and lookahead seats, then lookahead again
at the observed seat when there are four players; default rules unless ``--rules``), and at the
start of every turn of the observed seat deals the hidden cards ``--deals`` times four ways:
uniformly (:func:`~kc_tui.engine.determinize` alone), with the last turn's inference
(:func:`ai.players.expert.inferred_absent`) and with the whole round's
(:func:`ai.search.inference.passes` and :func:`~ai.search.inference.deal_hands`), and with
that and the deals weighted by the opponents' last turns (the expert's ``weigh_turns``). It prints, for
each, the share of the opponents' real cards dealt to the right opponent, and the paired gains
over the uniform deal with 95% intervals clustered by round; and, for the whole round's
inference, how often an opponent holds more of a pass's cards than the pass allows (the
planners hoard kings and queens, and sometimes keep a card back).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from ai import make_player
from ai.players.expert import ExpertAI
from ai.search.inference import allowed_for, deal_hands, passes
from kc_tui.engine import PlayerView, Round, Rules, determinize
from tests.benchmarks.paired_ablation import mean_ci

KINDS = ("greedy", "king-aware", "lookahead", "lookahead")
WAYS = ("uniform", "turn", "round", "weighted")


def deal_of(way: str, view: PlayerView, seed: int, expert: ExpertAI) -> Round:
    """One deal of ``view``'s hidden cards, inferred the way ``way`` names."""
    if way == "uniform":
        return determinize(view, seed)
    if way == "turn":
        return determinize(view, seed, expert.allowed(view))
    if way == "round":
        return determinize(view, seed, allowed_for(deal_hands(view, passes(view), seed)))
    return expert._deal(view, seed, expert.prepare_deals(view))


def right_share(r: Round, view: PlayerView, way: str, deals: int, expert: ExpertAI) -> float:
    """The share of the opponents' real cards that the deals give to the right opponent."""
    hit = total = 0
    for k in range(deals):
        d = deal_of(way, view, 1000 + k, expert)
        for s in range(view.n_players):
            if s != view.seat:
                hit += (d.hands[s] & r.hands[s]).bit_count()
                total += r.hands[s].bit_count()
    return hit / total if total else 0.0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--rounds", type=int, default=100)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--deals", type=int, default=8)
    p.add_argument("--rules", nargs="*", default=[])
    args = p.parse_args(argv)
    rules = Rules.from_dict(dict(kv.split("=", 1) for kv in args.rules))
    n = args.players
    kinds = KINDS[:n] if n == 4 else ("king-aware", "lookahead", "lookahead")[-n:]
    me = n - 1
    expert = ExpertAI(0, round_infer=True, weigh_turns=True)
    per_round: dict[str, list[float]] = {
        w: [] for w in (*WAYS, "turn-uniform", "round-uniform", "round-turn", "weighted-round")
    }
    broken = checked = 0
    for g in range(args.rounds):
        r = Round.deal(n, rules, args.seed * 100_003 + g, dealer=g % n)
        players = [make_player(k, seed=args.seed + 7 * g + s) for s, k in enumerate(kinds)]
        sums = {w: 0.0 for w in WAYS}
        turns = 0
        while not r.over and turns < 400:
            seat = r.to_move
            v = r.view(seat)
            if seat == me and not v.moved_this_turn:
                for ps in passes(v):
                    checked += 1
                    broken += (r.hands[ps.seat] & ps.absent).bit_count() > ps.allowance
                for w in WAYS:
                    sums[w] += right_share(r, v, w, args.deals, expert)
                turns += 1
            r.apply(players[seat].choose(v))
        if turns:
            for w in WAYS:
                per_round[w].append(sums[w] / turns)
            per_round["turn-uniform"].append((sums["turn"] - sums["uniform"]) / turns)
            per_round["round-uniform"].append((sums["round"] - sums["uniform"]) / turns)
            per_round["round-turn"].append((sums["round"] - sums["turn"]) / turns)
            per_round["weighted-round"].append((sums["weighted"] - sums["round"]) / turns)
    print(f"{n} players, {len(per_round['uniform'])} rounds, {args.deals} deals a turn of the observed seat")
    for w, xs in per_round.items():
        m, lo, hi = mean_ci(xs)
        print(f"  {w:14s} {m:+.4f} [{lo:+.4f}, {hi:+.4f}]")
    print(f"  passes broken by the real hand: {broken}/{checked} = {broken / max(1, checked):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
