"""Pool whole-match tournament runs on different match seeds into one result:
``python tools/pool_matches.py RUN.json RUN.json [...]``.

A development script of the repository, not part of the installed package (run it from the
repository root, or as ``python -m tools.pool_matches``). Each file is the ``--json`` of
``kings-corners tournament --matches N``; all must have the same seats (in the same order), rules
and scoring, and should come from different ``--seed`` values (the same seed gives the same
match seeds, which would be counted twice). Matches won are added up; each pair's differences
(win share and per-round figure) are averaged with the runs weighted by their match seeds, and
their standard errors (read back from each run's 95% interval, clustered by match seed) are
combined the same way. Prints one line per seat and per pair, and a note for every seat whose
settings (``--think-ms``, ``--iterations``, ``--param``: each player's ``params``) differ between
runs (a setting given in one run may be the other's default, so it is said, not refused); exit 2
with one line on stderr for a file that cannot be pooled.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kc_tui.lab.reports import differences_text

Z = 1.96


class PoolError(ValueError):
    """A run that cannot be pooled with the others, with the reason."""


def _number(x: Any, what: str) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        raise PoolError(f"{what} is not a finite number")
    return float(x)


def _diff(d: Any, what: str) -> tuple[float, float, int]:
    """(mean, standard error, seeds) of one pair difference of a run."""
    if not isinstance(d, dict):
        raise PoolError(f"{what} is missing")
    mean = _number(d.get("mean"), f"{what} mean")
    ci = d.get("ci95")
    seeds = d.get("seeds")
    if not isinstance(ci, list) or len(ci) != 2 or None in ci or not isinstance(seeds, int) or seeds < 2:
        raise PoolError(f"{what} has no interval (fewer than two match seeds?)")
    lo, hi = (_number(v, f"{what} interval") for v in ci)
    return mean, (hi - lo) / (2 * Z), seeds


def pool(runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The pooled result of ``runs`` (parsed ``--json`` files of match mode)."""
    if len(runs) < 2:
        raise PoolError("give at least two runs")
    first = runs[0]
    for k, run in enumerate(runs):
        if not isinstance(run, dict) or run.get("mode") != "matches":
            raise PoolError(f"run {k + 1} is not a --matches run")
        for key in ("seats", "rules", "scoring", "target"):
            if run.get(key) != first.get(key):
                raise PoolError(f"run {k + 1} has other {key} than run 1")
    seeds = [run.get("seed") for run in runs]
    if len(set(map(str, seeds))) != len(seeds):
        raise PoolError("two runs have the same --seed: their match seeds would count twice")
    players: dict[str, dict[str, float]] = {}
    for run in runs:
        for name, p in run["players"].items():
            acc = players.setdefault(name, {"won": 0.0, "played": 0.0})
            acc["won"] += _number(p.get("matches_won"), f"{name} matches_won")
            acc["played"] += _number(run.get("matches_played"), "matches_played")
    notes = []
    for name in players:
        settings = [run["players"][name].get("params", {}) for run in runs]
        if any(x != settings[0] for x in settings):
            shown = "; ".join(
                f"seed {seed}: {json.dumps(x, sort_keys=True)}" for seed, x in zip(seeds, settings, strict=True)
            )
            notes.append(f"{name}'s settings differ between the runs ({shown})")
    pairs = []
    for i, pair in enumerate(first["pairs"]):
        out: dict[str, Any] = {"a": pair["a"], "b": pair["b"]}
        for key in ("win_share_diff", "per_round_diff"):
            parts = []
            for run in runs:
                other = run["pairs"][i]
                if (other.get("a"), other.get("b")) != (pair["a"], pair["b"]):
                    raise PoolError("the runs list their pairs differently")
                parts.append(_diff(other.get(key), f"{pair['a']} - {pair['b']} {key}"))
            total = sum(n for _m, _s, n in parts)
            mean = sum(m * n for m, _s, n in parts) / total
            se = math.sqrt(sum((s * n / total) ** 2 for _m, s, n in parts))
            out[key] = {"mean": mean, "ci95": [mean - Z * se, mean + Z * se], "seeds": total}
        pairs.append(out)
    return {"seats": first["seats"], "seeds": seeds, "players": players, "pairs": pairs, "notes": notes}


def report(pooled: dict[str, Any]) -> str:
    lines = [f"pooled runs: seeds {', '.join(map(str, pooled['seeds']))}"]
    for name, p in pooled["players"].items():
        lines.append(f"  {name:<16} won {p['won']:7.1f} of {p['played']:.0f} = {100 * p['won'] / p['played']:.1f}%")
    for pair in pooled["pairs"]:
        w, r = pair["win_share_diff"], pair["per_round_diff"]
        lines.append(
            f"  {pair['a']} - {pair['b']}: {differences_text(w, 'per round', r, '+.3f')}   ({w['seeds']} match seeds)"
        )
    lines += [f"note: {note}" for note in pooled.get("notes", [])]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", type=Path, help="tournament --json files of --matches runs")
    args = ap.parse_args(argv)
    try:
        runs = []
        for path in args.runs:
            try:
                runs.append(json.loads(path.read_text(encoding="utf-8")))
            except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
                raise PoolError(f"{path}: cannot read it as JSON ({type(e).__name__})") from e
        print(report(pool(runs)))
    except (PoolError, KeyError, TypeError, AttributeError) as e:  # a file of another shape
        print(f"pool_matches: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
