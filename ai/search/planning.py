"""The planning core of the AIs, and the base class of the AIs that plan their whole turn.

The AIs search many positions a turn, so they never simulate on a real
:class:`~kc_tui.engine.Round` (its ``apply`` checks every move and keeps a history). They work
on a *simulated state* instead: the hand as a card mask and the eight piles as a tuple of
tuples of cards, in the engine's encodings (:mod:`kc_tui.engine.cards`,
:mod:`kc_tui.engine.moves`), with the engine's :func:`~kc_tui.engine.generate_moves` for the
legal moves. This module offers:

* the simulated state: :class:`Rulebits` (the rule settings a simulation needs) and
  :func:`sim_apply` (one move, R12 included);
* greedy's priorities: :func:`greedy_move` (:func:`greedy_choice` in a view) and :func:`greedy_turn`;
* playouts: :func:`play_plan` (a turn's plan on a round), :func:`greedy_playout` (a round
  played to its end by greedy players) and the choice among plans scored on the same deals,
  :func:`paired` and :func:`pick`;
* turn enumeration: :func:`enumerate_turn`, every distinct end-of-turn position reachable in one
  turn with a path of moves to it (:func:`distinct_moves` merges symmetric empty places);
* evaluation: :func:`static_eval` (weights :class:`EvalParams`) and king-aware's
  :func:`rank_ends` (thresholds :class:`HoldParams`), with :func:`open_mask`;
* helpers on a :class:`~kc_tui.engine.PlayerView`: :func:`view_seed`, :func:`opponents`;
* :class:`PlanningAI`, the base class of the AIs that plan the turn at its first move and then
  play the plan one move at a time.

Everything but :class:`PlanningAI` is a pure function of its arguments, so several AIs can use
it at once.
"""

from __future__ import annotations

import time
from abc import abstractmethod
from dataclasses import dataclass
from typing import Any

from ai.base import AIPlayer
from ai.search.stakes import Stakes
from kc_tui.engine import CORNERS, END, KINGS_MASK, QUEENS_MASK, SIDES, Move, PlayerView, Round, generate_moves
from kc_tui.engine.cards import NEED
from kc_tui.engine.moves import MOVE_BASE
from kc_tui.engine.rules import OutWithOpenSide
from kc_tui.engine.state import PILE_FULL, Pile

PileTuple = tuple[Pile, ...]
Piles = list[Pile] | tuple[Pile, ...]
#: One end-of-turn position: (hand mask, piles).
State = tuple[int, PileTuple]
#: The kings and queens: the cards king-aware holds while it is safe.
KQ_MASK = KINGS_MASK | QUEENS_MASK
#: The engine numbers the sides first (``SIDES``), then the corners: a place ``>= N_SIDES`` is a corner.
N_SIDES = len(SIDES)


class Rulebits:
    """The rule settings a simulation needs, read once from a view."""

    __slots__ = ("closed", "draw3", "kos")

    def __init__(self, view: PlayerView) -> None:
        rules = view.rules
        self.kos = rules.kings_on_sides_allowed
        self.closed = rules.completed_piles_stay
        self.draw3 = rules.out_with_open_side == OutWithOpenSide.DRAW3


def sim_apply(hand: int, piles: Piles, m: Move, closed: bool) -> tuple[int, PileTuple]:
    """The hand and piles after legal move ``m`` (a completed pile leaves when not ``closed``)."""
    # Moves are decoded inline in the engine's layout (kc_tui.engine.moves): a play is
    # ``card * 8 + place``, a pile move ``MOVE_BASE + src * 8 + dst``.
    p = list(piles)
    d = m & 7
    if m < MOVE_BASE:
        c = m >> 3
        hand ^= 1 << c
        p[d] = p[d] + (c,)
    else:
        s = (m - MOVE_BASE) >> 3
        p[d] = p[d] + p[s]
        p[s] = ()
    # R12 to_stock: a completed pile leaves the table. The engine does this inside
    # Round.apply (with its checks, history and the stock's reshuffle), which has no form on a
    # bare hand mask and pile tuple; this fast copy is tested against it
    # (tests/ai/test_planning.py).
    if not closed and len(p[d]) == PILE_FULL:
        p[d] = ()
    return hand, tuple(p)


def distinct_moves(hand: int, piles: Piles, kos: bool, closed: bool) -> list[Move]:
    """The legal moves except ``END``, with symmetric ones removed: all empty sides are alike and
    all empty corners are alike, so only the first of each is used."""
    first_side = first_corner = -1
    for p in SIDES:
        if not piles[p]:
            first_side = p
            break
    for p in CORNERS:
        if not piles[p]:
            first_corner = p
            break
    out: list[Move] = []
    for m in generate_moves(hand, piles, kos, closed):
        if m == END:
            break
        d = m & 7
        if not piles[d] and d != first_side and d != first_corner:
            continue
        out.append(m)
    return out


def greedy_key(m: Move, piles: Piles) -> int:
    """The greedy priority of a move: kings to corners, then pile moves (they open a side), then
    the highest card that fits a pile, then the highest card onto an empty side."""
    if m >= MOVE_BASE:
        return 300 + ((m - MOVE_BASE) >> 3)
    c, d = m >> 3, m & 7
    if piles[d]:
        return 200 + c
    if d >= N_SIDES:
        return 400 + c
    return 100 + c


def greedy_move(hand: int, piles: Piles, kos: bool, closed: bool) -> Move:
    """The greedy choice among the legal moves (``END`` when nothing can be played)."""
    best = END
    best_key = -1
    for m in generate_moves(hand, piles, kos, closed):
        if m == END:
            break
        k = greedy_key(m, piles)
        if k > best_key:
            best, best_key = m, k
    return best


def greedy_choice(view: PlayerView) -> Move:
    """Greedy's move in ``view`` (:func:`greedy_move` under the view's rules)."""
    rules = view.rules
    return greedy_move(view.hand_mask, view.piles, rules.kings_on_sides_allowed, rules.completed_piles_stay)


def greedy_turn(hand: int, piles: Piles, kos: bool, closed: bool, limit: int = 64) -> tuple[Move, ...]:
    """The moves greedy makes in one turn (until it has nothing to play or goes out)."""
    path: list[Move] = []
    p = tuple(piles)
    while hand and len(path) < limit:
        m = greedy_move(hand, p, kos, closed)
        if m == END:
            break
        path.append(m)
        hand, p = sim_apply(hand, p, m, closed)
    return tuple(path)


#: The most turns a playout plays before it gives up on the round (a guard; rounds end sooner).
ROLLOUT_TURN_LIMIT = 400


def play_plan(r: Round, path: tuple[Move, ...]) -> None:
    """Play the turn plan ``path`` on ``r`` and end the turn (unless the round ends first)."""
    for m in path:
        r.apply(m)
        if r.over:
            return
    r.apply(END)


def greedy_playout(r: Round, bits: Rulebits) -> None:
    """Play ``r`` to the end of the round (at most :data:`ROLLOUT_TURN_LIMIT` turns), every
    player by greedy's priorities on its own cards; the engine applies every rule (draws, R12,
    R14) along the way."""
    turns = 0
    while not r.over and turns < ROLLOUT_TURN_LIMIT:
        play_greedy_turn(r, bits)
        turns += 1


def play_greedy_turn(r: Round, bits: Rulebits) -> None:
    """The player to move plays one turn on ``r`` by greedy's priorities on its own cards, and
    ends it (unless the round ends first)."""
    seat = r.to_move
    while True:
        m = greedy_move(r.hands[seat], r.piles, bits.kos, bits.closed)
        r.apply(m)
        if m == END or r.over:
            return


def paired(a: list[float], b: list[float]) -> tuple[float, float]:
    """Mean and standard error of the paired differences ``a - b`` (at least two pairs)."""
    n = len(a)
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return mean, (var / n) ** 0.5


def pick(values: list[list[float]], margin: float) -> int:
    """Which of several plans scored on the same deals (``values[k]``: plan ``k``'s value on
    each deal) to play: the favourite (index 0) unless another beats it by more than ``margin``
    standard errors of the paired difference (then the best such plan)."""
    best, best_gain = 0, 0.0
    if len(values[0]) < 2:
        return 0
    for k in range(1, len(values)):
        mean, se = paired(values[k], values[0])
        if mean > best_gain and mean > margin * se:
            best, best_gain = k, mean
    return best


def enumerate_turn(
    hand: int, piles: Piles, kos: bool, closed: bool, node_limit: int, deadline: float | None = None
) -> dict[State, tuple[Move, ...]]:
    """Every distinct end-of-turn position reachable this turn (up to ``node_limit`` of them),
    each with the shortest-found path of moves to it. A depth-first search with a transposition
    set on (hand, piles). The greedy line is always included, so no plan is worse than greedy's.
    With a ``deadline`` (a ``time.perf_counter()`` value) the search also stops at that time."""
    start: State = (hand, tuple(piles))
    seen: dict[State, tuple[Move, ...]] = {start: ()}
    # The greedy line first, so it is present even when the node budget runs out.
    h, p = start
    path: tuple[Move, ...] = ()
    for m in greedy_turn(hand, piles, kos, closed):
        h, p = sim_apply(h, p, m, closed)
        path = (*path, m)
        seen.setdefault((h, p), path)
    stack: list[tuple[int, PileTuple, tuple[Move, ...]]] = [(start[0], start[1], ())]
    expanded = 0
    while stack and len(seen) < node_limit:
        expanded += 1
        if deadline is not None and not expanded & 31 and time.perf_counter() > deadline:
            break
        h, p, path = stack.pop()
        if not h:
            continue  # out: the round is over (or draw3 deals unknown cards)
        for m in distinct_moves(h, p, kos, closed):
            h2, p2 = sim_apply(h, p, m, closed)
            key = (h2, p2)
            if key in seen:
                continue
            np = (*path, m)
            seen[key] = np
            stack.append((h2, p2, np))
    return seen


def open_mask(piles: Piles) -> tuple[int, int, int]:
    """(mask of cards that fit some top, number of empty sides, number of empty corners)."""
    fit = 0
    es = ec = 0
    for i, pile in enumerate(piles):
        if pile:
            fit |= NEED[pile[-1]]
        elif i < N_SIDES:
            es += 1
        else:
            ec += 1
    return fit, es, ec


class EvalParams:
    """Weights of the static evaluation of an end-of-turn position."""

    __slots__ = ("danger", "king", "open", "side")

    def __init__(self, open: float = 3.0, side: float = 8.0, king: float = 1.0, danger: float = 4.0) -> None:
        self.open = open  # per expected card an opponent can shed on what we leave
        self.side = side  # per empty side left open
        self.king = king  # extra cost of a king kept in hand (besides being a card)
        self.danger = danger  # how much more an opponent close to going out weighs


#: The score of a position where the player is out and the round over (it has won).
WIN = 1_000_000.0


def static_eval(
    hand: int,
    piles: Piles,
    unseen: int,
    opp_sizes: list[int],
    stock: int,
    bits: Rulebits,
    w: EvalParams,
) -> float:
    """Higher is better for the player who ends the turn here. ``unseen`` holds the cards in
    other hands and the stock; ``opp_sizes`` the opponents' hand sizes in turn order."""
    fit, es, ec = open_mask(piles)
    if not hand:
        if not (bits.draw3 and stock and es):
            return WIN
        cards = min(3, stock)
        kings = 0
    else:
        cards = hand.bit_count()
        kings = (hand & KINGS_MASK).bit_count()
    score = -10.0 * cards - w.king * kings
    n_unseen = unseen.bit_count() or 1
    direct = (fit & unseen).bit_count()
    corner_kings = (unseen & KINGS_MASK).bit_count() if ec else 0
    decay = 1.0
    for size in opp_sizes:
        p = min(1.0, (size + 1) / n_unseen)
        expected = direct * p + min(ec, corner_kings) * p
        danger = 1.0 + w.danger / max(1, size)
        score -= decay * danger * (w.open * expected + (w.side * es if size else 0.0))
        decay *= 0.5
    return score


def view_seed(seed: int, view: PlayerView) -> int:
    """A per-turn seed from the AI's seed and the view's contents (never the clock)."""
    x = (seed * 0x9E3779B1 + view.hand_mask * 0x85EBCA77 + len(view.history) * 0xC2B2AE3D) & ((1 << 64) - 1)
    for pile in view.piles:
        x = (x * 1_000_003 + (pile[-1] + 1 if pile else 0) + 64 * len(pile)) & ((1 << 64) - 1)
    return x


def deal_seed(base: int, i: int) -> int:
    """The seed of deal ``i`` of a turn's search from the turn's seed ``base`` (:func:`view_seed`):
    the deals step by the 64-bit golden ratio."""
    return (base + i * 0x9E3779B97F4A7C15) & ((1 << 63) - 1)


def opponents(view: PlayerView) -> list[int]:
    """The other seats in turn order, the next player first."""
    return [(view.seat + k) % view.n_players for k in range(1, view.n_players)]


@dataclass(frozen=True, slots=True)
class HoldParams:
    """King-aware's hoarding thresholds (see :class:`ai.players.king_aware.KingAwareAI`, whose
    settings they are, with these defaults)."""

    #: Kings and queens are let go once an opponent holds this many cards or fewer...
    release_hand: int = 1
    #: ...or the stock holds this many cards or fewer.
    release_stock: int = 0
    #: The cost (in tenths of a card) of playing a held king or queen too early.
    hold_cost: float = 50.0
    #: An opponent with this many cards or fewer is "close to going out".
    danger_size: int = 2
    #: Kings and queens are held only while the cost of a king held (``Stakes.king_cost``,
    #: in points) is below this, divided by the cube of the number of opponents.
    hold_risk: float = 1.0
    #: How much that cost weighs against the other terms of the evaluation.
    risk_weight: float = 1.0


#: The hoarding thresholds by default.
HOLD = HoldParams()


def rank_ends(
    ends: dict[State, tuple[Move, ...]],
    hand: int,
    unseen: int,
    sizes: list[int],
    stock: int,
    bits: Rulebits,
    w: EvalParams,
    hp: HoldParams,
    stakes: Stakes | None = None,
) -> list[tuple[float, tuple[Move, ...], State]]:
    """King-aware's scores of the end-of-turn positions ``ends`` of a turn begun with ``hand``,
    best first (among equals the shorter path, then the move numbers: deterministic).
    ``unseen`` holds the cards the player cannot see; ``sizes`` the opponents' hand sizes in turn
    order; ``stock`` the stock size. With ``stakes`` (the match around the round) every king
    kept costs what it risks in the match (:meth:`ai.search.stakes.Stakes.king_cost`), and kings and
    queens are held only while that cost is below ``hp.hold_risk``."""
    smallest = min(sizes) if sizes else 0
    holding = smallest > hp.release_hand and stock > hp.release_stock
    king_cost = 0.0
    if stakes is not None:
        # In the evaluation's units: a card is 10, about one penalty point.
        # A king's cost is its nine points over a card's one: the hand counted a point a card.
        cost = stakes.king_cost(hand.bit_count(), sizes)
        # What holding gains (the others kept from a corner) is shared among the opponents,
        # while the risk grows with each of them: heads-up a king is held while it risks less
        # than ``hold_risk`` points, with two opponents an eighth of that, with three a 27th
        # (measured against greedy at 2, 3 and 4 seats: holding pays heads-up, and at 3 or 4
        # seats only while hardly anything is at risk; see docs/AI.md).
        holding = holding and cost < hp.hold_risk / max(1, len(sizes)) ** 3
        king_cost = 10.0 * hp.risk_weight * cost
    close = smallest <= hp.danger_size
    unseen_kq = unseen & KQ_MASK
    held_kq = hand & KQ_MASK
    out: list[tuple[float, tuple[Move, ...], State]] = []
    for state, path in ends.items():
        h, piles = state
        score = static_eval(h, piles, unseen, sizes, stock, bits, w)
        if h:
            if king_cost:
                score -= king_cost * (h & KINGS_MASK).bit_count()
            if holding:
                # Each king or queen played now, while it is safe to hold, costs a little.
                score -= hp.hold_cost * (held_kq & ~h).bit_count()
            if close:
                fit, _es, ec = open_mask(piles)
                # A place where the near-out opponent can shed an unseen king or queen.
                score -= 15.0 * (fit & unseen_kq).bit_count()
                if ec and unseen & KINGS_MASK:
                    score -= 15.0
        out.append((score, path, state))
    out.sort(key=lambda t: (-t[0], len(t[1]), t[1]))
    return out


# ------------------------------------------------------------------ the planning AIs' base class

#: Where a planned move is expected: (history length, hand, piles).
PlanKey = tuple[int, int, PileTuple]


class PlanningAI(AIPlayer):
    """Plans the turn at its first move (``plan_turn``) and remembers the plan, keyed on the
    position each move is expected at (history length, hand, piles), so the next calls of the
    same turn answer at once. If the position is not the expected one (a drawn card, another
    player moved, a fallback move was played instead), it plans again. The memory is per
    instance, so several AIs can run in one process."""

    def __init__(self, seed: int = 0, **params: Any) -> None:
        super().__init__(seed, **params)
        self._plan: dict[PlanKey, Move] = {}

    def new_round(self) -> None:
        self._plan = {}

    @abstractmethod
    def plan_turn(self, view: PlayerView, legal: list[Move]) -> tuple[Move, ...]:
        """The moves to make this turn (``END`` excluded), each legal in turn."""

    def choose(self, view: PlayerView) -> Move:
        legal = view.legal_moves()
        if len(legal) <= 1:
            return END
        key: PlanKey = (len(view.history), view.hand_mask, view.piles)
        m = self._plan.get(key)
        if m is not None and m in legal:
            return m
        path = self.plan_turn(view, legal)
        closed = Rulebits(view).closed
        plan: dict[PlanKey, Move] = {}
        n, h, p = key
        for mv in path:
            plan[(n, h, p)] = mv
            h, p = sim_apply(h, p, mv, closed)
            n += 1
            if not h:
                break
        plan[(n, h, p)] = END
        self._plan = plan
        first = plan[key]
        return first if first in legal else END
