"""The review of a round against the expert: how much each of a player's turns lost, and why.

For each turn, the position at its start is seen as the player saw it (a
:class:`~kc_tui.engine.PlayerView`, never the full round) and the expert's search
(:class:`~ai.players.expert.ExpertAI`) is asked about it. Its candidate whole-turn plans (lookahead's best
few distinct end-of-turn positions), the plan the player played (when it is not among them) and
the played plan carried on as the planner would from where the player stopped, are each played
on the same determinized deals as the expert's own search deals them (common random numbers,
:func:`~kc_tui.engine.determinize` with the same seeds and inference), every deal to the end of
the round (:data:`REVIEW_EXPERT`), the others' turns and the player's later ones planned by the
expert's simulated king-aware players, and scored in the match's terms
(:class:`~ai.search.stakes.Stakes`: penalty points, one point of one's own worth -1 where the match
stands; chips in a chips match). The **best plan** is the one with the highest mean (among
equals: the played plan, then the one that starts as the played one did the longest). The
turn's **loss** is how much better the best plan does than the played one on the same deals,
measured held out (:func:`held_out_loss`: the best picked on half the deals and compared on the
other half, both ways round, so picking the best of several noisy means does not inflate it);
``loss_se`` is its standard error from the paired differences. A turn whose played plan is the
best loses 0.

The hint's plan for the turn (:meth:`ai.advice.hint.HintAI.turn_plan`, planned from the turn's
start with the hint's seed, as the game's hint planned it) is one of the candidates: a turn that
ends where it ends followed the hint and is ``good`` ("The hint's plan"), without any deal, so
the review never calls the game's own advice a mistake. Ends of turn that differ only in which
side or which corner holds a pile are one plan (:func:`canonical`). The better plan shown for a
marked turn is one whose paired difference to the played plan is beyond :data:`Z` standard
errors; when no plan's is, the turn is ``good`` whatever the held-out loss.

Marks (:data:`GOOD_LOSS`, :data:`MISTAKE_LOSS`, :data:`Z`), in points (or chips):

* ``good``: the loss is under half a point, or not significant (at most two standard errors);
* ``inaccuracy``: a significant loss under two points;
* ``mistake``: a significant loss of two points or more (e.g. keeping a king when going out was
  possible: ten points at risk).

A turn with a single possible plan (nothing to play, or only one end of turn) is ``good`` and
``forced`` without any deal.

Budget: at most :data:`DEFAULT_ITERATIONS` (40) deals a turn, a deterministic count (never the
clock, so a review does not depend on the machine's load), and fewer once the mark is settled:
from :data:`~ai.players.expert.SETTLE_FIRST` deals on, at the expert's checkpoints, the review stops
when no more deals could change the mark at two standard errors. Measured
(tests/benchmarks/bench_review.py, 300 turns of AI matches at two and three seats, two reviews
at once on two cores busy with other work, load 4): 1.35 s a turn on average, median 0.95 s,
at most 5.6 s; heads-up turns are the slow ones (1.7 s on average: longer rounds to play out),
three seats 0.5 s. On an idle core about half that. Calibration (the same benchmark): against
what the better plan really gained on 40 fresh deals played out by the table's own AIs, the
estimated loss is off by 1.4 points on average (mean absolute error; bias -0.04, of which the
re-measurement's own noise is about 0.5) on the 186 turns where a better plan is shown, 0.8
over all 300.

Everything here is pure (no globals, a new expert per turn), so it runs in a worker thread:
:func:`review_round` reports its progress and stops when asked. The hint's words
(:func:`ai.advice.hint.describe_plan`, :func:`ai.advice.hint.explain`) give each turn its ``why``.
:func:`round_turns` and :func:`match_turns` build the (view, plan) pairs from a recorded round
(trusted code: they replay the round, and hand the review only the player's views).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ai.advice.hint import HintAI, cards_words, describe_plan, explain, plan_states, view_after
from ai.players.expert import SETTLE_FIRST, ExpertAI, next_check
from ai.search.planning import N_SIDES, Rulebits, State, deal_seed, paired, sim_apply, view_seed
from ai.search.stakes import Stakes
from kc_tui.engine import (
    END,
    Card,
    Match,
    Move,
    PlayerView,
    Round,
    Rules,
    card_symbol,
    determinize,
    generate_moves,
    penalty_of,
)
from kc_tui.i18n import _, ngettext, number

CardFormat = Callable[[Card], str]

#: A loss under this (points, or chips) is ``good``.
GOOD_LOSS = 0.5
#: A significant loss of this much or more is a ``mistake`` (between the two: an ``inaccuracy``).
MISTAKE_LOSS = 2.0
#: How many standard errors make a loss significant.
Z = 2.0
#: The most deals a turn is reviewed on (the default budget).
DEFAULT_ITERATIONS = 40
#: The expert's settings for the review: every deal is played to the end of the round (at every
#: table size; the game's expert scores heads-up deals after one reply with its leaf model,
#: which overstated the losses against real play: tests/benchmarks/bench_review.py), and its
#: five best candidates (with the hint's plan, the played plan and the played plan carried on: eight
#: at most).
REVIEW_EXPERT: dict[str, Any] = {"horizon": 0, "candidates": 5}
#: The better plan is named in ``why`` up to this many moves (the rest are counted; ``best_text``
#: and ``best_plan`` hold them all).
WHY_MOVES = 3
MARKS = ("good", "inaccuracy", "mistake")


@dataclass(frozen=True, slots=True)
class TurnReview:
    """One turn of the player's, against the expert."""

    #: The turn's position in the list given to :func:`review_round` (0 for :func:`review_turn`).
    index: int
    #: The round seat that played it.
    seat: int
    #: The plan played (``END`` excluded, up to going out).
    played_plan: tuple[Move, ...]
    #: The best plan found (the played one when nothing beats it).
    best_plan: tuple[Move, ...]
    #: The best plan's mean value minus the played plan's, on the same deals (>= 0).
    loss: float
    #: The standard error of ``loss`` (paired differences).
    loss_se: float
    #: ``good``, ``inaccuracy`` or ``mistake`` (see the module's description).
    mark: str
    #: What ``loss`` counts: ``points`` (penalty points) or ``chips``.
    unit: str
    #: Why, in words: the better plan and its reason, or that the turn was as good.
    why: str
    #: The best plan in words ("play 5♦ on 6♠ at N, then ...").
    best_text: str
    #: The played plan in words.
    played_text: str
    #: Deals the plans were compared on (0 when forced).
    deals: int
    #: How many plans were compared.
    plans: int
    #: Whether there was only one plan to play.
    forced: bool

    @property
    def better_plan_exists(self) -> bool:
        """Whether a plan other than the one played is shown as better (the turn is marked)."""
        return self.mark != "good"

    @property
    def loss_text(self) -> str:
        """The loss with its uncertainty: "6.2 ± 1.1 points"."""
        loss, se = number(self.loss, 1), number(self.loss_se, 1)
        # Translators: a loss and its standard error, "6.2 ± 1.1 points".
        if self.unit == "chips":
            return _("{loss} ± {se} chips").format(loss=loss, se=se)
        return _("{loss} ± {se} points").format(loss=loss, se=se)


@dataclass(frozen=True, slots=True)
class RoundReview:
    """The reviews of a round's turns, in order, and the summary line."""

    turns: tuple[TurnReview, ...]
    #: How many turns were asked for (more than ``len(turns)`` when cancelled).
    total: int
    cancelled: bool
    summary: str

    @property
    def mistakes(self) -> int:
        return sum(t.mark == "mistake" for t in self.turns)

    @property
    def inaccuracies(self) -> int:
        return sum(t.mark == "inaccuracy" for t in self.turns)

    @property
    def lost(self) -> float:
        """The losses of the marked turns (inaccuracies and mistakes) added up."""
        return sum(t.loss for t in self.turns if t.mark != "good")


def mark_of(loss: float, se: float) -> str:
    """The mark of a turn that lost ``loss`` with standard error ``se`` (module's description)."""
    if loss < GOOD_LOSS or loss <= Z * se:
        return "good"
    return "inaccuracy" if loss < MISTAKE_LOSS else "mistake"


def _settled(values: list[list[float]], played: int) -> bool:
    """Whether more deals could hardly change the mark: every plan is within half a point of
    the played one even at its upper bound (``good``), or the loss is significantly within one
    mark's range."""
    worst_upper = 0.0
    best, best_mean, best_se = played, 0.0, 0.0
    for k in range(len(values)):
        if k == played:
            continue
        mean, se = paired(values[k], values[played])
        worst_upper = max(worst_upper, mean + Z * se)
        if mean > best_mean:
            best, best_mean, best_se = k, mean, se
    if worst_upper < GOOD_LOSS:
        return True
    if best == played:
        return False
    low, high = best_mean - Z * best_se, best_mean + Z * best_se
    if low >= MISTAKE_LOSS:
        return True
    return low >= GOOD_LOSS and high < MISTAKE_LOSS


class _Reviewer(ExpertAI):
    """The expert, scoring given plans on its own deals (not a kind: not registered)."""

    def values(
        self, view: PlayerView, plans: list[tuple[Move, ...]], played: int, iterations: int
    ) -> list[list[float]]:
        """Every plan's value on each deal (plan x deal), the same deals for all; at most
        ``iterations`` deals, fewer once the mark is settled."""
        bits = Rulebits(view)
        base = view_seed(self.seed, view)
        allowed = self.allowed(view)
        horizon = self.horizon_for(view.n_players)
        stakes = Stakes.of(view)
        self._seat_stakes = [stakes.for_seat(s) for s in range(view.n_players)]
        values: list[list[float]] = [[] for _plan in plans]
        check = SETTLE_FIRST
        for it in range(iterations):
            if it >= check:
                if _settled(values, played):
                    break
                check = next_check(check)
            deal = determinize(view, deal_seed(base, it), allowed)
            for k, path in enumerate(plans):
                values[k].append(self._playout(deal.clone(), view.seat, path, bits, horizon, stakes))
        return values


def held_out_loss(values: list[list[float]], played: int) -> tuple[float, float]:
    """The loss of the played plan and its standard error, free of the bias of picking the best
    of several noisy means: the deals are split in two halves (even and odd), the best plan is
    picked on one half and its paired difference to the played plan measured on the other, both
    ways round; the mean and standard error of those differences."""
    n = len(values[0])
    diffs: list[float] = []
    for pick, other in ((range(0, n, 2), range(1, n, 2)), (range(1, n, 2), range(0, n, 2))):
        b = max(range(len(values)), key=lambda k: (sum(values[k][i] for i in pick), k == played))
        diffs += [values[b][i] - values[played][i] for i in other]
    m = len(diffs)
    mean = sum(diffs) / m
    var = sum((d - mean) ** 2 for d in diffs) / (m - 1) if m > 1 else 0.0
    return mean, (var / m) ** 0.5


def played_moves(view: PlayerView, plan: Sequence[Move]) -> tuple[Move, ...]:
    """``plan`` as reviewed: ``END`` dropped, cut where the hand empties (what follows a draw of
    three cards is a new decision), every move checked legal from ``view``. ValueError if not."""
    bits = Rulebits(view)
    h, p = view.hand_mask, tuple(view.piles)
    out: list[Move] = []
    for m in plan:
        if m == END:
            break
        if m not in generate_moves(h, p, bits.kos, bits.closed):
            raise ValueError(f"move {len(out) + 1} of the played plan is not legal from the view")
        out.append(m)
        h, p = sim_apply(h, p, m, bits.closed)
        if not h:
            break
    return tuple(out)


def canonical(state: State) -> State:
    """An end of turn as the game sees it: the sides are alike and so are the corners (no rule
    tells one from another), so two positions that differ only in which side or which corner
    holds a pile are the same end of turn."""
    h, piles = state
    return h, (*sorted(piles[:N_SIDES]), *sorted(piles[N_SIDES:]))


def review_turn(
    view: PlayerView,
    played_plan: Sequence[Move],
    *,
    iterations: int = DEFAULT_ITERATIONS,
    seed: int = 0,
    fmt: CardFormat = card_symbol,
    index: int = 0,
    expert: dict[str, Any] | None = None,
    hint_seed: int | None = None,
) -> TurnReview:
    """The review of one turn: ``view`` is the player's view at the start of the turn (its turn,
    after its draw), ``played_plan`` the moves it made (``END`` may end it). At most
    ``iterations`` deals (deterministic for a given ``seed``); ``fmt`` writes the cards;
    ``expert`` overrides the expert's settings (e.g. ``{"candidates": 4}``); ``hint_seed`` is
    the seed of the hint the player was offered (:class:`~ai.advice.hint.HintAI`; None:
    ``seed``). ValueError when it is not the view's turn or the plan is not legal from it."""
    if not view.my_turn:
        raise ValueError("a turn is reviewed from the player's view at its start, on its turn")
    if iterations < 2:
        raise ValueError("iterations must be at least 2")
    played = played_moves(view, played_plan)
    reviewer = _Reviewer(seed, iterations=iterations, **{**REVIEW_EXPERT, **(expert or {})})
    plans: list[tuple[Move, ...]] = []
    ends: dict[State, int] = {}

    def add(path: tuple[Move, ...], name: bool = False) -> int:
        """``path``'s place among the plans (a new one, or the one with its end of turn: then
        named as ``path`` when ``name``)."""
        state = canonical(plan_states(view, path)[-1])
        k = ends.get(state)
        if k is None:
            k = ends[state] = len(plans)
            plans.append(path)
        elif name:
            plans[k] = path
        return k

    for _score, path, _state in reviewer.ranked_plans(view)[: reviewer.candidates]:
        add(path)
    hint_plan = played_moves(view, HintAI(seed if hint_seed is None else hint_seed).turn_plan(view))
    h = add(hint_plan)
    p = add(played, name=True)  # the same end of turn as a candidate's: shown as played
    h_end, piles_end = plan_states(view, played)[-1]
    if played and h_end:
        # What was played, then carried on as the expert's planner would from there: often the
        # better plan closest to the player's (e.g. stopping one card short of going out).
        after = view_after(view, played, h_end, piles_end)
        rest = reviewer.ranked_plans(after)[0][1]
        if rest:
            add((*played, *rest), name=True)  # the same end of turn, named the player's way
    unit = "chips" if Stakes.of(view).chips else "points"
    played_text = describe_plan(view, played, fmt)
    if len(plans) == 1:
        why = _("Nothing to play: the only way to end the turn") if not played else _("The only plan there was")
        return TurnReview(
            index, view.seat, played, played, 0.0, 0.0, "good", unit, why, played_text, played_text, 0, 1, True
        )
    if p == h:
        # The game's own advice for the turn, followed: never marked.
        # Translators: {reason} is why the plan is played, in whole sentences.
        why = _("The hint's plan. {reason}").format(reason=explain(view, played, fmt))
        n = len(plans)
        return TurnReview(
            index, view.seat, played, played, 0.0, 0.0, "good", unit, why, played_text, played_text, 0, n, False
        )
    values = reviewer.values(view, plans, p, iterations)
    means = [sum(v) / len(v) for v in values]
    # Among plans worth the same (e.g. every way of going out), the played one, else the one
    # that starts as the played one did the longest, else the expert's order.
    order = {k: (round(means[k], 9), k == p, _common(plans[k], played), -k) for k in range(len(plans))}
    b = max(order, key=order.__getitem__)
    loss, se = (0.0, 0.0) if b == p else held_out_loss(values, p)
    loss = max(0.0, loss)
    mark = mark_of(loss, se)
    if mark != "good":
        # The better plan shown is one the deals rate better than the played one beyond their
        # uncertainty; when none is, the turn is as good as any.
        better = [k for k in range(len(plans)) if k != p and _significant(*paired(values[k], values[p]))]
        if better:
            b = max(better, key=order.__getitem__)
        else:
            mark = "good"
    best = plans[b]
    best_text = describe_plan(view, best, fmt)
    why = _why(view, played, best, b == p, loss, mark, unit, best_text, fmt)
    return TurnReview(
        index,
        view.seat,
        played,
        best,
        loss,
        se,
        mark,
        unit,
        why,
        best_text,
        played_text,
        len(values[0]),
        len(plans),
        False,
    )


def _significant(mean: float, se: float) -> bool:
    """Whether a paired difference (mean, standard error) says one plan is better than the
    other: by more than :data:`Z` standard errors."""
    return mean > 0 and mean > Z * se


def _common(a: Sequence[Move], b: Sequence[Move]) -> int:
    """How many first moves ``a`` and ``b`` share."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _why(
    view: PlayerView,
    played: tuple[Move, ...],
    best: tuple[Move, ...],
    is_best: bool,
    loss: float,
    mark: str,
    unit: str,
    best_text: str,
    fmt: CardFormat,
) -> str:
    """The turn's reason in words."""
    if is_best:
        # Translators: {reason} is why the plan is played, in whole sentences.
        return _("The expert's best plan. {reason}").format(reason=explain(view, played, fmt))
    if mark == "good":
        # Translators: {loss} is a small loss such as 0.4.
        if unit == "chips":
            return _("As good as the expert's best (within {loss} chips).").format(loss=number(loss, 1))
        return _("As good as the expert's best (within {loss} points).").format(loss=number(loss, 1))
    best_h = plan_states(view, best)[-1][0]
    played_h = plan_states(view, played)[-1][0]
    kept = played_h & ~best_h
    # Translators: {plan} is the better plan's moves in words, {reason} why, in whole sentences.
    better = _("Better: {plan}. {reason}").format(
        plan=describe_plan(view, best, fmt, WHY_MOVES), reason=explain(view, best, fmt)
    )
    if kept:
        cards = cards_words(kept, fmt)
        pts = penalty_of(kept)
        # Translators: {cards} is cards such as "K♠ 7♥" or a count; {n} is their penalty points.
        if not best_h:
            contrast = ngettext(
                "Your plan kept {cards} ({n} point): going out was possible.",
                "Your plan kept {cards} ({n} points): going out was possible.",
                pts,
            )
        else:
            contrast = ngettext("Your plan kept {cards} ({n} point).", "Your plan kept {cards} ({n} points).", pts)
        better += " " + contrast.format(cards=cards, n=pts)
    return better


def summary_line(turns: Sequence[TurnReview], total: int, cancelled: bool) -> str:
    """ "2 mistakes, about 6 points lost"; "No mistakes: every turn as good as the expert's";
    with "Review stopped after 3 of 8 turns: ..." when cancelled."""
    mistakes = sum(t.mark == "mistake" for t in turns)
    inaccuracies = sum(t.mark == "inaccuracy" for t in turns)
    lost = sum(t.loss for t in turns if t.mark != "good")
    unit = turns[0].unit if turns else "points"
    if not turns:
        line = _("No turn reviewed")
    elif not mistakes and not inaccuracies:
        line = _("No mistakes: every turn as good as the expert's")
    else:
        counts = ngettext("{n} mistake", "{n} mistakes", mistakes).format(n=mistakes) if mistakes else _("No mistakes")
        if inaccuracies:
            # Translators: "2 mistakes, 1 inaccuracy" (or "No mistakes, 2 inaccuracies").
            counts = _("{mistakes}, {inaccuracies}").format(
                mistakes=counts,
                inaccuracies=ngettext("{n} inaccuracy", "{n} inaccuracies", inaccuracies).format(n=inaccuracies),
            )
        amount = round(lost)
        chips = unit == "chips"
        if amount < 1:
            lost_words = _("under 1 chip") if chips else _("under 1 point")
        elif chips:
            lost_words = ngettext("about {n} chip", "about {n} chips", amount).format(n=amount)
        else:
            lost_words = ngettext("about {n} point", "about {n} points", amount).format(n=amount)
        # Translators: {counts} is "2 mistakes, 1 inaccuracy"; {lost} is "about 6 points".
        line = _("{counts}, {lost} lost").format(counts=counts, lost=lost_words)
    if cancelled:
        # Translators: {summary} is the review's summary so far, "2 mistakes, about 6 points lost".
        return ngettext(
            "Review stopped after {done} of {n} turn: {summary}",
            "Review stopped after {done} of {n} turns: {summary}",
            total,
        ).format(done=len(turns), n=total, summary=line[0].lower() + line[1:])
    return line


def review_round(
    turns: Sequence[tuple[PlayerView, Sequence[Move]]],
    *,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    iterations: int = DEFAULT_ITERATIONS,
    seed: int = 0,
    fmt: CardFormat = card_symbol,
    hint_seed: int | None = None,
) -> RoundReview:
    """Review every turn of ``turns`` (the player's view at each turn's start, and the plan it
    played), in order; ``hint_seed`` is the seed of the player's hint (:func:`review_turn`).
    ``progress(done, total)`` is called before the first turn and after each; ``cancelled()``
    is asked before each turn and the review stops when it is True, returning the turns
    reviewed so far (``cancelled`` set). Pure: safe in a worker thread."""
    total = len(turns)
    out: list[TurnReview] = []
    stopped = False
    if progress is not None:
        progress(0, total)
    for i, (view, plan) in enumerate(turns):
        if cancelled is not None and cancelled():
            stopped = True
            break
        out.append(review_turn(view, plan, iterations=iterations, seed=seed, fmt=fmt, index=i, hint_seed=hint_seed))
        if progress is not None:
            progress(i + 1, total)
    return RoundReview(tuple(out), total, stopped, summary_line(out, total, stopped))


# ------------------------------------------------------------------ turns from a recorded round
def round_turns(r: Round, moves: Sequence[Move], seat: int) -> list[tuple[PlayerView, tuple[Move, ...]]]:
    """The turns of round seat ``seat`` in the round ``r`` (at its start, as dealt) played on with
    ``moves``: each turn's view at its start and the moves it made (``END`` excluded). ``r`` is
    played on a copy. ValueError when a move is illegal."""
    r = r.clone()
    out: list[tuple[PlayerView, tuple[Move, ...]]] = []
    current: list[Move] | None = None
    view: PlayerView | None = None
    for m in moves:
        if r.over:
            raise ValueError("the round goes on after it ended")
        if r.to_move == seat and current is None:
            view, current = r.view(seat), []
        r.apply(m)
        if current is not None and view is not None:
            if m != END:
                current.append(m)
            if m == END or r.over or r.to_move != seat:
                out.append((view, tuple(current)))
                current, view = None, None
    if current is not None and view is not None:
        out.append((view, tuple(current)))  # an unfinished turn: what was played so far
    return out


def match_turns(
    n_players: int,
    rules: Rules,
    seed: int,
    first_dealer: int,
    rounds: Sequence[Sequence[Move]],
    number: int,
    seat: int,
) -> list[tuple[PlayerView, tuple[Move, ...]]]:
    """The turns of match seat ``seat`` in round ``number`` (1, 2, ...) of a recorded match (its
    table size, rules, seed, first dealer and every round's moves, as the game history keeps
    them), with the match's standing in each view. Empty when the seat did not play that round.
    ValueError when the record does not replay."""
    if not 1 <= number <= len(rounds):
        raise ValueError(f"round {number} is not recorded")
    m = Match(n_players, rules, seed, first_dealer=first_dealer)
    for moves in rounds[: number - 1]:
        for mv in moves:
            m.round.apply(mv)
        if not m.round.over:
            raise ValueError("a recorded round does not end")
        m.finish_round()
        if m.over:
            raise ValueError(f"the match ended before round {number}")
    rs = m.round_seat(seat)
    if rs is None:
        return []
    return round_turns(m.round, rounds[number - 1], rs)


__all__ = [
    "DEFAULT_ITERATIONS",
    "GOOD_LOSS",
    "MARKS",
    "MISTAKE_LOSS",
    "REVIEW_EXPERT",
    "RoundReview",
    "TurnReview",
    "Z",
    "canonical",
    "held_out_loss",
    "mark_of",
    "match_turns",
    "played_moves",
    "review_round",
    "review_turn",
    "round_turns",
    "summary_line",
]
