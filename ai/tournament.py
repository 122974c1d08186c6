"""``kings-corners tournament``: AI players measured over duplicate deals.

Every deal is played once per rotation of the seats (both orders for two players, every cyclic
rotation for three or four), so the luck of the cards and of the seat cancels out. Deals are
spread over processes with ``--jobs``; each deal's seed, dealer and AI seeds come from ``--seed``
and the deal's number only, so the results are the same whatever ``--jobs`` is (think times and
timeouts aside: they are measured, and reported apart under ``timing``).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any, TextIO

from kc_tui.engine import END, Round, Rules, RulesError, penalty_of, round_seed

from . import ai_kinds, make_player
from .safe import SafePlayer

EXIT_BAD_INPUT = 2
#: A round longer than this many turns is stopped and counted as a block (it never happens with
#: the shipped AIs under the default rules; it guards against two players passing forever).
DEFAULT_MAX_TURNS = 1000


class TournamentError(ValueError):
    """A bad option: reported as one line, exit status 2."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seats", required=True, help="comma-separated AI kinds, 2 to 4, e.g. greedy,lookahead")
    p.add_argument("--deals", type=int, default=200, help="number of deals (each played once per rotation)")
    p.add_argument("--seed", type=int, default=0, help="seed of the tournament (same seed, same results)")
    p.add_argument("--jobs", type=int, default=1, help="worker processes (results do not depend on it)")
    p.add_argument("--rules", nargs="*", default=[], metavar="KEY=VALUE", help="rule variants, e.g. draw=end")
    p.add_argument("--json", metavar="FILE", help="also write the results as JSON to FILE ('-' for stdout)")
    p.add_argument("--think-ms", type=float, default=None, help="the expert's time budget per turn in ms (1000)")
    p.add_argument(
        "--iterations", type=int, default=None, help="the expert searches this many deals a turn (deterministic)"
    )
    p.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="KIND.KEY=VALUE",
        help="a strength setting of one AI kind, e.g. lookahead.samples=12 (repeatable)",
    )
    p.add_argument("--max-turns", type=int, default=DEFAULT_MAX_TURNS, help="stop a round after this many turns")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


# ---------------------------------------------------------------------------------------- options
@dataclass(frozen=True)
class Config:
    kinds: tuple[str, ...]
    names: tuple[str, ...]
    params: tuple[tuple[tuple[str, Any], ...], ...]
    deals: int
    seed: int
    jobs: int
    rules: Rules
    max_turns: int


def seat_names(kinds: list[str]) -> list[str]:
    """The kinds as given, a repeated kind getting ``#2``, ``#3``."""
    seen: dict[str, int] = {}
    names = []
    for k in kinds:
        seen[k] = seen.get(k, 0) + 1
        names.append(k if seen[k] == 1 else f"{k}#{seen[k]}")
    return names


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def parse_config(args: argparse.Namespace) -> Config:
    known = ai_kinds()
    kinds = [k.strip().lower().replace("_", "-") for k in str(args.seats).split(",") if k.strip()]
    if not 2 <= len(kinds) <= 4:
        raise TournamentError(f"--seats needs 2 to 4 comma-separated AI kinds, not {len(kinds)}")
    for k in kinds:
        if k not in known:
            raise TournamentError(f"unknown AI kind {k!r} in --seats: choose from {', '.join(known)}")
    if args.deals < 1:
        raise TournamentError(f"--deals must be at least 1, not {args.deals}")
    if args.jobs < 1:
        raise TournamentError(f"--jobs must be at least 1, not {args.jobs}")
    if args.max_turns < 1:
        raise TournamentError(f"--max-turns must be at least 1, not {args.max_turns}")
    try:
        rules = Rules.from_pairs(list(args.rules or []))
    except RulesError as exc:
        raise TournamentError(f"--rules: {exc}") from None
    per_kind: dict[str, dict[str, Any]] = {k: {} for k in known}
    if args.think_ms is not None:
        if args.think_ms <= 0:
            raise TournamentError(f"--think-ms must be positive, not {args.think_ms}")
        per_kind["expert"]["think_ms"] = args.think_ms
    if args.iterations is not None:
        if args.iterations < 1:
            raise TournamentError(f"--iterations must be at least 1, not {args.iterations}")
        per_kind["expert"]["iterations"] = args.iterations
    for item in args.param or []:
        lhs, sep, text = item.partition("=")
        kind, dot, key = lhs.strip().partition(".")
        kind = kind.lower().replace("_", "-")
        if not sep or not dot or not key:
            raise TournamentError(f"--param {item!r} must look like KIND.KEY=VALUE, e.g. lookahead.samples=12")
        if kind not in known:
            raise TournamentError(f"--param {item!r}: unknown AI kind {kind!r}")
        per_kind[kind][key] = _value(text.strip())
    params = []
    for i, k in enumerate(kinds):  # check every setting now: a bad one is one clear line
        try:
            probe = make_player(k, i, **per_kind[k])
        except (TypeError, ValueError) as exc:
            raise TournamentError(f"bad setting for {k}: {exc}") from None
        unknown = sorted(set(probe.params) - {"think_ms"})
        if unknown:
            raise TournamentError(f"{k} has no setting {', '.join(unknown)}")
        params.append(tuple(sorted(per_kind[k].items())))
    return Config(
        kinds=tuple(kinds),
        names=tuple(seat_names(kinds)),
        params=tuple(params),
        deals=args.deals,
        seed=args.seed,
        jobs=args.jobs,
        rules=rules,
        max_turns=args.max_turns,
    )


# ---------------------------------------------------------------------------------------- playing
@dataclass
class SeatRecord:
    """One seat entry's results in one round."""

    won: bool
    penalty: int
    turns: int
    moves: int
    think_s: float
    max_think_s: float
    faults: int


@dataclass
class RoundRecord:
    deal: int
    rotation: int
    winner: int | None  # index into the seats list, or None for a block
    capped: bool
    seats: list[SeatRecord] = field(default_factory=list)


def player_seed(seed: int, deal: int, rotation: int, entry: int) -> int:
    return round_seed(seed * 7919 + entry, deal * 5 + rotation + 1)


def play_round(cfg: Config, deal: int, rotation: int) -> RoundRecord:
    """Deal ``deal`` with seat entry ``j`` at table seat ``(j + rotation) % n``."""
    n = len(cfg.kinds)
    r = Round.deal(n, cfg.rules, round_seed(cfg.seed, deal + 1), dealer=deal % n)
    entry_at = [(t - rotation) % n for t in range(n)]  # table seat -> seat entry
    players = []
    for t in range(n):
        j = entry_at[t]
        ai = make_player(cfg.kinds[j], player_seed(cfg.seed, deal, rotation, j), **dict(cfg.params[j]))
        players.append(SafePlayer(ai))
    for p in players:
        p.new_round()
    turns = [0] * n
    moves = [0] * n
    think = [0.0] * n
    slowest = [0.0] * n
    total_turns = 0
    capped = False
    while not r.over:
        if total_turns >= cfg.max_turns:
            capped = True
            break
        seat = r.to_move
        view = r.view(seat)
        t0 = time.perf_counter()
        m = players[seat].choose(view)
        dt = time.perf_counter() - t0
        think[seat] += dt
        slowest[seat] = max(slowest[seat], dt)
        r.apply(m)  # SafePlayer only ever returns a legal move
        if m == END:
            turns[seat] += 1
            total_turns += 1
        else:
            moves[seat] += 1
            if r.over:
                turns[seat] += 1  # the turn in which it went out
    winner = None if capped or r.winner is None else entry_at[r.winner]
    rec = RoundRecord(deal=deal, rotation=rotation, winner=winner, capped=capped)
    seat_of = {entry_at[t]: t for t in range(n)}
    for j in range(n):
        t = seat_of[j]
        rec.seats.append(
            SeatRecord(
                won=winner == j,
                penalty=penalty_of(r.hands[t]),
                turns=turns[t],
                moves=moves[t],
                think_s=think[t],
                max_think_s=slowest[t],
                faults=players[t].faults,
            )
        )
    return rec


def play_deals(cfg: Config, deals: list[int]) -> list[RoundRecord]:
    """Every rotation of every deal in ``deals`` (run in a worker process)."""
    out = []
    for d in deals:
        for rot in range(len(cfg.kinds)):
            out.append(play_round(cfg, d, rot))
    return out


def run(cfg: Config, progress: TextIO | None = None) -> list[RoundRecord]:
    """All the rounds of the tournament, in deal and rotation order."""
    chunk = max(1, min(10, cfg.deals // (cfg.jobs * 8) or 1))
    batches = [list(range(i, min(cfg.deals, i + chunk))) for i in range(0, cfg.deals, chunk)]
    bar = Progress(cfg.deals, progress)
    results: dict[int, list[RoundRecord]] = {}
    if cfg.jobs == 1:
        for b in batches:
            results[b[0]] = play_deals(cfg, b)
            bar.update(len(b))
    else:
        ctx = multiprocessing.get_context("fork" if sys.platform.startswith("linux") else "spawn")
        with ProcessPoolExecutor(max_workers=cfg.jobs, mp_context=ctx) as pool:
            futures = {pool.submit(play_deals, cfg, b): b for b in batches}
            for fut in as_completed(futures):
                b = futures[fut]
                results[b[0]] = fut.result()
                bar.update(len(b))
    bar.finish()
    return [rec for k in sorted(results) for rec in results[k]]


class Progress:
    """A plain-text progress bar on stderr, redrawn in place with ``\\r``."""

    def __init__(self, total: int, out: TextIO | None) -> None:
        self.total = total
        self.done = 0
        self.out = out
        self.start = time.monotonic()

    def update(self, k: int) -> None:
        self.done += k
        if self.out is None:
            return
        width = 30
        filled = width * self.done // self.total
        elapsed = time.monotonic() - self.start
        eta = elapsed / self.done * (self.total - self.done) if self.done else 0.0
        self.out.write(
            f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} deals"
            f"  {elapsed:6.1f} s  eta {eta:6.1f} s"
        )
        self.out.flush()

    def finish(self) -> None:
        if self.out is not None:
            self.out.write("\n")
            self.out.flush()


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


def summarize(cfg: Config, records: list[RoundRecord]) -> dict[str, Any]:
    rounds = len(records)
    blocks = sum(1 for r in records if r.winner is None)
    players: dict[str, Any] = {}
    timing: dict[str, Any] = {}
    for j, name in enumerate(cfg.names):
        seats = [r.seats[j] for r in records]
        won = sum(s.won for s in seats)
        lost = [r.seats[j].penalty for r in records if r.winner is not None and r.winner != j]
        turns = sum(s.turns for s in seats)
        moves = sum(s.moves for s in seats)
        think = sum(s.think_s for s in seats)
        lo, hi = wilson(won, rounds)
        players[name] = {
            "kind": cfg.kinds[j],
            "params": dict(cfg.params[j]),
            "rounds_won": won,
            "win_rate": round(won / rounds, 4),
            "ci95": [round(lo, 4), round(hi, 4)],
            "mean_penalty": round(sum(s.penalty for s in seats) / rounds, 3),
            "rounds_lost": len(lost),
            "mean_penalty_lost": round(sum(lost) / len(lost), 3) if lost else 0.0,
            "turns": turns,
            "moves_per_turn": round(moves / turns, 3) if turns else 0.0,
        }
        timing[name] = {
            "mean_think_ms_per_turn": round(1000 * think / turns, 3) if turns else 0.0,
            "max_think_ms_per_move": round(1000 * max((s.max_think_s for s in seats), default=0.0), 3),
            "faults": sum(s.faults for s in seats),
        }
    return {
        "seats": list(cfg.names),
        "deals": cfg.deals,
        "rounds": rounds,
        "rotations": len(cfg.kinds),
        "seed": cfg.seed,
        "rules": cfg.rules.changed(),
        "blocks": blocks,
        "capped": sum(1 for r in records if r.capped),
        "players": players,
        "timing": timing,
    }


def format_table(summary: dict[str, Any]) -> str:
    head = (
        f"{'seat':<14}{'won':>7}{'rate':>8}  {'95% CI':<15}{'pen/round':>10}{'pen/lost':>10}"
        f"{'moves/turn':>12}{'ms/turn':>10}{'faults':>8}"
    )
    lines = [
        f"{summary['deals']} deals x {summary['rotations']} rotations = {summary['rounds']} rounds, "
        f"seed {summary['seed']}, rules {summary['rules'] or 'default'}; "
        f"blocked {summary['blocks']} (stopped at the turn limit: {summary['capped']})",
        head,
        "-" * len(head),
    ]
    for name, p in summary["players"].items():
        t = summary["timing"][name]
        lo, hi = p["ci95"]
        lines.append(
            f"{name:<14}{p['rounds_won']:>7}{100 * p['win_rate']:>7.1f}%  "
            f"{f'[{100 * lo:.1f}, {100 * hi:.1f}]':<15}{p['mean_penalty']:>10.2f}{p['mean_penalty_lost']:>10.2f}"
            f"{p['moves_per_turn']:>12.2f}{t['mean_think_ms_per_turn']:>10.2f}{t['faults']:>8}"
        )
    return "\n".join(lines)


def main(args: argparse.Namespace) -> int:
    try:
        cfg = parse_config(args)
    except TournamentError as exc:
        print(f"kings-corners tournament: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    records = run(cfg, None if args.quiet else sys.stderr)
    summary = summarize(cfg, records)
    print(format_table(summary))
    if args.json:
        text = json.dumps(summary, indent=2)
        if args.json == "-":
            print(text)
        else:
            try:
                with open(args.json, "w", encoding="utf-8") as fh:
                    fh.write(text + "\n")
            except OSError as exc:
                print(f"kings-corners tournament: cannot write {args.json}: {exc.strerror}", file=sys.stderr)
                return EXIT_BAD_INPUT
    return 0
