"""The tournament's results, counted from the records in one pass: by rounds, or by matches
with intervals clustered by match seed (see :mod:`kc_tui.lab.tournament`)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from kc_tui.engine.rules import Scoring
from kc_tui.lab.options import TournamentOptions
from kc_tui.lab.play import DealRecord, MatchPlayRecord

#: The normal quantile of the 95% intervals of match mode.
Z95 = 1.96


# ---------------------------------------------------------------------------------------- results
def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score 95% interval of a rate of ``k`` successes in ``n``."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class SeatTally:
    """One seat entry's totals over the rounds seen so far."""

    won: int = 0
    penalty: int = 0
    lost: int = 0
    penalty_lost: int = 0
    turns: int = 0
    moves: int = 0
    think_s: float = 0.0
    max_think_s: float = 0.0
    faults: int = 0


def summarize_rounds(cfg: TournamentOptions, records: Iterable[DealRecord]) -> dict[str, Any]:
    """The results, read from ``records`` in one pass (each round is dropped once counted)."""
    tallies = [SeatTally() for _ in cfg.names]
    rounds = blocks = capped = 0
    for r in records:
        rounds += 1
        blocks += r.winner is None
        capped += r.capped
        for j, s in enumerate(r.seats):
            t = tallies[j]
            t.won += s.won
            t.penalty += s.penalty
            if r.winner is not None and r.winner != j:
                t.lost += 1
                t.penalty_lost += s.penalty
            t.turns += s.turns
            t.moves += s.moves
            t.think_s += s.think_s
            t.max_think_s = max(t.max_think_s, s.max_think_s)
            t.faults += s.faults
    players: dict[str, Any] = {}
    timing: dict[str, Any] = {}
    for j, name in enumerate(cfg.names):
        t = tallies[j]
        lo, hi = wilson(t.won, rounds)
        players[name] = {
            "kind": cfg.kinds[j],
            "params": dict(cfg.params[j]),
            "rounds_won": t.won,
            "win_rate": round(t.won / rounds, 4) if rounds else 0.0,
            "ci95": [round(lo, 4), round(hi, 4)],
            "mean_penalty": round(t.penalty / rounds, 3) if rounds else 0.0,
            "rounds_lost": t.lost,
            "mean_penalty_lost": round(t.penalty_lost / t.lost, 3) if t.lost else 0.0,
            "turns": t.turns,
            "moves_per_turn": round(t.moves / t.turns, 3) if t.turns else 0.0,
        }
        timing[name] = {
            "mean_think_ms_per_turn": round(1000 * t.think_s / t.turns, 3) if t.turns else 0.0,
            "max_think_ms_per_move": round(1000 * t.max_think_s, 3),
            "faults": t.faults,
        }
    return {
        "mode": "rounds",
        "seats": list(cfg.names),
        "deals": cfg.deals,
        "rounds": rounds,
        "rotations": len(cfg.kinds),
        "seed": cfg.seed,
        "rules": cfg.rules.changed(),
        "blocks": blocks,
        "capped": capped,
        "players": players,
        "timing": timing,
    }


# ------------------------------------------------------------------------------- match results
@dataclass
class Running:
    """The mean and sample variance of values added one at a time (Welford's method)."""

    n: int = 0
    mean: float = 0.0
    m2: float = 0.0

    def add(self, x: float) -> None:
        self.n += 1
        d = x - self.mean
        self.mean += d / self.n
        self.m2 += d * (x - self.mean)

    def ci95(self, lo: float = -math.inf, hi: float = math.inf, digits: int = 4) -> list[float | None]:
        """``mean ± 1.96 × sd / sqrt(n)`` (sample sd), clipped to [lo, hi]; ``[None, None]``
        with fewer than two values (no spread to measure)."""
        if self.n < 2:
            return [None, None]
        half = Z95 * math.sqrt(max(0.0, self.m2) / (self.n - 1)) / math.sqrt(self.n)
        return [round(max(lo, self.mean - half), digits), round(min(hi, self.mean + half), digits)]

    def value(self, digits: int = 4) -> float | None:
        return round(self.mean, digits) if self.n else None


@dataclass
class MatchTally:
    """One seat entry's totals over the matches seen so far."""

    #: Matches won, a tied win shared exactly (1/k to each of k winners, 1/n each when capped).
    won: Fraction = field(default_factory=Fraction)
    #: Plays of a match that ended (not capped): the per-round and final figures count only these.
    finished: int = 0
    final: int = 0
    penalty: int = 0
    chips_won: int = 0
    rounds_won: int = 0
    turns: int = 0
    moves: int = 0
    think_s: float = 0.0
    max_think_s: float = 0.0
    faults: int = 0


def win_share(rec: MatchPlayRecord, entry: int, n: int) -> Fraction:
    """Seat entry ``entry``'s share of the win of one match: ``1/k`` if it is one of ``k`` tied
    winners, 0 if not; ``1/n`` each when the match was capped."""
    if rec.capped:
        return Fraction(1, n)
    return Fraction(1, len(rec.winners)) if entry in rec.winners else Fraction(0)


def by_match(records: Iterable[MatchPlayRecord]) -> Iterator[list[MatchPlayRecord]]:
    """The records in groups of one match seed (its rotations), as :func:`~kc_tui.lab.batching.iter_match_records`
    yields them: consecutive records with the same ``match``."""
    group: list[MatchPlayRecord] = []
    for r in records:
        if group and r.match != group[0].match:
            yield group
            group = []
        group.append(r)
    if group:
        yield group


def summarize_matches(cfg: TournamentOptions, records: Iterable[MatchPlayRecord]) -> dict[str, Any]:
    """The results of a ``--matches`` tournament, read from ``records`` in one pass (one match
    seed's rotations held at a time). Capped matches count as a win shared by every seat and are
    left out of the per-round figures, ``rounds_won``, ``rounds_played`` and the mean final score.
    The intervals are clustered by match seed (see the module docstring)."""
    n = len(cfg.kinds)
    chips = cfg.rules.scoring == Scoring.CHIPS
    tallies = [MatchTally() for _ in cfg.names]
    shares_by_seed = [Running() for _ in cfg.names]
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n)]
    share_diffs = {pair: Running() for pair in pairs}
    round_diffs = {pair: Running() for pair in pairs}
    played = capped = rounds = 0
    for group in by_match(records):
        seed_shares = [Fraction(0)] * n
        seed_totals = [0] * n  # penalty points (or chips won) over the seed's finished plays
        seed_rounds = 0
        for r in group:
            played += 1
            capped += r.capped
            if not r.capped:
                rounds += r.rounds
                seed_rounds += r.rounds
            for j, s in enumerate(r.seats):
                t = tallies[j]
                share = win_share(r, j, n)
                t.won += share
                seed_shares[j] += share
                t.turns += s.turns
                t.moves += s.moves
                t.think_s += s.think_s
                t.max_think_s = max(t.max_think_s, s.max_think_s)
                t.faults += s.faults
                if r.capped:
                    continue
                t.finished += 1
                t.final += s.final
                t.penalty += s.penalty
                t.chips_won += s.chips_won
                t.rounds_won += s.rounds_won
                seed_totals[j] += s.chips_won if chips else s.penalty
        seed_rate = [float(x / len(group)) for x in seed_shares]  # averaged over the rotations
        for j in range(n):
            shares_by_seed[j].add(seed_rate[j])
        for a, b in pairs:
            share_diffs[(a, b)].add(seed_rate[a] - seed_rate[b])
            if seed_rounds:  # a seed whose every play was capped has no per-round figure
                round_diffs[(a, b)].add((seed_totals[a] - seed_totals[b]) / seed_rounds)
    players: dict[str, Any] = {}
    timing: dict[str, Any] = {}
    for j, name in enumerate(cfg.names):
        t = tallies[j]
        p: dict[str, Any] = {
            "kind": cfg.kinds[j],
            "params": dict(cfg.params[j]),
            "matches_won": round(float(t.won), 6),
            "match_win_rate": round(float(t.won / played), 4) if played else 0.0,
            "match_ci95": shares_by_seed[j].ci95(0.0, 1.0),
            "mean_final_score": round(t.final / t.finished, 3) if t.finished else None,
            "mean_penalty_per_round": round(t.penalty / rounds, 3) if rounds else None,
        }
        if chips:
            p["mean_chips_per_round"] = round(t.chips_won / rounds, 3) if rounds else None
        p["rounds_won"] = t.rounds_won
        p["rounds_played"] = rounds
        players[name] = p
        timing[name] = {
            "mean_think_ms_per_turn": round(1000 * t.think_s / t.turns, 3) if t.turns else 0.0,
            "max_think_ms_per_move": round(1000 * t.max_think_s, 3),
            "faults": t.faults,
        }
    pair_rows = []
    for a, b in pairs:
        sd, rd = share_diffs[(a, b)], round_diffs[(a, b)]
        pair_rows.append(
            {
                "a": cfg.names[a],
                "b": cfg.names[b],
                "win_share_diff": {"mean": sd.value(), "ci95": sd.ci95(-1.0, 1.0), "seeds": sd.n},
                "per_round_diff": {
                    "of": "chips" if chips else "penalty",
                    "mean": rd.value(3),
                    "ci95": rd.ci95(digits=3),
                    "seeds": rd.n,
                },
            }
        )
    out: dict[str, Any] = {
        "mode": "matches",
        "seats": list(cfg.names),
        "matches": cfg.matches,
        "rotations": n,
        "matches_played": played,
        "rounds": rounds,
        "seed": cfg.seed,
        "rules": cfg.rules.changed(),
        "scoring": cfg.rules.scoring,
    }
    if chips:
        out["chips_start"] = cfg.rules.chips_start
        out["chips_rounds"] = cfg.rules.chips_rounds
    else:
        out["target"] = cfg.rules.target
    out.update(capped=capped, players=players, pairs=pair_rows, timing=timing)
    return out
