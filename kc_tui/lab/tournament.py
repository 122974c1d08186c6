"""``kings-corners tournament``: AI players measured over duplicate deals, by rounds or by matches.

Every deal is played once per rotation of the seats (both orders for two players, every cyclic
rotation for three or four), so the luck of the cards and of the seat cancels out. Deals are
spread over processes with ``--jobs``; each deal's seed, dealer and AI seeds come from ``--seed``
and the deal's number only, so the results are the same whatever ``--jobs`` is (think times and
timeouts aside: they are measured, and reported apart under ``timing``). The batches of deals are
made as the workers need them and the results are counted as they come, so memory does not grow
with ``--deals``. Every option is checked before anything starts (:func:`parse_config`,
:func:`check_output`).

With ``--matches N`` (instead of ``--deals``) whole matches are played to their end with
:class:`kc_tui.engine.Match` (R15 points to the target, or R16 chips): match ``k``'s seed comes
from ``--seed`` and ``k`` only, and each match seed is played once per cyclic rotation of the
seats (seat entry ``j`` at match seat ``(j + rotation) % n``), so every rotation gets the same
deals round after round as long as the same players are left in (duplicate deals). Each seat
entry gets one AI per match (seeded from the seed, the match, the rotation and the entry), told
of every new round. A match in which a round runs past ``--max-turns`` turns, or which is not
over after :data:`MAX_MATCH_ROUNDS` rounds, is stopped and counted as *capped*: a win shared by
every seat (``1/n`` each), left out of every per-round figure and of the mean final score.

The match-mode results (:func:`summarize_matches`), per seat entry: ``matches_won`` (a win tied
between ``k`` players gives ``1/k`` to each, so the wins add up to the matches played),
``match_win_rate``, ``match_ci95``, ``mean_final_score`` (points, or chips), per-round means
(penalty points, and in chips mode chips won) and ``rounds_won``; and per pair of entries the
paired differences of win share and of the per-round figure. The intervals are normal
approximations clustered by match seed (the rotations of one seed share their deals, so they are
not independent): each seed gives one value (the seat's win share averaged over the seed's
rotations, or a difference of two such values), and the interval is
``mean ± 1.96 × sd / sqrt(seeds)`` with the sample standard deviation over seeds; a rate's interval
is clipped to [0, 1]. With fewer than two seeds there is no spread to measure and the interval is
``[null, null]``.
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import json
import math
import multiprocessing
import os
import sys
import tempfile
import time
import typing
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from typing import Any, TextIO

from ai import ai_kinds, kind_info, make_player, normalize_kind
from ai.safe import SafePlayer
from kc_tui.engine import END, Match, Round, Rules, RulesError, penalty_of, round_seed
from kc_tui.engine.rules import Scoring, rules_help

EXIT_BAD_INPUT = 2
#: The exit status when the run finished but ``--json FILE`` could not be written at the end (the
#: JSON then goes to stdout instead, after the table, so the results are not lost).
EXIT_NOT_WRITTEN = 1
#: A round longer than this many turns is stopped and counted as a block (it never happens with
#: the shipped AIs under the default rules; it guards against two players passing forever).
DEFAULT_MAX_TURNS = 1000
#: The deals of a rounds tournament when neither ``--deals`` nor ``--matches`` is given.
DEFAULT_DEALS = 200
#: A match not over after this many rounds is stopped and counted as capped (a guard against a
#: runaway match; a very high ``target`` could reach it).
MAX_MATCH_ROUNDS = 1000
#: The normal quantile of the 95% intervals of match mode.
Z95 = 1.96

# Bounds of the options, both ends included.
DEALS_RANGE = (1, 1_000_000)
MATCHES_RANGE = (1, 100_000)
JOBS_RANGE = (1, 64)
SEED_RANGE = (0, 2**64 - 1)
MAX_TURNS_RANGE = (1, 100_000)
ITERATIONS_RANGE = (1, 100_000)
#: The expert's think time per turn in ms: the range the app's settings allow
#: (``kc_tui.config.THINK_MS_RANGE``; the AIs do not import the app's settings, a test keeps the two equal).
THINK_MS_RANGE = (50, 10_000)
#: Any other number an AI setting takes (``--param``): not negative and at most this...
PARAM_MAX = 1_000_000
#: ...unless it has its own range here.
PARAM_RANGES: dict[str, tuple[int | float, int | float]] = {
    "think_ms": THINK_MS_RANGE,
    "iterations": ITERATIONS_RANGE,
    "candidates": (1, PARAM_MAX),
    "top": (1, PARAM_MAX),
    "node_limit": (1, PARAM_MAX),
    "sim_nodes": (1, PARAM_MAX),
    "tolerance": (0, 1),
}
#: At most this many batches of deals per worker are submitted and not yet collected (the rest
#: are made as the first ones are collected, so a big ``--deals`` costs no memory up front).
IN_FLIGHT_PER_JOB = 4


class TournamentError(ValueError):
    """A bad option: reported as one line, exit status 2."""


def one_line(text: str) -> str:
    """``text`` with every newline, tab or other unprintable character escaped as in ``repr``."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _span(r: tuple[int | float, int | float]) -> str:
    return f"{r[0]} to {r[1]}"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--seats",
        required=True,
        help=f"comma-separated AI kinds, 2 to 4, e.g. greedy,lookahead (kinds: {', '.join(ai_kinds())})",
    )
    p.add_argument(
        "--deals",
        type=int,
        default=None,
        help=f"number of deals, {_span(DEALS_RANGE)} (each played once per rotation, single rounds; "
        f"default {DEFAULT_DEALS} unless --matches is given)",
    )
    p.add_argument(
        "--matches",
        type=int,
        default=None,
        help=f"play whole matches instead of single rounds: this many match seeds, {_span(MATCHES_RANGE)}, each "
        "played to the end of the match (R15 points to the target, or R16 chips: see --rules) once per rotation "
        "of the seats with the same deals; reports matches won (a tied win shared, 1/k to each of k winners), "
        "the win rate with a 95%% interval clustered by match seed, mean final score, penalty (or chips) per "
        "round, and paired differences between the seats (not with --deals)",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=0,
        help=f"seed of the tournament, {_span(SEED_RANGE)} (same seed, same results; default 0)",
    )
    p.add_argument(
        "--jobs",
        type=int,
        default=1,
        help=f"worker processes, {_span(JOBS_RANGE)} (results do not depend on it; default 1)",
    )
    p.add_argument(
        "--rules",
        nargs="*",
        default=[],
        metavar="KEY=VALUE",
        help=f"rule variants, e.g. draw=end (as in RULES.md): {rules_help()}",
    )
    p.add_argument(
        "--json",
        metavar="FILE",
        help="also write the results as JSON to FILE ('-' for stdout); FILE's folder must exist and be writable "
        "before the run starts, FILE is replaced at the end in one step, and if it cannot be written then the "
        f"JSON goes to stdout instead (exit status {EXIT_NOT_WRITTEN})",
    )
    p.add_argument(
        "--think-ms",
        type=float,
        default=None,
        help=f"the time budget per turn in ms of the kinds that take a think time (the expert), "
        f"{_span(THINK_MS_RANGE)} as in the app's settings (default 1000)",
    )
    p.add_argument(
        "--iterations",
        type=int,
        default=None,
        help=f"the kinds that take a think time (the expert) search this many deals a turn instead, "
        f"{_span(ITERATIONS_RANGE)} (deterministic)",
    )
    p.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="KIND.KEY=VALUE",
        help="a strength setting of one AI kind, e.g. lookahead.samples=12 (repeatable); the value must have "
        "the type of the setting's default (whole number, number or true/false; 'none' where the default "
        f"is none) and numbers must be finite and from 0 to {PARAM_MAX} unless the setting has its own range "
        "(think_ms, iterations, counts from 1, tolerance 0 to 1)",
    )
    p.add_argument(
        "--max-turns",
        type=int,
        default=DEFAULT_MAX_TURNS,
        help=f"stop a round after this many turns, {_span(MAX_TURNS_RANGE)} (default {DEFAULT_MAX_TURNS}); with "
        "--matches the whole match is stopped and counted as capped",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")


# ---------------------------------------------------------------------------------------- options
@dataclass(frozen=True)
class Config:
    kinds: tuple[str, ...]
    names: tuple[str, ...]
    params: tuple[tuple[tuple[str, Any], ...], ...]
    #: The deals of rounds mode (0 in match mode).
    deals: int
    seed: int
    jobs: int
    rules: Rules
    max_turns: int
    #: The number of match seeds in match mode (``--matches``), None in rounds mode.
    matches: int | None = None

    @property
    def match_mode(self) -> bool:
        return self.matches is not None


def seat_names(kinds: list[str]) -> list[str]:
    """The kinds as given, a repeated kind getting ``#2``, ``#3``."""
    seen: dict[str, int] = {}
    names = []
    for k in kinds:
        seen[k] = seen.get(k, 0) + 1
        names.append(k if seen[k] == 1 else f"{k}#{seen[k]}")
    return names


@dataclass(frozen=True)
class Setting:
    """One keyword setting of an AI kind, as its constructor declares it."""

    name: str
    #: ``int``, ``float``, ``bool`` or ``str``: the type of the default (or of the annotation
    #: when the default is None).
    type: type
    #: Whether None is allowed (the default is None).
    optional: bool
    default: Any

    @property
    def range(self) -> tuple[int | float, int | float]:
        return PARAM_RANGES.get(self.name, (0, PARAM_MAX))


def _setting_type(default: Any, annotation: Any) -> type | None:
    if default is not None:
        t = type(default)
        return t if t in (int, float, bool, str) else None
    options = [a for a in typing.get_args(annotation) if a is not type(None)]
    if len(options) == 1 and options[0] in (int, float, bool, str):
        t0: type = options[0]
        return t0
    return None


@cache
def settings_of(kind: str) -> dict[str, Setting]:
    """The keyword settings of ``kind``'s constructor and of its base classes (the most derived
    class's default wins), e.g. ``lookahead`` -> ``node_limit``, ``top``, ``samples``, ..."""
    cls = type(make_player(kind, 0))
    out: dict[str, Setting] = {}
    for klass in reversed(cls.__mro__):
        init = klass.__dict__.get("__init__")
        if init is None or klass is object:
            continue
        try:
            sig = inspect.signature(init, eval_str=True)
        except (NameError, TypeError, ValueError):
            sig = inspect.signature(init)
        for prm in sig.parameters.values():
            if prm.kind is not prm.KEYWORD_ONLY or prm.default is prm.empty:
                continue
            t = _setting_type(prm.default, prm.annotation)
            if t is not None:
                out[prm.name] = Setting(prm.name, t, prm.default is None, prm.default)
    return out


_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")


def _typed(s: Setting, text: str) -> Any:
    """The value of ``text`` for setting ``s``; ValueError saying what is expected."""
    low = text.strip().lower()
    if s.optional and low in ("none", "null"):
        return None
    also = " or none" if s.optional else ""
    if s.type is bool:
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
        raise ValueError(f"must be true or false{also}, not {text!r}")
    if s.type is str:
        return text
    lo, hi = s.range
    if s.type is int:
        try:
            value: int | float = int(text)
        except ValueError:
            raise ValueError(f"must be a whole number from {lo} to {hi}{also}, not {text!r}") from None
    else:
        try:
            value = float(text)
        except ValueError:
            raise ValueError(f"must be a number from {lo} to {hi}{also}, not {text!r}") from None
    _check_number(s, value)
    return value


def _check_number(s: Setting, value: int | float) -> None:
    lo, hi = s.range
    if not math.isfinite(value) or not lo <= value <= hi:
        word = "a whole number" if s.type is int else "a finite number"
        raise ValueError(f"must be {word} from {lo} to {hi}, not {value!r}")


def _bounded(option: str, value: Any, r: tuple[int | float, int | float], word: str = "a whole number") -> None:
    lo, hi = r
    ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) and lo <= value <= hi
    if not ok:
        raise TournamentError(f"{option} must be {word} from {lo} to {hi}, not {value!r}")


def parse_seats(text: str) -> list[str]:
    """The AI kinds of ``--seats``, normalised (``King_Aware`` -> ``king-aware``)."""
    known = ai_kinds()
    raw = [k.strip() for k in str(text).split(",") if k.strip()]
    if not 2 <= len(raw) <= 4:
        raise TournamentError(
            f"--seats needs 2 to 4 comma-separated AI kinds, not {len(raw)}: choose from {', '.join(known)}"
        )
    for k in raw:
        if normalize_kind(k) not in known:
            raise TournamentError(f"unknown AI kind {k!r} in --seats: choose from {', '.join(known)}")
    return [normalize_kind(k) for k in raw]


def parse_params(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    """Every AI kind's settings from ``--think-ms``, ``--iterations`` and ``--param``, typed and
    range-checked (only the settings given: the rest keep the AI's defaults)."""
    known = ai_kinds()
    per_kind: dict[str, dict[str, Any]] = {k: {} for k in known}
    # The searching kinds (those that take a think time, as declared in the registry).
    searchers = [k for k in known if kind_info(k).takes_think_time]
    if args.think_ms is not None:
        _bounded("--think-ms", args.think_ms, THINK_MS_RANGE, "a finite number of ms")
        for k in searchers:
            per_kind[k]["think_ms"] = float(args.think_ms)
    if args.iterations is not None:
        _bounded("--iterations", args.iterations, ITERATIONS_RANGE)
        for k in searchers:
            per_kind[k]["iterations"] = args.iterations
    for item in args.param or []:
        lhs, sep, text = str(item).partition("=")
        kind_text, dot, key_text = lhs.strip().partition(".")
        kind = normalize_kind(kind_text)
        key = key_text.strip().lower().replace("-", "_")
        if not sep or not dot or not key or not kind:
            raise TournamentError(f"--param {item!r} must look like KIND.KEY=VALUE, e.g. lookahead.samples=12")
        if kind not in known:
            raise TournamentError(
                f"--param {item!r}: unknown AI kind {kind_text.strip()!r}: choose from {', '.join(known)}"
            )
        settings = settings_of(kind)
        if key not in settings:
            has = f"its settings are {', '.join(sorted(settings))}" if settings else "it has no settings"
            raise TournamentError(f"--param {item!r}: {kind} has no setting {key_text.strip()!r} ({has})")
        try:
            per_kind[kind][key] = _typed(settings[key], text.strip())
        except ValueError as exc:
            raise TournamentError(f"--param {item!r}: {kind}.{key} {exc}") from None
    return per_kind


def parse_config(args: argparse.Namespace) -> Config:
    """Every option checked, nothing started: a :class:`TournamentError` names the first bad one."""
    kinds = parse_seats(args.seats)
    deals, matches = getattr(args, "deals", None), getattr(args, "matches", None)
    if deals is not None and matches is not None:
        raise TournamentError("--deals and --matches are alternatives (single rounds or whole matches): give one")
    if matches is not None:
        _bounded("--matches", matches, MATCHES_RANGE)
        deals = 0
    else:
        deals = DEFAULT_DEALS if deals is None else deals
        _bounded("--deals", deals, DEALS_RANGE)
    _bounded("--jobs", args.jobs, JOBS_RANGE)
    _bounded("--seed", args.seed, SEED_RANGE)
    _bounded("--max-turns", args.max_turns, MAX_TURNS_RANGE)
    try:
        rules = Rules.from_pairs([str(r) for r in args.rules or []])
    except (RulesError, TypeError, ValueError) as exc:
        raise TournamentError(f"--rules: {exc}") from None
    per_kind = parse_params(args)
    # Build every AI that plays or was given settings once now: a setting its constructor refuses
    # is one clear line before the run, not an error every turn.
    for k in sorted(set(kinds) | {k for k, v in per_kind.items() if v}):
        try:
            probe = make_player(k, 0, **per_kind[k])
        except Exception as exc:  # any failure of a constructor is a bad setting
            raise TournamentError(f"bad setting for {k}: {type(exc).__name__}: {exc}") from None
        if probe.params:
            raise TournamentError(f"{k} has no setting {', '.join(sorted(probe.params))}")
    return Config(
        kinds=tuple(kinds),
        names=tuple(seat_names(kinds)),
        params=tuple(tuple(sorted(per_kind[k].items())) for k in kinds),
        deals=deals,
        seed=args.seed,
        jobs=args.jobs,
        rules=rules,
        max_turns=args.max_turns,
        matches=matches,
    )


def check_output(path: str | None) -> None:
    """That the results can be written to ``--json path`` at the end, checked before the run: its
    folder exists and takes a new file, and ``path`` is not a folder or a device ('-': stdout)."""
    if path is None or path == "-":
        return
    if not path.strip():
        raise TournamentError("--json needs a file name ('-' for stdout)")
    target = os.path.realpath(path)
    folder = os.path.dirname(target) or "."
    if os.path.isdir(target):
        raise TournamentError(f"--json {path!r} is a folder, not a file")
    if os.path.exists(target) and not os.path.isfile(target):
        raise TournamentError(f"--json {path!r} is not a regular file (use '-' for stdout)")
    if not os.path.exists(folder):
        raise TournamentError(f"--json {path!r}: the folder {folder!r} does not exist")
    if not os.path.isdir(folder):
        raise TournamentError(f"--json {path!r}: {folder!r} is not a folder")
    try:
        fd, probe = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=folder)
        os.close(fd)
        os.remove(probe)
    except OSError as exc:
        raise TournamentError(f"--json {path!r}: cannot write in {folder!r}: {exc.strerror or exc}") from None


def write_json(path: str, text: str) -> None:
    """Write ``text`` to ``path`` in one step: a temporary file in the same folder, then a rename
    (a failure leaves the old file, if any, and no temporary file)."""
    target = os.path.realpath(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=os.path.dirname(target))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise


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


@dataclass
class TurnTally:
    """Turns, moves and think times of each seat (numbered as the caller numbers them)."""

    turns: list[int]
    moves: list[int]
    think: list[float]
    slowest: list[float]

    @classmethod
    def zero(cls, n: int) -> TurnTally:
        return cls([0] * n, [0] * n, [0.0] * n, [0.0] * n)


def play_out(r: Round, players: Sequence[SafePlayer], seat_of: Sequence[int], tally: TurnTally, max_turns: int) -> bool:
    """Play round ``r`` to its end, ``players[i]`` at round seat ``i``, counting into ``tally``
    at ``seat_of[i]``; True when it was stopped after ``max_turns`` turns (capped)."""
    round_turns = 0
    while not r.over:
        if round_turns >= max_turns:
            return True
        rs = r.to_move
        s = seat_of[rs]
        view = r.view(rs)  # the round (inside a match: with the match's standing) builds the view
        t0 = time.perf_counter()
        mv = players[rs].choose(view)
        dt = time.perf_counter() - t0
        tally.think[s] += dt
        tally.slowest[s] = max(tally.slowest[s], dt)
        r.apply(mv)  # SafePlayer only ever returns a legal move
        if mv == END:
            tally.turns[s] += 1
            round_turns += 1
        else:
            tally.moves[s] += 1
            if r.over:
                tally.turns[s] += 1  # the turn in which it went out
    return False


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
    tally = TurnTally.zero(n)
    capped = play_out(r, players, range(n), tally, cfg.max_turns)
    turns, moves, think, slowest = tally.turns, tally.moves, tally.think, tally.slowest
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


def play_deals(cfg: Config, deals: Sequence[int]) -> list[RoundRecord]:
    """Every rotation of every deal in ``deals`` (run in a worker process)."""
    out = []
    for d in deals:
        for rot in range(len(cfg.kinds)):
            out.append(play_round(cfg, d, rot))
    return out


@dataclass
class MatchSeatRecord:
    """One seat entry's results in one play of a match (one match seed in one rotation)."""

    #: The match seat the entry sat at: ``(entry + rotation) % n``.
    match_seat: int
    #: Its total when the match ended: penalty points (R15), or chips (R16).
    final: int
    #: Its R15 penalties summed over the rounds it played (in chips mode too).
    penalty: int
    #: Chips mode: its final chips less ``chips_start`` (0 in points mode).
    chips_won: int
    rounds_won: int
    turns: int
    moves: int
    think_s: float
    max_think_s: float
    faults: int


@dataclass
class MatchRecord:
    """One match seed played to the end in one rotation of the seats."""

    match: int
    rotation: int
    #: The rounds played to their end (a capped match's stopped round is not counted).
    rounds: int
    #: Stopped: a round ran past ``--max-turns`` turns, or the match past :data:`MAX_MATCH_ROUNDS`.
    capped: bool
    #: The seat entries tied for the win (empty when capped).
    winners: list[int]
    seats: list[MatchSeatRecord] = field(default_factory=list)


def match_seed(seed: int, match: int) -> int:
    """The seed of match number ``match`` (0, 1, ...): from ``--seed`` and ``match`` only."""
    return round_seed(seed, match + 1)


def play_match(cfg: Config, match: int, rotation: int) -> MatchRecord:
    """Match ``match`` to its end with seat entry ``j`` at match seat ``(j + rotation) % n``."""
    n = len(cfg.kinds)
    m = Match(n, cfg.rules, match_seed(cfg.seed, match))
    entry_at = [(s - rotation) % n for s in range(n)]  # match seat -> seat entry
    seat_of = [(j + rotation) % n for j in range(n)]  # seat entry -> match seat
    players: list[SafePlayer] = []
    for s in range(n):
        j = entry_at[s]
        ai = make_player(cfg.kinds[j], player_seed(cfg.seed, match, rotation, j), **dict(cfg.params[j]))
        players.append(SafePlayer(ai))
    tally = TurnTally.zero(n)  # per match seat
    capped = False
    while not m.over:
        if len(m.results) >= MAX_MATCH_ROUNDS:
            capped = True
            break
        for s in m.seats:
            players[s].new_round()
        capped = play_out(m.round, [players[s] for s in m.seats], m.seats, tally, cfg.max_turns)
        if capped:
            break
        m.finish_round()
    turns, moves, think, slowest = tally.turns, tally.moves, tally.think, tally.slowest
    totals = m.totals
    chips = cfg.rules.scoring == Scoring.CHIPS
    rec = MatchRecord(
        match=match,
        rotation=rotation,
        rounds=len(m.results),
        capped=capped,
        winners=[] if capped else sorted(entry_at[s] for s in m.winners),
    )
    for j in range(n):
        s = seat_of[j]
        rec.seats.append(
            MatchSeatRecord(
                match_seat=s,
                final=totals[s],
                penalty=sum(res.penalties[s] for res in m.results),
                chips_won=totals[s] - cfg.rules.chips_start if chips else 0,
                rounds_won=sum(1 for res in m.results if res.winner == s),
                turns=turns[s],
                moves=moves[s],
                think_s=think[s],
                max_think_s=slowest[s],
                faults=players[s].faults,
            )
        )
    return rec


def play_matches(cfg: Config, matches: Sequence[int]) -> list[MatchRecord]:
    """Every rotation of every match seed in ``matches`` (run in a worker process)."""
    return [play_match(cfg, k, rot) for k in matches for rot in range(len(cfg.kinds))]


def chunk_size(deals: int, jobs: int, most: int = 10) -> int:
    """Deals (or matches) per batch: about eight batches per worker, at most ``most`` each."""
    return max(1, min(most, deals // (jobs * 8) or 1))


def batches(deals: int, chunk: int) -> Iterator[range]:
    """The deals ``0 .. deals - 1`` in consecutive batches of ``chunk``, made one at a time."""
    for i in range(0, deals, chunk):
        yield range(i, min(deals, i + chunk))


#: Matches per batch at most: a match is several rounds, so fewer than deals.
MATCH_CHUNK_MOST = 2

#: A record of one batch's work: :class:`RoundRecord` or :class:`MatchRecord`.
R = typing.TypeVar("R")


def iter_batched(
    cfg: Config,
    total: int,
    chunk: int,
    work: Callable[[Config, range], list[R]],
    unit: str,
    progress: TextIO | None = None,
) -> Iterator[R]:
    """The records of ``work(cfg, batch)`` for the batches of ``0 .. total - 1``, in order,
    whatever ``cfg.jobs`` is (``work`` must be a module-level function: it goes to the workers).

    The batches are made lazily: with several jobs, at most ``IN_FLIGHT_PER_JOB`` batches per
    worker are submitted and not yet collected, and they are collected in order. The progress
    bar counts ``unit`` ("deals", "matches")."""
    todo = batches(total, chunk)
    bar = Progress(total, progress, unit)
    if cfg.jobs == 1:
        for b in todo:
            recs = work(cfg, b)
            bar.update(len(b))
            yield from recs
        bar.finish()
        return
    n_batches = -(-total // chunk)
    ctx = multiprocessing.get_context("fork" if sys.platform.startswith("linux") else "spawn")
    pool = ProcessPoolExecutor(max_workers=min(cfg.jobs, n_batches), mp_context=ctx)
    try:
        window: deque[tuple[range, Future[list[R]]]] = deque()
        for b in todo:
            window.append((b, pool.submit(work, cfg, b)))
            if len(window) >= cfg.jobs * IN_FLIGHT_PER_JOB:
                break
        while window:
            b, fut = window.popleft()
            recs = fut.result()
            nxt = next(todo, None)
            if nxt is not None:
                window.append((nxt, pool.submit(work, cfg, nxt)))
            bar.update(len(b))
            yield from recs
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    bar.finish()


def iter_records(cfg: Config, progress: TextIO | None = None) -> Iterator[RoundRecord]:
    """All the rounds of the tournament, in deal and rotation order, whatever ``cfg.jobs`` is
    (batches made lazily, a few in flight: :func:`iter_batched`)."""
    return iter_batched(cfg, cfg.deals, chunk_size(cfg.deals, cfg.jobs), play_deals, "deals", progress)


def iter_match_records(cfg: Config, progress: TextIO | None = None) -> Iterator[MatchRecord]:
    """All the matches of a ``--matches`` tournament, in match and rotation order, whatever
    ``cfg.jobs`` is (:func:`iter_batched`; the progress bar counts match seeds)."""
    total = cfg.matches or 0
    chunk = chunk_size(total, cfg.jobs, MATCH_CHUNK_MOST)
    return iter_batched(cfg, total, chunk, play_matches, "matches", progress)


def run(cfg: Config, progress: TextIO | None = None) -> list[RoundRecord]:
    """All the rounds of the tournament as a list (:func:`iter_records` holds only a few batches)."""
    return list(iter_records(cfg, progress))


class Progress:
    """A plain-text progress bar on stderr, redrawn in place with ``\\r``."""

    def __init__(self, total: int, out: TextIO | None, unit: str = "deals") -> None:
        self.total = total
        self.unit = unit
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
            f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} {self.unit}"
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


def summarize(cfg: Config, records: Iterable[RoundRecord]) -> dict[str, Any]:
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


def win_share(rec: MatchRecord, entry: int, n: int) -> Fraction:
    """Seat entry ``entry``'s share of the win of one match: ``1/k`` if it is one of ``k`` tied
    winners, 0 if not; ``1/n`` each when the match was capped."""
    if rec.capped:
        return Fraction(1, n)
    return Fraction(1, len(rec.winners)) if entry in rec.winners else Fraction(0)


def by_match(records: Iterable[MatchRecord]) -> Iterator[list[MatchRecord]]:
    """The records in groups of one match seed (its rotations), as :func:`iter_match_records`
    yields them: consecutive records with the same ``match``."""
    group: list[MatchRecord] = []
    for r in records:
        if group and r.match != group[0].match:
            yield group
            group = []
        group.append(r)
    if group:
        yield group


def summarize_matches(cfg: Config, records: Iterable[MatchRecord]) -> dict[str, Any]:
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


def _num(x: float | None, fmt: str) -> str:
    return "n/a" if x is None else format(x, fmt)


def interval_text(ci: Sequence[float | None], fmt: str, scale: float = 1.0) -> str:
    """A 95% interval as printed: "[lo, hi]" in ``fmt`` (times ``scale``), "[n/a]" when open."""
    lo, hi = ci
    if lo is None or hi is None:
        return "[n/a]"
    return f"[{format(scale * lo, fmt)}, {format(scale * hi, fmt)}]"


def format_match_table(summary: dict[str, Any]) -> str:
    """The printed table of a ``--matches`` tournament, then the pairs block."""
    chips = summary["scoring"] == Scoring.CHIPS
    per_round = "chips/round" if chips else "pen/round"
    key = "mean_chips_per_round" if chips else "mean_penalty_per_round"
    if chips:
        scoring = f"chips (start {summary['chips_start']}, at most {summary['chips_rounds']} rounds)"
    else:
        scoring = f"points to {summary['target']}"
    head = (
        f"{'seat':<14}{'won':>8}{'rate':>8}  {'95% CI':<15}{'mean final':>11}{per_round:>12}"
        f"{'rounds won':>12}{'ms/turn':>10}{'faults':>8}"
    )
    lines = [
        f"{summary['matches']} matches x {summary['rotations']} rotations = {summary['matches_played']} played, "
        f"{summary['rounds']} rounds, seed {summary['seed']}, rules {summary['rules'] or 'default'}, "
        f"scoring {scoring}; capped {summary['capped']}",
        head,
        "-" * len(head),
    ]
    for name, p in summary["players"].items():
        t = summary["timing"][name]
        lines.append(
            f"{name:<14}{p['matches_won']:>8.1f}{100 * p['match_win_rate']:>7.1f}%  "
            f"{interval_text(p['match_ci95'], '.1f', 100):<15}{_num(p['mean_final_score'], '.2f'):>11}"
            f"{_num(p[key], '.2f'):>12}{p['rounds_won']:>12}{t['mean_think_ms_per_turn']:>10.2f}{t['faults']:>8}"
        )
    lines.append(f"pairs (first minus second; mean over match seeds, 95% CI): win share, {per_round}")
    for row in summary["pairs"]:
        ws, pr = row["win_share_diff"], row["per_round_diff"]
        lines.append(
            f"  {row['a'] + ' - ' + row['b']:<28} win share {_num(ws['mean'], '+.3f')} "
            f"{interval_text(ws['ci95'], '+.3f')}"
            f"   {per_round} {_num(pr['mean'], '+.2f')} {interval_text(pr['ci95'], '+.2f')}"
        )
    return "\n".join(lines)


def main(args: argparse.Namespace) -> int:
    """Check every option, play the tournament, print the table (and the JSON). Exit status 0;
    2 for a bad option (one line on stderr, nothing started); 1 when ``--json FILE`` could not be
    written at the end (the JSON is then printed on stdout after the table)."""
    try:
        cfg = parse_config(args)
        check_output(args.json)
    except TournamentError as exc:
        print(f"kings-corners tournament: {one_line(str(exc))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    bar = None if args.quiet else sys.stderr
    if cfg.match_mode:
        summary = summarize_matches(cfg, iter_match_records(cfg, bar))
        print(format_match_table(summary))
    else:
        summary = summarize(cfg, iter_records(cfg, bar))
        print(format_table(summary))
    if not args.json:
        return 0
    text = json.dumps(summary, indent=2)
    if args.json == "-":
        print(text)
        return 0
    try:
        write_json(args.json, text + "\n")
    except OSError as exc:
        reason = one_line(str(exc.strerror or exc))
        print(
            f"kings-corners tournament: cannot write {one_line(repr(args.json))}: {reason}; the JSON follows on stdout",
            file=sys.stderr,
        )
        print(text)
        return EXIT_NOT_WRITTEN
    return 0
