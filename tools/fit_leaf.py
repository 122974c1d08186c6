"""Refit the expert's leaf model (:mod:`ai.search.leaf`): ``python tools/fit_leaf.py [ROUNDS] [--jobs N]``.

A development script of the repository, not part of the installed package: run it from a
checkout where the project is installed (``pip install -e .``), or from the repository root as
``python -m tools.fit_leaf``.

Plays ``ROUNDS`` heads-up rounds (default 3000; lookahead against lookahead, and lookahead
against king-aware in both seat orders, default rules), records every turn's start (after its
draw) with the eventual result for the player to move, fits a logistic regression (Newton's
method, a little L2) on 80% of the positions and prints the log loss and accuracy on the other
20% and the weights to paste into ``WEIGHTS``. The shipped weights came from this script with
the default arguments (92,161 positions; held-out log loss 0.680 against 0.693 for a coin:
the position at the start of a turn says little about who wins the round).
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import sys

from ai import make_player
from ai.search.leaf import FEATURES, features
from kc_tui.engine import Round, Rules
from kc_tui.match.autoplay import play_out

PAIRS = (("lookahead", "lookahead"), ("lookahead", "king-aware"), ("king-aware", "lookahead"))


def play(k: int) -> list[tuple[list[float], int]]:
    """The features of every turn's start in heads-up round ``k``, each with 1 if the player to
    move won the round, else 0."""
    kinds = PAIRS[k % len(PAIRS)]
    r = Round.deal(2, Rules(), 1_000_000 + k, dealer=k % 2)
    players = [make_player(kinds[i], k * 2 + i) for i in range(2)]
    rows: list[tuple[int, list[float]]] = []

    def turn_start(s: int) -> None:
        if not r.moved:
            rows.append((s, features(r.hands[s], r.hands[1 - s], tuple(r.piles), len(r.stock))))

    play_out(r, players, max_turns=400, before_move=turn_start)
    return [(f, int(r.winner == s)) for s, f in rows]


def fit(data: list[tuple[list[float], int]], lam: float = 1e-4, steps: int = 10) -> list[float]:
    """Logistic regression weights by ``steps`` Newton steps with L2 penalty ``lam`` per row."""
    d = len(data[0][0])
    w = [0.0] * d
    for _ in range(steps):
        g = [lam * len(data) * wi for wi in w]
        h = [[lam * len(data) * (i == j) for j in range(d)] for i in range(d)]
        for x, y in data:
            p = _sigmoid(sum(a * b for a, b in zip(w, x, strict=True)))
            e, v = p - y, p * (1 - p)
            for i in range(d):
                if x[i]:
                    g[i] += e * x[i]
                    row, vx = h[i], v * x[i]
                    for j in range(d):
                        row[j] += vx * x[j]
        a = [[*h[i], g[i]] for i in range(d)]  # solve h . dw = g (Gauss-Jordan)
        for c in range(d):
            piv = max(range(c, d), key=lambda r: abs(a[r][c]))
            a[c], a[piv] = a[piv], a[c]
            for r in range(d):
                if r != c and a[c][c]:
                    f = a[r][c] / a[c][c]
                    for k in range(c, d + 1):
                        a[r][k] -= f * a[c][k]
        w = [wi - (a[i][d] / a[i][i] if a[i][i] else 0.0) for i, wi in enumerate(w)]
    return w


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def score(w: list[float], data: list[tuple[list[float], int]]) -> tuple[float, float]:
    """(mean log loss, accuracy) of weights ``w`` on ``data``."""
    loss = hits = 0.0
    for x, y in data:
        p = min(max(_sigmoid(sum(a * b for a, b in zip(w, x, strict=True))), 1e-9), 1 - 1e-9)
        loss -= y * math.log(p) + (1 - y) * math.log(1 - p)
        hits += (p > 0.5) == bool(y)
    return loss / len(data), hits / len(data)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Refit the expert's leaf model (ai/search/leaf.py) and print the weights to paste into WEIGHTS."
    )
    parser.add_argument("rounds", nargs="?", type=int, default=3000, help="heads-up rounds to play (default 3000)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.jobs < 1:
        parser.error("rounds and --jobs must be at least 1")
    with multiprocessing.Pool(args.jobs) as pool:
        data = [row for rows in pool.map(play, range(args.rounds), chunksize=20) for row in rows]
    random.Random(0).shuffle(data)
    cut = int(0.8 * len(data))
    w = fit(data[:cut])
    loss, accuracy = score(w, data[cut:])
    print(f"{len(data)} positions; held out: log loss {loss:.4f}, accuracy {accuracy:.3f}")
    for name, v in zip(FEATURES, w, strict=True):
        print(f"    {v:.4f},  # {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
