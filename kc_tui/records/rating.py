"""Ratings on one scale for the player and every AI kind (plain Python: math only).

The model is Bradley–Terry on the Elo scale: ``P(i beats j) = 1 / (1 + 10 ** ((R_j - R_i) / 400))``,
a draw counting half a win to each side (a score of 0.5; any score from 0 to 1 is allowed). A
match of three or four players counts as the pairwise results its final totals imply
(:func:`pairwise`). :func:`fit` finds the ratings of most posterior weight (maximum a posteriori)
under a normal prior of ``prior_sd`` around a centre: :data:`CENTER` with no anchors, else the
mean of the anchors' values. Anchored names are fixed at their values (sd 0); the other names'
standard deviations come from the observed information at the fit (the inverse of the Hessian
of the log posterior, or its diagonal beyond :data:`DENSE_MAX` free names). The prior keeps
every rating finite: a name that won every game is rated high, not infinitely high, and a name
without games keeps the prior (its centre, ``prior_sd``).

The AI kinds' ratings ship with the package in ``kc_tui/data/ai_ratings.json``, produced from
whole AI-vs-AI matches by ``tools/ai_ratings.py`` with ``greedy`` anchored at 1000
(:func:`ai_anchors`). People are rated against them, and against each other, with every AI kind
fixed at its anchor (:func:`people_ratings`; :func:`player_rating` for one person), and
:func:`describe` / :func:`standing_words` say where that puts a person:
``"1215 ± 60: between lookahead (1180) and expert (1290)"``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from ai import kind_shown
from kc_tui.engine.strict import JSONError
from kc_tui.engine.strict import loads as strict_json
from kc_tui.i18n import _

#: Elo points per factor of ten in the odds.
SCALE = 400.0
#: d p / d R = C · p (1 - p) with p the expected score.
C = math.log(10.0) / SCALE
#: The prior's centre when no name is anchored.
CENTER = 1000.0
#: The prior's standard deviation by default, in Elo points.
DEFAULT_PRIOR_SD = 350.0
#: With at most this many free names the fit takes full Newton steps and the sds come from the
#: inverse of the information matrix; beyond it, coordinate Newton sweeps and the diagonal
#: (each name's sd given the others: a little narrower than the joint one).
DENSE_MAX = 100
#: Ratings are refused beyond this size (Elo points): far beyond any real rating.
RATING_LIMIT = 1e6
#: The fit stops once no rating moves more than this (Elo points) in one iteration.
TOLERANCE = 1e-6
MAX_ITERATIONS = 500
#: The file of the AI kinds' ratings in the package data.
AI_RATINGS_FILE = "ai_ratings.json"
#: What a person's name is prefixed with inside :func:`people_ratings`' fit (no AI kind starts so).
PERSON = "\x00person:"


@dataclass(frozen=True)
class Rating:
    """A rating on the Elo scale (400 · log10 of the odds) and its standard deviation."""

    name: str
    value: float
    sd: float


# ------------------------------------------------------------------------------------- checks
def _number(value: Any, what: str) -> float:
    """``value`` as a finite float; ValueError naming ``what`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{what} must be a number, not {value!r}")
    x = float(value)
    if not math.isfinite(x):
        raise ValueError(f"{what} must be a finite number, not {value!r}")
    return x


def _name(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{what} must be a non-empty name, not {value!r}")
    return value


def _score(value: Any, what: str) -> float:
    s = _number(value, what)
    if not 0.0 <= s <= 1.0:
        raise ValueError(f"{what} must be from 0 to 1 (1 a win, 0.5 a draw, 0 a loss), not {value!r}")
    return s


def _rating_value(value: Any, what: str) -> float:
    x = _number(value, what)
    if abs(x) > RATING_LIMIT:
        raise ValueError(f"{what} must be a rating within ±{RATING_LIMIT:g}, not {value!r}")
    return x


# ------------------------------------------------------------------------------ match results
def pairwise(finish: Sequence[float], lower_is_better: bool) -> list[tuple[int, int, float]]:
    """The pairwise results a match's final totals imply: ``(i, j, score of i against j)`` for
    every pair of seats ``i < j``, 1 when ``i`` finished ahead, 0 behind, 0.5 level. Points (R15):
    the lower total is better (``lower_is_better=True``); chips (R16): the higher.
    ValueError for fewer than two totals or a total that is not a finite number."""
    if isinstance(finish, str | bytes) or not isinstance(finish, Sequence):
        raise ValueError(f"the final totals must be a sequence of numbers, not {finish!r}")
    totals = [_number(x, f"final total {k}") for k, x in enumerate(finish)]
    if len(totals) < 2:
        raise ValueError(f"a match has at least two players' totals, not {len(totals)}")
    sign = -1.0 if lower_is_better else 1.0
    out: list[tuple[int, int, float]] = []
    for i in range(len(totals)):
        for j in range(i + 1, len(totals)):
            d = sign * (totals[i] - totals[j])
            out.append((i, j, 1.0 if d > 0 else 0.0 if d < 0 else 0.5))
    return out


# ---------------------------------------------------------------------------------------- fit
def expected(diff: float) -> float:
    """P(win) for a rating difference ``diff`` (own minus other), without overflow."""
    x = C * diff
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def _log_expected(diff: float) -> float:
    """log P(win) for a rating difference ``diff``, without overflow."""
    x = C * diff
    return -math.log1p(math.exp(-x)) if x >= 0 else x - math.log1p(math.exp(x))


class _Problem:
    """The games aggregated by pair of names: ``(a, b, games, score of a)`` with indices."""

    def __init__(
        self,
        games: Sequence[tuple[str, str, float]],
        anchors: Mapping[str, float],
        prior_sd: float,
        center: float | None = None,
    ) -> None:
        self.anchors = dict(anchors)
        names: dict[str, int] = {}
        pairs: dict[tuple[int, int], list[float]] = {}
        for k, game in enumerate(games):
            if not isinstance(game, tuple | list) or len(game) != 3:
                raise ValueError(f"game {k} must be (name, name, score), not {game!r}")
            a = _name(game[0], f"game {k}'s first name")
            b = _name(game[1], f"game {k}'s second name")
            if a == b:
                raise ValueError(f"game {k} pits {a!r} against itself")
            s = _score(game[2], f"game {k}'s score")
            ia = names.setdefault(a, len(names))
            ib = names.setdefault(b, len(names))
            if ia > ib:
                ia, ib, s = ib, ia, 1.0 - s
            acc = pairs.setdefault((ia, ib), [0.0, 0.0])
            acc[0] += 1.0
            acc[1] += s
        for name in self.anchors:
            names.setdefault(name, len(names))
        self.names = list(names)
        self.fixed = [name in self.anchors for name in self.names]
        self.pairs = [(a, b, n, s) for (a, b), (n, s) in pairs.items()]
        if center is None:
            center = sum(self.anchors.values()) / len(self.anchors) if self.anchors else CENTER
        self.center = center
        self.precision = 1.0 / (prior_sd * prior_sd)
        self.free = [i for i, f in enumerate(self.fixed) if not f]
        self.slot = {i: k for k, i in enumerate(self.free)}  # name index -> free index

    def start(self) -> list[float]:
        return [self.anchors[n] if f else self.center for n, f in zip(self.names, self.fixed, strict=True)]

    def log_posterior(self, r: Sequence[float]) -> float:
        total = 0.0
        for a, b, n, s in self.pairs:
            d = r[a] - r[b]
            if s > 0:
                total += s * _log_expected(d)
            if n - s > 0:
                total += (n - s) * _log_expected(-d)
        for i in self.free:
            total -= 0.5 * self.precision * (r[i] - self.center) ** 2
        return total

    def gradient_and_weights(self, r: Sequence[float]) -> tuple[list[float], list[float], list[float]]:
        """The log posterior's gradient over all names, the information's diagonal, and each
        pair's weight ``C² n p (1-p)`` (the off-diagonal information is minus it)."""
        grad = [0.0] * len(self.names)
        diag = [0.0] * len(self.names)
        weights = []
        for a, b, n, s in self.pairs:
            p = expected(r[a] - r[b])
            g = C * (s - n * p)
            w = C * C * n * p * (1.0 - p)
            grad[a] += g
            grad[b] -= g
            diag[a] += w
            diag[b] += w
            weights.append(w)
        for i in self.free:
            grad[i] -= self.precision * (r[i] - self.center)
            diag[i] += self.precision
        return grad, diag, weights

    def information(self, diag: Sequence[float], weights: Sequence[float]) -> list[list[float]]:
        """The information matrix (minus the Hessian) over the free names."""
        m = len(self.free)
        h = [[0.0] * m for _row in range(m)]
        for k, i in enumerate(self.free):
            h[k][k] = diag[i]
        for (a, b, _n, _s), w in zip(self.pairs, weights, strict=True):
            ka, kb = self.slot.get(a), self.slot.get(b)
            if ka is not None and kb is not None:
                h[ka][kb] -= w
                h[kb][ka] -= w
        return h


def _cholesky(h: list[list[float]]) -> list[list[float]]:
    """The lower factor L of a positive definite ``h`` (``h = L Lᵀ``)."""
    m = len(h)
    low = [[0.0] * m for _row in range(m)]
    for i in range(m):
        row_i = low[i]
        for j in range(i + 1):
            row_j = low[j]
            s = h[i][j] - sum(row_i[k] * row_j[k] for k in range(j))
            if i == j:
                row_i[i] = math.sqrt(max(s, 1e-300))
            else:
                row_i[j] = s / row_j[j]
    return low


def _solve(low: list[list[float]], rhs: Sequence[float]) -> list[float]:
    """``x`` with ``L Lᵀ x = rhs``."""
    m = len(low)
    y = [0.0] * m
    for i in range(m):
        y[i] = (rhs[i] - sum(low[i][k] * y[k] for k in range(i))) / low[i][i]
    x = [0.0] * m
    for i in reversed(range(m)):
        x[i] = (y[i] - sum(low[k][i] * x[k] for k in range(i + 1, m))) / low[i][i]
    return x


def _column_norms(low: list[list[float]]) -> list[float]:
    """The diagonal of ``(L Lᵀ)⁻¹``: the squared norms of the columns of ``L⁻¹`` (each found by
    forward substitution)."""
    m = len(low)
    norms = [0.0] * m
    for j in range(m):
        col = [0.0] * m
        col[j] = 1.0 / low[j][j]
        for i in range(j + 1, m):
            row = low[i]
            col[i] = -sum(row[k] * col[k] for k in range(j, i)) / row[i]
        norms[j] = sum(v * v for v in col[j:])
    return norms


def _newton(problem: _Problem, r: list[float]) -> list[float]:
    """The mode by Newton steps with a backtracking line search (the log posterior is concave);
    returns the sds of the free names from the inverse information at the mode."""
    current = problem.log_posterior(r)
    low: list[list[float]] = []
    for _step in range(MAX_ITERATIONS):
        grad, diag, weights = problem.gradient_and_weights(r)
        low = _cholesky(problem.information(diag, weights))
        step = _solve(low, [grad[i] for i in problem.free])
        t = 1.0
        while True:
            trial = list(r)
            for k, i in enumerate(problem.free):
                trial[i] = r[i] + t * step[k]
            value = problem.log_posterior(trial)
            if value >= current - 1e-12 * abs(current) or t < 1e-6:
                break
            t *= 0.5
        moved = max((abs(t * x) for x in step), default=0.0)
        r[:] = trial
        current = value
        if moved < TOLERANCE:
            break
    _grad, diag, weights = problem.gradient_and_weights(r)
    low = _cholesky(problem.information(diag, weights))
    return [math.sqrt(v) for v in _column_norms(low)]


def _sweeps(problem: _Problem, r: list[float]) -> list[float]:
    """The mode by coordinate Newton sweeps (each free name in turn, the others held); returns
    the sds from the information's diagonal at the mode."""
    around: list[list[tuple[int, float, float]]] = [[] for _name in problem.names]
    for a, b, n, s in problem.pairs:
        around[a].append((b, n, s))
        around[b].append((a, n, n - s))
    for _step in range(MAX_ITERATIONS):
        moved = 0.0
        for i in problem.free:
            ri = r[i]
            g = -problem.precision * (ri - problem.center)
            h = problem.precision
            for j, n, s in around[i]:
                p = expected(ri - r[j])
                g += C * (s - n * p)
                h += C * C * n * p * (1.0 - p)
            step = g / h
            # A cap on one coordinate's step keeps an early sweep from overshooting far out.
            step = max(-SCALE, min(SCALE, step))
            r[i] = ri + step
            moved = max(moved, abs(step))
        # The sweeps move the free names' common level slowly (only the prior and the games
        # against fixed names hold it): one Newton step along that direction each time.
        g, h = 0.0, 0.0
        for a, b, n, s in problem.pairs:
            if problem.fixed[a] != problem.fixed[b]:
                p = expected(r[a] - r[b])
                g += C * (s - n * p) * (1.0 if problem.fixed[b] else -1.0)
                h += C * C * n * p * (1.0 - p)
        for i in problem.free:
            g -= problem.precision * (r[i] - problem.center)
            h += problem.precision
        shift = max(-SCALE, min(SCALE, g / h))
        for i in problem.free:
            r[i] += shift
        moved = max(moved, abs(shift))
        if moved < TOLERANCE:
            break
    _grad, diag, _weights = problem.gradient_and_weights(r)
    return [1.0 / math.sqrt(diag[i]) for i in problem.free]


def fit(
    games: Sequence[tuple[str, str, float]],
    anchors: Mapping[str, float] | None = None,
    prior_sd: float = DEFAULT_PRIOR_SD,
    center: float | None = None,
) -> dict[str, Rating]:
    """The ratings of every name in ``games`` (``(a, b, score of a against b)``, the score from 0
    to 1: 1 a win, 0.5 a draw) and in ``anchors``, by name. Anchored names keep their values
    (sd 0); the others get the maximum a posteriori ratings under a normal prior of ``prior_sd``
    around the anchors' mean (or :data:`CENTER` without anchors), with sds from the observed
    information. ``center``: the prior's centre when given (a rating), whatever the anchors are.
    Deterministic; no games gives every free name the prior. ValueError for a game that is not
    ``(name, name, score)`` with two different non-empty names and a finite score from 0 to 1,
    an anchor or a centre that is not a finite rating, or a ``prior_sd`` that is not a finite
    positive number."""
    if isinstance(games, str | bytes) or not isinstance(games, Sequence):
        raise ValueError(f"games must be a sequence of (name, name, score), not {games!r}")
    sd = _number(prior_sd, "prior_sd")
    if not 0.0 < sd <= RATING_LIMIT:
        raise ValueError(f"prior_sd must be a positive number of Elo points, not {prior_sd!r}")
    fixed: dict[str, float] = {}
    for name, value in (anchors or {}).items():
        fixed[_name(name, "an anchor's name")] = _rating_value(value, f"anchor {name!r}")
    middle = None if center is None else _rating_value(center, "the prior's centre")
    problem = _Problem(games, fixed, sd, middle)
    r = problem.start()
    sds = _newton(problem, r) if len(problem.free) <= DENSE_MAX else _sweeps(problem, r)
    sd_of = dict(zip(problem.free, sds, strict=True))
    return {name: Rating(name, r[i], 0.0 if problem.fixed[i] else sd_of[i]) for i, name in enumerate(problem.names)}


# -------------------------------------------------------------------------------- the people
def people_ratings(
    vs_ai: Sequence[tuple[str, str, float]],
    between: Sequence[tuple[str, str, float]],
    anchors: Mapping[str, Rating],
    held: Mapping[str, Rating] | None = None,
) -> dict[str, Rating]:
    """Every person's rating on the AIs' scale, fitted together: ``vs_ai`` holds ``(person, AI
    kind, the person's score)`` and ``between`` ``(person, other person, the first one's score)``
    (a match between two humans moves both); every AI kind is fixed at its anchor's value and the
    prior (:data:`DEFAULT_PRIOR_SD`) is around the anchors' mean. Games against a kind not in
    ``anchors`` are skipped (a person with no other game keeps the prior). Each sd adds the
    anchors' own uncertainty to the fit's (to first order, through the person's own games
    against each kind). By person, in the order they first appear. ``held``: people whose
    ratings stay as given (by name): a game against one counts as a game against an anchor, a
    game between two of them is skipped, and they are not in the result (the others are fitted
    with them held: one step of the fit of everyone, for a server that updates the people of one
    match). ValueError for a bad game or anchor."""
    for what, games in (("vs_ai", vs_ai), ("between", between)):
        if isinstance(games, str | bytes) or not isinstance(games, Sequence):
            raise ValueError(f"{what} must be a sequence of (name, name, score), not {games!r}")
    values = {name: _rating_value(a.value, f"anchor {name!r}") for name, a in anchors.items()}
    center = sum(values.values()) / len(values) if values else CENTER
    fixed: dict[str, Rating] = dict(anchors)
    for name, r in (held or {}).items():
        values[PERSON + name] = _rating_value(r.value, f"held person {name!r}")
        fixed[PERSON + name] = r
    people: dict[str, None] = {}
    rows: list[tuple[str, str, float]] = []
    mine: dict[str, list[str]] = {}  # each person's games against fixed names (kinds, held people)
    for k, game in enumerate(vs_ai):
        person, kind = _two_names(game, k, "person", "opponent kind")
        if PERSON + person in fixed:  # a held person's game moves no one
            _score(game[2], f"game {k}'s score")
            continue
        people.setdefault(person)
        if kind in anchors:
            rows.append((PERSON + person, kind, game[2]))
            mine.setdefault(person, []).append(kind)
        else:  # still a game to check: a bad score is refused even against an unknown kind
            _score(game[2], f"game {k}'s score")
    for k, game in enumerate(between):
        a, b = _two_names(game, k, "first person", "second person")
        a_held, b_held = PERSON + a in fixed, PERSON + b in fixed
        if a_held and b_held:
            _score(game[2], f"game {k}'s score")
            continue
        for person, other, is_held in ((a, b, b_held), (b, a, a_held)):
            if PERSON + person not in fixed:
                people.setdefault(person)
                if is_held:
                    mine.setdefault(person, []).append(PERSON + other)
        rows.append((PERSON + a, PERSON + b, game[2]))
    fitted = fit(rows, values, center=center)
    out: dict[str, Rating] = {}
    for person in people:
        got = fitted.get(PERSON + person)
        if got is None:  # no games against a rated kind or a person: the prior
            out[person] = Rating(person, center, DEFAULT_PRIOR_SD)
            continue
        # First order: dR/dR_k = w_k / I, with w_k the information the games against k carry.
        info = 1.0 / (got.sd * got.sd)
        per_kind: dict[str, float] = {}
        for kind in mine.get(person, ()):
            p = expected(got.value - values[kind])
            per_kind[kind] = per_kind.get(kind, 0.0) + C * C * p * (1.0 - p)
        extra = 0.0
        for kind, w in per_kind.items():
            sd_k = _number(fixed[kind].sd, f"anchor {kind.removeprefix(PERSON)!r}'s sd")
            extra += (w / info * sd_k) ** 2
        out[person] = Rating(person, got.value, math.sqrt(got.sd * got.sd + extra))
    return out


def _two_names(game: object, k: int, first: str, second: str) -> tuple[str, str]:
    """The two names of game ``k``, ``(first, second, score)``; ValueError naming what is wrong."""
    if not isinstance(game, tuple | list) or len(game) != 3:
        raise ValueError(f"game {k} must be ({first}, {second}, score), not {game!r}")
    return _name(game[0], f"game {k}'s {first}"), _name(game[1], f"game {k}'s {second}")


def player_rating(games: Sequence[tuple[str, float]], anchors: Mapping[str, Rating]) -> Rating:
    """The player's rating from ``games``: ``(opponent kind, player's score)`` pairs from all the
    player's matches (a four-seat match gives three): :func:`people_ratings` of one person who
    played only AIs. The result is named ``"player"``. ValueError for a bad game or anchor."""
    if isinstance(games, str | bytes) or not isinstance(games, Sequence):
        raise ValueError(f"games must be a sequence of (opponent kind, score), not {games!r}")
    rows: list[tuple[str, str, float]] = []
    for k, game in enumerate(games):
        if not isinstance(game, tuple | list) or len(game) != 2:
            raise ValueError(f"game {k} must be (opponent kind, score), not {game!r}")
        rows.append(("player", game[0], game[1]))
    rated = people_ratings(rows, [], anchors).get("player")
    if rated is None:  # no games at all: the prior
        values = [_rating_value(a.value, f"anchor {name!r}") for name, a in anchors.items()]
        return Rating("player", sum(values) / len(values) if values else CENTER, DEFAULT_PRIOR_SD)
    return rated


def standing_words(r: Rating, anchors: Mapping[str, Rating]) -> str:
    """Where ``r`` stands among the anchors, in a few words: ``"between lookahead (1180) and
    expert (1290)"``, ``"above expert (1290)"``, ``"below random (640)"``, ``"level with greedy
    (1000)"`` (when both round to the same whole number)."""
    value = _number(r.value, "the rating")
    if not anchors:
        return _("no AI ratings to compare with")
    ladder = sorted(((_number(a.value, f"anchor {n!r}"), n) for n, a in anchors.items()), key=lambda t: (t[0], t[1]))

    def label(v: float, n: str) -> str:
        shown, rating = kind_shown(n), f"{v:.0f}"
        both = f" ({n})"
        if shown.endswith(both):  # its name in the language and as typed
            # Translators: an AI kind, its name in the language and as typed, and its rating:
            # "Lungimirante (lookahead, 1180)".
            return _("{title} ({kind}, {rating})").format(title=shown.removesuffix(both), kind=n, rating=rating)
        # Translators: an AI kind (its name in the language) and its rating.
        return _("{kind} ({rating})").format(kind=shown, rating=rating)

    mine = round(value)
    level = [label(v, n) for v, n in ladder if round(v) == mine]
    if level:
        # Translators: {kinds} are AI kinds with their ratings, joined by " and ".
        # Translators: what joins two or more AI kinds in "level with A and B".
        joined = _(" and ").join(level)
        return _("level with {kinds}").format(kinds=joined)
    if value < ladder[0][0]:
        return _("below {kind}").format(kind=label(*ladder[0]))
    if value > ladder[-1][0]:
        return _("above {kind}").format(kind=label(*ladder[-1]))
    for (v0, n0), (v1, n1) in itertools.pairwise(ladder):
        if v0 < value < v1:
            return _("between {lower} and {upper}").format(lower=label(v0, n0), upper=label(v1, n1))
    raise AssertionError("unreachable: the rating is inside the ladder")  # pragma: no cover


def describe(r: Rating, anchors: Mapping[str, Rating]) -> str:
    """The rating, its sd and where it stands, for a screen: ``"1215 ± 60: between lookahead
    (1180) and expert (1290)"``."""
    sd = _number(r.sd, "the rating's sd")
    # Translators: {value} ± {sd} is a rating, {words} where it stands among the AI players.
    return _("{value} ± {sd}: {words}").format(value=f"{r.value:.0f}", sd=f"{sd:.0f}", words=standing_words(r, anchors))


# ------------------------------------------------------------------------------ package data
def parse_ai_ratings(doc: Any) -> dict[str, Rating]:
    """The ratings of an ``ai_ratings.json`` document; ValueError saying what is wrong."""
    if not isinstance(doc, dict) or doc.get("scale") != "elo" or not isinstance(doc.get("ratings"), dict):
        raise ValueError(f"{AI_RATINGS_FILE} must be an object with scale 'elo' and ratings by kind")
    out: dict[str, Rating] = {}
    for kind, entry in doc["ratings"].items():
        if not isinstance(entry, dict):
            raise ValueError(f"{AI_RATINGS_FILE}: the rating of {kind!r} must be an object with value and sd")
        value = _rating_value(entry.get("value"), f"{AI_RATINGS_FILE}: {kind!r}'s value")
        sd = _number(entry.get("sd"), f"{AI_RATINGS_FILE}: {kind!r}'s sd")
        if sd < 0:
            raise ValueError(f"{AI_RATINGS_FILE}: {kind!r}'s sd must not be negative, not {sd!r}")
        out[_name(kind, f"{AI_RATINGS_FILE}: a kind")] = Rating(kind, value, sd)
    if not out:
        raise ValueError(f"{AI_RATINGS_FILE} rates no AI kind")
    return out


def read_ai_ratings(text: str) -> dict[str, Rating]:
    """The ratings of the text of an ``ai_ratings.json`` file, read as strict JSON (each key
    once, every number finite); ValueError saying what is wrong, in one line."""
    try:
        doc = strict_json(text)
    except JSONError as exc:
        raise ValueError(f"{AI_RATINGS_FILE}: {exc}") from None
    return parse_ai_ratings(doc)


@cache
def _shipped() -> tuple[Rating, ...]:
    text = resources.files("kc_tui.data").joinpath(AI_RATINGS_FILE).read_text(encoding="utf-8")
    return tuple(read_ai_ratings(text).values())


def ai_anchors() -> dict[str, Rating]:
    """The AI kinds' ratings shipped in ``kc_tui/data/ai_ratings.json`` (made by
    ``tools/ai_ratings.py``), by kind. ValueError if the file is not a valid ratings file,
    OSError if it cannot be read."""
    return {r.name: r for r in _shipped()}
